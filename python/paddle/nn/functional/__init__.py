"""paddle.nn.functional: one module per family (activation, loss, conv, pooling, norm, common,
input, vision, extension), gathered here."""
from .._autoload import gather

_FAMILIES = ["activation", "loss", "loss26", "conv", "pooling", "norm", "common", "input", "vision",
             "extension", "distance", "sparse_attention", "flash_attention"]
__all__ = gather(__name__, _FAMILIES, globals())
