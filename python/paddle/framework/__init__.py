"""paddle.framework: dtypes, default dtype, places, seeds (2.3's __all__ here is empty)."""
from .dtype import (convert_dtype, dtype, get_default_dtype, is_float_dtype,  # noqa: F401
                    is_int_dtype, set_default_dtype, to_numpy_dtype)

__all__ = []


def use_pir_api():
    """Paddle 2.6: whether programs use PIR, its new IR. Paddle-C's static programs are
    ProgramDesc-shaped (Paddle 2.3's IR), so this is False, as in Paddle 2.6 by default."""
    return False


def in_dynamic_mode():
    """Paddle 2.6's paddle.framework.in_dynamic_mode: True unless paddle.enable_static() is on."""
    from ..static.framework import in_dynamic_mode as _f
    return _f()


def in_pir_mode():
    """Paddle 2.6: static mode recording PIR programs; never here (use_pir_api() is False)."""
    return False


def in_dynamic_or_pir_mode():
    """Paddle 2.6: dygraph, or static mode with PIR; with PIR off, the same as in_dynamic_mode."""
    return in_dynamic_mode()


def __getattr__(name):  # paddle.framework.core (Paddle 2.6), without importing it at start-up
    if name == "core":
        from ..base import core
        return core
    raise AttributeError(f"module 'paddle.framework' has no attribute '{name}'")


from . import random  # noqa: E402,F401  (Paddle 2.6: paddle.framework.random)
from .param_attr import ParamAttr  # noqa: E402,F401
