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
    level23 = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]  # Paddle 2.6.2 gives 0-D
    assert paddle.is_empty(paddle.zeros([0])).tolist() == ([True] if level23 else True)
    assert paddle.rank(T(x3)).tolist() == ([3] if level23 else 3) and paddle.shape(T(x3)).tolist() == [2, 3, 4]
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


# ---------------------------------------------------------------- later Paddle additions
def _w(shape):
    return rng.uniform(0.5, 1.5, size=shape)


def test_logcumsumexp_values_and_stability():
    data = paddle.reshape(paddle.arange(12, dtype="float64"), (3, 4))
    # values printed in Paddle's documentation
    np.testing.assert_allclose(paddle.logcumsumexp(data).numpy()[:4], [0.0, 1.31326169, 2.40760596, 3.44018970],
                               rtol=1e-8)
    np.testing.assert_allclose(paddle.logcumsumexp(data, axis=0).numpy()[1], [4.01814993, 5.01814993, 6.01814993,
                                                                              7.01814993], rtol=1e-8)
    assert paddle.logcumsumexp(data, dtype="float32").dtype == paddle.float32
    assert paddle.logcumsumexp(T(np.arange(4))).dtype == paddle.float32
    a = rng.normal(size=(3, 4, 5))
    for ax in (0, 1, -1):
        np.testing.assert_allclose(data.logcumsumexp(axis=1).numpy(), np.log(np.cumsum(np.exp(data.numpy()), 1)))
        np.testing.assert_allclose(paddle.logcumsumexp(T(a), axis=ax).numpy(),
                                   np.log(np.cumsum(np.exp(a), ax)), rtol=1e-12)
    big = np.array([1000.0, 1000.0, -1000.0, 990.0, 1001.0])
    np.testing.assert_allclose(paddle.logcumsumexp(T(big)).numpy(), np.logaddexp.accumulate(big), rtol=1e-14)
    np.testing.assert_allclose(paddle.logcumsumexp(T(-big)).numpy(), np.logaddexp.accumulate(-big), rtol=1e-14)
    ninf = paddle.logcumsumexp(T(np.array([-np.inf, -np.inf, 0.0]))).numpy()
    np.testing.assert_array_equal(ninf, [-np.inf, -np.inf, 0.0])


def test_logcumsumexp_gradients():
    fd_check(lambda x: paddle.logcumsumexp(x, axis=1), [rng.normal(size=(3, 5))])
    fd_check(lambda x: paddle.logcumsumexp(x), [rng.normal(size=(2, 3))])
    # huge inputs: the gradient is the softmax-like weights sum_{j >= i} w_j exp(x_i - out_j)
    big = np.array([1000.0, 999.0, -1000.0, 1002.0, 30.0])
    x = T(big, False)
    w = _w(big.shape)
    (g,) = paddle.grad([paddle.sum(paddle.logcumsumexp(x) * T(w))], [x])
    out = np.logaddexp.accumulate(big)
    want = [sum(w[j] * np.exp(big[i] - out[j]) for j in range(i, 5)) for i in range(5)]
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)
    # second order: d/dx of (d loss/dx . v) against differences of the first gradient
    a = rng.normal(size=(2, 4))
    v = _w(a.shape)

    def first(arr, graph=False):
        t = T(arr, False)
        (gg,) = paddle.grad([paddle.sum(paddle.logcumsumexp(t, axis=1) * T(w[:4]))], [t], create_graph=graph)
        return t, gg
    t, gg = first(a, True)
    (h,) = paddle.grad([paddle.sum(gg * T(v))], [t])
    num = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        ap, am = a.copy(), a.copy()
        ap[i] += 1e-6
        am[i] -= 1e-6
        num[i] = ((first(ap)[1].numpy() - first(am)[1].numpy()) * v).sum() / 2e-6
    np.testing.assert_allclose(h.numpy(), num, rtol=1e-5, atol=1e-7)


