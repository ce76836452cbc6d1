"""paddle.nn.initializer: parameter initializers (gathered from initializer/*.py)."""
from .._autoload import gather

__all__ = gather(__name__, ["base", "constant", "normal", "uniform", "xavier", "kaiming",
                            "assign", "orthogonal", "dirac", "bilinear"], globals())
