"""Fixes found by Paddle's public API tests of paddle.nn / fft / optimizer / loss (PaddleTest
framework/api, run by tools/oracle/public_suites_nn.py; issue 23 item 3), checked against numpy."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F


@pytest.fixture
def level():
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    yield lambda flag: paddle.set_flags({"FLAGS_set_to_1d": flag})
    paddle.set_flags({"FLAGS_set_to_1d": old})


@pytest.mark.parametrize("dt", ["int32", "int64", "float32", "float64"])
def test_pad_layers_take_a_padding_list_for_any_rank(dt):
    # Paddle's Pad1D/2D/3D hand a list padding to F.pad as given: its length and data_format pick
    # the dims, so Pad1D([l, r, t, b], data_format="NCHW") pads a 4-D input as Pad2D does
    x = np.arange(12).reshape(1, 2, 2, 3).astype(dt)
    want = np.pad(x, [(0, 0), (0, 0), (1, 2), (1, 0)])
    for layer in (paddle.nn.Pad1D, paddle.nn.Pad2D, paddle.nn.Pad3D):
        out = layer([1, 0, 1, 2], data_format="NCHW")(paddle.to_tensor(x))
        assert out.dtype == paddle.to_tensor(x).dtype
        np.testing.assert_array_equal(out.numpy(), want)
    x5 = np.arange(24).reshape(1, 2, 3, 2, 2).astype(dt)
    out = paddle.nn.Pad1D([1, 0, 0, 1, 2, 1], mode="replicate", data_format="NDHWC")(paddle.to_tensor(x5))
    np.testing.assert_array_equal(out.numpy(), np.pad(x5, [(0, 0), (2, 1), (0, 1), (1, 0), (0, 0)], mode="edge"))
    # an int still means the same padding on both sides of the layer's own dims
    x3 = np.arange(6).reshape(1, 2, 3).astype(dt)
    out = paddle.nn.Pad1D(2, mode="reflect")(paddle.to_tensor(x3))
    np.testing.assert_array_equal(out.numpy(), np.pad(x3, [(0, 0), (0, 0), (2, 2)], mode="reflect"))


def test_in_pir_mode_is_false():
    from paddle.base.framework import in_pir_mode
    assert in_pir_mode() is False and paddle.framework.use_pir_api() is False


@pytest.mark.parametrize("name,np_fn", [("fft2", np.fft.fftn), ("ifft2", np.fft.ifftn),
                                        ("rfft2", np.fft.rfftn), ("ihfft2", None)])
def test_fft2_family_takes_axes_none(name, np_fn):
    # axes=None goes through to the n-D transform, as in Paddle 2.6: the last len(s) axes, or all
    x = np.random.RandomState(0).randint(-5, 5, [2, 3, 4]).astype("float64")
    fn = getattr(paddle.fft, name)
    out = fn(paddle.to_tensor(x), s=[2, 4], axes=None, norm="ortho").numpy()
    if np_fn is None:  # ihfftn = conj(rfftn) / n
        want = np.conj(np.fft.rfftn(x, s=[2, 4], axes=(-2, -1), norm="ortho"))
    else:
        want = np_fn(x, s=[2, 4], axes=(-2, -1), norm="ortho")
    np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12)
    out = fn(paddle.to_tensor(x), axes=None).numpy()
    want = (np.conj(np.fft.rfftn(x)) / x.size) if np_fn is None else np_fn(x)
    np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError):
        fn(paddle.to_tensor(x), axes=[0])


@pytest.mark.parametrize("steps", [0, -3])
def test_linear_warmup_steps_must_be_positive_as_an_assertion(steps):
    # Paddle 2.6 asserts it: code written for it catches AssertionError and matches this text
    with pytest.raises(AssertionError, match="'warmup_steps' must be a positive integer"):
        paddle.optimizer.lr.LinearWarmup(learning_rate=0.5, warmup_steps=steps, start_lr=0.0, end_lr=0.5)


def _adadelta_numpy(p, grads, lr, rho, eps, wd):
    eg, ex = np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        g = g + wd * p
        eg = rho * eg + (1 - rho) * g * g
        d = -np.sqrt((ex + eps) / (eg + eps)) * g
        ex = rho * ex + (1 - rho) * d * d
        p = p + lr * d
    return p


@pytest.mark.parametrize("flag,scaled", [(True, False), (False, True)])
def test_adadelta_learning_rate_follows_the_api_level(level, flag, scaled):
    # Paddle 2.3's adadelta ignores the learning rate; Paddle >= 2.5 (FLAGS_set_to_1d off) scales
    # the update by it
    level(flag)
    rs = np.random.RandomState(3)
    p0 = rs.randn(4, 3)
    grads = [rs.randn(4, 3) for _ in range(3)]
    w = paddle.create_parameter([4, 3], "float64", default_initializer=paddle.nn.initializer.Assign(p0))
    opt = paddle.optimizer.Adadelta(learning_rate=0.01, epsilon=1e-6, rho=0.9, parameters=[w], weight_decay=0.1)
    for g in grads:
        (w * paddle.to_tensor(g)).sum().backward()
        opt.step()
        opt.clear_grad()
    want = _adadelta_numpy(p0, grads, 0.01 if scaled else 1.0, 0.9, 1e-6, 0.1)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-10)


def test_manual_program_seed_makes_initializers_repeat():
    # Paddle's initializers take the main program's random_seed when set (dygraph too): two layers
    # of one shape built after it get the same weights; 0 (the default) draws from the generator
    main = paddle.static.default_main_program()
    old = main.random_seed
    try:
        paddle.framework.random._manual_program_seed(2020)
        a, b = paddle.nn.Linear(6, 5), paddle.nn.Linear(6, 5)
        np.testing.assert_array_equal(a.weight.numpy(), b.weight.numpy())
        lim = np.sqrt(6.0 / 11)
        assert np.abs(a.weight.numpy()).max() <= lim and a.weight.numpy().std() > 0.1
        w = [paddle.create_parameter([4, 4], "float32", default_initializer=paddle.nn.initializer.Normal(0, 2))
             for _ in range(2)]
        np.testing.assert_array_equal(w[0].numpy(), w[1].numpy())
        main.random_seed = 0
        c, d = paddle.nn.Linear(6, 5), paddle.nn.Linear(6, 5)
        assert not np.array_equal(c.weight.numpy(), d.weight.numpy())
    finally:
        main.random_seed = old
    assert paddle.framework.random.get_cuda_rng_state() == []


def _bn_ref(x, eps=1e-5):
    m = x.mean(axis=(0, 2, 3), keepdims=True)
    v = x.var(axis=(0, 2, 3), keepdims=True)
    return (x - m) / np.sqrt(v + eps), m.ravel(), v.ravel() * x.size / x.shape[1] / (x.size / x.shape[1] - 1)


def test_batchnorm_trainable_statistics_and_dtype():
    x = np.random.RandomState(5).uniform(-4, 4, (2, 3, 4, 5)).astype("float32")
    bn = paddle.nn.BatchNorm(3, trainable_statistics=True)
    bn.eval()
    out = bn(paddle.to_tensor(x))
    want, m, _ = _bn_ref(x.astype("float64"))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)  # batch statistics in eval
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * m, rtol=1e-4, atol=1e-6)  # and their update
    bn = paddle.nn.BatchNorm(3)
    bn.eval()
    np.testing.assert_allclose(bn(paddle.to_tensor(x)).numpy(), x / np.sqrt(1 + 1e-5), rtol=1e-6)
    bn64 = paddle.nn.BatchNorm(3, dtype="float64")
    assert bn64.weight.dtype == paddle.float64 and bn64._mean.dtype == paddle.float64
    np.testing.assert_allclose(bn64(paddle.to_tensor(x.astype("float64"))).numpy(), _bn_ref(x.astype("float64"))[0],
                               rtol=1e-10, atol=1e-10)
    assert paddle.nn.BatchNorm(3, dtype="float16").weight.dtype == paddle.float32


def test_batchnorm_params_stay_float32_under_a_float16_default():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float16")
    try:
        bn = paddle.nn.BatchNorm2D(1)
        out = bn(paddle.to_tensor(np.random.RandomState(1).rand(2, 1, 2, 3).astype("float32")))
        assert bn.weight.dtype == paddle.float32 and out.dtype == paddle.float32
        assert paddle.get_default_dtype() == "float16"
    finally:
        paddle.set_default_dtype(old)


@pytest.mark.parametrize("alpha", [-0.4, 0.2, 1.5])
def test_celu_negative_alpha_follows_the_formula(alpha):
    x = np.linspace(-4, 3, 30)  # no kink point (0) in it
    want = np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))
    np.testing.assert_allclose(F.celu(paddle.to_tensor(x), alpha).numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(paddle.nn.CELU(alpha)(paddle.to_tensor(x)).numpy(), want, rtol=1e-12, atol=1e-12)
    xt = paddle.to_tensor(x, stop_gradient=False)
    F.celu(xt, alpha).sum().backward()
    eps = 1e-6
    num = (np.maximum(0, x + eps) + np.minimum(0, alpha * (np.exp((x + eps) / alpha) - 1))
           - want) / eps
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=1e-4, atol=1e-4)


def test_clip_grad_by_norm_checks_at_call_time():
    g = paddle.to_tensor(np.full([3, 3], 2.0, "float32"))
    p = paddle.create_parameter([3, 3], "float32")
    with pytest.raises(ValueError, match="InvalidArgument"):
        paddle.nn.ClipGradByNorm(clip_norm=-1.0)([(p, g)])
    with pytest.raises(RuntimeError, match="NotFound"):
        paddle.nn.ClipGradByNorm(clip_norm=1.0)([(p, paddle.to_tensor(np.ones([3, 3], "int8")))])
    (_, out), = paddle.nn.ClipGradByNorm(clip_norm=1.0)([(p, g)])
    np.testing.assert_allclose(out.numpy(), np.full([3, 3], 1 / 3.0), rtol=1e-6)


def test_clip_grad_by_value_asserts_a_positive_max_without_min():
    with pytest.raises(AssertionError):
        paddle.nn.ClipGradByValue(-1.0)
    p = paddle.create_parameter([4], "float32")
    g = paddle.to_tensor(np.array([-3.0, -0.5, 0.5, 3.0], "float32"))
    (_, out), = paddle.nn.ClipGradByValue(1.0)([(p, g)])
    np.testing.assert_array_equal(out.numpy(), np.clip(g.numpy(), -1, 1))
