"""paddle.nn.functional: the functional ops the foundation provides (softmax, log_softmax,
sigmoid); the rest of the functional API arrives with the nn issue (issue 5)."""
from ...tensor.math import sigmoid  # noqa: F401
from ...tensor.softmax_ops import log_softmax, softmax  # noqa: F401

__all__ = ["softmax", "log_softmax", "sigmoid"]
