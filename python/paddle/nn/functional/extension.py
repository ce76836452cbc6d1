"""nn.functional extras of Paddle 2.3 written over existing ops: diag_embed, label_smooth,
sequence_mask, temporal_shift (slices, zero padding in time and a concat: autograd for free) and
gather_tree (the C op: beam-search backtracking)."""
import numpy as np

from ... import _C
from ...framework.dtype import convert_dtype
from ...tensor.tensor_extra import diag_embed  # noqa: F401

_ops = _C._C_ops


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior (uniform 1/C when prior_dist is None)."""
    if not 0 <= epsilon <= 1:
        raise ValueError(f"label_smooth: epsilon must be in [0, 1], received {epsilon}")
    c = label.shape[-1]
    out = _ops.scale(label, 1.0 - float(epsilon), 0.0, True)
    if prior_dist is None:
        return _ops.scale(out, 1.0, float(epsilon) / c, True)
    return _ops.add(out, _ops.scale(prior_dist, float(epsilon), 0.0, True))


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """mask[..., j] = j < x[...] for j in range(maxlen) (maxlen defaults to max(x))."""
    if maxlen is None:
        if _C._is_variable(x):
            raise ValueError("sequence_mask: in a static program maxlen must be given (the output width "
                             "cannot depend on the lengths' values)")
        maxlen = int(_ops.max(x, [], False).item())
    if isinstance(maxlen, _C.Tensor):
        maxlen = int(maxlen.item())
    rng = _ops.arange(0, int(maxlen), 1, convert_dtype("int64"))
    xx = _ops.unsqueeze(_ops.cast(x, convert_dtype("int64")), [-1])
    return _ops.cast(_ops.less_than(rng, xx), convert_dtype(dtype))


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Temporal Shift Module: x [N*T, C, H, W] (T = seg_num) seen as [N, T, C, H, W]; the first
    int(C * shift_ratio) channels take the previous step's values, the next ones (up to
    int(2 * C * shift_ratio)) the following step's, zeros past either end; the rest stay."""
    import paddle
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("[temporal_shift] Attr(data_format) should be 'NCHW' or 'NHWC'. "
                         f"Received Attr(data_format): {data_format}.")
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"[temporal_shift] expected x to be a paddle.Tensor, received {type(x).__name__}")
    if len(x.shape) != 4:
        raise ValueError(f"[temporal_shift] expected a 4-D input, received {len(x.shape)}-D")
    seg_num = int(seg_num)
    if seg_num <= 0:
        raise ValueError(f"[temporal_shift] expected seg_num > 0, received {seg_num}")
    if not 0 < float(shift_ratio) < 0.5:
        raise ValueError(f"[temporal_shift] expected shift_ratio in (0, 0.5), received {shift_ratio}")
    nt = x.shape[0]
    if nt >= 0 and nt % seg_num:
        raise ValueError(f"[temporal_shift] the batch size {nt} must be divisible by seg_num {seg_num}")
    cl = data_format == "NHWC"
    c = x.shape[3] if cl else x.shape[1]
    # Paddle computes the split points in float32
    c1 = int(np.float32(c) * np.float32(shift_ratio))
    c2 = int(np.float32(2 * c) * np.float32(shift_ratio))
    T = seg_num
    x5 = paddle.reshape(x, [nt // T if nt >= 0 else -1, T] + list(x.shape[1:]))
    ax = 4 if cl else 2

    def chans(lo, hi):
        return paddle.slice(x5, [ax], [lo], [hi])

    def shifted(part, step):
        # out[:, t] = part[:, t - step] (zero outside [0, T))
        if T == 1:
            return paddle.zeros_like(part)
        if step > 0:
            body = paddle.slice(part, [1], [0], [T - 1])
            pads = [0, 0, 1, 0] + [0, 0] * 3
        else:
            body = paddle.slice(part, [1], [1], [T])
            pads = [0, 0, 0, 1] + [0, 0] * 3
        return _ops.pad(body, pads, "constant", 0.0)

    pieces = []
    if c1 > 0:
        pieces.append(shifted(chans(0, c1), 1))
    if c2 > c1:
        pieces.append(shifted(chans(c1, c2), -1))
    if c > c2:
        pieces.append(chans(c2, c))
    out = pieces[0] if len(pieces) == 1 else paddle.concat(pieces, axis=ax)
    return paddle.reshape(out, list(x.shape))


def gather_tree(ids, parents):
    """Backtracks beam search: ids and parents [max_time, batch_size, beam_size] (int32/int64);
    out[T-1] = ids[T-1] and out[t, b, k] = ids[t, b, p_t] following the parents from the last step."""
    for n, t in (("ids", ids), ("parents", parents)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"[gather_tree] expected {n} to be a paddle.Tensor, received {type(t).__name__}")
    return _ops.gather_tree(ids, parents)


__all__ = ["diag_embed", "label_smooth", "sequence_mask", "temporal_shift", "gather_tree"]
