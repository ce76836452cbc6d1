"""Models written by real PaddlePaddle 2.6.2's paddle.jit.save, for tests/python/test_jit.py
(Paddle-C's paddle.jit.load must run them and give Paddle's outputs). Writes into OUT (default
tests/python/data/jit):

  mlp/model.*     Linear(6,16)-relu-Linear(16,3), input x [None, 6]
  cnn/model.*     Conv2D(3,4,3,pad 1)-BatchNorm2D-relu-max_pool2d(2)-flatten-Linear(64,5), img [None,3,8,8]
                  (trained for 2 steps first so the BatchNorm statistics are not the initial ones)
  lstm/model.*    Embedding(50,8)-LSTM(8,12)-last step-Linear(12,2), ids int64 [None, 7]
  cf/model.*      a function with a data-dependent if and while over a Linear(4,4), x [None, 4]
  expected.npz    <name>_in, <name>_out: inputs and Paddle's eval-mode outputs

Run with the oracle (never imported by the project), from an empty directory (numpy.random is
imported before paddle: importing it after paddle segfaults in this oracle build):
    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/make_jit_models.py OUT
"""
import numpy.random  # noqa: F401  (must precede `import paddle` here, see above)
import os
import sys

import numpy as np

import paddle
from paddle.static import InputSpec


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 16)
        self.fc2 = paddle.nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


class CNN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(64, 5)

    def forward(self, img):
        h = paddle.nn.functional.relu(self.bn(self.conv(img)))
        h = paddle.nn.functional.max_pool2d(h, 2)
        return self.fc(paddle.flatten(h, 1))


class LSTMClassifier(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(50, 8)
        self.lstm = paddle.nn.LSTM(8, 12)
        self.fc = paddle.nn.Linear(12, 2)

    def forward(self, ids):
        out, (h, c) = self.lstm(self.emb(ids))
        return self.fc(out[:, -1, :])


class CF(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if paddle.mean(h) > 0:
            h = h * 2.0
        else:
            h = h - 1.0
        i = paddle.zeros([1], "int64")
        while i < 3:
            h = paddle.tanh(h) + 0.5
            i = i + 1
        return h


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "jit")
    os.makedirs(out, exist_ok=True)
    paddle.seed(2026)
    np.random.seed(2026)
    expected = {}
    models = {
        "mlp": (MLP(), [InputSpec([None, 6], "float32", "x")], np.random.rand(3, 6).astype("float32")),
        "cnn": (CNN(), [InputSpec([None, 3, 8, 8], "float32", "img")], np.random.rand(2, 3, 8, 8).astype("float32")),
        "lstm": (LSTMClassifier(), [InputSpec([None, 7], "int64", "ids")],
                 np.random.randint(0, 50, (3, 7)).astype("int64")),
        "cf": (CF(), [InputSpec([None, 4], "float32", "x")], np.linspace(-1, 1, 8).reshape(2, 4).astype("float32")),
    }
    for name, (layer, spec, x) in models.items():
        if name == "cnn":  # move the BatchNorm statistics away from (0, 1)
            opt = paddle.optimizer.SGD(0.1, parameters=layer.parameters())
            for _ in range(2):
                loss = layer(paddle.to_tensor(np.random.rand(4, 3, 8, 8).astype("float32"))).mean()
                loss.backward()
                opt.step()
                opt.clear_grad()
        layer.eval()
        static = paddle.jit.to_static(layer, input_spec=spec, full_graph=True)
        y = static(paddle.to_tensor(x)).numpy()
        paddle.jit.save(static, os.path.join(out, name, "model"))
        expected[f"{name}_in"] = x
        expected[f"{name}_out"] = y
    np.savez(os.path.join(out, "expected.npz"), **expected)
    print("paddle", paddle.__version__, "wrote", sorted(os.listdir(out)))


if __name__ == "__main__":
    main()
