"""Constant initializer."""
from ... import _C
from .base import Initializer


class Constant(Initializer):
    def __init__(self, value=0.0):
        self._v = value

    def _value(self, shape, dtype):
        return _C._C_ops.full(shape, self._v, dtype)


ConstantInitializer = Constant
__all__ = ["Constant"]
