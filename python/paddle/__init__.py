"""Paddle-C: the PaddlePaddle 2.x Python API over a C11 engine. `import paddle` gives tensors,
their functions and methods; the computing is done by the C extension paddle._C."""
import os as _os

# Bounded spinning for the OpenMP pool (issue 24): libgomp reads its settings once, when it is
# loaded by the import of _C below. Unless the user chose a wait policy or spin count, pool threads
# spin ~10k iterations after a parallel region (tens of microseconds: back-to-back regions still
# find them awake) and then sleep, instead of libgomp's default 300k (up to milliseconds of a
# core that another process or Python thread may need). OMP_NUM_THREADS is honoured as libgomp reads
# it; paddle.set_num_threads / get_num_threads set and read the pool size at run time.
if not any(k in _os.environ for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")):
    _os.environ["GOMP_SPINCOUNT"] = _os.environ.get("PADDLE_C_SPINCOUNT", "10000")
from ._isa_check import check as _check_cpu  # noqa: E402
_check_cpu()  # ImportError, not SIGILL, on a CPU below the x86-64-v3 baseline
from . import _C  # noqa: F401,E402
from ._C import _C_ops  # noqa: F401  (paddle._C_ops, as in Paddle)
from .framework import dtype as _dtype_mod
from .framework.dtype import (bfloat16, bool, complex64, complex128, dtype, float16,  # noqa: F401,A004
                              float32, float64, get_default_dtype, int8, int16, int32, int64,
                              set_default_dtype, uint8)
from .framework.place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, NPUPlace, XPUPlace,  # noqa: F401
                              get_device, is_compiled_with_cuda, is_compiled_with_mlu,
                              is_compiled_with_npu, is_compiled_with_rocm, is_compiled_with_xpu,
                              is_compiled_with_ipu, is_compiled_with_cinn, set_device)
from . import tensor  # noqa: F401
from . import linalg  # noqa: F401
from . import fft  # noqa: F401
from . import signal  # noqa: F401
from .tensor import *  # noqa: F401,F403
from .tensor.to_string import set_printoptions  # noqa: F401
from .linalg import cholesky, eigvalsh, inv as inverse  # noqa: F401,E402  (Paddle 2.6's top-level names)
from . import utils  # noqa: F401
from . import autograd  # noqa: F401
from .autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from . import nn  # noqa: F401
from . import incubate  # noqa: F401
from . import geometric  # noqa: F401
from . import sparse  # noqa: F401
from . import optimizer  # noqa: F401
from . import regularizer  # noqa: F401
from . import distribution  # noqa: F401
from .framework.param_attr import ParamAttr  # noqa: F401
from .framework.param import create_parameter  # noqa: F401
from .framework.io import load, save  # noqa: F401
from .framework.misc import (batch, check_shape, disable_signal_handler,  # noqa: F401
                             get_flags, set_flags)
from .framework.misc import _flags_from_env as _flags_from_env  # noqa: E402
_flags_from_env()
from . import io  # noqa: F401
from . import vision  # noqa: F401
from . import metric  # noqa: F401
from . import text  # noqa: F401
from . import amp  # noqa: F401
from . import hapi  # noqa: F401
from . import callbacks  # noqa: F401
from .hapi import Model, flops, summary  # noqa: F401
from . import static  # noqa: F401
from . import sysconfig  # noqa: F401
from . import jit  # noqa: F401
from . import device  # noqa: F401
from . import onnx  # noqa: F401
from . import inference  # noqa: F401  (paddle.inference after `import paddle`, as in Paddle)
from . import profiler  # noqa: F401
profiler.utils.wrap_optimizers()  # Optimizer.step records "Optimization Step" while profiling
from . import distributed  # noqa: F401
from .distributed.data_parallel import DataParallel  # noqa: F401
from .static.framework import disable_static, enable_static, in_dynamic_mode  # noqa: F401
from . import base  # noqa: F401,E402  (Paddle 2.6's paddle.base, an attribute after `import paddle`)

Tensor = _C.Tensor
from . import version  # noqa: E402
from .version import full_version as __version__  # noqa: E402

from .framework.blas_pool import limit_foreign_blas as _limit_foreign_blas  # noqa: E402
_limit_foreign_blas()  # numpy's OpenBLAS on one thread: one pool per process (blas_pool.py)
__paddle_c_version__ = "0.1.0"


def is_tensor(x):
    """True if x is a paddle.Tensor."""
    return isinstance(x, Tensor)


if "seed" not in globals():
    def seed(s):
        """Seeds the global random generator so every random op is reproducible."""
        _C.seed(int(s))


def get_cuda_rng_state():
    return []


def set_cuda_rng_state(state):
    pass



# Paddle 2.6's in-place forms (abs_, equal_, cast_, t_ ...), made from the functions above once
# they all exist (python/paddle/tensor/api26.py)
from .tensor.api26 import _install_inplace as _install_inplace_26  # noqa: E402
from .nn.functional import diag_embed  # noqa: F401,E402

_install_inplace_26()
del _install_inplace_26

from . import audio  # noqa: F401,E402  (Paddle 2.6's paddle.audio)
from . import reader  # noqa: F401,E402  (the legacy reader decorators)
from . import hub  # noqa: F401,E402  (paddle.hub)
from .framework.lazy_init import LazyGuard  # noqa: F401,E402
