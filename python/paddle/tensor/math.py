"""paddle.tensor.math: elementwise arithmetic and math functions of Paddle 2.3 (add ... atan2,
abs ... erfinv, clip, scale, cast) over the C ops in paddle._C._C_ops, plus the in-place Tensor
variants (exp_, clip_, add_ ...), computed then copied back into x. Dtype rules follow Paddle:
integer / integer divides as float32; mismatched dtypes raise ValueError."""
import numpy as np

from .._C import _C_ops
from .. import _C
from ..framework import convert_dtype
from ..framework.misc import check_tensor

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod", "floor_mod",
    "pow", "maximum", "minimum", "fmax", "fmin", "atan2", "abs", "neg", "exp", "expm1", "log",
    "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "sign", "floor", "ceil", "round", "trunc",
    "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "erf", "erfinv", "logit", "isnan", "isinf", "isfinite", "clip", "scale",
    "cast",
    "add_", "subtract_", "exp_", "sqrt_", "rsqrt_", "clip_", "scale_", "tanh_", "ceil_", "floor_",
    "round_", "reciprocal_",
]

_TENSOR_METHODS = [n for n in __all__] + ["sigmoid"]

_INT_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64")


_check_tensor = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


def _scalar_tensor(v, like):
    """A [1] tensor holding Python number v in like's dtype."""
    name = like.dtype.name
    if name == "bfloat16":
        return _C_ops.cast(_C.from_buffer(np.array([v], dtype=np.float32)), like.dtype)
    return _C.from_buffer(np.array([v], dtype=name))


def _as_tensor(y, x, op):
    if isinstance(y, _C.Tensor):
        return y
    if isinstance(y, (bool, int, float, complex, np.number)):
        return _scalar_tensor(y, x)
    from ..framework.misc import type_error
    raise type_error(op, f"expected y to be a paddle.Tensor or a number, received {type(y).__name__}")


def _binary(fn, x, y, op):
    _check_tensor(x, op)
    return fn(x, _as_tensor(y, x, op))


# ---- binary arithmetic ----
def add(x, y, name=None):
    return _binary(_C_ops.add, x, y, "add")


def subtract(x, y, name=None):
    return _binary(_C_ops.subtract, x, y, "subtract")


def multiply(x, y, name=None):
    return _binary(_C_ops.multiply, x, y, "multiply")


def divide(x, y, name=None):
    """True division; integer (and bool) inputs give float32 (the divide op's rule, applied by
    the op runner with Paddle's type promotion)."""
    _check_tensor(x, "divide")
    y = _as_tensor(y, x, "divide")
    if x.dtype.name in _INT_NAMES and y.dtype.name in _INT_NAMES and x.dtype != y.dtype:
        raise ValueError(f"[divide] expected x and y to have the same dtype, but received "
                         f"x: {x.dtype.name} and y: {y.dtype.name}")
    return _C_ops.divide(x, y)


def floor_divide(x, y, name=None):
    return _binary(_C_ops.floor_divide, x, y, "floor_divide")


def remainder(x, y, name=None):
    return _binary(_C_ops.remainder, x, y, "remainder")


mod = remainder
floor_mod = remainder


def pow(x, y, name=None):  # noqa: A001  (Paddle's name)
    """x ** y: y a Tensor -> elementwise_pow; y an int/float -> the pow op (scalar exponent)."""
    _check_tensor(x, "pow")
    if isinstance(y, _C.Tensor):
        return _C_ops.elementwise_pow(x, y)
    if isinstance(y, (bool, int, float, np.integer, np.floating)):
        return _C_ops.pow(x, y)
    raise TypeError(f"[pow] expected y to be a Tensor, int or float, received {type(y).__name__}")


def maximum(x, y, name=None):
    return _binary(_C_ops.maximum, x, y, "maximum")


def minimum(x, y, name=None):
    return _binary(_C_ops.minimum, x, y, "minimum")


def fmax(x, y, name=None):
    return _binary(_C_ops.fmax, x, y, "fmax")


def fmin(x, y, name=None):
    return _binary(_C_ops.fmin, x, y, "fmin")


def atan2(x, y, name=None):
    return _binary(_C_ops.atan2, x, y, "atan2")


# ---- unary ----
# Paddle 2.6's exp/expm1/log/log2/log10/log1p take int32/int64 and give float32 (its kernels
# compute those in float); other integer types have no kernel there
_INT_TO_FLOAT32 = ("exp", "expm1", "log", "log2", "log10", "log1p")


def _float32():
    return convert_dtype("float32")


def _casin(z):
    return -1j * _C_ops.log(z * 1j + _C_ops.sqrt(1 - z * z))


# complex inputs of the functions without a complex kernel: compositions of complex ops on the
# principal branches (C99 / numpy), differentiable through them
_COMPLEX = {
    "asin": _casin,
    "acos": lambda z: np.pi / 2 - _casin(z),
    "atan": lambda z: 0.5j * (_C_ops.log(1 - z * 1j) - _C_ops.log(1 + z * 1j)),
    "asinh": lambda z: -1j * _casin(z * 1j),
    "acosh": lambda z: _C_ops.log(z + _C_ops.sqrt(z + 1) * _C_ops.sqrt(z - 1)),
    "atanh": lambda z: 0.5 * (_C_ops.log(1 + z) - _C_ops.log(1 - z)),
    "expm1": lambda z: _C_ops.exp(z) - 1,
    "sigmoid": lambda z: 1 / (1 + _C_ops.exp(-z)),
}


