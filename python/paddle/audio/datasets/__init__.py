"""paddle.audio.datasets (Paddle 2.6): ESC50, TESS."""
from .esc50 import ESC50  # noqa: F401
from .tess import TESS  # noqa: F401

__all__ = ["ESC50", "TESS"]
