"""Shapes in static programs: a Variable's dims may be unknown (-1) until the program runs, so
code that builds a shape from x.shape uses these helpers, which record shape-carrying ops
(shape, full_dyn, full_like, reshape_dyn) when a dim is unknown or an entry is a Variable, and
plain lists otherwise (eager mode is unchanged)."""
from .. import _C
from .._C import _C_ops

Tensor = _C.Tensor
_INT64 = None


def in_static():
    """True while ops are recorded into a program (paddle.enable_static / program_guard)."""
    return _C._static_active() is not None


def is_var(x):
    return isinstance(x, Tensor) and _C._is_variable(x)


def differ(a, b):
    """Two dims that certainly differ (-1, a program's unknown dim, may be anything)."""
    return a != b and a >= 0 and b >= 0


def shapes_differ(a, b):
    return len(a) != len(b) or any(differ(x, y) for x, y in zip(a, b))


def unknown(shape):
    """Does a shape (list/tuple of ints) have an unknown (-1) dim?"""
    return any(isinstance(s, int) and s < 0 for s in shape)


def _i64():
    global _INT64
    if _INT64 is None:
        _INT64 = _C.dtypes[[d.name for d in _C.dtypes].index("int64")]
    return _INT64


def shape_of(x):
    """paddle.shape(x): an int32 tensor of x's dims (recorded as the shape op in a program)."""
    return _C_ops.shape(x)


def dim_of(x, d):
    """x's dim d as an int64 tensor [1] (a recorded op when x is a Variable)."""
    s = _C_ops.shape(x)
    d = d + x.ndim if d < 0 else d
    return _C_ops.cast(_C_ops.slice(s, [0], [d], [d + 1]), _i64())


def dim(x, d):
    """x.shape[d] when known, else the int64 tensor [1] that holds it at run time."""
    n = x.shape[d]
    return dim_of(x, d) if n < 0 and is_var(x) else n


def needs_tensor(shape):
    """Does a shape list hold a Variable entry (or is it a Variable)?"""
    if isinstance(shape, Tensor):
        return is_var(shape)
    return isinstance(shape, (list, tuple)) and any(is_var(s) for s in shape)


def shape_tensor(shape):
    """An int64 1-D tensor from a list mixing ints and int tensors of one element (or a 1-D int
    tensor); also returns the known dims (-1 where an entry is a tensor)."""
    if isinstance(shape, Tensor):
        t = shape if shape.dtype.name == "int64" else _C_ops.cast(shape, _i64())
        return _C_ops.reshape(t, [-1]), [-1] * (shape.shape[0] if shape.ndim and shape.shape[0] >= 0 else 0)
    parts, known, run = [], [], []
    for s in shape:
        if isinstance(s, Tensor):
            if run:
                parts.append(_const(run))
                run = []
            t = s if s.dtype.name == "int64" else _C_ops.cast(s, _i64())
            parts.append(_C_ops.reshape(t, [1]))
            known.append(-1)
        else:
            run.append(int(s))
            known.append(int(s))
    if run:
        parts.append(_const(run))
    t = parts[0] if len(parts) == 1 else _C_ops.concat(parts, 0)
    return t, known


def _const(vals):
    return _C_ops.assign_value([len(vals)], _i64(), [float(v) for v in vals])


def refine(v, known):
    """Sets the recorded dims of Variable v that are known from the Python side."""
    if not is_var(v) or not known:
        return v
    cur = list(v.shape)
    if len(cur) != len(known):
        return v
    new = [k if (c < 0 and k >= 0) else c for c, k in zip(cur, known)]
    if new != cur:
        _C._var_of(v).set_shape(new)
    return v


def full(shape, value, dtype):
    """full() whose shape holds tensors: the full_dyn op (dims known from Python are kept)."""
    t, known = shape_tensor(shape)
    return refine(_C_ops.full_dyn(t, value, dtype), known)


def reshape(x, shape):
    """reshape() whose target shape holds tensors (reshape_dyn)."""
    t, known = shape_tensor(shape)
    return refine(_C_ops.reshape_dyn(x, t), known)


def like(x, value, dtype):
    """full_like(x): x's run-time shape."""
    return _C_ops.full_like(x, value, dtype)


def dims(x):
    """x's dims: ints where known, int64 [1] tensors (recorded ops) where a program's dim is unknown."""
    return [dim(x, d) for d in range(x.ndim)]


def mul(*vals):
    """The product of dims (ints, or int64 [1] tensors where unknown): an int when all are known."""
    k, ts = 1, []
    for v in vals:
        if isinstance(v, Tensor):
            ts.append(v)
        else:
            k *= int(v)
    if not ts:
        return k
    out = ts[0]
    for t in ts[1:]:
        out = _C_ops.multiply(out, t)
    return _C_ops.multiply(out, _const([k])) if k != 1 else out


def reshape_to(x, shape):
    """reshape with entries that may be tensors (reshape_dyn then) or ints."""
    return reshape(x, shape) if any(isinstance(s, Tensor) for s in shape) else _C_ops.reshape(x, list(shape))


# ---------------------------------------------------------------- int-list arguments given as Variables
# Paddle's tile/squeeze/unsqueeze/uniform/repeat_interleave ops take these as tensor inputs
# (RepeatTimes, AxesTensor, ShapeTensor, RepeatsTensor) read when the program runs. Here the same
# values flow through recorded ops (shape arithmetic, then reshape_dyn/expand_dyn/full_dyn), so the
# program computes the result from the values fed at run time.
def int_tensor(v, what):
    """(int64 1-D tensor, entry count) of an int list holding Variables, or of a Variable (its
    count must be known when the program is built, as Paddle's ops need it for the output rank)."""
    if isinstance(v, Tensor):
        n = 1 if v.ndim == 0 else (v.shape[0] if v.ndim == 1 else -1)
        if n < 0:
            raise NotImplementedError(f"{what}: a Variable whose number of entries is known only when the "
                                      f"program runs (shape {list(v.shape)}); give a 1-D Variable of known length")
        t = v if v.dtype.name == "int64" else _C_ops.cast(v, _i64())
        return _C_ops.reshape(t, [n]), n
    t, known = shape_tensor(v)
    return t, len(known)


