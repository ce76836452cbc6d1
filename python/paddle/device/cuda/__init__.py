"""paddle.device.cuda as Paddle's CPU-only build answers it: no device (device_count() is 0),
streams and events raise RuntimeError "(Unavailable) ...", the memory and property queries raise
ValueError, empty_cache does nothing."""

__all__ = ["Stream", "Event", "current_stream", "synchronize", "device_count", "empty_cache",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "stream_guard", "get_device_properties", "get_device_name", "get_device_capability"]


def _unavailable(what):
    return RuntimeError(f"(Unavailable) Paddle-C is not compiled with CUDA. Cannot use {what}: this build "
                        "computes on the CPU only.")


def _cpu_only(api):
    return ValueError(f"The API paddle.device.cuda.{api} is not supported in CPU-only PaddlePaddle "
                      "(Paddle-C computes on the CPU only).")


class Stream:
    """raises RuntimeError: a CUDA stream can only be made on the GPU platform."""

    def __init__(self, device=None, priority=2):
        raise _unavailable("CUDAStream (it can only be initialized on the GPU platform)")


class Event:
    """raises RuntimeError: a CUDA event can only be made on the GPU platform."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise _unavailable("CUDAEvent (it can only be initialized on the GPU platform)")


def current_stream(device=None):
    raise _unavailable("the current stream")


def synchronize(device=None):
    raise _unavailable("device synchronize")


def device_count():
    return 0


def empty_cache():
    return None


def max_memory_allocated(device=None):
    raise _cpu_only("max_memory_allocated")


def max_memory_reserved(device=None):
    raise _cpu_only("max_memory_reserved")


def memory_allocated(device=None):
    raise _cpu_only("memory_allocated")


def memory_reserved(device=None):
    raise _cpu_only("memory_reserved")


def get_device_properties(device=None):
    raise _cpu_only("get_device_properties")


def get_device_name(device=None):
    raise _cpu_only("get_device_properties")


def get_device_capability(device=None):
    raise _cpu_only("get_device_properties")


class _StreamGuard:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        raise _unavailable("the current stream")

    def __exit__(self, *exc):
        return False


def stream_guard(stream):
    """Entering raises RuntimeError, as in Paddle's CPU build."""
    return _StreamGuard(stream)
