"""paddle.linalg (Paddle 2.3): the matrix functions of paddle.tensor.linalg_ext and
paddle.tensor.linalg_decomp, and paddle.norm re-exported."""
from .tensor.linalg import norm  # noqa: F401
from .tensor.linalg_ext import (cholesky, cholesky_solve, cov, det, inv, matrix_power,  # noqa: F401
                                multi_dot, slogdet, solve, triangular_solve)

__all__ = ["cholesky", "cholesky_solve", "cov", "det", "inv", "matrix_power", "multi_dot", "norm",
           "slogdet", "solve", "triangular_solve"]
