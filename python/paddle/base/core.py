"""paddle.base.core (Paddle 2.6; paddle.fluid.core in 2.3): the C++ core module's build queries
that user code and Paddle's own tests read, answering as Paddle's CPU-only build does."""
from ..framework.place import (CPUPlace, CUDAPinnedPlace, CUDAPlace,  # noqa: F401
                               is_compiled_with_cinn, is_compiled_with_custom_device, is_compiled_with_cuda,
                               is_compiled_with_distribute, is_compiled_with_ipu, is_compiled_with_rocm,
                               is_compiled_with_xpu)


def is_float16_supported(place=None):
    """Whether float16 kernels run on place: the CPU computes float16 here (in float32)."""
    return True


def is_bfloat16_supported(place=None):
    return True


def get_cuda_device_count():
    return 0


def is_compiled_with_mkldnn():
    return False
