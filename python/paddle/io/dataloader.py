"""paddle.io.DataLoader with Paddle 2.3's arguments. num_workers=0 loads in the calling process;
num_workers>0 starts real worker processes (fork) that collate batches and hand the numpy
arrays over through shared memory blocks (only small metadata is pickled). A worker exception
re-raises in the main process with the worker's traceback; a worker that dies gives a clear
RuntimeError instead of a hang; workers are daemon processes and are stopped when iteration
ends, on errors and on KeyboardInterrupt. get_worker_info() tells code in a worker who it is."""
import itertools
import multiprocessing as mp
import os
import queue
import random
import time
import traceback

import numpy as np

from .collate import default_collate_fn, default_convert_fn
from .dataset import IterableDataset, _fetch
from .sampler import BatchSampler
from ..profiler import timer as _prof_timer, utils as _prof

_worker_info = None


class WorkerInfo:
    def __init__(self, id, num_workers, dataset, seed):
        self.id, self.num_workers, self.dataset, self.seed = id, num_workers, dataset, seed

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers})"


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, dataset, seed); else None."""
    return _worker_info


# ---------------------------------------------------------------- shared-memory transport
def _pack(obj, shms):
    """Replaces numpy arrays in obj by shared-memory descriptors."""
    from multiprocessing import shared_memory
    if isinstance(obj, np.ndarray):
        a = np.ascontiguousarray(obj)
        if a.dtype == object:
            return ("obj", a)
        shm = shared_memory.SharedMemory(create=True, size=max(1, a.nbytes))
        np.ndarray(a.shape, a.dtype, buffer=shm.buf)[...] = a
        shms.append(shm)
        return ("shm", shm.name, a.shape, a.dtype.str)
    if isinstance(obj, list):
        return ("list", [_pack(v, shms) for v in obj])
    if isinstance(obj, tuple):
        return ("tuple", [_pack(v, shms) for v in obj])
    if isinstance(obj, dict):
        return ("dict", {k: _pack(v, shms) for k, v in obj.items()})
    return ("obj", obj)


def _unpack(d):
    from multiprocessing import shared_memory
    kind = d[0]
    if kind == "shm":
        shm = shared_memory.SharedMemory(name=d[1])
        try:
            a = np.ndarray(d[2], np.dtype(d[3]), buffer=shm.buf).copy()
        finally:
            shm.close()
            shm.unlink()
        return a
    if kind == "list":
        return [_unpack(v) for v in d[1]]
    if kind == "tuple":
        return tuple(_unpack(v) for v in d[1])
    if kind == "dict":
        return {k: _unpack(v) for k, v in d[1].items()}
    return d[1]


def _release(d):
    """Frees the shared memory of a packed batch that will not be consumed."""
    try:
        _unpack(d)
    except Exception:  # noqa: BLE001
        pass


def _worker_loop(dataset, index_q, result_q, collate_fn, worker_id, num_workers, seed,
                 init_fn, use_shm, iterable, batch_size, drop_last):
    global _worker_info
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    _worker_info = WorkerInfo(worker_id, num_workers, dataset, seed)
    try:
        from .. import _C
        _C.seed(seed)
        if hasattr(_C, "set_num_threads"):
            # workers run their kernels on one thread: N workers x a pool would oversubscribe the
            # cores, and GNU OpenMP's pool does not survive fork (PyTorch's workers do the same)
            _C.set_num_threads(1)
        np.random.seed(seed % (2 ** 32))
        random.seed(seed)  # the random transforms draw from it: follow the loader seed, not the OS
        if init_fn is not None:
            init_fn(worker_id)
    except Exception:  # noqa: BLE001
        result_q.put((-1, "error", traceback.format_exc(), worker_id))
        return
    it = iter(dataset) if iterable else None
    parent = os.getppid()
    while True:
        try:
            task = index_q.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent:  # the main process died (e.g. SIGKILL): don't linger as an orphan
                result_q.cancel_join_thread()  # nobody will read what is still queued
                return
            continue
        except (EOFError, OSError):
            return
        if task is None:
            return
        seq, indices = task
        try:
            if iterable:
                samples = list(itertools.islice(it, batch_size))
                if not samples or (drop_last and len(samples) < batch_size):
                    result_q.put((seq, "end", None, worker_id))
                    continue
                batch = collate_fn(samples) if collate_fn else samples
            else:
                batch = collate_fn(_fetch(dataset, indices))
            shms = []
            payload = _pack(batch, shms) if use_shm else ("obj", batch)
            result_q.put((seq, "ok", payload, worker_id))
            for s in shms:
                s.close()
        except Exception:  # noqa: BLE001
            result_q.put((seq, "error", f"DataLoader worker {worker_id} raised:\n{traceback.format_exc()}",
                          worker_id))


def _to_tensors(batch, return_list):
    from .. import _C
    from ..tensor.to_tensor import to_tensor
    if isinstance(batch, np.ndarray):
        return to_tensor(batch) if batch.dtype != object else batch
    if isinstance(batch, _C.Tensor):
        return batch
    if isinstance(batch, (list, tuple)):
        return [_to_tensors(b, return_list) for b in batch]
    if isinstance(batch, dict):
        return {k: _to_tensors(v, return_list) for k, v in batch.items()}
    return batch


class _MultiProcessIter:
    def __init__(self, loader):
        self.loader = loader
        ctx = mp.get_context("fork")
        n = loader.num_workers
        if loader.use_shared_memory:
            # one resource tracker for all processes: started here, before the fork, so the
            # workers' block registrations and our unlinks are booked in the same place
            from multiprocessing import resource_tracker
            resource_tracker.ensure_running()
        self.index_qs = [ctx.Queue() for _ in range(n)]
        self.result_q = ctx.Queue()
        base_seed = int(np.random.randint(0, 2 ** 31 - 1)) if loader._seed is None else loader._seed
        collate = loader.collate_fn
        self.iterable = isinstance(loader.dataset, IterableDataset)
        self.workers = []
        for w in range(n):
            p = ctx.Process(target=_worker_loop,
                            args=(loader.dataset, self.index_qs[w], self.result_q, collate, w, n,
                                  base_seed + w, loader.worker_init_fn, loader.use_shared_memory,
                                  self.iterable, loader._batch_size, loader._drop_last),
                            daemon=True)
            p.start()
            self.workers.append(p)
        self.tasks = iter(loader.batch_sampler) if not self.iterable else None
        self.send_seq = 0
        self.recv_seq = 0
        self.pending = {}
        self.done_workers = set()
        self.task_worker = {}
        self.exhausted = False
        self.outstanding = 0
        for _ in range(loader.prefetch_factor * n):
            self._dispatch()

    def _dispatch(self):
        if self.exhausted:
            return
        if self.iterable:
            live = [w for w in range(len(self.workers)) if w not in self.done_workers]
            if not live:
                self.exhausted = True
                return
            w = live[self.send_seq % len(live)]
            self.index_qs[w].put((self.send_seq, None))
            self.task_worker[self.send_seq] = w
        else:
            try:
                idx = next(self.tasks)
            except StopIteration:
                self.exhausted = True
                return
            w = self.send_seq % len(self.workers)
            self.index_qs[w].put((self.send_seq, idx))
        self.send_seq += 1
        self.outstanding += 1

    def __iter__(self):
        return self

    def _get(self):
        timeout = self.loader.timeout
        start = time.time()
        while True:
            try:
                return self.result_q.get(timeout=0.5)
            except queue.Empty:
                for p in self.workers:
                    # a worker only exits on its own at shutdown: any exit (code 0 included) while
                    # results are awaited is an error, not a wait for ever
                    if not p.is_alive() and p.exitcode is not None:
                        try:  # what it sent before exiting is still in the pipe
                            return self.result_q.get(timeout=0.1)
                        except queue.Empty:
                            pass
                        self.shutdown()
                        raise RuntimeError(f"DataLoader worker (pid {p.pid}) exited unexpectedly with "
                                           f"exit code {p.exitcode}") from None
                if timeout and time.time() - start > timeout:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader timed out after {timeout} s waiting for a batch")

    def __next__(self):
        try:
            while True:
                if self.recv_seq in self.pending:
                    status, payload, wid = self.pending.pop(self.recv_seq)
                    self.recv_seq += 1
                    self.outstanding -= 1
                    if status == "end":
                        self.done_workers.add(wid)  # that worker's iterator is exhausted
                    self._dispatch()
                    if status == "end":
                        continue
                    batch = _unpack(payload) if payload[0] != "obj" else payload[1]
                    return _to_tensors(batch, self.loader.return_list)
                if self.outstanding == 0:
                    self.shutdown()
                    raise StopIteration
                seq, status, payload, wid = self._get()
                if status == "error":
                    self.shutdown()
                    raise RuntimeError(payload)
                self.pending[seq] = (status, payload, wid)
        except KeyboardInterrupt:
            self.shutdown(interrupted=True)
            raise

    def shutdown(self, interrupted=False):
        """Stops the workers and frees every shared-memory block still in flight: results are
        drained while the workers exit (a worker blocked on a full queue could not exit, and a
        terminated worker would leave its block behind). interrupted: a KeyboardInterrupt may have
        stopped a read of the results pipe halfway, so what is left in it need not be whole messages:
        it is read without blocking (a read waiting for the rest of a message that never comes would
        hang the exit), and blocks not drained are left to the resource tracker, which unlinks them."""
        if interrupted:
            try:
                os.set_blocking(self.result_q._reader.fileno(), False)
            except (OSError, ValueError, AttributeError):
                pass
        for s, (status, payload, _w) in list(self.pending.items()):
            if status == "ok":
                _release(payload)
        self.pending.clear()
        for q in self.index_qs:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass

        def drain():
            while True:
                try:
                    seq, status, payload, _w = self.result_q.get_nowait()
                except (queue.Empty, OSError, ValueError, EOFError):
                    return
                except Exception:  # noqa: BLE001 (interrupted: the rest of a cut message)
                    if interrupted:
                        return
                    raise
                if status == "ok":
                    _release(payload)

        deadline = time.time() + 5.0
        while any(p.is_alive() for p in self.workers) and time.time() < deadline:
            drain()
            time.sleep(0.005)
        for p in self.workers:
            if p.is_alive():
                p.terminate()
            p.join(timeout=1.0)
        drain()
        self.workers = []
        # No feeder thread of ours may outlive the iterator: the next epoch forks its workers, and a
        # fork while another thread is inside the allocator or holds a lock (a feeder pickling or
        # writing the stop messages) can leave the child blocked on that lock for ever (issue 24's
        # intermittent hang: the main process waiting, the workers idle). Close and join them.
        for q in self.index_qs + [self.result_q]:
            try:
                q.close()
                q.join_thread()
            except (OSError, ValueError, AssertionError):
                pass

    def __del__(self):
        if getattr(self, "workers", None):
            self.shutdown()


class DataLoader:
    """Iterates batches of Tensors from a Dataset (Paddle 2.3's DataLoader)."""

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None,
                 batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0,
                 use_buffer_reader=True, prefetch_factor=2, use_shared_memory=True, timeout=0,
                 worker_init_fn=None, persistent_workers=False):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be a non-negative int, received {num_workers!r}")
        if timeout < 0:
            raise ValueError("DataLoader: timeout must be >= 0")
        if prefetch_factor < 1:
            raise ValueError("DataLoader: prefetch_factor must be >= 1")
        self.dataset = dataset
        self.return_list = return_list
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.use_buffer_reader = use_buffer_reader
        self.prefetch_factor = prefetch_factor
        self.use_shared_memory = use_shared_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self._seed = None
        self._batch_size = batch_size if batch_size is not None else 1
        self._drop_last = drop_last
        if isinstance(dataset, IterableDataset):
            if shuffle or batch_sampler is not None:
                raise ValueError("DataLoader: IterableDataset does not support shuffle or batch_sampler")
            self.batch_sampler = None
        elif batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_sampler excludes batch_size, shuffle and drop_last")
            self.batch_sampler = batch_sampler
        elif batch_size is None:
            self.batch_sampler = None  # no batching: samples one by one
        else:
            self.batch_sampler = BatchSampler(dataset=dataset, shuffle=shuffle, batch_size=batch_size,
                                              drop_last=drop_last)
        if self.collate_fn is None:
            self.collate_fn = default_collate_fn if batch_size is not None else default_convert_fn

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            raise TypeError("DataLoader over an IterableDataset has no length")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def _single_process(self):
        if isinstance(self.dataset, IterableDataset):
            it = iter(self.dataset)
            while True:
                samples = list(itertools.islice(it, self._batch_size))
                if not samples or (self._drop_last and len(samples) < self._batch_size):
                    return
                yield _to_tensors(self.collate_fn(samples), self.return_list)
        elif self.batch_sampler is None:
            for i in range(len(self.dataset)):
                yield _to_tensors(self.collate_fn(self.dataset[i]), self.return_list)
        else:
            for idx in self.batch_sampler:
                yield _to_tensors(self.collate_fn(_fetch(self.dataset, idx)), self.return_list)

    def __iter__(self):
        if self.num_workers == 0:
            return _TimedIter(self._single_process(), "_DataLoaderIterSingleProcess")
        if self.batch_sampler is None and not isinstance(self.dataset, IterableDataset):
            raise NotImplementedError("DataLoader(batch_size=None) with num_workers > 0 is not supported yet")
        return _TimedIter(_MultiProcessIter(self), "_DataLoaderIterMultiProcess")

    def __call__(self):
        return self.__iter__()


class _TimedIter:
    """The loader's iterator, timed for paddle.profiler: the wait for each batch is the step's
    reader cost (Profiler.step_info) and, while profiling, a Dataloader event."""

    def __init__(self, it, name):
        self._it = it
        self._name = name

    def __iter__(self):
        return self

    def __next__(self):
        bm = _prof_timer._benchmark_
        if bm.current_event is None and not _prof._is_profiler_used:
            return next(self._it)
        ev = _prof.RecordEvent(self._name, _prof.TracerEventType.Dataloader)
        ev.begin()
        bm.before_reader()
        try:
            batch = next(self._it)
        except BaseException:
            bm.start_reader = None
            ev.end()
            raise
        bm.after_reader()
        ev.end()
        return batch

    def __getattr__(self, name):
        return getattr(self._it, name)


__all__ = ["DataLoader", "get_worker_info"]
