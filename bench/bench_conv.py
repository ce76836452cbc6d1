"""Side-by-side: seed e05's CNN training step at [32,3,64,64] and a conv-bn-relu block forward,
Paddle-C vs PyTorch CPU in one process; prints ms and the ratio (Paddle-C / PyTorch).
Run: PYTHONPATH=python /work/cc/.venv/bin/python bench/bench_conv.py"""
import time

import numpy as np
import torch

import paddle
import paddle.nn.functional as F


def bench(f, n=10, warm=3):
    for _ in range(warm):
        f()
    t = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e3


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

    a, b = bench(pstep), bench(tstep)
    print(f"e05 CNN train step [32,3,64,64]: paddle-c {a:.2f} ms  torch {b:.2f} ms  ratio {a / b:.2f}")
    xn = np.random.rand(32, 64, 28, 28).astype("float32")
    conv, bn = paddle.nn.Conv2D(64, 64, 3, padding=1), paddle.nn.BatchNorm2D(64)
    tconv, tbn = torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.BatchNorm2d(64)
    conv.eval(), bn.eval(), tbn.eval()
    px, tx = paddle.to_tensor(xn), torch.from_numpy(xn)
    with torch.no_grad():
        b = bench(lambda: torch.relu(tbn(tconv(tx))))
    with paddle.no_grad():
        a = bench(lambda: F.relu(bn(conv(px))))
    print(f"conv-bn-relu forward [32,64,28,28]: paddle-c {a:.2f} ms  torch {b:.2f} ms  ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
