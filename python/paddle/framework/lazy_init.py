"""paddle.LazyGuard: parameters created while the guard is active (Layer.create_parameter,
paddle.create_parameter) get their storage but are not initialized; each keeps its initializer
and runs it, exactly once, on param.initialize(). Until then param._is_initialized() is False and
calling a layer that owns such a parameter raises RuntimeError (PreconditionNotMet) instead of
computing with uninitialized memory. Calling initialize() a second time, or on a parameter created
outside the guard, raises AssertionError, as in Paddle."""

import weakref

__all__ = ["LazyGuard"]


class _LazyState:
    def __init__(self):
        self.depth = 0      # > 0 while a LazyGuard is active
        self.pending = 0    # parameters created lazily and not yet initialized


_state = _LazyState()


def lazy_active():
    return _state.depth > 0


class LazyGuard:
    """Context manager: Layer parameters built inside are initialized on param.initialize()."""

    def __enter__(self):
        _state.depth += 1

    def __exit__(self, *args, **kwargs):
        _state.depth -= 1


def defer(param, init):
    """Record init as param's pending initialization (called by create_parameter under the guard)."""
    param.__dict__["_init_func"] = init
    _state.pending += 1
    # a lazy parameter dropped without initialize() no longer counts as pending
    param.__dict__["_lazy_finalizer"] = weakref.finalize(param, _forget)


def _forget():
    _state.pending -= 1


def initialize(param):
    func = param.__dict__.get("_init_func")
    if func is None:
        raise AssertionError("Required self._init_func is not None, but received None.")
    from .. import no_grad
    with no_grad():
        func(param)
    param.__dict__["_init_func"] = None
    fin = param.__dict__.pop("_lazy_finalizer", None)
    if fin is not None and fin.detach() is not None:
        _state.pending -= 1


def check_layer(layer):
    """RuntimeError when layer (or a sublayer) owns a lazily created, uninitialized parameter."""
    for name, p in layer.named_parameters():
        if p.__dict__.get("_init_func") is not None:
            raise RuntimeError(
                f"(PreconditionNotMet) parameter {name!r} ({p.name}) of {type(layer).__name__} was created "
                "under paddle.LazyGuard and is not initialized yet: call param.initialize() first")
