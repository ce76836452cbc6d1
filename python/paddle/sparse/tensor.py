"""Sparse tensors of paddle.sparse: COO and CSR, each a small Python object holding dense
paddle.Tensors (see docs/arch/ops.md, "Sparse tensors").

- SparseCooTensor: indices int64 [sparse_dim, nnz] and values [nnz, *dense_dims] of a tensor of
  `shape` (sparse dims first). Indices may repeat or be unsorted until coalesce() (duplicates sum).
- SparseCsrTensor: crows int64 [M + 1] (or [B * (M + 1)] for a batch of B matrices, each block
  restarting at 0), cols int64 [nnz] and values [nnz] of a [M, N] or [B, M, N] tensor.

Autograd runs on the values tensor: every sparse op computes its output values from its input
values with differentiable dense ops or the C value ops of ops/sparse_tensor.yaml, so
`stop_gradient`, `grad` and `backward` are the values tensor's (grad comes back as a sparse
tensor of the same pattern, as in Paddle). Index arrays never need gradients."""
import numpy as np

import paddle
from paddle import _C_ops

_DenseTensor = paddle._C.Tensor


def _i64(t):
    if not isinstance(t, _DenseTensor):
        t = paddle.to_tensor(np.asarray(t, dtype=np.int64))
    elif t.dtype != paddle.int64:
        if t.dtype not in (paddle.int32, paddle.int16, paddle.int8, paddle.uint8):
            raise TypeError(f"sparse index tensors must be integers, received {t.dtype.name}")
        t = t.astype("int64")
    return t


class _SparseBase:
    """What COO and CSR share: shape, dtype, autograd through the values tensor, printing."""

    __slots__ = ("_values", "_shape", "__weakref__")

    # ---- Tensor-like attributes ----
    @property
    def shape(self):
        return list(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def size(self):
        return int(np.prod(self._shape, dtype=np.int64))

    def numel(self):
        return self.size

    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, v):
        self._values.stop_gradient = bool(v)

    @property
    def is_leaf(self):
        return self._values.is_leaf

    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def clear_grad(self, set_to_zero=True):
        self._values.clear_grad(set_to_zero)

    clear_gradient = clear_grad

    def backward(self, grad_tensor=None, retain_graph=False):
        if grad_tensor is not None and isinstance(grad_tensor, _SparseBase):
            grad_tensor = grad_tensor.values()
        self._values.backward(grad_tensor, retain_graph)

    def detach(self):
        return self._with_values(self._values.detach())

    def clone(self):
        return self._with_values(self._values.clone())

    def nnz(self):
        return int(self._values.shape[0])

    def values(self):
        return self._values

    def is_sparse(self):
        return True

    def is_dense(self):
        return False

    def astype(self, dtype):
        return self._with_values(self._values.astype(dtype))

    def __getattr__(self, name):
        if hasattr(_DenseTensor, name):
            raise NotImplementedError(
                f"Tensor.{name} is not supported on a sparse {self._layout} tensor in Paddle-C; "
                f"call to_dense() first")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # ---- operators (paddle.sparse's functions) ----
    def __add__(self, y):
        return paddle.sparse.add(self, y)

    def __sub__(self, y):
        return paddle.sparse.subtract(self, y)

    def __mul__(self, y):
        return paddle.sparse.multiply(self, y)

    __rmul__ = __mul__

    def __truediv__(self, y):
        return paddle.sparse.divide(self, y)

    def __neg__(self):
        return paddle.sparse.neg(self)

    def __matmul__(self, y):
        return paddle.sparse.matmul(self, y)

    def _parts_str(self, indent):
        from paddle.tensor.to_string import array_to_str
        out = []
        for name, t in self._parts():
            tag = f"{name}="
            out.append(tag + array_to_str(t.numpy(), indent + len(tag)))
        return out

    def __repr__(self):
        pre = "Tensor("
        ind = len(pre)
        head = (f"{pre}shape={self.shape}, dtype={self.dtype.name}, place={self.place}, "
                f"stop_gradient={self.stop_gradient}, ")
        return head + "\n" + ", \n".join(" " * ind + p for p in self._parts_str(ind)) + ")"

    __str__ = __repr__


