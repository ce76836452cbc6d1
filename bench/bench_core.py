"""Foundation benchmarks (issue 2): eager small-op overhead, elementwise add, axis sums,
softmax and exp/tanh on [1024, 1024], and matmul 1024^3 against PyTorch, and our matmul's rate
against raw OpenBLAS sgemm called through ctypes in the same process. Each framework runs in its
own child process, alternately (one process holding both holds two OpenMP runtimes whose idle
threads spin and take cores from each other); the best repeat of each side over the rounds is
compared. Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_core.py)."""
import ctypes
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import compare_sides, entry, timeit  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_CORE_ROUNDS", "2"))
WORKLOADS = (("eager c = a + b, float32 [4] (per op)", "<= 0.5"),
             ("add [1024,1024] float32", "<= 1.0"),
             ("sum axis=0 [1024,1024] float32", "<= 1.0"),
             ("sum axis=1 [1024,1024] float32", "<= 1.0"),
             ("softmax axis=-1 [1024,1024] float32", "<= 1.5"),
             ("softmax axis=0 [1024,1024] float32", "<= 1.5"),
             ("exp [1024,1024] float32", "<= 1.0"),
             ("tanh [1024,1024] float32", "<= 1.0"),
             ("matmul [1024,1024]x[1024,1024] float32", ""))


def data():
    rng = np.random.default_rng(0)
    return rng.random((1024, 1024), dtype=np.float32), rng.random((1024, 1024), dtype=np.float32)


def raw_sgemm_time(A, B):
    """cblas_sgemm of the OpenBLAS the extension links, through ctypes (None if not found)."""
    for p in ("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
              "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"):
        if os.path.exists(p):
            f = ctypes.CDLL(p).cblas_sgemm
            break
    else:
        return None
    C = np.empty((1024, 1024), dtype="float32")
    f.restype = None
    fp = ctypes.c_void_p
    args = (101, 111, 111, 1024, 1024, 1024, ctypes.c_float(1.0), fp(A.ctypes.data), 1024,
            fp(B.ctypes.data), 1024, ctypes.c_float(0.0), fp(C.ctypes.data), 1024)
    return timeit(lambda: f(*args), repeats=5, reduce=min)


def child(side):
    A, B = data()
    if side == "paddle":
        import paddle
        F = paddle.nn.functional
        a4, b4 = paddle.rand([4]), paddle.rand([4])
        pa, pb = paddle.to_tensor(A), paddle.to_tensor(B)
        fns = [lambda: a4 + b4, lambda: pa + pb, lambda: paddle.sum(pa, axis=0), lambda: paddle.sum(pa, axis=1),
               lambda: F.softmax(pa, axis=-1), lambda: F.softmax(pa, axis=0), lambda: paddle.exp(pa),
               lambda: paddle.tanh(pa), lambda: paddle.matmul(pa, pb)]
    else:
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        a4, b4 = torch.rand(4), torch.rand(4)
        ta, tb = torch.from_numpy(A), torch.from_numpy(B)
        fns = [lambda: a4 + b4, lambda: ta + tb, lambda: torch.sum(ta, dim=0), lambda: torch.sum(ta, dim=1),
               lambda: torch.softmax(ta, -1), lambda: torch.softmax(ta, 0), lambda: torch.exp(ta),
               lambda: torch.tanh(ta), lambda: torch.matmul(ta, tb)]
    res = [timeit(f, reduce=min) for f in fns]  # then the raw sgemm time (paddle's side)
    print(json.dumps(res + [raw_sgemm_time(A, B) if side == "paddle" else None]))


def main():
    times = compare_sides(__file__, "bench_core", WORKLOADS, ROUNDS)
    raws = [r[-1] for r in times["paddle"] if r[-1]]
    if raws:
        t_mm, t_raw, gf = min(r[len(WORKLOADS) - 1] for r in times["paddle"]), min(raws), 2 * 1024 ** 3
        print(f"{'matmul rate vs raw OpenBLAS sgemm (same process)':<52}{gf / t_mm / 1e9:>10.1f} GF"
              f"{gf / t_raw / 1e9:>10.1f} GF{t_raw / t_mm:>8.2f}  >= 0.90 of sgemm rate")


if __name__ == "__main__":
    entry(child, main)
