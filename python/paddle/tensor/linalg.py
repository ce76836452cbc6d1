"""Matrix products and norms of paddle.tensor.linalg (Paddle 2.3 signatures): matmul, mm, bmm,
dot, norm. matmul follows matmul_v2 (1-D operands promoted then squeezed, batch dims broadcast);
norm maps p/axis onto the frobenius_norm and p_norm ops the way Paddle 2.3 does."""
import math

import numpy as np

from .. import _C
from .._C import _C_ops
from . import static_shape as _ss

__all__ = ["matmul", "mm", "bmm", "dot", "norm"]
_TENSOR_METHODS = list(__all__)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    return _C_ops.matmul(x, y, bool(transpose_x), bool(transpose_y))


def mm(input, mat2, name=None):  # noqa: A002
    return _C_ops.matmul(input, mat2, False, False)


def bmm(x, y, name=None):
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) != 3 or len(ys) != 3:
        raise ValueError(f"[bmm] expected x and y to be 3-D, received x: {xs}, y: {ys}")
    if _ss.differ(xs[2], ys[1]):
        raise ValueError(f"[bmm] expected x.shape[2] == y.shape[1], received x: {xs}, y: {ys}")
    if _ss.differ(xs[0], ys[0]):
        raise ValueError(f"[bmm] expected x and y to have the same batch size, received x: {xs}, y: {ys}")
    return _C_ops.matmul(x, y, False, False)


def dot(x, y, name=None):
    """1-D: a scalar (the API level's rule); 2-D [N, K]: row-wise, [N, 1] (Paddle 2.3) or [N]
    (Paddle 2.6, FLAGS_set_to_1d off)."""
    out = _C_ops.dot(x, y)
    if out.ndim == 2 and not _C.set_to_1d():
        out = _C_ops.squeeze(out, [1])
    return out


def _is_num(p):
    return isinstance(p, (int, float, np.integer, np.floating)) and not isinstance(p, bool)


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """Vector or matrix norm. p: 'fro', inf, -inf, 0, 1, 2 or any float; axis None (all
    elements), an int, or a list/tuple of two ints (matrix norms over those axes)."""
    keepdim = bool(keepdim)
    if axis is None:
        if isinstance(p, str):
            if p != "fro":
                raise ValueError(f"[norm] only p='fro' is supported as a string, received {p!r}")
            return _C_ops.frobenius_norm(x, [], keepdim)
        if _is_num(p):
            return _C_ops.p_norm(x, float(p), -1, 1e-12, keepdim, True)
        raise ValueError(f"[norm] p must be 'fro' or a number, received {p!r}")
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axis = int(axis)
        if isinstance(p, str):
            if p != "fro":
                raise ValueError(f"[norm] only p='fro' is supported as a string, received {p!r}")
            return _C_ops.p_norm(x, 2.0, axis, 1e-12, keepdim, False)
        if _is_num(p):
            return _C_ops.p_norm(x, float(p), axis, 1e-12, keepdim, False)
        raise ValueError(f"[norm] p must be 'fro' or a number, received {p!r}")
    if isinstance(axis, list) and len(axis) == 2:
        if p == "fro":
            return _C_ops.frobenius_norm(x, axis, keepdim)
        if not _is_num(p):
            raise ValueError(f"[norm] p must be 'fro' or a number, received {p!r}")
        if p == 0:
            raise ValueError(f"[norm] p=0 needs an int axis (or a list of one), received {axis}")
        nd = len(x.shape)
        a = []
        for v in axis:
            if not isinstance(v, (int, np.integer)) or not -nd <= v < nd:
                raise ValueError(f"[norm] axis entries must be ints in [{-nd}, {nd}), received {axis}")
            a.append(int(v) % nd)
        if a[0] == a[1]:
            raise ValueError(f"[norm] the two axes must differ, received {axis}")
        hi, lo = (a[0], a[1]) if a[0] > a[1] else (a[1], a[0])
        # (sum |x|^p)^(1/p) over both axes = p_norm over lo of p_norm over hi (max/min for +-inf)
        pp = float(p)
        if math.isinf(pp) or pp != 0:
            inner = _C_ops.p_norm(x, pp, hi, 1e-12, keepdim, False)
            return _C_ops.p_norm(inner, pp, lo, 1e-12, keepdim, False)
    raise ValueError(f"[norm] axis must be None, an int, or a list of 1 or 2 ints, received {axis!r}")