def test_logaddexp():
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    np.testing.assert_allclose(paddle.logaddexp(T(a), T(b)).numpy(), np.logaddexp(a, b), rtol=1e-14)
    x = np.array([1000.0, -1000.0, np.inf, -np.inf, 3.0, -np.inf])
    y = np.array([999.0, -1001.0, np.inf, -np.inf, np.inf, 2.0])
    np.testing.assert_allclose(paddle.logaddexp(T(x), T(y)).numpy(), np.logaddexp(x, y), rtol=1e-14)
    assert paddle.logaddexp(T(np.array([1, 2])), T(np.array([3, 4]))).dtype == paddle.float32
    fd_check(lambda p, q: paddle.logaddexp(p, q), [a.copy(), b.copy()])
    # equal inputs split the gradient evenly
    s = T(np.array([2.0, -3.0]), False)
    (g,) = paddle.grad([paddle.sum(paddle.logaddexp(s, s * 1.0))], [s])
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0])


def test_lgamma_higher_orders_through_polygamma():
    from math import lgamma
    a = np.array([0.4, 1.5, 3.0, 7.5])
    x = T(a, False)
    (g1,) = paddle.grad([paddle.sum(paddle.lgamma(x))], [x], create_graph=True)
    (g2,) = paddle.grad([paddle.sum(g1)], [x], create_graph=True)
    (g3,) = paddle.grad([paddle.sum(g2)], [x], create_graph=True)
    (g4,) = paddle.grad([paddle.sum(g3)], [x])
    h = 1e-3
    f = np.vectorize(lgamma)
    d2 = (f(a + h) - 2 * f(a) + f(a - h)) / h ** 2
    d3 = (f(a + 2 * h) - 2 * f(a + h) + 2 * f(a - h) - f(a - 2 * h)) / (2 * h ** 3)
    np.testing.assert_allclose(g2.numpy(), d2, rtol=1e-5)
    np.testing.assert_allclose(g3.numpy(), d3, rtol=1e-3)
    # psi''(x) = -2 sum 1/(x+k)^3 and psi'''(x) = 6 sum 1/(x+k)^4 (series with their tails)
    k = np.arange(200000)[:, None]
    K = 200000 + a
    np.testing.assert_allclose(g3.numpy(), -2 * ((1 / (a + k) ** 3).sum(0) + 0.5 / K ** 2 + 0.5 / K ** 3), rtol=1e-10)
    np.testing.assert_allclose(g4.numpy(), 6 * ((1 / (a + k) ** 4).sum(0) + 1 / (3 * K ** 3) + 0.5 / K ** 4),
                               rtol=1e-10)
    np.testing.assert_allclose(paddle.polygamma(x, 3).numpy(), g4.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.polygamma(0).numpy(), paddle.digamma(x).numpy())
    with pytest.raises(ValueError, match="polygamma"):
        paddle.polygamma(x, -1)
    with pytest.raises(TypeError, match="polygamma"):
        paddle.polygamma(x, 1.5)


def test_small_elementwise_functions():
    x = np.array([-1.5, 0.0, 2.0, 0.0, -0.0])
    y = np.array([7.0, 0.5, 3.0, 0.25, 4.0])
    np.testing.assert_array_equal(paddle.heaviside(T(x), T(y)).numpy(), np.heaviside(x, y))
    np.testing.assert_array_equal(paddle.heaviside(T(x), T(np.array([0.5]))).numpy(), np.heaviside(x, 0.5))
    xi = np.array([-3, 0, 5, 0])
    np.testing.assert_array_equal(paddle.heaviside(T(xi), T(np.array([7]))).numpy(), np.heaviside(xi, 7))
    xs, ys = T(x, False), T(y, False)
    gx, gy = paddle.grad([paddle.sum(paddle.heaviside(xs, ys) * T(np.arange(5.0)))], [xs, ys])
    np.testing.assert_array_equal(gx.numpy(), 0 * x)
    np.testing.assert_array_equal(gy.numpy(), np.where(x == 0, np.arange(5.0), 0))
    f = np.array([-2.75, -0.5, 0.0, 1.25, 3.5])
    np.testing.assert_array_equal(paddle.frac(T(f)).numpy(), f - np.trunc(f))
    np.testing.assert_array_equal(paddle.frac(T(np.array([3, -4]))).numpy(), [0, 0])
    fd_check(lambda t: paddle.frac(t), [np.array([0.3, -1.7, 2.2])])
    c = np.array([3 + 4j, 0j, -2j, 1 - 1j])
    np.testing.assert_allclose(paddle.sgn(T(c)).numpy(), np.where(c == 0, 0, c / np.where(c == 0, 1, np.abs(c))))
    np.testing.assert_array_equal(paddle.sgn(T(f)).numpy(), np.sign(f))
    m = rng.integers(-1, 2, size=(3, 4))
    np.testing.assert_array_equal(paddle.count_nonzero(T(m)).numpy().reshape(-1), [np.count_nonzero(m)])
    np.testing.assert_array_equal(paddle.count_nonzero(T(m), axis=1).numpy(), np.count_nonzero(m, axis=1))
    np.testing.assert_array_equal(T(m).count_nonzero(axis=[0, 1], keepdim=True).numpy(),
                                  np.count_nonzero(m, axis=(0, 1), keepdims=True))
    assert paddle.count_nonzero(T(m)).dtype == paddle.int64
    seq = np.array([2, 4, 6, 8, 10])
    v = np.array([[3, 6, 9], [3, 4, 10]])
    np.testing.assert_array_equal(paddle.bucketize(T(v), T(seq)).numpy(), np.searchsorted(seq, v))
    np.testing.assert_array_equal(paddle.bucketize(T(v), T(seq), right=True, out_int32=True).numpy(),
                                  np.searchsorted(seq, v, "right"))
    assert paddle.bucketize(T(v), T(seq), out_int32=True).dtype == paddle.int32
    with pytest.raises(ValueError, match="bucketize"):
        paddle.bucketize(T(v), T(v))


