"""Indexing of static program Variables (Tensor.__getitem__/__setitem__ when x or an index is a
Variable). Dims may be unknown until the program runs, so slices keep Python's bounds and the
slice ops clamp them at run time; int/bool tensors index through gather ops; x[idx] = v records
slice_scatter (plus the advanced-index update of the sliced region) writing x's variable, as
Paddle 2.3's set_value does. Results match eager indexing (Paddle 2.3 semantics, shape [1] when
every dim is indexed away)."""
import builtins

import numpy as np

from .. import _C
from .._C import _C_ops
from . import static_shape as _ss

Tensor = _C.Tensor
_BIG = 1 << 62  # "to the end": the slice ops clamp it to the dim at run time


def _i64():
    return _C.dtypes[[d.name for d in _C.dtypes].index("int64")]


def _items(x, index):
    """index -> per-dim items: ['int', k], ['slice', s], ['none'], ['adv', tensor or ndarray],
    ['mask', bool tensor or ndarray]; the ellipsis expanded."""
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
            for v in (it.start, it.stop, it.step):
                if isinstance(v, Tensor):
                    raise NotImplementedError("a slice bound that is a Tensor is not supported in a static "
                                              "program; use paddle.slice / paddle.strided_slice")
            items.append(["slice", builtins.slice(*[None if v is None else int(v)
                                                     for v in (it.start, it.stop, it.step)])])
        elif isinstance(it, Tensor):
            if it.dtype.name == "bool":
                items.append(["mask", it])
            elif it.dtype.name in ("int32", "int64", "int16", "int8", "uint8"):
                items.append(["adv", it])
            else:
                raise IndexError(f"tensors used as indices must be integer or bool, received {it.dtype.name}")
        elif isinstance(it, (list, np.ndarray)):
            a = np.asarray(it)
            if a.dtype == np.bool_:
                items.append(["mask", a])
            elif a.dtype.kind in "iu" or a.size == 0:
                items.append(["adv", a.astype(np.int64)])
            else:
                raise IndexError(f"index arrays must be integer or bool, received {a.dtype}")
        else:
            raise IndexError(f"unsupported index type {type(it).__name__}; expected int, slice, None, "
                             "Ellipsis, list, numpy array or Tensor")
    ndim = len(x.shape)
    used = sum(np.ndim(i[1]) if i[0] == "mask" and not isinstance(i[1], Tensor) else
               (len(i[1].shape) if i[0] == "mask" else (0 if i[0] in ("none", "ellipsis") else 1)) for i in items)
    if sum(1 for i in items if i[0] == "ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"too many indices for a tensor of {ndim} dims: {used} were indexed")
    out = []
    for i in items:
        if i[0] == "ellipsis":
            out += [["slice", builtins.slice(None)] for _ in range(ndim - used)]
        else:
            out.append(i)
    if not any(i[0] == "ellipsis" for i in items):
        out += [["slice", builtins.slice(None)] for _ in range(ndim - used)]
    return out


def _slice_attrs(n, s):
    """(start, end, step) for slice s on a dim of size n (-1: unknown, clamped at run time)."""
    if s.step == 0:
        raise ValueError("slice step cannot be zero")
    if n >= 0:
        b, e, st = s.indices(n)
        if st < 0:
            e = -n - 1 if e < 0 else e
            b = -n - 1 if b < 0 else b
        return b, e, st
    st = 1 if s.step is None else s.step
    if st > 0:
        return (0 if s.start is None else s.start), (_BIG if s.stop is None else s.stop), st
    return (_BIG if s.start is None else s.start), (-_BIG if s.stop is None else s.stop), st


def _int_attrs(n, k, d):
    if n >= 0:
        if k < -n or k >= n:
            raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
        k = k + n if k < 0 else k
        return k, k + 1
    return k, (_BIG if k == -1 else k + 1)


def _basic(x, items):
    """None items -> unsqueeze; slices and (without advanced indices) ints -> one slice op.
    Returns (view, per-dim items of the view, attrs (axes, starts, ends, steps), squeezed dims)."""
    has_adv = any(i[0] in ("adv", "mask") for i in items)
    pos, ins = 0, []
    for i in items:
        if i[0] == "none":
            ins.append(pos)
            i[:] = ["slice", builtins.slice(None)]
        pos += _rank(i[1]) if i[0] == "mask" else 1
    v = _C_ops.unsqueeze(x, ins) if ins else x
    shape = v.shape
    axes, starts, ends, steps, squeeze, dims = [], [], [], [], [], []
    d = 0
    for i in items:
        if i[0] == "mask":
            dims.append(i)
            d += _rank(i[1])
            continue
        n = shape[d]
        if i[0] == "int":
            if has_adv:
                k = i[1]
                if n >= 0 and (k < -n or k >= n):
                    raise IndexError(f"index {k} is out of bounds for axis {d} with size {n}")
                dims.append(["adv", np.asarray(k + n if (k < 0 and n >= 0) else k, dtype=np.int64)])
            else:
                b, e = _int_attrs(n, i[1], d)
                axes.append(d), starts.append(b), ends.append(e), steps.append(1)
                squeeze.append(d)
                dims.append(i)
        elif i[0] == "slice":
            if i[1] != builtins.slice(None):
                b, e, st = _slice_attrs(n, i[1])
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
    return v, dims, (axes, starts, ends, steps), (squeeze if not has_adv else []), ins


def _rank(m):
    return len(m.shape) if isinstance(m, Tensor) else np.ndim(m)


def _squeeze(v, squeeze):
    if not squeeze:
        return v
    if len(squeeze) == len(v.shape):  # every dim indexed away: the scalar rule ([1] or 0-D)
        return _C_ops.reshape(v, [])
    return _C_ops.squeeze(v, squeeze)


def _index_tensor(a, n):
    """An advanced index as an int64 tensor with negative entries wrapped (n: the dim, -1 unknown)."""
    if isinstance(a, np.ndarray):
        if n >= 0:
            if a.size and (a.min() < -n or a.max() >= n):
                bad = a[(a < -n) | (a >= n)].reshape(-1)[0]
                raise IndexError(f"index {bad} is out of bounds for a dim of size {n}")
            return _C.from_buffer(np.ascontiguousarray(np.where(a < 0, a + n, a).astype(np.int64).reshape(a.shape or (1,))))
        a = _C.from_buffer(np.ascontiguousarray(a.astype(np.int64).reshape(a.shape or (1,))))
        if not (np.asarray(a) < 0).any():
            return a
    t = a if a.dtype.name == "int64" else _C_ops.cast(a, _i64())
    return t


def _wrap_negative(t, v, d):
    """where(t < 0, t + dim d of v, t) at run time."""
    zero = _C_ops.full([1], 0, _i64())
    return _C_ops.where(_C_ops.less_than(t, zero), _C_ops.add(t, _ss.dim_of(v, d)), t)


def _adv_plan(v, dims):
    """-> (advanced dims of v, int64 index tensors, broadcast index shape)."""
    adv_dims, idx = [], []
    d = 0
    for i in dims:
        if i[0] == "mask":
            m = i[1]
            k = _rank(m)
            mt = m if isinstance(m, Tensor) else _C.from_buffer(np.ascontiguousarray(m))
            for a, b in zip(mt.shape, v.shape[d:d + k]):
                if a >= 0 and b >= 0 and a != b:
                    raise IndexError(f"boolean index of shape {tuple(mt.shape)} does not match the indexed "
                                     f"dims {tuple(v.shape[d:d + k])}")
            nz = _C_ops.nonzero(mt)  # [K, k] int64
            for j in range(k):
                adv_dims.append(d + j)
                idx.append(_C_ops.squeeze(_C_ops.slice(nz, [1], [j], [j + 1]), [1]))
            d += k
        elif i[0] == "adv":
            n = v.shape[d]
            t = _index_tensor(i[1], n)
            if isinstance(i[1], Tensor) or n < 0:
                t = _wrap_negative(t, v, d)
            adv_dims.append(d)
            idx.append(t)
            d += 1
        else:
            d += 1
    shapes = [list(t.shape) for t in idx]
    if any(s != shapes[0] for s in shapes):
        if all(-1 not in s for s in shapes):
            b = list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
            idx = [_C_ops.expand(t, b) if list(t.shape) != b else t for t in idx]
        else:
            raise NotImplementedError("advanced indices of different shapes with unknown dims cannot be "
                                      "broadcast in a static program")
    return adv_dims, idx, list(idx[0].shape)


def _adjacent(adv_dims):
    return all(b == a + 1 for a, b in zip(adv_dims, adv_dims[1:]))


def getitem(x, index):
    items = _items(x, index)
    v, dims, _, squeeze, _ = _basic(x, items)
    if not any(i[0] in ("adv", "mask") for i in dims):
        return _squeeze(v, squeeze)
    advs = [i for i in dims if i[0] in ("adv", "mask")]
    if len(advs) == 1 and advs[0][0] == "mask" and _rank(advs[0][1]) == len(v.shape):
        m = advs[0][1]
        return _C_ops.masked_select(v, m if isinstance(m, Tensor) else _C.from_buffer(np.ascontiguousarray(m)))
    adv_dims, idx, B = _adv_plan(v, dims)
    if len(adv_dims) == 1 and len(B) == 1:  # one 1-D index on one dim: index_select
        return _C_ops.index_select(v, idx[0], adv_dims[0])
    nd = len(v.shape)
    rest = [d for d in range(nd) if d not in adv_dims]
    vt = _C_ops.transpose(v, adv_dims + rest) if adv_dims + rest != list(range(nd)) else v
    out = _C_ops.gather_nd(vt, _C_ops.stack(idx, -1))
    nb = len(B)
    if nb and _adjacent(adv_dims) and adv_dims[0] > 0:
        p = adv_dims[0]
        perm = list(range(nb, nb + p)) + list(range(nb)) + list(range(nb + p, nb + len(rest)))
        out = _C_ops.transpose(out, perm)
    return out


# ---------------------------------------------------------------- setitem
def _value(x, value):
    """value as a tensor of x's dtype."""
    from .to_tensor import to_tensor
    if not isinstance(value, Tensor):
        from ..framework.dtype import to_numpy_dtype
        dt = x.dtype.name
        a = np.asarray(value, dtype=np.float32 if dt == "bfloat16" else to_numpy_dtype(x.dtype))
        return to_tensor(a.reshape(1) if a.ndim == 0 else a, dtype=x.dtype)
    return value if value.dtype == x.dtype else _C_ops.cast(value, x.dtype)


def _write(x, new):
    """x's variable takes new's value: the op that made new writes x directly (Paddle's set_value
    writes its Input variable)."""
    from ..static.framework import default_main_program
    blk = default_main_program().current_block()
    od = blk.desc.op(blk.desc.op_size() - 1)
    if new.name in od.output_arg_names() and not new.persistable:
        od._rename_output(new.name, x.name)
        blk.desc._remove_var(new.name)
    else:
        _C._static_assign(x, new)
    if not new.stop_gradient:
        x.stop_gradient = False
    return x


def setitem(x, index, value):
    """x[index] = value: x's variable is rewritten (Paddle 2.3's set_value on its Input)."""
    if not _C._is_variable(x):
        raise TypeError("setitem: writing into a tensor with data from a static program value is not supported; "
                        "make the target a program variable (paddle.assign)")
    return _write(x, updated(x, index, value))


def updated(x, index, value):
    """A new tensor: x with x[index] = value (paddle.static.setitem, Paddle 2.6)."""
    items = _items(x, index)
    if any(i[0] == "none" for i in items):
        items = [i for i in items if i[0] != "none"]  # None adds no dim to the written region
    region, dims, attrs, squeeze, _ = _basic(x, items)
    axes, starts, ends, steps = attrs
    val = _value(x, value)
    if any(i[0] in ("adv", "mask") for i in dims):
        new_region = _set_advanced(region, dims, val)
    else:
        # the value broadcasts against the region with its int-indexed dims removed
        target = _squeeze(region, squeeze) if squeeze and len(squeeze) < len(region.shape) else region
        vb = val
        if len(vb.shape) > len(target.shape):
            extra = len(vb.shape) - len(target.shape)
            vb = _C_ops.reshape(vb, list(vb.shape[extra:])) if all(s == 1 for s in vb.shape[:extra]) else vb
        vb = _C_ops.expand_as(vb, target) if list(vb.shape) != list(target.shape) or -1 in target.shape else vb
        new_region = _C_ops.unsqueeze(vb, squeeze) if target is not region else vb
    if not axes:  # the whole tensor
        return _C_ops.assign(new_region) if new_region is region else new_region
    return _C_ops.slice_scatter(x, new_region, axes, starts, ends, steps)


def _set_advanced(v, dims, val):
    """The region v with its advanced-indexed elements replaced by val (a new tensor)."""
    advs = [i for i in dims if i[0] in ("adv", "mask")]
    if len(advs) == 1 and advs[0][0] == "mask" and _rank(advs[0][1]) == len(v.shape):
        m = advs[0][1]
        m = m if isinstance(m, Tensor) else _C.from_buffer(np.ascontiguousarray(m))
        return _C_ops.where(m, val, v)
    if any(s < 0 for s in v.shape):
        raise NotImplementedError("x[advanced index] = value on a region with unknown dims is not supported "
                                  "in a static program; use paddle.scatter / paddle.where")
    adv_dims, idx, B = _adv_plan(v, dims)
    nd = len(v.shape)
    rest = [d for d in range(nd) if d not in adv_dims]
    vt = _C_ops.transpose(v, adv_dims + rest)
    adv_shape = [v.shape[d] for d in adv_dims]
    rest_shape = [v.shape[d] for d in rest]
    nb = len(B)
    if nb and _adjacent(adv_dims) and adv_dims[0] > 0:
        p = adv_dims[0]
        rshape = rest_shape[:p] + B + rest_shape[p:]
        upd = _C_ops.expand(_C_ops.reshape(val, [1] * (len(rshape) - len(val.shape)) + list(val.shape)), rshape)
        perm = list(range(p, p + nb)) + list(range(p)) + list(range(p + nb, len(rshape)))
        upd = _C_ops.transpose(upd, perm)
    else:
        full = (B + rest_shape) or [1]
        upd = _C_ops.expand(_C_ops.reshape(val, [1] * (len(full) - len(val.shape)) + list(val.shape)), full)
    n = int(np.prod(B)) if nb else 1
    upd = _C_ops.reshape(upd, [n] + rest_shape)
    # linear positions over the advanced dims: sum idx_k * stride_k
    lin = None
    stride = 1
    for k in range(len(idx) - 1, -1, -1):
        term = _C_ops.multiply(idx[k], _C_ops.full([1], stride, _i64())) if stride != 1 else idx[k]
        lin = term if lin is None else _C_ops.add(lin, term)
        stride *= adv_shape[k]
    lin = _C_ops.reshape(lin, [-1])
    flat = _C_ops.reshape(vt, [int(np.prod(adv_shape))] + rest_shape)
    new = _C_ops.scatter(flat, lin, upd, True)
    new = _C_ops.reshape(new, list(vt.shape))
    inv = [0] * nd
    for i, p in enumerate(adv_dims + rest):
        inv[p] = i
    return _C_ops.transpose(new, inv)
