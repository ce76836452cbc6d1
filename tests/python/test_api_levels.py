"""The two API levels (issue 23): FLAGS_set_to_1d on (the default) keeps Paddle 2.3's shapes
(a scalar result is [1], the seeds print `loss: [0.31522682]`); off gives Paddle 2.6's 0-D
tensors. The shapes of each API against real Paddle 2.6.2 are checked by tests/conformance
(scalar family); here: the flag's plumbing, the seeds at both levels, and that autograd,
optimizers, gradient clipping, LR schedulers, hapi and static programs work at both levels and
compute the same numbers (the level changes shapes, never values)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import paddle
from paddle import _C

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def level26():
    old = paddle.get_flags("FLAGS_set_to_1d")["FLAGS_set_to_1d"]
    paddle.set_flags({"FLAGS_set_to_1d": False})
    yield
    paddle.set_flags({"FLAGS_set_to_1d": old})


@pytest.fixture
def level23():
    old = paddle.get_flags("FLAGS_set_to_1d")["FLAGS_set_to_1d"]
    paddle.set_flags({"FLAGS_set_to_1d": True})
    yield
    paddle.set_flags({"FLAGS_set_to_1d": old})


def _env(**kv):
    env = {k: v for k, v in os.environ.items() if k != "FLAGS_set_to_1d"}
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env.update(kv)
    return env


# ---------------------------------------------------------------- the flag
def test_flag_round_trip():
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    try:
        paddle.set_flags({"FLAGS_set_to_1d": False})
        assert paddle.get_flags("FLAGS_set_to_1d") == {"FLAGS_set_to_1d": False}
        assert _C.set_to_1d() is False
        assert paddle.sum(paddle.ones([2, 3])).shape == []
        paddle.set_flags({"FLAGS_set_to_1d": "1"})
        assert paddle.get_flags("FLAGS_set_to_1d") == {"FLAGS_set_to_1d": True}
        assert paddle.sum(paddle.ones([2, 3])).shape == [1]
        with pytest.raises(ValueError, match="FLAGS_set_to_1d"):
            paddle.set_flags({"FLAGS_set_to_1d": "maybe"})
    finally:
        paddle.set_flags({"FLAGS_set_to_1d": old})


@pytest.mark.parametrize("value,shape", [(None, "[1]"), ("0", "[]")])
def test_environment_variable(value, shape):
    env = _env() if value is None else _env(FLAGS_set_to_1d=value)
    r = subprocess.run([sys.executable, "-c", "import paddle; x = paddle.to_tensor([1.0, 2.0]); "
                        "print(paddle.mean(x).shape, x[0].shape, paddle.to_tensor(2.0).shape, "
                        "paddle.get_flags('FLAGS_set_to_1d')['FLAGS_set_to_1d'])"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [shape] * 3 + [str(shape == "[1]")]


# ---------------------------------------------------------------- the seeds
def _e18(env):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_seed.py"), "e18_weight_sharing"],
                       capture_output=True, text=True, env=env, timeout=180)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()


@pytest.fixture(scope="module")
def e18_runs():
    """Seed e18, verbatim, at the default level and with FLAGS_set_to_1d=0."""
    return _e18(_env()), _e18(_env(FLAGS_set_to_1d="0"))


def test_seed_prints_1d_loss_by_default(e18_runs):
    """Paddle 2.3 programs run verbatim: loss.numpy() of a reduced loss is a shape-[1] array."""
    out = e18_runs[0]
    assert len(out) == 10
    assert all(re.match(r"^step: \d, loss: \[\d+\.\d+(e-?\d+)?\]$", ln) for ln in out), out


def test_seed_prints_0d_loss_at_the_26_level(e18_runs):
    """The same program with FLAGS_set_to_1d=0 prints Paddle 2.6's 0-D loss (a numpy scalar)."""
    on, off = e18_runs
    assert len(off) == 10
    assert all(re.match(r"^step: \d, loss: \d+\.\d+(e-?\d+)?$", ln) for ln in off), off
    v_on = [float(ln.split("[")[1].rstrip("]")) for ln in on]
    v_off = [float(ln.split(": ")[2]) for ln in off]
    assert all(b < a for a, b in zip(v_off, v_off[1:]))
    # paddle.rand is unseeded in the seed: the runs differ, but both train from ~0.3
    assert 0.1 < v_on[0] < 0.8 and 0.1 < v_off[0] < 0.8


