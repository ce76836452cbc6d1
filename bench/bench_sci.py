"""paddle.incubate / paddle.distribution / paddle.text kernels against the PyTorch equivalents,
each framework in its own process (harness.compare_sides): segment_sum (sorted ids) vs
index_add_, graph_send_recv sum vs index_add_ of gathered rows, softmax_mask_fuse vs
softmax(x + mask), Dirichlet sampling, Normal.log_prob, and viterbi_decode (PyTorch has no
Viterbi: its row is the same max-plus recursion written with torch ops, for scale).
Without torch installed (or with --peer paddle), the peer is real PaddlePaddle (PADDLE_ORACLE_PY,
default /work/oracle/bin/python) running the same paddle code in its own process."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import tempfile  # noqa: E402

from harness import HEADER, compare_sides, entry, row, run_child, timeit  # noqa: E402

WORKLOADS = [
    ("segment_sum [100000, 64] f32, 1000 segments", ""),
    ("graph_send_recv sum x[10000, 64], 200000 edges", ""),
    ("softmax_mask_fuse [8, 12, 128, 128] f32", ""),
    ("Dirichlet(5 cats).sample([100000])", ""),
    ("Normal.log_prob 10^6 f32", ""),
    ("viterbi_decode [64, 50, 20] f32", ""),
]


def data():
    rng = np.random.default_rng(0)
    return dict(
        x=rng.standard_normal((100000, 64)).astype('float32'),
        ids=np.sort(rng.integers(0, 1000, 100000)),
        nx=rng.standard_normal((10000, 64)).astype('float32'),
        src=rng.integers(0, 10000, 200000), dst=rng.integers(0, 10000, 200000),
        att=rng.standard_normal((8, 12, 128, 128)).astype('float32'),
        mask=np.where(rng.random((8, 1, 128, 128)) < 0.2, -1e4, 0).astype('float32'),
        v=rng.standard_normal(1000000).astype('float32'),
        pot=rng.standard_normal((64, 50, 20)).astype('float32'),
        trans=rng.standard_normal((20, 20)).astype('float32'),
        lens=np.full(64, 50))


def child(side):
    d = data()
    out = []
    if side == 'paddle':
        import paddle
        import paddle.incubate as I
        T = paddle.to_tensor
        x, ids = T(d['x']), T(d['ids'])
        nx, src, dst = T(d['nx']), T(d['src']), T(d['dst'])
        att, mask = T(d['att']), T(d['mask'])
        dirich = paddle.distribution.Dirichlet(T(np.array([0.5, 1.0, 2.0, 3.0, 4.0], 'float32')))
        normal = paddle.distribution.Normal(T(np.float32([0.5])), T(np.float32([2.0])))
        v = T(d['v'])
        pot, trans, lens = T(d['pot']), T(d['trans']), T(d['lens'])
        fns = [lambda: I.segment_sum(x, ids), lambda: I.graph_send_recv(nx, src, dst, 'sum'),
               lambda: I.softmax_mask_fuse(att, mask), lambda: dirich.sample([100000]),
               lambda: normal.log_prob(v),
               lambda: paddle.text.viterbi_decode(pot, trans, lens, False)]
    else:
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        T = torch.from_numpy
        x, ids = T(d['x']), T(d['ids'])
        nx, src, dst = T(d['nx']), T(d['src']), T(d['dst'])
        att, mask = T(d['att']), T(d['mask'])
        dirich = torch.distributions.Dirichlet(torch.tensor([0.5, 1.0, 2.0, 3.0, 4.0]))
        normal = torch.distributions.Normal(torch.tensor([0.5]), torch.tensor([2.0]))
        v = T(d['v'])
        pot, trans = T(d['pot']), T(d['trans'])

        def viterbi():
            alpha = pot[:, 0]
            hist = []
            for i in range(1, pot.shape[1]):
                m, arg = (alpha.unsqueeze(2) + trans).max(1)
                hist.append(arg)
                alpha = m + pot[:, i]
            s, last = alpha.max(1)
            path = [last]
            for h in reversed(hist):
                last = h.gather(1, last.unsqueeze(1)).squeeze(1)
                path.append(last)
            return s, torch.stack(path[::-1], 1)
        fns = [lambda: torch.zeros(1000, 64).index_add_(0, ids, x),
               lambda: torch.zeros(10000, 64).index_add_(0, dst, nx[src]),
               lambda: torch.softmax(att + mask, -1), lambda: dirich.sample((100000,)),
               lambda: normal.log_prob(v), viterbi]
    for fn in fns:
        out.append(timeit(fn))
    print(json.dumps(out))


def main():
    try:
        import importlib.util
        have_torch = importlib.util.find_spec("torch") is not None
    except Exception:  # noqa: BLE001
        have_torch = False
    if have_torch and "--peer" not in sys.argv:
        compare_sides(__file__, "bench_sci", WORKLOADS, rounds=2)
        return
    oracle = os.environ.get("PADDLE_ORACLE_PY", "/work/oracle/bin/python")
    print("== bench_sci vs real PaddlePaddle (%s; the 'PyTorch' column is real Paddle)" % oracle)
    print(HEADER)
    ours, peer = [], []
    with tempfile.TemporaryDirectory() as d:
        for _ in range(2):
            ours.append(run_child([sys.executable, os.path.abspath(__file__), "--child", "paddle", d],
                                  "Paddle-C", os.getcwd()))
            peer.append(run_child([oracle, os.path.abspath(__file__), "--child", "paddle", d],
                                  "real Paddle", d, foreign=True))
    for i, (name, target) in enumerate(WORKLOADS):
        row(name, min(t[i] for t in ours), min(t[i] for t in peer), target)


if __name__ == '__main__':
    entry(child, main)
