"""paddle.framework: dtypes, default dtype, places, seeds (2.3's __all__ here is empty)."""
from .dtype import (convert_dtype, dtype, get_default_dtype, is_float_dtype,  # noqa: F401
                    is_int_dtype, set_default_dtype, to_numpy_dtype)

__all__ = []


def use_pir_api():
    """Paddle 2.6: whether programs use PIR, its new IR. Paddle-C's static programs are
    ProgramDesc-shaped (Paddle 2.3's IR), so this is False, as in Paddle 2.6 by default."""
    return False


from . import random  # noqa: E402,F401  (Paddle 2.6: paddle.framework.random)
