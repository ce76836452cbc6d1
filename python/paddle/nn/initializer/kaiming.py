"""Kaiming (He) initializers: normal std gain/sqrt(fan_in), uniform limit gain*sqrt(3/fan_in),
gain from calculate_gain(nonlinearity, negative_slope)."""
import math

from .base import Initializer, _compute_fans, calculate_gain
from .normal import _gauss
from .uniform import _unif


class KaimingNormal(Initializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self._fi, self._slope, self._nl = fan_in, negative_slope, nonlinearity

    def _value(self, shape, dtype):
        fi = self._fi if self._fi is not None else _compute_fans(shape)[0]
        std = calculate_gain(self._nl, self._slope) / math.sqrt(float(fi)) if fi > 0 else 0.0
        return _gauss(shape, dtype, 0.0, std)


class KaimingUniform(Initializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self._fi, self._slope, self._nl = fan_in, negative_slope, nonlinearity

    def _value(self, shape, dtype):
        fi = self._fi if self._fi is not None else _compute_fans(shape)[0]
        limit = calculate_gain(self._nl, self._slope) * math.sqrt(3.0 / float(fi)) if fi > 0 else 0.0
        return _unif(shape, dtype, -limit, limit)


MSRAInitializer = KaimingNormal
__all__ = ["KaimingNormal", "KaimingUniform"]
