"""DataLoader throughput: one epoch over Fashion-MNIST (60000 images) with the seed's
Normalize transform, batch 64, num_workers 0 and 2, against torch.utils.data.DataLoader doing
the same work per sample (the same PIL image, the same normalisation in numpy); then a heavy
transform (Resize to 64x64, RandomRotation, Normalize) where workers must beat no workers.
Paddle-C's FashionMNIST fetches a batch at once when its transform allows (MNIST._getitems:
bit-identical results, no PIL round trip per image); the "user Dataset" row wraps it in a plain
Dataset whose __getitem__ goes sample by sample, as any user dataset does. Each framework runs in
its own child process (harness.run_sides). Prints seconds per epoch and the ratio Paddle-C /
PyTorch (below 1: Paddle-C is faster).
Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_io.py)."""
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_sides  # noqa: E402

LIMIT = int(os.environ.get("BENCH_IO_SAMPLES", "60000"))
ROUNDS = int(os.environ.get("BENCH_IO_ROUNDS", "1"))
WORKLOADS = [("Normalize", 0, False), ("Normalize", 2, False), ("Normalize", 0, True),
             ("Resize+Rotate+Normalize", 0, False), ("Resize+Rotate+Normalize", 2, False)]


def norm_np(img):  # the seed's Normalize(mean=[0], std=[256]) on a PIL image, CHW
    return ((np.asarray(img, dtype=np.float32) - 0.0) / 256.0)[None]


def heavy_np(img):  # Resize(64) + RandomRotation(15) + Normalize, with PIL like Paddle's transforms
    from PIL import Image
    img = img.resize((64, 64), Image.BILINEAR)
    img = img.rotate(float(np.random.uniform(-15, 15)), Image.NEAREST)
    return norm_np(img)


def paddle_side(data_dir):
    import paddle
    import paddle.vision.transforms as T

    class UserDataset(paddle.io.Dataset):  # a user's wrapper: one __getitem__ per sample
        def __init__(self, base):
            self.base = base

        def __len__(self):
            return len(self.base)

        def __getitem__(self, i):
            return self.base[i]

    transforms = {"Normalize": T.Normalize(mean=[0.0], std=[256.0]),
                  "Resize+Rotate+Normalize": T.Compose([T.Resize(64), T.RandomRotation(15),
                                                        T.Normalize(mean=[0.0], std=[256.0])])}
    raw = paddle.vision.datasets.FashionMNIST(mode="train")
    np.save(os.path.join(data_dir, "images.npy"), raw.images)  # the same arrays feed PyTorch
    np.save(os.path.join(data_dir, "labels.npy"), raw.labels)
    out = []
    for name, workers, user in WORKLOADS:
        ds = paddle.io.Subset(paddle.vision.datasets.FashionMNIST(mode="train", transform=transforms[name]),
                              range(min(LIMIT, len(raw))))
        loader = paddle.io.DataLoader(UserDataset(ds) if user else ds, batch_size=64, shuffle=True,
                                      num_workers=workers)
        t = time.perf_counter()
        n = sum(x.shape[0] for x, _ in loader)
        assert n == len(ds)
        out.append(time.perf_counter() - t)
    return out


def torch_side(data_dir):
    import torch
    from PIL import Image
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    images = np.load(os.path.join(data_dir, "images.npy"))
    labels = np.load(os.path.join(data_dir, "labels.npy"))

    class TorchSet(torch.utils.data.Dataset):
        def __init__(self, transform):
            self.transform = transform

        def __len__(self):
            return min(LIMIT, len(images))

        def __getitem__(self, i):
            img = Image.fromarray(np.ascontiguousarray(images[i]), mode="L")
            return torch.from_numpy(self.transform(img)), torch.from_numpy(labels[i])

    out = []
    for name, workers, _ in WORKLOADS:
        tr = norm_np if name == "Normalize" else heavy_np
        loader = torch.utils.data.DataLoader(TorchSet(tr), batch_size=64, shuffle=True, num_workers=workers)
        t = time.perf_counter()
        for _ in loader:
            pass
        out.append(time.perf_counter() - t)
    return out


def main():
    print("== bench_io (DataLoader epoch over Fashion-MNIST, batch 64; each framework in its own process)")
    print(f"{'workload':<60}{'Paddle-C':>10}{'PyTorch':>10}{'ratio':>8}  target")
    with tempfile.TemporaryDirectory() as d:
        res = run_sides(__file__, d, ROUNDS)
    ours = [min(r[i] for r in res["paddle"]) for i in range(len(WORKLOADS))]
    peer = [min(r[i] for r in res["torch"]) for i in range(len(WORKLOADS))]
    for i, (name, workers, user) in enumerate(WORKLOADS):
        label = f"{name}, num_workers={workers}{', user Dataset' if user else ''} (s/epoch)"
        target = "<= 1.0" if workers == 2 else ""
        print(f"{label:<60}{ours[i]:>10.2f}{peer[i]:>10.2f}{ours[i] / peer[i]:>8.2f}  {target}", flush=True)
    gain = ours[3] / ours[4]
    print(f"{'heavy transform: speedup of 2 workers over 0':<60}{gain:>10.2f}{'':>10}{'':>8}  > 1.0", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        fn = paddle_side if sys.argv[2] == "paddle" else torch_side
        print(json.dumps(fn(sys.argv[3])))
    else:
        main()
