"""DataLoader throughput: one epoch over Fashion-MNIST (60000 images) with the seed's
Normalize transform, batch 64, num_workers 0 and 2, against torch.utils.data.DataLoader doing
the same work per sample (the same PIL image, the same normalisation in numpy) in one run; then
a heavy transform (Resize to 64x64, RandomRotation, Normalize) where workers must beat no workers.
Prints seconds per epoch and the ratio Paddle-C / PyTorch (below 1: Paddle-C is faster).
Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_io.py)."""
import os
import time

import numpy as np
import torch
from PIL import Image

import paddle
import paddle.vision.transforms as T

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
LIMIT = int(os.environ.get("BENCH_IO_SAMPLES", "60000"))
print("== bench_io (DataLoader epoch over Fashion-MNIST, batch 64)")
print(f"{'workload':<52}{'Paddle-C':>11}{'PyTorch':>11}{'ratio':>8}  target")


class Limited(paddle.io.Dataset):
    def __init__(self, base):
        self.base = base

    def __len__(self):
        return min(LIMIT, len(self.base))

    def __getitem__(self, i):
        return self.base[i]


def paddle_epoch(transform, workers):
    ds = Limited(paddle.vision.datasets.FashionMNIST(mode="train", transform=transform))
    loader = paddle.io.DataLoader(ds, batch_size=64, shuffle=True, num_workers=workers)
    t = time.perf_counter()
    n = 0
    for x, y in loader:
        n += x.shape[0]
    assert n == len(ds)
    return time.perf_counter() - t


raw = paddle.vision.datasets.FashionMNIST(mode="train")
images, labels = raw.images, raw.labels


class TorchSet(torch.utils.data.Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return min(LIMIT, len(images))

    def __getitem__(self, i):
        img = Image.fromarray(np.ascontiguousarray(images[i]), mode="L")
        return torch.from_numpy(self.transform(img)), torch.from_numpy(labels[i])


def torch_epoch(transform, workers):
    loader = torch.utils.data.DataLoader(TorchSet(transform), batch_size=64, shuffle=True, num_workers=workers)
    t = time.perf_counter()
    n = 0
    for x, y in loader:
        n += x.shape[0]
    return time.perf_counter() - t


def norm_np(img):  # the seed's Normalize(mean=[0], std=[256]) on a PIL image, CHW
    return ((np.asarray(img, dtype=np.float32) - 0.0) / 256.0)[None]


def heavy_np(img):  # Resize(64) + RandomRotation(15) + Normalize, with PIL like Paddle's transforms
    img = img.resize((64, 64), Image.BILINEAR)
    img = img.rotate(float(np.random.uniform(-15, 15)), Image.NEAREST)
    return norm_np(img)


light = T.Normalize(mean=[0.0], std=[256.0])
heavy = T.Compose([T.Resize(64), T.RandomRotation(15), T.Normalize(mean=[0.0], std=[256.0])])
results = {}
for name, pt, tt in [("Normalize", light, norm_np), ("Resize+Rotate+Normalize", heavy, heavy_np)]:
    for w in (0, 2):
        ours, peer = paddle_epoch(pt, w), torch_epoch(tt, w)
        results[(name, w)] = ours
        target = "<= 1.0" if w == 2 else ""
        print(f"{name + ', num_workers=' + str(w) + ' (s/epoch)':<52}{ours:>11.2f}{peer:>11.2f}{ours / peer:>8.2f}"
              f"  {target}", flush=True)
gain = results[("Resize+Rotate+Normalize", 0)] / results[("Resize+Rotate+Normalize", 2)]
print(f"{'heavy transform: speedup of 2 workers over 0':<52}{gain:>11.2f}{'':>11}{'':>8}  > 1.0", flush=True)
