"""Activation functions (the nn issue extends this family)."""
from ..._C import _C_ops as _ops
from ...tensor.math import sigmoid  # noqa: F401
from ...tensor.softmax_ops import log_softmax, softmax  # noqa: F401


def relu(x, name=None):
    """max(x, 0)."""
    return _ops.relu(x)


def relu_(x, name=None):
    """In-place relu; returns x."""
    return x._copy_(_ops.relu(x))


__all__ = ["softmax", "log_softmax", "sigmoid", "relu", "relu_"]
