"""paddle.sparse: COO and CSR tensors (Paddle 2.3 names, with 2.6's math on top).

Creation and conversions (sparse_coo_tensor, sparse_csr_tensor, to_dense, to_sparse_coo,
to_sparse_csr, coalesce), unary math on the stored values (relu, sqrt, sin, tanh, abs ...),
binary math (add / subtract / multiply / divide; same pattern runs on the values directly,
different patterns on the union of both), matmul (sparse @ dense, C SpMM), masked_matmul (SDDMM),
transpose and sum. Index work runs in C (ops/sparse_tensor.yaml); gradients reach the values."""
import numpy as np

import paddle
from paddle import _C_ops

from .tensor import SparseCooTensor, SparseCsrTensor, _SparseBase, _i64, _install_dense_methods

__all__ = [
    "sparse_coo_tensor", "sparse_csr_tensor", "ReLU", "coalesce", "add", "subtract", "multiply",
    "divide", "matmul", "masked_matmul", "mv", "addmm", "sqrt", "sin", "tan", "asin", "atan",
    "sinh", "tanh", "asinh", "atanh", "square", "log1p", "abs", "neg", "expm1", "pow", "cast",
    "deg2rad", "rad2deg", "isnan", "transpose", "sum", "is_same_shape", "reshape",
]

_install_dense_methods()


def _dname(dt):
    return dt.name if hasattr(dt, "name") else str(dt).replace("paddle.", "")


def _eager_only(fn):
    if not paddle.in_dynamic_mode():
        raise NotImplementedError(f"paddle.sparse.{fn}: sparse tensors exist in dynamic (eager) mode only "
                                  f"in Paddle-C; call paddle.disable_static() first")


def _values_tensor(values, dtype, stop_gradient):
    if isinstance(values, paddle.Tensor):
        v = values.astype(dtype) if dtype is not None else values
        if stop_gradient or v.stop_gradient:
            # a new leaf (the input keeps its own flag); a values tensor already in a graph with
            # stop_gradient=False carries that graph into the sparse tensor
            v = v.detach()
            v.stop_gradient = bool(stop_gradient)
        return v
    v = paddle.to_tensor(values, dtype=dtype)
    v.stop_gradient = bool(stop_gradient)
    return v


# ---------------- creation ----------------
def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO tensor from indices [sparse_dim, nnz] and values [nnz, *dense_dims]. Indices are kept
    as given (duplicates sum on use; coalesce() sorts and merges them)."""
    _eager_only("sparse_coo_tensor")
    indices = _i64(indices)
    if indices.ndim == 1:
        indices = indices.reshape([1, -1])
    if indices.ndim != 2:
        raise ValueError(f"sparse_coo_tensor: indices must be 2-D [sparse_dim, nnz], received shape "
                         f"{indices.shape}")
    values = _values_tensor(values, dtype, stop_gradient)
    if values.ndim < 1:
        raise ValueError("sparse_coo_tensor: values must have at least one dim [nnz, ...]")
    sd, nnz = indices.shape
    if nnz != values.shape[0]:
        raise ValueError(f"the indices and values must have same number of non-zero, but get {nnz} "
                         f"and {values.shape[0]}")
    ix = indices.numpy()
    if shape is None:
        if nnz == 0:
            raise ValueError("sparse_coo_tensor: shape is required when there are no nonzeros")
        shape = [int(m) + 1 for m in ix.max(axis=1)] + list(values.shape[1:])
    shape = [int(s) for s in shape]
    if len(shape) != sd + values.ndim - 1:
        raise ValueError(f"sparse_coo_tensor: shape {shape} must have sparse_dim ({sd}) + dense dims of "
                         f"values ({values.ndim - 1}) = {sd + values.ndim - 1} dims")
    if list(values.shape[1:]) != shape[sd:]:
        raise ValueError(f"sparse_coo_tensor: the dense dims of shape {shape[sd:]} must equal the "
                         f"trailing dims of values {values.shape[1:]}")
    if nnz:
        lo, hi = ix.min(axis=1), ix.max(axis=1)
        for d in range(sd):
            if lo[d] < 0 or hi[d] >= shape[d]:
                bad = lo[d] if lo[d] < 0 else hi[d]
                raise ValueError(f"sparse_coo_tensor: indices of dim {d} must be in [0, {shape[d]}), "
                                 f"received {bad}")
    return SparseCooTensor(indices, values, shape)


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A CSR tensor ([M, N], or [B, M, N] with crows of B blocks of M + 1 entries)."""
    _eager_only("sparse_csr_tensor")
    crows, cols = _i64(crows), _i64(cols)
    values = _values_tensor(values, dtype, stop_gradient)
    if crows.ndim != 1 or cols.ndim != 1 or values.ndim != 1:
        raise ValueError(f"sparse_csr_tensor: crows, cols and values must be 1-D, received shapes "
                         f"{crows.shape}, {cols.shape}, {values.shape}")
    if cols.shape[0] != values.shape[0]:
        raise ValueError(f"sparse_csr_tensor: cols and values must have the same length, received "
                         f"{cols.shape[0]} and {values.shape[0]}")
    if shape is None:
        if crows.shape[0] < 1:
            raise ValueError("sparse_csr_tensor: crows must have at least one entry")
        c = cols.numpy()
        shape = [crows.shape[0] - 1, int(c.max()) + 1 if c.size else 0]
    shape = [int(s) for s in shape]
    if len(shape) not in (2, 3):
        raise ValueError(f"sparse_csr_tensor: shape must have 2 or 3 dims, received {shape}")
    b = shape[0] if len(shape) == 3 else 1
    if crows.shape[0] != b * (shape[-2] + 1):
        raise ValueError(f"sparse_csr_tensor: crows must have {b} x (rows + 1) = {b * (shape[-2] + 1)} "
                         f"entries for shape {shape}, received {crows.shape[0]}")
    _C_ops.sparse_csr_to_coo_index(crows, cols, shape)  # checks crows and the column range
    return SparseCsrTensor(crows, cols, values, shape)


