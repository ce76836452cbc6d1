"""Optimizer benchmarks: one optimizer.step() over the seed MLP's parameters (784x1024, 1024,
1024x512, 512, 512x10, 10: 1.33M float32) for Adam, AdamW, SGD and Momentum, against PyTorch's
optimizer.step() (its default foreach implementation) in the same process. Target for Adam:
ratio <= 0.7."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import paddle  # noqa: E402
import torch  # noqa: E402
from harness import HEADER, row, timeit  # noqa: E402

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
print("== bench_optim")
print(HEADER)

SHAPES = [[784, 1024], [1024], [1024, 512], [512], [512, 10], [10]]
rng = np.random.default_rng(0)
inits = [rng.standard_normal(s).astype("float32") * 0.01 for s in SHAPES]
grads = [rng.standard_normal(s).astype("float32") * 0.01 for s in SHAPES]


def paddle_params():
    ps = []
    for w, g in zip(inits, grads):
        p = paddle.to_tensor(w)
        p.stop_gradient = False
        (p * paddle.to_tensor(g)).sum().backward()  # p.grad = g
        ps.append(p)
    return ps


def torch_params():
    ps = []
    for w, g in zip(inits, grads):
        p = torch.tensor(w, requires_grad=True)
        p.grad = torch.tensor(g)
        ps.append(p)
    return ps


CASES = [
    ("Adam", lambda ps: paddle.optimizer.Adam(1e-3, parameters=ps),
     lambda ps: torch.optim.Adam(ps, lr=1e-3), "<= 0.7"),
    ("AdamW", lambda ps: paddle.optimizer.AdamW(1e-3, parameters=ps, weight_decay=0.01),
     lambda ps: torch.optim.AdamW(ps, lr=1e-3, weight_decay=0.01), ""),
    ("SGD", lambda ps: paddle.optimizer.SGD(1e-3, parameters=ps),
     lambda ps: torch.optim.SGD(ps, lr=1e-3), ""),
    ("Momentum", lambda ps: paddle.optimizer.Momentum(1e-3, 0.9, parameters=ps),
     lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9), ""),
]

for name, mk_p, mk_t, target in CASES:
    po = mk_p(paddle_params())
    to = mk_t(torch_params())
    t_p = timeit(po.step)
    t_t = timeit(to.step)
    row(f"{name}.step() seed MLP 1.33M float32", t_p, t_t, target)
