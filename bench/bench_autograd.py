"""Autograd benchmarks (issue 3): forward + backward of (a*b + c).sum() on float32 [4] (the
engine's per-op overhead), and forward + backward of the seed MLP 784-1024-512-10 with ReLU at
batch 32 written with raw tensor ops, against PyTorch. Each framework runs in its own child
process, alternately (one process holding both holds two OpenMP runtimes whose idle threads spin
and take cores from each other); the best repeat of each side over the rounds is compared.
Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_autograd.py)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import compare_sides, entry, timeit  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_AUTOGRAD_ROUNDS", "2"))
WORKLOADS = (("fwd+bwd (a*b + c).sum(), float32 [4]", "<= 0.5"),
             ("fwd+bwd seed MLP 784-1024-512-10 ReLU, batch 32", "<= 0.8"))


def mlp_data():
    rng = np.random.default_rng(0)
    shapes = [(784, 1024), (1024, 512), (512, 10)]
    Ws = [rng.normal(size=s).astype("float32") * 0.05 for s in shapes]
    Bs = [np.zeros(s[1], dtype="float32") for s in shapes]
    return Ws, Bs, rng.normal(size=(32, 784)).astype("float32"), rng.normal(size=(32, 10)).astype("float32")


def paddle_side():
    import paddle
    a, b, c = (paddle.rand([4]) for _ in range(3))
    for t in (a, b, c):
        t.stop_gradient = False
    Ws, Bs, X, Y = mlp_data()
    pw = [paddle.to_tensor(w, stop_gradient=False) for w in Ws]
    pb = [paddle.to_tensor(v, stop_gradient=False) for v in Bs]
    px, py = paddle.to_tensor(X), paddle.to_tensor(Y)
    relu = paddle.nn.functional.relu

    def small():
        (a * b + c).sum().backward()

    def mlp():
        h = px
        for i in range(3):
            h = paddle.matmul(h, pw[i]) + pb[i]
            if i < 2:
                h = relu(h)
        ((h - py) ** 2).mean().backward()
        for t in pw + pb:
            t.clear_grad()

    return small, mlp


def torch_side():
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    a, b, c = (torch.rand(4, requires_grad=True) for _ in range(3))
    Ws, Bs, X, Y = mlp_data()
    tw = [torch.tensor(w, requires_grad=True) for w in Ws]
    tb = [torch.tensor(v, requires_grad=True) for v in Bs]
    tx, ty = torch.tensor(X), torch.tensor(Y)

    def small():
        (a * b + c).sum().backward()

    def mlp():
        h = tx
        for i in range(3):
            h = torch.matmul(h, tw[i]) + tb[i]
            if i < 2:
                h = torch.relu(h)
        ((h - ty) ** 2).mean().backward()
        for t in tw + tb:
            t.grad = None

    return small, mlp


def child(side):
    small, mlp = paddle_side() if side == "paddle" else torch_side()
    print(json.dumps([timeit(small, reduce=min), timeit(mlp, repeats=9, reduce=min)]))


def main():
    compare_sides(__file__, "bench_autograd", WORKLOADS, ROUNDS)


if __name__ == "__main__":
    entry(child, main)