# ---------------------------------------------------------------- 0-D tensors
def test_0d_tensor_conversions(level26):
    t = paddle.to_tensor(2.5)
    assert t.shape == [] and t.ndim == 0 and t.size == 1
    assert t.numpy().shape == () and t.item() == 2.5 and float(t) == 2.5 and int(t) == 2
    assert str(t) == "Tensor(shape=[], dtype=float32, place=CPUPlace, stop_gradient=True,\n       2.50000000)"
    assert (t * 2).shape == [] and (t + paddle.ones([3])).shape == [3]
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    assert x[1].shape == [] and x[1].item() == 2.0
    assert x[paddle.to_tensor(2)].item() == 3.0
    assert paddle.stack([x[0], x[2]]).tolist() == [1.0, 3.0]


def test_level_changes_shapes_not_values(level26):
    rng = np.random.RandomState(0)
    a = rng.rand(3, 4).astype("float32")
    outs = {}
    for flag in (False, True):
        paddle.set_flags({"FLAGS_set_to_1d": flag})
        x = paddle.to_tensor(a)
        outs[flag] = [paddle.sum(x), paddle.max(x), paddle.linalg.norm(x), x.mean(), paddle.argmax(x),
                      paddle.nn.functional.mse_loss(x, x * 2), paddle.dot(x[0], x[1])]
    for r0, r1 in zip(outs[False], outs[True]):
        assert r0.shape == [] and r1.shape == [1]
        np.testing.assert_array_equal(r0.numpy().reshape(1), r1.numpy())


# ---------------------------------------------------------------- autograd, optimizers, hapi
def test_backward_of_0d_loss_and_0d_parameter(level26):
    w = paddle.create_parameter([], "float32", default_initializer=paddle.nn.initializer.Constant(3.0))
    assert w.shape == []
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    loss = (x * w).sum() + w * w
    assert loss.shape == []
    loss.backward()
    assert w.grad.shape == [] and w.grad.item() == pytest.approx(6.0 + 6.0)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0, 3.0])
    g, = paddle.grad([(w * w * w).mean()], [w])
    assert g.shape == [] and g.item() == pytest.approx(27.0)


def test_0d_input_gets_0d_grad_at_the_default_level(level23):
    t = paddle.to_tensor(np.array(2.0, dtype="float32"), stop_gradient=False)
    assert t.shape == [1]  # to_tensor of a 0-D array is [1] at the 2.3 level
    t0 = paddle.reshape(t, [])  # [1] again by the scalar rule
    assert t0.shape == [1]


def _train(flag, opt_name):
    paddle.set_flags({"FLAGS_set_to_1d": flag})
    paddle.seed(7)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 3))
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    clip = paddle.nn.ClipGradByGlobalNorm(0.5)
    params = net.parameters()
    opt = {"sgd": lambda: paddle.optimizer.SGD(sched, parameters=params, grad_clip=clip),
           "adam": lambda: paddle.optimizer.Adam(sched, parameters=params, grad_clip=clip),
           "momentum": lambda: paddle.optimizer.Momentum(sched, parameters=params,
                                                         grad_clip=paddle.nn.ClipGradByNorm(0.3))}[opt_name]()
    rng = np.random.RandomState(1)
    x = paddle.to_tensor(rng.rand(16, 4).astype("float32"))
    y = paddle.to_tensor(rng.randint(0, 3, (16, 1)).astype("int64"))
    losses = []
    for _ in range(5):
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        assert loss.shape == ([1] if flag else [])
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()
        losses.append(float(loss))
    acc = paddle.metric.accuracy(net(x), y)
    assert acc.shape == ([1] if flag else [])
    return losses, [p.numpy() for p in params], float(acc)


@pytest.mark.parametrize("opt_name", ["sgd", "adam", "momentum"])
def test_training_is_identical_at_both_levels(level26, opt_name):
    l0, p0, a0 = _train(False, opt_name)
    l1, p1, a1 = _train(True, opt_name)
    assert l0 == l1 and a0 == a1
    assert l0[-1] < l0[0]
    for a, b in zip(p0, p1):
        np.testing.assert_array_equal(a, b)


