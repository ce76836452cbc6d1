"""paddle.incubate.optimizer: LookAhead and ModelAverage (dynamic mode)."""
from .lookahead import LookAhead  # noqa: F401
from .modelaverage import ModelAverage  # noqa: F401

__all__ = ['LookAhead', 'ModelAverage']
