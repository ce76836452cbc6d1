"""Paddle 2.6 module names (issue 23): paddle.distribution Bernoulli / Cauchy / Geometric / Gumbel /
Laplace / LogNormal, paddle.optimizer.lr LinearLR / CosineAnnealingWarmRestarts,
paddle.io.ConcatDataset, paddle.amp.is_float16_supported / is_bfloat16_supported,
paddle.autograd.jacobian / hessian, paddle.linalg.corrcoef. Deterministic values are checked
against real Paddle 2.6.2's (tools/oracle/api26_modules.py -> data/api26_modules_expected.json),
against numpy / closed forms, and sampling against the distributions' moments."""
import json
import math
import os

import numpy as np
import pytest

import paddle

D = paddle.distribution
T = paddle.to_tensor
with open(os.path.join(os.path.dirname(__file__), 'data', 'api26_modules_expected.json')) as _f:
    EXP = json.load(_f)


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, 'numpy') else got,
                                          dtype='float64').ravel(),
                               np.asarray(want, dtype='float64').ravel(), rtol=rtol, atol=atol)


# -- distributions: values against real Paddle --------------------------------------------------
def test_bernoulli_values():
    e = EXP['bernoulli']
    b, b2 = D.Bernoulli(T([0.2, 0.5, 0.9, 0.7])), D.Bernoulli(T([0.4, 0.3, 0.6, 0.1]))
    v = T([0.0, 1.0, 1.0, 0.0])
    close(b.log_prob(v), e['log_prob'])
    close(b.prob(v), e['prob'])
    close(b.cdf(T([-0.5, 0.0, 0.5, 1.0])), e['cdf'])
    close(b.entropy(), e['entropy'])
    close(b.mean, e['mean'])
    close(b.variance, e['variance'])
    close(D.kl_divergence(b, b2), e['kl'])
    p = np.array([0.2, 0.5, 0.9, 0.7])
    close(b.log_prob(v), np.where([0, 1, 1, 0], np.log(p), np.log1p(-p)))


def test_cauchy_values():
    e = EXP['cauchy']
    loc, scale = np.array([0.0, 1.0, -1.0]), np.array([1.0, 2.0, 0.5])
    c = D.Cauchy(T(loc.astype('float32')), T(scale.astype('float32')))
    x = np.array([-1.5, 0.3, 2.0])
    xt = T(x.astype('float32'))
    close(c.log_prob(xt), e['log_prob'])
    close(c.prob(xt), 1 / (np.pi * scale * (1 + ((x - loc) / scale) ** 2)), rtol=1e-5)
    close(c.cdf(xt), e['cdf'])
    close(c.entropy(), e['entropy'])
    close(c.kl_divergence(D.Cauchy(T([0.5, 0.5, 0.5]), T([1.5, 1.5, 1.5]))), e['kl'])
    close(D.kl_divergence(D.Cauchy(0.5, 1.5), D.Cauchy(0.0, 1.0)), e['kl_scalar'])
    for attr in ('mean', 'variance', 'stddev'):
        with pytest.raises(ValueError, match='Cauchy distribution has no'):
            getattr(c, attr)
    with pytest.raises(TypeError):
        D.Cauchy('a', 1.0)
    with pytest.raises(TypeError):
        c.log_prob(1.0)


def test_geometric_values():
    e = EXP['geometric']
    g, g2 = D.Geometric(T([0.2, 0.5, 0.9])), D.Geometric(T([0.3, 0.4, 0.5]))
    k = T([0.0, 2.0, 5.0])
    close(g.pmf(k), e['pmf'])
    close(g.log_pmf(k), e['log_pmf'])
    close(g.cdf(k), e['cdf'])
    close(g.pmf(3), e['pmf_int'])
    for name in ('entropy',):
        close(getattr(g, name)(), e[name])
    for name in ('mean', 'variance', 'stddev'):
        close(getattr(g, name), e[name])
    close(D.kl_divergence(g, g2), e['kl'])
    with pytest.raises(ValueError):
        D.Geometric(T([0.0, 0.5]))
    with pytest.raises(ValueError):
        D.Geometric(1.5)
    with pytest.raises(TypeError):
        g.pmf(1.5)
    assert D.Geometric(0.3).batch_shape == ()


