"""paddle.nn.functional: the functional ops the foundation provides (softmax, log_softmax,
sigmoid); the rest of the functional API arrives with the nn issue (issue 5)."""
from ...tensor.math import sigmoid  # noqa: F401
from ...tensor.softmax_ops import log_softmax, softmax  # noqa: F401

from ..._C import _C_ops as _ops


def relu(x, name=None):
    """max(x, 0)."""
    return _ops.relu(x)


def relu_(x, name=None):
    """In-place relu; returns x."""
    return x._copy_(_ops.relu(x))


__all__ = ["softmax", "log_softmax", "sigmoid", "relu", "relu_"]