def test_tril_triu_indices():
    for r, c, o in ((4, 4, 0), (4, 3, 1), (3, 5, -1), (5, 2, 3), (2, 6, -4)):
        np.testing.assert_array_equal(paddle.tril_indices(r, c, o).numpy(), np.stack(np.tril_indices(r, o, c)))
        np.testing.assert_array_equal(paddle.triu_indices(r, c, o).numpy(), np.stack(np.triu_indices(r, o, c)))
    np.testing.assert_array_equal(paddle.triu_indices(3).numpy(), np.stack(np.triu_indices(3)))
    assert paddle.tril_indices(3, 3, 0, "int32").dtype == paddle.int32
    with pytest.raises(ValueError, match="tril_indices"):
        paddle.tril_indices(-1, 3)


def _cdist_np(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(a.dtype)
    if np.isinf(p):
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


def test_cdist():
    a = np.array([[0.9041, 0.0196], [-0.3108, -2.4423], [-0.4821, 1.059]])
    b = np.array([[-2.1763, -0.4713], [-0.6986, 1.3702]])
    # values printed in Paddle's documentation
    np.testing.assert_allclose(paddle.cdist(T(a.astype("float32")), T(b.astype("float32"))).numpy(),
                               [[3.1193, 2.0959], [2.7138, 3.8322], [2.2830, 0.3791]], atol=1e-4)
    x, y = rng.normal(size=(2, 30, 4)), rng.normal(size=(1, 6, 4))
    x[0, 3] = y[0, 2]
    for p in (0.0, 1.0, 1.5, 2.0, 3.0, float("inf")):
        for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
            np.testing.assert_allclose(paddle.cdist(T(x), T(y), p, mode).numpy(), _cdist_np(x, y, p),
                                       rtol=1e-7, atol=1e-7, err_msg=f"p={p} {mode}")
    xs, ys = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    for p in (1.0, 2.0, 3.0):
        fd_check(lambda s, t: paddle.cdist(s, t, p), [xs.copy(), ys.copy()])
    fd_check(lambda s, t: paddle.cdist(s, t, compute_mode="use_mm_for_euclid_dist"), [xs.copy(), ys.copy()])
    # equal rows through the matrix product: distance 0 with a finite (zero) gradient
    s = T(xs, False)
    d = paddle.cdist(s, T(xs), compute_mode="use_mm_for_euclid_dist")
    (g,) = paddle.grad([paddle.sum(paddle.diagonal(d))], [s])
    assert np.isfinite(g.numpy()).all()
    with pytest.raises(ValueError, match="cdist"):
        paddle.cdist(T(xs), T(ys), compute_mode="fast")
    with pytest.raises(ValueError, match="cdist"):
        paddle.cdist(T(xs), T(rng.normal(size=(2, 3))))


def test_index_add():
    x = np.ones((5, 3))
    v = np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])
    idx = np.array([0, 4, 2])
    want = x.copy()
    np.add.at(want, idx, v)
    np.testing.assert_array_equal(paddle.index_add(T(x), T(idx), 0, T(v)).numpy(), want)
    dup = np.array([1, 1])
    v2 = rng.normal(size=(4, 2))
    want2 = np.zeros((4, 3))
    np.add.at(want2, (slice(None), dup), v2)
    np.testing.assert_allclose(paddle.index_add(T(np.zeros((4, 3))), T(dup.astype("int32")), -1, T(v2)).numpy(),
                               want2)
    fd_check(lambda a, b: paddle.index_add(a, T(np.array([2, 0, 2])), 1, b), [rng.normal(size=(2, 3)),
                                                                              rng.normal(size=(2, 3))])
    t = T(x)
    t.index_add_(T(idx), 0, T(v))
    np.testing.assert_array_equal(t.numpy(), want)
    with pytest.raises(TypeError, match="index_add"):
        paddle.index_add(T(x), T(idx), 0, T(v.astype("float32")))
    with pytest.raises(ValueError, match="index_add"):
        paddle.index_add(T(x), T(idx), 0, T(v[:2]))


