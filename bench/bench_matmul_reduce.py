"""Side-by-side timings of the reduction family against numpy and (when importable) PyTorch:
sum over each axis of [1024, 1024] float32, softmax, and a 1024^3 float32 matmul (GFLOPS).
Run: PYTHONPATH=python python3 bench/bench_matmul_reduce.py   (medians of repeated calls)."""
import time

import numpy as np

from paddle import _C

ops = _C._C_ops
try:
    import torch
except ImportError:  # the peer is optional
    torch = None


def med(f, n=30):
    f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)) * 1e6


a = np.random.rand(1024, 1024).astype(np.float32)
b = np.random.rand(1024, 1024).astype(np.float32)
x, y = _C.from_buffer(a), _C.from_buffer(b)
ta, tb = (torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None)
rows = [
    ("sum axis 0", lambda: ops.sum(x, [0]), lambda: a.sum(0), ta is not None and (lambda: ta.sum(0))),
    ("sum axis 1", lambda: ops.sum(x, [1]), lambda: a.sum(1), ta is not None and (lambda: ta.sum(1))),
    ("sum all", lambda: ops.sum(x), lambda: a.sum(), ta is not None and (lambda: ta.sum())),
    ("softmax -1", lambda: ops.softmax(x, -1), None, ta is not None and (lambda: torch.softmax(ta, -1))),
    ("matmul", lambda: ops.matmul(x, y), lambda: a @ b, ta is not None and (lambda: ta @ tb)),
]
for name, ours, np_f, t_f in rows:
    us = med(ours)
    line = f"{name:12s} paddle-c {us:9.1f} us"
    if np_f:
        line += f"   numpy {med(np_f):9.1f} us"
    if t_f:
        tu = med(t_f)
        line += f"   torch {tu:9.1f} us   ratio torch/ours {tu / us:5.2f}"
    if name == "matmul":
        line += f"   {2 * 1024 ** 3 / us / 1e3:6.1f} GFLOPS"
    print(line)
