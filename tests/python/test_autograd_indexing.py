"""Gradients through Tensor indexing (basic views, integer lists, masks, None/Ellipsis) and
through concat/split/stack/unbind chains, against finite differences and numpy."""
import numpy as np
import pytest

import paddle


def _fd(f, a, eps=1e-6):
    g = np.zeros_like(a)
    flat, gf = a.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = f(a)
        flat[i] = old - eps
        fm = f(a)
        flat[i] = old
        gf[i] = (fp - fm) / (2 * eps)
    return g


def _check(fn, shape, seed=0):
    """fn maps a paddle Tensor to a Tensor; compares d sum(w * fn(x)) / dx with central
    differences, through paddle.grad and through backward."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=shape)
    out0 = fn(paddle.to_tensor(a))
    w = rng.uniform(0.5, 1.5, size=out0.shape)

    def loss_np(v):
        return float((fn(paddle.to_tensor(v)).numpy() * w).sum())

    num = _fd(loss_np, a.copy())
    x = paddle.to_tensor(a, stop_gradient=False)
    loss = paddle.sum(fn(x) * paddle.to_tensor(w))
    (g,) = paddle.grad([loss], [x], retain_graph=True)
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-6)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-6)
    return g.numpy()


@pytest.mark.parametrize("index", [
    (slice(1, None), slice(None, None, 2)),
    (slice(None, None, -1), 2),
    (slice(3, 0, -2), slice(1, -1)),
    1,
])
def test_basic_slices(index):
    _check(lambda t: t[index], (4, 5))


def test_basic_slice_gradient_is_scatter_of_ones():
    x = paddle.to_tensor(np.zeros((4, 5)), stop_gradient=False)
    paddle.sum(x[1:, ::2]).backward()
    ref = np.zeros((4, 5))
    ref[1:, ::2] = 1
    np.testing.assert_array_equal(x.grad.numpy(), ref)


def test_integer_list_with_repeats_accumulates():
    idx = [2, 0, 2, 2]
    g = _check(lambda t: t[idx], (3, 4))
    np.testing.assert_allclose(g.sum(1) != 0, [True, False, True])
    x = paddle.to_tensor(np.ones((3, 4)), stop_gradient=False)
    paddle.sum(x[idx]).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array([[1] * 4, [0] * 4, [3] * 4]))


def test_integer_array_on_inner_axis():
    idx = np.array([1, 3, 1])
    _check(lambda t: t[:, idx], (2, 4, 3))


def test_two_integer_arrays():
    _check(lambda t: t[[0, 2, 2], [1, 0, 1]], (3, 4))


def test_mask():
    rng = np.random.default_rng(5)
    m = rng.uniform(size=(3, 4)) > 0.4
    g = _check(lambda t: t[paddle.to_tensor(m)], (3, 4))
    x = paddle.to_tensor(np.ones((3, 4)), stop_gradient=False)
    paddle.sum(x[paddle.to_tensor(m)] * 2.0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2.0 * m)
    assert g.shape == (3, 4)


def test_none_ellipsis_int():
    _check(lambda t: t[None, ..., 0], (2, 3, 4))
    x = paddle.to_tensor(np.ones((2, 3, 4)), stop_gradient=False)
    y = x[None, ..., 0]
    assert y.shape == [1, 2, 3]
    paddle.sum(y).backward()
    ref = np.zeros((2, 3, 4))
    ref[..., 0] = 1
    np.testing.assert_array_equal(x.grad.numpy(), ref)


def test_concat_split_chain():
    def f(t):
        a, b, c = paddle.split(t, [1, 2, 2], axis=1)
        return paddle.concat([c * 2.0, a, b * b], axis=1)
    _check(f, (3, 5))


def test_stack_unbind_chain():
    def f(t):
        rows = paddle.unbind(t, axis=0)
        return paddle.stack([rows[2], rows[0] * rows[1]], axis=1)
    _check(f, (3, 4))


def test_split_with_unused_outputs():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    a, b, c = paddle.split(x, 3, axis=1)
    paddle.sum(b * 3.0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 3, 0], [0, 3, 0]])


def test_concat_of_constant_and_variable():
    x = paddle.to_tensor(np.ones((2, 2)), stop_gradient=False)
    c = paddle.to_tensor(np.zeros((2, 3)))
    y = paddle.concat([c, x, c], axis=1)
    paddle.sum(y * paddle.to_tensor(np.arange(16.0).reshape(2, 8))).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3, 4], [11, 12]])


def test_second_order_through_slice():
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0, 4.0]), stop_gradient=False)
    s = x[1::2]
    y = paddle.sum(s * s * s)
    (g,) = paddle.grad([y], [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), [0, 12, 0, 48])
    (h,) = paddle.grad([paddle.sum(g)], [x])
    np.testing.assert_allclose(h.numpy(), [0, 12, 0, 24])
