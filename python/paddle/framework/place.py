"""Places and devices. Paddle-C computes on the CPU, and on NVIDIA GPUs where its CUDA backend
(paddle/libs/libpaddle_c_cuda.so, built where nvcc is present) finds one: CUDAPlace(n) and
paddle.set_device('gpu:n') then place tensors there. Without a GPU, GPU places exist as names
so programs that mention them import, and using one raises a clear error."""


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
    def __eq__(self, other):
        return type(other) is CUDAPlace and other._id == self._id

    def __hash__(self):
        return hash(("CUDAPlace", self._id))

    def get_device_id(self):
        return self._id

    def gpu_device_id(self):
        return self._id


class CUDAPinnedPlace(_UnavailablePlace):
    def __init__(self):
        super().__init__(0)

    def __repr__(self):
        return "CUDAPinnedPlace"

    def is_gpu_place(self):
        return False

    def is_cuda_pinned_place(self):
        return True


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


_preloaded = False


def _preload_nvidia_libs():
    """cuBLAS and cuDNN come from pip's nvidia-* wheels (nvidia/<pkg>/lib/ or nvidia/cu13/lib/ in
    site-packages), as for Paddle's and PyTorch's GPU wheels. The CUDA backend dlopen's them by
    soname; loading them here first, by path, lets it find them without LD_LIBRARY_PATH."""
    global _preloaded
    if _preloaded:
        return
    _preloaded = True
    import ctypes
    import glob
    import os
    import sys
    order = ("libnvJitLink.so.*", "libnvrtc.so.*", "libcublasLt.so.*", "libcublas.so.*",
             "libcudnn_graph.so.*", "libcudnn_engines_precompiled.so.*", "libcudnn_engines_runtime_compiled.so.*",
             "libcudnn_heuristic.so.*", "libcudnn_ops.so.*", "libcudnn_cnn.so.*", "libcudnn_adv.so.*",
             "libcudnn.so.*")
    for base in list(sys.path):
        root = os.path.join(base or ".", "nvidia")
        if not os.path.isdir(root):
            continue
        for pat in order:
            for path in sorted(glob.glob(os.path.join(root, "*", "lib", pat))):
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    pass


def _gpu_count():
    """GPUs the CUDA backend sees (0 without the library, a driver or a GPU); loads it once."""
    from .. import _C
    return _C.cuda_device_count()


def _init():
    """At import: where this installation has a CUDA backend, the nvidia wheels' libraries are
    preloaded (a CPU-only build skips this; without the wheels it costs a few directory checks)."""
    import os
    if os.path.exists(os.path.join(os.path.dirname(os.path.dirname(__file__)), "libs", "libpaddle_c_cuda.so")):
        _preload_nvidia_libs()


def _place_of_device(dev):
    """paddle._C's device number (-1 CPU, n gpu:n) as a place object."""
    return _CPU if dev < 0 else CUDAPlace(dev)


def _current_place():
    """The expected place of new tensors (paddle.set_device's)."""
    return _CPU if _device == "cpu" else CUDAPlace(int(_device.split(":")[1]))


def _device_of_place(place):
    """A place (CPUPlace / CUDAPlace / CUDAPinnedPlace / 'cpu' / 'gpu:n' / Place) as -1 or n."""
    if place is None:
        return -1 if _device == "cpu" else int(_device.split(":")[1])
    if isinstance(place, str):
        d = place.lower()
        if d == "cpu":
            return -1
        kind, _, idx = d.partition(":")
        if kind in ("gpu", "cuda") and (idx == "" or idx.isdigit()):
            return int(idx or 0)
        raise ValueError(f"The place must be 'cpu', 'gpu' or 'gpu:x', received '{place}'")
    if isinstance(place, (CPUPlace, CUDAPinnedPlace)):
        return -1
    if isinstance(place, CUDAPlace):
        return place._id
    if isinstance(place, _UnavailablePlace):
        raise ValueError(f"{place!r} is not supported by Paddle-C (CPU and CUDA GPUs only)")
    raise TypeError(f"place must be a paddle place or a string, received {type(place).__name__}")


class _SetPlace(CPUPlace):
    """What set_device returns (Paddle 2.6's generic Place, printed as Place(cpu))."""

    def __repr__(self):
        return "Place(cpu)"

    __str__ = __repr__


class _SetGPUPlace(CUDAPlace):
    """What set_device('gpu:n') returns (Paddle 2.6's generic Place, printed as Place(gpu:n))."""

    def __repr__(self):
        return f"Place(gpu:{self._id})"

    __str__ = __repr__


_BACKENDS = {"gpu": "CUDA", "xpu": "XPU", "npu": "NPU", "mlu": "MLU", "ipu": "IPU"}


def set_device(device):
    """Only 'cpu' is available in Paddle-C (no accelerator backend): accelerator names raise the
    ValueError Paddle's CPU build raises."""
    global _device
    d = device.lower()  # a non-str raises AttributeError, as in Paddle
    if d == "cpu":
        from .. import _C
        _C.set_default_device(-1)
        _device = "cpu"
        return _SetPlace()
    kind = d.split(":")[0]
    if kind == "gpu" and _gpu_count() > 0:
        idx = d.split(":", 1)[1] if ":" in d else "0"
        if not idx.isdigit():
            raise ValueError(f"The device must be like 'gpu' or 'gpu:x', received '{device}'")
        n = int(idx)
        if n >= _gpu_count():
            raise ValueError(f"The device id {n} of '{device}' must be less than the number of GPUs "
                             f"({_gpu_count()})")
        from .. import _C
        _C.set_default_device(n)
        _device = f"gpu:{n}"
        return _SetGPUPlace(n)
    if kind in _BACKENDS:
        raise ValueError(
            f"The device should not be '{device}', since Paddle-C is not compiled with "
            f"{_BACKENDS[kind]}: this build computes on the CPU only (use 'cpu')")
    raise ValueError("The device must be a string which is like 'cpu', 'gpu', 'gpu:x', 'xpu', "
                     f"'xpu:x', 'npu', 'npu:x'; received '{device}' (only 'cpu' is available in Paddle-C)")


def get_device():
    return _device


def is_compiled_with_cuda():
    """True where this installation can compute on CUDA: its CUDA backend is built and a GPU is
    found (Paddle's GPU wheel answers True on a machine without a GPU too; here such a machine
    answers False, so `set_device('gpu' if is_compiled_with_cuda() else 'cpu')` always works)."""
    return _gpu_count() > 0


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


_init()
