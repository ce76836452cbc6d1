"""Tensor functions of Paddle 2.3 written as compositions of existing ops (so they get
autograd, and later static-graph support, for free): lerp, rad2deg, deg2rad, add_n, addmm,
inner, outer, mv, t, kron, dist, diff, cross, increment, stanh, nansum, nanmean,
count-free helpers, gcd/lcm (vectorised Euclid), conj, is_* predicates, rank, shape, tolist,
tensordot, rot90, broadcast_tensors, median, quantile, kthvalue, mode-free search; and later
Paddle additions: heaviside, frac, sgn, count_nonzero, bucketize, cdist, index_add, index_put,
masked_fill (with their in-place forms)."""
import numbers

import numpy as np

from .. import _C
from .._C import _C_ops
from ..framework.dtype import convert_dtype
from . import static_shape as _ss
from ..framework.misc import check_tensor

Tensor = _C.Tensor
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_INTS = ("uint8", "int8", "int16", "int32", "int64")


_check = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


def _scalar_like(v, x):
    from .to_tensor import scalar_tensor
    return scalar_tensor(v, x.dtype)


def lerp(x, y, weight, name=None):
    """x + weight * (y - x); weight a float or a Tensor."""
    _check(x, "lerp")
    _check(y, "lerp", "y")
    w = weight if isinstance(weight, Tensor) else _scalar_like(weight, x)
    return _C_ops.add(x, _C_ops.multiply(w, _C_ops.subtract(y, x)))


def lerp_(x, y, weight, name=None):
    return x._copy_(lerp(x, y, weight))


def rad2deg(x, name=None):
    _check(x, "rad2deg")
    if x.dtype.name in _INTS:
        x = _C_ops.cast(x, convert_dtype("float32"))
    return _C_ops.scale(x, 180.0 / np.pi, 0.0, True)


def deg2rad(x, name=None):
    _check(x, "deg2rad")
    if x.dtype.name in _INTS:
        x = _C_ops.cast(x, convert_dtype("float32"))
    return _C_ops.scale(x, np.pi / 180.0, 0.0, True)


def add_n(inputs, name=None):
    """Sum of a list of tensors of one shape."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not inputs:
        raise ValueError("[add_n] inputs must not be empty")
    out = inputs[0]
    for t in inputs[1:]:
        out = _C_ops.add(out, t)
    return out if len(inputs) > 1 else _C_ops.assign(out)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y)."""
    for t, n in ((input, "input"), (x, "x"), (y, "y")):
        _check(t, "addmm", n)
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"[addmm] x and y must be 2-D, received {x.shape} and {y.shape}")
    if input.ndim not in (1, 2):  # Paddle's AddmmInferMeta: input broadcasts only from 1-D or 2-D
        raise ValueError(f"(InvalidArgument) [addmm] input must be 1-D or 2-D, received shape {input.shape}")
    return _C_ops.add(_C_ops.scale(input, float(beta), 0.0, True),
                      _C_ops.scale(_C_ops.matmul(x, y, False, False), float(alpha), 0.0, True))


def inner(x, y, name=None):
    """Sum over the last axes: x[..., k] y[..., k] for every pair of leading indices."""
    _check(x, "inner")
    _check(y, "inner", "y")
    if _ss.differ(x.shape[-1], y.shape[-1]):
        raise ValueError(f"[inner] the last dims must match, received {x.shape} and {y.shape}")
    xs, ys = _ss.dims(x), _ss.dims(y)  # a program's unknown dims are tensors
    x2 = _ss.reshape_to(x, [-1, xs[-1]])
    y2 = _ss.reshape_to(y, [-1, ys[-1]])
    out = _C_ops.matmul(x2, y2, False, True)
    return _ss.reshape_to(out, xs[:-1] + ys[:-1])  # [] -> the scalar rule ([1] or 0-D)


def outer(x, y, name=None):
    """x (flattened) as a column times y (flattened) as a row."""
    _check(x, "outer")
    _check(y, "outer", "y")
    return _C_ops.multiply(_C_ops.reshape(x, [-1, 1]), _C_ops.reshape(y, [1, -1]))


def mv(x, vec, name=None):
    """Matrix [M, N] times vector [N] -> [M]."""
    _check(x, "mv")
    _check(vec, "mv", "vec")
    if x.ndim != 2 or vec.ndim != 1:
        from ..framework.misc import enforce_error  # Paddle's MvInferMeta: InvalidArgument
        raise enforce_error(ValueError, "InvalidArgument",
                            f"[mv] expected a 2-D x and a 1-D vec, received {x.shape} and {vec.shape}")
    return _C_ops.matmul(x, vec, False, False)


