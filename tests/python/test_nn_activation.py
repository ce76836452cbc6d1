"""paddle.nn activations: every functional form and layer against numpy references, gradients of
the composed ones against finite differences (float64), in-place forms, argument errors."""
import math

import numpy as np
import pytest

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

erf = np.vectorize(math.erf)
sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
softplus = lambda x: np.logaddexp(0, x)  # noqa: E731
SELU_S, SELU_A = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717

REFS = [
    ("relu", {}, lambda x: np.maximum(x, 0)),
    ("relu6", {}, lambda x: np.clip(x, 0, 6)),
    ("leaky_relu", {}, lambda x: np.where(x > 0, x, 0.01 * x)),
    ("leaky_relu", {"negative_slope": 0.2}, lambda x: np.where(x > 0, x, 0.2 * x)),
    ("elu", {"alpha": 0.5}, lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("selu", {}, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    ("celu", {"alpha": 2.0}, lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0))),
    ("gelu", {}, lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    ("gelu", {"approximate": True}, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("silu", {}, lambda x: x * sig(x)),
    ("swish", {}, lambda x: x * sig(x)),
    ("mish", {}, lambda x: x * np.tanh(softplus(x))),
    ("sigmoid", {}, sig),
    ("hardsigmoid", {}, lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1)),
    ("hardsigmoid", {"slope": 0.2, "offset": 0.4}, lambda x: np.clip(x * 0.2 + 0.4, 0, 1)),
    ("hardswish", {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hardtanh", {"min": -0.5, "max": 2.0}, lambda x: np.clip(x, -0.5, 2.0)),
    ("tanh", {}, np.tanh),
    ("tanhshrink", {}, lambda x: x - np.tanh(x)),
    ("softplus", {}, softplus),
    ("softplus", {"beta": 2, "threshold": 4}, lambda x: np.where(2 * x > 4, x, softplus(2 * x) / 2)),
    ("softsign", {}, lambda x: x / (1 + np.abs(x))),
    ("softshrink", {"threshold": 0.7}, lambda x: np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0))),
    ("hardshrink", {"threshold": 0.7}, lambda x: np.where(np.abs(x) > 0.7, x, 0)),
    ("log_sigmoid", {}, lambda x: -softplus(-x)),
    ("thresholded_relu", {"threshold": 0.5}, lambda x: np.where(x > 0.5, x, 0)),
    ("softmax", {}, lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    ("log_softmax", {"axis": 0}, lambda x: x - np.log(np.exp(x).sum(0, keepdims=True))),
    ("glu", {}, lambda x: x[:, :3] * sig(x[:, 3:])),
    ("glu", {"axis": 0}, lambda x: x[:2] * sig(x[2:])),
]


def _x(dtype="float64", seed=0, shape=(4, 6), scale=4.0):
    return np.random.default_rng(seed).uniform(-scale, scale, size=shape).astype(dtype)


@pytest.mark.parametrize("name,kw,ref", REFS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFS)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functional_forward(name, kw, ref, dtype):
    x = _x(dtype)
    out = getattr(F, name)(paddle.to_tensor(x), **kw)
    tol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(out.numpy(), ref(x.astype("float64")), rtol=tol, atol=tol)
    assert out.dtype.name == dtype


def _num_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


@pytest.mark.parametrize("name,kw,ref", REFS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFS)])
def test_functional_grad(name, kw, ref):
    x = _x(seed=1)
    w = np.random.default_rng(2).uniform(0.5, 1.5, size=ref(x).shape)
    t = paddle.to_tensor(x, stop_gradient=False)
    (paddle.sum(getattr(F, name)(t, **kw) * paddle.to_tensor(w))).backward()
    num = _num_grad(lambda a: float((getattr(F, name)(paddle.to_tensor(a), **kw).numpy() * w).sum()), x)
    np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["gelu", "silu", "mish", "elu", "softplus", "leaky_relu"])
def test_second_order(name):
    x = _x(seed=3, shape=(5,), scale=2.0)
    t = paddle.to_tensor(x, stop_gradient=False)
    (g,) = paddle.grad([paddle.sum(getattr(F, name)(t))], [t], create_graph=True)
    (gg,) = paddle.grad([paddle.sum(g)], [t])

    def first(a):
        tt = paddle.to_tensor(a, stop_gradient=False)
        (d,) = paddle.grad([paddle.sum(getattr(F, name)(tt))], [tt])
        return float(d.numpy().sum())

    np.testing.assert_allclose(gg.numpy(), _num_grad(first, x), rtol=1e-5, atol=1e-6)


def test_inplace_forms():
    for name, ref in [("relu_", lambda x: np.maximum(x, 0)), ("elu_", lambda x: np.where(x > 0, x, np.expm1(x))),
                      ("tanh_", np.tanh), ("softmax_", lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True))]:
        x = _x()
        t = paddle.to_tensor(x)
        r = getattr(F, name)(t)
        assert r is t
        np.testing.assert_allclose(t.numpy(), ref(x), rtol=1e-10)


