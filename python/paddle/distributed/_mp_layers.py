"""paddle.distributed.split: model-parallel Linear and Embedding over the global group
(num_partitions ranks, one part each), in dygraph. The communication steps are PyLayers with
their adjoint in backward (Megatron's f/g pairs): identity <-> all_reduce, split <-> all_gather.
- linear, axis=0 (row parallel): W is [in/np, out] per rank; x is split along its last dim, each
  rank multiplies its slice, the partial products are all-reduced, the (whole) bias added after;
- linear, axis=1 (column parallel): W is [in, out/np] and bias [out/np]; with gather_out the parts
  are all-gathered along the last dim;
- embedding, axis=0: rows [r*V/np, (r+1)*V/np) of the table live on rank r; ids outside give 0 and
  the parts are all-reduced."""
import paddle
from paddle.autograd import PyLayer

from . import collective as C
from . import parallel


def _nranks():
    return parallel.get_world_size() if parallel.is_initialized() else 1


def _all_reduce(t):
    t = t.clone()
    if _nranks() > 1:
        C.all_reduce(t)
    return t


def _chunk_last(x, r, n):
    k = x.shape[-1] // n
    return paddle.slice(x, [x.ndim - 1], [r * k], [(r + 1) * k]).clone()


def _gather_last(x):
    if _nranks() == 1:
        return x.clone()
    parts = []
    C.all_gather(parts, x.contiguous() if hasattr(x, "contiguous") else x)
    return paddle.concat(parts, axis=-1)


class _CopyToParallel(PyLayer):  # forward identity, backward all_reduce
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return _all_reduce(g)


class _ReduceFromParallel(PyLayer):  # forward all_reduce, backward identity
    @staticmethod
    def forward(ctx, x):
        return _all_reduce(x)

    @staticmethod
    def backward(ctx, g):
        return g.clone()


class _ScatterToParallel(PyLayer):  # forward: own slice of the last dim; backward: all_gather
    @staticmethod
    def forward(ctx, x):
        return _chunk_last(x, parallel.get_rank(), _nranks())

    @staticmethod
    def backward(ctx, g):
        return _gather_last(g)


class _GatherFromParallel(PyLayer):  # forward: all_gather along the last dim; backward: own slice
    @staticmethod
    def forward(ctx, x):
        return _gather_last(x)

    @staticmethod
    def backward(ctx, g):
        return _chunk_last(g, parallel.get_rank(), _nranks())


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None, bias_attr=None,
          name=None):
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"split: size must be a list/tuple of two ints, received {size!r}")
    if operation not in ("linear", "embedding"):
        raise ValueError(f"split: operation must be 'linear' or 'embedding', received {operation!r}")
    from ..static.framework import in_dynamic_mode
    if not in_dynamic_mode():
        raise NotImplementedError("paddle.distributed.split: static-graph mode is not implemented in Paddle-C "
                                  "(call it in dynamic mode)")
    n, r = _nranks(), parallel.get_rank()
    if num_partitions != n:
        raise ValueError(f"split: num_partitions ({num_partitions}) must equal the number of ranks ({n})")
    dtype = paddle.get_default_dtype()
    if operation == "embedding":
        if axis != 0:
            raise ValueError("split: the embedding table is split along axis 0 only")
        vocab, dim = size
        if vocab % n:
            raise ValueError(f"split: the vocabulary size {vocab} must be divisible by num_partitions {n}")
        per = vocab // n
        w = paddle.create_parameter([per, dim], dtype, attr=weight_attr)
        ids = x.astype("int64")
        lo = r * per
        inside = paddle.logical_and(ids >= lo, ids < lo + per)
        local = paddle.where(inside, ids - lo, paddle.zeros_like(ids))
        out = paddle.nn.functional.embedding(local, w)
        out = out * inside.astype(out.dtype).unsqueeze(-1)
        return _ReduceFromParallel.apply(out)
    fin, fout = size
    if axis == 0:
        if fin % n:
            raise ValueError(f"split: in_features {fin} must be divisible by num_partitions {n}")
        w = paddle.create_parameter([fin // n, fout], dtype, attr=weight_attr)
        b = None if bias_attr is False else paddle.create_parameter([fout], dtype, attr=bias_attr, is_bias=True)
        xs = _ScatterToParallel.apply(x)
        out = _ReduceFromParallel.apply(paddle.matmul(xs, w))
        return out if b is None else out + b
    if axis == 1:
        if fout % n:
            raise ValueError(f"split: out_features {fout} must be divisible by num_partitions {n}")
        w = paddle.create_parameter([fin, fout // n], dtype, attr=weight_attr)
        b = None if bias_attr is False else paddle.create_parameter([fout // n], dtype, attr=bias_attr, is_bias=True)
        out = paddle.matmul(_CopyToParallel.apply(x), w)
        if b is not None:
            out = out + b
        return _GatherFromParallel.apply(out) if gather_out else out
    raise ValueError(f"split: axis must be 0 or 1 for linear, received {axis}")