def t(input, name=None):
    """Transpose of a tensor of at most 2 dims."""
    _check(input, "t", "input")
    if input.ndim > 2:
        raise ValueError(f"[t] expects a tensor of at most 2 dims, received {input.ndim}")
    return input if input.ndim < 2 else _C_ops.transpose(input, [1, 0])


def kron(x, y, name=None):
    """Kronecker product."""
    _check(x, "kron")
    _check(y, "kron", "y")
    nd = max(x.ndim, y.ndim)
    xs = [1] * (nd - x.ndim) + _ss.dims(x)  # a program's unknown dims are tensors
    ys = [1] * (nd - y.ndim) + _ss.dims(y)
    xe = _ss.reshape_to(x, [v for d in xs for v in (d, 1)])
    ye = _ss.reshape_to(y, [v for d in ys for v in (1, d)])
    return _ss.reshape_to(_C_ops.multiply(xe, ye), [_ss.mul(a, b) for a, b in zip(xs, ys)])


def dist(x, y, p=2, name=None):
    """p-norm of x - y (broadcast): a scalar ([1], or 0-D with FLAGS_set_to_1d off)."""
    _check(x, "dist")
    _check(y, "dist", "y")
    d = _C_ops.reshape(_C_ops.subtract(x, y), [-1])
    p = float(p)
    return _C_ops.p_norm(d, p, -1, 1e-12, False, True)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """n-th forward difference along axis (prepend/append concatenated first)."""
    _check(x, "diff")
    if n < 0:
        raise ValueError(f"[diff] n must be >= 0, received {n}")
    ax = axis + x.ndim if axis < 0 else axis
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = _C_ops.concat(parts, ax)
    for _ in range(n):
        L = x.shape[ax]
        a = _C_ops.slice(x, [ax], [1], [L])
        b = _C_ops.slice(x, [ax], [0], [L - 1])
        x = _C_ops.logical_xor(a, b) if x.dtype.name == "bool" else _C_ops.subtract(a, b)
    return x


def cross(x, y, axis=None, name=None):
    """Cross product of 3-vectors along axis (the first axis of size 3 when None)."""
    _check(x, "cross")
    _check(y, "cross", "y")
    if _ss.shapes_differ(x.shape, y.shape):
        raise ValueError(f"[cross] x and y must have the same shape, received {x.shape} and {y.shape}")
    if axis is None:
        cand = [i for i, s in enumerate(x.shape) if s == 3]
        if not cand:
            raise ValueError(f"[cross] no axis of size 3 in shape {x.shape}")
        axis = cand[0]
    ax = axis + x.ndim if axis < 0 else axis
    if x.shape[ax] != 3:
        raise ValueError(f"[cross] axis {axis} must have size 3, received {x.shape[ax]}")

    def comp(t, i):
        return _C_ops.slice(t, [ax], [i], [i + 1])

    x0, x1, x2 = (comp(x, i) for i in range(3))
    y0, y1, y2 = (comp(y, i) for i in range(3))
    c0 = _C_ops.subtract(_C_ops.multiply(x1, y2), _C_ops.multiply(x2, y1))
    c1 = _C_ops.subtract(_C_ops.multiply(x2, y0), _C_ops.multiply(x0, y2))
    c2 = _C_ops.subtract(_C_ops.multiply(x0, y1), _C_ops.multiply(x1, y0))
    return _C_ops.concat([c0, c1, c2], ax)