def test_gumbel_values():
    e = EXP['gumbel']
    gu = D.Gumbel(T([0.0, 1.0, -2.0]), T([1.0, 2.0, 0.5]))
    x = T([-1.5, 0.3, 2.0])
    for name in ('log_prob', 'prob', 'cdf'):
        close(getattr(gu, name)(x), e[name])
    close(gu.entropy(), e['entropy'])
    for name in ('mean', 'variance', 'stddev'):
        close(getattr(gu, name), e[name])


def test_laplace_values():
    e = EXP['laplace']
    la = D.Laplace(T([0.0, 1.0, -2.0]), T([1.0, 2.0, 0.5]))
    la2 = D.Laplace(T([0.5, 0.5, 0.5]), T([1.0, 3.0, 2.0]))
    x = T([-1.5, 0.3, 2.0])
    close(la.log_prob(x), e['log_prob'])
    close(la.prob(x), e['prob'])
    close(la.cdf(x), e['cdf'])
    close(la.icdf(T([0.1, 0.5, 0.8])), e['icdf'])
    close(la.icdf(la.cdf(x)), x.numpy(), rtol=1e-4, atol=1e-5)
    close(la.entropy(), e['entropy'])
    for name in ('mean', 'variance', 'stddev'):
        close(getattr(la, name), e[name])
    close(D.kl_divergence(la, la2), e['kl'])


def test_lognormal_values():
    e = EXP['lognormal']
    ln = D.LogNormal(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 2.0]))
    ln2 = D.LogNormal(T([0.2, 0.2, 0.2]), T([1.0, 1.0, 1.5]))
    px = T([0.5, 1.0, 3.0])
    close(ln.log_prob(px), e['log_prob'])
    close(ln.probs(px), e['probs'])
    close(ln.entropy(), e['entropy'])
    close(ln.mean, e['mean'])
    close(ln.variance, e['variance'])
    close(D.kl_divergence(ln, ln2), e['kl'])
    mu, s, y = np.array([0.0, 1.0, -0.5]), np.array([1.0, 0.5, 2.0]), np.array([0.5, 1.0, 3.0])
    close(ln.log_prob(px), -np.log(y * s * np.sqrt(2 * np.pi)) - (np.log(y) - mu) ** 2 / (2 * s * s),
          rtol=1e-5)


def test_bernoulli_checks_and_shapes():
    with pytest.raises(ValueError, match=r'\[0, 1\]'):
        D.Bernoulli(T([0.5, 1.2]))
    b = D.Bernoulli(0.3)
    assert b.batch_shape == () and list(b.sample([2, 3]).shape) == [2, 3]
    bb = D.Bernoulli(T([0.2, 0.5]))
    assert bb.batch_shape == (2,) and list(bb.rsample([4]).shape) == [4, 2]


# -- sampling: moments and gradients --------------------------------------------------------------
def test_sampling_moments_and_seed():
    paddle.seed(123)
    n = 20000
    for d, mean, var in [(D.Laplace(1.0, 2.0), 1.0, 8.0),
                         (D.Gumbel(1.0, 2.0), 1.0 + 2.0 * np.euler_gamma, 4 * np.pi ** 2 / 6),
                         (D.LogNormal(0.0, 0.5), math.exp(0.125), math.expm1(0.25) * math.exp(0.25)),
                         (D.Geometric(0.2), 4.0, 20.0)]:
        x = d.sample([n]).numpy()
        assert x.shape == (n,)
        assert abs(x.mean() - mean) < 5 * math.sqrt(var / n), type(d).__name__
        assert abs(x.var() / var - 1) < 0.1, type(d).__name__
    x = D.Cauchy(1.0, 2.0).sample([n]).numpy()
    assert abs(np.median(x) - 1.0) < 0.1 and abs(np.mean(np.abs(x - 1) < 2) - 0.5) < 0.02
    x = D.Bernoulli(T([0.2, 0.7])).sample([n]).numpy()
    assert set(np.unique(x)) <= {0.0, 1.0}
    close(x.mean(0), [0.2, 0.7], atol=0.02)
    g = D.Geometric(0.3).sample([n]).numpy()
    assert np.all(g == np.floor(g)) and g.min() >= 0
    paddle.seed(7)
    a = D.Laplace(0.0, 1.0).sample([5]).numpy()
    paddle.seed(7)
    b = D.Laplace(0.0, 1.0).sample([5]).numpy()
    np.testing.assert_array_equal(a, b)


