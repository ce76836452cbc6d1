"""Assign initializer: copies a given value (numpy array, list, scalar or Tensor)."""
import numpy as np

from ... import _C
from .base import Initializer


class Assign(Initializer):
    def __init__(self, value, name=None):
        self._value_src = value

    def __call__(self, param, block=None):
        """A value of another shape gives the parameter that shape (as Paddle does)."""
        v = self._value_src
        shape = list(v.shape) if isinstance(v, _C.Tensor) else list(np.shape(v))
        if shape != list(param.shape):
            from ... import no_grad
            with no_grad():
                param._set_view_of(self._value(shape, param.dtype).clone())
            return param
        return super().__call__(param, block)

    def _value(self, shape, dtype):
        from ...tensor.to_tensor import to_tensor
        v = self._value_src
        t = v if isinstance(v, _C.Tensor) else to_tensor(np.asarray(v))
        if list(t.shape) != list(shape):
            raise ValueError(f"Assign initializer: the value has shape {t.shape}, the parameter {shape}")
        return _C._C_ops.cast(t, dtype)


NumpyArrayInitializer = Assign
__all__ = ["Assign"]
