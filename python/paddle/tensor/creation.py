"""Tensor creation API of Paddle 2.3 (paddle.zeros, ones, full, arange, linspace, eye, diag,
meshgrid, assign, clone ...) over the C ops full, empty, arange, linspace, eye, diag, meshgrid
and assign. Argument conversion (shapes, dtypes, Tensor-valued scalars) happens here."""
import math
import numbers

import numpy as np

from .. import _C
from .._C import _C_ops
from ..framework.dtype import convert_dtype, get_default_dtype
from . import static_shape as _ss

Tensor = _C.Tensor

__all__ = ["zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
           "arange", "linspace", "eye", "diag", "meshgrid", "assign", "clone"]
_TENSOR_METHODS = ["clone"]


def _scalar(v, name="value"):
    """A Python scalar from v (numbers, numpy scalars, 1-element Tensors)."""
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"{name} must be a scalar or a 1-element Tensor, received shape {v.shape}")
        return v._item_at(0)
    if isinstance(v, np.ndarray):
        if v.size != 1:
            raise ValueError(f"{name} must be a scalar, received an array of shape {v.shape}")
        v = v.reshape(()).item()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (bool, numbers.Number)):
        return v
    raise TypeError(f"{name} must be a number or a 1-element Tensor, received {type(v).__name__}")


def _shape(shape):
    """shape: int, list/tuple of ints or 1-element Tensors, or a 1-D int Tensor -> list of ints."""
    if isinstance(shape, (Tensor, np.ndarray)):
        return [int(v) for v in np.asarray(shape).reshape(-1).tolist()]
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return [int(shape)]
    if isinstance(shape, (list, tuple)):
        out = []
        for s in shape:
            s = _scalar(s, "shape entry")
            if isinstance(s, bool) or not float(s).is_integer():
                raise TypeError(f"shape entries must be integers, received {s!r}")
            out.append(int(s))
        return out
    raise TypeError(f"shape must be an int, a list/tuple of ints or a Tensor, received {type(shape).__name__}")


def _dtype(dtype, default=None):
    if dtype is None:
        return convert_dtype(default if default is not None else get_default_dtype())
    return convert_dtype(dtype)


def full(shape, fill_value, dtype=None, name=None):
    if _ss.needs_tensor(shape):  # a program: shape entries known only when it runs
        if _ss.is_var(fill_value):  # and the value too: the value expanded to the run-time shape
            t, known = _ss.shape_tensor(shape)
            v = _C_ops.reshape(_C_ops.cast(fill_value, _dtype(dtype)), [])  # 0-D: expands to any rank
            return _ss.refine(_C_ops.expand_dyn(v, t, known), known)
        return _ss.full(shape, _scalar(fill_value, "fill_value"), _dtype(dtype))
    if _ss.is_var(fill_value):  # a program: the value is known only when it runs
        sh = _shape(shape)
        return _C_ops.expand(_C_ops.reshape(_C_ops.cast(fill_value, _dtype(dtype)), []), sh)
    return _C_ops.full(_shape(shape), _scalar(fill_value, "fill_value"), _dtype(dtype))


def zeros(shape, dtype=None, name=None):
    return full(shape, 0, dtype)


def ones(shape, dtype=None, name=None):
    return full(shape, 1, dtype)


def empty(shape, dtype=None, name=None):
    if _ss.needs_tensor(shape):  # a program: its value is unspecified, zeros here
        return _ss.full(shape, 0, _dtype(dtype))
    return _C_ops.empty(_shape(shape), _dtype(dtype))


def full_like(x, fill_value, dtype=None, name=None):
    if _ss.is_var(x):  # a program: x's shape when it runs (Paddle's fill_any_like)
        return _C_ops.full_like(x, _scalar(fill_value, "fill_value"), _dtype(dtype, x.dtype))
    return _C_ops.full(x.shape, _scalar(fill_value, "fill_value"), _dtype(dtype, x.dtype))


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1, dtype)


def empty_like(x, dtype=None, name=None):
    if _ss.is_var(x):
        return _C_ops.full_like(x, 0, _dtype(dtype, x.dtype))
    return _C_ops.empty(x.shape, _dtype(dtype, x.dtype))


def _arange_dyn(start, end, step, dtype):
    """arange whose bounds are program values: n = ceil((end - start) / step) from ops, then
    start + i * step over i = cumsum(ones[n]) - 1 (the kernel's arithmetic: int64, else double)."""
    i64, f64 = convert_dtype("int64"), convert_dtype("float64")
    d = convert_dtype(dtype) if dtype is not None else None
    vals = [start, end, step]
    ints = all((v.dtype.name in ("int32", "int64")) if isinstance(v, Tensor) else isinstance(v, numbers.Integral)
               for v in vals)
    if d is None:
        d = i64 if ints else convert_dtype(get_default_dtype())
    ct = i64 if ints and d.name not in ("float16", "bfloat16", "float32", "float64") else f64
    t = [_C_ops.cast(_C_ops.reshape(v, [1]), ct) if isinstance(v, Tensor) else _C_ops.full([1], v, ct)
         for v in vals]
    s0, e, st = t
    span = _C_ops.subtract(e, s0)
    if ct == i64:  # ceil division for either sign of step
        one = _C_ops.full([1], 1, i64)
        adj = _C_ops.where(_C_ops.greater_than(st, _C_ops.full([1], 0, i64)), _C_ops.subtract(st, one),
                           _C_ops.add(st, one))
        n = _C_ops.floor_divide(_C_ops.add(span, adj), st)
    else:
        n = _C_ops.cast(_C_ops.ceil(_C_ops.divide(span, st)), i64)
    n = _C_ops.maximum(n, _C_ops.full([1], 0, i64))
    idx = _C_ops.subtract(_C_ops.cumsum(_ss.full([n], 1, i64), 0, False, False, False), _C_ops.full([1], 1, i64))
    out = _C_ops.add(s0, _C_ops.multiply(_C_ops.cast(idx, ct), st))
    return _C_ops.cast(out, d) if out.dtype != d else out


