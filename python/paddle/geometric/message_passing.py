"""paddle.geometric.message_passing: send_u_recv, send_ue_recv and send_uv. Messages are
gathered and combined with the elementwise C ops; the reduction onto the destination nodes is
the C kernel of graph_send_recv (paddle.incubate)."""
from .. import incubate as _incubate

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]

_REDUCE = ("sum", "mean", "max", "min")
_MESSAGE = ("add", "sub", "mul", "div")


def _p():
    import paddle
    return paddle


def _check(op, reduce_op=None, message_op=None):
    if reduce_op is not None and reduce_op not in _REDUCE:
        raise ValueError(f"[{op}] reduce_op must be one of {_REDUCE}, received {reduce_op!r}")
    if message_op is not None and message_op not in _MESSAGE:
        raise ValueError(f"[{op}] message_op must be one of {_MESSAGE}, received {message_op!r}")


def _combine(a, b, message_op):
    p = _p()
    return {"add": p.add, "sub": p.subtract, "mul": p.multiply, "div": p.divide}[message_op](a, b)


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """out[d] = reduce over the edges e with dst_index[e] = d of x[src_index[e]]."""
    _check("send_u_recv", reduce_op=reduce_op)
    return _incubate.graph_send_recv(x, src_index, dst_index, pool_type=reduce_op, out_size=out_size)


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """out[d] = reduce over the edges e with dst_index[e] = d of x[src_index[e]] (message_op) y[e]."""
    _check("send_ue_recv", reduce_op, message_op)
    p = _p()
    msg = _combine(p.gather(x, src_index), y, message_op)
    edges = p.arange(msg.shape[0], dtype=src_index.dtype)
    if out_size is None or (not isinstance(out_size, p.Tensor) and int(out_size) <= 0):
        out_size = x.shape[0]
    return _incubate.graph_send_recv(msg, edges, dst_index, pool_type=reduce_op, out_size=out_size)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """The edge messages x[src_index[e]] (message_op) y[dst_index[e]], one row per edge."""
    _check("send_uv", message_op=message_op)
    p = _p()
    return _combine(p.gather(x, src_index), p.gather(y, dst_index), message_op)
