"""paddle.linalg against numpy.linalg (forward) and central finite differences (gradients),
plus the error paths (singular / not positive definite -> ValueError naming the op)."""
import numpy as np
import pytest

import paddle

rng = np.random.default_rng(7)


def _spd(*shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _fd_check(f, arrays, sym=False, eps=1e-6, tol=1e-5):
    """gradient of sum(w * f(*tensors)) vs central differences (complex outputs: sum(w * real +
    w2 * imag), a real function of them); sym: perturb (i,j) and (j,i) together (functions of a
    symmetric matrix) and compare with g_ij + g_ji."""
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    out = f(*ts)
    w = rng.uniform(0.5, 1.5, size=out.shape)
    cplx = out.dtype.name.startswith("complex")
    w2 = rng.uniform(-1.5, 1.5, size=out.shape)
    if cplx:
        loss = paddle.sum(paddle.real(out) * paddle.to_tensor(w)) + paddle.sum(paddle.imag(out) * paddle.to_tensor(w2))
        w = w + 1j * w2  # (o * conj(w)).real = re(o) w + im(o) w2 below
    else:
        loss = paddle.sum(out * paddle.to_tensor(w))
    grads = paddle.grad([loss], ts)
    for k, (a, g) in enumerate(zip(arrays, grads)):
        g = g.numpy()
        num = np.zeros_like(a)
        it = np.nditer(a, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            if sym and idx[-1] < idx[-2]:
                continue
            d = np.zeros_like(a)
            d[idx] = eps
            if sym:
                d[idx[:-2] + (idx[-1], idx[-2])] = eps
            fp = float((f(*[paddle.to_tensor(b + d if j == k else b) for j, b in enumerate(arrays)]).numpy()
                        * np.conj(w)).real.sum())
            fm = float((f(*[paddle.to_tensor(b - d if j == k else b) for j, b in enumerate(arrays)]).numpy()
                        * np.conj(w)).real.sum())
            num[idx] = (fp - fm) / (2 * eps)
        if sym:
            gs = g + np.swapaxes(g, -1, -2) - g * np.eye(a.shape[-1])
            mask = np.triu(np.ones(a.shape[-2:], bool))
            np.testing.assert_allclose(gs[..., mask], num[..., mask], rtol=tol, atol=tol)
        else:
            np.testing.assert_allclose(g, num, rtol=tol, atol=tol)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_inv_det_slogdet(dt):
    a = rng.standard_normal((2, 3, 4, 4)).astype(dt)
    x = paddle.to_tensor(a)
    tol = 1e-4 if dt == "float32" else 1e-10
    np.testing.assert_allclose(paddle.linalg.inv(x).numpy(), np.linalg.inv(a), rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(paddle.linalg.det(x).numpy(), np.linalg.det(a), rtol=tol, atol=tol)
    s, l = np.linalg.slogdet(a)
    np.testing.assert_allclose(paddle.linalg.slogdet(x).numpy(), np.stack([s, l]), rtol=tol, atol=tol)
    assert paddle.linalg.inv(x).dtype == x.dtype
    np.testing.assert_allclose(x.inverse().numpy(), np.linalg.inv(a), rtol=tol * 10, atol=tol * 10)


def test_singular():
    z = paddle.to_tensor(np.ones((3, 3)))
    with pytest.raises(ValueError, match="inverse"):
        paddle.linalg.inv(z)
    with pytest.raises(ValueError, match="solve"):
        paddle.linalg.solve(z, paddle.to_tensor(np.ones((3, 1))))
    with pytest.raises(ValueError, match="cholesky"):
        paddle.linalg.cholesky(paddle.to_tensor(-np.eye(3)))
    with pytest.raises(ValueError, match="inverse"):
        paddle.linalg.inv(paddle.to_tensor(np.ones((2, 3))))
    np.testing.assert_allclose(paddle.linalg.det(z).numpy(), [0.0])
    sl = paddle.linalg.slogdet(z).numpy().reshape(2)  # [2, 1] at Paddle 2.3's level, [2] at 2.6's
    assert sl[0] == 0 and np.isneginf(sl[1])


def test_solve_broadcast_and_vector():
    a = rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((3, 2))
    out = paddle.linalg.solve(paddle.to_tensor(a), paddle.to_tensor(b))
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)
    v = rng.standard_normal(3)
    out = paddle.linalg.solve(paddle.to_tensor(a[0]), paddle.to_tensor(v))
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a[0], v), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_and_solve(upper):
    a = _spd(2, 4, 4)
    L = np.linalg.cholesky(a)
    ref = np.swapaxes(L, -1, -2) if upper else L
    c = paddle.linalg.cholesky(paddle.to_tensor(a), upper=upper)
    np.testing.assert_allclose(c.numpy(), ref, rtol=1e-10, atol=1e-10)
    b = rng.standard_normal((2, 4, 3))
    out = paddle.linalg.cholesky_solve(paddle.to_tensor(b), c, upper=upper)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, b), rtol=1e-8, atol=1e-8)
    _fd_check(lambda t: paddle.linalg.cholesky(t, upper=upper), [a], sym=True)
    _fd_check(lambda t, u: paddle.linalg.cholesky_solve(t, u, upper=upper),
              [b, ref + 0.0])


