"""paddle.geometric.math: segment reductions (the C kernels of paddle.incubate.segment_*)."""
from ..incubate import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401

__all__ = ["segment_sum", "segment_mean", "segment_min", "segment_max"]
