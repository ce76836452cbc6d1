"""paddle.geometric.reindex: reindex_graph (the C kernel of paddle.incubate.graph_reindex)."""
from .. import incubate as _incubate

__all__ = ["reindex_graph"]


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Renumbers the nodes of x and their sampled neighbors compactly: (reindex_src,
    reindex_dst, out_nodes), as Paddle 2.6."""
    return _incubate.graph_reindex(x, neighbors, count, value_buffer, index_buffer,
                                   flag_buffer_hashtable=value_buffer is not None and index_buffer is not None)