def increment(x, value=1.0, name=None):
    """x += value in place (a one-element tensor), returning x."""
    _check(x, "increment")
    if x.size != 1:
        raise ValueError(f"[increment] x must have exactly one element, received shape {x.shape}")
    active = _C._static_active() if _C._is_variable(x) else None
    if active is not None:
        # static mode: Paddle's increment op, which updates x in place
        from ..static.framework import _program_of
        prog = _program_of(active[0])
        if prog is not None:
            prog.block(active[1]).append_op(type="increment", inputs={"X": [x]}, outputs={"Out": [x]},
                                            attrs={"step": float(value)})
            return x
    return x._copy_(_C_ops.add(x, _scalar_like(value, x)))


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x)."""
    _check(x, "stanh")
    return _C_ops.scale(_C_ops.tanh(_C_ops.scale(x, float(scale_a), 0.0, True)), float(scale_b), 0.0, True)


def _axes(axis, ndim):
    if axis is None:
        return []
    if isinstance(axis, numbers.Integral):
        return [int(axis)]
    return [int(a) for a in axis]


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum treating NaN as zero."""
    _check(x, "nansum")
    z = _C_ops.where(_C_ops.isnan(x), _C_ops.full([1], 0.0, x.dtype), x)
    from .math_reduce import sum as _sum
    return _sum(z, axis=axis, dtype=dtype, keepdim=keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over the non-NaN entries."""
    _check(x, "nanmean")
    notnan = _C_ops.cast(_C_ops.logical_not(_C_ops.isnan(x)), x.dtype)
    s = nansum(x, axis=axis, keepdim=keepdim)
    c = _C_ops.sum(notnan, _axes(axis, x.ndim), bool(keepdim), None)
    return _C_ops.divide(s, c)


def gcd(x, y, name=None):
    """Greatest common divisor of integer tensors (elementwise, broadcast; gcd(0, 0) = 0)."""
    _check(x, "gcd")
    _check(y, "gcd", "y")
    if x.dtype.name not in _INTS or y.dtype != x.dtype:
        raise TypeError(f"[gcd] expected integer tensors of one dtype, received {x.dtype} and {y.dtype}")
    a = _C_ops.abs(x)
    b = _C_ops.abs(y)
    if _C._is_variable(a) or _C._is_variable(b):
        s = _C_ops.add(a, b)  # a program: broadcast by ops, the loop unrolled (below)
        a = _C_ops.expand_as(a, s) if list(a.shape) != list(s.shape) or -1 in s.shape else a
        b = _C_ops.expand_as(b, s) if list(b.shape) != list(s.shape) or -1 in s.shape else b
    else:
        shape = _C_ops.add(a, b).shape
        a = _C_ops.expand(a, shape)
        b = _C_ops.expand(b, shape)
    zero = _C_ops.full([1], 0, x.dtype)
    one = _C_ops.full([1], 1, x.dtype)

    def step(a, b):
        nz = _C_ops.not_equal(b, zero)
        safe_b = _C_ops.where(nz, b, one)
        r = _C_ops.remainder(a, safe_b)
        return _C_ops.where(nz, b, a), _C_ops.where(nz, r, b)
    if _C._is_variable(a):
        # a static program cannot test the data: Euclid's worst case (consecutive Fibonacci
        # numbers) bounds the steps for the dtype; steps after b reaches 0 change nothing
        for _ in range(_EUCLID_STEPS[x.dtype.name]):
            a, b = step(a, b)
        return a
    while bool(_C_ops.any(_C_ops.not_equal(b, zero), [], False)):
        a, b = step(a, b)
    return a


_EUCLID_STEPS = {"uint8": 14, "int8": 12, "int16": 24, "int32": 47, "int64": 93}


def lcm(x, y, name=None):
    """Least common multiple of integer tensors (0 when either is 0)."""
    g = gcd(x, y)
    zero = _C_ops.full([1], 0, x.dtype)
    one = _C_ops.full([1], 1, x.dtype)
    safe = _C_ops.where(_C_ops.equal(g, zero), one, g)
    return _C_ops.abs(_C_ops.multiply(_C_ops.floor_divide(x, safe), y))


def conj(x, name=None):
    """Complex conjugate (a copy for real dtypes)."""
    _check(x, "conj")
    return _C_ops.conj(x)


def is_complex(x):
    _check(x, "is_complex")
    return x.dtype.name in ("complex64", "complex128")


def is_floating_point(x):
    _check(x, "is_floating_point")
    return x.dtype.name in _FLOATS


def is_integer(x):
    _check(x, "is_integer")
    return x.dtype.name in _INTS


def is_empty(x, name=None):
    """A scalar bool tensor ([1], or 0-D with FLAGS_set_to_1d off): whether x has no elements."""
    _check(x, "is_empty")
    if _C._is_variable(x) and any(s < 0 for s in x.shape):  # known when the program runs
        from .stat import numel
        return _C_ops.equal(numel(x), _C_ops.full([], 0, convert_dtype("int64")))
    from .to_tensor import scalar_shape
    return _C_ops.full(scalar_shape(), x.size == 0, convert_dtype("bool"))


def rank(input):
    """The number of dims as an int32 scalar tensor ([1], or 0-D with FLAGS_set_to_1d off)."""
    _check(input, "rank", "input")
    from .to_tensor import scalar_shape
    return _C_ops.full(scalar_shape(), input.ndim, convert_dtype("int32"))


def shape(input):
    """The shape as an int32 tensor."""
    _check(input, "shape", "input")
    return _C_ops.shape(input)  # in a program: Paddle's shape op (the dims when it runs)


def tolist(x):
    _check(x, "tolist")
    return x.tolist()


def tensordot(x, y, axes=2, name=None):
    """Sum over the given axes of x and y (an int n: the last n of x with the first n of y)."""
    _check(x, "tensordot")
    _check(y, "tensordot", "y")
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, numbers.Integral):
        ax = list(range(x.ndim - axes, x.ndim)), list(range(axes))
    else:
        # Paddle's rule: a flat list applies to both operands; [[ax], [ay]] per operand, the
        # shorter one extended by the longer one's remaining entries; [[a]] applies to both
        axes = list(axes)
        if all(isinstance(a, numbers.Integral) for a in axes):
            ax = [int(a) for a in axes], [int(a) for a in axes]
        else:
            seqs = [[int(v) for v in a] if isinstance(a, (list, tuple)) else [int(a)] for a in axes]
            if len(seqs) == 1:
                seqs.append(list(seqs[0]))
            ax_a, ax_b = seqs[0], seqs[1]
            if len(ax_a) < len(ax_b):
                ax_a = ax_a + ax_b[len(ax_a):]
            elif len(ax_b) < len(ax_a):
                ax_b = ax_b + ax_a[len(ax_b):]
            ax = ax_a, ax_b
    ax_x = [a % x.ndim for a in ax[0]]
    ax_y = [a % y.ndim for a in ax[1]]
    if len(ax_x) != len(ax_y):
        raise ValueError(f"[tensordot] the axes lists differ in length: {ax_x} and {ax_y}")
    # a contracted axis of size 1 broadcasts against the other operand's (Paddle's rule)
    ex_x, ex_y = list(x.shape), list(y.shape)
    for a, b in zip(ax_x, ax_y):
        if x.shape[a] == 1 and y.shape[b] > 1:
            ex_x[a] = y.shape[b]
        elif y.shape[b] == 1 and x.shape[a] > 1:
            ex_y[b] = x.shape[a]
        elif _ss.differ(x.shape[a], y.shape[b]):
            raise ValueError(f"[tensordot] x axis {a} ({x.shape[a]}) and y axis {b} ({y.shape[b]}) differ")
    if ex_x != list(x.shape):
        x = _C_ops.expand(x, ex_x)
    if ex_y != list(y.shape):
        y = _C_ops.expand(y, ex_y)
    free_x = [i for i in range(x.ndim) if i not in ax_x]
    free_y = [i for i in range(y.ndim) if i not in ax_y]
    k = int(np.prod([x.shape[a] for a in ax_x])) if ax_x else 1
    xp = _C_ops.reshape(_C_ops.transpose(x, free_x + ax_x), [-1, k])
    yp = _C_ops.reshape(_C_ops.transpose(y, ax_y + free_y), [k, -1])
    out_shape = [x.shape[i] for i in free_x] + [y.shape[i] for i in free_y]
    return _C_ops.reshape(_C_ops.matmul(xp, yp, False, False), out_shape)  # [] -> the scalar rule


def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006 (Paddle's default)
    """Rotate by 90 degrees k times in the plane of axes."""
    _check(x, "rot90")
    if len(axes) != 2 or axes[0] % x.ndim == axes[1] % x.ndim:
        raise ValueError(f"[rot90] axes must be two different axes, received {axes}")
    a0, a1 = axes[0] % x.ndim, axes[1] % x.ndim
    k %= 4
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 0:
        return _C_ops.assign(x)
    if k == 2:
        return _C_ops.flip(x, [a0, a1])
    if k == 1:
        return _C_ops.transpose(_C_ops.flip(x, [a1]), perm)
    return _C_ops.flip(_C_ops.transpose(x, perm), [a1])


def broadcast_tensors(input, name=None):
    """The tensors broadcast to their common shape."""
    if not isinstance(input, (list, tuple)) or not input:
        raise ValueError("(InvalidArgument) [broadcast_tensors] expects a non-empty list of Tensors")  # Paddle's class
    if any(_C._is_variable(t_) and -1 in t_.shape for t_ in input):
        # a program's unknown dims: the common shape is that of a sum of zeros of each input
        i32 = convert_dtype("int32")
        ref = _C_ops.full_like(input[0], 0, i32)
        for t_ in input[1:]:
            ref = _C_ops.add(ref, _C_ops.full_like(t_, 0, i32))
        return [_C_ops.expand_as(t_, ref) for t_ in input]
    acc = input[0]
    shape = list(acc.shape)
    for t_ in input[1:]:
        shape = np.broadcast_shapes(tuple(shape), tuple(t_.shape))
    return [_C_ops.expand(t_, list(shape)) for t_ in input]


def _sorted_along(x, axis):
    vals, idx = _C_ops.argsort(x, axis, False)
    return vals, idx


def median(x, axis=None, keepdim=False, name=None):
    """Median (mean of the two middle values for even counts), as Paddle 2.3 computes it."""
    _check(x, "median")
    if x.ndim == 0 and axis is not None:  # a 0-D x: its value along axis 0 / -1
        if axis not in (0, -1):
            raise ValueError(f"[median] axis must be 0 or -1 for a 0-D tensor, received {axis}")
        return _C_ops.reshape(median(_C_ops.reshape(x, [1]), 0, False), [])
    if axis is None:
        x = _C_ops.reshape(x, [-1])
        axis = 0
    ax = axis % x.ndim
    vals, _ = _sorted_along(x, ax)
    n = x.shape[ax]
    if n == 0:
        raise ValueError("[median] the reduced axis is empty")
    lo = _C_ops.slice(vals, [ax], [(n - 1) // 2], [(n - 1) // 2 + 1])
    hi = _C_ops.slice(vals, [ax], [n // 2], [n // 2 + 1])
    if not x.dtype.name in _FLOATS:
        lo, hi = _C_ops.cast(lo, convert_dtype("float32")), _C_ops.cast(hi, convert_dtype("float32"))
    out = _C_ops.scale(_C_ops.add(lo, hi), 0.5, 0.0, True)
    if x.dtype.name in _FLOATS:  # a line holding NaN has median NaN (as Paddle)
        has_nan = _C_ops.any(_C_ops.isnan(x), [ax], True)
        out = _C_ops.where(has_nan, _C_ops.full_like(out, float("nan"), out.dtype), out)
    if not keepdim:  # no dims left: the API level's scalar rule ([1] or 0-D)
        out = _C_ops.squeeze(out, [ax])
    return out


def nanmedian(x, axis=None, keepdim=False, name=None):
    """Median of the non-NaN values (mean of the two middle ones for even counts); NaN where a
    line holds only NaN."""
    _check(x, "nanmedian")
    if x.dtype.name not in _FLOATS:
        return median(x, axis, keepdim)
    if axis is None:
        x = _C_ops.reshape(x, [-1])
        axis = 0
    if not isinstance(axis, numbers.Integral):
        raise NotImplementedError("[nanmedian] axis given as a list is not supported yet; pass one int")
    ax = axis % x.ndim
    if x.shape[ax] == 0:
        raise ValueError("[nanmedian] the reduced axis is empty")
    isn = _C_ops.isnan(x)
    inf = _C_ops.full_like(x, float("inf"), x.dtype)
    vals, _ = _sorted_along(_C_ops.where(isn, inf, x), ax)  # NaN (as +inf) last
    cnt = _C_ops.sum(_C_ops.cast(_C_ops.logical_not(isn), convert_dtype("int64")), [ax], True)
    zero = _C_ops.full_like(cnt, 0, cnt.dtype)
    lo_i = _C_ops.maximum(_C_ops.floor_divide(_C_ops.subtract(cnt, _C_ops.full_like(cnt, 1, cnt.dtype)),
                                              _C_ops.full_like(cnt, 2, cnt.dtype)), zero)
    hi_i = _C_ops.floor_divide(cnt, _C_ops.full_like(cnt, 2, cnt.dtype))
    hi_i = _C_ops.minimum(hi_i, _C_ops.full_like(cnt, x.shape[ax] - 1, cnt.dtype))
    lo = _C_ops.take_along_axis(vals, lo_i, ax)
    hi = _C_ops.take_along_axis(vals, hi_i, ax)
    out = _C_ops.scale(_C_ops.add(lo, hi), 0.5, 0.0, True)
    out = _C_ops.where(_C_ops.equal(cnt, zero), _C_ops.full_like(out, float("nan"), out.dtype), out)
    if not keepdim:  # no dims left: the API level's scalar rule ([1] or 0-D)
        out = _C_ops.squeeze(out, [ax])
    return out


def quantile(x, q, axis=None, keepdim=False):
    """q-th quantile(s) with linear interpolation (q a float or a list of floats)."""
    _check(x, "quantile")
    qs = [q] if isinstance(q, numbers.Number) else list(q)
    for v in qs:
        if not 0 <= v <= 1:
            raise ValueError(f"[quantile] q must be in [0, 1], received {v}")
    if axis is None:
        x = _C_ops.reshape(x, [-1])
        axis = 0
    ax = axis % x.ndim
    vals, _ = _sorted_along(x, ax)
    n = x.shape[ax]
    outs = []
    for v in qs:
        pos = v * (n - 1)
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        a = _C_ops.slice(vals, [ax], [lo], [lo + 1])
        b = _C_ops.slice(vals, [ax], [hi], [hi + 1])
        w = pos - lo
        o = _C_ops.add(_C_ops.scale(a, 1.0 - w, 0.0, True), _C_ops.scale(b, w, 0.0, True))
        if not keepdim:
            o = _C_ops.squeeze(o, [ax])
        outs.append(o)
    if len(outs) == 1 and isinstance(q, numbers.Number):
        return outs[0]
    return _C_ops.stack(outs, 0)


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """(value, index) of the k-th smallest entry along axis (default the last)."""
    _check(x, "kthvalue")
    ax = (x.ndim - 1 if axis is None else axis) % x.ndim
    n = x.shape[ax]
    if not 1 <= k <= n:
        raise ValueError(f"[kthvalue] k must be in [1, {n}], received {k}")
    vals, idx = _sorted_along(x, ax)
    v = _C_ops.slice(vals, [ax], [k - 1], [k])
    i = _C_ops.slice(idx, [ax], [k - 1], [k])
    if not keepdim:
        v, i = _C_ops.squeeze(v, [ax]), _C_ops.squeeze(i, [ax])
    return v, i


# ---------------------------------------------------------------- later Paddle additions
def heaviside(x, y, name=None):
    """0 where x < 0, y where x == 0, 1 where x > 0 (broadcast); gradient flows to y only."""
    _check(x, "heaviside")
    _check(y, "heaviside", "y")
    if x.dtype != y.dtype:
        raise TypeError(f"[heaviside] expected x and y of one dtype, received {x.dtype.name} and {y.dtype.name}")
    zero = _scalar_like(0, x)
    if x.dtype.name in _FLOATS:  # through sign, so x gets its (zero) gradient
        step = _C_ops.scale(_C_ops.sign(x), 0.5, 0.5, True)
    else:
        step = _C_ops.cast(_C_ops.greater_than(x, zero), x.dtype)
    return _C_ops.where(_C_ops.equal(x, zero), y, step)


def frac(x, name=None):
    """The fractional part x - trunc(x) (sign of x kept); gradient 1."""
    _check(x, "frac")
    if x.dtype.name not in _FLOATS + ("int32", "int64"):
        raise TypeError(f"[frac] expected a float or int32/int64 tensor, received {x.dtype.name}")
    return _C_ops.subtract(x, _C_ops.trunc(x))


def frac_(x, name=None):
    return x._copy_(frac(x))


def sgn(x, name=None):
    """sign(x) for real x; x / |x| (0 where x == 0) for complex x."""
    _check(x, "sgn")
    if x.dtype.name not in ("complex64", "complex128"):
        if x.dtype.name not in _FLOATS:
            raise TypeError(f"[sgn] expected a float or complex tensor, received {x.dtype.name}")
        return _C_ops.sign(x)
    mag = _C_ops.abs(x)
    zero = _C_ops.equal(mag, _scalar_like(0, mag))
    safe = _C_ops.where(zero, _C_ops.full(mag.shape, 1, mag.dtype), mag)
    unit = _C_ops.divide(x, _C_ops.complex(safe, _C_ops.full(mag.shape, 0, mag.dtype)))
    return _C_ops.where(zero, _C_ops.full(x.shape, 0, x.dtype), unit)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of non-zero entries over axis (None: all), as int64."""
    _check(x, "count_nonzero")
    nz = x if x.dtype.name == "bool" else _C_ops.not_equal(x, _scalar_like(0, x))
    from .math_reduce import sum as _sum
    return _sum(_C_ops.cast(nz, convert_dtype("int64")), axis=axis, keepdim=keepdim)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """For each x, the index of its bucket in the 1-D sorted_sequence (searchsorted)."""
    _check(x, "bucketize")
    _check(sorted_sequence, "bucketize", "sorted_sequence")
    if sorted_sequence.ndim != 1:
        raise ValueError(f"[bucketize] expected a 1-D sorted_sequence, received shape {sorted_sequence.shape}")
    return _C_ops.searchsorted(sorted_sequence, x, bool(out_int32), bool(right))


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """p-norm distances between the rows of x [..., P, M] and y [..., R, M] -> [..., P, R] (batch
    dims broadcast). p = 2 goes through a matrix product when compute_mode asks for it (or P or R
    > 25 by default); the distance of equal rows then has gradient 0."""
    _check(x, "cdist")
    _check(y, "cdist", "y")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"[cdist] compute_mode must be one of {list(_CDIST_MODES)}, received {compute_mode!r}")
    if x.ndim < 2 or y.ndim < 2 or _ss.differ(x.shape[-1], y.shape[-1]):
        raise ValueError(f"[cdist] expected x [..., P, M] and y [..., R, M], received {x.shape} and {y.shape}")
    if x.dtype != y.dtype or x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"[cdist] expected float32 or float64 x and y of one dtype, received {x.dtype.name} "
                        f"and {y.dtype.name}")
    p = float(p)
    if p < 0:
        raise ValueError(f"[cdist] expected p >= 0, received {p}")
    batch = list(np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2])))
    if list(x.shape[:-2]) != batch:
        x = _C_ops.expand(x, batch + list(x.shape[-2:]))
    if list(y.shape[:-2]) != batch:
        y = _C_ops.expand(y, batch + list(y.shape[-2:]))
    P, R = x.shape[-2], y.shape[-2]
    use_mm = p == 2.0 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (P > 25 or R > 25)))
    if use_mm:
        from .math_reduce import sum as _sum
        x2 = _sum(_C_ops.multiply(x, x), axis=-1, keepdim=True)                  # [..., P, 1]
        y2 = _C_ops.unsqueeze(_sum(_C_ops.multiply(y, y), axis=-1), [-2])        # [..., 1, R]
        xy = _C_ops.matmul(x, y, False, True)
        d2 = _C_ops.subtract(_C_ops.add(x2, y2), _C_ops.scale(xy, 2.0, 0.0, True))
        zero = _scalar_like(0, d2)
        pos = _C_ops.greater_than(d2, zero)
        safe = _C_ops.where(pos, d2, _scalar_like(1, d2))
        return _C_ops.where(pos, _C_ops.sqrt(safe), _scalar_like(0, d2))
    diff = _C_ops.subtract(_C_ops.unsqueeze(x, [-2]), _C_ops.unsqueeze(y, [-3]))  # [..., P, R, M]
    return _C_ops.p_norm(diff, p, -1, 1e-12, False, False)