def test_rsample_gradients():
    loc = T([0.5, -1.0], stop_gradient=False)
    scale = T([1.0, 2.0], stop_gradient=False)
    paddle.seed(3)
    for cls in (D.Laplace, D.Cauchy, D.Gumbel):
        x = cls(loc, scale).rsample([6])
        gl, gs = paddle.grad(x.sum(), [loc, scale])
        close(gl, [6.0, 6.0])  # d(loc + scale * z)/dloc = 1 per sample
        z = (x - loc) / scale  # ... and d/dscale = z
        close(gs, z.sum(0).numpy(), rtol=1e-4, atol=1e-4)
    p = T([0.3, 0.6], stop_gradient=False)
    r = D.Bernoulli(p).rsample([5], temperature=0.5)
    (gp,) = paddle.grad(r.sum(), [p])
    pn = np.array([0.3, 0.6])
    close(gp, 5 / (pn * (1 - pn)) / 0.5, rtol=1e-4)  # d logit(p)/dp / temperature


# -- lr schedulers ----------------------------------------------------------------------------
def _run(s, n=14):
    out = []
    for _ in range(n):
        out.append(s())
        s.step()
    return out


def test_lr_schedulers():
    L = paddle.optimizer.lr
    e = EXP['lr']
    close(_run(L.LinearLR(0.5, 4)), e['linear'], rtol=1e-12)
    close(_run(L.LinearLR(0.2, 5, start_factor=0.1, end_factor=0.8)), e['linear2'], rtol=1e-12)
    close(_run(L.CosineAnnealingWarmRestarts(0.5, 3)), e['warm'], rtol=1e-12)
    close(_run(L.CosineAnnealingWarmRestarts(0.5, 2, T_mult=2, eta_min=0.01)), e['warm2'], rtol=1e-12)
    w = L.CosineAnnealingWarmRestarts(0.5, 2, T_mult=2, eta_min=0.01)
    got = []
    for ep in [5, 1, 9, 2.5]:
        w.step(ep)
        got.append(w())
    close(got, e['warm2_epochs'], rtol=1e-12)
    # closed form of SGDR with T_mult=1: eta_min + (lr - eta_min)(1 + cos(pi (t mod T0) / T0)) / 2
    close(_run(L.CosineAnnealingWarmRestarts(1.0, 4), 9),
          [(1 + math.cos(math.pi * (t % 4) / 4)) / 2 for t in range(9)], rtol=1e-12)
    # LinearLR's factor reaches end_factor after total_steps and stays
    close(_run(L.LinearLR(1.0, 3, start_factor=0.25, end_factor=1.0), 6),
          [0.25, 0.5, 0.75, 1.0, 1.0, 1.0], rtol=1e-12)
    with pytest.raises(ValueError):
        L.LinearLR(0.1, 0)
    with pytest.raises(ValueError):
        L.LinearLR(0.1, 3, start_factor=0)
    with pytest.raises(ValueError):
        L.CosineAnnealingWarmRestarts(0.1, 0)
    with pytest.raises(ValueError):
        L.CosineAnnealingWarmRestarts(0.1, 2, T_mult=1.5)
    assert isinstance(L.LinearLR(0.1, 3), L.LRScheduler)
    lin = nn_linear()
    sch = L.LinearLR(0.5, 4)
    opt = paddle.optimizer.SGD(learning_rate=sch, parameters=lin.parameters())
    sch.step()
    assert abs(opt.get_lr() - sch()) < 1e-12


def nn_linear():
    return paddle.nn.Linear(2, 2)


# -- io.ConcatDataset ---------------------------------------------------------------------------
class _Range(paddle.io.Dataset):
    def __init__(self, lo, hi):
        self.items = list(range(lo, hi))

    def __getitem__(self, i):
        return np.array([self.items[i]], dtype='int64')

    def __len__(self):
        return len(self.items)


