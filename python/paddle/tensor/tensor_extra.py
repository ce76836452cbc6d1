"""Tensor functions of Paddle 2.3 over the ops of ops/tensor_extra.yaml (tril/triu, complex
parts and views, diagonal, searchsorted, histogram, bincount, mode, put_along_axis, poisson,
logcumsumexp, logaddexp, polygamma, tril/triu_indices, unfold as a view, unique_consecutive)
and compositions over existing ops that get autograd for free: trace, diagflat, diag_embed,
angle, repeat_interleave, crop, lgamma/digamma, shard_index, multiplex, renorm and a general einsum
(pairwise contraction through transpose/reshape/matmul/sum)."""
import numbers

import numpy as np

from .. import _C
from .._C import _C_ops
from ..framework.dtype import convert_dtype
from . import static_shape as _ss
from ..framework.misc import check_tensor, kernel_not_found

Tensor = _C.Tensor


_check = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


def _sum(x, axis, keepdim=False):
    from .math_reduce import sum as _s
    return _s(x, axis=axis, keepdim=keepdim)


def _norm_axis(axis, ndim, op):
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"[{op}] expected an int axis, received {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise IndexError(f"[{op}] axis {axis} is out of range for a {ndim}-D tensor")
    return int(axis) % ndim


def _const(v, dtype):
    from .to_tensor import scalar_tensor
    return scalar_tensor(v, dtype)


# ---------------------------------------------------------------- triangular parts
def tril(x, diagonal=0, name=None):
    _check(x, "tril")
    return _C_ops.tril_triu(x, int(diagonal), True)


def triu(x, diagonal=0, name=None):
    _check(x, "triu")
    return _C_ops.tril_triu(x, int(diagonal), False)


# ---------------------------------------------------------------- complex numbers
def _part(x, i):
    """The real (0) or imaginary (1) part of complex x as a view in dygraph (Paddle 2.6's stride
    kernels: writing into x shows in it), the copying op in a program."""
    if _C._is_variable(x):
        return _C_ops.real(x) if i == 0 else _C_ops.imag(x)
    nd = len(x.shape)
    return _C_ops.squeeze(_C_ops.slice(_C_ops.as_real(x), [nd], [i], [i + 1]), [nd])


def real(x, name=None):
    _check(x, "real")
    if x.dtype.name not in ("complex64", "complex128"):
        return _C_ops.assign(x)
    return _part(x, 0)


def imag(x, name=None):
    _check(x, "imag")
    if x.dtype.name not in ("complex64", "complex128"):
        raise kernel_not_found("imag", x.dtype.name, ("complex64", "complex128"))  # Paddle's NotFound
    return _part(x, 1)


def complex(real, imag, name=None):  # noqa: A001 (Paddle's name)
    _check(real, "complex", "real")
    _check(imag, "complex", "imag")
    return _C_ops.complex(real, imag)


def as_real(x, name=None):
    _check(x, "as_real")
    return _C_ops.as_real(x)


def as_complex(x, name=None):
    _check(x, "as_complex")
    return _C_ops.as_complex(x)


def angle(x, name=None):
    """Argument of complex x (atan2(imag, real)); for real x: pi where x < 0, else 0."""
    _check(x, "angle")
    if x.dtype.name in ("complex64", "complex128"):
        return _C_ops.atan2(_C_ops.imag(x), _C_ops.real(x))
    if x.dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        x = _C_ops.cast(x, convert_dtype("float32"))
    zero = _const(0.0, x.dtype)
    return _C_ops.atan2(_C_ops.scale(x, 0.0, 0.0, True), _C_ops.where(_C_ops.equal(x, zero), zero, x))


# ---------------------------------------------------------------- diagonals
def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    _check(x, "diagonal")
    return _C_ops.diagonal(x, int(offset), int(axis1), int(axis2))


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    _check(x, "trace")
    nd = len(x.shape)
    a1, a2 = int(axis1), int(axis2)
    if nd and -nd <= a1 < nd and -nd <= a2 < nd and a1 % nd > a2 % nd:
        a1, a2 = a2, a1  # Paddle's trace orders the two axes; the offset keeps its sign
    d = _C_ops.diagonal(x, int(offset), a1, a2)
    if d.shape[-1] == 0:
        return _C_ops.full(d.shape[:-1] or [1], 0, x.dtype)
    return _sum(d, -1)


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    _check(x, "fill_diagonal_tensor")
    _check(y, "fill_diagonal_tensor", "y")
    return _C_ops.fill_diagonal_tensor(x, y, int(offset), int(dim1), int(dim2))


