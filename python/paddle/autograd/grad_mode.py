"""Grad mode: paddle.no_grad (context manager and decorator), enable_grad, set_grad_enabled,
is_grad_enabled. The flag lives in C (thread-local) so the op runner reads it directly."""
import functools
import inspect

from .. import _C


def is_grad_enabled():
    return _C._is_grad_enabled()


class _GradModeContext:
    _mode = None

    def __enter__(self):
        self._prev = _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen(*a, **k):
                g = fn(*a, **k)
                while True:
                    with type(self)():
                        try:
                            v = next(g)
                        except StopIteration:
                            return
                    yield v
            return gen

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with type(self)():
                return fn(*a, **k)
        return wrapper


class no_grad(_GradModeContext):  # noqa: N801 (Paddle's name)
    """Disables gradient recording inside the block (or the decorated function)."""
    _mode = False


class enable_grad(_GradModeContext):  # noqa: N801
    """Enables gradient recording inside the block (or the decorated function)."""
    _mode = True


class set_grad_enabled:  # noqa: N801
    """Sets grad mode to `mode`; usable as a function, a context manager or a decorator."""

    def __init__(self, mode):
        self._prev = _C._set_grad_enabled(bool(mode))
        self._mode = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        _C._set_grad_enabled(self._prev)

        @functools.wraps(fn)
        def wrapper(*a, **k):
            prev = _C._set_grad_enabled(self._mode)
            try:
                return fn(*a, **k)
            finally:
                _C._set_grad_enabled(prev)
        return wrapper