def test_triangular_solve():
    a = np.triu(rng.uniform(1, 2, (3, 3)))
    b = rng.standard_normal((2, 3, 2))
    out = paddle.linalg.triangular_solve(paddle.to_tensor(a), paddle.to_tensor(b))
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)
    out = paddle.linalg.triangular_solve(paddle.to_tensor(a), paddle.to_tensor(b), transpose=True)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a.T, b), rtol=1e-10, atol=1e-10)


def test_gradients():
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    _fd_check(paddle.linalg.inv, [a])
    _fd_check(paddle.linalg.det, [a])
    _fd_check(lambda t: paddle.linalg.slogdet(t)[1], [a])
    _fd_check(paddle.linalg.solve, [a, b])
    _fd_check(lambda t: paddle.linalg.matrix_power(t, 3), [a[0]])
    _fd_check(lambda t: paddle.linalg.matrix_power(t, -2), [a[0]])


def test_matrix_power_multi_dot_cov_norm():
    a = rng.standard_normal((2, 3, 3))
    for n in (-2, 0, 1, 5):
        np.testing.assert_allclose(paddle.linalg.matrix_power(paddle.to_tensor(a), n).numpy(),
                                   np.linalg.matrix_power(a, n), rtol=1e-8, atol=1e-8)
    ms = [rng.standard_normal(s) for s in [(4,), (4, 3), (3, 5), (5,)]]
    np.testing.assert_allclose(paddle.linalg.multi_dot([paddle.to_tensor(m) for m in ms]).numpy(),
                               np.linalg.multi_dot(ms), rtol=1e-10)
    x = rng.standard_normal((3, 6))
    fw = rng.integers(1, 4, 6)
    aw = rng.uniform(0.5, 2, 6)
    np.testing.assert_allclose(paddle.linalg.cov(paddle.to_tensor(x)).numpy(), np.cov(x), rtol=1e-10)
    np.testing.assert_allclose(paddle.linalg.cov(paddle.to_tensor(x), rowvar=False, ddof=False).numpy(),
                               np.cov(x, rowvar=False, ddof=0), rtol=1e-10)
    got = paddle.linalg.cov(paddle.to_tensor(x), fweights=paddle.to_tensor(fw),
                            aweights=paddle.to_tensor(aw)).numpy()
    np.testing.assert_allclose(got, np.cov(x, fweights=fw, aweights=aw), rtol=1e-10)
    assert paddle.linalg.norm is paddle.norm


