"""Orthogonal initializer: a (semi-)orthogonal matrix from the QR factorisation of a gaussian
matrix (LAPACK through numpy for this one-off factorisation; paddle.linalg.qr arrives with the
tensor-API issue), scaled by gain and reshaped to the parameter."""
import numpy as np

from ... import _C
from .base import Initializer
from .normal import _gauss


class Orthogonal(Initializer):
    def __init__(self, gain=1.0, name=None):
        self._gain = gain

    def _value(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the parameter needs at least 2 dims, received {shape}")
        rows = shape[0]
        cols = int(np.prod(shape[1:]))
        g = np.array(memoryview(_gauss([max(rows, cols), min(rows, cols)], _C.dtypes[9], 0.0, 1.0)))
        q, r = np.linalg.qr(g)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        w = (self._gain * q[:rows, :cols]).reshape(shape).astype(np.float64)
        return _C._C_ops.cast(_C.from_buffer(np.ascontiguousarray(w)), dtype)


__all__ = ["Orthogonal"]