class SparseCooTensor(_SparseBase):
    __slots__ = ("_indices", "_coalesced")
    _layout = "COO"

    def __init__(self, indices, values, shape, coalesced=False):
        self._indices = indices
        self._values = values
        self._shape = tuple(int(s) for s in shape)
        self._coalesced = coalesced

    def _with_values(self, v):
        return SparseCooTensor(self._indices, v, self._shape, self._coalesced)

    def _parts(self):
        return [("indices", self._indices), ("values", self._values)]

    def indices(self):
        return self._indices

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return len(self._shape) - self.sparse_dim()

    def is_sparse_coo(self):
        return True

    def is_sparse_csr(self):
        return False

    def is_coalesced(self):
        return self._coalesced

    def coalesce(self):
        return paddle.sparse.coalesce(self)

    def to_dense(self):
        if self.dtype == paddle.bool:  # no bool scatter_nd_add: any stored True wins
            return self._with_values(self._values.astype("int32")).to_dense().astype("bool")
        z = paddle.zeros(self._shape, dtype=self.dtype)
        if self.nnz() == 0:
            return z
        return paddle.scatter_nd_add(z, paddle.transpose(self._indices, [1, 0]), self._values)

    def to_sparse_coo(self, sparse_dim=None):
        if sparse_dim is None or sparse_dim == self.sparse_dim():
            return self
        return self.to_dense().to_sparse_coo(sparse_dim)

    def to_sparse_csr(self):
        nd = len(self._shape)
        if nd not in (2, 3):
            raise ValueError(f"to_sparse_csr: only 2-D and 3-D tensors have a CSR form, this one has "
                             f"shape {self.shape}")
        x = self if self.sparse_dim() == nd else self.to_dense().to_sparse_coo(nd)
        x = paddle.sparse.coalesce(x)
        crows = _C_ops.sparse_coo_to_csr_crows(x._indices, list(self._shape))
        cols = x._indices[nd - 1]
        return SparseCsrTensor(crows, cols, x._values, self._shape)


class SparseCsrTensor(_SparseBase):
    __slots__ = ("_crows", "_cols")
    _layout = "CSR"

    def __init__(self, crows, cols, values, shape):
        self._crows = crows
        self._cols = cols
        self._values = values
        self._shape = tuple(int(s) for s in shape)

    def _with_values(self, v):
        return SparseCsrTensor(self._crows, self._cols, v, self._shape)

    def _parts(self):
        return [("crows", self._crows), ("cols", self._cols), ("values", self._values)]

    def crows(self):
        return self._crows

    def cols(self):
        return self._cols

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return True

    def _coo_indices(self):
        return _C_ops.sparse_csr_to_coo_index(self._crows, self._cols, list(self._shape))

    def to_sparse_coo(self, sparse_dim=None):
        nd = len(self._shape)
        x = SparseCooTensor(self._coo_indices(), self._values, self._shape)
        if sparse_dim is None or sparse_dim == nd:
            return x
        return x.to_dense().to_sparse_coo(sparse_dim)

    def to_sparse_csr(self):
        return self

    def to_dense(self):
        return self.to_sparse_coo().to_dense()


# ---- dense Tensor methods (Paddle's Tensor.to_sparse_coo / to_sparse_csr / is_sparse*) ----
def _dense_to_sparse_coo(self, sparse_dim):
    if not paddle.in_dynamic_mode():
        raise NotImplementedError("Tensor.to_sparse_coo: sparse tensors exist in dynamic (eager) mode "
                                  "only in Paddle-C")
    nd = self.ndim
    if not isinstance(sparse_dim, (int, np.integer)) or not 1 <= sparse_dim <= nd:
        raise ValueError(f"to_sparse_coo: sparse_dim must be in [1, {nd}] for a {nd}-D tensor, "
                         f"received {sparse_dim}")
    sparse_dim = int(sparse_dim)
    mask = self != 0
    if sparse_dim < nd:
        mask = paddle.any(mask, axis=list(range(sparse_dim, nd)))
    pos = paddle.nonzero(mask)  # [nnz, sparse_dim], row-major order: already coalesced
    values = paddle.gather_nd(self, pos) if pos.shape[0] else \
        paddle.zeros([0] + list(self.shape[sparse_dim:]), dtype=self.dtype)
    return SparseCooTensor(paddle.transpose(pos, [1, 0]), values, self.shape, coalesced=True)


def _dense_to_sparse_csr(self):
    if self.ndim not in (2, 3):
        raise ValueError(f"to_sparse_csr: only 2-D and 3-D tensors have a CSR form, this one has "
                         f"shape {self.shape}")
    return _dense_to_sparse_coo(self, self.ndim).to_sparse_csr()


def _install_dense_methods():
    T = _DenseTensor
    T.to_sparse_coo = _dense_to_sparse_coo
    T.to_sparse_csr = _dense_to_sparse_csr
    T.is_sparse = lambda self: False
    T.is_sparse_coo = lambda self: False
    T.is_sparse_csr = lambda self: False
    if not hasattr(T, "is_dense"):
        T.is_dense = lambda self: True
