"""paddle.utils.unique_name: per-key counters giving Paddle's generated names (linear_0,
linear_0.w_0 ...), with guard() for a fresh namespace."""
import contextlib
import threading

_local = threading.local()


def _counters():
    if not hasattr(_local, "stack"):
        _local.stack = [{}]
    return _local.stack[-1]


def generate(key):
    """key_N with N counting per key from 0."""
    c = _counters()
    n = c.get(key, 0)
    c[key] = n + 1
    return f"{key}_{n}"


def switch(new_generator=None):
    """Replaces the current counters (returns the old ones)."""
    old = _counters()
    _local.stack[-1] = new_generator if isinstance(new_generator, dict) else {}
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Names inside the block count from 0 again (a prefix string is accepted and ignored)."""
    _counters()
    _local.stack.append(new_generator if isinstance(new_generator, dict) else {})
    try:
        yield
    finally:
        _local.stack.pop()


__all__ = ["generate", "switch", "guard"]