def _check_sparse(fn, x):
    if not isinstance(x, _SparseBase):
        raise TypeError(f"paddle.sparse.{fn} expects a sparse tensor (SparseCooTensor or "
                        f"SparseCsrTensor), received {type(x).__name__}")


def coalesce(x, name=None):
    """Sorts COO indices (row-major) and sums duplicates."""
    _check_sparse("coalesce", x)
    if isinstance(x, SparseCsrTensor):
        raise ValueError("coalesce expects a SparseCooTensor, received a CSR tensor")
    if x._coalesced:
        return x
    idx, mp = _C_ops.sparse_coo_coalesce_index(x._indices, list(x._shape))
    u = idx.shape[1]
    if u == x.nnz() and bool((mp.numpy() == np.arange(u)).all()):
        vals = x._values
    else:
        z = paddle.zeros([u] + list(x._values.shape[1:]), dtype=x.dtype)
        vals = paddle.scatter_nd_add(z, mp.reshape([-1, 1]), x._values)
    return SparseCooTensor(idx, vals, x._shape, coalesced=True)


# ---------------- unary math on the values ----------------
def _unary(fn, f):
    def op(x, name=None):
        _check_sparse(fn, x)
        return x._with_values(f(x._values))
    op.__name__ = fn
    op.__doc__ = f"paddle.sparse.{fn}: applied to the stored values (the pattern is unchanged)."
    return op


sqrt = _unary("sqrt", paddle.sqrt)
sin = _unary("sin", paddle.sin)
tan = _unary("tan", paddle.tan)
asin = _unary("asin", paddle.asin)
atan = _unary("atan", paddle.atan)
sinh = _unary("sinh", paddle.sinh)
tanh = _unary("tanh", paddle.tanh)
asinh = _unary("asinh", paddle.asinh)
atanh = _unary("atanh", paddle.atanh)
square = _unary("square", paddle.square)
log1p = _unary("log1p", paddle.log1p)
abs = _unary("abs", paddle.abs)  # noqa: A001
neg = _unary("neg", lambda v: -v)
expm1 = _unary("expm1", paddle.expm1)
deg2rad = _unary("deg2rad", paddle.deg2rad)
rad2deg = _unary("rad2deg", paddle.rad2deg)
isnan = _unary("isnan", paddle.isnan)


def pow(x, factor, name=None):  # noqa: A001
    _check_sparse("pow", x)
    return x._with_values(paddle.pow(x._values, factor))


def cast(x, index_dtype=None, value_dtype=None, name=None):
    _check_sparse("cast", x)
    v = x._values.astype(value_dtype) if value_dtype is not None else x._values
    if isinstance(x, SparseCooTensor):
        ix = x._indices.astype(index_dtype) if index_dtype is not None else x._indices
        return SparseCooTensor(ix, v, x._shape, x._coalesced)
    if index_dtype is not None:
        return SparseCsrTensor(x._crows.astype(index_dtype), x._cols.astype(index_dtype), v, x._shape)
    return SparseCsrTensor(x._crows, x._cols, v, x._shape)


