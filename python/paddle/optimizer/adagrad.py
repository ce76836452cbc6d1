"""paddle.optimizer.Adagrad (one fused adagrad_ kernel per parameter):
moment += g^2;  param -= lr * g / (sqrt(moment) + epsilon)."""
from .. import _C_ops
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (accumulator: moment, starting at initial_accumulator_value)."""

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if epsilon is None:
            raise ValueError("epsilon is not set")
        self._epsilon = float(epsilon)
        self._initial = float(initial_accumulator_value)
        self._defaults = {"epsilon": float(epsilon)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        return ((self._add_accumulator("moment", p, fill_value=self._initial),), None)

    def _apply(self, p, g, lr, l1, l2, group):
        (m,), _ = self._plan(p)
        _C_ops.adagrad_(p, g, m, lr, float(group["epsilon"]), None, l1, l2, self._lr_t, self._skip_t)
