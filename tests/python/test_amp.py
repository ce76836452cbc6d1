"""paddle.amp against numpy: auto_cast O1/O2 (white-list ops compute on inputs rounded to the
low dtype and round their output, black-list ops run in float32, gray ops promote), gradients
of float32 parameters through the recorded casts, decorate (O2 parameters, master weights,
save_dtype), GradScaler (scaling, fused unscale + inf check, Paddle's dynamic loss-scaling rule
re-implemented in numpy, state_dict) and Model.prepare(amp_configs)."""
import threading

import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from paddle import _C_ops


def r16(a):
    return np.asarray(a, np.float32).astype(np.float16).astype(np.float32)


def rbf16(a):
    """float32 -> bfloat16 (round to nearest even) -> float32, as the engine's cast does."""
    b = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


ROUND = {"float16": r16, "bfloat16": rbf16}
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2}


def f32(t):
    """A tensor's values as float32 numpy (bfloat16's numpy() gives raw bits, as in Paddle)."""
    return t.astype("float32").numpy() if t.dtype.name == "bfloat16" else t.numpy().astype(np.float32)


def conv_ref(x, w):
    """Plain NCHW conv, stride 1, no padding (float64)."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,oc->nohw", x[:, :, i:i + h - kh + 1, j:j + wd - kw + 1], w[:, :, i, j])
    return out


@pytest.fixture(autouse=True)
def _seed():
    paddle.seed(2024)
    yield


# ---------------------------------------------------------------------------- auto_cast O1
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_linear_white_list_runs_in_low_precision(dtype):
    lin = paddle.nn.Linear(16, 8, bias_attr=False)
    x = paddle.randn([5, 16])
    with paddle.amp.auto_cast(dtype=dtype):
        y = lin(x)
    assert y.dtype.name == dtype
    assert lin.weight.dtype.name == "float32" and x.dtype.name == "float32"
    rnd = ROUND[dtype]
    ref = rnd(rnd(x.numpy()).astype(np.float64) @ rnd(lin.weight.numpy()))
    np.testing.assert_allclose(f32(y), ref, rtol=TOL[dtype], atol=TOL[dtype])
    # outside the context the same layer runs in float32 again
    y32 = lin(x)
    assert y32.dtype.name == "float32"
    np.testing.assert_allclose(y32.numpy(), x.numpy() @ lin.weight.numpy(), rtol=1e-5, atol=1e-5)


def test_linear_with_bias_promotes_like_paddle():
    """matmul is white (float16), the bias add is gray: float16 + float32 -> float32."""
    lin = paddle.nn.Linear(6, 4)
    lin.bias.set_value(np.linspace(-1, 1, 4).astype("float32"))
    x = paddle.randn([3, 6])
    with paddle.amp.auto_cast():
        y = lin(x)
    assert y.dtype.name == "float32"
    ref = r16(r16(x.numpy()) @ r16(lin.weight.numpy())) + lin.bias.numpy()
    np.testing.assert_allclose(y.numpy(), ref, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv2d_white_list(dtype):
    conv = paddle.nn.Conv2D(3, 4, 3, bias_attr=False)
    x = paddle.rand([2, 3, 7, 6])
    with paddle.amp.auto_cast(dtype=dtype):
        y = conv(x)
    assert y.dtype.name == dtype
    rnd = ROUND[dtype]
    ref = rnd(conv_ref(rnd(x.numpy()), rnd(conv.weight.numpy())))
    np.testing.assert_allclose(f32(y), ref, rtol=TOL[dtype], atol=TOL[dtype])


def test_black_list_ops_return_float32():
    x32 = paddle.randn([4, 5])
    x16 = x32.astype("float16")
    xr = r16(x32.numpy()).astype(np.float64)
    label = paddle.to_tensor(np.array([[0], [2], [4], [1]], dtype="int64"))
    with paddle.amp.auto_cast():
        outs = {
            "exp": (paddle.exp(x16), np.exp(xr)),
            "log": (paddle.log(paddle.abs(x16) + 1), np.log(r16(np.abs(xr) + 1))),  # abs, + 1: float16
            "square": (paddle.square(x16), xr ** 2),
            "mean": (paddle.mean(x16), np.array([xr.mean()])),
            "sum": (paddle.sum(x16, axis=1), xr.sum(1)),
            "softmax": (F.softmax(x16), np.exp(xr) / np.exp(xr).sum(1, keepdims=True)),
            "cross_entropy": (F.cross_entropy(x16, label, reduction="none"),
                              (np.log(np.exp(xr).sum(1)) - xr[np.arange(4), label.numpy()[:, 0]])[:, None]),
        }
    for name, (got, ref) in outs.items():
        assert got.dtype.name == "float32", name
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-5, err_msg=name)


def test_gray_ops_promote_to_the_widest_input():
    a16 = paddle.randn([3, 4]).astype("float16")
    b32 = paddle.randn([3, 4])
    with paddle.amp.auto_cast():
        assert paddle.add(a16, a16).dtype.name == "float16"
        s = paddle.add(a16, b32)
        assert F.relu(a16).dtype.name == "float16"
        c = paddle.concat([a16, b32])
        idx = paddle.argmax(a16, axis=1)
    assert s.dtype.name == "float32" and c.dtype.name == "float32" and idx.dtype.name == "int64"
    np.testing.assert_allclose(s.numpy(), r16(a16.numpy()) + b32.numpy(), rtol=1e-6)
    np.testing.assert_allclose(c.numpy(), np.concatenate([a16.numpy().astype(np.float32), b32.numpy()]))


def test_ops_without_low_precision_kernels_behave_like_they_had_one():
    """pad has float32/float64 kernels only: under auto_cast a float16 input still gives float16
    (computed in float32, rounded), where outside auto_cast float16 is refused."""
    x = paddle.randn([2, 3]).astype("float16")
    with pytest.raises(TypeError, match="pad"):
        _C_ops.pad(x, [0, 0, 1, 2], "constant", 0.5)
    with paddle.amp.auto_cast():
        y = _C_ops.pad(x, [0, 0, 1, 2], "constant", 0.5)
    assert y.dtype.name == "float16"
    np.testing.assert_array_equal(y.numpy(), np.pad(x.numpy(), [(0, 0), (1, 2)], constant_values=0.5))


def test_lstm_under_auto_cast_trains_float32_weights():
    paddle.seed(3)
    lstm = paddle.nn.LSTM(4, 8)
    x = paddle.randn([3, 5, 4])
    y32, _ = lstm(x)
    loss32 = paddle.mean(y32 * y32)
    loss32.backward()
    g32 = lstm[0].cell.weight_ih.grad.numpy().copy()
    lstm.clear_gradients()
    with paddle.amp.auto_cast():
        y, (h, c) = lstm(x)
        loss = paddle.mean(y * y)
    loss.backward()
    assert lstm[0].cell.weight_ih.grad.dtype.name == "float32"
    np.testing.assert_allclose(y.numpy().astype(np.float32), y32.numpy(), rtol=0, atol=5e-3)
    np.testing.assert_allclose(lstm[0].cell.weight_ih.grad.numpy(), g32, rtol=0, atol=2e-3 * np.abs(g32).max())


def test_custom_lists_and_bad_arguments():
    conv = paddle.nn.Conv2D(3, 2, 3, bias_attr=False)
    x = paddle.rand([1, 3, 5, 5])
    with paddle.amp.auto_cast(custom_black_list={"conv2d"}):
        assert conv(x).dtype.name == "float32"
    a, b = paddle.rand([2, 3]), paddle.rand([2, 3])
    with paddle.amp.auto_cast(custom_white_list={"elementwise_add"}):
        c = a + b
    assert c.dtype.name == "float16"
    np.testing.assert_allclose(c.numpy().astype(np.float32), r16(r16(a.numpy()) + r16(b.numpy())), rtol=1e-3)
    with paddle.amp.auto_cast(custom_white_list=["exp"]):  # leaves the black list
        assert paddle.exp(a).dtype.name == "float16"
    with paddle.amp.auto_cast(enable=False):
        assert conv(x).dtype.name == "float32"
    with pytest.raises(ValueError, match="overlap"):
        paddle.amp.auto_cast(custom_white_list={"exp"}, custom_black_list={"exp"})
    with pytest.raises(ValueError, match="O0, O1 or O2"):
        paddle.amp.auto_cast(level="O3")
    with pytest.raises(ValueError, match="float16' or 'bfloat16"):
        paddle.amp.auto_cast(dtype="float64")


def test_state_restores_nests_and_stays_per_thread():
    lin = paddle.nn.Linear(4, 4, bias_attr=False)
    x = paddle.rand([2, 4])
    seen = {}

    def other():
        seen["thread"] = lin(x).dtype.name

    with paddle.amp.auto_cast():
        with paddle.amp.auto_cast(enable=False):
            assert lin(x).dtype.name == "float32"
        assert lin(x).dtype.name == "float16"
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen["thread"] == "float32"
    assert lin(x).dtype.name == "float32"
    # outside auto_cast nothing is cast for the user: mixed dtypes are still an error
    with pytest.raises((TypeError, ValueError)):
        _C_ops.matmul(x.astype("float16"), lin.weight, False, False)

    @paddle.amp.auto_cast()
    def fwd(v):
        return lin(v)
    assert fwd(x).dtype.name == "float16"


def test_float32_parameter_gradients_through_casts():
    lin = paddle.nn.Linear(8, 3)
    x = paddle.randn([6, 8])
    with paddle.amp.auto_cast():
        loss = paddle.mean(lin(x) * 3.0)
        loss.backward()  # backward inside the context: gradient ops are not auto-cast
    assert lin.weight.grad.dtype.name == "float32" and lin.bias.grad.dtype.name == "float32"
    g = np.full((6, 3), 3.0 / 18)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.sum(0), rtol=1e-6)
    # the exact float32 gradient, within float16 rounding of the cast path
    np.testing.assert_allclose(lin.weight.grad.numpy(), x.numpy().T @ g, rtol=3e-3, atol=1e-3)
    # and the float16 path exactly: x rounded, the output gradient rounded, the result rounded
    ref = r16(r16(x.numpy()).T.astype(np.float64) @ r16(g))
    np.testing.assert_allclose(lin.weight.grad.numpy(), ref, rtol=1e-3, atol=1e-4)


# ---------------------------------------------------------------------------- O2 and decorate
def test_o2_runs_everything_but_the_black_list_low():
    a, b = paddle.rand([3, 4]), paddle.rand([3, 4])
    ln = paddle.nn.LayerNorm(4)
    with paddle.amp.auto_cast(level="O2"):
        s = a + b
        m = paddle.mean(a)
        y = ln(s)
    assert s.dtype.name == "float16" and m.dtype.name == "float32"
    assert y.dtype.name == "float16" and ln.weight.dtype.name == "float32"
    xr = r16(r16(a.numpy()) + r16(b.numpy())).astype(np.float64)
    ref = (xr - xr.mean(1, keepdims=True)) / np.sqrt(xr.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.numpy().astype(np.float32), r16(ref), rtol=2e-3, atol=2e-3)


def test_batch_norm_keeps_float32_statistics():
    """Only X is cast for batch_norm: running statistics stay float32 and are updated in place."""
    bn = paddle.nn.BatchNorm1D(3)
    x = paddle.randn([8, 3]).astype("float16")
    with paddle.amp.auto_cast(level="O2"):
        y = bn(x)
    assert y.dtype.name == "float16" and bn._mean.dtype.name == "float32"
    xr = x.numpy().astype(np.float64)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * xr.mean(0), rtol=1e-5, atol=1e-6)
    ref = (xr - xr.mean(0)) / np.sqrt(xr.var(0) + 1e-5)
    np.testing.assert_allclose(y.numpy().astype(np.float32), r16(ref), rtol=2e-3, atol=2e-3)


def test_decorate_o2_parameters_and_master_weights():
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 6), paddle.nn.BatchNorm1D(6),
                               paddle.nn.LayerNorm(6), paddle.nn.Linear(6, 2))
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=net.parameters())
    params = net.parameters()
    model, opt2 = paddle.amp.decorate(net, opt, level="O2", save_dtype="float32")
    assert model is net and opt2 is opt and opt._multi_precision
    assert [p.dtype.name for p in net.parameters()] == \
        ["float16"] * 2 + ["float32"] * 6 + ["float16"] * 2  # BatchNorm: 4 incl. mean/variance
    assert all(a is b for a, b in zip(params, net.parameters()))  # same Parameter objects
    sd = net.state_dict()
    assert all(v.dtype.name == "float32" for v in sd.values())
    assert net[0].weight.dtype.name == "float16"
    w_before = net[0].weight.numpy().astype(np.float32)
    x = paddle.randn([5, 4])
    with paddle.amp.auto_cast(level="O2"):
        loss = paddle.mean(net(x))
    loss.backward()
    g = net[0].weight.grad
    assert g.dtype.name == "float16"
    opt.step()
    master = opt._master_weights[net[0].weight.name]
    assert master.dtype.name == "float32"
    np.testing.assert_allclose(master.numpy(), w_before - 0.5 * g.numpy().astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(net[0].weight.numpy(), master.numpy().astype(np.float16))
    # O1 changes nothing; master_weight=False keeps the float16 update
    lin = paddle.nn.Linear(2, 2)
    assert paddle.amp.decorate(lin, level="O1") is lin and lin.weight.dtype.name == "float32"
    opt3 = paddle.optimizer.Momentum(parameters=lin.parameters())
    paddle.amp.decorate(lin, opt3, level="O2", master_weight=False)
    assert not opt3._multi_precision and lin.weight.dtype.name == "float16"
    with pytest.raises(ValueError, match="O1 or O2"):
        paddle.amp.decorate(lin, level="O3")
    with pytest.raises(ValueError, match="save_dtype"):
        paddle.amp.decorate(paddle.nn.Linear(2, 2), level="O2", save_dtype="int8")
    with pytest.raises(TypeError):
        paddle.amp.decorate("net", level="O2")


# ---------------------------------------------------------------------------- GradScaler
def _toy():
    lin = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
    return lin, opt


def test_scale_and_unscale():
    lin, opt = _toy()
    scaler = paddle.amp.GradScaler(init_loss_scaling=64.0)
    x = paddle.randn([4, 3])
    loss = paddle.mean(lin(x))
    scaled = scaler.scale(loss)
    np.testing.assert_allclose(scaled.numpy(), loss.numpy() * 64.0, rtol=1e-6)
    scaled.backward()
    g_scaled = lin.weight.grad.numpy().copy()
    scaler.unscale_(opt)
    np.testing.assert_allclose(lin.weight.grad.numpy(), g_scaled / 64.0, rtol=1e-6)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    w0 = lin.weight.numpy().copy()
    scaler.step(opt)  # no second unscale
    np.testing.assert_allclose(lin.weight.numpy(), w0 - 0.1 * g_scaled / 64.0, rtol=1e-6)
    with pytest.raises(RuntimeError, match="step"):
        scaler.step(opt)
    scaler.update()
    assert scaler.state_dict()["incr_count"] == 1
    with pytest.raises(TypeError):
        scaler.scale(1.0)


def test_inf_gradient_skips_the_step_and_the_rule_matches_numpy():
    rng = np.random.default_rng(5)
    lin, opt = _toy()
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0, incr_ratio=2.0, decr_ratio=0.5,
                                   incr_every_n_steps=3, decr_every_n_nan_or_inf=2)
    # numpy re-implementation of Paddle's update rule
    scale, good, bad = 1024.0, 0, 0
    pattern = rng.random(40) < 0.3
    for step, is_bad in enumerate(pattern):
        x = paddle.randn([4, 3])
        scaled = scaler.scale(paddle.mean(lin(x)))
        np.testing.assert_allclose(float(scaled) / float(paddle.mean(lin(x))), scale, rtol=1e-5)
        scaled.backward()
        if is_bad:
            lin.bias.grad._copy_(paddle.to_tensor(np.array([np.inf, 1.0], "float32")))
        w0 = lin.weight.numpy().copy()
        g = lin.weight.grad.numpy().copy()
        scaler.minimize(opt, scaled)
        if is_bad:
            np.testing.assert_array_equal(lin.weight.numpy(), w0)  # skipped
            good, bad = 0, bad + 1
            if bad == 2:
                scale, bad = scale * 0.5, 0
        else:
            np.testing.assert_allclose(lin.weight.numpy(), w0 - 0.1 * g / scale, rtol=1e-5, atol=1e-7)
            good, bad = good + 1, 0
            if good == 3:
                scale, good = scale * 2.0, 0
        opt.clear_grad()
        sd = scaler.state_dict()
        assert float(sd["scale"][0]) == scale and sd["incr_count"] == good and sd["decr_count"] == bad
    assert pattern.any() and (~pattern).any()


def test_nan_found_with_step_and_update():
    lin, opt = _toy()
    scaler = paddle.amp.GradScaler(init_loss_scaling=8.0, decr_every_n_nan_or_inf=1)
    scaled = scaler.scale(paddle.mean(lin(paddle.randn([2, 3]))))
    scaled.backward()
    lin.weight.grad._copy_(paddle.full([3, 2], float("nan")))
    w0 = lin.weight.numpy().copy()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(lin.weight.numpy(), w0)
    assert float(scaler.state_dict()["scale"][0]) == 4.0


def test_state_dict_round_trip_and_hyperparameters():
    s = paddle.amp.GradScaler(init_loss_scaling=256.0, incr_every_n_steps=7, decr_every_n_nan_or_inf=3,
                              use_dynamic_loss_scaling=False)
    assert s.is_enable() and not s.is_use_dynamic_loss_scaling()
    assert s.get_init_loss_scaling() == 256.0 and s.get_incr_ratio() == 2.0 and s.get_decr_ratio() == 0.5
    assert s.get_incr_every_n_steps() == 7 and s.get_decr_every_n_nan_or_inf() == 3
    s.set_incr_ratio(3.0)
    s.set_decr_ratio(0.25)
    s.set_incr_every_n_steps(9)
    s.set_decr_every_n_nan_or_inf(4)
    s.set_init_loss_scaling(512.0)
    s._incr_count, s._decr_count = 5, 1
    t = paddle.amp.GradScaler()
    t.load_state_dict(s.state_dict())
    sd = t.state_dict()
    assert float(sd["scale"][0]) == 512.0 and sd["incr_ratio"] == 3.0 and sd["decr_ratio"] == 0.25
    assert (sd["incr_every_n_steps"], sd["decr_every_n_nan_or_inf"], sd["incr_count"], sd["decr_count"]) == (9, 4, 5, 1)
    assert sd["use_dynamic_loss_scaling"] is False and t.get_init_loss_scaling() == 512.0
    with pytest.raises(AssertionError):
        s.set_incr_ratio(1.0)
    with pytest.raises(AssertionError):
        paddle.amp.GradScaler(decr_ratio=1.5)
    off = paddle.amp.GradScaler(enable=False)
    v = paddle.rand([1])
    assert off.scale(v) is v and off.state_dict() == {} and not off.is_enable()
    with pytest.raises(RuntimeError, match="empty"):
        t.load_state_dict({})


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_check_finite_and_unscale_kernel(dtype):
    rng = np.random.default_rng(0)
    big = rng.standard_normal(70000).astype(np.float32)  # the threaded path
    small = rng.standard_normal((3, 4)).astype(np.float32)
    ts = [paddle.to_tensor(big).astype(dtype), paddle.to_tensor(small).astype(dtype)]
    ts.append(paddle.to_tensor(small).astype(dtype).t())  # a non-contiguous view
    before = [f32(t).astype(np.float64) for t in ts]
    found = _C_ops.check_finite_and_unscale_(ts, paddle.to_tensor([4.0]))
    assert found.dtype.name == "bool" and not bool(found)
    rnd = ROUND.get(dtype, lambda a: a)
    for t, b in zip(ts, before):
        np.testing.assert_allclose(f32(t), rnd(b / 4.0), rtol=1e-6)
    big[-1] = np.inf
    t = paddle.to_tensor(big).astype(dtype)
    assert bool(_C_ops.check_finite_and_unscale_([ts[1], t], paddle.to_tensor([2.0])))
    with pytest.raises(ValueError, match="scale"):
        _C_ops.check_finite_and_unscale_(ts, paddle.to_tensor([2.0, 1.0]))


# ---------------------------------------------------------------------------- hapi
class _Data(paddle.io.Dataset):
    def __init__(self):
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((192, 8)).astype("float32")
        w = rng.standard_normal((8, 3)).astype("float32")
        self.y = np.argmax(self.x @ w, 1).astype("int64")[:, None]

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


@pytest.mark.parametrize("amp", ["O1", "O2", {"level": "O1", "init_loss_scaling": 128.0,
                                               "custom_black_list": ["elementwise_add"]}])
def test_model_fit_with_amp_trains(amp):
    net = paddle.nn.Sequential(paddle.nn.Linear(8, 32), paddle.nn.ReLU(), paddle.nn.LayerNorm(32),
                               paddle.nn.Linear(32, 3))
    model = paddle.Model(net)
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    model.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(), amp_configs=amp)
    level = amp if isinstance(amp, str) else amp["level"]
    assert net[0].weight.dtype.name == ("float16" if level == "O2" else "float32")
    assert net[2].weight.dtype.name == "float32"
    before = model.evaluate(_Data(), batch_size=64, verbose=0)
    model.fit(_Data(), epochs=4, batch_size=32, verbose=0)
    after = model.evaluate(_Data(), batch_size=64, verbose=0)
    assert after["loss"][0] < 0.5 * before["loss"][0]
    assert after["acc"] > 0.85
    if isinstance(amp, dict):
        assert model._scaler.get_init_loss_scaling() == 128.0
    if level == "O2":
        assert opt._master_weights and all(m.dtype.name == "float32" for m in opt._master_weights.values())


@pytest.mark.parametrize("bad", ["O3", {"level": "O4"}, {"level": "O1", "foo": 1},
                                 {"use_pure_fp16": True}, {"level": "O1", "use_fp16_guard": False}])
def test_model_prepare_rejects_bad_amp_configs(bad):
    net = paddle.nn.Linear(2, 2)
    model = paddle.Model(net)
    opt = paddle.optimizer.SGD(parameters=net.parameters())
    with pytest.raises(ValueError):
        model.prepare(opt, paddle.nn.MSELoss(), amp_configs=bad)


def test_model_prepare_o0_and_defaults():
    net = paddle.nn.Linear(2, 2)
    model = paddle.Model(net)
    opt = paddle.optimizer.SGD(parameters=net.parameters())
    model.prepare(opt, paddle.nn.MSELoss(), amp_configs={"level": "O0", "anything": 1})
    assert model._scaler is None
    model.prepare(opt, paddle.nn.MSELoss(), amp_configs={"init_loss_scaling": 4.0})  # level defaults to O1
    assert model._amp_level == "O1" and model._scaler.get_init_loss_scaling() == 4.0