def index_add(x, index, axis, value, name=None):
    """x with value's slices added at positions index (1-D) along axis."""
    _check(x, "index_add")
    _check(index, "index_add", "index")
    _check(value, "index_add", "value")
    if index.dtype.name not in ("int32", "int64") or index.ndim != 1:
        raise TypeError(f"[index_add] expected a 1-D int32 or int64 index, received {index.dtype.name} "
                        f"of shape {index.shape}")
    if value.dtype != x.dtype:
        raise TypeError(f"[index_add] expected value of x's dtype {x.dtype.name}, received {value.dtype.name}")
    if not isinstance(axis, numbers.Integral) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"[index_add] expected an int axis in [{-x.ndim}, {x.ndim}), received {axis!r}")
    ax = int(axis) % x.ndim
    want = list(x.shape)
    want[ax] = index.shape[0]
    if list(value.shape) != want:
        raise ValueError(f"[index_add] expected value of shape {want}, received {value.shape}")
    if not _C._is_variable(index) and index.size:  # Paddle's class for an index out of range
        lo, hi = int(index.min()), int(index.max())
        if lo < -x.shape[ax] or hi >= x.shape[ax]:
            raise ValueError(f"(InvalidArgument) [index_add] index values must be in [{-x.shape[ax]}, "
                             f"{x.shape[ax]}), received values in [{lo}, {hi}]")
    shape = [1] * x.ndim
    shape[ax] = index.shape[0]
    idx = _C_ops.expand(_C_ops.reshape(index, shape), want)
    return _C_ops.put_along_axis_add(x, idx, value, ax)


