"""paddle.tensor.tensor_extra against numpy: tril/triu, complex parts and views, diagonals,
take/put_along_axis, repeat_interleave, searchsorted, histogram, bincount, mode, crop,
shard_index, multiplex, renorm, einsum (forward and gradients), poisson, unique_consecutive."""
import numpy as np
import pytest

import paddle

rng = np.random.default_rng(0)


def T(a, sg=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = sg
    return t


def test_tril_triu_methods():
    a = rng.random((2, 3, 4))
    np.testing.assert_array_equal(paddle.tril(T(a), -1).numpy(), np.tril(a, -1))
    np.testing.assert_array_equal(T(a).triu(2).numpy(), np.triu(a, 2))
    with pytest.raises(ValueError):
        paddle.tril(T(np.ones(3)))


def test_complex_parts_and_views():
    z = (rng.random((2, 3)) + 1j * rng.random((2, 3))).astype("complex64")
    t = T(z)
    np.testing.assert_allclose(paddle.real(t).numpy(), z.real)
    np.testing.assert_allclose(t.imag().numpy(), z.imag)
    np.testing.assert_allclose(paddle.angle(t).numpy(), np.angle(z), rtol=1e-6)
    np.testing.assert_allclose(paddle.angle(T(np.array([-1.0, 0.0, 2.0]))).numpy(), np.angle([-1.0, 0.0, 2.0]))
    r = paddle.as_real(t)
    assert r.dtype == paddle.float32 and r.shape == [2, 3, 2]
    np.testing.assert_allclose(r.numpy(), np.stack([z.real, z.imag], -1))
    np.testing.assert_allclose(paddle.as_complex(r).numpy(), z)
    c = paddle.complex(T(z.real), T(z.imag))
    np.testing.assert_allclose(c.numpy(), z)
    # as_complex of a non-contiguous tensor still works (a copy is viewed)
    p = T(rng.random((2, 4)).astype("float32"))
    tp = paddle.transpose(paddle.reshape(p, [2, 2, 2]), [1, 0, 2])
    np.testing.assert_allclose(paddle.as_complex(tp).numpy(), tp.numpy()[..., 0] + 1j * tp.numpy()[..., 1])
    with pytest.raises(TypeError):
        paddle.imag(T(np.ones(2)))
    with pytest.raises(ValueError):
        paddle.as_complex(T(np.ones((2, 3))))


def test_complex_gradients():
    a, b = rng.random((2, 3)), rng.random((2, 3))
    x, y = T(a, False), T(b, False)
    z = paddle.complex(x, y)
    w1, w2 = rng.random((2, 3)), rng.random((2, 3))
    loss = paddle.sum(paddle.real(z) * T(w1)) + paddle.sum(paddle.imag(z) * T(w2))
    gx, gy = paddle.grad([loss], [x, y])
    np.testing.assert_allclose(gx.numpy(), w1)
    np.testing.assert_allclose(gy.numpy(), w2)
    x2 = T(np.stack([a, b], -1), False)
    loss2 = paddle.sum(paddle.imag(paddle.as_complex(x2)) * T(w2))
    (g,) = paddle.grad([loss2], [x2])
    np.testing.assert_allclose(g.numpy(), np.stack([np.zeros_like(w2), w2], -1))


def test_diagonal_trace_diag_embed_diagflat():
    a = rng.random((3, 4, 5))
    np.testing.assert_allclose(paddle.diagonal(T(a), 1, 1, 2).numpy(), np.diagonal(a, 1, 1, 2))
    np.testing.assert_allclose(paddle.trace(T(a), -1, 0, 2).numpy(), np.trace(a, -1, 0, 2))
    np.testing.assert_allclose(paddle.trace(T(a[0])).numpy(), [np.trace(a[0])])
    v = rng.random((2, 3))
    e = paddle.tensor.tensor_extra.diag_embed(T(v), 1)
    ref = np.zeros((2, 4, 4))
    for i in range(2):
        ref[i] = np.diag(v[i], 1)
    np.testing.assert_allclose(e.numpy(), ref)
    np.testing.assert_allclose(paddle.diagflat(T(v), -1).numpy(), np.diagflat(v, -1))
    # the diagonal is a view: writes through it are seen by x
    x = T(np.zeros((3, 3)))
    d = paddle.diagonal(x)
    d[1] = 5.0
    assert x.numpy()[1, 1] == 5.0


def test_take_put_along_axis():
    a = rng.random((3, 4))
    idx = np.array([[0, 2, 1, 1]])
    np.testing.assert_allclose(paddle.take_along_axis(T(a), T(idx), 0).numpy(), np.take_along_axis(a, idx, 0))
    idx1 = np.array([[1], [0], [3]])
    for red in ("assign", "add", "mul"):
        got = paddle.put_along_axis(T(a), T(idx1), 2.0, 1, reduce=red).numpy()
        ref = a.copy()
        for r in range(3):
            c = idx1[r, 0]
            ref[r, c] = 2.0 if red == "assign" else ref[r, c] + 2.0 if red == "add" else ref[r, c] * 2.0
        np.testing.assert_allclose(got, ref)
    x = T(a.copy())
    x.put_along_axis_(T(idx1), 7.0, 1)
    assert x.numpy()[0, 1] == 7.0
    with pytest.raises(ValueError):
        paddle.put_along_axis(T(a), T(idx1), 1.0, 1, reduce="max")
    with pytest.raises(IndexError):
        paddle.take_along_axis(T(a), T(np.array([[9]])), 1)


def test_repeat_interleave():
    a = rng.random((2, 3))
    np.testing.assert_allclose(paddle.repeat_interleave(T(a), 2).numpy(), np.repeat(a, 2))
    np.testing.assert_allclose(paddle.repeat_interleave(T(a), 2, axis=1).numpy(), np.repeat(a, 2, 1))
    r = np.array([1, 0, 3])
    np.testing.assert_allclose(T(a).repeat_interleave(T(r), axis=1).numpy(), np.repeat(a, r, 1))
    x = T(a, False)
    (g,) = paddle.grad([paddle.sum(paddle.repeat_interleave(x, T(r), 1))], [x])
    np.testing.assert_allclose(g.numpy(), np.broadcast_to(r, (2, 3)))


def test_search_and_counts():
    s = np.array([1, 3, 5, 7, 9], "float32")
    v = np.array([[3, 6, 9], [3, 4, 10]], "float32")
    np.testing.assert_array_equal(paddle.searchsorted(T(s), T(v)).numpy(), np.searchsorted(s, v))
    o = paddle.searchsorted(T(s), T(v), out_int32=True, right=True)
    assert o.dtype == paddle.int32
    np.testing.assert_array_equal(o.numpy(), np.searchsorted(s, v, "right"))
    x = np.array([1, 2, 1, 4, 5, 2, 2])
    np.testing.assert_array_equal(paddle.histogram(T(x), 5, 0, 5).numpy(), np.histogram(x, 5, (0, 5))[0])
    np.testing.assert_array_equal(paddle.bincount(T(x)).numpy(), np.bincount(x))
    w = rng.random(7)
    np.testing.assert_allclose(T(x).bincount(T(w), minlength=9).numpy(), np.bincount(x, w, 9))
    with pytest.raises(ValueError):
        paddle.bincount(T(np.array([1, -1])))
    with pytest.raises(TypeError):
        paddle.bincount(T(np.array([1.0])))


def test_mode():
    x = np.array([[1, 2, 2, 3, 3], [5, 4, 5, 4, 4]], "float32")
    v, i = paddle.mode(T(x))
    np.testing.assert_array_equal(v.numpy(), [2, 4])
    np.testing.assert_array_equal(i.numpy(), [2, 4])
    v, i = T(x).mode(axis=0, keepdim=True)
    assert v.shape == [1, 5] and i.shape == [1, 5]


def test_unique_consecutive():
    x = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    out, inv, cnt = paddle.unique_consecutive(T(x), return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 1, 2])
    np.testing.assert_array_equal(inv.numpy(), [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(cnt.numpy(), [2, 2, 1, 2, 1])
    y = np.array([[2, 1], [2, 1], [3, 0]])
    np.testing.assert_array_equal(paddle.unique_consecutive(T(y), axis=0).numpy(), [[2, 1], [3, 0]])
    z = np.array([[2, 2, 1, 1, 1], [0, 0, 5, 5, 6]])
    out, inv, cnt = paddle.unique_consecutive(T(z), return_inverse=True, return_counts=True, axis=1, dtype="int32")
    np.testing.assert_array_equal(out.numpy(), [[2, 1, 1], [0, 5, 6]])
    np.testing.assert_array_equal(inv.numpy(), [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(cnt.numpy(), [2, 2, 1])
    assert inv.dtype == paddle.int32 and cnt.dtype == paddle.int32
    # NaN equals nothing, as with numpy's !=
    f = np.array([1.0, np.nan, np.nan, 2.0, 2.0])
    out, cnt = paddle.unique_consecutive(T(f), return_counts=True)
    np.testing.assert_array_equal(cnt.numpy(), [1, 1, 1, 2])
    # a non-contiguous input (a transposed view)
    tz = T(z.T.copy()).transpose([1, 0])
    np.testing.assert_array_equal(paddle.unique_consecutive(tz).numpy(), [2, 1, 0, 5, 6])
    with pytest.raises(TypeError, match="unique_consecutive"):
        paddle.unique_consecutive(T(z), dtype="float32")


def test_crop_shard_multiplex_renorm():
    a = rng.random((3, 4))
    np.testing.assert_allclose(paddle.crop(T(a), [2, -1], [1, 1]).numpy(), a[1:3, 1:])
    with pytest.raises(ValueError):
        paddle.crop(T(a), [3, 3], [1, 0])
    lab = np.array([[16], [1], [12], [5]])
    got = paddle.shard_index(T(lab), 20, 2, 0).numpy()
    np.testing.assert_array_equal(got, [[-1], [1], [-1], [5]])
    got = paddle.shard_index(T(lab), 20, 2, 1).numpy()
    np.testing.assert_array_equal(got, [[6], [-1], [2], [-1]])
    xs = [rng.random((3, 2)) for _ in range(3)]
    idx = np.array([[2], [0], [1]], "int32")
    np.testing.assert_allclose(paddle.multiplex([T(x) for x in xs], T(idx)).numpy(),
                               np.stack([xs[2][0], xs[0][1], xs[1][2]]))
    b = rng.random((3, 4)) * 3
    got = paddle.renorm(T(b), 2, 0, 1.0).numpy()
    n = np.linalg.norm(b, axis=1, keepdims=True)
    np.testing.assert_allclose(got, np.where(n > 1, b / (n + 1e-7), b), rtol=1e-6)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("iij,jk->ik", [(3, 3, 4), (4, 2)]),
    ("ijk,ikl,ilm->im", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("i...->...", [(3, 2, 4)]),
])
def test_einsum_forward_and_grad(eq, shapes):
    arrs = [rng.random(s) for s in shapes]
    ts = [T(a, False) for a in arrs]
    got = paddle.einsum(eq, *ts)
    ref = np.einsum(eq, *arrs)
    np.testing.assert_allclose(got.numpy().reshape(np.shape(ref) or [1]), np.reshape(ref, np.shape(ref) or [1]),
                               rtol=1e-10)
    w = rng.random(got.shape)
    loss = paddle.sum(got * T(w))
    grads = paddle.grad([loss], ts)
    for k, (a, g) in enumerate(zip(arrs, grads)):
        num = np.zeros_like(a)
        flat = a.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + 1e-6
            fp = (np.einsum(eq, *arrs) * w.reshape(np.shape(np.einsum(eq, *arrs)) or [])).sum()
            flat[i] = old - 1e-6
            fm = (np.einsum(eq, *arrs) * w.reshape(np.shape(np.einsum(eq, *arrs)) or [])).sum()
            flat[i] = old
            num.reshape(-1)[i] = (fp - fm) / 2e-6
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-6, err_msg=f"operand {k}")


def test_einsum_errors():
    with pytest.raises(ValueError):
        paddle.einsum("ij,jk->ik", T(np.ones((2, 3))))
    with pytest.raises(ValueError):
        paddle.einsum("ij,jk->ik", T(np.ones((2, 3))), T(np.ones((4, 2))))
    with pytest.raises(ValueError):
        paddle.einsum("ij->iz", T(np.ones((2, 3))))


def test_poisson_and_inplace_methods():
    paddle.seed(3)
    lam = np.array([0.5, 3.0, 25.0, 400.0] * 2000, "float32")
    s = paddle.poisson(T(lam)).numpy()
    assert (s >= 0).all() and (s == np.round(s)).all()
    for k, l0 in enumerate([0.5, 3.0, 25.0, 400.0]):
        m = s[k::4]
        assert abs(m.mean() - l0) < 5 * np.sqrt(l0 / m.size) + 0.02
        assert abs(m.var() - l0) < 0.15 * l0 + 0.05
    with pytest.raises(ValueError):
        paddle.poisson(T(np.array([-1.0], "float32")))
    x = T(np.array([0.1, -0.5]))
    x.erfinv_()
    from math import erf
    np.testing.assert_allclose([erf(v) for v in x.numpy()], [0.1, -0.5], rtol=1e-6)
    assert T(np.ones(1)).is_tensor()


def test_lgamma_digamma_second_order():
    from math import lgamma
    a = np.array([0.3, 1.5, 4.0, 12.0])
    x = T(a, False)
    np.testing.assert_allclose(paddle.lgamma(x).numpy(), [lgamma(v) for v in a], rtol=1e-12)
    (g,) = paddle.grad([paddle.sum(x.lgamma())], [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), paddle.digamma(x).numpy())
    (h,) = paddle.grad([paddle.sum(g)], [x])
    h_num = [(lgamma(v + 1e-4) - 2 * lgamma(v) + lgamma(v - 1e-4)) / 1e-8 for v in a]
    np.testing.assert_allclose(h.numpy(), h_num, rtol=1e-5)
