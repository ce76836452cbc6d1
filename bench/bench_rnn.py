"""Recurrent-layer benchmark: paddle.nn.LSTM(128 -> 256), T=35, batch 20, forward + backward of
outputs.sum(), against torch.nn.LSTM with the same weights in the same process. Paddle-C runs
one GEMM for the input projections of all steps, then per step one GEMM on h and the fused
lstm_cell_fused op (fused backward kernel)."""
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

p_lstm = paddle.nn.LSTM(I_, H)
t_lstm = torch.nn.LSTM(I_, H, batch_first=True)
with torch.no_grad():  # same gate order (i, f, g, o) and shapes: copy Paddle's weights over
    for name in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]:
        getattr(t_lstm, name + "_l0").copy_(torch.tensor(getattr(p_lstm[0].cell, name).numpy()))
px = paddle.to_tensor(X)
tx = torch.tensor(X)

po, _ = p_lstm(px)
to, _ = t_lstm(tx)
err = np.abs(po.numpy() - to.detach().numpy()).max()
assert err < 1e-4, f"Paddle-C and PyTorch LSTM outputs differ by {err}"


def p_fwd_bwd():
    out, _ = p_lstm(px)
    out.sum().backward()


def t_fwd_bwd():
    out, _ = t_lstm(tx)
    out.sum().backward()


def p_fwd():
    with paddle.no_grad():
        p_lstm(px)


def t_fwd():
    with torch.no_grad():
        t_lstm(tx)


row(f"LSTM({I_}->{H}) T={T} B={B} fwd+bwd", timeit(p_fwd_bwd), timeit(t_fwd_bwd), "<= 0.8")
row(f"LSTM({I_}->{H}) T={T} B={B} fwd (no_grad)", timeit(p_fwd), timeit(t_fwd))
