"""paddle.tensor.manipulation: Paddle 2.3's shape/movement/index API (reshape, transpose,
concat, split, gather, scatter, slice, unique ...) over the C ops in ops/manip.yaml,
ops/index.yaml and ops/sort.yaml. Arguments are normalised here; all data movement is C."""
import numpy as np

from .._C import _C_ops
from .. import _C
from ..framework import convert_dtype, to_numpy_dtype
from . import static_shape as _ss
from ..framework.misc import check_tensor

__all__ = [
    "reshape", "reshape_", "transpose", "squeeze", "squeeze_", "unsqueeze", "unsqueeze_",
    "flatten", "flatten_", "concat", "stack", "split", "chunk", "unbind", "expand", "expand_as",
    "broadcast_to", "tile", "flip", "roll", "gather", "gather_nd", "scatter", "scatter_",
    "scatter_nd_add", "scatter_nd", "index_select", "slice", "strided_slice", "unique",
    "unstack", "reverse", "broadcast_shape", "moveaxis",
]
_TENSOR_METHODS = [n for n in __all__ if n not in ("broadcast_shape",)]

Tensor = _C.Tensor


def _int(v):
    if isinstance(v, (str, bytes)):  # int("3") would pass: Paddle rejects a string where an int goes
        raise TypeError(f"expected an int, received {type(v).__name__} {v!r}")
    if isinstance(v, Tensor):
        a = np.asarray(v).reshape(-1)
        if a.size != 1:
            raise ValueError(f"expected a 1-element Tensor, received shape {v.shape}")
        return int(a[0])
    return int(v)


def _int_list(v):
    """int, list/tuple (of ints or 1-element Tensors) or Tensor -> list of ints."""
    if isinstance(v, Tensor):
        return [int(i) for i in np.asarray(v).reshape(-1)]
    if isinstance(v, (list, tuple)):
        return [_int(i) for i in v]
    if isinstance(v, np.ndarray):
        return [int(i) for i in v.reshape(-1)]
    return [_int(v)]


def _inplace_view(x, out):
    """The in-place shape ops (reshape_, flatten_, squeeze_, unsqueeze_): x takes out's value and
    shape; in a program they are their out-of-place forms, as Paddle's in-place APIs in static
    mode (a fed variable keeps its declared shape)."""
    if _C._is_variable(x):
        return out
    return x._set_view_of(out)


_check_tensor = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


def reshape(x, shape, name=None):
    _check_tensor(x, "reshape")
    if _ss.needs_tensor(shape):  # a program: entries known when it runs (reshape_dyn)
        return _ss.reshape(x, shape)
    return _C_ops.reshape(x, _int_list(shape))


def reshape_(x, shape, name=None):
    """In-place reshape: x itself takes the new shape (and returns x)."""
    return _inplace_view(x, reshape(x, shape))


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    """In-place flatten: x itself takes the flattened shape (and returns x)."""
    return _inplace_view(x, flatten(x, start_axis, stop_axis))


def transpose(x, perm, name=None):
    _check_tensor(x, "transpose")
    return _C_ops.transpose(x, _int_list(perm))


def squeeze(x, axis=None, name=None):
    _check_tensor(x, "squeeze")
    if axis is not None and _ss.needs_tensor(axis):  # a program: the axes are known when it runs
        return _ss.squeeze(x, axis)
    return _C_ops.squeeze(x, [] if axis is None else _int_list(axis))


def squeeze_(x, axis=None, name=None):
    return _inplace_view(x, squeeze(x, axis))


def unsqueeze(x, axis, name=None):
    _check_tensor(x, "unsqueeze")
    if _ss.needs_tensor(axis):  # a program: the axes are known when it runs
        return _ss.unsqueeze(x, axis)
    return _C_ops.unsqueeze(x, _int_list(axis))


def unsqueeze_(x, axis, name=None):
    return _inplace_view(x, unsqueeze(x, axis))


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    _check_tensor(x, "flatten")
    for v, nm in ((start_axis, "start_axis"), (stop_axis, "stop_axis")):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):  # Paddle: ValueError
            raise ValueError(f"(InvalidArgument) [flatten] {nm} must be an int, received {type(v).__name__}")
    return _C_ops.flatten(x, int(start_axis), int(stop_axis))


