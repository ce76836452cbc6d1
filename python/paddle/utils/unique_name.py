"""paddle.utils.unique_name: per-key counters giving Paddle's generated names (linear_0,
linear_0.w_0 ...), with guard() for a fresh namespace. The counters live in C (thread-local,
csrc/graph/pd_program_text.c) so that names made by layers here and the variable names the
static recorder makes (elementwise_add_0.tmp_0) share one numbering, as in Paddle."""
import contextlib

from .. import _C


def generate(key):
    """key_N with N counting per key from 0."""
    return _C.unique_name_generate(str(key))


def generate_with_ignorable_key(key):
    return generate(key)


def switch(new_generator=None):
    """Replaces the current counters (a dict of key -> next count, or None for empty); returns the
    old ones."""
    return _C.unique_name_table(new_generator if isinstance(new_generator, dict) else None)


@contextlib.contextmanager
def guard(new_generator=None):
    """Names inside the block count from 0 again (a prefix string is accepted and ignored)."""
    _C.unique_name_push()
    if isinstance(new_generator, dict):
        _C.unique_name_table(new_generator)
    try:
        yield
    finally:
        _C.unique_name_pop()


__all__ = ["generate", "switch", "guard"]