def arange(start=0, end=None, step=1, dtype=None, name=None):
    if end is None:
        start, end = 0, start
    if any(_ss.is_var(v) for v in (start, end, step)):  # a program's values: composed from ops
        return _arange_dyn(start, end, step, dtype)
    start, end, step = _scalar(start, "start"), _scalar(end, "end"), _scalar(step, "step")
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = "int64" if ints else get_default_dtype()
    if _recording():  # Paddle's range op takes its bounds as tensors; its length is known (as Paddle sets it)
        d = convert_dtype(dtype)
        out = _C_ops.arange_tensor(*[_C_ops.full([1], v, d) for v in (start, end, step)])
        return _ss.refine(out, [max(0, int(math.ceil((end - start) / step)))]) if step else out
    return _C_ops.arange(start, end, step, convert_dtype(dtype))


def _one_tensor(v, name, d):
    """A [1] tensor of dtype d from a number, or from a program's Variable (its value at run time)."""
    if _ss.is_var(v):
        return _C_ops.reshape(v if v.dtype == d else _C_ops.cast(v, d), [1])
    return _C_ops.full([1], _scalar(v, name), d)


def linspace(start, stop, num, dtype=None, name=None):
    if _recording():  # Paddle's linspace op takes start, stop and num as tensors
        d = _dtype(dtype)
        i32 = _C.dtypes[[t.name for t in _C.dtypes].index("int32")]
        if not _ss.is_var(num):
            num = _scalar(num, "num")
            if isinstance(num, bool) or not isinstance(num, numbers.Integral):
                raise TypeError(f"num must be an int, received {num!r}")
        out = _C_ops.linspace_tensor(_one_tensor(start, "start", d), _one_tensor(stop, "stop", d),
                                     _one_tensor(num, "num", i32), d)
        return _ss.refine(out, [int(num)]) if not _ss.is_var(num) and num >= 0 else out
    num = _scalar(num, "num")
    if isinstance(num, bool) or not isinstance(num, numbers.Integral):
        raise TypeError(f"num must be an int, received {num!r}")
    return _C_ops.linspace(_scalar(start, "start"), _scalar(stop, "stop"), int(num), _dtype(dtype))


def _recording():
    """True while a static program records (paddle.enable_static())."""
    from ..static.framework import _in_static
    return _in_static()


def eye(num_rows, num_columns=None, dtype=None, name=None):
    if _ss.is_var(num_rows) or _ss.is_var(num_columns):  # program Variables: read when the program runs
        args = [num_rows, -1 if num_columns is None else num_columns, _dtype(dtype)]
        return _ss.attr_dyn("eye", args, {i for i in (0, 1) if _ss.is_var(args[i])})
    # a Tensor of any dtype is Paddle's Scalar argument: its value as an int (a float32 5.0 is 5)
    num_rows = int(_scalar(num_rows, "num_rows")) if isinstance(num_rows, Tensor) else _scalar(num_rows, "num_rows")
    if isinstance(num_columns, Tensor):
        num_columns = int(_scalar(num_columns, "num_columns"))
    if isinstance(num_rows, bool) or not isinstance(num_rows, numbers.Integral) or num_rows < 0:
        # Paddle: TypeError "num_rows should be a non-negative int"; also a ValueError (InvalidArgument)
        from ..framework.misc import type_error
        raise type_error("eye", f"num_rows should be a non-negative int, received {num_rows!r}")
    if num_columns is None:
        num_columns = -1
    else:
        num_columns = _scalar(num_columns, "num_columns")
        if num_columns < 0:
            raise ValueError(f"num_columns must be non-negative, received {num_columns}")
    return _C_ops.eye(int(num_rows), int(num_columns), _dtype(dtype))


def diag(x, offset=0, padding_value=0, name=None):
    return _C_ops.diag(x, int(offset), _scalar(padding_value, "padding_value"))


def meshgrid(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if not args:
        raise ValueError("meshgrid expects at least one Tensor")
    return list(_C_ops.meshgrid(list(args)))


def _from_numpy(a):
    a = np.asarray(a)
    if a.dtype == np.float64:
        a = a.astype(np.float32)  # Paddle 2.3's assign stores float64 numpy input as float32
    a = np.ascontiguousarray(a).reshape(a.shape if a.ndim or not _C.set_to_1d() else (1,))
    return _C_ops.assign(_C.from_buffer(a))


def assign(x, output=None):
    if isinstance(x, Tensor):
        out = _C_ops.assign(x)
    elif isinstance(x, np.ndarray):
        out = _from_numpy(x)
    elif isinstance(x, (bool, numbers.Number, np.generic)):
        # a scalar becomes shape [1] at both API levels, as in Paddle 2.3 and 2.6
        # (paddle.assign wraps np.isscalar inputs in a list); a 0-D ndarray stays 0-D at 2.6's
        out = _from_numpy(np.array([x]))
    elif isinstance(x, (list, tuple)):
        out = _from_numpy(np.array(x))
    else:
        raise TypeError(f"assign expects a Tensor, numpy array, list, tuple or scalar, received {type(x).__name__}")
    if output is not None:
        output._copy_(out)
        return output
    return out


def clone(x, name=None):
    return _C_ops.assign(x)
