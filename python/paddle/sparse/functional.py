"""paddle.sparse.functional: Paddle 2.3's name of paddle.sparse.nn.functional."""
from .nn.functional import leaky_relu, relu, relu6, softmax  # noqa: F401

__all__ = ["relu"]
