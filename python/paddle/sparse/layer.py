"""paddle.sparse.layer: Paddle 2.3's name of the layers in paddle.sparse.nn."""
from .nn import LeakyReLU, ReLU, ReLU6, Softmax  # noqa: F401

__all__ = ["ReLU"]
