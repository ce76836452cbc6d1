"""paddle.io: datasets, samplers, collation, DataLoader in-process and with worker processes
(shared-memory transport, worker tracebacks, dead workers, iterable datasets, worker info,
reproducible shuffling after paddle.seed)."""
import os
import signal

import numpy as np
import pytest

import paddle
from paddle.io import (BatchSampler, ChainDataset, ComposeDataset, DataLoader, Dataset,
                       DistributedBatchSampler, IterableDataset, RandomSampler, SequenceSampler,
                       Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                       get_worker_info, random_split)


class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full([2, 3], i, dtype="float32"), i, {"sq": np.float64(i * i)}


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(wid, self.n, nw):
            yield np.array([i], dtype="int64")


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError("bad sample 5")
        return np.array([i])


class Killer(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, i):
        if i == 7 and get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return np.array([i])


@pytest.mark.parametrize("workers", [0, 2])
def test_batches_and_structure(workers):
    dl = DataLoader(Squares(10), batch_size=4, num_workers=workers)
    assert len(dl) == 3
    batches = list(dl)
    assert len(batches) == 3
    x, y, d = batches[0]
    assert isinstance(x, paddle.Tensor) and x.shape == [4, 2, 3] and x.dtype == paddle.float32
    assert y.dtype == paddle.int64 and y.tolist() == [0, 1, 2, 3]
    assert d["sq"].tolist() == [0.0, 1.0, 4.0, 9.0]
    assert batches[2][1].tolist() == [8, 9]
    assert [b[1].tolist() for b in DataLoader(Squares(10), batch_size=4, drop_last=True, num_workers=workers)] == \
        [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_shuffle_reproducible_and_complete():
    paddle.seed(5)
    a = [y.tolist() for _, y, _ in DataLoader(Squares(12), batch_size=5, shuffle=True)]
    paddle.seed(5)
    b = [y.tolist() for _, y, _ in DataLoader(Squares(12), batch_size=5, shuffle=True)]
    assert a == b and sorted(sum(a, [])) == list(range(12)) and sum(a, []) != list(range(12))


def test_iterable_dataset_with_workers():
    got = sorted(int(v) for b in DataLoader(Stream(23), batch_size=4, num_workers=3) for v in b.numpy().ravel())
    assert got == list(range(23))
    assert sum(b.shape[0] for b in DataLoader(Stream(10), batch_size=3)) == 10


def test_worker_exception_shows_traceback():
    with pytest.raises(RuntimeError, match="(?s)worker.*KeyError.*bad sample 5"):
        list(DataLoader(Failing(), batch_size=2, num_workers=2))


def test_dead_worker_is_an_error_not_a_hang():
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(DataLoader(Killer(), batch_size=1, num_workers=2, timeout=60))


def test_worker_init_fn_and_seed():
    seen = []
    dl = DataLoader(Squares(4), batch_size=2, num_workers=2, worker_init_fn=lambda w: None)
    for x, y, _ in dl:
        seen += y.tolist()
    assert sorted(seen) == [0, 1, 2, 3]


def test_samplers():
    ds = Squares(10)
    assert list(SequenceSampler(ds)) == list(range(10))
    r = list(RandomSampler(ds))
    assert sorted(r) == list(range(10))
    rr = list(RandomSampler(ds, replacement=True, num_samples=25))
    assert len(rr) == 25 and all(0 <= i < 10 for i in rr)
    with pytest.raises(ValueError):
        RandomSampler(ds, num_samples=5)
    s = list(SubsetRandomSampler([1, 3, 5]))
    assert sorted(s) == [1, 3, 5]
    w = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50))
    assert set(w) <= {1, 3} and w.count(3) > w.count(1)
    bs = BatchSampler(ds, batch_size=3, drop_last=False)
    assert len(bs) == 4 and list(bs)[-1] == [9]
    with pytest.raises(ValueError):
        BatchSampler(ds, sampler=SequenceSampler(ds))
    parts = [sum(DistributedBatchSampler(ds, 2, num_replicas=3, rank=r), []) for r in range(3)]
    assert all(len(p) == 4 for p in parts) and set(sum(parts, [])) == set(range(10))