# ---------------- binary math ----------------
def _same_pattern(x, y):
    if isinstance(x, SparseCsrTensor):
        if x._crows is y._crows and x._cols is y._cols:
            return True
        return (x._crows.shape == y._crows.shape and x._cols.shape == y._cols.shape
                and np.array_equal(x._crows.numpy(), y._crows.numpy())
                and np.array_equal(x._cols.numpy(), y._cols.numpy()))
    if x._indices is y._indices:
        return True
    return (x._coalesced and y._coalesced and x._indices.shape == y._indices.shape
            and np.array_equal(x._indices.numpy(), y._indices.numpy()))


def _binary(fn, f, x, y):
    _check_sparse(fn, x)
    if not isinstance(y, _SparseBase):
        if isinstance(y, (int, float)) and fn in ("multiply", "divide"):
            return x._with_values(f(x._values, y))
        raise NotImplementedError(f"paddle.sparse.{fn}: both operands must be sparse tensors of the same "
                                  f"layout (sparse with dense is not supported), received "
                                  f"{type(y).__name__}")
    if type(x) is not type(y):
        raise ValueError(f"paddle.sparse.{fn}: both operands must have the same layout, received "
                         f"{x._layout} and {y._layout}")
    if x.shape != y.shape:
        raise ValueError(f"paddle.sparse.{fn}: shapes must be equal, received {x.shape} and {y.shape}")
    if x.dtype != y.dtype:
        raise ValueError(f"paddle.sparse.{fn}: dtypes must be equal, received {x.dtype.name} and "
                         f"{y.dtype.name}")
    if _same_pattern(x, y):
        return x._with_values(f(x._values, y._values))
    if isinstance(x, SparseCsrTensor):
        return _binary(fn, f, x.to_sparse_coo(), y.to_sparse_coo()).to_sparse_csr()
    if x.sparse_dim() != y.sparse_dim():
        raise ValueError(f"paddle.sparse.{fn}: sparse_dim must be equal, received {x.sparse_dim()} and "
                         f"{y.sparse_dim()}")
    # different patterns: both operands on the union of their indices (entries missing from one
    # side are its zeros), then the op on the values
    nx = x.nnz()
    idx, mp = _C_ops.sparse_coo_coalesce_index(paddle.concat([x._indices, y._indices], axis=1),
                                               list(x._shape))
    u = idx.shape[1]
    rest = list(x._values.shape[1:])
    zx = paddle.zeros([u] + rest, dtype=x.dtype)
    xv = paddle.scatter_nd_add(zx, mp[:nx].reshape([-1, 1]), x._values) if nx else zx
    zy = paddle.zeros([u] + rest, dtype=x.dtype)
    yv = paddle.scatter_nd_add(zy, mp[nx:].reshape([-1, 1]), y._values) if y.nnz() else zy
    return SparseCooTensor(idx, f(xv, yv), x._shape, coalesced=True)


def add(x, y, name=None):
    return _binary("add", paddle.add, x, y)


def subtract(x, y, name=None):
    return _binary("subtract", paddle.subtract, x, y)


def multiply(x, y, name=None):
    return _binary("multiply", paddle.multiply, x, y)


def divide(x, y, name=None):
    return _binary("divide", paddle.divide, x, y)


def is_same_shape(x, y):
    return list(x.shape) == list(y.shape)


# ---------------- matmul ----------------
def _as_csr(fn, x):
    if x.ndim not in (2, 3):
        raise ValueError(f"paddle.sparse.{fn}: expected a 2-D or 3-D (batched) sparse matrix, "
                         f"received shape {x.shape}")
    return x if isinstance(x, SparseCsrTensor) else x.to_sparse_csr()


def _csr_batches(c):
    """(crows, cols, values) of each [M, N] matrix of a 3-D CSR tensor (values sliced, so
    gradients flow back into the batched values)."""
    b, m = c.shape[0], c.shape[1]
    cr = c._crows.numpy().reshape(b, m + 1)
    off = np.concatenate([[0], np.cumsum(cr[:, -1])])
    out = []
    for i in range(b):
        lo, hi = int(off[i]), int(off[i + 1])
        out.append((c._crows[i * (m + 1):(i + 1) * (m + 1)], c._cols[lo:hi], c._values[lo:hi]))
    return out


