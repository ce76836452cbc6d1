"""Convolution benchmarks, Paddle-C vs PyTorch CPU: seed e05's CNN training step at [32,3,64,64]
(its three stride-2 convolutions, global pool and Linear(128, 8), cross-entropy, Adam: the step
of ../shared/perf_baselines.md, clear_grad + forward + loss + backward + step),
a conv-bn-relu block forward (eval), a ResNet-style 3x3 conv forward+backward at [32,64,56,56]
and a 1x1 conv forward+backward. Each framework runs in its own child process, alternately
(paddle, torch, paddle, torch: one process holding both holds two OpenMP runtimes whose idle
threads spin and take cores from each other), and the best repeat of each side over all rounds
is compared (this VM's neighbours make single repeats of either side slower at random moments).
Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_conv.py)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import compare_sides, entry, timeit  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_CONV_ROUNDS", "2"))
LABELS = np.random.default_rng(1).integers(0, 8, 32)
WORKLOADS = (("e05 CNN train step [32,3,64,64]", "<= 0.9"),
             ("conv-bn-relu forward [32,64,28,28]", "<= 1.0"),
             ("resnet 3x3 conv fwd+bwd [32,64,56,56]", ""),
             ("1x1 conv fwd+bwd [32,256,28,28]->64", ""))


def inputs():
    rng = np.random.default_rng(0)
    return (rng.random((32, 3, 64, 64), dtype=np.float32), rng.random((32, 64, 28, 28), dtype=np.float32),
            rng.random((32, 64, 56, 56), dtype=np.float32), rng.random((32, 256, 28, 28), dtype=np.float32))


def paddle_side():
    import paddle
    import paddle.nn.functional as F

    nn = paddle.nn
    net = nn.Sequential(nn.Conv2D(3, 32, 3, stride=2), nn.ReLU(), nn.Conv2D(32, 64, 3, stride=2), nn.ReLU(),
                        nn.Conv2D(64, 128, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2D(1), nn.Flatten(),
                        nn.Linear(128, 8))
    loss_fn, opt = nn.CrossEntropyLoss(), paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    label = paddle.to_tensor(LABELS)

    def train_step():
        opt.clear_grad()
        loss_fn(net(x0), label).backward()
        opt.step()

    x0, x1, x2, x3 = (paddle.to_tensor(a) for a in inputs())
    conv, bn = paddle.nn.Conv2D(64, 64, 3, padding=1), paddle.nn.BatchNorm2D(64)
    conv.eval(), bn.eval()

    def cbr():
        with paddle.no_grad():
            F.relu(bn(conv(x1)))

    def conv_step(x, cout, k, pad):  # no bias, as in ResNet; the input requires grad
        c = paddle.nn.Conv2D(x.shape[1], cout, k, padding=pad, bias_attr=False)
        x.stop_gradient = False
        return lambda: c(x).sum().backward()

    return [train_step, cbr, conv_step(x2, 64, 3, 1), conv_step(x3, 64, 1, 0)]


def torch_side():
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))

    nn = torch.nn
    net = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2), nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2), nn.ReLU(),
                        nn.Conv2d(64, 128, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                        nn.Linear(128, 8))
    loss_fn, opt = nn.CrossEntropyLoss(), torch.optim.Adam(net.parameters(), lr=1e-3)
    label = torch.from_numpy(LABELS)

    def train_step():
        opt.zero_grad()
        loss_fn(net(x0), label).backward()
        opt.step()

    x0, x1, x2, x3 = (torch.from_numpy(a) for a in inputs())
    conv, bn = torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.BatchNorm2d(64)
    bn.eval()

    def cbr():
        with torch.no_grad():
            torch.relu(bn(conv(x1)))

    def conv_step(x, cout, k, pad):
        c = torch.nn.Conv2d(x.shape[1], cout, k, padding=pad, bias=False)
        x.requires_grad_()
        return lambda: c(x).sum().backward()

    return [train_step, cbr, conv_step(x2, 64, 3, 1), conv_step(x3, 64, 1, 0)]


def child(side):
    fns = paddle_side() if side == "paddle" else torch_side()
    print(json.dumps([timeit(f, reduce=min) for f in fns]))


def main():
    compare_sides(__file__, "bench_conv", WORKLOADS, ROUNDS)


if __name__ == "__main__":
    entry(child, main)
