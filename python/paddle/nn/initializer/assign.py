"""Assign initializer: copies a given value (numpy array, list, scalar or Tensor)."""
import numpy as np

from ... import _C
from .base import Initializer


class Assign(Initializer):
    def __init__(self, value, name=None):
        self._value_src = value

    def _value(self, shape, dtype):
        from ...tensor.to_tensor import to_tensor
        v = self._value_src
        t = v if isinstance(v, _C.Tensor) else to_tensor(np.asarray(v))
        if list(t.shape) != list(shape):
            raise ValueError(f"Assign initializer: the value has shape {t.shape}, the parameter {shape}")
        return _C._C_ops.cast(t, dtype)


NumpyArrayInitializer = Assign
__all__ = ["Assign"]
