"""Fixes of the conformance harness's last "not yet" rows (issue 23), against numpy: matrix_rank's
dtype at the two API levels, complex power and mean, logical ops on mixed dtypes, a bool tensor
with a Python int."""
import numpy as np
import pytest

import paddle


@pytest.fixture
def level():
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    yield lambda flag: paddle.set_flags({"FLAGS_set_to_1d": flag})
    paddle.set_flags({"FLAGS_set_to_1d": old})


def test_matrix_rank_dtype_follows_the_api_level(level):
    a = np.random.RandomState(0).randn(3, 4, 4)
    a[1, 3] = a[1, 0] + a[1, 2]  # rank 3
    level(True)
    r = paddle.linalg.matrix_rank(paddle.to_tensor(a))
    assert r.dtype == paddle.int64  # Paddle 2.3
    np.testing.assert_array_equal(r.numpy(), np.linalg.matrix_rank(a))
    level(False)
    r = paddle.linalg.matrix_rank(paddle.to_tensor(a), tol=0.5)
    assert r.dtype == paddle.int32  # Paddle 2.6
    np.testing.assert_array_equal(r.numpy(), np.linalg.matrix_rank(a, tol=0.5))
    r = paddle.linalg.matrix_rank(paddle.to_tensor(a[0]), hermitian=True)
    assert r.dtype == paddle.int32 and r.shape == []


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_power_and_its_gradient(dt):
    rs = np.random.RandomState(1)
    x = (rs.rand(3, 4) + 0.2 + 1j * rs.randn(3, 4)).astype(dt)
    y = (rs.rand(4) + 1j * rs.rand(4)).astype(dt)
    tol = 1e-5 if dt == "complex64" else 1e-12
    X = paddle.to_tensor(x, stop_gradient=False)
    out = X ** paddle.to_tensor(y)
    np.testing.assert_allclose(out.numpy(), x ** y, rtol=tol)
    out.real().sum().backward()
    # d Re(x^y) / d(Re x, Im x) packed as grad = conj(y x^(y-1)) (Paddle's convention)
    np.testing.assert_allclose(X.grad.numpy(), np.conj(y * x ** (y - 1)), rtol=tol * 10)
    np.testing.assert_allclose(paddle.pow(paddle.to_tensor(x), 2.5).numpy(), x ** 2.5, rtol=tol)
    z = paddle.to_tensor(np.array([0, 1 + 1j], dtype=dt))
    np.testing.assert_allclose((z ** paddle.to_tensor(np.array([0, 0], dtype=dt))).numpy(), [1, 1])
    # a real tensor with a complex one: the published promotion table gives complex
    r = paddle.to_tensor(np.array([2.0, 3.0], "float32")) ** paddle.to_tensor(np.array([1j, 2], dt))
    assert r.dtype == getattr(paddle, dt)
    np.testing.assert_allclose(r.numpy(), np.array([2.0, 3.0]) ** np.array([1j, 2]), rtol=tol)


def test_complex_mean():
    x = np.random.RandomState(2).randn(2, 3, 4) + 1j * np.random.RandomState(3).randn(2, 3, 4)
    t = paddle.to_tensor(x)
    np.testing.assert_allclose(paddle.mean(t, axis=[0, 2]).numpy(), x.mean(axis=(0, 2)), rtol=1e-12)
    np.testing.assert_allclose(paddle.mean(t).numpy().ravel(), [x.mean()], rtol=1e-12)
    with pytest.raises(TypeError):
        paddle.mean(paddle.to_tensor([1, 2]))


def test_logical_ops_of_two_dtypes_use_truth_values():
    a = np.array([0.0, 1.5, 0.0, -2.0], "float32")
    b = np.array([0, 0, 3, 4], "int64")
    for op in ("logical_and", "logical_or", "logical_xor"):
        got = getattr(paddle, op)(paddle.to_tensor(a), paddle.to_tensor(b))
        np.testing.assert_array_equal(got.numpy(), getattr(np, op)(a, b))
    c = np.array([1j, 0, 0, 2], "complex64")
    np.testing.assert_array_equal(paddle.logical_and(paddle.to_tensor(c), paddle.to_tensor(a)).numpy(),
                                  np.logical_and(c != 0, a != 0))


def test_bool_tensor_with_python_int():
    b = np.array([True, False])
    t = paddle.to_tensor(b)
    for got, want in ((t - 2, b.astype(int) - 2), (2 - t, 2 - b.astype(int)), (t + 1, b + 1), (t * 2, b * 2),
                      (t - 1, b.astype(int) - 1), (1 - t, 1 - b.astype(int))):
        assert got.dtype == paddle.bool
        np.testing.assert_array_equal(got.numpy(), want != 0)


def test_log_loss_keeps_epsilon_digits_at_input_one():
    """(1 - input) + eps, not (1 + eps) - input: at input 1 the loss of label 0 is -log(eps) to
    float32 precision (found by Paddle's public loss tests)."""
    x = paddle.ones([3, 1])
    got = paddle.nn.functional.log_loss(x, paddle.zeros([3, 1]), epsilon=1e-4).numpy()
    np.testing.assert_allclose(got, -np.log(np.float32(1e-4)) * np.ones((3, 1)), rtol=1e-6)


def test_static_names_after_unique_name_guard_do_not_alias():
    """A layer built outside unique_name.guard and an optimizer minimized inside it: the startup
    program's temporaries of the two must not share a variable (the learning rate read the bias),
    and one SGD step moves the bias by exactly lr * grad (found by Paddle's public loss tests)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            lin = paddle.nn.Linear(3, 2, bias_attr=paddle.nn.initializer.Constant(0.33))
            opt = paddle.optimizer.SGD(0.001, parameters=lin.parameters())
            with paddle.utils.unique_name.guard():
                x = paddle.static.data("x", [4, 3], "float32")
                loss = paddle.mean(lin(x))
                opt.minimize(loss)
        exe = paddle.static.Executor()
        exe.run(startup)
        xv = np.ones((4, 3), "float32")
        # a feed name the program lacks is left out with a warning; fetch_list may nest one level
        with pytest.warns(UserWarning, match="not found in program"):
            out = exe.run(main, feed={"x": xv, "reduction": "none"}, fetch_list=[[loss], lin.bias])
        assert len(out) == 2
        np.testing.assert_allclose(out[1], 0.33 - 0.001 * 0.5, rtol=1e-6)  # d mean / d b = 1/2 per unit
    finally:
        paddle.disable_static()


def test_matrix_power_zero_keeps_the_graph():
    """matrix_power(x, 0): identities, and x gets a zero gradient (Paddle's public linalg tests)."""
    x = paddle.to_tensor(np.array([[[1.0, 2.0], [3.0, np.inf]]] * 2), stop_gradient=False)
    y = paddle.linalg.matrix_power(x, 0)
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(np.eye(2), (2, 2, 2)))
    assert not y.stop_gradient
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 2, 2)))