def index_add_(x, index, axis, value, name=None):
    return x._copy_(index_add(x, index, axis, value))


def _index_tensors(x, indices, op):
    """indices (int tensors, bool masks expanded by nonzero) -> int64 tensors broadcast to one shape."""
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)) or not indices:
        raise TypeError(f"[{op}] expected indices to be a non-empty tuple or list of Tensors")
    out = []
    for t_ in indices:
        _check(t_, op, "indices")
        if t_.dtype.name == "bool":
            nz = _C_ops.nonzero(t_)
            out.extend(_C_ops.reshape(_C_ops.slice(nz, [1], [j], [j + 1]), [-1]) for j in range(t_.ndim))
        elif t_.dtype.name in ("int32", "int64"):
            out.append(_C_ops.cast(t_, convert_dtype("int64")))
        else:
            raise TypeError(f"[{op}] expected int32, int64 or bool index tensors, received {t_.dtype.name}")
    if len(out) > x.ndim:
        raise IndexError(f"[{op}] too many indices ({len(out)}) for a {x.ndim}-D tensor")
    shape = list(np.broadcast_shapes(*[tuple(t_.shape) for t_ in out]))
    res = []
    for d, t_ in enumerate(out):
        if list(t_.shape) != shape:
            t_ = _C_ops.expand(t_, shape)
        n = _scalar_like(x.shape[d], t_)
        res.append(_C_ops.where(_C_ops.less_than(t_, _scalar_like(0, t_)), _C_ops.add(t_, n), t_))
    return res, shape