# ---------------------------------------------------------------- decompositions
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 4)])
def test_qr_svd(dt, shape):
    a = rng.standard_normal(shape).astype(dt)
    x = paddle.to_tensor(a)
    tol = 1e-4 if dt == "float32" else 1e-10
    for mode in ("reduced", "complete"):
        q, r = paddle.linalg.qr(x, mode=mode)
        qn, rn = np.linalg.qr(a, mode=mode)
        assert q.shape == list(qn.shape) and r.shape == list(rn.shape)
        np.testing.assert_allclose(q.numpy() @ r.numpy(), a, rtol=tol, atol=tol)
        np.testing.assert_allclose(np.abs(r.numpy()), np.abs(rn), rtol=tol, atol=tol)
        np.testing.assert_allclose(np.tril(r.numpy()[..., :, :], -1)[..., :r.shape[-2], :], 0 * rn, atol=0)
    assert paddle.linalg.qr(x, mode="r").shape == list(np.linalg.qr(a, mode="r").shape)
    for full in (False, True):
        u, s, vh = paddle.linalg.svd(x, full_matrices=full)
        un, sn, vhn = np.linalg.svd(a, full_matrices=full)
        assert [u.shape, s.shape, vh.shape] == [list(un.shape), list(sn.shape), list(vhn.shape)]
        np.testing.assert_allclose(s.numpy(), sn, rtol=tol, atol=tol)
        k = sn.shape[-1]
        np.testing.assert_allclose((u.numpy()[..., :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :], a,
                                   rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_eigvalsh(uplo):
    a = _spd(2, 4, 4) - 3 * np.eye(4)
    tri = np.tril(a) if uplo == "L" else np.triu(a)
    w, v = paddle.linalg.eigh(paddle.to_tensor(tri), UPLO=uplo)
    wn, vn = np.linalg.eigh(a)
    np.testing.assert_allclose(w.numpy(), wn, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(vn), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(paddle.linalg.eigvalsh(paddle.to_tensor(a)).numpy(), wn, rtol=1e-10, atol=1e-10)
    _fd_check(lambda t: paddle.linalg.eigvalsh(t), [a], sym=True)
    _fd_check(lambda t: paddle.linalg.eigh(t)[1] ** 2, [a], sym=True)


def test_eig_eigvals():
    a = rng.standard_normal((2, 4, 4))
    w, v = paddle.linalg.eig(paddle.to_tensor(a))
    assert w.dtype.name == "complex128" and v.dtype.name == "complex128"
    wn = np.linalg.eigvals(a)
    np.testing.assert_allclose(np.sort_complex(w.numpy()), np.sort_complex(wn), rtol=1e-10, atol=1e-10)
    # A v = v diag(w)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy()[..., None, :], rtol=1e-8, atol=1e-8)
    w32 = paddle.linalg.eigvals(paddle.to_tensor(a.astype("float32")))
    assert w32.dtype.name == "complex64"


def test_eigvals_order_is_paddles():
    # Paddle 2.6.2's eigvals gives the eigenvalues of x^T in LAPACK's order, which can differ
    # from eig's; these are the values it printed for this matrix (and it is not differentiable)
    rs = np.random.RandomState(0)
    rs.randn(3, 4)
    m = rs.randn(5, 5)
    x = paddle.to_tensor(m, stop_gradient=False)
    want = [0.0424 + 2.6179j, 0.0424 - 2.6179j, 2.7363, 0.954 + 1.3479j, 0.954 - 1.3479j]
    for t in (x, paddle.to_tensor(m.astype("float32"))):
        e = paddle.linalg.eigvals(t)
        assert e.stop_gradient
        np.testing.assert_allclose(e.numpy(), want, atol=1e-4)
    np.testing.assert_allclose(paddle.linalg.eig(x)[0].numpy(), [want[i] for i in (2, 3, 4, 0, 1)], atol=1e-4)
    b = paddle.linalg.eigvals(paddle.to_tensor(np.stack([m, m.T])))
    np.testing.assert_allclose(b.numpy()[0], want, atol=1e-4)
    np.testing.assert_allclose(np.sort_complex(b.numpy()[1]), np.sort_complex(np.array(want)), atol=1e-4)


def test_lu_unpack():
    for shape in [(2, 4, 4), (3, 5), (5, 3)]:
        a = rng.standard_normal(shape)
        lu, piv, info = paddle.linalg.lu(paddle.to_tensor(a), get_infos=True)
        assert piv.dtype.name == "int32" and (info.numpy() == 0).all()
        P, L, U = paddle.linalg.lu_unpack(lu, piv)
        np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), a, rtol=1e-10, atol=1e-10)


def test_pinv_rank_lstsq_cond():
    a = rng.standard_normal((2, 5, 3))
    x = paddle.to_tensor(a)
    np.testing.assert_allclose(paddle.linalg.pinv(x).numpy(), np.linalg.pinv(a), rtol=1e-8, atol=1e-8)
    s = _spd(4, 4)
    np.testing.assert_allclose(paddle.linalg.pinv(paddle.to_tensor(s), hermitian=True).numpy(),
                               np.linalg.inv(s), rtol=1e-8, atol=1e-8)
    low = a[0] @ rng.standard_normal((3, 3))
    low[:, 2] = low[:, 0] + low[:, 1]
    assert paddle.linalg.matrix_rank(paddle.to_tensor(low)).numpy().item() == 2
    np.testing.assert_array_equal(paddle.linalg.matrix_rank(x).numpy(), np.linalg.matrix_rank(a))
    b = rng.standard_normal((5, 2))
    sol, res, rank, sv = paddle.linalg.lstsq(paddle.to_tensor(a[0]), paddle.to_tensor(b))
    soln, resn, rankn, svn = np.linalg.lstsq(a[0], b, rcond=None)
    np.testing.assert_allclose(sol.numpy(), soln, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(res.numpy(), resn, rtol=1e-8, atol=1e-8)
    assert rank.numpy().item() == rankn
    sq = rng.standard_normal((2, 4, 4))
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        np.testing.assert_allclose(paddle.linalg.cond(paddle.to_tensor(sq), p=p).numpy(), np.linalg.cond(sq, p=p),
                                   rtol=1e-8, err_msg=str(p))


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5), (2, 4, 3), (2, 2, 4)])
def test_qr_gradient(shape):
    a = rng.standard_normal(shape)
    _fd_check(lambda t: paddle.linalg.qr(t)[0], [a])
    _fd_check(lambda t: paddle.linalg.qr(t)[1], [a])
    _fd_check(lambda t: paddle.linalg.qr(t, mode="r"), [a])
    if shape[-2] <= shape[-1]:  # Q square: complete is the reduced factorization
        _fd_check(lambda t: paddle.linalg.qr(t, mode="complete")[0], [a])
    else:
        x = paddle.to_tensor(a, stop_gradient=False)
        q, r = paddle.linalg.qr(x, mode="complete")
        with pytest.raises(NotImplementedError, match="qr"):
            paddle.sum(q).backward()


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1)])
def test_lu_gradient(shape):
    a = rng.standard_normal(shape)
    _fd_check(lambda t: paddle.linalg.lu(t)[0], [a])
    x = paddle.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="square"):
        paddle.sum(paddle.linalg.lu(x)[0]).backward()


