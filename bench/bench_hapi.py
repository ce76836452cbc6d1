"""Seed E1's training throughput: paddle.Model.fit (Fashion-MNIST through
paddle.vision.datasets.FashionMNIST with the seed's Normalize transform, Adam, CrossEntropyLoss,
Accuracy) against PyTorch's plain training loop on the same data with the same work per sample
(a Dataset that normalises each image, torch.utils.data.DataLoader, the same MLP, Adam, cross
entropy, accuracy), in one process. Prints samples/s and the ratio PyTorch time / Paddle-C
time per sample (above 1 means Paddle-C is faster; the issue's target is >= 1.25) for batch 32
and 128. Each framework runs in its own child process, alternately, and the best of the rounds
counts: one process holding both would hold two OpenMP runtimes whose idle threads spin and
take cores from each other (see bench_rnn.py).
Run: bash bench/run.sh (or PYTHONPATH=python .venv/bin/python bench/bench_hapi.py)."""
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import run_sides  # noqa: E402

STEPS = int(os.environ.get("BENCH_HAPI_STEPS", "400"))
ROUNDS = int(os.environ.get("BENCH_HAPI_ROUNDS", "2"))
BATCHES = (32, 128)


def paddle_rate(batch, data_dir):
    import paddle
    normalize = paddle.vision.transforms.Normalize(mean=[0.0], std=[256.0])
    train = paddle.vision.datasets.FashionMNIST(mode="train", transform=normalize)
    np.save(os.path.join(data_dir, "images.npy"), train.images)  # the same arrays feed PyTorch's loop
    np.save(os.path.join(data_dir, "labels.npy"), train.labels)
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


def torch_rate(batch, data_dir):
    import torch
    from PIL import Image

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    images = np.load(os.path.join(data_dir, "images.npy"))  # written by the Paddle-C child
    labels = np.load(os.path.join(data_dir, "labels.npy"))

    class TorchSet(torch.utils.data.Dataset):
        def __len__(self):
            return len(images)

        def __getitem__(self, i):  # what torchvision's FashionMNIST + a normalising transform do
            img = Image.fromarray(np.ascontiguousarray(images[i]), mode="L")
            img = (np.asarray(img, dtype=np.float32) - 0.0) / 256.0
            return torch.from_numpy(img), int(labels[i][0])

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


def main():
    print("== bench_hapi (seed E1 training throughput; each framework in its own process)")
    print(f"{'workload':<40}{'Paddle-C':>14}{'PyTorch':>14}{'speedup':>9}  target")
    with tempfile.TemporaryDirectory() as d:
        rates = run_sides(__file__, d, ROUNDS)
    for batch in BATCHES:
        ours = max(x[str(batch)] for x in rates["paddle"])
        peer = max(x[str(batch)] for x in rates["torch"])
        print(f"{'E1 MLP fit, batch ' + str(batch) + ' (samples/s)':<40}{ours:>14.0f}{peer:>14.0f}{ours / peer:>9.2f}"
              "  >= 1.25", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        fn = paddle_rate if sys.argv[2] == "paddle" else torch_rate
        print(json.dumps({str(b): fn(b, sys.argv[3]) for b in BATCHES}))
    else:
        main()
