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

    def _equals(self, other):
        """Paddle's Place._equals: the same device."""
        return self == other

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

    def _equals(self, other):
        return type(other) is type(self) and getattr(other, "_id", None) == self._id

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


class MLUPlace(_UnavailablePlace):
    _kind = "MLU"


class IPUPlace(_UnavailablePlace):
    _kind = "IPU"

    def __init__(self):
        super().__init__(0)


_CPU = CPUPlace()
_device = "cpu"


def _current_place():
    return _CPU


class _SetPlace(CPUPlace):
    """What set_device returns (Paddle 2.6's generic Place, printed as Place(cpu))."""

    def __repr__(self):
        return "Place(cpu)"

    __str__ = __repr__


_BACKENDS = {"gpu": "CUDA", "xpu": "XPU", "npu": "NPU", "mlu": "MLU", "ipu": "IPU"}


def set_device(device):
    """Only 'cpu' is available in Paddle-C (no accelerator backend): accelerator names raise the
    ValueError Paddle's CPU build raises."""
    global _device
    d = device.lower()  # a non-str raises AttributeError, as in Paddle
    if d == "cpu":
        _device = "cpu"
        return _SetPlace()
    kind = d.split(":")[0]
    if kind in _BACKENDS:
        raise ValueError(
            f"The device should not be '{device}', since Paddle-C is not compiled with "
            f"{_BACKENDS[kind]}: this build computes on the CPU only (use 'cpu')")
    raise ValueError("The device must be a string which is like 'cpu', 'gpu', 'gpu:x', 'xpu', "
                     f"'xpu:x', 'npu', 'npu:x'; received '{device}' (only 'cpu' is available in Paddle-C)")


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


def is_compiled_with_distribute():
    return False  # Paddle's CPU wheel says True; Paddle-C has no distributed runtime


def is_compiled_with_custom_device(device_type):
    return False
