"""paddle.tensor.logic: comparisons (equal ... greater_equal), logical and bitwise ops of
Paddle 2.3 over the C ops in paddle._C._C_ops; equal_all, isclose and allclose are compositions
of those. Comparisons give bool tensors; mismatched dtypes raise ValueError."""
import numpy as np

from .._C import _C_ops
from .. import _C
from ..framework.misc import check_tensor

__all__ = [
    "equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "equal_all", "allclose", "isclose",
]

_TENSOR_METHODS = list(__all__)


_check_tensor = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


def _scalar_tensor(v, like):
    name = like.dtype.name
    if name == "bfloat16":
        return _C_ops.cast(_C.from_buffer(np.array([v], dtype=np.float32)), like.dtype)
    return _C.from_buffer(np.array([v], dtype=name))


def _binary(opname, allow_scalar=True):
    fn = getattr(_C_ops, opname)

    def f(x, y, name=None):
        _check_tensor(x, opname)
        if not isinstance(y, _C.Tensor):
            if allow_scalar and isinstance(y, (bool, int, float, complex, np.number)):
                y = _scalar_tensor(y, x)
            else:
                raise TypeError(f"[{opname}] expected y to be a Tensor, received {type(y).__name__}")
        return fn(x, y)

    f.__name__ = f.__qualname__ = opname
    f.__doc__ = f"Elementwise {opname}(x, y) with broadcasting (Paddle 2.3 paddle.{opname})."
    return f


equal = _binary("equal")
not_equal = _binary("not_equal")
less_than = _binary("less_than")
less_equal = _binary("less_equal")
greater_than = _binary("greater_than")
greater_equal = _binary("greater_equal")


def _with_out(opname):
    fn = _binary(opname, allow_scalar=False)
    logical = opname.startswith("logical_")

    def f(x, y, out=None, name=None):
        if logical and isinstance(x, _C.Tensor) and isinstance(y, _C.Tensor) and x.dtype != y.dtype:
            # truth values of two dtypes: both become bool first (Paddle 2.6 does so for a complex x)
            from ..framework.dtype import convert_dtype
            b = convert_dtype("bool")
            x, y = _C_ops.cast(x, b), _C_ops.cast(y, b)
        r = fn(x, y)
        if out is not None:
            out._copy_(r)
            return out
        return r

    f.__name__ = f.__qualname__ = opname
    f.__doc__ = fn.__doc__
    return f


logical_and = _with_out("logical_and")
logical_or = _with_out("logical_or")
logical_xor = _with_out("logical_xor")
bitwise_and = _with_out("bitwise_and")
bitwise_or = _with_out("bitwise_or")
bitwise_xor = _with_out("bitwise_xor")


def logical_not(x, out=None, name=None):
    _check_tensor(x, "logical_not")
    r = _C_ops.logical_not(x)
    if out is not None:
        out._copy_(r)
        return out
    return r


def bitwise_not(x, out=None, name=None):
    _check_tensor(x, "bitwise_not")
    r = _C_ops.bitwise_not(x)
    if out is not None:
        out._copy_(r)
        return out
    return r


def _bool1(v):
    """A scalar bool tensor ([1], or 0-D with FLAGS_set_to_1d off)."""
    a = np.array(bool(v))
    return _C.from_buffer(a.reshape(1) if _C.set_to_1d() else a)


def equal_all(x, y, name=None):
    """A scalar bool tensor: True when x and y have the same shape and all elements are equal."""
    _check_tensor(x, "equal_all")
    _check_tensor(y, "equal_all", "y")
    if len(x.shape) != len(y.shape) or any(a != b and a >= 0 and b >= 0 for a, b in zip(x.shape, y.shape)):
        if _C._is_variable(x) or _C._is_variable(y):  # a program: a recorded constant False
            return _C_ops.all(_C_ops.full([1], 0, _C_ops.equal(x, x).dtype), [], False)
        return _bool1(False)
    if _C._is_variable(x) or _C._is_variable(y):  # a program: reduced by an op when it runs
        return _C_ops.all(_C_ops.equal(x, y), [], False)
    return _bool1(np.asarray(_C_ops.equal(x, y)).all())


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (equal infinities are close; NaNs are close to
    each other only with equal_nan). float32/float64 inputs of one dtype."""
    _check_tensor(x, "isclose")
    _check_tensor(y, "isclose", "y")
    for t, nm in ((x, "x"), (y, "y")):
        if t.dtype.name not in ("float32", "float64"):
            from ..framework.misc import kernel_not_found  # Paddle's allclose / isclose: float32, float64
            raise kernel_not_found("isclose", t.dtype.name)
    diff = _C_ops.abs(_C_ops.subtract(x, y))
    tol = _C_ops.scale(_C_ops.abs(y), float(rtol), float(atol), True)
    close = _C_ops.logical_or(_C_ops.less_equal(diff, tol), _C_ops.equal(x, y))
    if equal_nan:
        both = _C_ops.logical_and(_C_ops.isnan(x), _C_ops.isnan(y))
        close = _C_ops.logical_or(close, both)
    return close


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A scalar bool tensor: isclose(x, y, ...) holds everywhere."""
    c = isclose(x, y, rtol, atol, equal_nan)
    if _C._is_variable(c):  # a program: reduced by an op when it runs
        return _C_ops.all(c, [], False)
    return _bool1(np.asarray(c).all())
