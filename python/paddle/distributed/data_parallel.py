"""paddle.DataParallel over MPI: at wrap time the parameters and buffers of rank 0 are broadcast
(which also checks that every rank holds the same shapes); trainable parameters are grouped, last
first, in buckets of one dtype (~comm_buffer_size MB; the first last_comm_buffer_size MB), each
with one persistent flat buffer. A forward with grad enabled arms the buckets and queues a
finishing step that runs right after the next backward (backward_mode._queue_post_backward).
Overlap (default): a gradient hook on every parameter copies its gradient (plus what .grad
already held) into its slot of the bucket buffer; when a bucket is complete it is queued, in
bucket order, on paddle._dist's communication thread (in-place all-reduce, AVG) while backward
continues. The finishing step fills the slots of parameters that got no gradient (zeros or
.grad: find_unused_parameters), queues the remaining buckets, waits, redoes (from .grad) any
bucket one of whose parameters got two gradient deliveries (shared weights: the ranks agree by a
MAX all-reduce of the flags) and copies the averages into .grad. PADDLE_C_DP_OVERLAP=0 (the default
when ranks have no spare core: _overlap_wanted) instead all-reduces after backward (concatenate, all-reduce, copy back). Under no_sync() forwards arm
nothing, so gradients accumulate locally. state_dict names are the wrapped layer's.
Where every rank is on this machine, the buckets live in an MPI shared-memory window and are
reduced there (_setup_shm; PADDLE_C_DP_SHM=0 keeps MPI_Allreduce); after backward, each .grad is
then a view of its slot in the window, so no gradient is copied in or out."""
import contextlib
import os

from .. import _C
from ..nn import Layer
from . import parallel as _par
from .collective import ReduceOp, _group, broadcast


