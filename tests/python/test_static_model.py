"""paddle.Model in static mode (paddle.enable_static() before building it): prepare builds
train/eval/test programs from InputSpecs, fit/evaluate/predict run them through an Executor and
reach the accuracy dynamic mode reaches on the same synthetic data; save/load round trip through
.pdparams/.pdopt; train_batch/eval_batch/predict_batch."""
import os

import numpy as np
import pytest

import paddle
from paddle.io import Dataset
from paddle.static import InputSpec


class _Blobs(Dataset):
    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 8).astype("float32")
        w = np.random.RandomState(99).randn(8, 3)
        self.y = np.argmax(self.x @ w, 1).astype("int64")[:, None]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def _net():
    return paddle.nn.Sequential(paddle.nn.Linear(8, 32), paddle.nn.ReLU(), paddle.nn.Dropout(0.1),
                                paddle.nn.Linear(32, 3))


SPECS = ([InputSpec([None, 8], "float32", "x")], [InputSpec([None, 1], "int64", "y")])


def _fit_eval(static):
    if static:
        paddle.enable_static()
    try:
        paddle.seed(0)
        if static:
            main, startup = paddle.static.Program(), paddle.static.Program()
            guard = paddle.static.program_guard(main, startup)
            scope = paddle.static.Scope()
            sguard = paddle.static.scope_guard(scope)
        else:
            import contextlib
            guard = sguard = contextlib.nullcontext()
        with guard, sguard:
            net = _net()
            model = paddle.Model(net, *SPECS)
            model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()),
                          paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
            model.fit(_Blobs(512, 0), batch_size=32, epochs=3, verbose=0)
            res = model.evaluate(_Blobs(256, 1), batch_size=64, verbose=0)
            pred = model.predict(_Blobs(20, 2), batch_size=8, stack_outputs=True, verbose=0)
        return res, pred
    finally:
        paddle.disable_static()


def test_fit_static_matches_dynamic():
    dres, dpred = _fit_eval(False)
    sres, spred = _fit_eval(True)
    assert sres["acc"] > 0.85
    assert abs(sres["acc"] - dres["acc"]) <= 0.05
    assert abs(sres["loss"][0] - dres["loss"][0]) <= 0.1
    assert spred[0].shape == dpred[0].shape == (20, 3)


def test_batches_save_load(tmp_path):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.static.scope_guard(paddle.static.Scope()):
            net = _net()
            model = paddle.Model(net, *SPECS)
            opt = paddle.optimizer.Momentum(0.05, parameters=model.parameters())
            model.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
            ds = _Blobs(64, 3)
            x, y = ds.x[:16], ds.y[:16]
            losses, metrics = model.train_batch([x], [y])
            assert losses[0].shape == (1,) and np.isfinite(losses[0]).all()
            assert 0.0 <= metrics[0] <= 1.0
            eval_loss, _ = model.eval_batch([x], [y])
            # the eval program has no dropout and no update: running it twice gives the same loss
            again, _ = model.eval_batch([x], [y])
            np.testing.assert_array_equal(eval_loss[0], again[0])
            out = model.predict_batch([x])[0]
            assert out.shape == (16, 3)
            # predict equals the numpy forward of the scope's weights (test program: no dropout)
            sd = {k: np.asarray(paddle.static.global_scope().find_var(v.name).get_tensor())
                  for k, v in net.state_dict().items()}
            ref = np.maximum(x @ sd["0.weight"] + sd["0.bias"], 0) @ sd["3.weight"] + sd["3.bias"]
            np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
            path = str(tmp_path / "ckpt" / "m")
            model.save(path)
            assert sorted(os.listdir(tmp_path / "ckpt")) == ["m.pdopt", "m.pdparams"]
            params = paddle.load(path + ".pdparams")
            assert sorted(params) == sorted(sd)
            opt_state = paddle.load(path + ".pdopt")
            assert any(k.endswith("_velocity_0") for k in opt_state)
            assert any(k.startswith("learning_rate_") for k in opt_state)

            # a second model over a freshly initialized network loads the checkpoint
            net2 = _net()
            model2 = paddle.Model(net2, *SPECS)
            model2.prepare(paddle.optimizer.Momentum(0.05, parameters=model2.parameters()),
                           paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
            before = model2.predict_batch([x])[0]
            assert not np.allclose(before, out)
            model2.load(path)
            np.testing.assert_array_equal(model2.predict_batch([x])[0], out)
            # the same model trains on, then loads the checkpoint: weights and optimizer state return
            scope = paddle.static.global_scope()
            vel = [k for k in opt_state if k.endswith("_velocity_0")][0]
            model.train_batch([x], [y])
            assert not np.array_equal(np.asarray(scope.find_var(vel).get_tensor()), opt_state[vel])
            model.load(path)
            np.testing.assert_array_equal(np.asarray(scope.find_var(vel).get_tensor()), opt_state[vel])
            np.testing.assert_array_equal(model.predict_batch([x])[0], out)
    finally:
        paddle.disable_static()


def test_static_model_needs_inputs():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            model = paddle.Model(_net())
            with pytest.raises(ValueError, match="inputs"):
                model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.CrossEntropyLoss())
    finally:
        paddle.disable_static()
