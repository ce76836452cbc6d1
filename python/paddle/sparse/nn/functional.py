"""paddle.sparse.nn.functional (Paddle 2.6; 2.3 called it paddle.sparse.functional): activations
applied to the stored values of a sparse tensor (each maps 0 to 0, so the pattern is unchanged),
and softmax over the stored entries of each row of a CSR tensor."""
import numpy as np

import paddle

from ..tensor import SparseCooTensor, SparseCsrTensor, _SparseBase

__all__ = ["relu", "relu6", "leaky_relu", "softmax"]


def _check(fn, x):
    if not isinstance(x, _SparseBase):
        raise TypeError(f"paddle.sparse.nn.functional.{fn} expects a sparse tensor, received "
                        f"{type(x).__name__}")


def relu(x, name=None):
    _check("relu", x)
    return x._with_values(paddle.nn.functional.relu(x._values))


def relu6(x, name=None):
    _check("relu6", x)
    return x._with_values(paddle.nn.functional.relu6(x._values))


def leaky_relu(x, negative_slope=0.01, name=None):
    _check("leaky_relu", x)
    return x._with_values(paddle.nn.functional.leaky_relu(x._values, negative_slope))


def softmax(x, axis=-1, name=None):
    """Softmax over the stored entries of each row (the last axis); missing entries stay absent."""
    _check("softmax", x)
    if axis not in (-1, x.ndim - 1):
        raise NotImplementedError("paddle.sparse.nn.functional.softmax supports axis=-1 only (as Paddle)")
    was_coo = isinstance(x, SparseCooTensor)
    c = x.to_sparse_csr() if was_coo else x
    if not isinstance(c, SparseCsrTensor):
        raise TypeError("softmax expects a COO or CSR tensor")
    # row id of each stored entry (batch folded into rows), then a numerically stable segmented
    # softmax with dense differentiable ops on the values
    idx = c._coo_indices()
    shape = c.shape
    rows = idx[-2] if c.ndim == 2 else idx[0] * shape[1] + idx[1]
    nrows = shape[-2] * (shape[0] if c.ndim == 3 else 1)
    v = c._values
    if v.shape[0] == 0:
        return x
    r2 = rows.reshape([-1, 1])
    # the row max is a constant shift (softmax is invariant to it), so it is computed off the graph
    vn, rn = v.numpy(), rows.numpy()
    rmax = np.full(nrows, -np.inf, dtype=vn.dtype)
    np.maximum.at(rmax, rn, vn)
    rmax = paddle.to_tensor(rmax)
    e = paddle.exp(v - paddle.gather(rmax, rows))
    den = paddle.scatter_nd_add(paddle.zeros([nrows], dtype=v.dtype), r2, e)
    out = c._with_values(e / paddle.gather(den, rows))
    return out.to_sparse_coo() if was_coo else out
