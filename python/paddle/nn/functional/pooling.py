"""Pooling (Paddle 2.3 paddle.nn.functional): avg/max_pool1d/2d/3d (return_mask), adaptive pools,
max_unpool1d/2d/3d, over the pool2d / pool3d / max_pool2d_with_index / unpool ops."""
import os

from ... import _C
from ..._C import _C_ops as _ops
from ...framework.dtype import bfloat16, float32, float64
from .conv import _padding, _tuple

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]

_FMT = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}
_ARGMAX_DTYPES = (float32, float64, bfloat16)


def _argmax_training(x):
    """Max pooling for training: in dygraph, when x needs a gradient, max_pool2d_with_index runs
    instead of pool2d/pool3d; it saves each window's argmax (int32) and its backward scatters the
    gradient there (docs/arch/autograd_training.md, "Max pooling with a saved argmax"). Same values and
    gradients (same first-maximum rule). PADDLE_C_POOL_ARGMAX=0 (read per call) keeps pool2d."""
    if x.stop_gradient or not _C._is_grad_enabled() or x.dtype not in _ARGMAX_DTYPES:
        return False
    if os.environ.get("PADDLE_C_POOL_ARGMAX") == "0":
        return False
    from ...static.framework import in_dynamic_mode
    return in_dynamic_mode()


def _pool(x, n, kernel_size, stride, padding, ceil_mode, exclusive, data_format, ptype, return_mask=False,
          adaptive=False, divisor_override=None):
    if data_format not in _FMT[n]:
        raise ValueError(f"data_format must be one of {_FMT[n]}, received {data_format!r}")
    cl = data_format == _FMT[n][1]
    k = _tuple(kernel_size, n, "kernel_size")
    s = k if stride is None else _tuple(stride, n, "stride")
    algo, pads = _padding(padding, n, cl) if not adaptive else ("EXPLICIT", [0] * n)
    if n == 1:
        x = x.unsqueeze(1 if cl else 2)
        k, s = [1] + k, [1] + s
        pads = [0, 0] + (pads if len(pads) == 2 else pads * 2)
        fmt = "NHWC" if cl else "NCHW"
    else:
        fmt = data_format
    if return_mask:
        out, mask = _ops.max_pool2d_with_index(x, k, s, pads, False, adaptive, ceil_mode, fmt, algo)
        if n == 1:
            out, mask = out.squeeze(1 if cl else 2), mask.squeeze(1 if cl else 2)
        return out, mask
    if ptype == "max" and _argmax_training(x):
        out = _ops.max_pool2d_with_index(x, k, s, pads, False, adaptive, ceil_mode, fmt, algo)[0]
    else:
        op = _ops.pool3d if n == 3 else _ops.pool2d
        out = op(x, k, s, pads, ceil_mode, exclusive, fmt, ptype, False, adaptive, algo)
    if divisor_override:
        import numpy as np
        out = out * (float(np.prod(k)) / divisor_override)
    return out.squeeze(1 if cl else 2) if n == 1 else out


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    return _pool(x, 1, kernel_size, stride, padding, ceil_mode, exclusive, "NCL", "avg")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None):
    return _pool(x, 2, kernel_size, stride, padding, ceil_mode, exclusive, data_format, "avg",
                 divisor_override=divisor_override)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None):
    return _pool(x, 3, kernel_size, stride, padding, ceil_mode, exclusive, data_format, "avg",
                 divisor_override=divisor_override)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    return _pool(x, 1, kernel_size, stride, padding, ceil_mode, True, "NCL", "max", return_mask)


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    return _pool(x, 2, kernel_size, stride, padding, ceil_mode, True, data_format, "max", return_mask)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    return _pool(x, 3, kernel_size, stride, padding, ceil_mode, True, data_format, "max", return_mask)


def _adaptive_size(x, n, output_size, cl):
    sp = list(x.shape[1:-1] if cl else x.shape[2:])
    if isinstance(output_size, int):
        output_size = [output_size] * n
    return [sp[i] if v is None else int(v) for i, v in enumerate(output_size)]


def adaptive_avg_pool1d(x, output_size, name=None):
    return _pool(x, 1, _adaptive_size(x, 1, output_size, False), 1, 0, False, True, "NCL", "avg", adaptive=True)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    k = _adaptive_size(x, 2, output_size, data_format == "NHWC")
    return _pool(x, 2, k, 1, 0, False, True, data_format, "avg", adaptive=True)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    k = _adaptive_size(x, 3, output_size, data_format == "NDHWC")
    return _pool(x, 3, k, 1, 0, False, True, data_format, "avg", adaptive=True)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    return _pool(x, 1, _adaptive_size(x, 1, output_size, False), 1, 0, False, True, "NCL", "max", return_mask,
                 adaptive=True)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    return _pool(x, 2, _adaptive_size(x, 2, output_size, False), 1, 0, False, True, "NCHW", "max", return_mask,
                 adaptive=True)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    return _pool(x, 3, _adaptive_size(x, 3, output_size, False), 1, 0, False, True, "NCDHW", "max", return_mask,
                 adaptive=True)


def _unpool(x, indices, n, kernel_size, stride, padding, data_format, output_size):
    cl = data_format == _FMT[n][1]
    k = _tuple(kernel_size, n, "kernel_size")
    s = k if stride is None else _tuple(stride, n, "stride")
    p = _tuple(padding, n, "padding")
    sp = list(x.shape[1:-1] if cl else x.shape[2:])
    if output_size is None:
        osz = [(sp[i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(n)]
    else:
        osz = list(output_size)[-n:]
    if n == 1:
        x, indices = x.unsqueeze(2), indices.unsqueeze(2)
        return _ops.unpool(x, indices, [1] + osz, "NCHW", False).squeeze(2)
    return _ops.unpool(x, indices, osz, data_format, False)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
    return _unpool(x, indices, 1, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
    return _unpool(x, indices, 2, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
    return _unpool(x, indices, 3, kernel_size, stride, padding, data_format, output_size)
