"""paddle.geometric (Paddle 2.4+): message passing on graphs, segment reductions and neighbour
sampling. The computing ops are the C kernels behind paddle.incubate's graph_send_recv,
segment_* and graph_sample_neighbors / graph_reindex (csrc/kernels/cpu/incubate_graph.c);
here are Paddle 2.6's names and signatures over them."""
from .math import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401
from .message_passing import send_u_recv, send_ue_recv, send_uv  # noqa: F401
from .reindex import reindex_graph  # noqa: F401
from .sampling import sample_neighbors  # noqa: F401

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean", "segment_min", "segment_max",
           "reindex_graph", "sample_neighbors"]
