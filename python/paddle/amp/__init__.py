"""paddle.amp: automatic mixed precision. auto_cast (the op runner casts each op's inputs by
Paddle's white/black lists), decorate (pure low-precision parameters with float32 master
weights) and GradScaler (dynamic loss scaling). See docs/architecture.md, "Mixed precision"."""
from .auto_cast import auto_cast, decorate  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["auto_cast", "GradScaler", "decorate"]
