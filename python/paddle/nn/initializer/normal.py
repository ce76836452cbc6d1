"""Normal and TruncatedNormal initializers (the gaussian and truncated_gaussian ops on the global
generator: after paddle.seed they draw real Paddle's values)."""
from ... import _C
from .base import Initializer, _program_seed

_ops = _C._C_ops


def _gauss(shape, dtype, mean, std):
    if dtype.name in ("float16", "bfloat16"):
        f = _ops.gaussian(shape, float(mean), float(std), _program_seed(), _C.dtypes[8])
        return _ops.cast(f, dtype)
    return _ops.gaussian(shape, float(mean), float(std), _program_seed(), dtype)


class Normal(Initializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        self._mean, self._std = mean, std  # std is checked when sampling (Paddle accepts it here)

    def _value(self, shape, dtype):
        return _gauss(shape, dtype, self._mean, self._std)


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to [mean - 2 std, mean + 2 std] (inverse-CDF sampling)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self._mean, self._std = mean, std  # std is checked when sampling (Paddle accepts it here)

    def _value(self, shape, dtype):
        # Paddle's truncated_gaussian_random: float32/float64 kernels (16-bit types via float32)
        dt = dtype if dtype.name in ("float32", "float64") else _C.dtypes[8]
        v = _ops.truncated_gaussian(shape, float(self._mean), float(self._std), _program_seed(), dt)
        return v if dt is dtype else _ops.cast(v, dtype)


NormalInitializer = Normal
TruncatedNormalInitializer = TruncatedNormal
__all__ = ["Normal", "TruncatedNormal"]
