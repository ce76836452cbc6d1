"""Composite tensor functions (python/paddle/tensor/math_extra.py) vs numpy, and gradients
through them vs finite differences."""
import numpy as np
import pytest

import paddle

rng = np.random.default_rng(3)


def T(a, sg=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=sg)


def fd_check(f, arrays, eps=1e-6):
    ts = [T(a, sg=False) for a in arrays]
    out = f(*ts)
    w = rng.uniform(0.5, 1.5, size=out.shape)
    loss = paddle.sum(out * T(w))
    grads = paddle.grad([loss], ts)
    for k, a in enumerate(arrays):
        num = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            fp = float((f(*[T(b) for b in arrays]).numpy() * w).sum())
            a[i] = old - eps
            fm = float((f(*[T(b) for b in arrays]).numpy() * w).sum())
            a[i] = old
            num[i] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(grads[k].numpy(), num, rtol=1e-5, atol=1e-7)


def test_values_against_numpy():
    a = rng.normal(size=(3, 4))
    b = rng.normal(size=(3, 4))
    np.testing.assert_allclose(paddle.lerp(T(a), T(b), 0.3).numpy(), a + 0.3 * (b - a))
    np.testing.assert_allclose(paddle.rad2deg(T(a)).numpy(), np.rad2deg(a))
    np.testing.assert_allclose(paddle.deg2rad(T(a)).numpy(), np.deg2rad(a))
    np.testing.assert_allclose(paddle.add_n([T(a), T(b), T(a)]).numpy(), 2 * a + b)
    np.testing.assert_allclose(paddle.addmm(T(np.ones((3, 3))), T(a), T(b.T), 0.5, 2.0).numpy(),
                               0.5 + 2.0 * a @ b.T)
    np.testing.assert_allclose(paddle.inner(T(a), T(b)).numpy(), np.inner(a, b))
    np.testing.assert_allclose(paddle.outer(T(a[0]), T(b[1])).numpy(), np.outer(a[0], b[1]))
    np.testing.assert_allclose(paddle.mv(T(a), T(b[0])).numpy(), a @ b[0])
    np.testing.assert_allclose(paddle.t(T(a)).numpy(), a.T)
    np.testing.assert_allclose(paddle.kron(T(a[:2, :2]), T(b[:2, :3])).numpy(), np.kron(a[:2, :2], b[:2, :3]))
    np.testing.assert_allclose(paddle.dist(T(a), T(b), 3).numpy(), [np.sum(np.abs(a - b) ** 3) ** (1 / 3)])
    np.testing.assert_allclose(paddle.diff(T(a), n=2, axis=0).numpy(), np.diff(a, n=2, axis=0))
    c = rng.normal(size=(4, 3))
    d = rng.normal(size=(4, 3))
    np.testing.assert_allclose(paddle.cross(T(c), T(d)).numpy(), np.cross(c, d))
    np.testing.assert_allclose(paddle.stanh(T(a)).numpy(), 1.7159 * np.tanh(0.67 * a))
    n = a.copy()
    n[0, 1] = np.nan
    np.testing.assert_allclose(paddle.nansum(T(n), axis=1).numpy(), np.nansum(n, axis=1))
    np.testing.assert_allclose(paddle.nanmean(T(n)).numpy(), [np.nanmean(n)])
    i = rng.integers(-30, 30, size=(5,))
    j = rng.integers(-30, 30, size=(5,))
    assert paddle.gcd(T(i), T(j)).tolist() == np.gcd(i, j).tolist()
    assert paddle.lcm(T(i), T(j)).tolist() == np.lcm(i, j).tolist()
    x3 = rng.normal(size=(2, 3, 4))
    y3 = rng.normal(size=(4, 3, 5))
    np.testing.assert_allclose(paddle.tensordot(T(x3), T(y3), axes=[[1, 2], [1, 0]]).numpy(),
                               np.tensordot(x3, y3, axes=[[1, 2], [1, 0]]))
    for k in range(-1, 4):
        np.testing.assert_allclose(paddle.rot90(T(x3), k, [1, 2]).numpy(), np.rot90(x3, k, (1, 2)))
    bt = paddle.broadcast_tensors([T(a[:, :1]), T(b[0])])
    assert bt[0].shape == [3, 4] and bt[1].shape == [3, 4]
    np.testing.assert_allclose(paddle.median(T(a), axis=1).numpy(), np.median(a, axis=1))
    np.testing.assert_allclose(paddle.quantile(T(a), 0.3, axis=1).numpy(), np.quantile(a, 0.3, axis=1))
    v, idx = paddle.kthvalue(T(a), 2, axis=1)
    np.testing.assert_allclose(v.numpy(), np.sort(a, axis=1)[:, 1])
    assert idx.tolist() == np.argsort(a, axis=1, kind="stable")[:, 1].tolist()
    assert paddle.is_floating_point(T(a)) and not paddle.is_complex(T(a)) and paddle.is_integer(T(i))
    assert paddle.is_empty(paddle.zeros([0])).tolist() == [True]
    assert paddle.rank(T(x3)).tolist() == [3] and paddle.shape(T(x3)).tolist() == [2, 3, 4]
    z = paddle.to_tensor([1 + 2j, 3 - 1j])
    np.testing.assert_allclose(paddle.conj(z).numpy(), np.conj(z.numpy()))
    cnt = paddle.to_tensor([5.0])
    paddle.increment(cnt, 2.0)
    assert cnt.tolist() == [7.0]


def test_gradients_through_compositions():
    a = rng.normal(size=(3, 3))
    b = rng.normal(size=(3, 3))
    fd_check(lambda x, y: paddle.lerp(x, y, 0.25), [a.copy(), b.copy()])
    fd_check(lambda x, y: paddle.kron(x, y), [a[:2, :2].copy(), b[:2, :2].copy()])
    fd_check(lambda x, y: paddle.cross(x, y), [a.copy(), b.copy()])
    fd_check(lambda x, y: paddle.tensordot(x, y, axes=1), [a.copy(), b.copy()])
    fd_check(lambda x: paddle.diff(x, axis=1), [a.copy()])
    fd_check(lambda x: paddle.median(x, axis=0), [a.copy()])
    fd_check(lambda x, y: paddle.inner(x, y), [a.copy(), b.copy()])


def test_errors():
    with pytest.raises(ValueError):
        paddle.cross(paddle.ones([2, 2]), paddle.ones([2, 2]))
    with pytest.raises(TypeError):
        paddle.gcd(paddle.ones([2]), paddle.ones([2]))
    with pytest.raises(ValueError):
        paddle.quantile(paddle.ones([3]), 1.5)
    with pytest.raises(ValueError):
        paddle.kthvalue(paddle.ones([3]), 4)
