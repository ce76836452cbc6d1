"""paddle.static.nn sequence layers (Paddle 2.3, static mode only): they work on LoD tensors, a
batch of variable-length sequences stored back to back with offsets. Each records one sequence op
(ops/sequence.yaml) whose offsets argument is left empty: the executor binds the input value's
LoD to it and gives the outputs their LoD (csrc/graph/pd_executor.c, "LoD")."""
from ..._C import _C_ops as _ops
from ._helper import Helper, append_act, dtype_name, lod_level, sequence_only, set_lod_level

__all__ = ["sequence_conv", "sequence_softmax", "sequence_pool", "sequence_concat", "sequence_first_step",
           "sequence_last_step", "sequence_slice", "sequence_expand", "sequence_expand_as", "sequence_pad",
           "sequence_unpad", "sequence_reshape", "sequence_scatter", "sequence_enumerate", "sequence_reverse"]


def _check(x, name, op, dtypes):
    dt = dtype_name(x)
    if dt not in dtypes:
        raise TypeError(f"The data type of '{name}' in {op} must be {dtypes}, but received {dt}.")


def _same_lod(out, x):
    return set_lod_level(out, lod_level(x))


@sequence_only
def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True, padding_start=None,
                  bias_attr=None, param_attr=None, act=None, name=None):
    """Convolution over each sequence's steps: step t sees steps t + padding_start ... t +
    padding_start + filter_size - 1 of its own sequence (zeros outside), times a
    [filter_size * width, num_filters] filter; then bias and act."""
    _check(input, "input", "sequence_conv", ("float32", "float64"))
    if filter_stride != 1:
        raise ValueError("sequence_conv: only filter_stride = 1 is supported")
    helper = Helper("sequence_conv", name)
    dt = dtype_name(input)
    w = helper.param(param_attr, [filter_size * input.shape[1], num_filters], dt)
    if padding_start is None:
        padding_start = -int(filter_size // 2)
    out = _ops.sequence_conv(input, None, w, int(filter_size), int(padding_start), int(filter_stride))
    b = helper.param(bias_attr, [num_filters], dt, is_bias=True)
    if b is not None:
        out = out + b
    return helper.done(_same_lod(append_act(out, act), input))


@sequence_only
def sequence_softmax(input, use_cudnn=False, name=None):
    """Softmax over the steps of each sequence (one value per step: [T] or [T, 1])."""
    _check(input, "input", "sequence_softmax", ("float32", "float64"))
    return _same_lod(_ops.sequence_softmax(input, None), input)


@sequence_only
def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):
    """One row per sequence: average, sum, sqrt (sum / sqrt(length)), max, last or first;
    empty sequences give pad_value."""
    _check(input, "input", "sequence_pool", ("float32", "float64"))
    pt = str(pool_type).upper()
    if pt not in ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST"):
        raise ValueError(f"sequence_pool: pool_type must be one of average, sum, sqrt, max, last, first, "
                         f"received {pool_type!r}")
    out, max_index = _ops.sequence_pool(input, None, pt, float(pad_value), bool(is_test))
    max_index.stop_gradient = True
    return set_lod_level(out, max(lod_level(input) - 1, 0))


@sequence_only
def sequence_concat(input, name=None):
    """Sequence i of the result is sequence i of every input, one after another."""
    if not isinstance(input, (list, tuple)) or not input:
        raise TypeError("sequence_concat: input must be a non-empty list of Variables")
    lods = [_ops.sequence_lod(x, None, -1) for x in input]
    out, _ = _ops.sequence_concat(list(input), lods)
    return _same_lod(out, input[0])


def sequence_first_step(input):
    """The first step of each sequence (sequence_pool 'first')."""
    return sequence_pool(input, "first")


def sequence_last_step(input):
    """The last step of each sequence (sequence_pool 'last')."""
    return sequence_pool(input, "last")


@sequence_only
def sequence_slice(input, offset, length, name=None):
    """Steps [offset[i], offset[i] + length[i]) of each sequence i (offset, length: [N, 1] ints)."""
    offset.stop_gradient = True
    length.stop_gradient = True
    out, _ = _ops.sequence_slice(input, None, offset, length)
    return _same_lod(out, input)


@sequence_only
def sequence_expand(x, y, ref_level=-1, name=None):
    """Repeats sequence i of x (row i when x has no LoD) as many times as sequence i of y's LoD
    level ref_level has steps."""
    _check(x, "x", "sequence_expand", ("float32", "float64", "int32", "int64"))
    out, _ = _ops.sequence_expand(x, y, None, None, int(ref_level))
    return set_lod_level(out, lod_level(x))


@sequence_only
def sequence_expand_as(x, y, name=None):
    """Repeats row i of x as many times as sequence i of y has steps; the result has y's LoD."""
    _check(x, "x", "sequence_expand_as", ("float32", "float64", "int32", "int64"))
    out, _ = _ops.sequence_expand_as(x, y, None)
    return set_lod_level(out, 1)


@sequence_only
def sequence_pad(x, pad_value, maxlen=None, name=None):
    """(padded [N, maxlen, ...] filled with pad_value past each sequence's end, lengths [N])."""
    _check(x, "x", "sequence_pad", ("float32", "float64", "int32", "int64"))
    out, length = _ops.sequence_pad(x, None, pad_value, -1 if maxlen is None else int(maxlen))
    length.stop_gradient = True
    return out, length


@sequence_only
def sequence_unpad(x, length, name=None):
    """The inverse of sequence_pad: the first length[i] steps of row i, as a LoD tensor."""
    _check(x, "x", "sequence_unpad", ("float32", "float64", "int32", "int64"))
    length.stop_gradient = True
    out, _ = _ops.sequence_unpad(x, length)
    return set_lod_level(out, 1)


@sequence_only
def sequence_reshape(input, new_dim):
    """Each sequence's elements regrouped into rows of new_dim."""
    _check(input, "input", "sequence_reshape", ("float32", "float64", "int32", "int64"))
    out, _ = _ops.sequence_reshape(input, None, int(new_dim))
    return _same_lod(out, input)


@sequence_only
def sequence_scatter(input, index, updates, name=None):
    """input with updates added: row i gets updates of index's sequence i at the columns index
    names."""
    _check(input, "input", "sequence_scatter", ("float32", "float64"))
    index.stop_gradient = True
    return _ops.sequence_scatter(input, index, updates, None)


@sequence_only
def sequence_enumerate(input, win_size, pad_value=0, name=None):
    """Each step's window of the next win_size ids of its sequence (pad_value past the end)."""
    _check(input, "input", "sequence_enumerate", ("int32", "int64"))
    return _same_lod(_ops.sequence_enumerate(input, None, int(win_size), int(pad_value)), input)


@sequence_only
def sequence_reverse(x, name=None):
    """Each sequence's steps in reverse order."""
    _check(x, "x", "sequence_reverse", ("float32", "float64", "int8", "int32", "int64"))
    return _same_lod(_ops.sequence_reverse(x, None), x)
