"""paddle.static.InputSpec: the shape/dtype/name of a program input (paddle.jit's signatures,
paddle.Model's inputs)."""
import numpy as np

from .. import _C

Tensor = _C.Tensor


class InputSpec:
    """Describes an input: shape (None or -1 for any size), dtype, name, stop_gradient."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        from ..framework.dtype import convert_dtype
        self.shape = self._check_shape(shape)
        self.dtype = _C.dtypes[_dtype_code(convert_dtype(dtype))] if dtype is not None else None
        self.name = name
        self.stop_gradient = stop_gradient

    @staticmethod
    def _check_shape(shape):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape must be a list or tuple, received {type(shape).__name__}")
        out = []
        for s in shape:
            if s is None:
                out.append(-1)
            elif isinstance(s, (int, np.integer)) and not isinstance(s, bool):
                if s < -1:
                    raise ValueError(f"InputSpec: a dimension must be >= -1 or None, received {s}")
                out.append(int(s))
            else:
                raise ValueError(f"InputSpec: a dimension must be an int or None, received {s!r}")
        return tuple(out)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not isinstance(tensor, Tensor):
            raise ValueError(f"InputSpec.from_tensor expects a Tensor, received {type(tensor).__name__}")
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, str(ndarray.dtype), name)

    def batch(self, batch_size):
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError("InputSpec.batch: batch_size must be an int or a list of one int")
            batch_size = batch_size[0]
        if not isinstance(batch_size, int):
            raise TypeError(f"InputSpec.batch: batch_size must be an int, received {type(batch_size).__name__}")
        self.shape = (batch_size,) + tuple(self.shape)
        return self

    def unbatch(self):
        if len(self.shape) == 0:
            raise ValueError("InputSpec.unbatch: the shape has no batch dimension")
        self.shape = tuple(self.shape[1:])
        return self

    def _create_feed_layer(self):
        from .framework import data
        return data(self.name, list(self.shape), self.dtype)

    def __repr__(self):
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, stop_gradient={self.stop_gradient})"

    def __eq__(self, other):
        return (type(self) is type(other) and self.shape == other.shape and self.dtype == other.dtype
                and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, str(self.dtype), self.name))


def _dtype_code(name):
    for i, d in enumerate(_C.dtypes):
        if d.name == name:
            return i
    raise ValueError(f"unknown dtype {name}")
