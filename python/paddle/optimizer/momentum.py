"""paddle.optimizer.Momentum: velocity = mu * velocity + grad; param -= lr * velocity, or
lr * (grad + mu * velocity) with use_nesterov (one fused momentum_ kernel per parameter)."""
from .. import _C_ops
from .optimizer import Optimizer, _scalar

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """Momentum SGD (accumulator: velocity)."""

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if momentum is None:
            raise ValueError("momentum is not set")
        self._defaults = {"momentum": momentum, "use_nesterov": bool(use_nesterov),
                          "rescale_grad": float(rescale_grad)}
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)
        self._multi_precision = bool(multi_precision)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        v = self._add_accumulator("velocity", p)
        return ((v,), self._create_master_weight(p) if self._use_master(p) else None)

    def _apply(self, p, g, lr, l1, l2, group):
        (v,), master = self._plan(p)
        _C_ops.momentum_(p, g, v, lr, float(_scalar(group["momentum"])), group["use_nesterov"],
                         group["rescale_grad"], master, l1, l2, self._lr_t, self._skip_t)
