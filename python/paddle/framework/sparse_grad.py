"""RowSparseGrad: how the optimizers and the gradient clippers see a row-sparse gradient (Paddle's
SelectedRows, made by Embedding(sparse=True) / F.embedding(sparse=True)): merged, sorted unique
`rows` (int64 [n]), their `values` ([n, *row shape]) and the dense `shape`.

Users never need it: param.grad always reads as a dense Tensor (the engine densifies on demand,
csrc/autograd/sparse_grad.c; Paddle 2.3's dygraph exposes SelectedRows internals that we do not
mirror). It lives between Optimizer._params_grads and the update kernels, and appears in the
(param, grad) pairs that Optimizer.minimize returns."""
from .._C import _C_ops

__all__ = []


class RowSparseGrad:
    """The gradient sum_k values[k] put at row rows[k] of a tensor of `shape` (rows unique)."""

    __slots__ = ("rows", "values", "shape")

    def __init__(self, rows, values, shape):
        self.rows, self.values, self.shape = rows, values, list(shape)

    @property
    def dtype(self):
        return self.values.dtype

    def with_values(self, values):
        """The same rows with new values (clipping)."""
        return RowSparseGrad(self.rows, values, self.shape)

    def to_dense(self):
        """The dense Tensor equal to this gradient."""
        import paddle
        d = paddle.zeros(self.shape, self.values.dtype)
        _C_ops.selected_rows_add_(d, self.rows, self.values)
        return d

    def __repr__(self):
        return (f"RowSparseGrad(shape={self.shape}, dtype={self.values.dtype}, "
                f"rows={self.rows.numpy().tolist()})")

