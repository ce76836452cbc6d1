"""paddle.device.cuda over Paddle-C's CUDA backend (paddle._C.cuda_*; csrc/cuda/runtime.cu): streams,
events, synchronize, the caching allocator's statistics and the device properties. Without a GPU
it answers as Paddle's CPU-only build: device_count() is 0, streams and events raise RuntimeError
"(Unavailable) ...", the memory and property queries raise ValueError, empty_cache does nothing."""

__all__ = ["Stream", "Event", "current_stream", "synchronize", "device_count", "empty_cache",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "stream_guard", "get_device_properties", "get_device_name", "get_device_capability"]


def _C():
    from ... import _C as c
    return c


def _has_gpu():
    return _C().cuda_device_count() > 0


def _unavailable(what):
    return RuntimeError(f"(Unavailable) Paddle-C found no CUDA GPU. Cannot use {what}: this installation "
                        "computes on the CPU only (" + _C().cuda_unavailable_reason() + ").")


def _cpu_only(api):
    return ValueError(f"The API paddle.device.cuda.{api} is not supported in CPU-only PaddlePaddle "
                      "(Paddle-C found no CUDA GPU).")


def _dev(device, api="device"):
    """None / int / CUDAPlace / 'gpu:x' -> a GPU ordinal."""
    from ...framework.place import CUDAPlace, _device_of_place
    if device is None:
        d = _device_of_place(None)
        return d if d >= 0 else 0
    if isinstance(device, bool) or not isinstance(device, (int, str, CUDAPlace)):
        raise ValueError(f"paddle.device.cuda.{api}: device must be an int, a CUDAPlace or 'gpu:x', "
                         f"received {device!r}")
    d = device if isinstance(device, int) else _device_of_place(device)
    n = _C().cuda_device_count()
    if d < 0 or d >= n:
        raise ValueError(f"paddle.device.cuda.{api}: the device id must be in [0, {n}), received {d}")
    return d


class Stream:
    """A CUDA stream of a device (priority 1 high, 2 normal, as Paddle's)."""

    def __init__(self, device=None, priority=2):
        if not _has_gpu():
            raise _unavailable("CUDAStream (it can only be initialized on the GPU platform)")
        if priority not in (1, 2):
            raise ValueError(f"Stream: priority must be 1 (high) or 2 (normal), received {priority}")
        self.device = _dev(device, "Stream")
        self._handle = _C().cuda_stream_create(self.device, -1 if priority == 1 else 0)
        self._owned = True

    @classmethod
    def _wrap(cls, device, handle):
        s = cls.__new__(cls)
        s.device, s._handle, s._owned = device, handle, False
        return s

    @property
    def cuda_stream(self):
        return self._handle or 0

    def query(self):
        return bool(_C().cuda_stream_query(self._handle))

    def synchronize(self):
        _C().cuda_stream_sync(self._handle)

    def wait_event(self, event):
        _C().cuda_stream_wait_event(self._handle, event._handle)

    def wait_stream(self, stream):
        e = Event()
        e.record(stream)
        self.wait_event(e)

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and other._handle == self._handle and other.device == self.device

    def __hash__(self):
        return hash((self.device, self._handle))

    def __del__(self):
        if getattr(self, "_owned", False) and self._handle:
            try:
                _C().cuda_stream_destroy(self._handle)
            except Exception:
                pass

    def __repr__(self):
        return f"<paddle.device.cuda.Stream(device=CUDAPlace({self.device}), handle={self.cuda_stream:#x})>"


class Event:
    """A CUDA event (timing, blocking-sync and interprocess flags as Paddle's)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if not _has_gpu():
            raise _unavailable("CUDAEvent (it can only be initialized on the GPU platform)")
        self._handle = _C().cuda_event_create(bool(enable_timing), bool(blocking), bool(interprocess))

    def record(self, stream=None):
        stream = stream if stream is not None else current_stream()
        _C().cuda_event_record(self._handle, stream._handle)

    def query(self):
        return bool(_C().cuda_event_query(self._handle))

    def synchronize(self):
        _C().cuda_event_sync(self._handle)

    def elapsed_time(self, end_event):
        """milliseconds from this event to end_event (both recorded, timing enabled)"""
        return _C().cuda_event_elapsed(self._handle, end_event._handle)

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h:
            try:
                _C().cuda_event_destroy(h)
            except Exception:
                pass


def current_stream(device=None):
    if not _has_gpu():
        raise _unavailable("the current stream")
    d = _dev(device, "current_stream")
    return Stream._wrap(d, _C().cuda_current_stream(d))


def synchronize(device=None):
    if not _has_gpu():
        raise _unavailable("device synchronize")
    _C().cuda_synchronize(_dev(device, "synchronize"))


def device_count():
    return _C().cuda_device_count()


def empty_cache():
    """Gives the allocator's cached free GPU memory back to the driver (nothing without a GPU)."""
    _C().cuda_empty_cache()


def _stat(api, key, device):
    if not _has_gpu():
        raise _cpu_only(api)
    return _C().cuda_mem_stats(_dev(device, api))[key]


def max_memory_allocated(device=None):
    return _stat("max_memory_allocated", "max_allocated", device)


def max_memory_reserved(device=None):
    return _stat("max_memory_reserved", "max_reserved", device)


def memory_allocated(device=None):
    return _stat("memory_allocated", "allocated", device)


def memory_reserved(device=None):
    return _stat("memory_reserved", "reserved", device)


class _gpuDeviceProperties:
    def __init__(self, p):
        self.name, self.major, self.minor = p["name"], p["major"], p["minor"]
        self.total_memory, self.multi_processor_count = p["total_memory"], p["multi_processor_count"]

    def __repr__(self):
        return (f"_gpuDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1 << 20)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    if not _has_gpu():
        raise _cpu_only("get_device_properties")
    return _gpuDeviceProperties(_C().cuda_props(_dev(device, "get_device_properties")))


def get_device_name(device=None):
    if not _has_gpu():
        raise _cpu_only("get_device_properties")
    return _C().cuda_props(_dev(device, "get_device_name"))["name"]


def get_device_capability(device=None):
    if not _has_gpu():
        raise _cpu_only("get_device_properties")
    p = _C().cuda_props(_dev(device, "get_device_capability"))
    return (p["major"], p["minor"])


class _StreamGuard:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if not _has_gpu():
            raise _unavailable("the current stream")
        if self.stream is None:
            return None
        d = self.stream.device
        self._prev = _C().cuda_current_stream(d)
        _C().cuda_set_current_stream(d, self.stream._handle)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _C().cuda_set_current_stream(self.stream.device, self._prev)
        return False


def stream_guard(stream):
    """Kernels launched inside run on stream (entering raises RuntimeError without a GPU)."""
    return _StreamGuard(stream)
