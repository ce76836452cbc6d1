"""Backward rules of the elementwise ops (ops/unary.yaml, ops/binary.yaml): second-order gradients
through paddle.grad(create_graph=True) against analytic values, complex-valued rules (the
conjugate convention of Paddle/PyTorch), and the documented choices at kinks (ties, clip bounds,
logit eps). First-order rules are checked against finite differences by the op sweep."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F


def _t(a, grad=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def _second(f, xs, i=0, j=0):
    """d/dxs[j] of sum(d/dxs[i] of sum(f(*xs))) through create_graph."""
    out = f(*xs)
    g = paddle.grad([out.sum()], [xs[i]], create_graph=True)[0]
    assert not g.stop_gradient
    return paddle.grad([g.sum()], [xs[j]])[0].numpy()


X = np.array([[0.3, -0.7, 1.2], [0.9, -1.4, 0.05]])
P = np.array([[0.6, 1.3, 0.8], [1.7, 0.5, 1.1]])  # positive


def test_exp_second_order():
    np.testing.assert_allclose(_second(paddle.exp, [_t(X)]), np.exp(X), rtol=1e-12)


def test_tanh_second_order():
    t = np.tanh(X)
    np.testing.assert_allclose(_second(paddle.tanh, [_t(X)]), -2 * t * (1 - t * t), rtol=1e-12)


def test_sigmoid_second_order():
    s = 1 / (1 + np.exp(-X))
    np.testing.assert_allclose(_second(F.sigmoid, [_t(X)]), s * (1 - s) * (1 - 2 * s), rtol=1e-10)


def test_log_second_order():
    np.testing.assert_allclose(_second(paddle.log, [_t(P)]), -1 / P ** 2, rtol=1e-12)


def test_pow_scalar_second_order():
    np.testing.assert_allclose(_second(lambda x: paddle.pow(x, 2.5), [_t(P)]), 2.5 * 1.5 * P ** 0.5, rtol=1e-12)


def test_elementwise_pow_second_order():
    y = np.array([[1.5, 2.5, 0.7], [0.4, 1.2, 3.0]])
    x_, y_ = _t(P), _t(y)
    f = paddle.pow  # Tensor exponent -> elementwise_pow
    # d2/dx2 x^y = y (y - 1) x^(y - 2)
    np.testing.assert_allclose(_second(f, [x_, y_], 0, 0), y * (y - 1) * P ** (y - 2), rtol=1e-10)
    # d2/dy2 x^y = x^y log(x)^2
    np.testing.assert_allclose(_second(f, [_t(P), _t(y)], 1, 1), P ** y * np.log(P) ** 2, rtol=1e-10)
    # mixed: d/dy (y x^(y-1)) = x^(y-1) (1 + y log x)
    np.testing.assert_allclose(_second(f, [_t(P), _t(y)], 0, 1),
                               P ** (y - 1) * (1 + y * np.log(P)), rtol=1e-10)


def test_multiply_second_order():
    x, y = _t(X), _t(P)
    # d/dy of sum(d/dx sum(x*y)) = d/dy sum(y) = 1
    np.testing.assert_allclose(_second(paddle.multiply, [x, y], 0, 1), np.ones_like(P))
    x, y = _t(X), _t(P)
    g = paddle.grad([(paddle.multiply(x, y) * x).sum()], [x], create_graph=True)[0]  # 2xy
    np.testing.assert_allclose(paddle.grad([g.sum()], [x])[0].numpy(), 2 * P)


def test_divide_second_order():
    # d/dy (1/y) = -1/y^2 ; d2/dy2 (x/y) = 2x/y^3
    np.testing.assert_allclose(_second(paddle.divide, [_t(X), _t(P)], 0, 1), -1 / P ** 2, rtol=1e-12)
    np.testing.assert_allclose(_second(paddle.divide, [_t(X), _t(P)], 1, 1), 2 * X / P ** 3, rtol=1e-12)


def test_third_order_exp_of_square():
    x = _t(X)
    y = paddle.exp(paddle.square(x))
    g1 = paddle.grad([y.sum()], [x], create_graph=True)[0]
    g2 = paddle.grad([g1.sum()], [x], create_graph=True)[0]
    g3 = paddle.grad([g2.sum()], [x])[0]
    e = np.exp(X * X)
    np.testing.assert_allclose(g1.numpy(), 2 * X * e, rtol=1e-12)
    np.testing.assert_allclose(g2.numpy(), (2 + 4 * X * X) * e, rtol=1e-12)
    np.testing.assert_allclose(g3.numpy(), (12 * X + 8 * X ** 3) * e, rtol=1e-12)


# ---------------------------------------------------------------- complex (grad = conj(f'(z)))
Z = np.array([0.4 + 0.3j, -0.8 + 0.5j, 1.1 - 0.6j])
HOLO = [
    (paddle.exp, np.exp),
    (paddle.log, lambda z: 1 / z),
    (paddle.sqrt, lambda z: 0.5 / np.sqrt(z)),
    (paddle.square, lambda z: 2 * z),
    (paddle.reciprocal, lambda z: -1 / z ** 2),
    (paddle.sin, np.cos),
    (paddle.cos, lambda z: -np.sin(z)),
    (paddle.tan, lambda z: 1 / np.cos(z) ** 2),
    (paddle.sinh, np.cosh),
    (paddle.cosh, np.sinh),
    (paddle.tanh, lambda z: 1 / np.cosh(z) ** 2),
    (paddle.neg, lambda z: -np.ones_like(z)),
]


@pytest.mark.parametrize("f,df", HOLO, ids=[f.__name__ for f, _ in HOLO])
def test_complex_holomorphic(f, df):
    z = _t(Z)
    g = paddle.grad([f(z).sum()], [z])[0].numpy()
    np.testing.assert_allclose(g, np.conj(df(Z)), rtol=1e-12)


def test_complex_binary():
    w = np.array([0.5 - 1.0j, 2.0 + 0.1j, -0.3 + 0.9j])
    z, v = _t(Z), _t(w)
    gz, gv = paddle.grad([paddle.subtract(z, v).sum()], [z, v])
    np.testing.assert_allclose(gz.numpy(), np.ones(3))
    np.testing.assert_allclose(gv.numpy(), -np.ones(3))
    z, v = _t(Z), _t(w)
    gz, gv = paddle.grad([paddle.divide(z, v).sum()], [z, v])
    np.testing.assert_allclose(gz.numpy(), np.conj(1 / w), rtol=1e-12)
    np.testing.assert_allclose(gv.numpy(), np.conj(-Z / w ** 2), rtol=1e-12)


def test_complex_abs():
    z = _t(np.array([3 + 4j, -1j, 0j]))
    g = paddle.grad([paddle.abs(z).sum()], [z])[0].numpy()
    np.testing.assert_allclose(g, [0.6 + 0.8j, -1j, 0], atol=1e-15)


# ---------------------------------------------------------------- kinks and special cases
def test_abs_real():
    x = _t(np.array([-2.0, 0.5, 0.0]))
    np.testing.assert_allclose(paddle.grad([paddle.abs(x).sum()], [x])[0].numpy(), [-1, 1, 0])


def test_maximum_minimum_ties_go_to_x():
    for f in (paddle.maximum, paddle.minimum, paddle.fmax, paddle.fmin):
        x, y = _t(np.array([1.0, 2.0, 3.0])), _t(np.array([1.0, 5.0, 0.0]))
        gx, gy = paddle.grad([f(x, y).sum()], [x, y])
        pick_x = np.array([True, f in (paddle.minimum, paddle.fmin), f in (paddle.maximum, paddle.fmax)])
        np.testing.assert_array_equal(gx.numpy(), pick_x.astype(float), err_msg=f.__name__)
        np.testing.assert_array_equal(gy.numpy(), (~pick_x).astype(float), err_msg=f.__name__)


def test_fmax_nan_selects_the_number():
    x, y = _t(np.array([np.nan, 1.0])), _t(np.array([2.0, np.nan]))
    gx, gy = paddle.grad([paddle.fmax(x, y).sum()], [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0, 1])
    np.testing.assert_array_equal(gy.numpy(), [1, 0])


def test_clip_bounds_strict():
    # Paddle's clip gradient is 0 at the bounds (checked against Paddle 2.6.2:
    # tools/oracle/conformance_cases.json, hardtanh_grad / relu6_grad)
    x = _t(np.array([-2.0, -1.0, 0.0, 1.0, 2.0]))
    g = paddle.grad([paddle.clip(x, -1.0, 1.0).sum()], [x])[0].numpy()
    np.testing.assert_array_equal(g, [0, 0, 1, 0, 0])


def test_logit_eps_zero_outside():
    x = _t(np.array([0.1, 0.5, 0.95]))
    g = paddle.grad([paddle.logit(x, eps=0.2).sum()], [x])[0].numpy()
    np.testing.assert_allclose(g, [0, 4, 0])


def test_cast_grad_back_to_input_dtype():
    x = paddle.to_tensor(np.array([1.0, 2.0], dtype="float32"), stop_gradient=False)
    y = paddle.cast(x, "float64")
    (y * y).sum().backward()
    assert x.grad.dtype == x.dtype
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_rounding_ops_have_zero_grad():
    for f in (paddle.floor, paddle.ceil, paddle.round, paddle.trunc, paddle.sign):
        x = _t(np.array([-1.5, 0.3, 2.7]))
        np.testing.assert_array_equal(paddle.grad([f(x).sum()], [x])[0].numpy(), [0, 0, 0])


def test_remainder_grad():
    x, y = _t(np.array([5.5, -3.2, 7.0])), _t(np.array([2.0, 1.5, -3.0]))
    gx, gy = paddle.grad([paddle.remainder(x, y).sum()], [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(gy.numpy(), -np.floor(np.array([5.5, -3.2, 7.0]) / [2.0, 1.5, -3.0]))


def test_nondiff_ops_stop_gradient():
    x, y = _t(np.array([1.0, 2.0])), _t(np.array([2.0, 1.0]))
    for out in (paddle.floor_divide(x, y), paddle.greater_than(x, y), paddle.equal(x, y),
                paddle.logical_and(x, y)):
        assert out.stop_gradient


def test_third_order_through_saved_output():
    # tanh's rule uses its output: every create_graph pass must re-attach the saved output
    x = _t(X)
    g1 = paddle.grad([paddle.tanh(x).sum()], [x], create_graph=True)[0]
    g2 = paddle.grad([g1.sum()], [x], create_graph=True)[0]
    g3 = paddle.grad([g2.sum()], [x])[0]
    t = np.tanh(X)
    np.testing.assert_allclose(g3.numpy(), -2 * (1 - t * t) ** 2 + 4 * t * t * (1 - t * t), rtol=1e-10)
