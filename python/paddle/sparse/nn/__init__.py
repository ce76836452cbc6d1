"""paddle.sparse.nn: activation layers over sparse tensors (ReLU, ReLU6, LeakyReLU, Softmax)."""
from paddle.nn import Layer

from . import functional

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax"]


class ReLU(Layer):
    """max(x, 0) on the stored values of a sparse tensor."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return functional.relu(x, self._name)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


class ReLU6(Layer):
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return functional.relu6(x, self._name)


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope
        self._name = name

    def forward(self, x):
        return functional.leaky_relu(x, self._negative_slope, self._name)


class Softmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    def forward(self, x):
        return functional.softmax(x, self._axis, self._name)