def matmul(x, y, name=None):
    """sparse [M, K] @ dense [K, N] -> dense [M, N] (CSR SpMM in C; COO goes through CSR);
    3-D: a batch of such products, [B, M, K] @ [B, K, N]."""
    _check_sparse("matmul", x)
    if isinstance(y, _SparseBase):
        raise NotImplementedError("paddle.sparse.matmul: sparse @ sparse is not supported in Paddle-C; "
                                  "use a dense right operand")
    if not isinstance(y, paddle.Tensor):
        raise TypeError(f"paddle.sparse.matmul: y must be a Tensor, received {type(y).__name__}")
    c = _as_csr("matmul", x)
    if y.ndim != x.ndim:
        raise ValueError(f"paddle.sparse.matmul: y must have as many dims as x ({x.ndim}), received "
                         f"shape {y.shape}")
    if y.shape[-2] != x.shape[-1] or (x.ndim == 3 and y.shape[0] != x.shape[0]):
        raise ValueError(f"paddle.sparse.matmul: the inner (and batch) dims must match, received x "
                         f"{x.shape} and y {y.shape}")
    if y.dtype != x.dtype:
        raise ValueError(f"paddle.sparse.matmul: x and y must have the same dtype, received "
                         f"{x.dtype.name} and {y.dtype.name}")
    if x.ndim == 2:
        return _C_ops.sparse_csr_mm(c._crows, c._cols, c._values, y)
    return paddle.stack([_C_ops.sparse_csr_mm(cr, cl, v, y[i])
                         for i, (cr, cl, v) in enumerate(_csr_batches(c))])


def masked_matmul(x, y, mask, name=None):
    """(x @ y) at the stored positions of mask (SDDMM): dense [M, K] x dense [K, N] -> sparse with
    mask's pattern and layout (3-D: a batch of them)."""
    _check_sparse("masked_matmul", mask)
    nd = mask.ndim
    if x.ndim != nd or y.ndim != nd or nd not in (2, 3):
        raise ValueError(f"paddle.sparse.masked_matmul: x, y and mask must all be 2-D or all 3-D, "
                         f"received {x.shape}, {y.shape} and {mask.shape}")
    if x.shape[-1] != y.shape[-2] or mask.shape[-2:] != [x.shape[-2], y.shape[-1]] or \
            (nd == 3 and not x.shape[0] == y.shape[0] == mask.shape[0]):
        raise ValueError(f"paddle.sparse.masked_matmul: expected x [M, K], y [K, N] and mask [M, N] "
                         f"(with one batch dim in front for 3-D), received {x.shape}, {y.shape} and "
                         f"{mask.shape}")
    if x.dtype != y.dtype:
        raise ValueError(f"paddle.sparse.masked_matmul: x and y must have the same dtype, received "
                         f"{x.dtype.name} and {y.dtype.name}")
    c = _as_csr("masked_matmul", mask)
    if nd == 2:
        v = _C_ops.sparse_sddmm(c._crows, c._cols, x, paddle.transpose(y, [1, 0]))
    else:
        parts = [_C_ops.sparse_sddmm(cr, cl, x[i], paddle.transpose(y[i], [1, 0]))
                 for i, (cr, cl, _) in enumerate(_csr_batches(c))]
        v = paddle.concat(parts) if parts else paddle.zeros([0], dtype=x.dtype)
    out = SparseCsrTensor(c._crows, c._cols, v, c._shape)
    return out if isinstance(mask, SparseCsrTensor) else out.to_sparse_coo()


def mv(x, vec, name=None):
    if vec.ndim != 1:
        raise ValueError(f"paddle.sparse.mv: vec must be 1-D, received shape {vec.shape}")
    return matmul(x, vec.reshape([-1, 1])).reshape([-1])


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    return beta * input + alpha * matmul(x, y)


# ---------------- transpose, sum, reshape ----------------
def _coo_reindex(x, new_indices, shape):
    """A COO tensor with x's values at new indices (same nnz), coalesced."""
    return coalesce(SparseCooTensor(new_indices, x._values, shape))


