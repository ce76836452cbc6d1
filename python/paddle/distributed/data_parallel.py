"""paddle.DataParallel over MPI: at wrap time the parameters and buffers of rank 0 are broadcast;
each forward queues a gradient sync that runs right after the next backward (Tensor.backward /
paddle.autograd.backward call it: backward_mode._queue_post_backward). The sync all-reduces the
gradients in fused buckets (~comm_buffer_size MB of one dtype each, the last parameters first,
as Paddle's reducer groups them) with ReduceOp.AVG, so every rank ends with the mean gradient.
Communication runs after backward, not overlapped with it. Parameters that got no gradient
(find_unused_parameters) join with zeros. Under no_sync() forwards queue nothing, so gradients
accumulate locally until a forward outside it. state_dict names are the wrapped layer's."""
import contextlib

from .. import _C
from ..nn import Layer
from . import parallel as _par
from .collective import ReduceOp, _group, broadcast


def _world(group):
    if not _par.is_initialized():
        return 1
    return _group(group).nranks


class DataParallel(Layer):
    """Runs layers data-parallel across the ranks of the job (the global group unless group)."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__(layers.full_name() + "_data_parallel" if hasattr(layers, "full_name") else None)
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers must be a paddle.nn.Layer, received {type(layers).__name__}")
        self._layers = layers
        self.find_unused_parameters = bool(find_unused_parameters)
        self.group = group
        self.comm_buffer_size = int(comm_buffer_size * 1024 * 1024)
        self.last_comm_buffer_size = int(last_comm_buffer_size * 1024 * 1024)
        self.grad_need_sync = True
        self._nranks = _world(group)
        self._buckets = []
        if self._nranks > 1:
            self._sync_params_buffers()
            self._build_buckets()

    # ---- setup ----
    def _sync_params_buffers(self):
        src = _group(self.group).ranks[0]
        for _, t in list(self._layers.named_parameters()) + list(self._layers.named_buffers()):
            if t is not None and t.size > 0:
                broadcast(t, src, group=self.group)

    def _build_buckets(self):
        params = [p for p in self._layers.parameters() if not p.stop_gradient]
        seen, uniq = set(), []
        for p in params:
            if id(p) not in seen:
                seen.add(id(p))
                uniq.append(p)
        buckets, cur, cur_bytes, cur_dt = [], [], 0, None
        limit = self.last_comm_buffer_size  # the first bucket to be ready (last layers) is small
        for p in reversed(uniq):
            nbytes = p.size * p.dtype.itemsize if hasattr(p.dtype, "itemsize") else p.size * 4
            if cur and (p.dtype != cur_dt or cur_bytes + nbytes > limit):
                buckets.append(cur)
                cur, cur_bytes, limit = [], 0, self.comm_buffer_size
            cur.append(p)
            cur_bytes += nbytes
            cur_dt = p.dtype
        if cur:
            buckets.append(cur)
        self._buckets = buckets

    # ---- gradient sync ----
    def _sync_grads(self):
        import paddle
        with paddle.no_grad():
            for bucket in self._buckets:
                grads = []
                for p in bucket:
                    g = p.grad
                    if g is None:
                        g = paddle.zeros(p.shape, dtype=p.dtype)
                        p.grad = g
                    grads.append(g)
                if len(grads) == 1:
                    buf = grads[0]
                    _par._lib().all_reduce(_group(self.group).pg, buf, buf.dtype.name, ReduceOp.AVG)
                    continue
                buf = paddle.concat([g.reshape([-1]) for g in grads])
                _par._lib().all_reduce(_group(self.group).pg, buf, buf.dtype.name, ReduceOp.AVG)
                off = 0
                for g in grads:
                    n = g.size
                    g._copy_(buf[off:off + n].reshape(g.shape))
                    off += n

    def forward(self, *inputs, **kwargs):
        out = self._layers(*inputs, **kwargs)
        if self._nranks > 1 and self.grad_need_sync and _C._is_grad_enabled():
            from ..autograd.backward_mode import _queue_post_backward
            _queue_post_backward(self._sync_grads)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of backward passes run inside stay local (gradient accumulation)."""
        old = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = old

    def scale_loss(self, loss):
        """Kept for Paddle 2.x compatibility: gradients are averaged in the all-reduce."""
        return loss

    def apply_collective_grads(self):
        """Kept for Paddle 2.x compatibility: the all-reduce runs after backward by itself."""
        return None

    def state_dict(self, *args, **kwargs):
        """The wrapped layer's state_dict (same names: no prefix)."""
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, *args, **kwargs):
        return self._layers.set_state_dict(*args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict
