"""Tensor.__getitem__ / __setitem__ with Paddle 2.3 semantics. Basic indices (int, slice with
any step, None, Ellipsis) give views sharing storage (unsqueeze, strided_slice, squeeze); an
index that removes every dim gives shape [1] (Paddle 2.3, the default) or a 0-D tensor
(FLAGS_set_to_1d off, Paddle 2.6: the C scalar rule of squeeze/reshape/gather_nd). Advanced indices (int
and bool tensors/lists/arrays) combine numpy-style through index_select, gather_nd and
masked_select; setitem writes through views, with scatter/where for advanced indices."""
import builtins

import numpy as np

from .._C import _C_ops
from .. import _C
from ..framework import to_numpy_dtype

__all__ = []
_TENSOR_METHODS = []

Tensor = _C.Tensor
_INT_KINDS = "iu"


def _norm_items(x, index):
    if not isinstance(index, tuple):
        index = (index,)
    items = []
    for it in index:
        if isinstance(it, (builtins.bool, np.bool_)):
            raise IndexError("a Python bool is not supported as an index; use a bool Tensor")
        if isinstance(it, (int, np.integer)):
            items.append(["int", int(it)])
        elif it is None:
            items.append(["none"])
        elif it is Ellipsis:
            items.append(["ellipsis"])
        elif isinstance(it, builtins.slice):
            items.append(["slice", builtins.slice(*[_scalar(v) for v in (it.start, it.stop, it.step)])])
        elif isinstance(it, Tensor):
            if it.dtype.name == "bool":
                items.append(["mask", it])
            elif it.dtype.name in ("int32", "int64", "int16", "int8", "uint8"):
                items.append(["array", np.asarray(it).astype(np.int64)])
            else:
                raise IndexError(f"tensors used as indices must be integer or bool, received {it.dtype.name}")
        elif isinstance(it, (list, np.ndarray)):
            a = np.asarray(it)
            if a.dtype == np.bool_:
                items.append(["mask", _C.from_buffer(np.ascontiguousarray(a))])
            elif a.dtype.kind in _INT_KINDS or a.size == 0:
                items.append(["array", a.astype(np.int64)])
            else:
                raise IndexError(f"index arrays must be integer or bool, received {a.dtype}")
        else:
            raise IndexError(f"unsupported index type {type(it).__name__}; expected int, slice, None, "
                             "Ellipsis, list, numpy array or Tensor")
    ndim = len(x.shape)
    used = sum(len(i[1].shape) if i[0] == "mask" else (0 if i[0] in ("none", "ellipsis") else 1)
               for i in items)
    n_ell = sum(1 for i in items if i[0] == "ellipsis")
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"too many indices for a tensor of {ndim} dims: {used} were indexed")
    out = []
    for i in items:
        if i[0] == "ellipsis":
            out += [["slice", builtins.slice(None)] for _ in range(ndim - used)]
        else:
            out.append(i)
    if not n_ell:
        out += [["slice", builtins.slice(None)] for _ in range(ndim - used)]
    return out


def _scalar(v):
    if v is None:
        return None
    if isinstance(v, Tensor):
        return int(np.asarray(v).reshape(-1)[0])
    return int(v)


