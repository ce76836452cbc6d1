"""Methods of paddle.Tensor written in Python (conversion, printing, copying) and the operator
fallback that the C number slots call for everything except same-dtype tensor+tensor
(scalars, dtype promotion as Paddle 2.3's math_op_patch does it, reflected operators)."""
import copy as _copy
import itertools
import warnings

import numpy as np

from .. import _C
from .._C import _C_ops
from ..framework.dtype import convert_dtype, is_float_dtype
from ..framework.place import _current_place, _device_of_place, _place_of_device
from . import to_string as _to_string
from .to_tensor import scalar_tensor, to_tensor

Tensor = _C.Tensor
_INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
_name_counter = itertools.count()

# ---------------------------------------------------------------- conversion


def numpy(self, *args):
    """A numpy copy of the data (bfloat16 comes back as uint16 bits, as in Paddle). Paddle 2.6's
    eager numpy() takes an optional positional flag (numpy(False)); it changes nothing on the CPU."""
    if len(args) > 1:
        raise TypeError(f"numpy() takes at most 1 positional argument after self ({len(args)} given)")
    return np.array(memoryview(self))


def _numpy_values(self):
    a = self.numpy()
    if self.dtype.name == "bfloat16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a


def item(self, *args):
    """The value of a one-element tensor (or of the element at args) as a Python scalar."""
    if not args:
        if self.size != 1:
            raise ValueError(
                f"item() can only be called on a tensor with one element, this one has {self.size}; "
                "pass an index")
        return self._item_at(0)
    if len(args) == 1 and isinstance(args[0], int):
        idx = args[0]
        if idx < 0:
            idx += self.size
        return self._item_at(idx)
    if len(args) != self.ndim:
        raise ValueError(f"item() expects 1 or {self.ndim} indices, received {len(args)}")
    flat = 0
    for a, s in zip(args, self.shape):
        if a < -s or a >= s:
            raise IndexError(f"item(): index {a} is out of range for a dimension of size {s}")
        flat = flat * s + (a % s)
    return self._item_at(flat)


def tolist(self):
    return _numpy_values(self).tolist()


def __array__(self, dtype=None, copy=None):
    a = _numpy_values(self)
    return a.astype(dtype) if dtype is not None else a


def __repr__(self):
    return _to_string.tensor_to_string(self)


def __len__(self):
    if self.ndim == 0:
        raise TypeError("len() of a 0-D tensor")
    return self.shape[0]


