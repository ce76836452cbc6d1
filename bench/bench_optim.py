"""Optimizer benchmarks: one optimizer.step() over the seed MLP's parameters (784x1024, 1024,
1024x512, 512, 512x10, 10: 1.33M float32) for Adam, AdamW, SGD and Momentum, against PyTorch's
optimizer.step() (its default foreach implementation) in the same process. Target for Adam:
ratio <= 0.7. Then row-sparse gradients: SGD and lazy Adam steps on Embedding(100000, 64) with
1024 looked-up rows, sparse=True against PyTorch's sparse Embedding with SGD / SparseAdam, and
sparse=False against PyTorch's dense Embedding with SGD / Adam (every row updated), plus one
whole training iteration (forward, backward, step, clear_grad) of the sparse lazy-Adam case."""
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


# ---- row-sparse gradients (Embedding(sparse=True)): only the looked-up rows move
VOCAB, DIM, TOUCH = 100000, 64, 1024
emb_w = rng.standard_normal((VOCAB, DIM)).astype("float32") * 0.01
emb_ids = rng.choice(VOCAB, TOUCH, replace=False).astype("int64")
emb_gout = rng.standard_normal((TOUCH, DIM)).astype("float32") * 0.01


def paddle_emb(sparse):
    e = paddle.nn.Embedding(VOCAB, DIM, sparse=sparse)
    e.weight.set_value(emb_w)
    return e


def torch_emb(sparse):
    e = torch.nn.Embedding(VOCAB, DIM, sparse=sparse)
    with torch.no_grad():
        e.weight.copy_(torch.from_numpy(emb_w))
    return e


def with_grad(e, fw, ids, gout):
    (e(fw(ids)) * fw(gout)).sum().backward()
    return e


EMB_CASES = [
    ("SGD", lambda ps: paddle.optimizer.SGD(1e-3, parameters=ps),
     lambda ps, sp: torch.optim.SGD(ps, lr=1e-3)),
    ("Adam(lazy_mode)", lambda ps: paddle.optimizer.Adam(1e-3, parameters=ps, lazy_mode=True),
     lambda ps, sp: torch.optim.SparseAdam(ps, lr=1e-3) if sp else torch.optim.Adam(ps, lr=1e-3)),
]
for name, mk_p, mk_t in EMB_CASES:
    for sparse in (True, False):
        pe = with_grad(paddle_emb(sparse), paddle.to_tensor, emb_ids, emb_gout)
        te = with_grad(torch_emb(sparse), torch.from_numpy, emb_ids, emb_gout)
        po, to = mk_p(pe.parameters()), mk_t(list(te.parameters()), sparse)
        t_p = timeit(po.step)
        t_t = timeit(to.step)
        row(f"{name}.step() Emb 100000x64, 1024 rows {'sparse' if sparse else 'dense '}", t_p, t_t)

pe, te = paddle_emb(True), torch_emb(True)
po = paddle.optimizer.Adam(1e-3, parameters=pe.parameters(), lazy_mode=True)
to = torch.optim.SparseAdam(list(te.parameters()), lr=1e-3)
p_ids, p_gout = paddle.to_tensor(emb_ids), paddle.to_tensor(emb_gout)
t_ids, t_gout = torch.from_numpy(emb_ids), torch.from_numpy(emb_gout)


def paddle_iter():
    (pe(p_ids) * p_gout).sum().backward()
    po.step()
    po.clear_grad()


def torch_iter():
    (te(t_ids) * t_gout).sum().backward()
    to.step()
    to.zero_grad()


row("fwd+bwd+Adam(lazy) step, Emb 100000x64 sparse", timeit(paddle_iter), timeit(torch_iter))