def _overlap_wanted():
    """PADDLE_C_DP_OVERLAP=1/0 forces it; by default overlap when each rank on this machine has a
    spare core for the communication thread (measured on 2 ranks x 1 core: the thread's MPI
    polling takes the core backward needs, 0.09-0.16 s vs 0.14-0.19 s a step under load)."""
    v = os.environ.get("PADDLE_C_DP_OVERLAP", "auto")
    if v in ("0", "1"):
        return v == "1"
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1") or 1)
    threads = int(os.environ.get("OMP_NUM_THREADS", "1") or 1)
    return (os.cpu_count() or 1) >= local * (threads + 1)


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
        if not _par.is_initialized() and _par.get_world_size() > 1:
            raise RuntimeError("DataParallel: this job has several ranks but the parallel environment is not "
                               "initialized; call paddle.distributed.init_parallel_env() before constructing "
                               "DataParallel")
        self.find_unused_parameters = bool(find_unused_parameters)
        self.group = group
        self.comm_buffer_size = int(comm_buffer_size * 1024 * 1024)
        self.last_comm_buffer_size = int(last_comm_buffer_size * 1024 * 1024)
        self.grad_need_sync = True
        self._nranks = _world(group)
        self._buckets = []
        self._overlap = _overlap_wanted()
        self._shm = None
        if self._nranks > 1:
            self._sync_params_buffers()
            self._build_buckets()
            self._setup_shm()
            if self._overlap:
                self._setup_overlap()

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

    def _setup_shm(self):
        """Where every rank of the group runs on this machine (and PADDLE_C_DP_SHM is not 0), the
        buckets live in one MPI shared-memory window (paddle._dist.shm_alloc: each rank's segment
        is mapped by all) and are reduced there (shm_allreduce: rank r sums slice r of every
        segment and stores it into all of them) instead of by MPI_Allreduce. float32/float64
        buckets only (every rank decides the same: the models match). Sets self._shm to
        (window, [(byte offset, count, dtype name) per bucket]) and self._shm_flat (bucket
        tensors over the window), or leaves self._shm None."""
        if os.environ.get("PADDLE_C_DP_SHM", "1") == "0" or not self._buckets:
            return
        if any(b[0].dtype.name not in ("float32", "float64") for b in self._buckets):
            return
        import numpy as np
        from ..utils.dlpack import from_dlpack
        layout, off = [], 0
        for bucket in self._buckets:
            n, es = sum(p.size for p in bucket), (4 if bucket[0].dtype.name == "float32" else 8)
            layout.append((off, n, bucket[0].dtype.name))
            off += (n * es + 63) // 64 * 64  # buckets start on cache lines
        got = _par._lib().shm_alloc(_group(self.group).pg, off)
        if got is None:  # the ranks are on several machines: MPI_Allreduce
            return
        wh, mem = got
        self._shm = (wh, layout)
        self._shm_flat = [from_dlpack(np.frombuffer(mem, dtype=dt, count=n, offset=o)) for o, n, dt in layout]
        self._shm_slots = {}
        for bi, bucket in enumerate(self._buckets):
            o = 0
            for p in bucket:
                self._shm_slots[id(p)] = self._shm_flat[bi][o:o + p.size].reshape(p.shape)
                o += p.size
        # runs of consecutive same-dtype buckets reduce in one call (the padding between them is zeros)
        runs = []
        for o, n, dt in layout:
            es = 4 if dt == "float32" else 8
            if runs and runs[-1][2] == dt:
                runs[-1][1] = (o - runs[-1][0]) // es + n
            else:
                runs.append([o, n, dt])
        self._shm_runs = [tuple(r) for r in runs]

    def _bucket_allreduce(self, bi, op=ReduceOp.AVG):
        """Queues the all-reduce of bucket bi's flat buffer on the communication thread."""
        lib = _par._lib()
        if self._shm is not None:
            o, n, dt = self._shm[1][bi]
            lib.ishm_allreduce(self._shm[0], o, n, dt, op)
        else:
            f = self._flat[bi]
            lib.iall_reduce(_group(self.group).pg, f, f.dtype.name, op)

    # ---- overlapped gradient sync ----
    def _setup_overlap(self):
        import paddle
        self._flat, self._slots, self._hook_handles = [], {}, []
        for bi, bucket in enumerate(self._buckets):
            flat = self._shm_flat[bi] if self._shm is not None else \
                paddle.zeros([sum(p.size for p in bucket)], dtype=bucket[0].dtype)
            off = 0
            for p in bucket:
                self._slots[id(p)] = (bi, flat[off:off + p.size].reshape(p.shape))
                off += p.size
            self._flat.append(flat)
        self._armed = False
        self._reset_round()
        self._stats = {"launched_in_backward": 0, "launched_after": 0, "redone": 0}
        for bucket in self._buckets:
            for p in bucket:
                self._hook_handles.append(p.register_hook(self._make_hook(p)))

    def _reset_round(self):
        self._seen, self._redo = set(), set()
        self._count = [0] * len(self._buckets)
        self._next = 0

    def _launch_ready(self, in_backward=False):
        while self._next < len(self._buckets) and self._count[self._next] == len(self._buckets[self._next]):
            self._bucket_allreduce(self._next)
            self._next += 1
            self._stats["launched_in_backward" if in_backward else "launched_after"] += 1

    def _make_hook(self, p):
        pid = id(p)

        def hook(g):
            if not self._armed:
                return None
            bi, view = self._slots[pid]
            if pid in self._seen:  # a second delivery (shared parameter): redo this bucket from .grad
                self._redo.add(bi)
                return None
            self._seen.add(pid)
            old = p.grad
            view._copy_(g if old is None else g + old)
            self._count[bi] += 1
            self._launch_ready(in_backward=True)
            return None
        return hook

    def _finish_overlap(self):
        import paddle
        lib, h = _par._lib(), _group(self.group).pg
        try:
            with paddle.no_grad():
                for bi in range(self._next, len(self._buckets)):
                    for p in self._buckets[bi]:
                        if id(p) not in self._seen:  # no gradient this round: .grad so far, or zeros
                            g = p.grad
                            view = self._slots[id(p)][1]
                            view._copy_(g) if g is not None else view._copy_(paddle.zeros(p.shape, p.dtype))
                            self._seen.add(id(p))
                            self._count[bi] += 1
                self._launch_ready()
                flags = paddle.to_tensor([1 if bi in self._redo else 0 for bi in range(len(self._buckets))],
                                         dtype="int32")
                lib.iall_reduce(h, flags, "int32", ReduceOp.MAX)
                lib.wait_async()
                redo = [bi for bi, f in enumerate(flags.numpy().tolist()) if f]
                self._stats["redone"] += len(redo)
                for bi in redo:
                    for p in self._buckets[bi]:
                        g = p.grad
                        view = self._slots[id(p)][1]
                        view._copy_(g) if g is not None else view._copy_(paddle.zeros(p.shape, p.dtype))
                    self._bucket_allreduce(bi)
                lib.wait_async()
                for bucket in self._buckets:
                    for p in bucket:
                        view = self._slots[id(p)][1]
                        if p.grad is None:
                            p.grad = view.clone()
                        else:
                            p.grad._copy_(view)
        finally:
            self._armed = False
            self._reset_round()

    # ---- gradient sync after backward (PADDLE_C_DP_OVERLAP=0) ----
    def _sync_grads_shm(self):
        """After backward, through the shared-memory window: each .grad becomes (once) a view of
        its slot in the window, so later backward passes accumulate straight into the window
        (clear_grad zeroes in place) and the averages land in .grad with no copy. A .grad that is
        not the slot (first step, clear_grad(set_to_zero=False), replaced by the user) is copied in."""
        import paddle
        lib = _par._lib()
        with paddle.no_grad():
            for bucket in self._buckets:
                for p in bucket:
                    view = self._shm_slots[id(p)]
                    g = p.grad
                    if g is view:
                        continue
                    if g is None:
                        view.zero_()
                    else:
                        view._copy_(g)
                    p.grad = view
            for o, n, dt in self._shm_runs:
                lib.shm_allreduce(self._shm[0], o, n, dt, ReduceOp.AVG)

    def _sync_grads(self):
        """All-reduce (AVG) of every bucket after backward: concatenate, all-reduce, copy back. The
        shapes were checked at wrap time, so the buckets go without the per-call header exchange
        (through the communication thread's queue, waited for at once)."""
        import paddle
        lib, h = _par._lib(), _group(self.group).pg
        with paddle.no_grad():
            bufs = []
            for bucket in self._buckets:
                grads = []
                for p in bucket:
                    g = p.grad
                    if g is None:
                        g = paddle.zeros(p.shape, dtype=p.dtype)
                        p.grad = g
                    grads.append(g)
                buf = grads[0] if len(grads) == 1 else paddle.concat([g.reshape([-1]) for g in grads])
                lib.iall_reduce(h, buf, buf.dtype.name, ReduceOp.AVG)
                bufs.append((buf, grads))
            lib.wait_async()
            for buf, grads in bufs:
                if len(grads) == 1:
                    continue
                off = 0
                for g in grads:
                    n = g.size
                    g._copy_(buf[off:off + n].reshape(g.shape))
                    off += n

    def forward(self, *inputs, **kwargs):
        out = self._layers(*inputs, **kwargs)
        if self._nranks > 1 and self.grad_need_sync and _C._is_grad_enabled():
            from ..autograd.backward_mode import _queue_post_backward
            if self._overlap:
                self._armed = True
                _queue_post_backward(self._finish_overlap)
            else:
                _queue_post_backward(self._sync_grads_shm if self._shm is not None else self._sync_grads)
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