def __iter__(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-D tensor")
    for i in range(self.shape[0]):
        yield self[i]


def astype(self, dtype):
    """A copy of the tensor in dtype (the same tensor object is never returned)."""
    return _C_ops.cast(self, convert_dtype(dtype))


def clone(self):
    return _C_ops.assign(self)


def detach(self):
    """A tensor sharing this tensor's data, cut from the autograd graph (stop_gradient=True)."""
    d = self._share_as(Tensor)
    d.stop_gradient = True
    return d


def _place(self):
    return _place_of_device(self._device())


def _get_name(self):
    n = self.__dict__.get("_name")
    if n is None:
        n = f"generated_tensor_{next(_name_counter)}"
        self.__dict__["_name"] = n
    return n


def _set_name(self, v):
    self.__dict__["_name"] = v


def _get_persistable(self):
    return self.__dict__.get("_persistable", False)


def _set_persistable(self, v):
    self.__dict__["_persistable"] = bool(v)


def dim(self):
    return self.ndim


def element_size(self):
    return self.dtype.itemsize


def cpu(self):
    """The tensor on the CPU: itself when it is there, else a copy (keeping stop_gradient)."""
    return self if self._device() < 0 else self._to_device(-1)


def cuda(self, device_id=None, blocking=True):
    """A copy on GPU device_id (the current GPU when None); itself when it is already there."""
    from ..framework.place import _gpu_count
    if _gpu_count() == 0:
        from .. import _C
        raise ValueError("Tensor.cuda(): no CUDA GPU is available to Paddle-C ("
                         + _C.cuda_unavailable_reason() + ")")
    if device_id is None:
        cur = _device_of_place(None)
        device_id = cur if cur >= 0 else 0
    elif not isinstance(device_id, int) or isinstance(device_id, bool):
        device_id = _device_of_place(device_id)
    if self._device() == device_id:
        return self
    return self._to_device(device_id)


def pin_memory(self):
    """Page-locked host memory is an internal detail of host<->GPU copies in Paddle-C: the
    tensor stays an ordinary CPU tensor (a copy when it lives on a GPU)."""
    from ..framework.place import _gpu_count
    if _gpu_count() == 0:
        raise RuntimeError("Tensor.pin_memory(): no CUDA GPU is available to Paddle-C")  # Paddle's class
    return self.cpu()


def fill_(x, value):
    """Fills the tensor with value in place and returns it (Paddle names the tensor x)."""
    return x._copy_(scalar_tensor(value, x.dtype))


def zero_(x):
    return fill_(x, 0)


def set_value(self, value):
    """Replaces the data in place with value (numpy array or Tensor of the same shape)."""
    src = value if isinstance(value, Tensor) else to_tensor(np.asarray(value))
    if list(src.shape) != list(self.shape):
        raise ValueError(f"set_value: expected a value of shape {self.shape}, received {src.shape}")
    prev = _C._set_grad_enabled(False)  # a data setter (parameters too): not recorded
    try:
        self._copy_(src)
    finally:
        _C._set_grad_enabled(prev)


def __deepcopy__(self, memo):
    c = clone(self)
    c.stop_gradient = self.stop_gradient
    for k, v in self.__dict__.items():
        if k != "_name":
            c.__dict__[k] = _copy.deepcopy(v, memo)
    memo[id(self)] = c
    return c


def __format__(self, spec):
    if spec and self.size == 1:
        return format(self.item(), spec)
    return object.__format__(str(self), spec)


# ---------------------------------------------------------------- operators

_BINARY = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "floor_divide": "floor_divide", "remainder": "remainder", "pow": "elementwise_pow",
    "matmul": "matmul", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "less_than": "less_than", "less_equal": "less_equal",
    "equal": "equal", "not_equal": "not_equal", "greater_than": "greater_than",
    "greater_equal": "greater_equal",
}
_REVERSED_CMP = {"less_than": "greater_than", "less_equal": "greater_equal",
                 "greater_than": "less_than", "greater_equal": "less_equal",
                 "equal": "equal", "not_equal": "not_equal"}
_SCALAR_TYPES = (int, float, bool, complex, np.number, np.bool_)
# operators whose op promotes its inputs in C (ops flagged promote in ops/binary.yaml)
_PROMOTING = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow")


def _as_operand(v, like):
    """A Python/numpy scalar or array as a tensor for an operator with tensor `like`."""
    if isinstance(v, _SCALAR_TYPES):
        if isinstance(v, (complex, np.complexfloating)) and like.dtype.name not in ("complex64", "complex128"):
            return to_tensor(v)
        return scalar_tensor(v, like.dtype)
    if isinstance(v, np.ndarray):
        return to_tensor(v)
    return None