def test_eig_gradient():
    # eigenvalues of a general matrix (a complex pair included): weighted real and imaginary parts
    a = np.array([[0.5, -2.0, 0.3], [1.5, 0.2, -0.4], [0.1, 0.7, -1.1]])
    assert np.iscomplex(np.linalg.eigvals(a)).any()
    _fd_check(lambda t: paddle.linalg.eig(t)[0], [a])
    _fd_check(lambda t: paddle.linalg.eig(t)[0], [rng.standard_normal((2, 4, 4))])
    # real spectrum: real unit eigenvectors, any weighted function of their parts
    s = rng.standard_normal((4, 4)) + 2 * np.eye(4)
    b = s @ np.diag([1.0, 2.0, -3.0, 0.5]) @ np.linalg.inv(s)
    _fd_check(lambda t: paddle.linalg.eig(t)[1], [b])
    # complex eigenvectors are defined up to a phase: a phase-invariant function of them
    _fd_check(lambda t: (lambda v: v * paddle.conj(v[0:1, :]))(paddle.linalg.eig(t)[1]), [a])
    _fd_check(lambda t: paddle.abs(paddle.linalg.eig(t)[1]), [a])


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_svd_full_matrices_gradient(shape):
    # the gradient reaches the first min(m, n) columns of U / rows of VH (the rest are arbitrary)
    a = rng.standard_normal(shape)
    k = min(shape[-2:])
    _fd_check(lambda t: paddle.linalg.svd(t, full_matrices=True)[1], [a])
    _fd_check(lambda t: paddle.linalg.svd(t, full_matrices=True)[0][..., :k] ** 2, [a])
    _fd_check(lambda t: paddle.linalg.svd(t, full_matrices=True)[2][..., :k, :] ** 2, [a])


