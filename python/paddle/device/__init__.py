"""paddle.device: Paddle 2.6's device functions, answering as Paddle's CPU-only build does
(Paddle-C computes on the CPU: no CUDA/XPU/IPU/custom devices, no streams or events)."""
from ..framework import place as _place
from ..framework.place import (IPUPlace, get_device, is_compiled_with_cinn,  # noqa: F401
                               is_compiled_with_cuda, is_compiled_with_custom_device,
                               is_compiled_with_distribute, is_compiled_with_ipu, is_compiled_with_rocm,
                               is_compiled_with_xpu, set_device)
from ..framework.place import MLUPlace, is_compiled_with_mlu, is_compiled_with_npu  # noqa: F401  (Paddle 2.3)
from . import cuda  # noqa: F401
from . import cpu  # noqa: F401  (Paddle-C: the CPU allocator statistics)

__all__ = ["get_cudnn_version", "set_device", "get_device", "XPUPlace", "IPUPlace", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_distribute", "is_compiled_with_custom_device", "get_all_device_type",
           "get_all_custom_device_type", "get_available_device", "get_available_custom_device", "Stream",
           "Event", "current_stream", "set_stream", "stream_guard", "synchronize"]



def XPUPlace(dev_id):
    """paddle.device.XPUPlace(dev_id) (a function in Paddle 2.6): the XPU place, which this
    CPU-only build cannot use (as paddle.XPUPlace, it raises when used)."""
    return _place.XPUPlace(dev_id)


_NO_STREAMS = ("device should be gpu, xpu or a custom device; Paddle-C computes on the CPU, "
               "which has no streams or events")


def get_cudnn_version():
    """None: no cuDNN in this build."""
    return None


def get_all_device_type():
    """Device types other than the CPU this build can use: none (Paddle's CPU build answers [])."""
    return []


def get_all_custom_device_type():
    return []


def get_available_device():
    return []


def get_available_custom_device():
    return []


class Stream:
    """A device stream: raises TypeError, as Paddle's CPU build does (no GPU/XPU/custom device)."""

    def __init__(self, device=None, priority=2, stream_base=None):
        raise TypeError(_NO_STREAMS)


class Event:
    """A device event: raises TypeError, as Paddle's CPU build does."""

    def __init__(self, device=None, enable_timing=False, blocking=False, interprocess=False):
        raise TypeError(_NO_STREAMS)


def current_stream(device=None):
    raise TypeError(_NO_STREAMS)


def set_stream(stream):
    stream.stream_base  # noqa: B018  (None or a non-stream raises AttributeError, as in Paddle)
    raise TypeError(_NO_STREAMS)


def synchronize(device=None):
    raise TypeError(_NO_STREAMS)


class stream_guard:  # noqa: N801  (Paddle's name)
    """Context manager selecting a stream; with None (the only stream there can be here) it does
    nothing, as in Paddle."""

    def __init__(self, stream=None):
        if stream is not None:
            set_stream(stream)
        self.stream = stream

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