def _unary(opname):
    fn = getattr(_C_ops, opname)
    int_to_float = opname in _INT_TO_FLOAT32
    cfn = _COMPLEX.get(opname)

    def f(x, name=None):
        _check_tensor(x, opname)
        if int_to_float and x.dtype.name in ("int32", "int64"):
            x = _C_ops.cast(x, _float32())
        if cfn is not None and x.dtype.name in ("complex64", "complex128"):
            return cfn(x)
        return fn(x)

    f.__name__ = f.__qualname__ = opname
    f.__doc__ = f"Elementwise {opname} of x (Paddle 2.3 paddle.{opname})."
    return f


abs = _unary("abs")  # noqa: A001
neg = _unary("neg")
exp = _unary("exp")
expm1 = _unary("expm1")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
log1p = _unary("log1p")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
square = _unary("square")
sign = _unary("sign")
floor = _unary("floor")
ceil = _unary("ceil")
round = _unary("round")  # noqa: A001  (half away from zero)


def trunc(input, name=None):  # noqa: A002  (Paddle's argument name)
    """Elementwise truncation toward zero (Paddle's paddle.trunc(input))."""
    _check_tensor(input, "trunc")
    return _C_ops.trunc(input)


reciprocal = _unary("reciprocal")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")
asinh = _unary("asinh")
acosh = _unary("acosh")
atanh = _unary("atanh")
erf = _unary("erf")
erfinv = _unary("erfinv")
sigmoid = _unary("sigmoid")  # paddle.nn.functional.sigmoid re-exports this
isnan = _unary("isnan")
isinf = _unary("isinf")
isfinite = _unary("isfinite")


def logit(x, eps=None, name=None):
    """log(x / (1 - x)); with eps, x is first clamped into [eps, 1 - eps]."""
    _check_tensor(x, "logit")
    return _C_ops.logit(x, 0.0 if eps is None else float(eps))


_F32_MIN = float(np.finfo(np.float32).min)
_F32_MAX = float(np.finfo(np.float32).max)


def clip(x, min=None, max=None, name=None):  # noqa: A002
    """Clamps x into [min, max]; a missing bound is float32's lowest/highest, as in Paddle.
    min/max may be numbers or one-element Tensors."""
    _check_tensor(x, "clip")
    if any(isinstance(b, _C.Tensor) and _C._is_variable(b) for b in (min, max)):
        # a program's Tensor bound has its value only when the program runs: max(x, min) then
        # min(., max), the bounds cast to x's dtype (Paddle's clip op takes Min/Max inputs)
        out = x
        if min is not None:
            out = _C_ops.maximum(out, _bound(min, x))
        if max is not None:
            out = _C_ops.minimum(out, _bound(max, x))
        return out
    lo = _F32_MIN if min is None else min
    hi = _F32_MAX if max is None else max
    return _C_ops.clip(x, lo, hi)


def _bound(b, x):
    if not isinstance(b, _C.Tensor):
        return _scalar_tensor(b, x)
    b = b if b.dtype == x.dtype else _C_ops.cast(b, x.dtype)
    return _C_ops.reshape(b, [1] if x.ndim else [])


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (bias_after_scale) or scale * (x + bias); scale and bias are converted
    to x's dtype (Paddle's rule); act optionally names an activation applied after."""
    _check_tensor(x, "scale")
    out = _C_ops.scale(x, scale, bias, bool(bias_after_scale))
    if act is None:
        return out
    if act == "tanh":
        return _C_ops.tanh(out)
    if act == "sigmoid":
        return _C_ops.sigmoid(out)
    if act == "relu":
        return _C_ops.maximum(out, _scalar_tensor(0, out))
    raise ValueError(f"[scale] unsupported act {act!r}; expected None, 'relu', 'tanh' or 'sigmoid'")


def cast(x, dtype):
    _check_tensor(x, "cast")
    return _C_ops.cast(x, convert_dtype(dtype))


# ---- in-place variants (Tensor methods, and top-level in Paddle 2.3) ----
def _inplace(x, out, op, check_dtype=False):
    """Writes out into x (an in-place op's result) and returns x. check_dtype: refuse a result
    of another dtype (the api26 in-place forms; add_ and friends cast into x as before)."""
    if list(out.shape) != list(x.shape):
        raise ValueError(f"[{op}] the in-place result has shape {list(out.shape)}, which differs "
                         f"from x's shape {list(x.shape)}")
    if check_dtype and out.dtype != x.dtype:
        raise TypeError(f"[{op}] the result has dtype {out.dtype} but x is {x.dtype}: an in-place op "
                        f"cannot change x's dtype (use the out-of-place {op[:-1]})")
    return x._copy_(out)


def _inplace_unary(opname):
    fn = getattr(_C_ops, opname)

    def f(x, name=None):
        _check_tensor(x, opname + "_")
        return _inplace(x, fn(x), opname + "_")

    f.__name__ = f.__qualname__ = opname + "_"
    f.__doc__ = f"In-place {opname}: writes {opname}(x) into x and returns x."
    return f


exp_ = _inplace_unary("exp")
sqrt_ = _inplace_unary("sqrt")
rsqrt_ = _inplace_unary("rsqrt")
tanh_ = _inplace_unary("tanh")
ceil_ = _inplace_unary("ceil")
floor_ = _inplace_unary("floor")
round_ = _inplace_unary("round")
reciprocal_ = _inplace_unary("reciprocal")


def add_(x, y, name=None):
    return _inplace(x, add(x, y), "add_")


def subtract_(x, y, name=None):
    return _inplace(x, subtract(x, y), "subtract_")


def clip_(x, min=None, max=None, name=None):  # noqa: A002
    return _inplace(x, clip(x, min, max), "clip_")


def scale_(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    return _inplace(x, globals()["scale"](x, scale, bias, bias_after_scale, act), "scale_")
