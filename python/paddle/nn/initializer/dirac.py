"""Dirac initializer for convolution weights [out_c, in_c, *k]: an identity mapping per group
(the centre tap of channel i feeds output i)."""
import numpy as np

from ... import _C
from .base import Initializer


class Dirac(Initializer):
    def __init__(self, groups=1, name=None):
        if not isinstance(groups, int) or groups < 1:
            raise ValueError(f"Dirac: groups must be a positive int, received {groups!r}")
        self._groups = groups

    def _value(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: expected a 3-D, 4-D or 5-D convolution weight, received shape {shape}")
        if shape[0] % self._groups:
            raise ValueError("Dirac: out channels must be divisible by groups")
        w = np.zeros(shape, dtype=np.float32)
        per = shape[0] // self._groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self._groups):
            for i in range(min(per, shape[1])):
                w[(g * per + i, i) + centre] = 1.0
        return _C._C_ops.cast(_C.from_buffer(w), dtype)


__all__ = ["Dirac"]
