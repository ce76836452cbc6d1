"""Activation functions of paddle.nn.functional (Paddle 2.3 signatures). The hot ones (relu, gelu,
silu/swish, leaky_relu, elu, hardswish, hardsigmoid, softplus, mish) run fused C kernels; the
rest are compositions of existing ops (autograd comes with them)."""
import math

from ..._C import _C_ops as _ops
from ...tensor.math import sigmoid  # noqa: F401
from ...tensor.softmax_ops import log_softmax, softmax  # noqa: F401


def _t():
    import paddle
    return paddle


def _num(op, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"[{op}] {name} must be a number, received {v!r}")
    return float(v)


def relu(x, name=None):
    """max(x, 0)."""
    return _ops.relu(x)


def relu_(x, name=None):
    """In-place relu; returns x."""
    return x._copy_(_ops.relu(x))


def relu6(x, name=None):
    """min(max(x, 0), 6)."""
    return _ops.clip(x, 0.0, 6.0)


def leaky_relu(x, negative_slope=0.01, name=None):
    """x if x > 0 else negative_slope * x."""
    return _ops.leaky_relu(x, _num("leaky_relu", "negative_slope", negative_slope))


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x, weight, data_format="NCHW", name=None):
    """x if x > 0 else weight * x; weight has 1 element or one per channel (axis 1 for
    channel-first formats, the last axis for channel-last ones)."""
    if data_format not in _PRELU_FORMATS:
        raise ValueError(f"[prelu] data_format must be one of {_PRELU_FORMATS}, received {data_format!r}")
    n = 1
    for d in weight.shape:
        n *= d
    if n != 1:
        if x.ndim < 2:
            raise ValueError(f"[prelu] expected x with at least 2 dims for a per-channel weight, received {x.shape}")
        ch = 1 if data_format[1] == "C" else x.ndim - 1
        if x.shape[ch] != n:
            raise ValueError(f"[prelu] weight has {n} elements, expected 1 or the channel count {x.shape[ch]}")
        shape = [1] * x.ndim
        shape[ch] = n
        weight = _ops.reshape(weight, shape)
    return _ops.where(x > 0, x, _ops.multiply(x, weight))


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky relu: slope ~ U[lower, upper] per element in training, (lower + upper) / 2
    otherwise. (Paddle 2.4 API, provided as an extra.)"""
    lower, upper = _num("rrelu", "lower", lower), _num("rrelu", "upper", upper)
    if not 0 <= lower <= upper <= 1:
        raise ValueError(f"[rrelu] expected 0 <= lower <= upper <= 1, received lower={lower}, upper={upper}")
    if not training:
        return _ops.leaky_relu(x, (lower + upper) / 2)
    slope = _t().uniform(x.shape, dtype=x.dtype, min=lower, max=upper)
    return _ops.where(x >= 0, x, _ops.multiply(x, slope))


def elu(x, alpha=1.0, name=None):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return _ops.elu(x, _num("elu", "alpha", alpha))


def elu_(x, alpha=1.0, name=None):
    """In-place elu; returns x (alpha must be >= 0, as in Paddle)."""
    alpha = _num("elu_", "alpha", alpha)
    if alpha < 0:
        raise ValueError(f"[elu_] in-place elu needs alpha >= 0, received {alpha}")
    return x._copy_(_ops.elu(x, alpha))


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)); scale > 1, alpha >= 0."""
    scale, alpha = _num("selu", "scale", scale), _num("selu", "alpha", alpha)
    if scale <= 1.0:
        raise ValueError(f"[selu] scale must be greater than 1.0, received {scale}")
    if alpha < 0:
        raise ValueError(f"[selu] alpha must be no less than zero, received {alpha}")
    return _ops.scale(_ops.elu(x, alpha), scale, 0.0, True)


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha != 0."""
    alpha = _num("celu", "alpha", alpha)
    if alpha == 0:
        raise ZeroDivisionError("[celu] alpha cannot be 0 for celu")
    if alpha > 0:  # alpha * elu(x / alpha)
        return _ops.scale(_ops.elu(_ops.scale(x, 1.0 / alpha, 0.0, True), 1.0), alpha, 0.0, True)
    # alpha < 0: alpha * (exp(x / alpha) - 1) is >= 0 for x >= 0, so its min with 0 is 0 there and
    # the elu identity does not hold; the formula as written
    t = _ops.scale(_ops.exp(_ops.scale(x, 1.0 / alpha, 0.0, True)), alpha, -alpha, True)
    return _ops.relu(x) - _ops.relu(_ops.scale(t, -1.0, 0.0, True))  # max(0, x) + min(0, t)


def gelu(x, approximate=False, name=None):
    """x * Phi(x) (erf form), or the tanh approximation when approximate=True."""
    return _ops.gelu(x, bool(approximate))


def silu(x, name=None):
    """x * sigmoid(x)."""
    return _ops.silu(x)


def swish(x, name=None):
    """x * sigmoid(x) (Paddle 2.3's swish has beta = 1)."""
    return _ops.silu(x)


def mish(x, name=None):
    """x * tanh(softplus(x))."""
    return _ops.mish(x, 20.0)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """clip(slope * x + offset, 0, 1)."""
    return _ops.hardsigmoid(x, _num("hardsigmoid", "slope", slope), _num("hardsigmoid", "offset", offset))


def hardswish(x, name=None):
    """x * min(max(x + 3, 0), 6) / 6."""
    return _ops.hardswish(x)


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002 (Paddle's argument names)
    """clip(x, min, max)."""
    lo, hi = _num("hardtanh", "min", min), _num("hardtanh", "max", max)
    if lo > hi:  # Paddle computes min(max(x, min), max): every element is max
        return _ops.clip(x, hi, hi)
    return _ops.clip(x, lo, hi)


def hardtanh_(x, min=-1.0, max=1.0, name=None):  # noqa: A002
    """In-place hardtanh; returns x."""
    return x._copy_(hardtanh(x, min, max))


def leaky_relu_(x, negative_slope=0.01, name=None):
    """In-place leaky_relu; returns x."""
    return x._copy_(leaky_relu(x, negative_slope))


def thresholded_relu_(x, threshold=1.0, name=None):
    """In-place thresholded_relu; returns x."""
    return x._copy_(thresholded_relu(x, threshold))


def tanh(x, name=None):
    return _ops.tanh(x)


def tanh_(x, name=None):
    """In-place tanh; returns x."""
    return x._copy_(_ops.tanh(x))


def tanhshrink(x, name=None):
    """x - tanh(x)."""
    return _ops.subtract(x, _ops.tanh(x))


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta x)) / beta, or x where beta x > threshold."""
    beta = _num("softplus", "beta", beta)
    if beta == 0:
        raise ValueError("[softplus] beta must not be 0")
    return _ops.softplus(x, beta, _num("softplus", "threshold", threshold))


def softsign(x, name=None):
    """x / (1 + |x|)."""
    return _ops.divide(x, _ops.scale(_ops.abs(x), 1.0, 1.0, True))


def softshrink(x, threshold=0.5, name=None):
    """x - threshold if x > threshold, x + threshold if x < -threshold, else 0."""
    t = _num("softshrink", "threshold", threshold)
    if t < 0:
        raise ValueError(f"[softshrink] threshold must be no less than zero, received {t}")
    return _ops.subtract(x, _ops.clip(x, -t, t))


def hardshrink(x, threshold=0.5, name=None):
    """x if |x| > threshold else 0."""
    t = _num("hardshrink", "threshold", threshold)
    return _ops.where(_ops.abs(x) > t, x, _ops.scale(x, 0.0, 0.0, True))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return _ops.neg(_ops.softplus(_ops.neg(x), 1.0, math.inf))


def softmax_(x, axis=-1, dtype=None, name=None):
    """In-place softmax; returns x."""
    return x._copy_(softmax(x, axis, dtype))


def thresholded_relu(x, threshold=1.0, name=None):
    """x if x > threshold else 0."""
    t = _num("thresholded_relu", "threshold", threshold)
    return _ops.where(x > t, x, _ops.scale(x, 0.0, 0.0, True))


def maxout(x, groups, axis=1, name=None):
    """Max over groups of `groups` consecutive channels: [N, C, ...] -> [N, C / groups, ...]
    (axis 1, or -1 / 3 for channel-last 4-D input)."""
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
        raise ValueError(f"[maxout] groups must be a positive int, received {groups!r}")
    if axis not in (1, -1, 3):
        raise ValueError(f"[maxout] axis must be 1, -1 or 3, received {axis!r}")
    if axis == 3 and x.ndim != 4:
        raise ValueError(f"[maxout] axis 3 needs 4-D input, received {x.ndim}-D")
    ax = axis if axis >= 0 else x.ndim + axis
    c = x.shape[ax]
    if c >= 0 and c % groups:
        raise ValueError(f"[maxout] the channel count ({c}) must be divisible by groups ({groups})")
    from ...tensor import static_shape as _ss
    dims = _ss.dims(x)  # a program's unknown dims are tensors
    shape = dims[:ax] + [c // groups if c >= 0 else -1, groups] + dims[ax + 1:]
    xr = _ss.reshape_to(x, shape)
    # the first maximum of each group, so that its gradient goes to that one element on ties (Paddle's
    # maxout kernel), not to every tied element as a max reduction's would
    from ...tensor.search_reduce import argmax
    from ...tensor.tensor_extra import take_along_axis
    return _ops.squeeze(take_along_axis(xr, argmax(xr, ax + 1, keepdim=True), ax + 1), [ax + 1])


def glu(x, axis=-1, name=None):
    """a * sigmoid(b) where a, b are the two halves of x along axis."""
    ax = axis if axis >= 0 else x.ndim + axis
    if not 0 <= ax < x.ndim:
        raise ValueError(f"[glu] axis {axis} out of range for {x.ndim}-D input")
    if x.shape[ax] >= 0 and x.shape[ax] % 2:
        raise ValueError(f"[glu] the size of axis {axis} ({x.shape[ax]}) must be even")
    a, b = _t().split(x, 2, axis=ax)
    return _ops.multiply(a, _ops.sigmoid(b))


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + g) / temperature) with Gumbel(0, 1) noise g; hard=True returns the one-hot of
    the argmax with the soft sample's gradient (straight-through)."""
    paddle = _t()
    temperature = _num("gumbel_softmax", "temperature", temperature)
    if temperature <= 0:
        raise ValueError(f"[gumbel_softmax] temperature must be positive, received {temperature}")
    # Gumbel(0, 1) noise -log(-log(U)), U uniform in [1e-5, 1) (Paddle's CPU kernel, so seeded
    # draws agree), drawn into a tensor shaped like x, so a program with unknown dims gets it too
    u = _ops.uniform_(_ops.full_like(x, 0.0, x.dtype), 0.00001, 1.0, 0)
    g = _ops.neg(_ops.log(_ops.neg(_ops.log(u))))
    y = _ops.softmax(_ops.divide(_ops.add(x, g), _ops.full_like(x, temperature, x.dtype)), axis)
    if not hard:
        return y
    ax = axis if axis >= 0 else x.ndim + axis
    idx = paddle.argmax(y, axis=ax, keepdim=True)
    shape = [1] * x.ndim
    shape[ax] = x.shape[ax]
    ar = paddle.reshape(paddle.arange(x.shape[ax], dtype=idx.dtype), shape)
    y_hard = paddle.cast(ar == idx, y.dtype)
    return y_hard - y.detach() + y


__all__ = ["softmax", "softmax_", "log_softmax", "sigmoid", "relu", "relu_", "relu6", "leaky_relu",
           "prelu", "rrelu", "elu", "elu_", "selu", "celu", "gelu", "silu", "swish", "mish",
           "hardsigmoid", "hardswish", "hardtanh", "tanh", "tanh_", "tanhshrink", "softplus",
           "softsign", "softshrink", "hardshrink", "log_sigmoid", "thresholded_relu", "maxout",
           "glu", "gumbel_softmax", "hardtanh_", "leaky_relu_", "thresholded_relu_"]
