"""Places and devices. Paddle-C computes on the CPU; GPU places exist as names so programs that
mention them import, and using one raises a clear error."""


class CPUPlace:
    def __repr__(self):
        return "CPUPlace"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("CPUPlace")

    def is_cpu_place(self):
        return True

    def is_gpu_place(self):
        return False


class _UnavailablePlace:
    _kind = "GPU"

    def __init__(self, device_id=0):
        self._id = device_id

    def __repr__(self):
        return f"{type(self).__name__}({self._id})"

    def is_cpu_place(self):
        return False

    def is_gpu_place(self):
        return self._kind == "GPU"


class CUDAPlace(_UnavailablePlace):
    pass


class CUDAPinnedPlace(_UnavailablePlace):
    def __init__(self):
        super().__init__(0)

    def __repr__(self):
        return "CUDAPinnedPlace"


class NPUPlace(_UnavailablePlace):
    _kind = "NPU"


class XPUPlace(_UnavailablePlace):
    _kind = "XPU"


_CPU = CPUPlace()
_device = "cpu"


def _current_place():
    return _CPU


def set_device(device):
    """Only 'cpu' is available in Paddle-C (no accelerator backend)."""
    global _device
    if not isinstance(device, str):
        raise ValueError(f"set_device expects a str such as 'cpu', received {type(device).__name__}")
    d = device.lower()
    if d == "cpu":
        _device = "cpu"
        return _CPU
    if d.startswith(("gpu", "xpu", "npu", "mlu", "ipu")):
        raise ValueError(
            f"The device should not be '{device}', since Paddle-C is not compiled with "
            f"{d.split(':')[0].upper()} support; only 'cpu' is available")
    raise ValueError(f"The device must be a string like 'cpu' or 'gpu:x', received '{device}'")


def get_device():
    return _device


def is_compiled_with_cuda():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False


def is_compiled_with_npu():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_mlu():
    return False


def is_compiled_with_cinn():
    return False
