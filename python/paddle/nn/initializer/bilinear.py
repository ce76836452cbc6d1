"""Bilinear initializer (Paddle 2.3's paddle.nn.initializer.Bilinear) for 4-D transposed
convolution weights [C_out, C_in, K, K]: an upsampling kernel. Element i (row-major) takes
(1 - |x/f - c|) (1 - |y/f - c|) with x = i % K, f = ceil(K / 2), c = (2f - 1 - f % 2) / (2f)
and y = (i / K) % K computed with true division, exactly as Paddle does."""
import numpy as np

from ... import _C
from .base import Initializer


class Bilinear(Initializer):
    def __init__(self, name=None):
        self._name = name

    def _value(self, shape, dtype):
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the length of shape must be 4, received shape {shape}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: shape[2] must be equal to shape[3], received shape {shape}")
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        x = i % size
        y = (i / size) % size
        w = ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32).reshape(shape)
        return _C._C_ops.cast(_C.from_buffer(np.ascontiguousarray(w)), dtype)


__all__ = ["Bilinear"]
