"""Foundation benchmarks (issue 2): eager small-op overhead, elementwise add, axis sums,
softmax and exp/tanh on [1024, 1024], and matmul 1024^3 against PyTorch and against raw
OpenBLAS sgemm called through ctypes in the same run."""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import paddle  # noqa: E402
import torch  # noqa: E402
from harness import HEADER, fmt, row, timeit  # noqa: E402

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
print(f"== bench_core (threads: paddle-c {paddle._C.get_num_threads()}, torch {torch.get_num_threads()})")
print(HEADER)

a4, b4 = paddle.rand([4]), paddle.rand([4])
ta4, tb4 = torch.rand(4), torch.rand(4)
row("eager c = a + b, float32 [4] (per op)", timeit(lambda: a4 + b4), timeit(lambda: ta4 + tb4),
    "<= 0.5")

A = np.random.rand(1024, 1024).astype("float32")
B = np.random.rand(1024, 1024).astype("float32")
pa, pb = paddle.to_tensor(A), paddle.to_tensor(B)
ta, tb = torch.from_numpy(A), torch.from_numpy(B)
row("add [1024,1024] float32", timeit(lambda: pa + pb), timeit(lambda: ta + tb), "<= 1.0")
row("sum axis=0 [1024,1024] float32", timeit(lambda: paddle.sum(pa, axis=0)),
    timeit(lambda: torch.sum(ta, dim=0)), "<= 1.0")
row("sum axis=1 [1024,1024] float32", timeit(lambda: paddle.sum(pa, axis=1)),
    timeit(lambda: torch.sum(ta, dim=1)), "<= 1.0")
row("softmax axis=-1 [1024,1024] float32", timeit(lambda: paddle.nn.functional.softmax(pa, axis=-1)),
    timeit(lambda: torch.softmax(ta, -1)), "<= 1.5")
row("softmax axis=0 [1024,1024] float32", timeit(lambda: paddle.nn.functional.softmax(pa, axis=0)),
    timeit(lambda: torch.softmax(ta, 0)), "<= 1.5")
row("exp [1024,1024] float32", timeit(lambda: paddle.exp(pa)), timeit(lambda: torch.exp(ta)), "<= 1.0")
row("tanh [1024,1024] float32", timeit(lambda: paddle.tanh(pa)), timeit(lambda: torch.tanh(ta)), "<= 1.0")
t_mm = timeit(lambda: paddle.matmul(pa, pb), repeats=5)
row("matmul [1024,1024]x[1024,1024] float32", t_mm, timeit(lambda: torch.matmul(ta, tb), repeats=5))

# raw OpenBLAS sgemm rate in this process (the same library the extension links)
lib = None
for p in ("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
          "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"):
    if os.path.exists(p):
        lib = ctypes.CDLL(p)
        break
if lib is not None:
    C = np.empty((1024, 1024), dtype="float32")
    f = lib.cblas_sgemm
    f.restype = None
    fp = ctypes.c_void_p
    args = (101, 111, 111, 1024, 1024, 1024, ctypes.c_float(1.0), fp(A.ctypes.data), 1024,
            fp(B.ctypes.data), 1024, ctypes.c_float(0.0), fp(C.ctypes.data), 1024)
    t_raw = timeit(lambda: f(*args), repeats=5)
    gf = 2 * 1024 ** 3
    print(f"{'matmul rate vs raw OpenBLAS sgemm (same run)':<52}{gf / t_mm / 1e9:>10.1f} GF{gf / t_raw / 1e9:>10.1f} GF"
          f"{t_raw / t_mm:>8.2f}  >= 0.90 of sgemm rate")