def test_index_put():
    # the example of Paddle's documentation
    out = paddle.index_put(paddle.zeros([3, 3]), (T(np.array([0, 1, 2])), T(np.array([1, 2, 1]))), paddle.ones([3]))
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 0], [0, 0, 1], [0, 1, 0]])
    a = rng.normal(size=(4, 3, 2))
    i0, i1 = np.array([[0, 3], [2, -1]]), np.array([1, 2])
    v = rng.normal(size=(2, 2, 2))
    want = a.copy()
    want[i0, i1] = v
    np.testing.assert_allclose(paddle.index_put(T(a), (T(i0), T(i1)), T(v)).numpy(), want)
    acc = a.copy()
    j = np.array([1, 1, 0])
    vv = rng.normal(size=(3, 3, 2))
    np.add.at(acc, j, vv)
    np.testing.assert_allclose(paddle.index_put(T(a), (T(j),), T(vv), accumulate=True).numpy(), acc)
    mask = rng.random((4, 3)) > 0.5
    want3 = a.copy()
    want3[mask] = 2.5
    np.testing.assert_allclose(paddle.index_put(T(a), (T(mask),), T(np.array([2.5]))).numpy(), want3)
    fd_check(lambda s, t: paddle.index_put(s, (T(np.array([2, 0])),), t), [rng.normal(size=(3, 2)),
                                                                           rng.normal(size=(2, 2))])
    fd_check(lambda s, t: paddle.index_put(s, (T(np.array([1, 1])), T(np.array([0, 1]))), t, True),
             [rng.normal(size=(3, 2)), rng.normal(size=(2,))])
    t = T(a)
    t.index_put_((T(i0), T(i1)), T(v))
    np.testing.assert_allclose(t.numpy(), want)
    with pytest.raises(IndexError, match="index_put"):
        paddle.index_put(T(a), (T(np.array([4])),), T(np.array([1.0])))
    with pytest.raises(ValueError, match="index_put"):
        paddle.index_put(T(a), (T(i0),), T(rng.normal(size=(3,))))


def test_masked_fill():
    a = rng.normal(size=(3, 4))
    m = rng.random((3, 4)) > 0.5
    np.testing.assert_array_equal(paddle.masked_fill(T(a), T(m), 2.0).numpy(), np.where(m, 2.0, a))
    np.testing.assert_array_equal(paddle.masked_fill(T(a), T(m[:1]), -1.0).numpy(), np.where(m[:1], -1.0, a))
    xs, vs = T(a, False), T(np.array([3.0]), False)
    gx, gv = paddle.grad([paddle.sum(paddle.masked_fill(xs, T(m), vs) * T(np.arange(12.0).reshape(3, 4)))],
                         [xs, vs])
    np.testing.assert_array_equal(gx.numpy(), np.where(m, 0, np.arange(12.0).reshape(3, 4)))
    np.testing.assert_array_equal(gv.numpy(), [np.arange(12.0).reshape(3, 4)[m].sum()])
    t = T(a)
    t.masked_fill_(T(m), 0.0)
    np.testing.assert_array_equal(t.numpy(), np.where(m, 0.0, a))
    with pytest.raises(TypeError, match="masked_fill"):
        paddle.masked_fill(T(a), T(m.astype("int32")), 1.0)