def test_concat_dataset():
    parts = [_Range(0, 3), _Range(10, 12), _Range(20, 24)]
    ds = paddle.io.ConcatDataset(parts)
    ref = list(range(0, 3)) + [10, 11] + list(range(20, 24))
    assert len(ds) == len(ref) and ds.cumulative_sizes == [3, 5, 9]
    assert [int(ds[i][0]) for i in range(len(ds))] == ref
    assert [int(ds[-i][0]) for i in range(1, len(ds) + 1)] == ref[::-1]
    with pytest.raises(ValueError):
        ds[-10]
    with pytest.raises(IndexError):
        ds[9]
    with pytest.raises(AssertionError):
        paddle.io.ConcatDataset([])

    class It(paddle.io.IterableDataset):
        def __iter__(self):
            yield 1
    with pytest.raises(AssertionError):
        paddle.io.ConcatDataset([parts[0], It()])
    batches = [b.numpy().ravel().tolist() for b in paddle.io.DataLoader(ds, batch_size=4)]
    assert sum(batches, []) == ref


# -- amp -----------------------------------------------------------------------------------------
def test_amp_supported_queries():
    assert paddle.amp.is_float16_supported() is False
    assert paddle.amp.is_float16_supported('cpu') is False
    assert isinstance(paddle.amp.is_bfloat16_supported(), bool)
    assert paddle.amp.is_bfloat16_supported() == paddle.amp.is_bfloat16_supported('cpu')
    with pytest.raises(ValueError, match='CPUPlace'):
        paddle.amp.is_float16_supported('foo')
    assert 'is_float16_supported' in paddle.amp.__all__


# -- corrcoef ------------------------------------------------------------------------------------
def test_corrcoef():
    m = np.array([[1.0, 2.0, 4.0, 7.0], [3.0, 1.0, 0.0, 2.0], [0.5, 0.1, 0.9, 0.3]])
    close(paddle.linalg.corrcoef(T(m)), np.corrcoef(m), rtol=1e-10)
    close(T(m).corrcoef(rowvar=False), np.corrcoef(m, rowvar=False), rtol=1e-10)
    close(paddle.linalg.corrcoef(T(m.astype('float32'))), EXP['corrcoef']['rows'], rtol=1e-5)
    close(paddle.linalg.corrcoef(T([1.0, 2.0, 4.0])), EXP['corrcoef']['vec'])
    r = paddle.linalg.corrcoef(T(np.random.RandomState(0).randn(5, 30)))
    assert float(r.abs().max()) <= 1.0
    with pytest.raises(ValueError):
        paddle.linalg.corrcoef(T(np.zeros((2, 2, 2))))
    with pytest.raises(TypeError):
        paddle.linalg.corrcoef(T([[1, 2], [3, 5]]))


# -- jacobian / hessian ---------------------------------------------------------------------------
A = [[1.0, -2.0, 0.5], [0.3, 0.0, 2.0]]
M3 = [[2.0, 1.0, 0.0], [0.5, -1.0, 3.0], [0.0, 1.5, 1.0]]
W = [[1.0, 0.5, -1.0], [2.0, 0.0, 0.3]]
M2 = [[1.0, 2.0], [-0.5, 3.0]]


def _f(x):
    return paddle.matmul(T(A), x * x) + paddle.sin(x[:2] * 0 + x.sum())


def _fb(x):
    return paddle.matmul(x * x, T(W)) + paddle.sin(x.sum(1, keepdim=True) * 0.1)


def _s(x):
    return paddle.matmul(x, paddle.matmul(T(M3), x)) + paddle.sin(x).sum() + (x ** 3).sum()


def _sb(x):
    return (paddle.matmul(x, T(M2)) * x).sum(1) + (x ** 3).sum(1)


def _num_jac(f, x0, eps=1e-6):
    x0 = np.asarray(x0, dtype='float64')
    cols = []
    for i in range(x0.size):
        d = np.zeros_like(x0)
        d.flat[i] = eps
        cols.append((f(T(x0 + d)).numpy() - f(T(x0 - d)).numpy()).ravel() / (2 * eps))
    return np.stack(cols, -1)


