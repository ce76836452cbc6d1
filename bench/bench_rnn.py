"""Recurrent-layer benchmark: paddle.nn.LSTM and GRU (128 -> 256), T=35, batch 20, forward +
backward of outputs.sum() and forward under no_grad, against torch.nn.LSTM / GRU with the same
weights in the same process (PyTorch's CPU LSTM/GRU run oneDNN's RNN primitives). Paddle-C runs
each layer and direction as one C op (lstm_seq / gru_seq): one GEMM for the input projections of
all steps, then per step one GEMM on h per thread for its slice of hidden units plus the fused
cell; the backward op runs the reverse recurrence and the weight gradients as single GEMMs."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import paddle  # noqa: E402
import torch  # noqa: E402
from harness import HEADER, row, timeit  # noqa: E402

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
print("== bench_rnn")
print(HEADER)

I_, H, T, B = 128, 256, 35, 20
rng = np.random.default_rng(0)
X = rng.normal(size=(B, T, I_)).astype("float32")


def pair(p_cls, t_cls):
    p_net, t_net = p_cls(I_, H), t_cls(I_, H, batch_first=True)
    with torch.no_grad():  # same gate orders (LSTM i, f, g, o; GRU r, z, c/n) and shapes
        for name in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]:
            getattr(t_net, name + "_l0").copy_(torch.tensor(getattr(p_net[0].cell, name).numpy()))
    return p_net, t_net


px = paddle.to_tensor(X)
tx = torch.tensor(X)

for kind, p_cls, t_cls in [("LSTM", paddle.nn.LSTM, torch.nn.LSTM), ("GRU", paddle.nn.GRU, torch.nn.GRU)]:
    p_net, t_net = pair(p_cls, t_cls)
    po, _ = p_net(px)
    to, _ = t_net(tx)
    err = np.abs(po.numpy() - to.detach().numpy()).max()
    assert err < 1e-4, f"Paddle-C and PyTorch {kind} outputs differ by {err}"

    def p_fwd_bwd():
        out, _ = p_net(px)
        out.sum().backward()

    def t_fwd_bwd():
        out, _ = t_net(tx)
        out.sum().backward()

    def p_fwd():
        with paddle.no_grad():
            p_net(px)

    def t_fwd():
        with torch.no_grad():
            t_net(tx)

    row(f"{kind}({I_}->{H}) T={T} B={B} fwd+bwd", timeit(p_fwd_bwd), timeit(t_fwd_bwd),
        "<= 0.8" if kind == "LSTM" else "")
    row(f"{kind}({I_}->{H}) T={T} B={B} fwd (no_grad)", timeit(p_fwd), timeit(t_fwd))
