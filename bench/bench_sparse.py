"""Sparse benchmark, Paddle-C vs PyTorch CPU: CSR [10^5 x 10^5, 10^6 nonzeros] @ dense
[10^5 x 64] float32 (paddle.sparse.matmul vs torch.sparse.mm), plus the SDDMM of
paddle.sparse.masked_matmul vs torch.sparse.sampled_addmm on the same pattern (K = 64) and
the gradient of the SpMM (values and dense operand). Each framework runs in its own child
process, alternately, on the same arrays (written once to a temporary .npz); the best repeat of
each side over the rounds is compared. PyTorch comes from $BENCH_TORCH_PY when set (a separate
venv), else /work/main/.bench_venv, else this interpreter.
Run: PYTHONPATH=python .venv/bin/python bench/bench_sparse.py"""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import HEADER, row, run_child, timeit  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_SPARSE_ROUNDS", "2"))
M = K = 100_000
NNZ = 1_000_000
N = 64
WORKLOADS = (("spmm CSR 1e5x1e5 (1e6 nnz) @ dense [1e5, 64] f32", "<= 1.0"),
             ("sddmm (masked_matmul) 1e6 nnz, K=64 f32", ""),
             ("spmm forward + backward (values, dense)", ""))


def make_inputs(path):
    rng = np.random.default_rng(0)
    lin = np.unique(rng.integers(0, M * K, size=int(NNZ * 1.01), dtype=np.int64))[:NNZ]
    rng.shuffle(lin)
    lin = np.sort(lin[:NNZ])
    rows, cols = lin // K, lin % K
    crows = np.zeros(M + 1, np.int64)
    np.add.at(crows, rows + 1, 1)
    crows = np.cumsum(crows)
    np.savez(path, crows=crows, cols=cols.astype(np.int64),
             values=rng.standard_normal(len(cols)).astype(np.float32),
             dense=rng.standard_normal((K, N)).astype(np.float32),
             a=rng.standard_normal((M, N)).astype(np.float32),
             b=rng.standard_normal((N, K)).astype(np.float32))


def paddle_side(d):
    import paddle
    x = paddle.sparse.sparse_csr_tensor(d["crows"], d["cols"], d["values"], [M, K])
    y = paddle.to_tensor(d["dense"])
    a, b = paddle.to_tensor(d["a"]), paddle.to_tensor(d["b"])
    xg = paddle.sparse.sparse_csr_tensor(d["crows"], d["cols"], d["values"], [M, K], stop_gradient=False)
    yg = paddle.to_tensor(d["dense"], stop_gradient=False)

    def fwd_bwd():
        paddle.sparse.matmul(xg, yg).sum().backward()
        xg.clear_gradient()
        yg.clear_gradient()
    return [lambda: paddle.sparse.matmul(x, y), lambda: paddle.sparse.masked_matmul(a, b, x), fwd_bwd]


def torch_side(d):
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    t = torch.from_numpy
    x = torch.sparse_csr_tensor(t(d["crows"]), t(d["cols"]), t(d["values"]), (M, K))
    y = t(d["dense"])
    a, b = t(d["a"]), t(d["b"])
    xg = torch.sparse_csr_tensor(t(d["crows"]), t(d["cols"]), t(d["values"]), (M, K), requires_grad=True)
    yg = t(d["dense"]).clone().requires_grad_(True)

    def fwd_bwd():
        torch.sparse.mm(xg, yg).sum().backward()
        xg.grad = None
        yg.grad = None
    return [lambda: torch.sparse.mm(x, y), lambda: torch.sparse.sampled_addmm(x, a, b, beta=0.0), fwd_bwd]


def child(side, path):
    d = dict(np.load(path))
    fns = paddle_side(d) if side == "paddle" else torch_side(d)
    times = []
    for f in fns:
        f()
        times.append(timeit(f, min_time=0.2, repeats=5, reduce=min))
    print(json.dumps(times))


def torch_python():
    if os.environ.get("BENCH_TORCH_PY"):
        return os.environ["BENCH_TORCH_PY"]
    p = "/work/main/.bench_venv/bin/python"
    return p if os.path.exists(p) else sys.executable


def main():
    out = {"paddle": [], "torch": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "csr.npz")
        make_inputs(path)
        for _ in range(ROUNDS):
            for side, py in (("paddle", sys.executable), ("torch", torch_python())):
                out[side].append(run_child([py, os.path.abspath(__file__), "--child", side, path],
                                           f"bench_sparse {side}", tmp, foreign=side == "torch"))
    print(f"== paddle.sparse (each framework in its own process, alternating rounds; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())})")
    print(HEADER)
    for i, (name, target) in enumerate(WORKLOADS):
        row(name, min(t[i] for t in out["paddle"]), min(t[i] for t in out["torch"]), target)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
