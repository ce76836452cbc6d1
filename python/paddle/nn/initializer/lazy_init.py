"""paddle.nn.initializer.lazy_init: LazyGuard (implemented in paddle.framework.lazy_init, which
Parameter and Layer use without importing paddle.nn)."""
from ...framework.lazy_init import LazyGuard  # noqa: F401

__all__ = ["LazyGuard"]
