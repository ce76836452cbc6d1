"""argmax/argmin of paddle.tensor.search (Paddle 2.3 signatures): the index of the first largest
(smallest) value along axis; axis None searches the flattened tensor (result shape [1])."""
import numpy as np

from .._C import _C_ops
from ..framework import convert_dtype
from . import static_shape as _ss

__all__ = ["argmax", "argmin"]
_TENSOR_METHODS = list(__all__)


def _axis_value(axis, op):
    """axis as given, or the int a 1-element Tensor holds (Paddle takes both in dygraph)"""
    from .. import Tensor
    if isinstance(axis, Tensor):
        if axis.size != 1:
            raise ValueError(f"(InvalidArgument) [{op}] an axis given as a Tensor must hold 1 element, "
                             f"received shape {list(axis.shape)}")
        return int(axis._item_at(0))
    return axis


def _arg(op, x, axis, keepdim, dtype):
    if dtype is None:
        raise ValueError(f"[{op}] dtype must be int32 or int64, received None")
    d = convert_dtype(dtype)
    if d.name not in ("int32", "int64"):
        from ..framework.misc import type_error
        raise type_error(op, f"dtype must be int32 or int64, received {d.name}")
    if axis is None:
        return getattr(_C_ops, op)(x, 0, bool(keepdim), True, d)
    if _ss.is_var(axis):  # a program Variable: read when the program runs
        return _ss.attr_dyn(op, [x, axis, bool(keepdim), False, d], {1})
    axis = _axis_value(axis, op)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"[{op}] axis must be an int or None, received {type(axis).__name__}")
    return getattr(_C_ops, op)(x, int(axis), bool(keepdim), False, d)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg("argmax", x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg("argmin", x, axis, keepdim, dtype)
