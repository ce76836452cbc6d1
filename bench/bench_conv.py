"""Side-by-side: seed e05's CNN training step at [32,3,64,64], a conv-bn-relu block forward, a
ResNet-style 3x3 conv forward+backward at [32,64,56,56] and a 1x1 conv forward+backward, Paddle-C
vs PyTorch CPU in one process; prints ms and the ratio (Paddle-C / PyTorch).
Run: PYTHONPATH=python OMP_NUM_THREADS=2 .venv/bin/python bench/bench_conv.py"""
import statistics
import time

import numpy as np
import torch

import paddle
import paddle.nn.functional as F


def pair(pf, tf, n=10, warm=3):
    """Median ms of pf and tf timed in alternation (a load spike hits both sides alike)."""
    for _ in range(warm):
        pf()
        tf()
    a, b = [], []
    for _ in range(n):
        for f, acc in ((pf, a), (tf, b)):
            t = time.perf_counter()
            f()
            acc.append((time.perf_counter() - t) * 1e3)
    return statistics.median(a), statistics.median(b)


class MyNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(3, 32, (3, 3), stride=2)
        self.conv2 = paddle.nn.Conv2D(32, 64, (3, 3), stride=2)
        self.conv3 = paddle.nn.Conv2D(64, 128, (3, 3), stride=2)
        self.global_pool = paddle.nn.AdaptiveAvgPool2D((1, 1))

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        return self.global_pool(x)


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 32, 3, stride=2)
        self.conv2 = torch.nn.Conv2d(32, 64, 3, stride=2)
        self.conv3 = torch.nn.Conv2d(64, 128, 3, stride=2)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = torch.relu(self.conv3(x))
        return torch.nn.functional.adaptive_avg_pool2d(x, 1)


def main():
    xn = np.random.rand(32, 3, 64, 64).astype("float32")
    pn, tn = MyNet(), TNet()
    px, tx = paddle.to_tensor(xn), torch.from_numpy(xn)

    def pstep():
        loss = pn(px).sum()
        loss.backward()

    def tstep():
        loss = tn(tx).sum()
        loss.backward()

    a, b = pair(pstep, tstep)
    print(f"e05 CNN train step [32,3,64,64]: paddle-c {a:.2f} ms  torch {b:.2f} ms  ratio {a / b:.2f}")
    xn = np.random.rand(32, 64, 28, 28).astype("float32")
    conv, bn = paddle.nn.Conv2D(64, 64, 3, padding=1), paddle.nn.BatchNorm2D(64)
    tconv, tbn = torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.BatchNorm2d(64)
    conv.eval(), bn.eval(), tbn.eval()
    px, tx = paddle.to_tensor(xn), torch.from_numpy(xn)
    with torch.no_grad(), paddle.no_grad():
        a, b = pair(lambda: F.relu(bn(conv(px))), lambda: torch.relu(tbn(tconv(tx))))
    print(f"conv-bn-relu forward [32,64,28,28]: paddle-c {a:.2f} ms  torch {b:.2f} ms  ratio {a / b:.2f}")
    conv_fwd_bwd("resnet 3x3 conv fwd+bwd [32,64,56,56]", (32, 64, 56, 56), 64, 3, 1)
    conv_fwd_bwd("1x1 conv fwd+bwd [32,256,28,28]->64", (32, 256, 28, 28), 64, 1, 0)


def conv_fwd_bwd(name, shape, cout, k, pad):
    """One conv layer (no bias, as in ResNet) forward + backward with the input requiring grad."""
    xn = np.random.rand(*shape).astype("float32")
    conv = paddle.nn.Conv2D(shape[1], cout, k, padding=pad, bias_attr=False)
    tconv = torch.nn.Conv2d(shape[1], cout, k, padding=pad, bias=False)
    px, tx = paddle.to_tensor(xn), torch.from_numpy(xn).requires_grad_()
    px.stop_gradient = False

    def pstep():
        conv(px).sum().backward()

    def tstep():
        tconv(tx).sum().backward()

    a, b = pair(pstep, tstep, n=5, warm=2)
    print(f"{name}: paddle-c {a:.2f} ms  torch {b:.2f} ms  ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