def index_put(x, indices, value, accumulate=False, name=None):
    """x with x[indices] = value (or += value when accumulate); indices a tuple of index tensors
    (numpy-style advanced indexing of x's leading dims; bool masks allowed)."""
    _check(x, "index_put")
    idx, bshape = _index_tensors(x, indices, "index_put")
    k = len(idx)
    rest = list(x.shape[k:])
    if not isinstance(value, Tensor):
        value = _scalar_like(value, x)
    if value.dtype != x.dtype:
        value = _C_ops.cast(value, x.dtype)
    target = bshape + rest
    try:
        if list(np.broadcast_shapes(tuple(value.shape), tuple(target))) != target:
            raise ValueError
    except ValueError:
        raise ValueError(f"[index_put] value of shape {value.shape} cannot be broadcast to the indexed "
                         f"shape {target}") from None
    if list(value.shape) != target:
        value = _C_ops.expand(value, target)
    for d, t_ in enumerate(idx):
        hi = _C_ops.greater_equal(t_, _scalar_like(x.shape[d], t_))
        lo = _C_ops.less_than(t_, _scalar_like(0, t_))
        if t_.size and bool(_C_ops.any(_C_ops.logical_or(hi, lo), [], False)):
            raise IndexError(f"[index_put] an index is out of bounds for dim {d} of size {x.shape[d]}")
    if accumulate:
        return _C_ops.scatter_nd_add(x, _C_ops.stack(idx, -1), value)
    lin = idx[0]
    for d in range(1, k):
        lin = _C_ops.add(_C_ops.scale(lin, float(x.shape[d]), 0.0, True), idx[d])
    n = int(np.prod(bshape)) if bshape else 1
    flat = _C_ops.reshape(x, [int(np.prod(x.shape[:k]))] + rest)
    upd = _C_ops.reshape(value, [n] + rest)
    out = _C_ops.scatter(flat, _C_ops.reshape(lin, [n]), upd, True)
    return _C_ops.reshape(out, list(x.shape))


