"""Reductions and scans of paddle.tensor.math (Paddle 2.3 signatures): sum, prod, max, min, amax,
amin, logsumexp, cumsum, cumprod, all, any. Thin wrappers that normalise axis/dtype arguments and
call the C ops (paddle._C._C_ops); shapes follow Paddle 2.3 (a full reduction gives shape [1])."""
import numpy as np

from .._C import _C_ops
from ..framework import convert_dtype
from .search_reduce import _axis_value
from . import static_shape as _ss

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "logsumexp", "cumsum", "cumprod", "all",
           "any"]
_TENSOR_METHODS = list(__all__)


def _axes(axis, op="reduce"):
    """None -> [] (all axes); int -> [int]; list/tuple of ints -> list."""
    if axis is None:
        return []
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return [int(axis)]
    if isinstance(axis, (list, tuple)):
        out = []
        for a in axis:
            if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
                raise TypeError(f"[{op}] axis must be an int or a list/tuple of ints, received {axis!r}")
            out.append(int(a))
        return out
    if hasattr(axis, "shape") and hasattr(axis, "dtype"):  # an integer Tensor
        return [int(v) for v in np.asarray(axis).reshape(-1)]
    raise TypeError(f"[{op}] axis must be None, an int or a list/tuple of ints, received {type(axis).__name__}")


def _cast(x, dtype):
    """x cast to dtype (no copy when it already has it)."""
    d = convert_dtype(dtype)
    if x.dtype == d:
        return x
    return _C_ops.cast(x, d)


def _flatten(x):
    return _C_ops.reshape(x, [-1])


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """Sum over axis (None: all). bool/int32 inputs give int64 unless dtype is given."""
    d = None if dtype is None else convert_dtype(dtype)
    return _C_ops.sum(x, _axes(axis, "sum"), bool(keepdim), d)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    if dtype is not None:
        x = _cast(x, dtype)
    return _C_ops.prod(x, _axes(axis, "prod"), bool(keepdim))


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001
    return _C_ops.max(x, _axes(axis, "max"), bool(keepdim))


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001
    return _C_ops.min(x, _axes(axis, "min"), bool(keepdim))


def amax(x, axis=None, keepdim=False, name=None):
    return _C_ops.amax(x, _axes(axis, "amax"), bool(keepdim))


def amin(x, axis=None, keepdim=False, name=None):
    return _C_ops.amin(x, _axes(axis, "amin"), bool(keepdim))


def logsumexp(x, axis=None, keepdim=False, name=None):
    return _C_ops.logsumexp(x, _axes(axis, "logsumexp"), bool(keepdim))


def all(x, axis=None, keepdim=False, name=None):  # noqa: A001
    return _C_ops.all(x, _axes(axis, "all"), bool(keepdim))


def any(x, axis=None, keepdim=False, name=None):  # noqa: A001
    return _C_ops.any(x, _axes(axis, "any"), bool(keepdim))


def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along axis; axis None flattens first (1-D result)."""
    if dtype is not None:
        x = _cast(x, dtype)
    if axis is None:
        return _C_ops.cumsum(x, -1, True, False, False)
    if _ss.is_var(axis):  # a program Variable: read when the program runs
        return _ss.attr_dyn("cumsum", [x, axis, False, False, False], {1})
    axis = _axis_value(axis, "cumsum")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"[cumsum] axis must be an int or None, received {axis!r}")
    return _C_ops.cumsum(x, int(axis), False, False, False)


def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along dim; dim None flattens first (1-D result)."""
    if dtype is not None:
        x = _cast(x, dtype)
    if dim is None:
        return _C_ops.cumprod(_flatten(x), 0)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"[cumprod] dim must be an int, received {dim!r}")
    return _C_ops.cumprod(x, int(dim))
