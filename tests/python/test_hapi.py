"""paddle.Model / summary / callbacks: fit/evaluate/predict over Datasets with the seed E3 log
format, train/eval/predict_batch, save/load, EarlyStopping, VisualDL output, summary numbers.
Uses a small layer, loss and SGD written here (independent of the nn/optimizer families)."""
import os
import re

import numpy as np
import pytest

import paddle
from paddle import nn
from paddle.io import Dataset


class Affine(nn.Layer):
    def __init__(self, i, o):
        super().__init__()
        self.weight = self.create_parameter([i, o])
        self.bias = self.create_parameter([o], is_bias=True)

    def forward(self, x):
        return paddle.matmul(x, self.weight) + self.bias


class Reg(Dataset):
    def __init__(self, n=64, seed=0):
        rng = np.random.default_rng(seed)
        self.x = rng.normal(size=(n, 4)).astype("float32")
        w = np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")
        self.y = (self.x @ w).astype("float32")

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class SGD:
    def __init__(self, params, lr):
        self.params, self.lr = params, lr
        self._learning_rate = lr

    def step(self):
        with paddle.no_grad():
            for p in self.params:
                p._copy_(p - self.lr * p.grad)

    def clear_grad(self):
        for p in self.params:
            p.clear_grad()

    def get_lr(self):
        return self.lr

    def set_lr(self, v):
        self.lr = v

    def state_dict(self):
        return {"lr": self.lr}

    def set_state_dict(self, d):
        self.lr = d["lr"]


def mse(pred, label):
    return ((pred - label) ** 2).mean()


def make_model():
    net = Affine(4, 1)
    m = paddle.Model(net)
    m.prepare(SGD(net.parameters(), 0.1), mse)
    return m


def test_fit_log_format_and_learning(capsys):
    m = make_model()
    before = m.evaluate(Reg(), batch_size=16, verbose=0)["loss"][0]
    m.fit(Reg(), Reg(32, 1), batch_size=16, epochs=3, verbose=2, log_freq=2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Epoch 1/3"
    step_lines = [ln for ln in out if ln.startswith("step")]
    pat = re.compile(r"^step +\d+/\d+ \[[=>.]{30}\] - loss: (\d+\.\d{4}|\d\.\d{4}e-\d\d) - \d+(ms|us|s)/step$")
    assert step_lines and all(pat.match(ln) for ln in step_lines), step_lines
    assert "step 4/4 [==============================]" in out[2]
    assert "Eval begin..." in out and "Eval samples: 32" in out
    after = m.evaluate(Reg(), batch_size=16, verbose=0)["loss"][0]
    assert after < before * 0.5


def test_batches_predict_save_load(tmp_path):
    m = make_model()
    ds = Reg()
    loss = m.train_batch([ds.x[:8]], [ds.y[:8]])
    assert isinstance(loss, list) and np.asarray(loss[0]).size == 1
    ev = m.eval_batch([ds.x[:8]], [ds.y[:8]])
    assert np.asarray(ev[0]).size == 1
    preds = m.predict(ds, batch_size=10, stack_outputs=True, verbose=0)
    assert preds[0].shape == (64, 1)
    p = str(tmp_path / "ckpt" / "m")
    m.save(p)
    assert os.path.exists(p + ".pdparams") and os.path.exists(p + ".pdopt")
    m2 = make_model()
    m2.load(p)
    np.testing.assert_array_equal(m2.network.weight.numpy(), m.network.weight.numpy())
    with pytest.raises(RuntimeError, match="inputs"):  # an inference model needs the input specs
        m.save(p, training=False)


def test_early_stopping_and_visualdl(tmp_path):
    m = make_model()
    m.prepare(SGD(m.network.parameters(), 0.0), mse)  # lr 0: eval loss never improves
    es = paddle.callbacks.EarlyStopping(monitor="loss", patience=1, verbose=0, save_best_model=False)
    vdl = paddle.callbacks.VisualDL(str(tmp_path / "vdl"))
    m.fit(Reg(), Reg(16, 2), batch_size=16, epochs=10, verbose=0, callbacks=[es, vdl])
    assert es.stopped_epoch < 9
    assert (tmp_path / "vdl" / "scalars.jsonl").exists()


def test_summary_numbers(capsys):
    net = nn.Sequential(Affine(784, 1024), Affine(1024, 512), Affine(512, 10))
    info = paddle.summary(net, (1, 784))
    out = capsys.readouterr().out
    assert info == {"total_params": 1333770, "trainable_params": 1333770}
    assert "Total params: 1,333,770" in out and "Params size (MB): 5.09" in out
    assert "Forward/backward pass size (MB): 0.01" in out  # 2*(1024+512+10)*4/2^20
    ops = {Affine: lambda layer, i, o: layer.weight.shape[0] * o.size}  # unknown types count 0
    assert paddle.flops(net, [1, 784], custom_ops=ops) == 784 * 1024 + 1024 * 512 + 512 * 10
