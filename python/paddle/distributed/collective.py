"""paddle.distributed's collectives (Paddle 2.3 signatures) over paddle._dist (MPI, csrc/dist):
Group/new_group/get_group, ReduceOp, all_reduce, broadcast, reduce, all_gather, scatter,
alltoall, send/recv, barrier, wait, and split (model-parallel Linear/Embedding). Every call is
synchronous (use_calc_stream is accepted; CPU work has no streams); all_reduce, broadcast and
reduce work in place on the tensor; src/dst are global ranks, as in Paddle."""
from .. import _C
from . import parallel as _par

Tensor = _C.Tensor


class ReduceOp:
    """Reduction of all_reduce/reduce."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


class Group:
    """A set of global ranks sharing one MPI communicator."""

    def __init__(self, rank, rank_num, id=0, ranks=None, pg=None, name=None):
        self.rank = rank
        self.nranks = rank_num
        self.id = id
        self.ranks = list(ranks or [])
        self.pg = pg  # the communicator handle in paddle._dist (None: not a member)
        self.name = name

    @property
    def world_size(self):
        return self.nranks if self.is_member() else -1

    @property
    def process_group(self):
        return self.pg

    def is_member(self):
        return self.rank >= 0

    def get_group_rank(self, rank):
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self):
        return f"rank: {self.rank}, nranks: {self.nranks}, id: {self.id}, ranks: {', '.join(map(str, self.ranks))}"


_groups = {}


def _reset_groups(rank, size):
    _groups.clear()
    _groups[0] = Group(rank, size, 0, list(range(size)), pg=0, name="_default_pg")


def _get_global_group():
    if 0 not in _groups:
        raise RuntimeError("(PreconditionNotMet) call paddle.distributed.init_parallel_env() first")
    return _groups[0]


def _group(group):
    return _get_global_group() if group is None else group


def new_group(ranks=None, backend=None):
    """A group of the given global ranks; every rank must call it (in the same order)."""
    g0 = _get_global_group()
    ranks = list(range(g0.nranks)) if ranks is None else sorted(int(r) for r in ranks)
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < g0.nranks for r in ranks):
        raise ValueError(f"new_group: ranks must be distinct global ranks in [0, {g0.nranks}), received {ranks}")
    h = _par._lib().comm_create(0, ranks)
    gid = max(_groups) + 1
    me = ranks.index(g0.rank) if g0.rank in ranks else -1
    g = Group(me, len(ranks), gid, ranks, pg=h if h >= 0 else None, name=f"_pg_{gid}")
    _groups[gid] = g
    return g


def get_group(id=0):
    """The group with this id (0: the global group), or None."""
    return _groups.get(id)


def _check(tensor, what):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: tensor must be a paddle.Tensor, received {type(tensor).__name__}")
    if tensor.size == 0:
        raise ValueError(f"{what}: the tensor is empty (shape {list(tensor.shape)}); collectives need data")
    return tensor


def _dt(t):
    return t.dtype.name


def _grank(g, r, what):
    gr = g.get_group_rank(r)
    if gr < 0:
        raise ValueError(f"{what}: rank {r} is not in the group (ranks {g.ranks})")
    return gr


def _op(op, what):
    if op not in (0, 1, 2, 3, 4):
        raise ValueError(f"{what}: op must be a paddle.distributed.ReduceOp, received {op!r}")
    return op


def all_reduce(tensor, op=ReduceOp.SUM, group=None, use_calc_stream=True):
    """Reduces tensor across the group; every rank gets the result in tensor (in place)."""
    _check(tensor, "all_reduce")
    g = _group(group)
    if not g.is_member():
        return None
    _par._lib().all_reduce(g.pg, tensor, _dt(tensor), _op(op, "all_reduce"))
    return None


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, use_calc_stream=True):
    """Reduces tensor across the group into tensor on rank dst (global rank)."""
    _check(tensor, "reduce")
    g = _group(group)
    if not g.is_member():
        return None
    _par._lib().reduce(g.pg, tensor, _dt(tensor), _op(op, "reduce"), _grank(g, dst, "reduce"))
    return None


def broadcast(tensor, src, group=None, use_calc_stream=True):
    """Copies tensor of rank src (global rank) into tensor on every rank of the group."""
    _check(tensor, "broadcast")
    g = _group(group)
    if not g.is_member():
        return None
    _par._lib().broadcast(g.pg, tensor, _dt(tensor), _grank(g, src, "broadcast"))
    return None


def _empty(shape, dtype):
    import paddle
    return paddle.empty(shape, dtype=dtype)


def all_gather(tensor_list, tensor, group=None, use_calc_stream=True):
    """Gathers tensor from every rank of the group into tensor_list (cleared first), in rank order."""
    import paddle
    _check(tensor, "all_gather")
    g = _group(group)
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, received {type(tensor_list).__name__}")
    if not g.is_member():
        return None
    out = _empty([g.nranks * tensor.size], tensor.dtype)
    _par._lib().all_gather(g.pg, tensor, out, _dt(tensor))
    tensor_list.clear()
    shape = list(tensor.shape)
    tensor_list.extend(p.reshape(shape) for p in paddle.split(out, g.nranks))
    return None


def scatter(tensor, tensor_list=None, src=0, group=None, use_calc_stream=True):
    """Rank src's tensor_list[i] lands in tensor on the group's rank i."""
    import paddle
    _check(tensor, "scatter")
    g = _group(group)
    if not g.is_member():
        return None
    gsrc = _grank(g, src, "scatter")
    send = None
    if g.rank == gsrc:
        if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != g.nranks:
            raise ValueError(f"scatter: tensor_list on the src rank must hold {g.nranks} tensors")
        for i, t in enumerate(tensor_list):
            _check(t, "scatter")
            if list(t.shape) != list(tensor.shape) or t.dtype != tensor.dtype:
                raise ValueError(f"scatter: tensor_list[{i}] is {t.dtype.name}{list(t.shape)}, the output tensor "
                                 f"is {tensor.dtype.name}{list(tensor.shape)}")
        send = paddle.concat([t.reshape([-1]) for t in tensor_list])
    _par._lib().scatter(g.pg, send, tensor, _dt(tensor), gsrc)
    return None


def alltoall(in_tensor_list, out_tensor_list, group=None, use_calc_stream=True):
    """in_tensor_list[j] of rank i lands in out_tensor_list[i] of rank j."""
    import paddle
    g = _group(group)
    if not isinstance(in_tensor_list, (list, tuple)) or not isinstance(out_tensor_list, list):
        raise TypeError("alltoall: in_tensor_list must be a list of tensors and out_tensor_list a list")
    if not g.is_member():
        return None
    if len(in_tensor_list) != g.nranks:
        raise ValueError(f"alltoall: in_tensor_list must hold {g.nranks} tensors, received {len(in_tensor_list)}")
    t0 = _check(in_tensor_list[0], "alltoall")
    for i, t in enumerate(in_tensor_list):
        _check(t, "alltoall")
        if list(t.shape) != list(t0.shape) or t.dtype != t0.dtype:
            raise ValueError(f"alltoall: in_tensor_list[{i}] differs from in_tensor_list[0] in shape or dtype")
    send = paddle.concat([t.reshape([-1]) for t in in_tensor_list])
    out = _empty([send.size], t0.dtype)
    _par._lib().alltoall(g.pg, send, out, _dt(t0))
    out_tensor_list.clear()
    out_tensor_list.extend(p.reshape(list(t0.shape)) for p in paddle.split(out, g.nranks))
    return None


def send(tensor, dst=0, group=None, use_calc_stream=True):
    """Sends tensor to rank dst (global rank); the receiver's tensor must match in shape and dtype."""
    _check(tensor, "send")
    g = _group(group)
    if not g.is_member():
        return None
    _par._lib().send(g.pg, tensor, _dt(tensor), _grank(g, dst, "send"))
    return None


def recv(tensor, src=0, group=None, use_calc_stream=True):
    """Receives into tensor what rank src (global rank) sent."""
    _check(tensor, "recv")
    g = _group(group)
    if not g.is_member():
        return None
    _par._lib().recv(g.pg, tensor, _dt(tensor), _grank(g, src, "recv"))
    return None


def barrier(group=None):
    """Blocks until every rank of the group has called barrier."""
    g = _group(group)
    if g.is_member():
        _par._lib().barrier(g.pg)
    return None


def wait(tensor, group=None, use_calc_stream=True):
    """Waits for the communication on tensor: collectives here are synchronous, so it returns at once."""
    _check(tensor, "wait")
    return None


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None, bias_attr=None,
          name=None):
    """Model-parallel Linear / Embedding: the weight of `size` is split over num_partitions ranks
    (all ranks of the global group, one part each)."""
    from . import _mp_layers
    return _mp_layers.split(x, size, operation, axis, num_partitions, gather_out, weight_attr, bias_attr, name)
