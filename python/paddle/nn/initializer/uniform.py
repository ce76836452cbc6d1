"""Uniform initializer."""
from ... import _C
from .base import Initializer, _program_seed

_ops = _C._C_ops


def _unif(shape, dtype, lo, hi):
    if dtype.name in ("float16", "bfloat16"):
        return _ops.cast(_ops.uniform(shape, _C.dtypes[8], float(lo), float(hi), _program_seed()), dtype)
    return _ops.uniform(shape, dtype, float(lo), float(hi), _program_seed())


class Uniform(Initializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        if low > high:
            raise ValueError(f"Uniform: low must be <= high, received {low} > {high}")
        self._lo, self._hi = low, high

    def _value(self, shape, dtype):
        return _unif(shape, dtype, self._lo, self._hi)


UniformInitializer = Uniform
__all__ = ["Uniform"]
