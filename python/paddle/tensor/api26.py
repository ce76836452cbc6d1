"""Top-level functions Paddle added in 2.4-2.6 (issue 23: code written for 2.6 calls them): the
in-place forms of the elementwise and shape functions (abs_, equal_, cast_, t_ ...), cummax /
cummin, the Bessel functions i0 / i0e / i1 / i1e (C kernels of ops/api26.yaml), and functions
composed of existing C ops (nan_to_num, logspace, take, frexp, ldexp, hypot, polar, vander,
trapezoid, index_fill, select_scatter, diagonal_scatter, combinations, nanquantile,
multigammaln, view, unflatten, vsplit, atleast_Nd, finfo / iinfo). Signatures and defaults are
Paddle 2.6's; every one is also a Tensor method where Paddle 2.6 makes it one."""
import itertools
import math as _math
import numbers

import numpy as np

from .. import _C
from .._C import _C_ops
from ..framework.dtype import convert_dtype as _convert_dtype
from .math import _inplace
from ..framework.misc import check_tensor

Tensor = _C.Tensor

__all__ = []
_TENSOR_METHODS = []


def _export(fn, method=True):
    __all__.append(fn.__name__)
    if method:
        _TENSOR_METHODS.append(fn.__name__)
    return fn


def _p():
    import paddle
    return paddle


_check = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


# ----------------------------------------------------------------------------- in-place forms
def _make_inplace(base, rebind=False):
    """name_ = base computed, then written into x (same shape and dtype); rebind: x itself
    becomes the result (comparisons and cast_ give x a new dtype, t_ / transpose_ a new shape,
    as in Paddle)."""
    name = base + "_"

    def f(x, *args, **kwargs):
        _check(x, name)
        # the op's gradient may read x, which the write below changes: it reads a copy instead
        src = x.clone() if not x.stop_gradient and _p().is_grad_enabled() else x
        out = getattr(_p(), base)(src, *args, **kwargs)
        if rebind:
            if list(out.shape) != list(x.shape) and base not in ("t", "transpose"):
                raise ValueError(f"[{name}] the result has shape {list(out.shape)}, x has {list(x.shape)}")
            return x._set_view_of(out)
        return _inplace(x, out, name, check_dtype=True)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place {base}: computes paddle.{base}(x, ...) and writes it into x (returns x)."
    return f


_INPLACE_SAME = [
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan",
    "digamma", "erf", "expm1", "lgamma", "log", "log10", "log1p", "log2", "neg", "square", "trunc",
    "logit", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "floor_divide",
    "floor_mod", "mod", "remainder", "multiply", "pow", "gcd", "lcm", "cumsum", "cumprod", "tril",
    "triu", "renorm", "polygamma", "i0", "hypot", "ldexp", "nan_to_num", "index_fill", "multigammaln",
]
_INPLACE_REBIND = ["equal", "not_equal", "greater_equal", "greater_than", "less_equal", "less_than",
                   "logical_and", "logical_or", "logical_xor", "logical_not", "cast", "t", "transpose"]


def _install_inplace():
    p = _p()
    _install_tensor_methods()
    for base in _INPLACE_SAME + _INPLACE_REBIND:
        name = base + "_"
        if hasattr(p, name) or not hasattr(p, base):
            continue
        fn = _make_inplace(base, rebind=base in _INPLACE_REBIND)
        setattr(p, name, fn)
        setattr(p.tensor, name, fn)
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)


