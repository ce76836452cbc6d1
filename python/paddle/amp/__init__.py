"""paddle.amp: automatic mixed precision. auto_cast (the op runner casts each op's inputs by
Paddle's white/black lists), decorate (pure low-precision parameters with float32 master
weights) and GradScaler (dynamic loss scaling). See docs/arch/autograd_training.md, "Mixed precision"."""
from .auto_cast import auto_cast, decorate  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["auto_cast", "GradScaler", "decorate", "is_float16_supported", "is_bfloat16_supported"]


def _amp_place(device, fn):
    if device is None:
        return 'cpu'
    if not isinstance(device, str):
        raise TypeError(f"{fn}: device must be a str or None, received {type(device).__name__}")
    d = device.strip().lower()
    kind = d.split(':')[0]
    if kind in ('cpu', 'gpu', 'xpu', 'ipu') and (':' not in d or d.split(':', 1)[1].isdigit()):
        return kind
    raise ValueError("Paddle supports CPUPlace, CUDAPlace, CUDAPinnedPlace, XPUPlace, IPUPlace and "
                     f"CustomPlace, but received {device}.")


def _cpu_flags():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('flags'):
                    return set(line.split(':', 1)[1].split())
    except OSError:
        pass
    return set()


def is_float16_supported(device=None):
    """Paddle 2.6: whether auto_cast can run float16 on ``device`` (None: the current device).
    This build runs on the CPU only, where Paddle's answer is False (and False for any device
    this build has not got)."""
    _amp_place(device, 'is_float16_supported')
    return False


def is_bfloat16_supported(device=None):
    """Paddle 2.6: whether auto_cast can run bfloat16 on ``device`` (None: the current device).
    On the CPU Paddle (built with oneDNN) answers True where the processor has AVX512-core
    (avx512f, avx512bw, avx512vl, avx512dq); other devices are not in this build: False."""
    if _amp_place(device, 'is_bfloat16_supported') != 'cpu':
        return False
    return {'avx512f', 'avx512bw', 'avx512vl', 'avx512dq'} <= _cpu_flags()
