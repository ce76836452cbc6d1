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


class VarDesc:
    """core.VarDesc.VarType: Paddle 2.6's data-type enum, whose members equal paddle's dtypes
    (core.VarDesc.VarType.FP32 == paddle.float32)."""

    class VarType:
        pass


def _fill_var_type():
    import importlib
    _d = importlib.import_module("paddle.framework.dtype")  # the module (the package exports the class)
    for enum, name in (("BOOL", "bool"), ("INT8", "int8"), ("UINT8", "uint8"), ("INT16", "int16"),
                       ("INT32", "int32"), ("INT64", "int64"), ("FP16", "float16"), ("BF16", "bfloat16"),
                       ("FP32", "float32"), ("FP64", "float64"), ("COMPLEX64", "complex64"),
                       ("COMPLEX128", "complex128")):
        setattr(VarDesc.VarType, enum, getattr(_d, name))


_fill_var_type()