def fill_diagonal_tensor_(x, y, offset=0, dim1=0, dim2=1, name=None):
    return x._copy_(fill_diagonal_tensor(x, y, offset, dim1, dim2))


def _fill_diagonal_mask(shape, offset, wrap):
    """Paddle's fill_diagonal positions: flat indices i + offset for i = 0, step, 2 step, ... (step =
    the sum of the row-major strides, so one step moves along every dim), while i % cols + offset
    stays inside the row; i runs over the first min(numel, cols^2) elements of a matrix, or all with
    wrap and for N-D tensors."""
    numel = int(np.prod(shape))
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    step = max(sum(strides), 1)
    cols = shape[1]
    size = numel if (wrap or len(shape) > 2) else min(numel, cols * cols)
    i = np.arange(0, size, step, dtype=np.int64)
    col = i % cols + offset
    i = i[(col >= 0) & (col < cols)] + offset
    mask = np.zeros(numel, dtype=bool)
    mask[i[(i >= 0) & (i < numel)]] = True
    return mask.reshape(shape)


def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """Fills the diagonal of x (2-D, or N-D with all dims equal) with value in place; wrap
    continues below the first cols rows of a tall matrix (numpy.fill_diagonal's wrap). The filled
    positions get no gradient."""
    _check(x, "fill_diagonal_")
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"(InvalidArgument) [fill_diagonal_] expected x to have at least 2 dims, received "
                         f"shape {shape}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"(InvalidArgument) [fill_diagonal_] a tensor of more than 2 dims must have all dims "
                         f"equal, received shape {shape}")
    mask = _C.from_buffer(_fill_diagonal_mask(shape, int(offset), bool(wrap)))
    filled = _C_ops.where(mask, _C_ops.full_like(x, value, x.dtype), x)
    return x._copy_(filled)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 (Paddle's name)
    """Matrices whose (offset) diagonal along (dim1, dim2) holds the last dim of input."""
    _check(input, "diag_embed", "input")
    n = input.shape[-1]
    m = n + abs(int(offset))
    nd = input.ndim + 1
    d1, d2 = _norm_axis(dim1, nd, "diag_embed"), _norm_axis(dim2, nd, "diag_embed")
    if d1 == d2:
        raise ValueError(f"[diag_embed] dim1 and dim2 must differ, both are {d1}")
    batch = list(input.shape[:-1])
    shape, it = [], iter(batch)
    for d in range(nd):
        shape.append(m if d in (d1, d2) else next(it))
    if any(s < 0 for s in shape):  # a program's unknown dims: the shape as data
        from . import static_shape as _ss
        bd = iter(_ss.dims(input)[:-1])
        shape = [m if d in (d1, d2) else next(bd) for d in range(nd)]
        zeros = _ss.full(shape, 0, input.dtype)
    else:
        zeros = _C_ops.full(shape, 0, input.dtype)
    return _C_ops.fill_diagonal_tensor(zeros, input, int(offset), d1, d2)


def diagflat(x, offset=0, name=None):
    _check(x, "diagflat")
    flat = _C_ops.reshape(x, [-1])
    return _C_ops.diag(flat, int(offset), 0)


# ---------------------------------------------------------------- along an axis
def _along_prep(arr, indices, axis, op):
    _check(arr, op, "arr")
    _check(indices, op, "indices")
    if indices.ndim != arr.ndim:
        raise ValueError(f"[{op}] expected indices with arr's ndim {arr.ndim}, received {indices.ndim}")
    ax = _norm_axis(axis, arr.ndim, op)
    shape = list(arr.shape)
    shape[ax] = indices.shape[ax]
    if list(indices.shape) != shape:  # Paddle broadcasts indices over arr's other dims
        indices = _C_ops.expand(indices, shape)
    return indices, ax


def take_along_axis(arr, indices, axis):
    indices, ax = _along_prep(arr, indices, axis, "take_along_axis")
    return _C_ops.take_along_axis(arr, indices, ax)


def put_along_axis(arr, indices, values, axis, reduce="assign"):
    indices, ax = _along_prep(arr, indices, axis, "put_along_axis")
    if not isinstance(values, Tensor):
        values = _const(values, arr.dtype)
    if values.dtype != arr.dtype:
        values = _C_ops.cast(values, arr.dtype)
    if list(values.shape) != list(indices.shape):
        values = _C_ops.expand(values, list(indices.shape))
    if reduce == "assign":
        return _C_ops.put_along_axis(arr, indices, values, ax)
    if reduce == "add":
        return _C_ops.put_along_axis_add(arr, indices, values, ax)
    if reduce in ("mul", "multiply"):
        return _C_ops.put_along_axis_mul(arr, indices, values, ax)
    raise ValueError(f"[put_along_axis] reduce must be 'assign', 'add' or 'mul', received {reduce!r}")


def put_along_axis_(arr, indices, values, axis, reduce="assign"):
    return arr._copy_(put_along_axis(arr, indices, values, axis, reduce))


def repeat_interleave(x, repeats, axis=None, name=None):
    """Each element (or slice along axis) repeated repeats times (an int or a 1-D Tensor)."""
    _check(x, "repeat_interleave")
    if axis is None:
        x = _C_ops.reshape(x, [-1])
        axis = 0
    ax = _norm_axis(axis, x.ndim, "repeat_interleave")
    n = x.shape[ax]
    if _ss.is_var(repeats):
        return _ss.repeat_interleave(x, repeats, ax)  # a program: the repeats are known when it runs
    if isinstance(repeats, Tensor):
        r = np.asarray(repeats.numpy()).reshape(-1).astype(np.int64)
    elif isinstance(repeats, numbers.Integral) and not isinstance(repeats, bool):
        r = np.full([n], int(repeats), np.int64)
    else:
        raise TypeError(f"[repeat_interleave] expected repeats to be an int or a Tensor, received "
                        f"{type(repeats).__name__}")
    if r.size == 1:
        r = np.full([n], int(r[0]), np.int64)
    if r.size != n:
        raise ValueError(f"[repeat_interleave] expected {n} repeats for axis {ax}, received {r.size}")
    if (r < 0).any():
        raise ValueError("[repeat_interleave] repeats must be non-negative")
    index = np.repeat(np.arange(n, dtype=np.int64), r)
    return _C_ops.index_select(x, _C.from_buffer(index), ax)


# ---------------------------------------------------------------- search and counting
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    _check(sorted_sequence, "searchsorted", "sorted_sequence")
    _check(values, "searchsorted", "values")
    return _C_ops.searchsorted(sorted_sequence, values, bool(out_int32), bool(right))


def histogram(input, bins=100, min=0, max=0, name=None):  # noqa: A002 (Paddle's names)
    _check(input, "histogram", "input")
    x = input
    if x.dtype.name not in ("int32", "int64", "float32", "float64"):
        x = _C_ops.cast(x, convert_dtype("float32" if x.dtype.name in ("float16", "bfloat16") else "int64"))
    return _C_ops.histogram(x, int(bins), int(min), int(max))


def bincount(x, weights=None, minlength=0, name=None):
    _check(x, "bincount")
    if x.dtype.name not in ("int32", "int64"):
        raise TypeError(f"[bincount] expected an int32 or int64 x, received {x.dtype.name}")
    if weights is not None:
        _check(weights, "bincount", "weights")
    if _ss.is_var(minlength):  # a program Variable: read when the program runs
        return _ss.attr_dyn("bincount", [x, weights, minlength], {2})
    return _C_ops.bincount(x, weights, int(minlength))


def mode(x, axis=-1, keepdim=False, name=None):
    """(values, indices) of the most frequent value along axis."""
    _check(x, "mode")
    ax = _norm_axis(axis, x.ndim, "mode")
    v, i = _C_ops.mode(x, ax)
    if not keepdim:  # a 1-D x leaves no dims: the API level's scalar rule
        v, i = _C_ops.squeeze(v, [ax]), _C_ops.squeeze(i, [ax])
    return v, i


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """Collapses runs of equal consecutive elements (or slices along axis): (out[, inverse][, counts])."""
    _check(x, "unique_consecutive")
    if axis is None:
        axes = []
    else:
        axes = [_norm_axis(axis, x.ndim, "unique_consecutive")]
    d = convert_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise TypeError(f"[unique_consecutive] expected dtype int32 or int64, received {d.name}")
    out, inv, cnt = _C_ops.unique_consecutive(x, bool(return_inverse), bool(return_counts), axes, d)
    res = [out]
    if return_inverse:
        res.append(inv)
    if return_counts:
        res.append(cnt)
    return res[0] if len(res) == 1 else tuple(res)


# ---------------------------------------------------------------- scans and special functions
def _as_float(x):
    """Integer/bool inputs computed in float32 (as Paddle does for these functions)."""
    if x.dtype.name in ("float16", "bfloat16", "float32", "float64"):
        return x
    if x.dtype.name in ("complex64", "complex128"):
        raise TypeError(f"expected a real tensor, received {x.dtype.name}")
    return _C_ops.cast(x, convert_dtype("float32"))


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along axis (None: over the flattened x), stable for any magnitude."""
    _check(x, "logcumsumexp")
    if dtype is not None:
        x = _C_ops.cast(x, convert_dtype(dtype))
    try:
        x = _as_float(x)
    except TypeError as e:
        raise TypeError(f"[logcumsumexp] {e}") from None
    if axis is None:
        x = _C_ops.reshape(x, [-1])
        axis = 0
    return _C_ops.logcumsumexp(x, _norm_axis(axis, x.ndim, "logcumsumexp"))


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) elementwise with broadcasting, stable for any magnitude."""
    _check(x, "logaddexp")
    _check(y, "logaddexp", "y")
    try:
        x, y = _as_float(x), _as_float(y)
    except TypeError as e:
        raise TypeError(f"[logaddexp] {e}") from None
    if x.dtype != y.dtype:
        raise TypeError(f"[logaddexp] expected x and y of one dtype, received {x.dtype.name} and {y.dtype.name}")
    return _C_ops.logaddexp(x, y)


def polygamma(x, n, name=None):
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    _check(x, "polygamma")
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"[polygamma] expected an int order n, received {type(n).__name__}")
    if n < 0:
        raise ValueError(f"[polygamma] expected a non-negative order n, received {n}")
    try:
        x = _as_float(x)
    except TypeError as e:
        raise TypeError(f"[polygamma] {e}") from None
    return _C_ops.polygamma(x, int(n))


