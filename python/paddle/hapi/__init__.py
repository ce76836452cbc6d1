"""paddle.hapi: the high-level API (Model, summary, flops, callbacks)."""
from . import callbacks  # noqa: F401
from .model import Model  # noqa: F401
from .model_summary import flops, summary  # noqa: F401

__all__ = ["Model", "summary", "flops"]
