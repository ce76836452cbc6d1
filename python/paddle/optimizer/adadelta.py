"""paddle.optimizer.Adadelta (one fused adadelta_ kernel per parameter):
E[g^2] = rho E[g^2] + (1-rho) g^2;  d = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) * g;
E[dx^2] = rho E[dx^2] + (1-rho) d^2;  param += lr * d.  Paddle 2.3's update does not use the
learning rate (param += d; Paddle 2.5 added it): at the default API level (FLAGS_set_to_1d on,
Paddle 2.3) lr is 1 here and learning_rate is only reported by get_lr; with FLAGS_set_to_1d off
(Paddle 2.6) the update is scaled by it."""
from .. import _C, _C_ops
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (accumulators: _avg_squared_grad, _avg_squared_update)."""

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        self._epsilon, self._rho = float(epsilon), float(rho)
        self._defaults = {"epsilon": float(epsilon), "rho": float(rho)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        return ((self._add_accumulator("_avg_squared_grad", p),
                 self._add_accumulator("_avg_squared_update", p)), None)

    def _apply(self, p, g, lr, l1, l2, group):
        (eg, ex), _ = self._plan(p)
        if _C.set_to_1d():  # Paddle 2.3: no learning rate in the update
            lr, lr_t = 1.0, None
        else:
            lr, lr_t = float(lr), self._lr_t
        _C_ops.adadelta_(p, g, eg, ex, float(group["rho"]), float(group["epsilon"]), None, l1, l2,
                         self._skip_t, lr, lr_t)