def _basic(x, items):
    """Applies None (unsqueeze) and slices (strided_slice); with no advanced index also the
    ints (sliced to size 1 then squeezed). Returns (view, per-dim items of the view, has_adv)."""
    has_adv = any(i[0] in ("array", "mask") for i in items)
    pos, ins = 0, []
    for i in items:
        if i[0] == "none":
            ins.append(pos)
            i[:] = ["slice", builtins.slice(None)]
        pos += len(i[1].shape) if i[0] == "mask" else 1
    v = _C_ops.unsqueeze(x, ins) if ins else x
    shape = v.shape
    axes, starts, ends, steps, squeeze = [], [], [], [], []
    d = 0
    dims = []
    for i in items:
        if i[0] == "mask":
            dims.append(i)
            d += len(i[1].shape)
            continue
        n = shape[d]
        if i[0] == "int":
            k = i[1]
            if k < -n or k >= n:
                raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
            if has_adv:
                dims.append(["array", np.asarray(k + n if k < 0 else k, dtype=np.int64)])
            else:
                k = k + n if k < 0 else k
                axes.append(d), starts.append(k), ends.append(k + 1), steps.append(1)
                squeeze.append(d)
                dims.append(i)
        elif i[0] == "slice":
            s = i[1]
            if s.step == 0:
                raise ValueError("slice step cannot be zero")
            if s != builtins.slice(None):
                b, e, st = s.indices(n)
                if st < 0:
                    if e < 0:
                        e = -n - 1
                    if b < 0:
                        b = -n - 1
                axes.append(d), starts.append(b), ends.append(e), steps.append(st)
            dims.append(i)
        else:
            dims.append(i)
        d += 1
    if axes:
        if all(s == 1 for s in steps):
            v = _C_ops.slice(v, axes, starts, ends)
        else:
            v = _C_ops.strided_slice(v, axes, starts, ends, steps)
    if not has_adv and squeeze:
        v = _C_ops.squeeze(v, squeeze)
    return v, dims, has_adv


def _advanced_plan(v, dims):
    """-> (adv_dims, arrays as int64 numpy per adv dim, broadcast shape B) over v's dims."""
    adv_dims, arrays = [], []
    d = 0
    for i in dims:
        if i[0] == "mask":
            m = i[1]
            k = len(m.shape)
            if list(m.shape) != list(v.shape[d:d + k]):
                raise IndexError(f"boolean index of shape {m.shape} does not match the indexed "
                                 f"dims {v.shape[d:d + k]}")
            nz = np.asarray(_C_ops.nonzero(m))
            for j in range(k):
                adv_dims.append(d + j)
                arrays.append(nz[:, j])
            d += k
        elif i[0] == "array":
            n = v.shape[d]
            a = i[1]
            if a.size and (a.min() < -n or a.max() >= n):
                bad = a[(a < -n) | (a >= n)].reshape(-1)[0]
                raise IndexError(f"index {bad} is out of bounds for axis {d} with size {n}")
            adv_dims.append(d)
            arrays.append(np.where(a < 0, a + n, a))
            d += 1
        else:
            d += 1
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {[a.shape for a in arrays]}") from None
    return adv_dims, arrays, list(arrays[0].shape)


def _adjacent(adv_dims):
    return all(b == a + 1 for a, b in zip(adv_dims, adv_dims[1:]))


def _t(a):
    return _C.from_buffer(np.ascontiguousarray(a))


def _static(x, index):
    """Is this indexing part of a static program (x or an index is a Variable)?"""
    if _C._is_variable(x):
        return True
    idx = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, Tensor) and _C._is_variable(i) for i in idx)


def getitem(x, index):
    if _static(x, index):
        from . import indexing_static
        return indexing_static.getitem(x, index)
    items = _norm_items(x, index)
    v, dims, has_adv = _basic(x, items)
    if not has_adv:
        return v
    advs = [i for i in dims if i[0] in ("array", "mask")]
    # x[mask] with a mask covering every dim: masked_select
    if len(advs) == 1 and advs[0][0] == "mask" and list(advs[0][1].shape) == list(v.shape):
        return _C_ops.masked_select(v, advs[0][1])
    # one integer array on one dim: index_select
    if len(advs) == 1 and advs[0][0] == "array" and advs[0][1].ndim >= 1:
        d = dims.index(advs[0])
        adv_dims, arrays, B = _advanced_plan(v, dims)
        out = _C_ops.index_select(v, _t(arrays[0].reshape(-1)), d)
        shape = v.shape[:d] + B + v.shape[d + 1:]
        return _C_ops.reshape(out, shape)
    adv_dims, arrays, B = _advanced_plan(v, dims)
    nd = len(v.shape)
    rest = [d for d in range(nd) if d not in adv_dims]
    vt = _C_ops.transpose(v, adv_dims + rest) if adv_dims + rest != list(range(nd)) else v
    idx = np.stack(arrays, -1) if arrays[0].ndim else np.stack(arrays, -1).reshape(len(arrays))
    out = _C_ops.gather_nd(vt, _t(idx))
    nb = len(B)
    if nb and _adjacent(adv_dims) and adv_dims[0] > 0:
        p = adv_dims[0]
        nr = len(rest)
        perm = list(range(nb, nb + p)) + list(range(nb)) + list(range(nb + p, nb + nr))
        out = _C_ops.transpose(out, perm)
    return out


