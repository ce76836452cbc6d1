"""paddle.incubate (Paddle 2.3): autograd, segment pooling, graph message passing and sampling,
fused masked softmax, and the LookAhead / ModelAverage optimizers."""
from . import autograd  # noqa: F401
from .segment import segment_sum, segment_mean, segment_max, segment_min  # noqa: F401
from .graph import (graph_send_recv, graph_khop_sampler, graph_sample_neighbors,  # noqa: F401
                    graph_reindex)
from .softmax_mask_fuse import softmax_mask_fuse, softmax_mask_fuse_upper_triangle  # noqa: F401
from . import optimizer  # noqa: F401
from .optimizer import LookAhead, ModelAverage  # noqa: F401

__all__ = [
    'LookAhead', 'ModelAverage', 'softmax_mask_fuse_upper_triangle', 'softmax_mask_fuse',
    'graph_send_recv', 'graph_khop_sampler', 'graph_sample_neighbors', 'graph_reindex',
    'segment_sum', 'segment_mean', 'segment_max', 'segment_min',
]