def _pick(t, i):
    """Entry i of a 1-D tensor as a [1] tensor."""
    return _C_ops.slice(t, [0], [i], [i + 1])


def _sel(cond, a, b):
    return _C_ops.where(cond, a, b)


def tile(x, repeat_times):
    """tile(x, repeat_times) with run-time repeats: x viewed as [1, d0, 1, d1, ...], expanded to
    [r0, d0, r1, d1, ...] and merged to [r0*d0, r1*d1, ...]."""
    r, k = int_tensor(repeat_times, "tile")
    nd = max(k, x.ndim)
    if x.ndim < nd:
        x = reshape_to(x, [1] * (nd - x.ndim) + dims(x))
    if k < nd:
        r = _C_ops.concat([_const([1] * (nd - k)), r], 0)
    s = _C_ops.cast(_C_ops.shape(x), _i64())
    ones = _const([1] * nd)
    inter = _C_ops.reshape(_C_ops.stack([ones, s], 1), [2 * nd])
    spread = _C_ops.reshape(_C_ops.stack([r, s], 1), [2 * nd])
    xi = _C_ops.reshape_dyn(x, inter, [])
    e = _C_ops.expand_dyn(xi, spread, [])
    return _C_ops.reshape_dyn(e, _C_ops.multiply(r, s), [-1] * nd)


def unsqueeze(x, axis):
    """unsqueeze with run-time axes: one inserted 1 per axis, in order, each axis taken against the
    rank so far (Paddle's rule: a negative axis counts from the end of the grown shape)."""
    a, k = int_tensor(axis, "unsqueeze")
    y = x
    for i in range(k):
        rank = x.ndim + i
        p = _pick(a, i)
        p = _sel(_C_ops.less_than(p, _const([0])), _C_ops.add(p, _const([rank + 1])), p)
        s = _C_ops.cast(_C_ops.shape(y), _i64()) if rank else _const([])
        ext = _C_ops.concat([s, _const([1])], 0) if rank else _const([1])
        shift = _C_ops.concat([_const([1]), s], 0) if rank else _const([1])
        j = _const(list(range(rank + 1)))
        new = _sel(_C_ops.less_than(j, p), ext, _sel(_C_ops.equal(j, p), _const([1] * (rank + 1)), shift))
        y = _C_ops.reshape_dyn(y, new, [-1] * (rank + 1))
    return y


def squeeze(x, axis):
    """squeeze with run-time axes: the listed dims of size 1 go (a listed dim of another size
    stays, as Paddle); the recorded rank is x's rank less the number of axes (Paddle's compile-time rule)."""
    a, k = int_tensor(axis, "squeeze")
    n = x.ndim
    if n == 0:
        return x
    s = _C_ops.cast(_C_ops.shape(x), _i64())
    pos = _sel(_C_ops.less_than(a, _const([0] * k)), _C_ops.add(a, _const([n] * k)), a)
    j = _const(list(range(n)))
    hit = _C_ops.any(_C_ops.equal(_C_ops.reshape(pos, [k, 1]), _C_ops.reshape(j, [1, n])), [0], False)
    keep = _C_ops.logical_not(_C_ops.logical_and(hit, _C_ops.equal(s, _const([1] * n))))
    return _C_ops.reshape_dyn(x, _C_ops.masked_select(s, keep), [-1] * max(n - k, 0))


def repeat_interleave(x, repeats, ax):
    """repeat_interleave along ax with run-time repeats: the index of output row j is the number of
    cumulative repeats <= j (searchsorted), then index_select."""
    r, k = int_tensor(repeats, "repeat_interleave")
    n = x.shape[ax]
    if k == 1 and n != 1:
        r = _C_ops.expand_dyn(r, _const([n]), [n]) if n >= 0 else _C_ops.expand_dyn(r, dim_of(x, ax), [])
    cum = _C_ops.cumsum(r, 0, False, False, False)
    total = _C_ops.slice(cum, [0], [-1], [2 ** 62])
    j = _C_ops.arange_tensor(_const([0]), total, _const([1]))
    idx = _C_ops.searchsorted(cum, j, False, True)
    return _C_ops.index_select(x, idx, ax)


def attr_dyn(op, args, slots):
    """Runs C op `op` on its positional args where the int / float / bool attributes at positions
    `slots` are one-element program Variables (Paddle's ops take an axis, minlength, num_rows ...
    as a tensor input that the program reads when it runs): the attr_dyn op (csrc/ops/dyn_ops.c),
    whose outputs have the op's rank with unknown dims until the program runs. Gradients flow
    through it (the op's own backward with the values read when the program runs: attr_dyn_grad,
    csrc/autograd/rules_dyn.c)."""
    x, values, attrs, absent = [], [], [], []
    for i, a in enumerate(args):
        if i in slots:
            values.append(a)
        elif a is None:
            absent.append(i)
        elif isinstance(a, Tensor):
            x.append(a)
        elif isinstance(a, _C.dtype):
            attrs.append(float(a._code))
        else:
            attrs.append(float(a))
    out = _C_ops.attr_dyn(x, values, op, sorted(slots), attrs, absent)
    return out[0] if len(out) == 1 else tuple(out)
