"""paddle.to_tensor and the conversions between Python/numpy data and Tensors (Paddle 2.3
rules: Python int -> int64, Python float -> the default dtype, bool -> bool, complex ->
complex64 (complex128 when the default is float64), numpy arrays keep their dtype; a scalar
becomes shape [1] at the default API level (FLAGS_set_to_1d on, Paddle 2.3) and 0-D with
FLAGS_set_to_1d off (Paddle 2.6))."""
import numbers
import warnings

import numpy as np

from .. import _C
from ..framework import place as _place
from ..framework.dtype import convert_dtype, get_default_dtype, to_numpy_dtype

Tensor = _C.Tensor


def _bf16_bits(a):
    """float array -> uint16 bfloat16 bits, round to nearest even (NaN kept)."""
    f = np.ascontiguousarray(a, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        rounded[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return rounded


def _from_numpy(a, dtype=None):
    """numpy array -> new Tensor (copy), cast to dtype if given."""
    a = np.asarray(a)
    if a.dtype == object:
        raise TypeError("to_tensor: cannot convert an object array (ragged nested lists?) to a Tensor")
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("="))
    if a.dtype.kind == "U" or a.dtype.kind == "S":
        from ..framework.misc import type_error
        raise type_error("to_tensor", f"strings are not supported, received dtype {a.dtype}")
    if a.ndim == 0 and _C.set_to_1d():
        a = a.reshape(1)  # Paddle 2.3: a scalar is [1]; 0-D with FLAGS_set_to_1d off
    if a.dtype == np.uint16 and dtype is not None and convert_dtype(dtype).name == "bfloat16":
        return _C.from_buffer(_contiguous(a))
    if dtype is not None:
        d = convert_dtype(dtype)
        if d.name == "bfloat16":
            return _C.from_buffer(_bf16_bits(a).reshape(a.shape))
        nd = to_numpy_dtype(d)
        if a.dtype != nd:
            a = a.astype(nd)
    elif a.dtype in (np.uint16, np.uint32, np.uint64):
        raise TypeError(f"to_tensor: numpy dtype {a.dtype} has no Paddle equivalent; cast it first")
    elif a.dtype == np.int64 or a.dtype.kind in "biufc":
        pass
    return _C.from_buffer(_contiguous(a))


def _contiguous(a):
    """np.ascontiguousarray keeping a 0-D array 0-D (numpy makes it 1-D)."""
    return np.ascontiguousarray(a).reshape(a.shape) if a.ndim == 0 else np.ascontiguousarray(a)


def _infer_python_dtype(data):
    """dtype for Python scalars / nested lists, following Paddle's rules."""
    flat = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        else:
            flat.append(x)

    walk(data)
    bad = [v for v in flat if isinstance(v, (str, bytes)) or v is None]
    if bad:
        raise TypeError(f"to_tensor: cannot convert {type(bad[0]).__name__} values to a Tensor "
                        f"(received {bad[0]!r})")
    default = get_default_dtype()
    if any(isinstance(v, complex) for v in flat):
        return "complex128" if default == "float64" else "complex64"
    if any(isinstance(v, float) or isinstance(v, np.floating) for v in flat):
        return default
    if flat and all(isinstance(v, (bool, np.bool_)) for v in flat):
        return "bool"
    if any(isinstance(v, Tensor) for v in flat):
        return None
    return "int64"


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Creates a Tensor from a Python scalar, (nested) list/tuple, numpy array or Tensor."""
    if isinstance(data, Tensor):
        # a new leaf, as in Paddle: the copy is not part of data's graph
        src = data if _C._is_variable(data) else data.detach()
        out = src.astype(dtype) if dtype is not None and convert_dtype(dtype) != src.dtype else src.clone()
        if out is src or out is data:
            out = src.clone()
        if place is not None:
            out = _to_place(out, place)
        out.stop_gradient = stop_gradient
        return out
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        out = _from_numpy(data, dtype)
    elif isinstance(data, (bool, numbers.Number)) or isinstance(data, (list, tuple)):
        if isinstance(data, (list, tuple)) and _contains_tensor(data):
            arr = np.array(_tensors_to_lists(data))
            out = _from_numpy(arr, dtype)
        else:
            d = dtype if dtype is not None else _infer_python_dtype(data)
            nd = to_numpy_dtype(d) if convert_dtype(d).name != "bfloat16" else np.float32
            try:
                arr = np.array(data, dtype=nd)
            except (ValueError, TypeError) as e:
                try:  # complex values for a real dtype: numpy's conversion keeps the real part, as Paddle
                    arr = np.array(data)
                    if arr.dtype.kind != "c":
                        raise ValueError(str(e))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                        arr = arr.astype(nd)
                except (ValueError, TypeError):
                    raise ValueError(f"to_tensor: cannot convert {type(data).__name__} to a Tensor: {e}") from None
            out = _from_numpy(arr, d)
    elif hasattr(data, "__array__") or hasattr(data, "__array_interface__"):
        out = _from_numpy(np.asarray(data), dtype)
    elif hasattr(data, "__dlpack__"):
        from ..utils.dlpack import from_dlpack
        out = from_dlpack(data)
        if dtype is not None:
            out = out.astype(dtype)
    else:
        raise TypeError(
            "to_tensor: data must be a scalar, list, tuple, numpy.ndarray or paddle.Tensor, "
            f"received {type(data).__name__}")
    if _C._static_active() is not None and not _C._is_variable(out):
        out = _static_constant(out)  # Paddle's static to_tensor: a constant of the program
    else:
        out = _to_place(out, place)
    out.stop_gradient = stop_gradient
    return out


def _to_place(t, place):
    """t moved to place (None: paddle.set_device's); the CPU path costs one attribute read."""
    if place is None and _place._device == "cpu":
        return t if t._device() < 0 else t._to_device(-1)
    dev = _place._device_of_place(place)
    return t if t._device() == dev else t._to_device(dev)


def _static_constant(t):
    """The eager tensor t as an assign_value op of the current program (a Variable)."""
    from .._C import _C_ops
    if t.dtype.name in ("complex64", "complex128"):
        return _C_ops.assign(t)  # the recorder explains that complex constants are not supported
    a = np.array(memoryview(t))
    if t.dtype.name == "bfloat16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return _C_ops.assign_value(list(t.shape), t.dtype, a.astype(np.float64).reshape(-1).tolist())


def _contains_tensor(seq):
    for v in seq:
        if isinstance(v, Tensor):
            return True
        if isinstance(v, (list, tuple)) and _contains_tensor(v):
            return True
    return False


def _tensors_to_lists(seq):
    out = []
    for v in seq:
        if isinstance(v, Tensor):
            out.append(v.numpy())
        elif isinstance(v, (list, tuple)):
            out.append(_tensors_to_lists(v))
        else:
            out.append(v)
    return out


def scalar_shape():
    """The shape of a scalar result at the current API level: [1] (FLAGS_set_to_1d on, Paddle
    2.3) or [] (off, Paddle 2.6). The level lives in C (paddle._C.set_to_1d)."""
    return [1] if _C.set_to_1d() else []


def scalar_tensor(value, dtype):
    """A tensor holding value in dtype (used for tensor-scalar arithmetic): shape [1], or 0-D with
    FLAGS_set_to_1d off (so that a 0-D tensor with a Python number stays 0-D)."""
    d = convert_dtype(dtype)
    v = [value] if _C.set_to_1d() else value
    if d.name == "bfloat16":
        return _C.from_buffer(_bf16_bits(np.array(v, dtype=np.float32)))
    return _C.from_buffer(np.array(v, dtype=to_numpy_dtype(d)))


__all__ = ["to_tensor"]