def _install_tensor_methods():
    """Tensor-only methods of Paddle 2.6 (strides, contiguous, to, ...) and methods for functions
    that live outside paddle.tensor (diag, pinv, stft ...)."""
    p = _p()

    def to(self, *args, **kwargs):
        """x.to(device=None, dtype=None, blocking=None): a copy on device (CPU or a CUDA GPU) in dtype."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("blocking", None)
        if kwargs:
            raise TypeError(f"[Tensor.to] unexpected arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, bool) or a is None:
                continue
            elif isinstance(a, str) and (a.startswith(("cpu", "gpu", "xpu", "npu")) or ":" in a):
                device = a
            elif isinstance(a, (str, type(p.float32))) or hasattr(a, "name") and not hasattr(a, "get_device_id"):
                dtype = a
            else:
                device = a
        out = self
        if device is not None:
            from ..framework.place import _device_of_place, _gpu_count
            dev = _device_of_place(device)
            if dev >= 0 and dev >= _gpu_count():
                raise ValueError(f"[Tensor.to] device {device!r} is not available: "
                                 + ("Paddle-C runs on the CPU only here (no CUDA GPU found)" if _gpu_count() == 0
                                    else f"{_gpu_count()} GPU(s) found"))
            if dev != self._device():
                out = self._to_device(dev)
        if dtype is not None and _convert_dtype(dtype) != out.dtype:
            return out.astype(dtype)
        return out.clone() if out is self else out

    def detach_(self):
        """Detaches x from the graph in place (x becomes a leaf with stop_gradient=True)."""
        self._set_view_of(self.detach())
        self.stop_gradient = True
        return self

    def copy_(self, src, blocking=True):
        """Copies src's values into x (same shape and dtype), in place; returns None, as Paddle."""
        if not isinstance(src, Tensor):
            raise TypeError(f"[Tensor.copy_] src must be a paddle.Tensor, received {type(src).__name__}")
        if src.dtype != self.dtype:
            raise TypeError(f"[Tensor.copy_] src has dtype {src.dtype}, x has {self.dtype}")
        _inplace(self, src, "copy_", check_dtype=True)

    def contiguous(self):
        """x itself when its elements are in row-major order, else a contiguous copy."""
        return self if self._is_contiguous else self.clone()

    def sigmoid_(self):
        """In-place sigmoid."""
        src = self.clone() if not self.stop_gradient and p.is_grad_enabled() else self
        return _inplace(self, p.nn.functional.sigmoid(src), "sigmoid_", check_dtype=True)

    methods = {
        "strides": property(lambda self: list(self._strides), doc="strides in elements"),
        "offset": property(lambda self: self._offset * self.element_size(), doc="offset into the storage in bytes"),
        "inplace_version": property(lambda self: self._inplace_version, doc="in-place writes so far"),
        "layout": property(lambda self: "NCHW", doc="the data layout (always NCHW for dense tensors)"),
        "is_contiguous": lambda self: bool(self._is_contiguous),
        "data_ptr": lambda self: int(self._data_ptr),
        "is_same_shape": lambda self, y: list(self.shape) == list(y.shape),
        "to": to, "detach_": detach_, "copy_": copy_, "contiguous": contiguous, "sigmoid_": sigmoid_,
        "diag": lambda self, offset=0, padding_value=0, name=None: p.diag(self, offset, padding_value),
        "diag_embed": lambda self, offset=0, dim1=-2, dim2=-1: p.nn.functional.diag_embed(self, offset, dim1, dim2),
        "pinv": lambda self, rcond=1e-15, hermitian=False, name=None: p.linalg.pinv(self, rcond, hermitian),
        "stft": lambda self, *a, **k: p.signal.stft(self, *a, **k),
        "istft": lambda self, *a, **k: p.signal.istft(self, *a, **k),
        "atleast_1d": lambda self, name=None: p.atleast_1d(self),
        "atleast_2d": lambda self, name=None: p.atleast_2d(self),
        "atleast_3d": lambda self, name=None: p.atleast_3d(self),
    }
    for k, v in methods.items():
        if not hasattr(Tensor, k):
            setattr(Tensor, k, v)