def index_put_(x, indices, value, accumulate=False, name=None):
    return x._copy_(index_put(x, indices, value, accumulate))


def masked_fill(x, mask, value, name=None):
    """x with value (a number or a one-element Tensor) where mask is True (broadcast)."""
    _check(x, "masked_fill")
    _check(mask, "masked_fill", "mask")
    if mask.dtype.name != "bool":
        raise TypeError(f"[masked_fill] expected a bool mask, received {mask.dtype.name}")
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"[masked_fill] expected a one-element value tensor, received shape {value.shape}")
        v = value if value.dtype == x.dtype else _C_ops.cast(value, x.dtype)
        v = _C_ops.reshape(v, [1])
    else:
        v = _scalar_like(value, x)
    return _C_ops.where(mask, v, x)


def masked_fill_(x, mask, value, name=None):
    return x._copy_(masked_fill(x, mask, value))


__all__ = ["lerp", "rad2deg", "deg2rad", "add_n", "addmm", "inner", "outer", "mv", "t", "kron",
           "dist", "diff", "cross", "increment", "stanh", "nansum", "nanmean", "gcd", "lcm", "conj",
           "is_complex", "is_floating_point", "is_integer", "is_empty", "rank", "shape", "tolist",
           "tensordot", "rot90", "broadcast_tensors", "median", "nanmedian", "quantile", "kthvalue", "heaviside",
           "frac", "frac_", "sgn", "count_nonzero", "bucketize", "cdist", "index_add", "index_add_",
           "index_put", "index_put_", "masked_fill", "masked_fill_"]
_TENSOR_METHODS = ["lerp", "lerp_", "rad2deg", "deg2rad", "add_n", "addmm", "inner", "outer",
                   "mv", "t", "kron", "dist", "diff", "cross", "increment", "stanh", "nansum",
                   "nanmean", "gcd", "lcm", "conj", "is_complex", "is_floating_point", "is_integer",
                   "is_empty", "rank", "tensordot", "rot90", "median", "nanmedian", "quantile", "kthvalue",
                   "heaviside", "frac", "frac_", "sgn", "count_nonzero", "bucketize", "cdist",
                   "index_add", "index_add_", "index_put", "index_put_", "masked_fill", "masked_fill_"]
