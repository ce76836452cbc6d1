"""Graph ops of paddle.incubate: graph_send_recv, graph_sample_neighbors, graph_reindex,
graph_khop_sampler."""
import paddle
from paddle import _C_ops


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    r"""Gathers x[src_index] and reduces it into the rows dst_index of the output.

    Args:
        x (Tensor): float32, float64, int32 or int64 node features.
        src_index, dst_index (Tensor): 1-D int32/int64 edge ends, same length.
        pool_type (str): 'sum', 'mean', 'max' or 'min' (rows with no edge are 0).
        out_size (int|None): output rows; None or <= 0 keeps x.shape[0].

    Returns:
        Tensor of shape [out_size or x.shape[0]] + x.shape[1:].
    """
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError("pool_type should be `sum`, `mean`, `max` or `min`, but received %s"
                         % pool_type)
    if out_size is None:
        size = 0
    elif isinstance(out_size, paddle.Tensor):
        size = int(out_size.numpy().reshape([-1])[0])
    else:
        size = int(out_size)
    return _C_ops.graph_send_recv(x, src_index, dst_index, pool_type.upper(), max(size, 0))[0]


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False, name=None):
    r"""Samples neighbours of ``input_nodes`` in a CSC graph.

    Args:
        row (Tensor): 1-D int32/int64 source node of each edge, grouped by destination.
        colptr (Tensor): 1-D, colptr[n]:colptr[n+1] are node n's edges in ``row``.
        input_nodes (Tensor): nodes to sample around.
        eids (Tensor, optional): edge ids (needed when return_eids).
        perm_buffer, flag_perm_buffer: Paddle's GPU fast-path buffers (accepted, not needed).
        sample_size (int): neighbours per node; -1 takes all.
        return_eids (bool): also return the sampled edges' ids.

    Returns:
        (out_neighbors, out_count[, out_eids]); out_count is int32.
    """
    if return_eids and eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    nb, cnt, oe = _C_ops.graph_sample_neighbors(row, colptr, input_nodes,
                                                eids if return_eids else None,
                                                int(sample_size), bool(return_eids), 0)
    return (nb, cnt, oe) if return_eids else (nb, cnt)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None,
                  flag_buffer_hashtable=False, name=None):
    r"""Renumbers the nodes of a sampled subgraph from 0.

    ``out_nodes`` is ``x`` followed by each new node of ``neighbors`` in order of first
    appearance; ``reindex_src[i]`` is the new id of ``neighbors[i]``; ``reindex_dst`` repeats the
    new id of x[j] count[j] times. value_buffer / index_buffer / flag_buffer_hashtable are
    Paddle's GPU hash-table buffers (accepted, not needed).

    Returns:
        (reindex_src, reindex_dst, out_nodes)
    """
    src, dst, nodes = _C_ops.graph_reindex(x, neighbors, count)
    return src, dst, nodes


def _positions(table, values):
    """Index of each of ``values`` in ``table`` (all present), through graph_reindex."""
    n = table.shape[0]
    cnt = paddle.zeros([n], dtype='int32')
    if n > 0:
        cnt[0] = values.shape[0]
    return _C_ops.graph_reindex(table, values, cnt)


def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None,
                       return_eids=False, name=None):
    r"""Multi-hop neighbour sampling: hop k samples ``sample_sizes[k]`` neighbours of the nodes
    first reached in hop k - 1 (the input nodes for hop 0), then renumbers the subgraph.

    Returns:
        (edge_src, edge_dst, sample_index, reindex_nodes[, edge_eids]): edge_src / edge_dst are
        [E, 1] new ids of each sampled edge's neighbour / centre, sample_index the original ids
        of the subgraph's nodes (input nodes first), reindex_nodes the new ids of input_nodes.
    """
    if return_eids and sorted_eids is None:
        raise ValueError("`sorted_eids` should not be None if `return_eids` is True.")
    if not isinstance(sample_sizes, (list, tuple)) or not sample_sizes:
        raise ValueError(f"sample_sizes should be a non-empty list of ints, received {sample_sizes}")
    dt = row.dtype
    seen = input_nodes
    frontier = input_nodes
    nbs, centers, eids = [], [], []
    for k in sample_sizes:
        if frontier.shape[0] == 0:
            break
        res = graph_sample_neighbors(row, colptr, frontier, eids=sorted_eids, sample_size=k,
                                     return_eids=return_eids)
        nb, cnt = res[0], res[1]
        nbs.append(nb)
        centers.append(paddle.repeat_interleave(frontier, paddle.cast(cnt, 'int64'), 0)
                       if nb.shape[0] else nb)
        if return_eids:
            eids.append(res[2])
        nodes = _positions(seen, nb)[2]
        frontier = nodes[seen.shape[0]:]
        seen = nodes
    all_nb = paddle.concat(nbs) if nbs else paddle.zeros([0], dtype=dt)
    all_ct = paddle.concat(centers) if centers else paddle.zeros([0], dtype=dt)
    src, _, sample_index = _positions(input_nodes, all_nb)
    dst = _positions(sample_index, all_ct)[0]
    reindex_nodes = _positions(sample_index, input_nodes)[0]
    out = (src.reshape([-1, 1]), dst.reshape([-1, 1]), sample_index, reindex_nodes)
    if return_eids:
        out = out + (paddle.concat(eids) if eids else paddle.zeros([0], dtype=dt),)
    return out
