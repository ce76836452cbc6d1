"""paddle.incubate: experimental APIs (2.3): the autograd module for now."""
from . import autograd  # noqa: F401

__all__ = []
