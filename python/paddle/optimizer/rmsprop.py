"""paddle.optimizer.RMSProp (one fused rmsprop_ kernel per parameter):
ms = rho ms + (1-rho) g^2;  centered: mg = rho mg + (1-rho) g, denominator ms - mg^2;
mom = momentum mom + lr g / sqrt(denominator + eps);  param -= mom."""
from .. import _C_ops
from .optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """RMSProp (accumulators: momentum, mean_square, mean_grad)."""

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if momentum is None:
            raise ValueError("momentum is not set.")
        if not 0.0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        if not 0.0 <= momentum:
            raise ValueError("Invalid value of momentum, expect momentum >= 0.")
        if not 0.0 <= rho:
            raise ValueError("Invalid value of rho, expect rho >= 0.")
        self._rho, self._epsilon, self._momentum = float(rho), float(epsilon), float(momentum)
        self._centered = bool(centered)
        self._defaults = {"rho": float(rho), "epsilon": float(epsilon), "momentum": float(momentum),
                          "centered": bool(centered)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, p):
        mom = self._add_accumulator("momentum", p)
        ms = self._add_accumulator("mean_square", p)
        mg = self._add_accumulator("mean_grad", p)
        return ((ms, mg, mom), None)

    def _apply(self, p, g, lr, l1, l2, group):
        (ms, mg, mom), _ = self._plan(p)
        _C_ops.rmsprop_(p, g, ms, mg, mom, lr, group["rho"], group["epsilon"], group["momentum"],
                        group["centered"], None, l1, l2, self._lr_t, self._skip_t)
