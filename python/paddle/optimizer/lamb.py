"""paddle.optimizer.Lamb (one fused lamb_ kernel per parameter): Adam moments with bias
correction, r = m1_hat / (sqrt(m2_hat) + eps) + wd * param, param -= lr * (|param| / |r|) * r.
exclude_from_weight_decay_fn(param) True sets wd = 0 for that parameter."""
from .. import _C_ops
from .adam import _check_betas
from .optimizer import Optimizer, _scalar

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """LAMB (accumulators: moment1, moment2, beta1_pow_acc, beta2_pow_acc)."""

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        _check_betas(beta1, beta2, epsilon)
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("exclude_from_weight_decay_fn should be a callable or None")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay = float(lamb_weight_decay)
        self._exclude_fn = exclude_from_weight_decay_fn
        self._multi_precision = bool(multi_precision)
        self._defaults = {"beta1": beta1, "beta2": beta2, "epsilon": epsilon,
                          "lamb_weight_decay": float(lamb_weight_decay)}
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _create_accumulators(self, p):
        m1 = self._add_accumulator("moment1", p)
        m2 = self._add_accumulator("moment2", p)
        b1 = self._add_accumulator("beta1_pow_acc", p, fill_value=float(_scalar(self._beta1)), shape=[1])
        b2 = self._add_accumulator("beta2_pow_acc", p, fill_value=float(_scalar(self._beta2)), shape=[1])
        return ((m1, m2, b1, b2), self._create_master_weight(p) if self._use_master(p) else None)

    def _apply(self, p, g, lr, l1, l2, group):
        (m1, m2, b1, b2), master = self._plan(p)
        wd = group["lamb_weight_decay"]
        if self._exclude_fn is not None and self._exclude_fn(p):
            wd = 0.0
        _C_ops.lamb_(p, g, m1, m2, b1, b2, lr, wd, float(_scalar(group["beta1"])),
                     float(_scalar(group["beta2"])), float(_scalar(group["epsilon"])), master, l1, l2,
                     self._lr_t, self._skip_t)