def test_unfold_is_a_view():
    x = paddle.arange(9, dtype="float64")
    np.testing.assert_array_equal(paddle.unfold(x, 0, 2, 4).numpy(), [[0, 1], [4, 5]])  # Paddle's doc
    a = rng.normal(size=(2, 7, 3))
    t = T(a)
    u = t.unfold(1, 3, 2)
    want = np.stack([a[:, 2 * w:2 * w + 3, :] for w in range(3)], 1).transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(u.numpy(), want)
    # shares storage both ways
    t[0, 2, 1] = 100.0
    assert u.numpy()[0, 0, 1, 2] == 100.0 and u.numpy()[0, 1, 1, 0] == 100.0
    u[1, 2, 0, 2] = -7.0
    assert t.numpy()[1, 6, 0] == -7.0
    fd_check(lambda s: s.unfold(0, 3, 1), [rng.normal(size=(5, 2))])
    fd_check(lambda s: paddle.unfold(s, -1, 2, 3), [rng.normal(size=(2, 8))])
    with pytest.raises(ValueError, match="tensor_unfold"):
        x.unfold(0, 10, 1)
    with pytest.raises(ValueError, match="tensor_unfold"):
        x.unfold(0, 2, 0)


def test_put_along_axis_mul_gradient_with_zeros_and_repeats():
    idx = np.array([[0, 2, 1], [0, 2, 1]])

    def f(a, v):
        return paddle.put_along_axis(a, T(idx), v, 0, reduce="mul")
    a = rng.normal(size=(3, 3))
    v = np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 0.5]])  # zeros, and repeated targets per column
    want = a.copy()
    for r in range(2):
        for c in range(3):
            want[idx[r, c], c] *= v[r, c]
    np.testing.assert_allclose(f(T(a), T(v)).numpy(), want)
    fd_check(f, [a.copy(), v.copy()])
    # second order through the repeated positions: d/d(x, v) of (dL/dv . u) vs differences
    w, u = _w(a.shape), _w(v.shape)

    def gv(arr, varr, graph=False):
        xs, vs = T(arr, False), T(varr, False)
        (g,) = paddle.grad([paddle.sum(f(xs, vs) * T(w))], [vs], create_graph=graph)
        return xs, vs, g
    xs, vs, g = gv(a, v, True)
    hx, hv = paddle.grad([paddle.sum(g * T(u))], [xs, vs])
    for arr, h, k in ((a, hx, 0), (v, hv, 1)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            p_, m_ = arr.copy(), arr.copy()
            p_[i] += 1e-6
            m_[i] -= 1e-6
            args_p = (p_, v) if k == 0 else (a, p_)
            args_m = (m_, v) if k == 0 else (a, m_)
            num[i] = ((gv(*args_p)[2].numpy() - gv(*args_m)[2].numpy()) * u).sum() / 2e-6
        np.testing.assert_allclose(h.numpy(), num, rtol=1e-6, atol=1e-8)
    # a position written three times: the third derivative in values is not implemented
    idx3 = np.array([[1], [1], [1]])
    vs = T(np.array([[2.0], [3.0], [0.5]]), False)
    y = paddle.put_along_axis(T(a[:, :1]), T(idx3), vs, 0, reduce="mul")
    (g1,) = paddle.grad([paddle.sum(y)], [vs], create_graph=True)
    np.testing.assert_allclose(g1.numpy().ravel(), a[1, 0] * np.array([1.5, 1.0, 6.0]))
    (g2,) = paddle.grad([paddle.sum(g1)], [vs], create_graph=True)
    np.testing.assert_allclose(g2.numpy().ravel(), a[1, 0] * np.array([3.5, 2.5, 5.0]))
    with pytest.raises(NotImplementedError, match="put_along_axis"):
        paddle.grad([paddle.sum(g2)], [vs])
