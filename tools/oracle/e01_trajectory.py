"""Compares seed E1's training with real PaddlePaddle (the oracle) from the same initial weights
on the same data order: one epoch of Fashion-MNIST (batch 32, no shuffle), the loss every 100
steps, then test accuracy. Not part of the test suite (the project never imports real Paddle).

    python3 -m venv /tmp/oracle && /tmp/oracle/bin/pip install paddlepaddle==2.6.2
    cd /tmp && /tmp/oracle/bin/python /path/to/e01_trajectory.py oracle > oracle.json
    PYTHONPATH=/path/to/repo/python python3 /path/to/e01_trajectory.py ours > ours.json

The oracle run writes the initial weights to $E01_WEIGHTS (default /tmp/e01_w0.npz); ours loads
them. Measured 2026-11-22: step 0 loss 2.386059 in both, step 100 0.820015 (Paddle 2.6.2) vs
0.820024 (ours); later steps drift apart as float rounding differences grow (GEMM summation
order), and after the epoch the test accuracy was 85.35% vs 85.21%."""
import json
import os
import sys

import numpy as np

import paddle

side = sys.argv[1] if len(sys.argv) > 1 else "ours"
weights = os.environ.get("E01_WEIGHTS", "/tmp/e01_w0.npz")
D = "/usr/share/datasets/fashion-mnist/"
normalize = paddle.vision.transforms.Normalize(mean=[0.0], std=[256.])
kw = dict(download=False) if side == "oracle" else {}
train = paddle.vision.datasets.FashionMNIST(image_path=D + "train-images-idx3-ubyte.gz",
                                            label_path=D + "train-labels-idx1-ubyte.gz",
                                            mode="train", transform=normalize, **kw)
test = paddle.vision.datasets.FashionMNIST(image_path=D + "t10k-images-idx3-ubyte.gz",
                                           label_path=D + "t10k-labels-idx1-ubyte.gz",
                                           mode="test", transform=normalize, **kw)
if side == "oracle":
    paddle.seed(0)
net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                           paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
if side == "oracle":
    np.savez(weights, **{k: v.numpy() for k, v in net.state_dict().items()})
else:
    w = np.load(weights)
    net.set_state_dict({k: paddle.to_tensor(w[k]) for k in w.files})
model = paddle.Model(net)
model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
              paddle.metric.Accuracy())
losses = []


class Record(paddle.callbacks.Callback):
    def on_train_batch_end(self, step, logs=None):
        loss = logs["loss"]
        losses.append(float(loss[0] if isinstance(loss, (list, tuple)) else loss))


model.fit(train, epochs=1, batch_size=32, verbose=0, shuffle=False, callbacks=[Record()])
acc = model.evaluate(test, batch_size=32, verbose=0)["acc"]
print(json.dumps({"losses_every_100": losses[::100] + losses[-1:], "acc": float(acc)}))