def _tri_args(op, row, col, offset, dtype):
    for v, nm in ((row, "row"), (col, "col"), (offset, "offset")):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError(f"[{op}] expected an int {nm}, received {type(v).__name__}")
    return int(row), int(col), int(offset), convert_dtype(dtype)


def tril_indices(row, col, offset=0, dtype="int64"):
    """[2, N] row and column indices of the lower triangle (j - i <= offset), row by row."""
    return _C_ops.tril_indices(*_tri_args("tril_indices", row, col, offset, dtype))


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """[2, N] row and column indices of the upper triangle (j - i >= offset), row by row."""
    return _C_ops.triu_indices(*_tri_args("triu_indices", row, row if col is None else col, offset, dtype))


def unfold(x, axis, size, step, name=None):
    """A view of x (sharing its storage) holding its windows of size `size`, `step` apart, along
    axis: that dim becomes the number of windows and a last dim of size `size` is appended."""
    _check(x, "unfold")
    for v, nm in ((axis, "axis"), (size, "size"), (step, "step")):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError(f"[unfold] expected an int {nm}, received {type(v).__name__}")
    return _C_ops.tensor_unfold(x, int(axis), int(size), int(step))


# ---------------------------------------------------------------- misc compositions
def crop(x, shape=None, offsets=None, name=None):
    """x[offsets[i] : offsets[i] + shape[i]] per dim; shape -1 keeps the rest of a dim."""
    _check(x, "crop")
    nd = x.ndim
    shape = list(x.shape) if shape is None else (shape.numpy().tolist() if isinstance(shape, Tensor) else list(shape))
    offsets = [0] * nd if offsets is None else (
        offsets.numpy().tolist() if isinstance(offsets, Tensor) else list(offsets))
    if len(shape) != nd or len(offsets) != nd:
        raise ValueError(f"[crop] expected shape and offsets of length {nd}, received {len(shape)} and {len(offsets)}")
    starts, ends = [], []
    for d in range(nd):
        o, s = int(offsets[d]), int(shape[d])
        if x.shape[d] < 0:  # a program's unknown dim: slice clamps when it runs
            if o < 0 or s < -1:
                raise ValueError(f"[crop] offset {o} and size {s} must be >= 0 (size -1: the rest)")
            starts.append(o)
            ends.append((1 << 62) if s == -1 else o + s)
            continue
        if s == -1:
            s = x.shape[d] - o
        if o < 0 or s < 0 or o + s > x.shape[d]:
            raise ValueError(f"[crop] offset {o} + size {s} does not fit dim {d} of size {x.shape[d]}")
        starts.append(o)
        ends.append(o + s)
    return _C_ops.slice(x, list(range(nd)), starts, ends)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):  # noqa: A002
    """Index v -> v - shard_id * shard_size when it falls in shard shard_id, else ignore_value."""
    _check(input, "shard_index", "input")
    if input.dtype.name not in ("int32", "int64"):
        raise TypeError(f"[shard_index] expected an int32 or int64 input, received {input.dtype.name}")
    if nshards <= 0 or not 0 <= shard_id < nshards:
        raise ValueError(f"[shard_index] expected 0 <= shard_id < nshards, received {shard_id} and {nshards}")
    size = (index_num + nshards - 1) // nshards
    dt = input.dtype
    s = _const(size, dt)
    in_shard = _C_ops.equal(_C_ops.floor_divide(input, s), _const(shard_id, dt))
    return _C_ops.where(in_shard, _C_ops.remainder(input, s), _const(ignore_value, dt))