def _value_tensor(x, value, shape=None):
    """value as a Tensor of x's dtype (and of `shape` when given: broadcast)."""
    dt = x.dtype.name
    npdt = np.float32 if dt == "bfloat16" else to_numpy_dtype(x.dtype)
    if shape is None and isinstance(value, Tensor) and value.dtype.name == dt:
        return value
    if not isinstance(value, Tensor):
        a = np.asarray(value, dtype=npdt)
        value = _C.from_buffer(np.ascontiguousarray(a.reshape(1) if a.ndim == 0 else a))
        if dt != "bfloat16" and shape is None:
            return value
    out = _C.from_buffer(np.zeros(shape if shape is not None else value.shape,
                                  dtype=to_numpy_dtype(x.dtype)))
    out._copy_(value)
    return out


def setitem(x, index, value):
    if _static(x, index) or (isinstance(value, Tensor) and _C._is_variable(value)):
        from . import indexing_static
        return indexing_static.setitem(x, index, value)
    items = _norm_items(x, index)
    v, dims, has_adv = _basic(x, items)
    if not has_adv:
        val = _value_tensor(x, value)
        if v.ndim == 0 and val.ndim > 0 and val.size == 1:  # x[i] of a 1-D x is 0-D (Paddle 2.6 level)
            val = _C_ops.reshape(val, [])
        v._copy_(val)
        return x
    advs = [i for i in dims if i[0] in ("array", "mask")]
    val = _value_tensor(x, value)
    if (len(advs) == 1 and advs[0][0] == "mask" and list(advs[0][1].shape) == list(v.shape)
            and val.size == 1):
        v._copy_(_C_ops.where(advs[0][1], val, v))
        return x
    adv_dims, arrays, B = _advanced_plan(v, dims)
    nd = len(v.shape)
    rest = [d for d in range(nd) if d not in adv_dims]
    vt = _C_ops.transpose(v, adv_dims + rest)
    adv_shape = [v.shape[d] for d in adv_dims]
    rest_shape = [v.shape[d] for d in rest]
    nb = len(B)
    # the getitem result's shape, then the value in B-first order
    if nb and _adjacent(adv_dims) and adv_dims[0] > 0:
        p = adv_dims[0]
        rshape = rest_shape[:p] + B + rest_shape[p:]
        upd = _value_tensor(x, val, rshape or [1])
        perm = list(range(p, p + nb)) + list(range(p)) + list(range(p + nb, len(rshape)))
        upd = _C_ops.transpose(upd, perm)
    else:
        upd = _value_tensor(x, val, (B + rest_shape) or [1])
    n = int(np.prod(B)) if nb else 1
    upd = _C_ops.reshape(upd, [n] + rest_shape)
    lin = np.ravel_multi_index(tuple(a.reshape(-1) for a in arrays), adv_shape) if arrays[0].size \
        else np.zeros(0, np.int64)
    lin = np.asarray(lin, dtype=np.int64).reshape(-1)
    flat = _C_ops.reshape(vt, [int(np.prod(adv_shape))] + rest_shape)
    new = _C_ops.scatter(flat, _t(lin), upd, True)
    vt._copy_(_C_ops.reshape(new, vt.shape))
    return x