def test_datasets():
    t = TensorDataset([paddle.arange(6).reshape([3, 2]), paddle.to_tensor([7, 8, 9])])
    assert len(t) == 3 and t[1][1].tolist() == [8]
    with pytest.raises(ValueError):
        TensorDataset([paddle.ones([3]), paddle.ones([4])])
    c = ComposeDataset([Squares(3), Squares(3)])
    assert len(c[0]) == 6
    ch = list(ChainDataset([Stream(2), Stream(3)]))
    assert [int(v[0]) for v in ch] == [0, 1, 0, 1, 2]
    sub = Subset(Squares(10), [2, 4])
    assert sub[1][1] == 4 and len(sub) == 2
    a, b = random_split(Squares(10), [7, 3])
    assert len(a) == 7 and len(b) == 3
    assert sorted([a[i][1] for i in range(7)] + [b[i][1] for i in range(3)]) == list(range(10))
    with pytest.raises(ValueError):
        random_split(Squares(10), [5, 6])


def test_no_shared_memory_left_behind():
    before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    for _ in DataLoader(Squares(20), batch_size=3, num_workers=2):
        pass
    it = iter(DataLoader(Squares(50), batch_size=2, num_workers=2))
    next(it)
    it.shutdown()
    after = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    assert not {n for n in after - before if n.startswith("psm_")}


def test_breaking_early_leaves_no_shared_memory_warnings(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "early.py"
    script.write_text(
        "import numpy as np, paddle\n"
        "from paddle.io import Dataset, DataLoader\n"
        "class D(Dataset):\n"
        "    def __len__(self): return 500\n"
        "    def __getitem__(self, i): return np.zeros([32, 32], dtype='float32'), i\n"
        "for _ in range(2):\n"
        "    for k, b in enumerate(DataLoader(D(), batch_size=8, num_workers=2)):\n"
        "        if k == 2: break\n"
        "print('ok')\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.path.join(root, "python")})
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
    assert "leaked" not in r.stderr and "resource_tracker" not in r.stderr, r.stderr


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited; only its parent's wait is missing
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _all_gone(pids, seconds=15):
    """whether every process of pids has exited within the given time"""
    import time
    deadline = time.time() + seconds
    while any(_alive(w) for w in pids) and time.time() < deadline:
        time.sleep(0.1)
    return not any(_alive(w) for w in pids)


@pytest.mark.parametrize("how", ["ctrl-c", "sigkill"])
def test_no_orphan_workers_after_interrupt_or_kill(tmp_path, how):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) and a SIGKILL of the
    main process both leave no DataLoader worker behind."""
    import subprocess
    import sys
    import time
    script = tmp_path / "loop.py"
    # the script takes Ctrl-C as a terminal program does even where this process was started with
    # SIGINT ignored (a shell's background job: `cmd &` ignores SIGINT and SIGQUIT, and a child
    # inherits that, so the KeyboardInterrupt never came and the test waited 30 s for an exit)
    script.write_text(
        "import signal, time, numpy as np, paddle\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from paddle.io import Dataset, DataLoader\n"
        "class D(Dataset):\n"
        "    def __len__(self): return 10 ** 6\n"
        "    def __getitem__(self, i): time.sleep(0.01); return np.zeros([4], 'float32')\n"
        "it = iter(DataLoader(D(), batch_size=4, num_workers=2))\n"
        "next(it)\n"
        "print(' '.join(str(p.pid) for p in it.workers), flush=True)\n"
        "while True:\n"
        "    next(it)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True,
                         env={**os.environ, "PYTHONPATH": os.path.join(root, "python")})
    try:
        pids = [int(v) for v in p.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(w) for w in pids)
        time.sleep(0.3)
        if how == "ctrl-c":
            os.killpg(p.pid, signal.SIGINT)
            _, err = p.communicate(timeout=30)
            assert p.returncode != 0 and "KeyboardInterrupt" in err
        else:
            os.kill(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
    finally:  # a failure must not leave the loop running (its batches would sit in /dev/shm)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert _all_gone(pids), "DataLoader workers outlived the main process"


def test_interrupted_shutdown_reads_a_cut_message_without_blocking():
    """A KeyboardInterrupt can stop the main process's read of the results pipe halfway (after a
    message's length, before all of its bytes: PEP 475 retries an interrupted read only when the
    signal handler returns); the shutdown that follows must not wait for the rest of a message that
    never comes (this process holds the pipe's write end, so the read would wait for ever). Simulated
    by writing a length with too few bytes behind it into the pipe: the interrupted shutdown
    returns, the workers are gone."""
    import struct
    import threading
    it = iter(DataLoader(Squares(64), batch_size=4, num_workers=2))
    next(it)
    pids = [p.pid for p in it.workers]
    os.write(it.result_q._writer.fileno(), struct.pack("!i", 1 << 20) + b"\0" * 16)
    t = threading.Thread(target=it.shutdown, kwargs={"interrupted": True}, daemon=True)
    t.start()
    t.join(timeout=30)
    assert not t.is_alive(), "the interrupted shutdown blocked on the cut message"
    assert _all_gone(pids)
