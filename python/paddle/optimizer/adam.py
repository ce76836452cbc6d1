"""paddle.optimizer.Adam, as Paddle 2.3 computes it (one fused adam_ kernel per parameter):
m1 = b1 m1 + (1-b1) g;  m2 = b2 m2 + (1-b2) g^2;  lr_t = lr sqrt(1-b2^t) / (1-b1^t);
param -= lr_t m1 / (sqrt(m2) + eps sqrt(1-b2^t)).  weight_decay is L2/L1 regularisation added to
the gradient. lazy_mode matters for row-sparse gradients only (Embedding(sparse=True); Paddle's
SelectedRows): adam_sparse_ then updates the moments and parameters of the gradient's rows alone
(rows not looked up keep their moments and values); without lazy_mode every row is updated with
a zero gradient where the row-sparse one has none (the moments of all rows decay), which is what
a dense gradient gives. With weight decay the gradient is densified first, as in Paddle
(optimizer.py), so lazy_mode then has no effect."""
from .. import _C_ops
from ..framework.sparse_grad import RowSparseGrad
from .optimizer import Optimizer, _scalar

__all__ = ["Adam"]


def _check_betas(beta1, beta2, epsilon):
    for n, v in (("beta1", beta1), ("beta2", beta2)):
        if v is None:
            raise ValueError(f"{n} is not set.")
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            v = _scalar(v)
        if not 0 <= v < 1:
            raise ValueError(f"Invaild value of {n}, expect {n} in [0,1).")
    if epsilon is None:
        raise ValueError("epsilon is not set.")
    if not 0 <= _scalar(epsilon):
        raise ValueError("Invaild value of epsilon, expect epsilon >= 0.")


class Adam(Optimizer):
    """Adam (accumulators: moment1, moment2, beta1_pow_acc, beta2_pow_acc)."""

    _sparse_update = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        _check_betas(beta1, beta2, epsilon)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = bool(lazy_mode)
        self._multi_precision = bool(multi_precision)
        self._defaults = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon,
                          "lazy_mode": bool(lazy_mode)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        m1 = self._add_accumulator("moment1", p)
        m2 = self._add_accumulator("moment2", p)
        b1 = self._add_accumulator("beta1_pow_acc", p, fill_value=float(_scalar(self._beta1)), shape=[1])
        b2 = self._add_accumulator("beta2_pow_acc", p, fill_value=float(_scalar(self._beta2)), shape=[1])
        return ((m1, m2, b1, b2), self._create_master_weight(p) if self._use_master(p) else None)

    def _decay(self, p, lr, group):
        """(lr, decoupled decay coefficient) for p: AdamW overrides."""
        return lr, 0.0

    def _apply(self, p, g, lr, l1, l2, group):
        (m1, m2, b1, b2), master = self._plan(p)
        lr, coeff = self._decay(p, lr, group)
        if type(g) is RowSparseGrad:
            if master is None:
                _C_ops.adam_sparse_(p, g.rows, g.values, m1, m2, b1, b2, lr,
                                    float(_scalar(group["beta1"])), float(_scalar(group["beta2"])),
                                    float(_scalar(group["epsilon"])), group["lazy_mode"], coeff)
                return
            g = g.to_dense()
        _C_ops.adam_(p, g, m1, m2, b1, b2, lr, float(_scalar(group["beta1"])),
                     float(_scalar(group["beta2"])), float(_scalar(group["epsilon"])),
                     group["lazy_mode"], coeff, master, l1, l2, self._lr_t, self._skip_t)