def test_prelu_and_layer():
    x = _x(shape=(2, 3, 4))
    w = np.array([0.1, 0.2, 0.3])
    out = F.prelu(paddle.to_tensor(x), paddle.to_tensor(w))
    np.testing.assert_allclose(out.numpy(), np.where(x > 0, x, x * w.reshape(1, 3, 1)))
    out = F.prelu(paddle.to_tensor(x), paddle.to_tensor(np.array([0.1, 0.2, 0.3, 0.4])), data_format="NLC")
    np.testing.assert_allclose(out.numpy(), np.where(x > 0, x, x * np.array([0.1, 0.2, 0.3, 0.4])))
    layer = nn.PReLU(num_parameters=3, init=0.1)
    assert layer._weight.shape == [3]
    y = layer(paddle.to_tensor(x.astype("float32")))
    np.testing.assert_allclose(y.numpy(), np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    paddle.sum(y).backward()
    np.testing.assert_allclose(layer._weight.grad.numpy(), np.where(x > 0, 0, x).sum((0, 2)), rtol=1e-5)
    assert len(layer.parameters()) == 1
    with pytest.raises(ValueError):
        F.prelu(paddle.to_tensor(x), paddle.to_tensor(w), data_format="XYZ")
    with pytest.raises(ValueError):
        F.prelu(paddle.to_tensor(x), paddle.to_tensor(np.ones(5)))


def test_maxout():
    x = _x(shape=(2, 6, 3, 3))
    out = F.maxout(paddle.to_tensor(x), groups=3)
    np.testing.assert_allclose(out.numpy(), x.reshape(2, 2, 3, 3, 3).max(2))
    out = F.maxout(paddle.to_tensor(x.transpose(0, 2, 3, 1)), groups=2, axis=-1)
    np.testing.assert_allclose(out.numpy(), x.transpose(0, 2, 3, 1).reshape(2, 3, 3, 3, 2).max(-1))
    np.testing.assert_allclose(nn.Maxout(3)(paddle.to_tensor(x)).numpy(), x.reshape(2, 2, 3, 3, 3).max(2))
    with pytest.raises(ValueError):
        F.maxout(paddle.to_tensor(x), groups=4)
    with pytest.raises(ValueError):
        F.maxout(paddle.to_tensor(x), groups=2, axis=2)


def test_rrelu_and_gumbel():
    x = -np.abs(_x(shape=(100,))) - 0.1
    layer = nn.RReLU(0.1, 0.3)
    y = layer(paddle.to_tensor(x)).numpy() / x
    assert (y >= 0.1 - 1e-12).all() and (y <= 0.3 + 1e-12).all() and y.std() > 0
    layer.eval()
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), 0.2 * x)
    g = F.gumbel_softmax(paddle.to_tensor(_x()), hard=True).numpy()
    assert set(np.unique(g)) <= {0.0, 1.0} and (g.sum(-1) == 1).all()
    s = F.gumbel_softmax(paddle.to_tensor(_x()), temperature=0.5).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-10)


LAYERS = [
    (nn.ReLU, (), "relu", {}), (nn.ReLU6, (), "relu6", {}), (nn.LeakyReLU, (0.3,), "leaky_relu", {"negative_slope": 0.3}),
    (nn.ELU, (0.4,), "elu", {"alpha": 0.4}), (nn.SELU, (), "selu", {}), (nn.CELU, (1.5,), "celu", {"alpha": 1.5}),
    (nn.GELU, (True,), "gelu", {"approximate": True}), (nn.Silu, (), "silu", {}), (nn.Swish, (), "swish", {}),
    (nn.Mish, (), "mish", {}), (nn.Sigmoid, (), "sigmoid", {}), (nn.Hardsigmoid, (), "hardsigmoid", {}),
    (nn.Hardswish, (), "hardswish", {}), (nn.Hardtanh, (-2.0, 2.0), "hardtanh", {"min": -2.0, "max": 2.0}),
    (nn.Tanh, (), "tanh", {}), (nn.Tanhshrink, (), "tanhshrink", {}),
    (nn.Softplus, (2, 10), "softplus", {"beta": 2, "threshold": 10}), (nn.Softsign, (), "softsign", {}),
    (nn.Softshrink, (0.3,), "softshrink", {"threshold": 0.3}), (nn.Hardshrink, (0.3,), "hardshrink", {"threshold": 0.3}),
    (nn.LogSigmoid, (), "log_sigmoid", {}), (nn.Softmax, (0,), "softmax", {"axis": 0}),
    (nn.LogSoftmax, (), "log_softmax", {}), (nn.ThresholdedReLU, (0.2,), "thresholded_relu", {"threshold": 0.2}),
]


@pytest.mark.parametrize("cls,args,fname,kw", LAYERS, ids=[c[0].__name__ for c in LAYERS])
def test_layers_match_functional(cls, args, fname, kw):
    x = paddle.to_tensor(_x())
    layer = cls(*args)
    assert isinstance(layer, nn.Layer)
    np.testing.assert_allclose(layer(x).numpy(), getattr(F, fname)(x, **kw).numpy(), rtol=1e-12)
    repr(layer)


def test_errors():
    x = paddle.to_tensor(_x())
    with pytest.raises(ValueError):
        F.selu(x, scale=0.5)
    with pytest.raises(ValueError):
        F.selu(x, alpha=-1.0)
    with pytest.raises(ZeroDivisionError):
        F.celu(x, alpha=0.0)
    with pytest.raises(ValueError):
        F.softshrink(x, threshold=-1.0)
    with pytest.raises(ValueError):
        F.glu(paddle.to_tensor(_x(shape=(3, 5))))
    with pytest.raises(TypeError):
        F.leaky_relu(x, "a")


def test_extreme_values_stay_finite():
    x = paddle.to_tensor(np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype="float32"))
    for name in ["softplus", "log_sigmoid", "silu", "mish", "gelu", "elu", "selu", "hardswish"]:
        out = getattr(F, name)(x).numpy()
        assert np.isfinite(out).all(), name
    np.testing.assert_allclose(F.log_sigmoid(x).numpy()[[0, 4]], [-1000.0, 0.0])