def test_jacobian():
    e = EXP['jac']
    x = T([1.0, 2.0, 3.0], stop_gradient=False)
    J = paddle.autograd.jacobian(_f(x), x)
    assert list(J.shape) == e['J_shape']
    close(J[:], e['J'], rtol=1e-5)
    close(J[1], e['J_row1'], rtol=1e-5)
    close(J[:, 2], e['J_col'], rtol=1e-5)
    close(J[-1, -1], e['J_row1'][-1], rtol=1e-5)
    close((J * 2), np.array(e['J']) * 2, rtol=1e-5)
    x64 = T([1.0, 2.0, 3.0], dtype='float64', stop_gradient=False)
    A64 = np.array(A)
    close(paddle.autograd.jacobian(paddle.matmul(T(A64), x64 * x64), x64)[:],
          _num_jac(lambda t: paddle.matmul(T(A64), t * t), [1.0, 2.0, 3.0]), rtol=1e-6)
    xb = T([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]], stop_gradient=False)
    Jb = paddle.autograd.jacobian(_fb(xb), xb, batch_axis=0)
    assert list(Jb.shape) == e['Jb_shape']
    close(Jb[:], e['Jb'], rtol=1e-5)
    close(Jb[:, 1], e['Jb_idx'], rtol=1e-5)
    # tuples of ys / xs give (nested) tuples of Jacobians
    y1, y2 = x * 2.0, x.sum()
    x2 = T([1.0, 2.0], stop_gradient=False)
    js = paddle.autograd.jacobian((y1, y2), (x, x2))
    assert len(js) == 2 and len(js[0]) == 2 and isinstance(js[0][0], paddle.autograd.autograd.Jacobian)
    close(js[0][0][:], 2 * np.eye(3))
    close(js[0][1][:], np.zeros((3, 2)))  # y1 does not depend on x2: zeros (allow_unused)
    close(js[1][0][:], np.ones((1, 3)))
    with pytest.raises(ValueError):
        paddle.autograd.jacobian(_f(x), x, batch_axis=1)
    with pytest.raises(ValueError):
        paddle.autograd.jacobian(_fb(xb), xb)  # 2-D without batch_axis
    with pytest.raises(IndexError):
        J[..., 0]
    with pytest.raises(TypeError):
        J[0.5]


def test_hessian():
    e = EXP['jac']
    x = T([1.0, 2.0, 3.0], stop_gradient=False)
    H = paddle.autograd.hessian(_s(x), x)
    assert isinstance(H, paddle.autograd.autograd.Hessian)
    assert list(H.shape) == e['H_shape']
    close(H[:], e['H'], rtol=1e-5)
    xv = np.array([1.0, 2.0, 3.0])
    m3 = np.array(M3)
    close(H[:], m3 + m3.T + np.diag(-np.sin(xv) + 6 * xv), rtol=1e-5)
    close(H[1, 2], (m3 + m3.T)[1, 2], rtol=1e-6)
    xb = T([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]], stop_gradient=False)
    Hb = paddle.autograd.hessian(_sb(xb), xb, batch_axis=0)
    assert list(Hb.shape) == e['Hb_shape']
    close(Hb[:], e['Hb'], rtol=1e-5)
    hs = paddle.autograd.hessian(_s(x), (x,))
    close(hs[0][0][:], e['H'], rtol=1e-5)
    with pytest.raises(ValueError, match='numel'):
        paddle.autograd.hessian(x * 2, x)


# -- linalg.householder_product / pca_lowrank -----------------------------------------------------
def test_householder_product_matches_numpy_qr():
    rs = np.random.RandomState(0)
    a = rs.randn(5, 3)
    h, tau = np.linalg.qr(a, mode='raw')  # LAPACK's reflectors (h transposed)
    q = paddle.linalg.householder_product(T(h.T.copy()), T(tau))
    close(q, np.linalg.qr(a)[0], rtol=1e-10, atol=1e-12)
    ab = rs.randn(2, 4, 4) + 1j * rs.randn(2, 4, 4)
    raws = [np.linalg.qr(ab[i], mode='raw') for i in range(2)]
    q = paddle.linalg.householder_product(T(np.stack([r[0].T for r in raws])),
                                          T(np.stack([r[1] for r in raws])))
    want = np.stack([np.linalg.qr(ab[i])[0] for i in range(2)])
    np.testing.assert_allclose(q.numpy(), want, rtol=1e-10, atol=1e-12)
    # gradient w.r.t. tau by finite differences (float64)
    x = T(h.T.copy(), stop_gradient=False)
    t = T(tau, stop_gradient=False)
    wgt = rs.randn(5, 3)
    (gt,) = paddle.grad((paddle.linalg.householder_product(x, t) * T(wgt)).sum(), [t])
    num = []
    for i in range(3):
        d = np.zeros(3)
        d[i] = 1e-6
        f = [(paddle.linalg.householder_product(T(h.T.copy()), T(tau + s * d)).numpy() * wgt).sum()
             for s in (1, -1)]
        num.append((f[0] - f[1]) / 2e-6)
    close(gt, num, rtol=1e-5, atol=1e-7)
    with pytest.raises(AssertionError):
        paddle.linalg.householder_product(T(rs.randn(2, 3)), T(rs.randn(2)))  # m < n
    with pytest.raises(TypeError):
        paddle.linalg.householder_product(T([[1, 2], [3, 4]]), T([1, 2]))


