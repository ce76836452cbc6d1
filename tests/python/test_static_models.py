"""Models written for dygraph build programs unchanged in static mode: the seed MLP (e01), a CNN
(Conv2D+BatchNorm2D+ReLU+MaxPool2D+Linear), an LSTM classifier and a 2-layer Transformer encoder
run forward through the Executor with the eager weights (copied into the scope) and match eager;
append_backward gives eager's gradients. Then the Variable API (operators, indexing, shape with
-1, dtype, name, persistable, stop_gradient, astype, repr)."""
import numpy as np
import pytest

import paddle
import paddle.nn as nn
from paddle import _C


def assert_same(got, want, what, rtol=0.0, atol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape)
    if rtol == 0 and atol == 0:
        bad = np.flatnonzero(got.reshape(-1).view(np.uint8 if got.dtype == np.bool_ else got.dtype)
                             != want.reshape(-1).view(np.uint8 if got.dtype == np.bool_ else want.dtype))
        assert got.tobytes() == want.tobytes(), f"{what}: not bit-identical at {bad[:8]}"
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


class MLP(nn.Layer):  # the seed e01 network
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 512),
                                 nn.ReLU(), nn.Linear(512, 10))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2D(8)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        return self.fc(paddle.flatten(x, 1))


class LSTMClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.lstm = nn.LSTM(16, 24, num_layers=2)
        self.fc = nn.Linear(24, 5)

    def forward(self, ids):
        out, (h, c) = self.lstm(self.emb(ids))
        return self.fc(out[:, -1])


class Encoder(nn.Layer):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.fc = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc(self.enc(x).mean(1))


rng = np.random.default_rng(0)
MODELS = [
    ("mlp", MLP, lambda: [rng.uniform(0, 1, (8, 1, 28, 28)).astype("float32")], [[None, 1, 28, 28]],
     ["float32"], 10),
    ("cnn", CNN, lambda: [rng.uniform(-1, 1, (4, 3, 8, 8)).astype("float32")], [[None, 3, 8, 8]],
     ["float32"], 10),
    ("lstm", LSTMClassifier, lambda: [rng.integers(0, 50, (4, 7)).astype("int64")], [[None, 7]],
     ["int64"], 5),
    ("transformer", Encoder, lambda: [rng.uniform(-1, 1, (3, 6, 32)).astype("float32")], [[None, 6, 32]],
     ["float32"], 3),
    # batch and sequence length both unknown
    ("lstm_any_length", LSTMClassifier, lambda: [rng.integers(0, 50, (4, 9)).astype("int64")], [[None, None]],
     ["int64"], 5),
    ("transformer_any_length", Encoder, lambda: [rng.uniform(-1, 1, (2, 7, 32)).astype("float32")],
     [[None, None, 32]], ["float32"], 3),
]


def _eager(cls, xs, labels, train):
    # eager MultiHeadAttention runs the fused attention_core op (equal to within float tolerance:
    # tests/python/test_transformer_fastpaths.py); programs record Paddle's op sequence, which
    # eager runs bit for bit with the fused path off
    from paddle.nn.layer import transformer
    old = transformer._FUSED
    transformer._FUSED = False
    try:
        return _eager_run(cls, xs, labels, train)
    finally:
        transformer._FUSED = old


def _eager_run(cls, xs, labels, train):
    paddle.seed(1)
    net = cls()
    if not train:
        net.eval()
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    out = net(*[paddle.to_tensor(x) for x in xs])
    loss = nn.functional.cross_entropy(out, paddle.to_tensor(labels))
    loss.backward()
    grads = {k: p.grad.numpy() for k, p in net.named_parameters() if not p.stop_gradient}
    after = {k: v.numpy() for k, v in net.state_dict().items()}
    return weights, out.numpy(), float(loss.numpy()[0]), grads, after


def _static(cls, shapes, dtypes, xs, labels, weights, train):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            ins = [paddle.static.data(f"x{i}", s, d) for i, (s, d) in enumerate(zip(shapes, dtypes))]
            label = paddle.static.data("label", [None, 1], "int64")
            net = cls()
            if not train:
                net.eval()
            out = net(*ins)
            loss = nn.functional.cross_entropy(out, label)
            pg = paddle.static.append_backward(loss)
        names = {p.name: k for k, p in net.named_parameters()}
        scope = paddle.static.Scope()
        exe = paddle.static.Executor()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            sd = net.state_dict()
            assert sorted(sd) == sorted(weights)
            for k, v in sd.items():
                v.set_value(weights[k])
            feed = {f"x{i}": x for i, x in enumerate(xs)}
            feed["label"] = labels
            res = exe.run(main, feed=feed, fetch_list=[out, loss] + [g for _, g in pg])
            after = {k: np.array(v.get_value()) for k, v in sd.items()}
        grads = {names[p.name]: g for (p, _), g in zip(pg, res[2:])}
        return main, out, res[0], float(res[1][0]), grads, after
    finally:
        paddle.disable_static()


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("name,cls,make,shapes,dtypes,ncls", MODELS, ids=[m[0] for m in MODELS])
def test_model_static_equals_eager(name, cls, make, shapes, dtypes, ncls, train):
    xs = make()
    labels = rng.integers(0, ncls, (xs[0].shape[0], 1)).astype("int64")
    weights, want_out, want_loss, want_g, want_after = _eager(cls, xs, labels, train)
    main, out_var, out, loss, grads, after = _static(cls, shapes, dtypes, xs, labels, weights, train)
    assert out_var.shape[0] == -1, "the batch dim is unknown in the program"
    assert_same(out, want_out, f"{name} forward")
    assert loss == want_loss
    assert sorted(grads) == sorted(want_g)
    for k in want_g:
        assert_same(grads[k], want_g[k], f"{name} d/d{k}")
    for k in want_after:  # BatchNorm's running statistics, updated in training
        assert_same(after[k], want_after[k], f"{name} state {k} after the step")
