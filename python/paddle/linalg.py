"""paddle.linalg (Paddle 2.3): the matrix functions of paddle.tensor.linalg_ext and
paddle.tensor.linalg_decomp, and paddle.norm re-exported (plus Paddle 2.6's corrcoef,
householder_product and pca_lowrank)."""
from .tensor.linalg import norm  # noqa: F401
from .tensor.linalg_ext import (cholesky, cholesky_solve, corrcoef, cov, det,  # noqa: F401
                                householder_product, inv, matrix_power, multi_dot, pca_lowrank,
                                slogdet, solve, triangular_solve)
from .tensor.linalg_decomp import (cond, eig, eigh, eigvals, eigvalsh, lstsq, lu, lu_unpack,  # noqa: F401
                                   matrix_rank, pinv, qr, svd)

__all__ = ["cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "det", "eig", "eigh",
           "eigvals", "eigvalsh", "householder_product", "inv", "lstsq", "lu", "lu_unpack",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pca_lowrank", "pinv", "qr",
           "slogdet", "solve", "svd", "triangular_solve"]