def test_pca_lowrank():
    rs = np.random.RandomState(0)
    a = rs.randn(20, 3) @ rs.randn(3, 8) + rs.randn(1, 8) * 5  # rank 3 after centring
    paddle.seed(5)
    u, s, v = paddle.linalg.pca_lowrank(T(a), q=3)
    c = a - a.mean(0)
    assert list(u.shape) == [20, 3] and list(s.shape) == [3] and list(v.shape) == [8, 3]
    close(s, np.linalg.svd(c, compute_uv=False)[:3], rtol=1e-9)
    close(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, c, atol=1e-9)
    close(u.numpy().T @ u.numpy(), np.eye(3), atol=1e-9)
    wide = rs.randn(4, 2) @ rs.randn(2, 9)  # m < n branch, rank 2, no centring
    u, s, v = paddle.linalg.pca_lowrank(T(wide), q=2, center=False)
    assert list(u.shape) == [4, 2] and list(v.shape) == [9, 2]
    close(s, np.linalg.svd(wide, compute_uv=False)[:2], rtol=1e-9)
    b = rs.randn(2, 10, 6)
    u, s, v = paddle.linalg.pca_lowrank(T(b), center=False, niter=3)
    close(s, np.linalg.svd(b, compute_uv=False), rtol=1e-9)  # q = min(6, m, n) = full rank
    with pytest.raises(ValueError):
        paddle.linalg.pca_lowrank(T(a), q=9)
    with pytest.raises(ValueError):
        paddle.linalg.pca_lowrank(T(a), niter=-1)
    assert T(a).pca_lowrank(q=2)[1].shape == [2]  # a Tensor method too, as in Paddle 2.6


def test_jacobian_scalar_and_batched_vector_cases():
    # recorded by hand from real Paddle 2.6.2 (same values; Paddle's J[:] for a batched 1-D ys
    # has an extra axis, [B, 1, N], that disagrees with its own J.shape [B, N]: ours is [B, N])
    x = T([1.0, 2.0, 3.0], stop_gradient=False)
    J = paddle.autograd.jacobian((x * x).sum(), x)
    close(J[:], [2.0, 4.0, 6.0])
    # a sum is 0-D at the 2.6 API level (J is [3]) and [1] at the 2.3 level (J is [1, 3])
    close(J[1] if len(J.shape) == 1 else J[0, 1], 4.0)
    close(J[0:2] if len(J.shape) == 1 else J[0, 0:2], [2.0, 4.0])
    x0 = T(2.0, stop_gradient=False)
    close(paddle.autograd.jacobian(x * x0, x0)[:], [1.0, 2.0, 3.0])
    xb = T([[1.0, 2.0], [3.0, 4.0], [0.5, 1.0]], stop_gradient=False)
    Jb = paddle.autograd.jacobian((xb * xb).sum(1), xb, batch_axis=0)
    assert list(Jb.shape) == [3, 2]
    close(Jb[:], [[2.0, 4.0], [6.0, 8.0], [1.0, 2.0]])
    close(Jb[:, 1], [4.0, 8.0, 2.0])
    close(Jb[0:2, 0], [2.0, 6.0])
    Jq = paddle.autograd.jacobian(xb * xb, xb, batch_axis=0)
    close(Jq[1, 1], [0.0, 8.0])
    close(Jq[1, :, 0], [6.0, 0.0])
    close(Jq[0:3:2, 1, 1], [4.0, 2.0])
    Hb = paddle.autograd.hessian((xb ** 3).sum(1), xb, batch_axis=0)
    close(Hb[0], [[6.0, 0.0], [0.0, 12.0]])
    close(Hb[:, 1, 1], [12.0, 24.0, 6.0])
    close(paddle.autograd.hessian(x0 ** 3, x0) + 0, 12.0)
