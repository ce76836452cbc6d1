"""paddle.tensor.search: where, nonzero, sort, argsort, topk, masked_select and index_sample
(Paddle 2.3 signatures) over the C ops of ops/manip.yaml, ops/index.yaml and ops/sort.yaml."""
import numpy as np

from .._C import _C_ops
from .. import _C
from ..framework import to_numpy_dtype

__all__ = ["where", "nonzero", "sort", "argsort", "topk", "masked_select", "index_sample"]
_TENSOR_METHODS = ["where", "nonzero", "sort", "argsort", "topk", "masked_select", "index_sample"]

Tensor = _C.Tensor


def _as_tensor_like(v, like):
    if isinstance(v, Tensor):
        return v
    dt = like.dtype.name if like is not None else None
    npdt = np.float32 if dt == "bfloat16" else (to_numpy_dtype(like.dtype) if like is not None else None)
    a = np.asarray(v, dtype=npdt)
    if a.ndim == 0:
        a = a.reshape(1)
    t = _C.from_buffer(np.ascontiguousarray(a))
    if dt == "bfloat16":
        out = _C.from_buffer(np.zeros(a.shape, dtype=np.uint16))
        out._copy_(t)
        t = out
    return t


def where(condition, x=None, y=None, name=None):
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("[where] either both or neither of x and y should be given")
    if not isinstance(condition, Tensor):
        condition = _C.from_buffer(np.ascontiguousarray(np.asarray(condition, dtype=bool)))
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = _as_tensor_like(x, None)
    x = _as_tensor_like(x, y if isinstance(y, Tensor) else None)
    y = _as_tensor_like(y, x)
    return _C_ops.where(condition, x, y)


def nonzero(x, as_tuple=False):
    out = _C_ops.nonzero(x)
    if not as_tuple:
        return out
    nd = len(x.shape)
    if nd == 1:
        return (out,)
    return tuple(_C_ops.slice(out, [1], [i], [i + 1]) for i in range(nd))


def sort(x, axis=-1, descending=False, name=None):
    return _C_ops.argsort(x, int(axis), bool(descending))[0]


def argsort(x, axis=-1, descending=False, name=None):
    return _C_ops.argsort(x, int(axis), bool(descending))[1]


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    if isinstance(k, Tensor):
        k = int(np.asarray(k).reshape(-1)[0])
    return _C_ops.topk(x, int(k), -1 if axis is None else int(axis), bool(largest), bool(sorted))


def masked_select(x, mask, name=None):
    return _C_ops.masked_select(x, mask)


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for 2-D x and index."""
    if len(x.shape) != 2 or len(index.shape) != 2 or (x.shape[0] != index.shape[0] and
                                                        x.shape[0] >= 0 and index.shape[0] >= 0):
        raise ValueError(f"[index_sample] expected 2-D x and index with the same first dim, "
                         f"received {x.shape} and {index.shape}")
    if _C._is_variable(x) or _C._is_variable(index):  # a program: the same copy by take_along_axis
        return _C_ops.take_along_axis(x, index, 1)
    n, k = index.shape
    rows = np.repeat(np.arange(n, dtype=np.int64), k).reshape(n, k, 1)
    cols = np.asarray(index).astype(np.int64).reshape(n, k, 1)
    idx = _C.from_buffer(np.ascontiguousarray(np.concatenate([rows, cols], -1)))
    return _C_ops.gather_nd(x, idx)
