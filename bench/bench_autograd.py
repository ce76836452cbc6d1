"""Autograd benchmarks (issue 3): forward + backward of (a*b + c).sum() on float32 [4] (the
engine's per-op overhead), and forward + backward of the seed MLP 784-1024-512-10 with ReLU at
batch 32 written with raw tensor ops, against PyTorch in the same process."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import paddle  # noqa: E402
import torch  # noqa: E402
from harness import HEADER, row, timeit  # noqa: E402

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
print("== bench_autograd")
print(HEADER)

a = paddle.rand([4]); a.stop_gradient = False
b = paddle.rand([4]); b.stop_gradient = False
c = paddle.rand([4]); c.stop_gradient = False
ta, tb, tc = (torch.rand(4, requires_grad=True) for _ in range(3))


def p_small():
    (a * b + c).sum().backward()


def t_small():
    (ta * tb + tc).sum().backward()


row("fwd+bwd (a*b + c).sum(), float32 [4]", timeit(p_small), timeit(t_small), "<= 0.5")

rng = np.random.default_rng(0)
shapes = [(784, 1024), (1024, 512), (512, 10)]
Ws = [rng.normal(size=s).astype("float32") * 0.05 for s in shapes]
Bs = [np.zeros(s[1], dtype="float32") for s in shapes]
X = rng.normal(size=(32, 784)).astype("float32")
Y = rng.normal(size=(32, 10)).astype("float32")

pw = [paddle.to_tensor(w, stop_gradient=False) for w in Ws]
pb = [paddle.to_tensor(v, stop_gradient=False) for v in Bs]
px, py = paddle.to_tensor(X), paddle.to_tensor(Y)
tw = [torch.tensor(w, requires_grad=True) for w in Ws]
tbias = [torch.tensor(v, requires_grad=True) for v in Bs]
tx, ty = torch.tensor(X), torch.tensor(Y)
relu = paddle.nn.functional.relu


def p_mlp():
    h = px
    for i in range(3):
        h = paddle.matmul(h, pw[i]) + pb[i]
        if i < 2:
            h = relu(h)
    loss = ((h - py) ** 2).mean()
    loss.backward()
    for t in pw + pb:
        t.clear_grad()


def t_mlp():
    h = tx
    for i in range(3):
        h = torch.matmul(h, tw[i]) + tbias[i]
        if i < 2:
            h = torch.relu(h)
    loss = ((h - ty) ** 2).mean()
    loss.backward()
    for t in tw + tbias:
        t.grad = None


row("fwd+bwd seed MLP 784-1024-512-10 ReLU, batch 32", timeit(p_mlp, repeats=9),
    timeit(t_mlp, repeats=9), "<= 0.8")