def test_batched_kernels_split_across_threads():
    # more small matrices than threads: the batch runs one matrix per thread
    n, nb = 5, 4 * max(paddle._C.get_num_threads(), 2) + 3
    a = rng.standard_normal((nb, n, n)) + 3 * np.eye(n)
    spd = a @ np.swapaxes(a, -1, -2) + np.eye(n)
    y = rng.standard_normal((nb, n, 2))
    x = paddle.to_tensor(a)
    np.testing.assert_allclose(paddle.linalg.inv(x).numpy(), np.linalg.inv(a), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(paddle.linalg.det(x).numpy(), np.linalg.det(a), rtol=1e-9)
    np.testing.assert_allclose(paddle.linalg.solve(x, paddle.to_tensor(y)).numpy(), np.linalg.solve(a, y),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(paddle.linalg.cholesky(paddle.to_tensor(spd)).numpy(), np.linalg.cholesky(spd),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(paddle.linalg.triangular_solve(x, paddle.to_tensor(y)).numpy(),
                               np.linalg.solve(np.triu(a), y), rtol=1e-9, atol=1e-9)
    q, r = paddle.linalg.qr(x)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(paddle.linalg.svd(x)[1].numpy(), np.linalg.svd(a)[1], rtol=1e-9)
    np.testing.assert_allclose(paddle.linalg.eigh(paddle.to_tensor(spd))[0].numpy(), np.linalg.eigh(spd)[0],
                               rtol=1e-9)
    np.testing.assert_allclose(np.sort_complex(paddle.linalg.eigvals(x).numpy()),
                               np.sort_complex(np.linalg.eigvals(a)), rtol=1e-8, atol=1e-8)
    lu, piv = paddle.linalg.lu(x)
    P, L, U = paddle.linalg.lu_unpack(lu, piv)
    np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), a, rtol=1e-9, atol=1e-9)
    # the reported batch is the first singular / indefinite one, whichever thread met it
    bad = a.copy()
    bad[nb - 2] = 1.0
    bad[3] = 0.0
    with pytest.raises(ValueError, match=r"inverse.*batch 3\b"):
        paddle.linalg.inv(paddle.to_tensor(bad))
    with pytest.raises(ValueError, match=r"solve.*batch 3\b"):
        paddle.linalg.solve(paddle.to_tensor(bad), paddle.to_tensor(y))
    nspd = spd.copy()
    nspd[nb - 1] *= -1
    nspd[5] *= -1
    with pytest.raises(ValueError, match=r"cholesky.*batch 5\b"):
        paddle.linalg.cholesky(paddle.to_tensor(nspd))


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 3)])
def test_svd_gradient(shape):
    a = rng.standard_normal(shape)
    _fd_check(lambda t: paddle.linalg.svd(t)[1], [a])
    _fd_check(lambda t: paddle.linalg.svd(t)[0] ** 2, [a])
    _fd_check(lambda t: paddle.linalg.svd(t)[2] ** 2, [a])
    _fd_check(lambda t: paddle.linalg.pinv(t), [a])
