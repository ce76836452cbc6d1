"""paddle.optimizer.SGD: param = param - lr * grad (one fused sgd_ kernel per parameter). A
row-sparse gradient (Embedding(sparse=True)) moves only its rows (sgd_sparse_), as Paddle's
SelectedRows SGD kernel does; with weight decay it is densified first (optimizer.py)."""
from .. import _C_ops
from ..framework.sparse_grad import RowSparseGrad
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent."""

    _sparse_update = True

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        self._multi_precision = bool(multi_precision)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        return ((), self._create_master_weight(p) if self._use_master(p) else None)

    def _apply(self, p, g, lr, l1, l2, group):
        _, master = self._plan(p)
        if type(g) is RowSparseGrad:
            if master is None:
                _C_ops.sgd_sparse_(p, g.rows, g.values, lr)
                return
            g = g.to_dense()
        _C_ops.sgd_(p, g, lr, master, l1, l2, self._lr_t, self._skip_t)
