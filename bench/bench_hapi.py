"""Seed E1's training throughput: paddle.Model.fit (Fashion-MNIST through
paddle.vision.datasets.FashionMNIST with the seed's Normalize transform, Adam, CrossEntropyLoss,
Accuracy) against PyTorch's plain training loop on the same data with the same work per sample
(a Dataset that normalises each image, torch.utils.data.DataLoader, the same MLP, Adam, cross
entropy, accuracy), in one process. Prints samples/s and the ratio PyTorch time / Paddle-C
time per sample (above 1 means Paddle-C is faster; the issue's target is >= 1.25) for batch 32
and 128. Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_hapi.py)."""
import os
import time

import numpy as np
import torch
from PIL import Image

import paddle

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
STEPS = int(os.environ.get("BENCH_HAPI_STEPS", "400"))
print("== bench_hapi (seed E1 training throughput)")
print(f"{'workload':<40}{'Paddle-C':>14}{'PyTorch':>14}{'speedup':>9}  target")

normalize = paddle.vision.transforms.Normalize(mean=[0.0], std=[256.0])
train = paddle.vision.datasets.FashionMNIST(mode="train", transform=normalize)
images, labels = train.images, train.labels  # the same arrays feed PyTorch's loop


def paddle_rate(batch):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                               paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(train, epochs=1, batch_size=batch, verbose=0, num_iters=20)  # warm-up
    t = time.perf_counter()
    model.fit(train, epochs=1, batch_size=batch, verbose=0, num_iters=STEPS)
    return STEPS * batch / (time.perf_counter() - t)


class TorchSet(torch.utils.data.Dataset):
    def __len__(self):
        return len(images)

    def __getitem__(self, i):  # what torchvision's FashionMNIST + a normalising transform do
        img = Image.fromarray(np.ascontiguousarray(images[i]), mode="L")
        img = (np.asarray(img, dtype=np.float32) - 0.0) / 256.0
        return torch.from_numpy(img), int(labels[i][0])


def torch_rate(batch):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 1024), torch.nn.ReLU(),
                              torch.nn.Linear(1024, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(TorchSet(), batch_size=batch, shuffle=True)

    def run(n):
        correct = 0
        for k, (x, y) in enumerate(loader):
            if k == n:
                break
            out = net(x)
            loss = torch.nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (out.argmax(1) == y).sum().item()  # the accuracy metric's work
        return correct

    run(20)
    t = time.perf_counter()
    run(STEPS)
    return STEPS * batch / (time.perf_counter() - t)


for batch in (32, 128):
    ours, peer = paddle_rate(batch), torch_rate(batch)
    print(f"{'E1 MLP fit, batch ' + str(batch) + ' (samples/s)':<40}{ours:>14.0f}{peer:>14.0f}{ours / peer:>9.2f}"
          "  >= 1.25", flush=True)
