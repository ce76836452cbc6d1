"""Small framework-level names of Paddle 2.3: paddle.batch (reader decorator), check_shape,
get_flags/set_flags (a flag table; the FLAGS_* that Paddle-C understands are listed here),
disable_signal_handler (paddle.DataParallel lives in paddle/distributed/data_parallel.py)."""
import numbers

from .. import _C

_FLAGS = {
    "FLAGS_check_nan_inf": False,
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_use_mkldnn": True,
    "FLAGS_cudnn_deterministic": True,
    "FLAGS_paddle_num_threads": 0,
    "FLAGS_allow_tf32_cublas": True,
    "FLAGS_set_to_1d": True,
    "FLAGS_call_stack_level": 1,
    "FLAGS_cpu_deterministic": False,
}
_TRUE = ("1", "true", "on", "yes")
_FALSE = ("0", "false", "off", "no")


def _flags_from_env():
    """Paddle reads FLAGS_* from the environment at start-up: FLAGS_paddle_num_threads=n sets the
    OpenMP pool size (as paddle.set_flags does); FLAGS_set_to_1d=0 selects the Paddle 2.6 API
    level (0-D results), 1 (the default) Paddle 2.3's shapes."""
    import os
    lv = os.environ.get("FLAGS_set_to_1d")
    if lv is not None and lv.strip().lower() in _TRUE + _FALSE:
        set_flags({"FLAGS_set_to_1d": lv.strip().lower() in _TRUE})
    elif lv:
        import warnings
        warnings.warn(f"FLAGS_set_to_1d={lv!r} is not a boolean (1/0, true/false); keeping 1")
    v = os.environ.get("FLAGS_paddle_num_threads")
    if v:
        try:
            n = int(v)
        except ValueError:
            return
        if n > 0:
            set_flags({"FLAGS_paddle_num_threads": n})


def batch(reader, batch_size, drop_last=False):
    """Wraps a sample reader (a generator function) into a batch reader yielding lists."""
    if not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch_size should be a positive integer, received {batch_size!r}")

    def batch_reader():
        b = []
        for item in reader():
            b.append(item)
            if len(b) == batch_size:
                yield b
                b = []
        if b and not drop_last:
            yield b

    return batch_reader


def check_shape(shape, op_name=None, *args, **kwargs):
    """Validates a shape argument (list/tuple of ints >= -1, or a Tensor). Takes Paddle's
    signature (op_name, the expected types); Paddle 2.6.2 checks only in static mode."""
    if isinstance(shape, _C.Tensor):
        if shape.dtype.name not in ("int32", "int64"):
            raise TypeError(f"shape as a Tensor must be int32 or int64, received {shape.dtype.name}")
        return
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"shape must be a list, tuple or Tensor, received {type(shape).__name__}")
    for s in shape:
        if isinstance(s, _C.Tensor):
            continue
        if not isinstance(s, numbers.Integral) or isinstance(s, bool):
            raise TypeError(f"every dimension must be an int, received {type(s).__name__}")
        if s < -1:
            raise ValueError(f"every dimension must be >= -1, received {s}")


def get_flags(flags):
    """Values of the named flags as a dict."""
    names = [flags] if isinstance(flags, str) else list(flags)
    out = {}
    for n in names:
        if n not in _FLAGS:
            raise ValueError(f"Flag {n} cannot get its value through this function")
        out[n] = _FLAGS[n]
        if n == "FLAGS_set_to_1d":
            out[n] = _C.set_to_1d()
        if n == "FLAGS_call_stack_level":
            out[n] = call_stack_level()
        if n == "FLAGS_cpu_deterministic":
            out[n] = _C.cpu_deterministic()
    return out


def call_stack_level():
    """FLAGS_call_stack_level (environment, or paddle.set_flags which sets the environment)."""
    import os
    try:
        return int(os.environ.get("FLAGS_call_stack_level", "1"))
    except ValueError:
        return 1


def enforce_error(exc_type, tag, msg):
    """An exception in Paddle's enforce form, as the C ops raise theirs (csrc/python/convert.c):
    "(InvalidArgument) msg", or with FLAGS_call_stack_level=2 the error summary
    "InvalidArgumentError: msg"."""
    if call_stack_level() >= 2:
        return exc_type(f"\n\n----------------------\nError Message Summary:\n----------------------\n"
                        f"{tag}Error: {msg}\n")
    return exc_type(f"({tag}) {msg}")


_Tensor = _C.Tensor


def type_error(op, msg):
    """A wrong argument type in Paddle's enforce form: "(InvalidArgument) [op] msg", a
    paddle._C.InvalidTypeError (Paddle raises ValueError; Python's convention is TypeError: both)."""
    return enforce_error(_C.InvalidTypeError, "InvalidArgument", f"[{op}] {msg}")


def check_tensor(x, op, name="x"):
    """Paddle's argument parser: x must be a paddle.Tensor (the one check every API shares)."""
    if not isinstance(x, _Tensor):
        raise type_error(op, f"expected {name} to be a paddle.Tensor, received {type(x).__name__}")


def kernel_not_found(op, dtype, expected=None):
    """A dtype the op has no kernel for: Paddle's RuntimeError (NotFound), also a TypeError (the
    class C kernels raise, paddle._C.KernelNotFoundError); expected: the dtypes it takes."""
    more = f"; expected one of: {', '.join(expected)}" if expected else ""
    return enforce_error(_C.KernelNotFoundError, "NotFound",
                         f"The kernel of `{op}` is not registered for the data type {dtype}{more}")


def _bool_flag(name, v):
    """a boolean flag's value: a bool-like, or one of the strings of _TRUE / _FALSE"""
    if isinstance(v, str):
        if v.strip().lower() not in _TRUE + _FALSE:
            raise ValueError(f"{name} expects a bool, received {v!r}")
        return v.strip().lower() in _TRUE
    return bool(v)


def set_flags(flags):
    """Sets flags from a dict (FLAGS_paddle_num_threads sets the OpenMP pool size)."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags expects a dict, received {type(flags).__name__}")
    for k, v in flags.items():
        if k not in _FLAGS:
            raise ValueError(f"Flag {k} cannot set its value through this function")
        if k == "FLAGS_cpu_deterministic":
            # results that repeat bit for bit from run to run: every kernel call on the configured
            # thread count (the thread governor's one-thread windows off; csrc/core/pd_pool.c).
            # The environment variable of the same name is read by the C library itself
            v = _bool_flag(k, v)
            _C.cpu_deterministic(v)
        if k == "FLAGS_set_to_1d":
            # the API level: on = Paddle 2.3 shapes ([1] for scalar results), off = Paddle 2.6
            # (0-D); one flag in C (pd_set_to_1d) that every scalar-producing op consults
            v = _bool_flag(k, v)
            _C.set_to_1d(v)
        if k == "FLAGS_call_stack_level":
            # the form of error messages (read from the environment where they are raised, C
            # included): 2 = Paddle's "Error Message Summary" with "InvalidArgumentError: ..."
            import os
            v = int(v)
            os.environ["FLAGS_call_stack_level"] = str(v)
        _FLAGS[k] = v
        if k == "FLAGS_paddle_num_threads" and int(v) > 0:
            _C.set_num_threads(int(v))
        if k == "FLAGS_allow_tf32_cublas":
            # float32 GEMMs on TF32 tensor cores (Paddle's default on); read by the CUDA backend
            _C.cuda_set_allow_tf32(bool(v))


def disable_signal_handler():
    """Paddle-C installs no signal handlers, so there is nothing to disable."""
    return None


__all__ = ["batch", "check_shape", "get_flags", "set_flags", "disable_signal_handler"]
