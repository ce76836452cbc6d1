"""Xavier (Glorot) initializers: uniform limit gain*sqrt(6/(fan_in+fan_out)), normal std
gain*sqrt(2/(fan_in+fan_out)); fans from the shape as Paddle computes them ([in, out] for 2-D
weights, [out_c, in_c, *k] for convolutions)."""
import math

from .base import Initializer, _compute_fans
from .normal import _gauss
from .uniform import _unif


class XavierUniform(Initializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self._fi, self._fo, self._gain = fan_in, fan_out, gain

    def _value(self, shape, dtype):
        fi, fo = _compute_fans(shape)
        fi = self._fi if self._fi is not None else fi
        fo = self._fo if self._fo is not None else fo
        limit = self._gain * math.sqrt(6.0 / float(fi + fo)) if fi + fo > 0 else 0.0
        return _unif(shape, dtype, -limit, limit)


class XavierNormal(Initializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self._fi, self._fo, self._gain = fan_in, fan_out, gain

    def _value(self, shape, dtype):
        fi, fo = _compute_fans(shape)
        fi = self._fi if self._fi is not None else fi
        fo = self._fo if self._fo is not None else fo
        std = self._gain * math.sqrt(2.0 / float(fi + fo)) if fi + fo > 0 else 0.0
        return _gauss(shape, dtype, 0.0, std)


XavierInitializer = XavierUniform
__all__ = ["XavierUniform", "XavierNormal"]