def transpose(x, perm, name=None):
    _check_sparse("transpose", x)
    nd = x.ndim
    perm = [int(p) + nd if int(p) < 0 else int(p) for p in perm]
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"paddle.sparse.transpose: perm must be a permutation of the {nd} dims, "
                         f"received {perm}")
    if isinstance(x, SparseCsrTensor):
        if nd == 3 and perm[0] != 0:
            raise NotImplementedError("paddle.sparse.transpose: a 3-D CSR tensor keeps its batch dim "
                                      "first")
        return transpose(x.to_sparse_coo(), perm).to_sparse_csr()
    sd = x.sparse_dim()
    if perm[sd:] != list(range(sd, nd)):
        raise NotImplementedError("paddle.sparse.transpose: dense dims of a COO tensor cannot be "
                                  "permuted in Paddle-C (convert with to_sparse_coo(ndim) first)")
    shape = [x._shape[p] for p in perm]
    if perm == list(range(nd)):
        return x
    idx = paddle.gather(x._indices, paddle.to_tensor(perm[:sd], dtype="int64"), axis=0)
    return _coo_reindex(x, idx, shape)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """Sum of a sparse tensor: a sparse tensor of the same layout (Paddle 2.6)."""
    _check_sparse("sum", x)
    v = x._values if dtype is None else x._values.astype(dtype)
    nd = x.ndim
    if isinstance(x, SparseCsrTensor):
        if axis is None:
            tot = paddle.sum(v).reshape([1])
            shape = [1] * nd
            return SparseCsrTensor(paddle.to_tensor([0, 1], dtype="int64"),
                                   paddle.zeros([1], dtype="int64"), tot, shape)
        if axis not in (-1, nd - 1):
            raise NotImplementedError("paddle.sparse.sum: a CSR tensor sums over axis None or -1 only "
                                      "(as Paddle)")
        s = sum(x.to_sparse_coo(), axis=-1, dtype=dtype, keepdim=True)
        return s.to_sparse_csr()
    if axis is None:
        tot = paddle.sum(v).reshape([1])
        if keepdim:
            return SparseCooTensor(paddle.zeros([nd, 1], dtype="int64"), tot, [1] * nd, coalesced=True)
        return SparseCooTensor(paddle.zeros([1, 1], dtype="int64"), tot, [1], coalesced=True)
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    axes = sorted({int(a) + nd if int(a) < 0 else int(a) for a in axes})
    if any(a < 0 or a >= nd for a in axes):
        raise ValueError(f"paddle.sparse.sum: axis {axis} out of range for a {nd}-D tensor")
    sd = x.sparse_dim()
    dense_axes = [a - sd + 1 for a in axes if a >= sd]
    if dense_axes:
        v = paddle.sum(v, axis=dense_axes, keepdim=keepdim)
    sp_axes = [a for a in axes if a < sd]
    shape = [1 if a in axes else s for a, s in enumerate(x._shape)] if keepdim else \
        [s for a, s in enumerate(x._shape) if a not in axes]
    if not sp_axes:
        return SparseCooTensor(x._indices, v, shape, x._coalesced)
    if keepdim:
        keep = paddle.to_tensor([d for d in range(sd)], dtype="int64")
        mask = paddle.to_tensor([0 if d in sp_axes else 1 for d in range(sd)], dtype="int64").reshape([-1, 1])
        idx = paddle.gather(x._indices, keep, axis=0) * mask
    elif len(sp_axes) == sd:
        # every sparse dim summed away: the dense remainder (its sum over the stored entries)
        # becomes a COO tensor again with one sparse dim (a COO tensor needs one)
        tot = paddle.sum(v, axis=0)
        if not shape:
            return SparseCooTensor(paddle.zeros([1, 1], dtype="int64"), tot.reshape([1]), [1],
                                   coalesced=True)
        from .tensor import _dense_to_sparse_coo
        return _dense_to_sparse_coo(tot, 1)
    else:
        keep = paddle.to_tensor([d for d in range(sd) if d not in sp_axes], dtype="int64")
        idx = paddle.gather(x._indices, keep, axis=0)
    return _coo_reindex(SparseCooTensor(x._indices, v, x._shape), idx, shape)


def reshape(x, shape, name=None):
    """Reshape of the sparse dims of a COO tensor through the linear index (CSR via COO)."""
    _check_sparse("reshape", x)
    if isinstance(x, SparseCsrTensor):
        return reshape(x.to_sparse_coo(), shape).to_sparse_csr()
    sd = x.sparse_dim()
    if sd != x.ndim:
        raise NotImplementedError("paddle.sparse.reshape: COO tensors with dense dims are not supported "
                                  "in Paddle-C")
    shape = [int(s) for s in shape]
    total = x.size
    if shape.count(-1) > 1:
        raise ValueError(f"paddle.sparse.reshape: at most one -1 in shape, received {shape}")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        shape[shape.index(-1)] = total // known if known else 0
    if int(np.prod(shape, dtype=np.int64)) != total:
        raise ValueError(f"paddle.sparse.reshape: cannot reshape {x.shape} into {shape}")
    ix = x._indices.numpy()
    lin = np.ravel_multi_index(tuple(ix), x._shape) if ix.shape[1] else np.zeros(0, np.int64)
    new = np.stack(np.unravel_index(lin, shape)) if ix.shape[1] else np.zeros((len(shape), 0), np.int64)
    return _coo_reindex(x, paddle.to_tensor(new.astype(np.int64)), shape)


from . import nn  # noqa: E402
from . import functional  # noqa: E402  (Paddle 2.3's paddle.sparse.functional)
from . import layer  # noqa: E402  (Paddle 2.3's paddle.sparse.layer)
from .nn import ReLU  # noqa: E402