def concat(x, axis=0, name=None):
    if isinstance(x, Tensor):
        x = [x]
    return _C_ops.concat(list(x), _int(axis))


def stack(x, axis=0, name=None):
    return _C_ops.stack(list(x), _int(axis))


def split(x, num_or_sections, axis=0, name=None):
    _check_tensor(x, "split")
    if isinstance(num_or_sections, float):  # Paddle: int, list or tuple only
        raise TypeError(f"The type of 'num_or_sections' in split must be int, list or tuple in imperative "
                        f"mode, but received {type(num_or_sections)}.")
    if isinstance(axis, float):  # Paddle's split op takes an int axis (InvalidArgument)
        from ..framework.misc import enforce_error
        raise enforce_error(ValueError, "InvalidArgument", f"[split] axis must be an int, received float {axis}")
    axis = _int(axis)
    nd = len(x.shape)
    if axis < -nd or axis >= nd:
        raise ValueError(f"[split] axis must be in [{-nd}, {nd}), received {axis}")
    dim = x.shape[axis]
    if isinstance(num_or_sections, (list, tuple)):
        sections = _int_list(num_or_sections)
    else:
        n = _int(num_or_sections)
        if dim < 0 and n > 0:  # a program's unknown dim: n equal parts (dim / n each) when it runs
            ax = axis % nd
            rest = list(x.shape[ax + 1:])
            if any(r < 0 for r in rest):
                raise ValueError("[split] splitting an unknown dim into num parts needs the later dims known; "
                                 "pass section sizes")
            parts = _C_ops.reshape(x, [0] * ax + [n, -1] + rest)
            return list(_C_ops.unbind(parts, ax))
        if n <= 0 or dim % n != 0:
            raise ValueError(f"[split] the axis size {dim} must be divisible by num_or_sections, "
                             f"received {n}")
        sections = [dim // n] * n
    return _C_ops.split(x, sections, axis)


def chunk(x, chunks, axis=0, name=None):
    return split(x, _int(chunks), axis)


def unbind(input, axis=0):
    _check_tensor(input, "unbind", "input")
    a = _int(axis)
    if input.shape[a] < 0:
        raise ValueError(f"unbind/unstack: the size of axis {a} is unknown until the program runs, so the "
                         f"number of outputs is not known (shape {tuple(input.shape)}); use paddle.split")
    if _C._is_variable(input):
        return _C_ops.unbind(input, a)
    # dygraph: views of input, as Paddle 2.6's stride kernels (writing into input shows in them)
    a = a + len(input.shape) if a < 0 else a
    return [_C_ops.squeeze(_C_ops.slice(input, [a], [i], [i + 1]), [a]) for i in range(input.shape[a])]


def unstack(x, axis=0, num=None):
    return unbind(x, axis)


def expand(x, shape, name=None):
    _check_tensor(x, "expand")
    if _ss.needs_tensor(shape):  # a program: entries known when it runs (expand_dyn)
        t, known = _ss.shape_tensor(shape)
        return _ss.refine(_C_ops.expand_dyn(x, t, known), known)
    return _C_ops.expand(x, _int_list(shape))


def broadcast_to(x, shape, name=None):
    return expand(x, shape)


def expand_as(x, y, name=None):
    if _C._is_variable(y) and -1 in y.shape:  # a program: y's shape when it runs
        return _C_ops.expand_as(x, y)
    return expand(x, y.shape)


def tile(x, repeat_times, name=None):
    _check_tensor(x, "tile")
    if _ss.needs_tensor(repeat_times):  # a program: the repeats are known when it runs
        return _ss.tile(x, repeat_times)
    return _C_ops.tile(x, _int_list(repeat_times))


def flip(x, axis, name=None):
    _check_tensor(x, "flip")
    return _C_ops.flip(x, _int_list(axis))


reverse = flip


def roll(x, shifts, axis=None, name=None):
    _check_tensor(x, "roll")
    return _C_ops.roll(x, _int_list(shifts), [] if axis is None else _int_list(axis))


def _index_tensor(index, op):
    if isinstance(index, Tensor):
        return index
    a = np.asarray(index)
    if a.dtype.kind not in "iu":
        raise TypeError(f"[{op}] expected an integer index, received dtype {a.dtype}")
    return _C.from_buffer(np.ascontiguousarray(a, dtype=np.int64))


def gather(x, index, axis=None, name=None):
    _check_tensor(x, "gather")
    index = _index_tensor(index, "gather")
    if _ss.is_var(axis) and len(index.shape) != 0:  # a program Variable: read when the program runs
        return _ss.attr_dyn("gather", [x, index, axis], {2})
    ax = 0 if axis is None else _int(axis)
    if len(index.shape) == 0:  # a 0-D index selects one slice and drops the axis (Paddle 2.6)
        return _C_ops.squeeze(_C_ops.gather(x, _C_ops.reshape(index, [1]), ax), [ax])
    return _C_ops.gather(x, index, ax)


def gather_nd(x, index, name=None):
    _check_tensor(x, "gather_nd")
    return _C_ops.gather_nd(x, _index_tensor(index, "gather_nd"))


def scatter(x, index, updates, overwrite=True, name=None):
    _check_tensor(x, "scatter")
    return _C_ops.scatter(x, _index_tensor(index, "scatter"), updates, bool(overwrite))


def scatter_(x, index, updates, overwrite=True, name=None):
    out = scatter(x, index, updates, overwrite)
    x._copy_(out)
    return x


def scatter_nd_add(x, index, updates, name=None):
    _check_tensor(x, "scatter_nd_add")
    return _C_ops.scatter_nd_add(x, _index_tensor(index, "scatter_nd_add"), updates)


def scatter_nd(index, updates, shape, name=None):
    shape = _int_list(shape)
    zeros = _C.from_buffer(np.zeros(shape, dtype=to_numpy_dtype(updates.dtype)))
    return scatter_nd_add(zeros, index, updates)


def index_select(x, index, axis=0, name=None):
    _check_tensor(x, "index_select")
    return _C_ops.index_select(x, _index_tensor(index, "index_select"), _int(axis))


def slice(input, axes, starts, ends):
    _check_tensor(input, "slice", "input")
    return _C_ops.slice(input, _int_list(axes), _int_list(starts), _int_list(ends))


def strided_slice(x, axes, starts, ends, strides, name=None):
    _check_tensor(x, "strided_slice")
    return _C_ops.strided_slice(x, _int_list(axes), _int_list(starts), _int_list(ends),
                                _int_list(strides))


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    _check_tensor(x, "unique")
    axis = [] if axis is None else _int_list(axis)
    out, idx, inv, cnt = _C_ops.unique(x, True, True, True, axis, convert_dtype(dtype))
    res = [out]
    if return_index:
        res.append(idx)
    if return_inverse:
        res.append(inv)
    if return_counts:
        res.append(cnt)
    return res[0] if len(res) == 1 else tuple(res)


def broadcast_shape(x_shape, y_shape):
    a, b = list(x_shape), list(y_shape)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    out = []
    for i, (p, q) in enumerate(zip(a, b)):
        if p != q and p != 1 and q != 1:
            raise ValueError(f"[broadcast_shape] shapes {list(x_shape)} and {list(y_shape)} are not "
                             f"broadcastable (dim {i}: {p} vs {q})")
        out.append(q if p == 1 else p)
    return out


def moveaxis(x, source, destination, name=None):
    _check_tensor(x, "moveaxis")
    src, dst = _int_list(source), _int_list(destination)
    nd = len(x.shape)
    if len(src) != len(dst):
        raise ValueError("[moveaxis] source and destination must have the same length")
    src = [s + nd if s < 0 else s for s in src]
    dst = [d + nd if d < 0 else d for d in dst]
    for v in src + dst:
        if v < 0 or v >= nd:
            raise ValueError(f"[moveaxis] axis out of range for a {nd}-D tensor")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return transpose(x, perm)