def addmm_(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """In-place addmm: input = beta * input + alpha * (x @ y)."""
    _check(input, "addmm_", "input")
    return _inplace(input, _p().addmm(input, x, y, beta=beta, alpha=alpha), "addmm_", check_dtype=True)


def where_(condition, x=None, y=None, name=None):
    """In-place where: x = where(condition, x, y)."""
    _check(x, "where_")
    return _inplace(x, _p().where(condition, x, y), "where_", check_dtype=True)


def normal_(x, mean=0.0, std=1.0, name=None):
    """Fills x with samples of N(mean, std^2) in place."""
    _check(x, "normal_")
    from .random import _gaussian  # drawn in x's dtype, as Paddle's kernel (float64 stays exact)
    return x._copy_(_gaussian(x.shape, mean, std, x.dtype, "normal_"))


def cauchy_(x, loc=0, scale=1, name=None):
    """Fills x with samples of the Cauchy distribution: loc + scale * tan(pi * (u - 1/2))."""
    _check(x, "cauchy_")
    u = _p().uniform(x.shape, dtype="float64", min=0.0, max=1.0)
    return x._copy_((_p().tan((u - 0.5) * _math.pi) * scale + loc).astype(x.dtype))


def geometric_(x, probs, name=None):
    """Fills x with log(u) / log(1 - probs), u ~ U(0, 1): Paddle 2.6's geometric_ (not rounded)."""
    _check(x, "geometric_")
    u = _p().uniform(x.shape, dtype="float64", min=0.0, max=1.0)
    p = probs if isinstance(probs, Tensor) else _p().to_tensor(float(probs), dtype="float64")
    return x._copy_((_p().log(u) / _p().log1p(-p.astype("float64"))).astype(x.dtype))


for _f in (addmm_, where_, normal_, cauchy_, geometric_):
    _export(_f)


# ----------------------------------------------------------------------------- C-kernel functions
def _axis_or_flat(x, axis, op):
    if axis is None:
        return _C_ops.reshape(x, [-1]), 0
    if not isinstance(axis, numbers.Integral):
        raise TypeError(f"[{op}] axis must be an int or None, received {type(axis).__name__}")
    nd = max(x.ndim, 1)
    if not -nd <= axis < nd:
        raise ValueError(f"[{op}] axis {axis} is out of range for a {x.ndim}-D tensor")
    return x, int(axis)


@_export
def cummax(x, axis=None, dtype="int64", name=None):
    """(running maximum along axis, index where it was reached); axis None: over the flattened x."""
    _check(x, "cummax")
    x, ax = _axis_or_flat(x, axis, "cummax")
    return _C_ops.cummax(x, ax, _convert_dtype(dtype))


@_export
def cummin(x, axis=None, dtype="int64", name=None):
    """(running minimum along axis, index where it was reached); axis None: over the flattened x."""
    _check(x, "cummin")
    x, ax = _axis_or_flat(x, axis, "cummin")
    return _C_ops.cummin(x, ax, _convert_dtype(dtype))


def _bessel(op):
    def f(x, name=None):
        _check(x, op)
        return getattr(_C_ops, op)(x)

    f.__name__ = f.__qualname__ = op
    f.__doc__ = {"i0": "Modified Bessel function of the first kind, order 0.",
                 "i0e": "Exponentially scaled I0: exp(-|x|) * i0(x).",
                 "i1": "Modified Bessel function of the first kind, order 1.",
                 "i1e": "Exponentially scaled I1: exp(-|x|) * i1(x)."}[op]
    return _export(f)


i0, i0e, i1, i1e = (_bessel(n) for n in ("i0", "i0e", "i1", "i1e"))


@_export
def nextafter(x, y, name=None):
    """The next representable value after x towards y, elementwise (float32 / float64)."""
    _check(x, "nextafter")
    _check(y, "nextafter", "y")
    if x.dtype != y.dtype:
        raise TypeError(f"[nextafter] x and y must have one dtype, received {x.dtype} and {y.dtype}")
    return _C_ops.nextafter(x, y)


# ----------------------------------------------------------------------------- composites
@_export
def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN -> nan, +inf -> posinf (default: the dtype's largest), -inf -> neginf (its
    lowest). Integer tensors are returned unchanged."""
    _check(x, "nan_to_num")
    p = _p()
    if not (x.is_floating_point() or x.is_complex()):
        return x.clone()
    if x.is_complex():
        return _p().complex(nan_to_num(_p().real(x), nan, posinf, neginf), nan_to_num(_p().imag(x), nan, posinf, neginf))
    fi = finfo(x.dtype)
    posinf = fi.max if posinf is None else posinf
    neginf = fi.min if neginf is None else neginf
    out = p.where(p.isnan(x), p.full_like(x, nan), x)
    out = p.where(out == float("inf"), p.full_like(x, posinf), out)
    return p.where(out == float("-inf"), p.full_like(x, neginf), out)


@_export
def take(x, index, mode="raise", name=None):
    """x taken as a 1-D tensor at index (any shape; the result has index's shape). mode: 'raise'
    (indices in [-n, n), negative ones count from the end), 'wrap' (modulo n), 'clip' (to [0, n-1])."""
    _check(x, "take")
    _check(index, "take", "index")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"[take] mode must be 'raise', 'wrap' or 'clip', received {mode!r}")
    if index.dtype.name not in ("int32", "int64"):
        raise TypeError(f"[take] index must be int32 or int64, received {index.dtype}")
    p = _p()
    flat = _C_ops.reshape(x, [-1])
    n = flat.shape[0]
    idx = index.astype("int64")
    if mode == "raise":
        if idx.size:
            lo, hi = int(idx.min()), int(idx.max())
            if lo < -n or hi >= n:
                raise IndexError(f"[take] index out of range: expected values in [{-n}, {n}) for a tensor of "
                                 f"{n} elements, received min {lo} and max {hi}")
        idx = p.where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = p.remainder(idx, p.full_like(idx, n))
    else:
        idx = p.clip(idx, 0, n - 1)
    return p.gather(flat, _C_ops.reshape(idx, [-1])).reshape(index.shape)


@_export
def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1 (0 for 0);
    both in x's float dtype."""
    _check(x, "frexp")
    p = _p()
    if not x.is_floating_point():
        raise TypeError(f"[frexp] expected a float tensor, received {x.dtype}")
    a = p.abs(x)
    zero = (a == 0) | ~p.isfinite(x)
    safe = p.where(zero, p.ones_like(a), a)
    e = p.floor(p.log2(safe)) + 1
    m = a / p.pow(p.full_like(a, 2.0), e)
    # log2 rounding near powers of two: bring |m| into [0.5, 1)
    hi = m >= 1
    e = p.where(hi, e + 1, e)
    m = p.where(hi, m * 0.5, m)
    lo = (m < 0.5) & ~zero
    e = p.where(lo, e - 1, e)
    m = p.where(lo, m * 2.0, m)
    m = p.where(zero, x, p.sign(x) * m)
    e = p.where(zero, p.zeros_like(e), e)
    return m, e


@_export
def ldexp(x, y, name=None):
    """x * 2**y (integer x gives float32, as Paddle)."""
    _check(x, "ldexp")
    _check(y, "ldexp", "y")
    p = _p()
    xf = x if x.is_floating_point() else x.astype("float32")
    return xf * p.pow(p.full_like(xf, 2.0), y.astype(xf.dtype))


@_export
def hypot(x, y, name=None):
    """sqrt(x**2 + y**2), elementwise with broadcasting."""
    _check(x, "hypot")
    _check(y, "hypot", "y")
    p = _p()
    return p.sqrt(p.add(p.square(x), p.square(y)))


@_export
def polar(abs, angle, name=None):  # noqa: A002
    """The complex tensor abs * (cos(angle) + i sin(angle))."""
    _check(abs, "polar", "abs")
    _check(angle, "polar", "angle")
    p = _p()
    return p.complex(abs * p.cos(angle), abs * p.sin(angle))


@_export
def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of the 1-D x: columns x**(n-1) ... x**0 (increasing: x**0 first)."""
    _check(x, "vander")
    if x.ndim != 1:
        raise ValueError(f"[vander] x must be 1-D, received a {x.ndim}-D tensor")
    p = _p()
    n = x.shape[0] if n is None else int(n)
    if n < 0:
        raise ValueError(f"[vander] n must be non-negative, received {n}")
    if n == 0:
        return p.zeros([x.shape[0], 0], dtype=x.dtype)
    m = x.shape[0]
    if x.is_floating_point() or x.is_complex():
        xs = x
    else:
        xs = x.astype("int64")
    if n == 1:
        return p.ones([m, 1], dtype=xs.dtype)
    # columns 1, x, x*x, ... as a running product (differentiable at x = 0, unlike pow)
    cols = p.concat([p.ones([m, 1], dtype=xs.dtype), xs.unsqueeze(1).expand([m, n - 1])], axis=1)
    out = p.cumprod(cols, dim=1)
    return out if increasing else p.flip(out, [1])


def _trap_parts(y, x, dx, axis, op):
    _check(y, op, "y")
    if x is not None and dx is not None:
        raise ValueError(f"[{op}] give x or dx, not both")
    p = _p()
    ax = axis % y.ndim
    n = y.shape[ax]
    lo = p.slice(y, [ax], [0], [n - 1])
    hi = p.slice(y, [ax], [1], [n])
    if x is not None:
        _check(x, op, "x")
        if x.ndim == 1:
            d = x[1:] - x[:-1]
            shape = [1] * y.ndim
            shape[ax] = n - 1
            d = d.reshape(shape)
        else:
            xa = ax if x.ndim == y.ndim else axis % x.ndim
            d = p.slice(x, [xa], [1], [x.shape[xa]]) - p.slice(x, [xa], [0], [x.shape[xa] - 1])
        return (lo + hi) * d * 0.5, ax
    return (lo + hi) * (0.5 * (1.0 if dx is None else float(dx))), ax


@_export
def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Integral of y along axis by the trapezoidal rule, at sample points x or spacing dx (1)."""
    parts, ax = _trap_parts(y, x, dx, axis, "trapezoid")
    return _p().sum(parts, axis=ax)


@_export
def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Running trapezoidal integral of y along axis (one element fewer than y there)."""
    parts, ax = _trap_parts(y, x, dx, axis, "cumulative_trapezoid")
    return _p().cumsum(parts, axis=ax)


def _axis_mask(x, index, axis, op):
    """A bool tensor broadcastable to x: True at the positions index names along axis."""
    p = _p()
    ax = axis % x.ndim
    idx = index if isinstance(index, Tensor) else p.to_tensor(index, dtype="int64")
    idx = _C_ops.reshape(idx.astype("int64"), [-1])
    n = x.shape[ax]
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < -n or hi >= n:
            raise IndexError(f"[{op}] index out of range [{-n}, {n}) along axis {axis}: received {lo}..{hi}")
    idx = p.where(idx < 0, idx + n, idx)
    m = p.scatter(p.zeros([n], dtype="int32"), idx, p.ones([idx.shape[0]], dtype="int32"), overwrite=True)
    shape = [1] * x.ndim
    shape[ax] = n
    return m.reshape(shape).astype("bool"), ax


@_export
def index_fill(x, index, axis, value, name=None):
    """x with every position whose index along axis is in index set to value."""
    _check(x, "index_fill")
    p = _p()
    mask, _ = _axis_mask(x, index, axis, "index_fill")
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"[index_fill] value must be a scalar or a 1-element tensor, received shape {value.shape}")
        v = value.astype(x.dtype).reshape([1] * x.ndim).expand(x.shape)
    else:
        v = p.full_like(x, value)
    return p.where(mask.expand(x.shape), v, x)


@_export
def select_scatter(x, values, axis, index, name=None):
    """x with the slice at index along axis replaced by values (x's shape without that axis)."""
    _check(x, "select_scatter")
    _check(values, "select_scatter", "values")
    p = _p()
    ax = axis % x.ndim
    want = list(x.shape[:ax]) + list(x.shape[ax + 1:])
    if list(values.shape) != want:
        raise ValueError(f"[select_scatter] values must have shape {want}, received {list(values.shape)}")
    mask, _ = _axis_mask(x, [index], ax, "select_scatter")
    return p.where(mask.expand(x.shape), values.astype(x.dtype).unsqueeze(ax).expand(x.shape), x)


@_export
def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with its diagonal (offset, axis1, axis2) replaced by y."""
    _check(x, "diagonal_scatter")
    _check(y, "diagonal_scatter", "y")
    from .tensor_extra import fill_diagonal_tensor
    return fill_diagonal_tensor(x, y, offset, axis1, axis2)


@_export
def combinations(x, r=2, with_replacement=False, name=None):
    """The length-r combinations of the 1-D x's elements, one per row ([count, r])."""
    _check(x, "combinations")
    if x.ndim != 1:
        raise ValueError(f"[combinations] x must be 1-D, received a {x.ndim}-D tensor")
    if r < 0:
        raise ValueError(f"[combinations] r must be non-negative, received {r}")
    p = _p()
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(gen(range(x.shape[0]), r))
    if r == 0 or not rows:
        return p.zeros([0] if r == 0 else [0, r], dtype=x.dtype)
    idx = p.to_tensor(np.asarray(rows, dtype="int64").reshape(-1))
    return p.gather(x, idx).reshape([len(rows), r])


@_export
def nanquantile(x, q, axis=None, keepdim=False, name=None):
    """quantile ignoring NaN: each line's quantile over its non-NaN values (NaN if all are NaN)."""
    _check(x, "nanquantile")
    p = _p()
    qs = [q] if isinstance(q, numbers.Number) else list(q)
    for v in qs:
        if not 0 <= v <= 1:
            raise ValueError(f"[nanquantile] q must be in [0, 1], received {v}")
    if axis is None:
        x = _C_ops.reshape(x, [-1])
        axis = 0
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    axes = sorted(a % x.ndim for a in axes)
    if len(axes) > 1:  # move the reduced axes to the end and merge them
        keep = [d for d in range(x.ndim) if d not in axes]
        xt = p.transpose(x, keep + axes).reshape([x.shape[d] for d in keep] + [-1])
        out = nanquantile(xt, q, axis=-1)
        if keepdim:
            out = out.reshape(list(out.shape[:out.ndim - len(keep)]) + [1 if d in axes else x.shape[d]
                                                                       for d in range(x.ndim)])
        return out
    ax = axes[0]
    nan = p.isnan(x)
    cnt = (~nan).astype("int64").sum(axis=ax, keepdim=True)  # valid values per line
    vals = p.sort(p.where(nan, p.full_like(x, float("inf")), x), axis=ax)  # NaN last
    outs = []
    for v in qs:
        pos = (cnt - 1).clip(min=0).astype(x.dtype) * v
        lo = p.floor(pos)
        w = pos - lo
        lo_i = lo.astype("int64")
        hi_i = p.minimum(lo_i + 1, (cnt - 1).clip(min=0))
        a = p.take_along_axis(vals, lo_i, ax)
        b = p.take_along_axis(vals, hi_i, ax)
        o = a + (b - a) * w
        o = p.where(cnt == 0, p.full_like(o, float("nan")), o)
        outs.append(o if keepdim else o.squeeze(ax))
    if len(outs) == 1 and isinstance(q, numbers.Number):
        return outs[0]
    return p.stack(outs, 0)


@_export
def multigammaln(x, p, name=None):
    """log of the multivariate gamma function of order p: sum_i lgamma(x - i/2) + p(p-1)/4 log(pi)."""
    _check(x, "multigammaln")
    if not isinstance(p, numbers.Integral) or p < 1:
        raise ValueError(f"[multigammaln] p must be a positive int, received {p!r}")
    pp = _p()
    out = pp.lgamma(x)
    for i in range(1, p):
        out = out + pp.lgamma(x - 0.5 * i)
    return out + (p * (p - 1) / 4.0) * _math.log(_math.pi)


@_export
def view(x, shape_or_dtype, name=None):
    """x's data seen with another shape (a view: no copy where x is contiguous). Reinterpreting
    the bytes as another dtype is not available here (NotImplementedError)."""
    _check(x, "view")
    if isinstance(shape_or_dtype, (list, tuple)):
        return _p().reshape(x, list(shape_or_dtype))
    raise NotImplementedError("[view] reinterpreting a tensor's bytes as another dtype "
                              f"(view(x, {shape_or_dtype!r})) is not implemented in Paddle-C; "
                              "use x.astype(dtype) to convert values")


@_export
def view_as(x, other, name=None):
    """x's data seen with other's shape."""
    _check(x, "view_as")
    _check(other, "view_as", "other")
    return _p().reshape(x, list(other.shape))


def _as_strided_backward(geom, g):
    """as_strided's gradient: each element of g added at the input position it was read from
    (overlapping positions sum), in x's shape"""
    xshape, shape, stride, off = geom
    pos = np.full([1] * len(shape), off, dtype=np.int64)
    for d, (n, st) in enumerate(zip(shape, stride)):
        ax = [1] * len(shape)
        ax[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape(ax)
    pp = _p()
    flat = pp.zeros([int(np.prod(xshape))], dtype=g.dtype)
    idx = pp.to_tensor(np.broadcast_to(pos, shape).reshape(-1))
    return pp.index_add(flat, idx, 0, g.reshape([-1])).reshape(xshape)


_AS_STRIDED = []


def _as_strided_layer():
    if not _AS_STRIDED:
        from ..autograd import PyLayer

        class _AsStrided(PyLayer):
            @staticmethod
            def forward(ctx, x, shape, stride, off):
                ctx.geom = (list(x.shape), shape, stride, off)
                return x._strided_view(shape, stride, off)

            @staticmethod
            def backward(ctx, g):
                return _as_strided_backward(ctx.geom, g)

        _AS_STRIDED.append(_AsStrided)
    return _AS_STRIDED[0]


@_export
def as_strided(x, shape, stride, offset=0, name=None):
    """A view of x's storage with the given shape and strides (in elements), starting offset
    BYTES after x's first element, as Paddle 2.6 counts it (a multiple of the element size).
    x must be contiguous. Every element the view can reach must lie inside x's storage (an
    OutOfRange error otherwise, where Paddle reads past it). Writes through the view change x;
    the gradient flows back to x (overlapping positions sum)."""
    _check(x, "as_strided")
    shape, stride = [int(v) for v in shape], [int(v) for v in stride]
    if not x._is_contiguous:
        raise ValueError("(InvalidArgument) [as_strided] expected a contiguous tensor x (shape "
                         f"{list(x.shape)}); call x.contiguous() first")
    isz = x.element_size()
    if int(offset) < 0 or int(offset) % isz:
        raise ValueError(f"(InvalidArgument) [as_strided] offset counts bytes and must be a non-negative multiple "
                         f"of the element size ({isz} for {x.dtype.name}), received {offset}")
    off = int(offset) // isz
    if not x.stop_gradient and _p().is_grad_enabled():
        return _as_strided_layer().apply(x, shape, stride, off)
    return x._strided_view(shape, stride, off)


@_export
def unflatten(x, axis, shape, name=None):
    """x with axis split into shape (one entry may be -1)."""
    _check(x, "unflatten")
    ax = axis % x.ndim
    shape = list(shape.numpy().tolist()) if isinstance(shape, Tensor) else list(shape)
    return _p().reshape(x, list(x.shape[:ax]) + shape + list(x.shape[ax + 1:]))


@_export
def vsplit(x, num_or_sections, name=None):
    """split along axis 0 (x at least 2-D)."""
    _check(x, "vsplit")
    if x.ndim < 2:
        raise ValueError(f"[vsplit] x must have at least 2 dimensions, received {x.ndim}")
    return _p().split(x, num_or_sections, axis=0)


def _atleast(nd, op):
    def f(*inputs, name=None):
        p = _p()
        outs = []
        for t in inputs:
            t = t if isinstance(t, Tensor) else p.to_tensor(t)
            s = list(t.shape)
            if len(s) < nd:
                if nd == 3 and len(s) == 2:
                    s = s + [1]
                elif nd == 3 and len(s) == 1:
                    s = [1] + s + [1]
                else:
                    s = [1] * (nd - len(s)) + s
                t = p.reshape(t, s)
            outs.append(t)
        return outs[0] if len(outs) == 1 else outs

    f.__name__ = f.__qualname__ = op
    f.__doc__ = f"Each input viewed with at least {nd} dimensions."
    return _export(f, method=False)


atleast_1d, atleast_2d, atleast_3d = _atleast(1, "atleast_1d"), _atleast(2, "atleast_2d"), _atleast(3, "atleast_3d")


@_export
def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """num values base**linspace(start, stop, num) (computed in float64, then cast to dtype,
    float32 by default)."""
    p = _p()
    num = int(num.item()) if isinstance(num, Tensor) else int(num)
    s = float(start.item()) if isinstance(start, Tensor) else float(start)
    e = float(stop.item()) if isinstance(stop, Tensor) else float(stop)
    b = float(base.item()) if isinstance(base, Tensor) else float(base)
    ex = p.linspace(s, e, num, dtype="float64")
    out = p.pow(p.full_like(ex, b), ex)
    return out.astype(dtype or "float32")  # integer dtypes truncate, as Paddle


_TENSOR_METHODS.remove("logspace")


# ----------------------------------------------------------------------------- dtype limits
class finfo:
    """Machine limits of a floating dtype (Paddle 2.6's paddle.finfo)."""

    _BF16 = dict(min=-3.3895313892515355e38, max=3.3895313892515355e38, eps=0.0078125, resolution=0.01,
                 smallest_normal=1.1754943508222875e-38, tiny=1.1754943508222875e-38, bits=16)

    def __init__(self, dtype):
        name = _convert_dtype(dtype).name
        if name == "bfloat16":
            info = dict(self._BF16)
        elif name in ("float16", "float32", "float64", "complex64", "complex128"):
            fi = np.finfo({"complex64": "float32", "complex128": "float64"}.get(name, name))
            info = dict(min=float(fi.min), max=float(fi.max), eps=float(fi.eps), resolution=10.0 ** -int(fi.precision),
                        smallest_normal=float(fi.smallest_normal), tiny=float(fi.tiny), bits=int(fi.bits))
            if name.startswith("complex"):
                name = {"complex64": "float32", "complex128": "float64"}[name]
        else:
            raise TypeError(f"[finfo] expected a floating or complex dtype, received {name}")
        self.__dict__.update(info)
        self.dtype = name

    def __repr__(self):
        return ("paddle.finfo(min={:g}, max={:g}, eps={:g}, resolution={:g}, smallest_normal={:g}, tiny={:g}, "
                "bits={}, dtype={})").format(self.min, self.max, self.eps, self.resolution, self.smallest_normal,
                                             self.tiny, self.bits, self.dtype)


class iinfo:
    """Limits of an integer dtype (Paddle 2.6's paddle.iinfo)."""

    def __init__(self, dtype):
        name = _convert_dtype(dtype).name
        if name not in ("uint8", "int8", "int16", "int32", "int64"):
            raise ValueError(f"[iinfo] expected an integer dtype, received {name}")  # Paddle's class
        ii = np.iinfo(name)
        self.min, self.max, self.bits, self.dtype = int(ii.min), int(ii.max), int(ii.bits), name

    def __repr__(self):
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


__all__ += ["finfo", "iinfo"]


# ----------------------------------------------------------------------------- asynchronous save
_async_tasks = []
_async_errors = []


def _snapshot(obj):
    """obj with every tensor copied (the caller may change its tensors while the save runs)."""
    if isinstance(obj, Tensor):
        c = obj.detach().clone()
        c.stop_gradient = obj.stop_gradient
        if getattr(obj, "name", None):
            try:
                c.name = obj.name
            except (AttributeError, TypeError):
                pass
        return c
    if isinstance(obj, dict):
        return type(obj)((k, _snapshot(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_snapshot(v) for v in obj)
    return obj


def async_save(obj, path, protocol=4, sync_other_task=False, **configs):
    """paddle.save in a background thread, of a snapshot taken now (tensors copied), so the caller
    goes on training. clear_async_save_task_queue() waits for every pending save (and raises the
    first error a save met)."""
    import threading
    if sync_other_task:
        clear_async_save_task_queue()
    snap = _snapshot(obj)

    def run():
        try:
            _p().save(snap, path, protocol=protocol, **configs)
        except BaseException as e:  # noqa: BLE001  (reported by clear_async_save_task_queue)
            _async_errors.append(e)

    th = threading.Thread(target=run, name="paddle-async-save", daemon=False)
    th.start()
    _async_tasks.append(th)


def clear_async_save_task_queue():
    """Waits until every async_save has finished; raises the first error one of them met."""
    while _async_tasks:
        _async_tasks.pop(0).join()
    if _async_errors:
        e = _async_errors[0]
        _async_errors.clear()
        raise RuntimeError(f"[async_save] a background save failed: {type(e).__name__}: {e}") from e


__all__ += ["async_save", "clear_async_save_task_queue"]


# ----------------------------------------------------------------------------- build queries
def is_compiled_with_distribute():
    """True: paddle.distributed runs over MPI here (paddle._dist)."""
    return True


def is_compiled_with_custom_device(device_type):
    """False: no custom device plugins here."""
    return False


def get_cudnn_version():
    """None: this build has no CUDA (as Paddle's CPU build answers)."""
    return None


__all__ += ["is_compiled_with_distribute", "is_compiled_with_custom_device", "get_cudnn_version"]