def multiplex(inputs, index, name=None):
    """Row i of the result is row i of inputs[index[i]]."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
        raise ValueError("[multiplex] expected a list of at least 2 tensors")
    _check(index, "multiplex", "index")
    stacked = _C_ops.stack(list(inputs), 0)
    idx = _C_ops.cast(_C_ops.reshape(index, [-1, 1]), convert_dtype("int64"))
    n = inputs[0].shape[0]
    if n < 0 or idx.shape[0] < 0:
        # a program's unknown row count: row i of stacked[:, i] picked by take_along_axis
        rows = _C_ops.transpose(stacked, [1, 0] + list(range(2, stacked.ndim)))
        ix = _C_ops.reshape(idx, [-1] + [1] * (stacked.ndim - 1))
        if stacked.ndim > 2:
            ix = _C_ops.expand(ix, [-1, 1] + list(stacked.shape[2:]))
        return _C_ops.squeeze(_C_ops.take_along_axis(rows, ix, 1), [1])
    if idx.shape[0] > n:
        raise ValueError(f"[multiplex] expected index with at most {n} rows, received {idx.shape[0]}")
    m = idx.shape[0]  # Paddle: the result has index's rows (row i from inputs[index[i]])
    rows = _C.from_buffer(np.arange(m, dtype=np.int64).reshape(m, 1))
    return _C_ops.gather_nd(stacked, _C_ops.concat([idx, rows], 1))


def renorm(x, p, axis, max_norm):
    """Each slice along axis rescaled so its p-norm is at most max_norm."""
    _check(x, "renorm")
    ax = _norm_axis(axis, x.ndim, "renorm")
    others = [d for d in range(x.ndim) if d != ax]
    perm = [ax] + others
    flat = _C_ops.reshape(_C_ops.transpose(x, perm), [0, -1])  # 0: keep the (moved) axis' size
    norms = _C_ops.p_norm(flat, float(p), 1, 1e-12, True, False)
    factor = _C_ops.where(_C_ops.greater_than(norms, _const(max_norm, x.dtype)),
                          _C_ops.divide(_const(max_norm, x.dtype), _C_ops.add(norms, _const(1e-7, x.dtype))),
                          _const(1.0, x.dtype))
    shape = [1] * x.ndim
    shape[ax] = -1
    return _C_ops.multiply(x, _C_ops.reshape(factor, shape))


def poisson(x, name=None):
    _check(x, "poisson")
    return _C_ops.poisson(x, 0)


def lgamma(x, name=None):
    _check(x, "lgamma")
    return _C_ops.lgamma(x)


def digamma(x, name=None):
    _check(x, "digamma")
    return _C_ops.digamma(x)


def erfinv_(x, name=None):
    return x._copy_(_C_ops.erfinv(x))


def is_tensor(x):
    return isinstance(x, Tensor)


from .einsum import einsum  # noqa: E402
from .manipulation import broadcast_shape  # noqa: E402  (Tensor-method form only)
from .math_extra import broadcast_tensors  # noqa: E402  (Tensor-method form only)

__all__ = ["tril", "triu", "real", "imag", "complex", "as_real", "as_complex", "angle", "diagonal",
           "trace", "diagflat", "take_along_axis", "put_along_axis", "repeat_interleave",
           "searchsorted", "histogram", "bincount", "mode", "unique_consecutive", "crop",
           "shard_index", "multiplex", "renorm", "poisson", "einsum", "lgamma", "digamma",
           "logcumsumexp", "logaddexp", "polygamma", "tril_indices", "triu_indices", "unfold"]
_TENSOR_METHODS = ["tril", "triu", "real", "imag", "as_real", "as_complex", "angle", "diagonal",
                   "trace", "diagflat", "take_along_axis", "put_along_axis", "put_along_axis_",
                   "repeat_interleave", "histogram", "bincount", "mode", "unique_consecutive",
                   "multiplex", "renorm", "erfinv_", "is_tensor", "fill_diagonal_tensor",
                   "fill_diagonal_tensor_", "fill_diagonal_", "shard_index", "broadcast_shape", "broadcast_tensors", "lgamma", "digamma",
                   "logcumsumexp", "logaddexp", "polygamma", "unfold"]
