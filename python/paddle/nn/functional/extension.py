"""nn.functional extras of Paddle 2.3 written over existing ops: diag_embed, label_smooth,
sequence_mask."""
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
        maxlen = int(_ops.max(x, [], False).item())
    if isinstance(maxlen, _C.Tensor):
        maxlen = int(maxlen.item())
    rng = _ops.arange(0, int(maxlen), 1, convert_dtype("int64"))
    xx = _ops.unsqueeze(_ops.cast(x, convert_dtype("int64")), [-1])
    return _ops.cast(_ops.less_than(rng, xx), convert_dtype(dtype))


__all__ = ["diag_embed", "label_smooth", "sequence_mask"]
