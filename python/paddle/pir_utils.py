"""paddle.pir_utils (Paddle 2.6): switches between its two static-graph representations (the legacy
ProgramDesc and the new PIR). Paddle-C has one program representation (csrc/graph), so IrGuard
changes nothing and test_with_pir_api runs the decorated test twice, as Paddle does (once per IR)."""
from functools import wraps


class IrGuard:
    """Context manager of Paddle 2.6 that enables PIR inside it; Paddle-C has a single IR."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_with_pir_api(func):
    @wraps(func)
    def impl(*args, **kwargs):
        func(*args, **kwargs)
        with IrGuard():
            func(*args, **kwargs)

    return impl


__all__ = ["IrGuard", "test_with_pir_api"]
