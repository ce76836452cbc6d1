"""Stress of the multi-worker DataLoader (issue 24: an intermittent hang, the main process
waiting for a batch while the workers sat idle). Many short epochs over small datasets, with
random early breaks, worker exceptions and workers killed at random; each epoch must finish
within a bound (DataLoader timeout=), so a lost task or result fails instead of hanging.

    PYTHONPATH=python python tests/python/dataloader_stress.py [seconds, default 600]

tests/python/test_io.py runs the same loop for a few seconds (run_stress)."""
import os
import random
import signal
import sys
import time

import numpy as np

import paddle
from paddle.io import DataLoader, Dataset, IterableDataset


class Squares(Dataset):
    def __init__(self, n, kill_p=0.0, fail_at=None):
        self.n, self.kill_p, self.fail_at = n, kill_p, fail_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.fail_at is not None and i == self.fail_at:
            raise KeyError(f"bad sample {i}")
        if self.kill_p and random.random() < self.kill_p and paddle.io.get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return np.full([2, 3], i, "float32"), np.array([i]), {"sq": np.float32(i * i)}


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = paddle.io.get_worker_info()
        w, k = (info.id, info.num_workers) if info else (0, 1)
        for i in range(w, self.n, k):
            yield np.array([i], "int64")


def one_epoch(rng):
    kind = rng.randint(0, 9)
    workers = rng.randint(1, 3)
    n = rng.randint(1, 40)
    bs = rng.randint(1, 6)
    if kind == 0:  # a worker raises
        dl = DataLoader(Squares(n, fail_at=rng.randrange(n)), batch_size=bs, num_workers=workers, timeout=30)
        try:
            list(dl)
        except RuntimeError as e:
            assert "bad sample" in str(e), e
            return "error"
        raise AssertionError("the worker's exception was lost")
    if kind == 1:  # a worker is killed
        dl = DataLoader(Squares(n, kill_p=0.2), batch_size=bs, num_workers=workers, timeout=30)
        try:
            got = sum(int(b[0].shape[0]) for b in dl)
            assert got == n
            return "ok"
        except RuntimeError as e:
            assert "exited unexpectedly" in str(e), e
            return "killed"
    if kind == 2:  # an iterable dataset
        got = sorted(int(v) for b in DataLoader(Stream(n), batch_size=bs, num_workers=workers, timeout=30)
                     for v in b.numpy().ravel())
        assert got == list(range(n)), (got, n)
        return "ok"
    if kind == 3:  # an early break
        it = iter(DataLoader(Squares(n), batch_size=bs, num_workers=workers, timeout=30))
        next(it)
        del it
        return "break"
    drop = bool(rng.randint(0, 1))
    dl = DataLoader(Squares(n), batch_size=bs, num_workers=workers, timeout=30, drop_last=drop,
                    shuffle=bool(rng.randint(0, 1)))
    ys = sorted(v for b in dl for v in b[1].numpy().ravel().tolist())
    want = list(range(n)) if not drop else None
    if want is not None:
        assert ys == want, (ys, n, bs)
    else:
        assert len(ys) == (n // bs) * bs
    return "ok"


def run_stress(seconds, seed=0):
    rng = random.Random(seed)
    counts = {}
    end = time.time() + seconds
    epochs = 0
    while time.time() < end:
        r = one_epoch(rng)
        counts[r] = counts.get(r, 0) + 1
        epochs += 1
    return epochs, counts


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 600
    t = time.time()
    epochs, counts = run_stress(secs, seed=int(time.time()))
    print(f"{epochs} epochs in {time.time() - t:.0f} s without a hang: {counts}")