def _operator(name, a, b):
    if name in ("neg", "pos", "abs", "invert", "int", "float", "index"):
        return _unary(name, a)
    if name not in _BINARY:  # an operator Paddle does not define (<<, >>): Python's TypeError
        return NotImplemented
    reverse = not isinstance(a, Tensor)
    x, other = (b, a) if reverse else (a, b)
    if name in _REVERSED_CMP and other is None:
        return name == "not_equal"
    # Paddle 2.3: a float scalar with an integer tensor computes in float32
    if isinstance(other, (float, np.floating)) and x.dtype.name in _INT_DTYPES + ("bool",):
        x = astype(x, "float32")
    # true division by a number: the number is not cast to a bool tensor's dtype first
    if name == "divide" and not isinstance(other, Tensor) and x.dtype.name in _INT_DTYPES + ("bool",):
        x = astype(x, "float32")
    if name in ("add", "subtract", "multiply") and x.dtype.name == "bool" and \
            isinstance(other, (int, np.integer)) and not isinstance(other, (bool, np.bool_)):
        # a bool tensor with a Python int: computed on the numbers, the result's truth value
        # (Paddle 2.6: x - 2 is True everywhere, x * 2 is x)
        xi, yi = astype(x, "int64"), scalar_tensor(other, convert_dtype("int64"))
        r = getattr(_C_ops, name)(yi, xi) if reverse else getattr(_C_ops, name)(xi, yi)
        return astype(r, "bool")
    if isinstance(other, Tensor):
        y = other
    else:
        y = _as_operand(other, x)
        if y is None:
            return NotImplemented
    # pairs Paddle's promotion rule covers (floats, complex, true division of integers) are
    # cast by the op runner (csrc/ops/runner.c); the others are cast right to left (Paddle 2.3)
    if y.dtype != x.dtype and name in _PROMOTING and \
            _C._promote_types(x.dtype, y.dtype, name == "divide") is None:
        if name == "divide" and y.dtype.name in _INT_DTYPES + ("bool",):
            y = astype(y, "float32")  # int tensor / float tensor -> float (the left operand's)
        if name == "divide" and x.dtype.name in _INT_DTYPES + ("bool",):
            x = astype(x, "float32")
        if y.dtype != x.dtype:
            warnings.warn(
                f"The dtype of left and right variables are not the same, left dtype is {x.dtype}, "
                f"but right dtype is {y.dtype}, the right dtype will convert to {x.dtype}", stacklevel=3)
            y = astype(y, x.dtype)
    elif y.dtype != x.dtype and name not in _PROMOTING:
        if x.dtype.name in ("complex64", "complex128") or y.dtype.name in ("complex64", "complex128"):
            target = _C._promote_types(x.dtype, y.dtype)
            x, y = astype(x, target) if x.dtype != target else x, astype(y, target) if y.dtype != target else y
        else:
            warnings.warn(
                f"The dtype of left and right variables are not the same, left dtype is {x.dtype}, "
                f"but right dtype is {y.dtype}, the right dtype will convert to {x.dtype}", stacklevel=3)
            y = astype(y, x.dtype)
    if reverse:
        if name in _REVERSED_CMP:
            name = _REVERSED_CMP[name]
        else:
            x, y = y, x
    op = getattr(_C_ops, _BINARY[name])
    return op(x, y)


def _unary(name, x):
    if name == "neg":
        return _C_ops.neg(x)
    if name == "pos":
        return x
    if name == "abs":
        return _C_ops.abs(x)
    if name == "invert":
        return _C_ops.bitwise_not(x) if x.dtype.name != "bool" else _C_ops.logical_not(x)
    if x.size != 1:
        raise ValueError(f"only one-element tensors can be converted to Python scalars, this one has "
                         f"{x.size} elements")
    v = x._item_at(0)
    if name == "int":
        return int(v.real if isinstance(v, complex) else v)
    if name == "float":
        return float(v.real if isinstance(v, complex) else v)
    if name == "index":
        if x.dtype.name not in _INT_DTYPES:
            raise TypeError(f"only integer tensors of a single element can be converted to an index, "
                            f"this one is {x.dtype.name}")
        return int(v)
    raise ValueError(name)


def get_strides(self):
    """The strides in elements (Paddle 2.6's Tensor.get_strides)."""
    return list(self.strides)


def _false(self):
    """A dense tensor on one process: not distributed, not SelectedRows (Paddle's is_dist,
    is_selected_rows)."""
    return False


_METHODS = {
    "get_strides": get_strides, "is_dist": _false, "is_selected_rows": _false,
    "numpy": numpy, "item": item, "tolist": tolist, "__array__": __array__, "__repr__": __repr__,
    "__str__": __repr__, "__len__": __len__, "__iter__": __iter__, "astype": astype,
    "clone": clone, "detach": detach, "dim": dim, "ndimension": dim,
    "element_size": element_size, "cpu": cpu, "cuda": cuda, "pin_memory": pin_memory,
    "fill_": fill_, "zero_": zero_, "set_value": set_value, "__deepcopy__": __deepcopy__,
    "__format__": __format__,
}


def install():
    for k, v in _METHODS.items():
        setattr(Tensor, k, v)
    Tensor.place = property(_place)
    Tensor.name = property(_get_name, _set_name)
    Tensor.persistable = property(_get_persistable, _set_persistable)
    Tensor.__array_priority__ = 100
    Tensor.__array_ufunc__ = None  # numpy operators defer to Tensor's reflected operators
    _C._set_operator_fallback(_operator)
