"""paddle.device.cpu (a Paddle-C addition; Paddle 2.6 has these queries for CUDA only, where its
CPU build raises): the caching CPU allocator's statistics (csrc/core/pd_alloc.c), named as
paddle.device.cuda's. Sizes are the allocator's bucket sizes in bytes."""
from .. import _C

__all__ = ["memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "empty_cache"]


def _check(device):
    if device is None:
        return
    name = device if isinstance(device, str) else type(device).__name__
    if not (name == "cpu" or name == "CPUPlace"):
        raise ValueError(f"paddle.device.cpu: device should be None, 'cpu' or paddle.CPUPlace(), but received {device!r}")


def memory_allocated(device=None):
    """Bytes held by live tensors now."""
    _check(device)
    return _C.alloc_stats()["in_use_bytes"]


def memory_reserved(device=None):
    """Bytes the allocator holds (live tensors plus its cache of freed blocks)."""
    _check(device)
    s = _C.alloc_stats()
    return s["in_use_bytes"] + s["cached_bytes"]


def max_memory_allocated(device=None):
    """The peak of memory_allocated since start (or the last reset)."""
    _check(device)
    return _C.alloc_stats()["peak_in_use_bytes"]


def max_memory_reserved(device=None):
    """The peak of memory_reserved since start (or the last reset)."""
    _check(device)
    return _C.alloc_stats()["peak_reserved_bytes"]


def reset_max_memory_allocated(device=None):
    """Sets both peaks to the current values."""
    _check(device)
    _C.alloc_reset_peak()


reset_max_memory_reserved = reset_max_memory_allocated


def empty_cache():
    """Returns the allocator's cached blocks to the OS."""
    _C.empty_cache()
