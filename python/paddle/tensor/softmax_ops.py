"""softmax and log_softmax (paddle.nn.functional signatures of Paddle 2.3; the integrator exposes
them there). dtype, when given, casts x before the op, as Paddle does."""
from .._C import _C_ops
from .math_reduce import _cast

__all__ = []
_TENSOR_METHODS = []
_FUNCTIONAL = ["softmax", "log_softmax"]


def _check_axis(op, axis):
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"[{op}] axis must be an int, received {axis!r}")


def softmax(x, axis=-1, dtype=None, name=None):
    _check_axis("softmax", axis)
    if dtype is not None:
        x = _cast(x, dtype)
    return _C_ops.softmax(x, axis)


def log_softmax(x, axis=-1, dtype=None, name=None):
    _check_axis("log_softmax", axis)
    if dtype is not None:
        x = _cast(x, dtype)
    return _C_ops.log_softmax(x, axis)
