"""Normal and TruncatedNormal initializers (Philox-backed gaussian op; paddle.seed applies)."""
from ... import _C
from .base import Initializer

_ops = _C._C_ops


def _gauss(shape, dtype, mean, std):
    if dtype.name in ("float16", "bfloat16"):
        f = _ops.gaussian(shape, float(mean), float(std), 0, _C.dtypes[8])
        return _ops.cast(f, dtype)
    return _ops.gaussian(shape, float(mean), float(std), 0, dtype)


class Normal(Initializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        self._mean, self._std = mean, std  # std is checked when sampling (Paddle accepts it here)

    def _value(self, shape, dtype):
        return _gauss(shape, dtype, self._mean, self._std)


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to [mean - 2 std, mean + 2 std] (resampling outliers)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self._mean, self._std = mean, std  # std is checked when sampling (Paddle accepts it here)

    def _value(self, shape, dtype):
        v = _gauss(shape, dtype, self._mean, self._std)
        lo = self._mean - 2 * self._std
        hi = self._mean + 2 * self._std
        for _ in range(64):
            bad = _ops.logical_or(_ops.less_than(v, _ops.full([1], lo, dtype)),
                                  _ops.greater_than(v, _ops.full([1], hi, dtype)))
            if not bool(_ops.any(bad, [], False)):
                return v
            v = _ops.where(bad, _gauss(shape, dtype, self._mean, self._std), v)
        return _ops.clip(v, lo, hi)


NormalInitializer = Normal
TruncatedNormalInitializer = TruncatedNormal
__all__ = ["Normal", "TruncatedNormal"]
