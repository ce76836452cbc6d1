"""Subnormals in the optimizer (issue 24): one epoch of the README's main job (seed E1's MLP
784-1024-512-10 with ReLU, Adam lr 1e-3, batch 32, Fashion-MNIST scaled by 1/256) as a plain
training loop on one thread, timing each step in thread CPU time. Without flushing, Adam's first
moments of weights fed by never-lit pixels and dead units decay into subnormals and the steps get
slower through the epoch. Prints the mean step time of the first and last quarter of the epoch
and the mean loss of the last 200 steps, for this tree and (when given) another tree to compare,
each in its own child process, alternately.

    PYTHONPATH=python .venv/bin/python bench/bench_subnormal.py [other tree's python/ dir] [rounds]"""
import gzip
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/usr/share/datasets/fashion-mnist"

CHILD = r'''
import gzip, json, os, time
import numpy as np
import paddle
D = sys_argv_data = __import__("sys").argv[1]
with gzip.open(os.path.join(D, "train-images-idx3-ubyte.gz")) as f:
    X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype("float32") / 256.0
with gzip.open(os.path.join(D, "train-labels-idx1-ubyte.gz")) as f:
    Y = np.frombuffer(f.read(), np.uint8, offset=8).astype("int64").reshape(-1, 1)
paddle.seed(2023)
net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                           paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
opt = paddle.optimizer.Adam(parameters=net.parameters())
lossf = paddle.nn.CrossEntropyLoss()
order = np.random.default_rng(0).permutation(len(X))
times, losses = [], []
for s in range(len(X) // 32):
    idx = order[s * 32:(s + 1) * 32]
    x, y = paddle.to_tensor(X[idx]), paddle.to_tensor(Y[idx])
    t0 = time.thread_time()
    loss = lossf(net(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    times.append(time.thread_time() - t0)
    losses.append(float(loss))
m1 = [v.numpy() for k, v in opt.state_dict().items() if "moment1" in k]
tiny = np.finfo(np.float32).tiny
sub = sum(int(((a != 0) & (np.abs(a) < tiny)).sum()) for a in m1) / sum(a.size for a in m1)
q = len(times) // 4
print("RESULT " + json.dumps({"first_ms": 1e3 * float(np.mean(times[:q])), "last_ms": 1e3 * float(np.mean(times[-q:])),
                              "loss_last200": float(np.mean(losses[-200:])), "subnormal_moment1": sub,
                              "load": os.getloadavg()[0]}))
'''


def run(pythonpath):
    env = dict(os.environ, PYTHONPATH=pythonpath, OMP_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", CHILD, DATA], env=env, capture_output=True, text=True, timeout=1800)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(r.stdout[-2000:] + r.stderr[-3000:])


def main():
    if not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")):
        print("Debian's dataset-fashion-mnist is not installed")
        return
    trees = [("this tree", os.path.join(ROOT, "python"))]
    if len(sys.argv) > 1:
        trees.append(("other tree", sys.argv[1]))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    for rnd in range(rounds):
        for name, pp in (trees if rnd % 2 == 0 else trees[::-1]):
            r = run(pp)
            print(f"{name:10s} ({pp}): step CPU time first quarter {r['first_ms']:.2f} ms, last quarter "
                  f"{r['last_ms']:.2f} ms ({r['last_ms'] / r['first_ms']:.2f}x); mean loss of the last 200 steps "
                  f"{r['loss_last200']:.4f}; subnormal moment1 entries {100 * r['subnormal_moment1']:.1f}%; "
                  f"load avg {r['load']:.1f}", flush=True)


if __name__ == "__main__":
    main()