def test_hapi_fit_evaluate_at_the_26_level(level26):
    from paddle.io import TensorDataset
    rng = np.random.RandomState(2)
    xs = rng.rand(32, 4).astype("float32")
    ys = (xs.sum(1, keepdims=True) > 2).astype("int64")
    ds = TensorDataset([paddle.to_tensor(xs), paddle.to_tensor(ys)])
    res = {}
    for flag in (False, True):
        paddle.set_flags({"FLAGS_set_to_1d": flag})
        paddle.seed(3)
        net = paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 2))
        model = paddle.Model(net)
        model.prepare(paddle.optimizer.Adam(0.05, parameters=net.parameters()), paddle.nn.CrossEntropyLoss(),
                      paddle.metric.Accuracy())
        model.fit(ds, batch_size=8, epochs=3, verbose=0, shuffle=False)
        res[flag] = model.evaluate(ds, batch_size=8, verbose=0)
    assert res[False]["acc"] == res[True]["acc"] and res[False]["acc"] > 0.6
    np.testing.assert_allclose(res[False]["loss"], res[True]["loss"], rtol=1e-6)


def test_static_program_shapes_follow_the_level(level26):
    """paddle.static shape inference uses the same infer_meta: a full reduction is a 0-D
    variable at the 2.6 level and [1] at the default; the executor agrees."""
    for flag, want in ((False, ()), (True, (1,))):
        paddle.set_flags({"FLAGS_set_to_1d": flag})
        paddle.enable_static()
        try:
            main, start = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, start):
                x = paddle.static.data("x", [3, 4], "float32")
                m = paddle.mean(x)
                s = paddle.sum(x, axis=[0, 1])
                assert tuple(m.shape) == want and tuple(s.shape) == want
            exe = paddle.static.Executor()
            exe.run(start)
            a = np.arange(12, dtype="float32").reshape(3, 4)
            rm, rs = exe.run(main, feed={"x": a}, fetch_list=[m, s])
            assert rm.shape == want and rs.shape == want
            assert rm.item() == pytest.approx(5.5) and rs.item() == pytest.approx(66.0)
        finally:
            paddle.disable_static()


def test_26_aliases():
    import paddle.base
    import paddle.base.dygraph
    assert paddle.framework.use_pir_api() is False
    assert paddle.base.Program is paddle.static.Program
    assert paddle.base.dygraph.to_variable is paddle.fluid.dygraph.to_variable
    # more 2.6 names Paddle's own tests use (answers as Paddle 2.6.2 printed them)
    from paddle.base import core, data_feeder, framework
    from paddle.base.framework import in_dygraph_mode  # noqa: F401
    assert framework.in_dygraph_mode() and framework.in_dynamic_or_pir_mode() and not framework.in_pir_mode()
    assert framework.Program is paddle.static.Program and framework.use_pir_api() is False
    assert paddle.framework.in_dynamic_or_pir_mode() and not paddle.framework.in_pir_mode()
    assert paddle.framework.in_dynamic_mode() and paddle.framework.core is core
    assert core.VarDesc.VarType.FP32 == paddle.float32 and core.VarDesc.VarType.BOOL == paddle.bool
    assert data_feeder.convert_dtype(paddle.float32) == "float32" and data_feeder.convert_dtype("float64") == "float64"
    data_feeder.check_variable_and_dtype(paddle.ones([1], "int32"), "x", ["float32"], "op")  # dygraph: no check
    from paddle.base import unique_name
    with unique_name.guard():
        assert unique_name.generate("a") == "a_0"
    assert paddle.base.param_attr.ParamAttr is paddle.ParamAttr
    paddle.enable_static()
    try:
        assert not framework.in_dygraph_mode() and not paddle.framework.in_dynamic_or_pir_mode()
        x = paddle.static.data("x", [2], "int32")
        with pytest.raises(TypeError):
            data_feeder.check_variable_and_dtype(x, "x", ["float32"], "op")
        data_feeder.check_variable_and_dtype(x, "x", ["int32", "int64"], "op")
    finally:
        paddle.disable_static()


def test_amp_scaler_keeps_a_0d_loss_0d(level26):
    paddle.seed(4)
    net = paddle.nn.Linear(4, 2)
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    with paddle.amp.auto_cast():
        loss = net(paddle.ones([3, 4])).mean()
    scaled = scaler.scale(loss)
    assert loss.shape == [] and scaled.shape == []
    assert scaled.item() == pytest.approx(loss.item() * 1024, rel=1e-6)
    w0 = net.weight.numpy().copy()
    scaled.backward()
    scaler.minimize(opt, scaled)
    assert not np.array_equal(w0, net.weight.numpy())
