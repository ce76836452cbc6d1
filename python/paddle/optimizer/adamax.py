"""paddle.optimizer.Adamax (one fused adamax_ kernel per parameter):
m = b1 m + (1-b1) g;  u = max(b2 u + eps, |g|);  param -= lr / (1-b1^t) * m / u."""
from .. import _C_ops
from .adam import _check_betas
from .optimizer import Optimizer, _scalar

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (accumulators: moment, inf_norm, beta1_pow_acc)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        _check_betas(beta1, beta2, epsilon)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._defaults = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        m = self._add_accumulator("moment", p)
        u = self._add_accumulator("inf_norm", p)
        b1 = self._add_accumulator("beta1_pow_acc", p, fill_value=float(_scalar(self._beta1)), shape=[1])
        return ((m, u, b1), None)

    def _apply(self, p, g, lr, l1, l2, group):
        (m, u, b1), _ = self._plan(p)
        _C_ops.adamax_(p, g, m, u, b1, lr, float(_scalar(group["beta1"])),
                       float(_scalar(group["beta2"])), float(_scalar(group["epsilon"])), None, l1, l2,
                       self._lr_t, self._skip_t)
