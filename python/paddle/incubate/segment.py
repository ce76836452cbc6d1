"""segment_sum / segment_mean / segment_max / segment_min (the segment_pool op)."""
from paddle import _C_ops


def _segment(data, segment_ids, pooltype):
    return _C_ops.segment_pool(data, segment_ids, pooltype)[0]


def segment_sum(data, segment_ids, name=None):
    r"""Sums the rows of ``data`` that share a segment id: out[i] = sum_{j: ids[j] == i} data[j].

    Args:
        data (Tensor): float32, float64, int32 or int64, at least 1-D.
        segment_ids (Tensor): 1-D int32/int64 of length data.shape[0], sorted ascending.

    Returns:
        Tensor with max(segment_ids) + 1 rows (empty segments are 0).
    """
    return _segment(data, segment_ids, "SUM")


def segment_mean(data, segment_ids, name=None):
    r"""Mean of the rows of each segment (empty segments are 0). See segment_sum."""
    return _segment(data, segment_ids, "MEAN")


def segment_max(data, segment_ids, name=None):
    r"""Element-wise max of the rows of each segment (empty segments are 0). See segment_sum."""
    return _segment(data, segment_ids, "MAX")


def segment_min(data, segment_ids, name=None):
    r"""Element-wise min of the rows of each segment (empty segments are 0). See segment_sum."""
    return _segment(data, segment_ids, "MIN")
