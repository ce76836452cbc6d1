"""paddle.distribution against closed forms, numerical integration, finite differences and
sample moments (10^5 draws, within 4 standard errors)."""
import math

import numpy as np
import pytest

import paddle
import paddle.distribution as D

T = lambda v, dt='float64': paddle.to_tensor(np.array(v, dtype=dt))  # noqa: E731
N_DRAWS = 100000


def digamma(x):
    """Digamma by recurrence up to x >= 6 and the asymptotic series (|err| < 1e-12)."""
    x = float(x)
    r = 0.0
    while x < 6:
        r -= 1.0 / x
        x += 1
    f = 1.0 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))


def within_4se(draws, mean, var, axis=0):
    draws = np.asarray(draws, dtype=np.float64)
    se = np.sqrt(np.asarray(var) / draws.shape[axis])
    assert np.all(np.abs(draws.mean(axis) - mean) < 4 * se + 1e-12), (draws.mean(axis), mean, se)


def beta_logpdf(x, a, b):
    return ((a - 1) * np.log(x) + (b - 1) * np.log1p(-x)
            + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))


def test_api_names():
    names = ['Beta', 'Categorical', 'Dirichlet', 'Distribution', 'ExponentialFamily',
             'Multinomial', 'Normal', 'Uniform', 'kl_divergence', 'register_kl', 'Independent',
             'TransformedDistribution', 'Transform', 'AbsTransform', 'AffineTransform',
             'ChainTransform', 'ExpTransform', 'IndependentTransform', 'PowerTransform',
             'ReshapeTransform', 'SigmoidTransform', 'SoftmaxTransform', 'StackTransform',
             'StickBreakingTransform', 'TanhTransform',
             # Paddle 2.6 (issue 23, tests/python/test_api26_modules.py)
             'Bernoulli', 'Cauchy', 'Geometric', 'Gumbel', 'Laplace', 'LogNormal']
    assert sorted(D.__all__) == sorted(names)
    for n in names:
        assert hasattr(D, n)


# ---------------- Normal ----------------
def test_normal_closed_forms():
    loc, scale = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.3, 2.5])
    n = D.Normal(T(loc), T(scale))
    v = np.array([0.1, -0.7, 5.0])
    ref = -(v - loc) ** 2 / (2 * scale ** 2) - np.log(scale) - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(n.log_prob(T(v)).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(n.probs(T(v)).numpy(), np.exp(ref), rtol=1e-12)
    np.testing.assert_allclose(n.prob(T(v)).numpy(), np.exp(ref), rtol=1e-12)
    np.testing.assert_allclose(n.entropy().numpy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log(scale),
                               rtol=1e-12)
    l2, s2 = np.array([0.0, 1.0, -1.0]), np.array([2.0, 1.0, 0.5])
    kl = np.log(s2 / scale) + (scale ** 2 + (loc - l2) ** 2) / (2 * s2 ** 2) - 0.5
    m = D.Normal(T(l2), T(s2))
    np.testing.assert_allclose(n.kl_divergence(m).numpy(), kl, rtol=1e-10)
    np.testing.assert_allclose(D.kl_divergence(n, m).numpy(), kl, rtol=1e-10)
    np.testing.assert_allclose(n.mean.numpy(), loc)
    np.testing.assert_allclose(n.variance.numpy(), scale ** 2)


def test_normal_float_args_and_dtypes():
    n = D.Normal(1, 2.0)  # ints become floats; float32 by default; batch (1,) (no 0-D in 2.3)
    assert n.batch_shape == (1,) and n.loc.dtype == paddle.float32
    assert n.sample([5]).shape == [5]
    n64 = D.Normal(np.array([0.0, 1.0]), np.array([1.0, 2.0]))
    assert n64.loc.dtype == paddle.float64 and n64.sample([3]).shape == [3, 2]
    assert D.Normal([0.0, 1.0], 1.0).loc.dtype == paddle.float32
    with pytest.raises(ValueError):
        D.Normal(T([0.0]), 1.0)
    with pytest.raises(TypeError):
        D.Normal(T([0.0]), T([1.0])).sample(3)


def test_normal_sample_moments_and_seed():
    paddle.seed(7)
    n = D.Normal(T([1.0, -2.0]), T([0.5, 3.0]))
    x = n.sample([N_DRAWS]).numpy()
    assert x.shape == (N_DRAWS, 2)
    within_4se(x, [1.0, -2.0], [0.25, 9.0])
    within_4se((x - [1.0, -2.0]) ** 2, [0.25, 9.0], [2 * 0.25 ** 2, 2 * 81.0])
    paddle.seed(3)
    a = n.sample([4]).numpy()
    r = n.rsample([4]).numpy()
    paddle.seed(3)
    np.testing.assert_array_equal(a, n.sample([4]).numpy())
    np.testing.assert_array_equal(r, n.rsample([4]).numpy())
    assert not np.array_equal(a, n.sample([4]).numpy())


def test_normal_rsample_gradient():
    loc = T([0.5, 1.0]); loc.stop_gradient = False
    scale = T([2.0, 0.5]); scale.stop_gradient = False
    paddle.seed(11)
    s = D.Normal(loc, scale).rsample([1000])
    gl, gs = paddle.grad(s.sum(), [loc, scale])
    np.testing.assert_allclose(gl.numpy(), [1000.0, 1000.0])
    eps = (s.numpy() - loc.numpy()) / scale.numpy()
    np.testing.assert_allclose(gs.numpy(), eps.sum(0), rtol=1e-8)


def fd_check(fn, x0, analytic, h=1e-6, rtol=1e-5):
    x0 = np.asarray(x0, dtype=np.float64)
    num = np.zeros_like(x0)
    for i in range(x0.size):
        e = np.zeros_like(x0)
        e.flat[i] = h
        num.flat[i] = (fn(x0 + e) - fn(x0 - e)) / (2 * h)
    np.testing.assert_allclose(analytic, num, rtol=rtol, atol=1e-7)


def test_log_prob_gradients_finite_differences():
    v = T([0.2, 0.6])

    def f_normal(p):
        return float(D.Normal(T(p[:2]), T(p[2:])).log_prob(v).numpy().sum())
    p0 = np.array([0.1, 0.3, 1.5, 0.7])
    p = T(p0); p.stop_gradient = False
    g = paddle.grad(D.Normal(p[:2], p[2:]).log_prob(v).sum(), p)[0].numpy()
    fd_check(f_normal, p0, g)

    def f_beta(q):
        return float(D.Beta(T(q[:2]), T(q[2:])).log_prob(v).numpy().sum())
    q0 = np.array([2.0, 0.7, 3.0, 1.5])
    q = T(q0); q.stop_gradient = False
    g = paddle.grad(D.Beta(q[:2], q[2:]).log_prob(v).sum(), q)[0].numpy()
    fd_check(f_beta, q0, g)

    w = T([0.2, 0.3, 0.5])

    def f_dir(a):
        return float(D.Dirichlet(T(a)).log_prob(w).numpy().sum())
    a0 = np.array([1.5, 2.0, 0.8])
    a = T(a0); a.stop_gradient = False
    g = paddle.grad(D.Dirichlet(a).log_prob(w).sum(), a)[0].numpy()
    fd_check(f_dir, a0, g)


# ---------------- Uniform ----------------
def test_uniform():
    lo, hi = np.array([0.0, -1.0]), np.array([2.0, 3.0])
    u = D.Uniform(T(lo), T(hi))
    v = np.array([1.0, 3.5])
    lp = u.log_prob(T(v)).numpy()
    assert lp[0] == pytest.approx(-math.log(2.0)) and lp[1] == -np.inf
    np.testing.assert_allclose(u.probs(T(v)).numpy(), [0.5, 0.0])
    np.testing.assert_allclose(u.entropy().numpy(), np.log(hi - lo))
    paddle.seed(5)
    x = u.sample([N_DRAWS]).numpy()
    assert np.all(x >= lo) and np.all(x < hi)
    within_4se(x, (lo + hi) / 2, (hi - lo) ** 2 / 12)
    assert D.Uniform(0.0, 1.0).sample([7]).shape == [7]
    kl = D.kl_divergence(D.Uniform(T([0.0, 0.0]), T([1.0, 1.0])), D.Uniform(T([-1.0, 0.5]), T([2.0, 2.0]))).numpy()
    assert kl[0] == pytest.approx(math.log(3.0)) and kl[1] == np.inf


# ---------------- Categorical ----------------
def test_categorical():
    logits = np.array([[0.2, 0.5, 1.3], [2.0, 1.0, 1.0]])
    c = D.Categorical(T(logits))
    sm = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    np.testing.assert_allclose(c.entropy().numpy(), -(sm * np.log(sm)).sum(-1), rtol=1e-12)
    # probs/log_prob read logits as unnormalized probabilities (Paddle's rule)
    pn = logits / logits.sum(-1, keepdims=True)
    idx = paddle.to_tensor(np.array([2, 0]))
    np.testing.assert_allclose(c.probs(idx).numpy(), [[pn[0, 2], pn[0, 0]], [pn[1, 2], pn[1, 0]]])
    np.testing.assert_allclose(c.log_prob(idx).numpy(), np.log(c.probs(idx).numpy()))
    other = np.array([[1.0, 1.0, 1.0], [0.1, 0.2, 3.0]])
    so = np.exp(other) / np.exp(other).sum(-1, keepdims=True)
    kl = (sm * np.log(sm / so)).sum(-1, keepdims=True)
    np.testing.assert_allclose(c.kl_divergence(D.Categorical(T(other))).numpy(), kl, rtol=1e-10)
    paddle.seed(2)
    s = c.sample([N_DRAWS]).numpy()
    assert s.shape == (N_DRAWS, 2) and s.dtype == np.int64
    for b in range(2):
        for k in range(3):
            within_4se((s[:, b] == k).astype(float), sm[b, k], sm[b, k] * (1 - sm[b, k]))


# ---------------- Beta / Dirichlet ----------------
def test_beta_closed_forms_and_kl_by_integration():
    a, b = np.array([2.0, 0.8]), np.array([3.0, 1.7])
    dist = D.Beta(T(a), T(b))
    v = np.array([0.3, 0.9])
    ref = [beta_logpdf(v[i], a[i], b[i]) for i in range(2)]
    np.testing.assert_allclose(dist.log_prob(T(v)).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(dist.prob(T(v)).numpy(), np.exp(ref), rtol=1e-10)
    np.testing.assert_allclose(dist.mean.numpy(), a / (a + b))
    np.testing.assert_allclose(dist.variance.numpy(), a * b / ((a + b) ** 2 * (a + b + 1)))
    grid = (np.arange(200000) + 0.5) / 200000
    for i in range(2):
        lp = beta_logpdf(grid, a[i], b[i])
        ent = -np.mean(np.exp(lp) * lp)
        assert dist.entropy().numpy()[i] == pytest.approx(ent, abs=2e-4)
        lq = beta_logpdf(grid, 1.5, 2.5)
        kl = np.mean(np.exp(lp) * (lp - lq))
        got = D.kl_divergence(D.Beta(float(a[i]), float(b[i])), D.Beta(1.5, 2.5)).numpy()
        assert got.shape == (1,) and got[0] == pytest.approx(kl, abs=2e-4)
    # the Bregman route of ExponentialFamily gives the same KL
    p, q = D.Beta(T([2.0]), T([3.0])), D.Beta(T([1.5]), T([2.5]))
    from paddle.distribution.kl import _kl_expfamily_expfamily
    np.testing.assert_allclose(_kl_expfamily_expfamily(p, q).numpy(), D.kl_divergence(p, q).numpy(),
                               rtol=1e-8)


def test_beta_dirichlet_sampling():
    paddle.seed(13)
    a, b = 2.0, 0.6
    x = D.Beta(a, b).sample([N_DRAWS]).numpy()
    assert x.shape == (N_DRAWS,) and np.all((x >= 0) & (x <= 1))
    within_4se(x, a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    alpha = np.array([0.5, 2.0, 4.0])
    d = D.Dirichlet(T(alpha, 'float32'))
    s = d.sample([N_DRAWS]).numpy()
    assert s.shape == (N_DRAWS, 3)
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-5)
    a0 = alpha.sum()
    within_4se(s, alpha / a0, alpha * (a0 - alpha) / (a0 ** 2 * (a0 + 1)))
    np.testing.assert_allclose(d.mean.numpy(), alpha / a0, rtol=1e-6)
    np.testing.assert_allclose(d.variance.numpy(), alpha * (a0 - alpha) / (a0 ** 2 * (a0 + 1)), rtol=1e-6)
    paddle.seed(1)
    s1 = d.sample([3]).numpy()
    paddle.seed(1)
    np.testing.assert_array_equal(s1, d.sample([3]).numpy())
    with pytest.raises(ValueError, match="standard_gamma"):
        D.Dirichlet(T([1.0, -1.0])).sample([2])


def test_dirichlet_closed_forms():
    alpha = np.array([[1.5, 2.0, 0.8], [1.0, 1.0, 1.0]])
    d = D.Dirichlet(T(alpha))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    w = np.array([0.2, 0.3, 0.5])
    ref = [sum((alpha[i] - 1) * np.log(w)) + math.lgamma(alpha[i].sum())
           - sum(math.lgamma(t) for t in alpha[i]) for i in range(2)]
    np.testing.assert_allclose(d.log_prob(T(w)).numpy(), ref, rtol=1e-10)
    ent = []
    for al in alpha:
        a0, k = al.sum(), len(al)
        lnB = sum(math.lgamma(t) for t in al) - math.lgamma(a0)
        ent.append(lnB + (a0 - k) * digamma(a0) - sum((t - 1) * digamma(t) for t in al))
    np.testing.assert_allclose(d.entropy().numpy(), ent, rtol=1e-9)
    beta = np.array([[2.0, 1.0, 3.0], [0.5, 0.5, 0.5]])
    kl = []
    for al, be in zip(alpha, beta):
        a0 = al.sum()
        kl.append(math.lgamma(a0) - math.lgamma(be.sum()) - sum(math.lgamma(t) for t in al)
                  + sum(math.lgamma(t) for t in be)
                  + sum((x - y) * (digamma(x) - digamma(a0)) for x, y in zip(al, be)))
    np.testing.assert_allclose(D.kl_divergence(d, D.Dirichlet(T(beta))).numpy(), kl, rtol=1e-9)
    with pytest.raises(ValueError):
        D.Dirichlet(paddle.full([], 1.0))


# ---------------- Multinomial ----------------
def _compositions(n, k):
    if k == 1:
        yield (n,)
        return
    for i in range(n + 1):
        for rest in _compositions(n - i, k - 1):
            yield (i,) + rest


def test_multinomial():
    p = np.array([0.2, 0.3, 0.5])
    n = 4
    m = D.Multinomial(n, T(p * 3))  # normalized internally
    np.testing.assert_allclose(m.probs.numpy(), p)
    np.testing.assert_allclose(m.mean.numpy(), n * p)
    np.testing.assert_allclose(m.variance.numpy(), n * p * (1 - p))
    ent = 0.0
    for c in _compositions(n, 3):
        lp = (math.lgamma(n + 1) - sum(math.lgamma(x + 1) for x in c)
              + sum(x * math.log(q) for x, q in zip(c, p)))
        assert m.log_prob(T(list(c))).numpy()[0] == pytest.approx(lp, rel=1e-10)
        ent -= math.exp(lp) * lp
    assert m.entropy().numpy()[0] == pytest.approx(ent, rel=1e-9)
    # zero probability with zero count contributes nothing
    mz = D.Multinomial(2, T([0.0, 1.0]))
    assert mz.log_prob(T([0.0, 2.0])).numpy()[0] == pytest.approx(0.0)
    paddle.seed(4)
    s = D.Multinomial(n, T(p, 'float32')).sample([N_DRAWS // 4]).numpy()
    assert s.shape == (N_DRAWS // 4, 3)
    np.testing.assert_array_equal(s.sum(-1), n)
    within_4se(s, n * p, n * p * (1 - p))
    with pytest.raises(ValueError):
        D.Multinomial(0, T(p))


# ---------------- Independent / TransformedDistribution ----------------
def test_independent():
    base = D.Normal(T([[0.0, 1.0], [2.0, 3.0]]), T([[1.0, 2.0], [0.5, 1.0]]))
    ind = D.Independent(base, 1)
    assert ind.batch_shape == (2,) and ind.event_shape == (2,)
    v = T([[0.5, 0.5], [1.0, 1.0]])
    np.testing.assert_allclose(ind.log_prob(v).numpy(), base.log_prob(v).numpy().sum(-1))
    np.testing.assert_allclose(ind.entropy().numpy(), base.entropy().numpy().sum(-1))
    with pytest.raises(ValueError):
        D.Independent(base, 3)
    with pytest.raises(TypeError):
        D.Independent(1.0, 1)


def test_transformed_lognormal():
    mu, sig = np.array([0.3, -0.2]), np.array([0.8, 1.2])
    ln = D.TransformedDistribution(D.Normal(T(mu), T(sig)), [D.ExpTransform()])
    y = np.array([1.7, 0.4])
    ref = -np.log(y * sig * math.sqrt(2 * math.pi)) - (np.log(y) - mu) ** 2 / (2 * sig ** 2)
    np.testing.assert_allclose(ln.log_prob(T(y)).numpy(), ref, rtol=1e-12)
    paddle.seed(9)
    s = ln.rsample([N_DRAWS]).numpy()
    within_4se(np.log(s), mu, sig ** 2)
    # y = 2 x + 1 of a standard normal is N(1, 2)
    aff = D.TransformedDistribution(D.Normal(T([0.0]), T([1.0])), [D.AffineTransform(T([1.0]), T([2.0]))])
    np.testing.assert_allclose(aff.log_prob(T([0.4])).numpy(),
                               D.Normal(T([1.0]), T([2.0])).log_prob(T([0.4])).numpy(), rtol=1e-12)
    # an event-rank-1 transform over a batch: the Independent wrapping sums the base log_prob
    sb = D.TransformedDistribution(D.Normal(T([0.0, 0.0]), T([1.0, 1.0])), [D.StickBreakingTransform()])
    assert sb.batch_shape == () and sb.event_shape == (3,)
    val = T([0.2, 0.3, 0.5])
    x = D.StickBreakingTransform().inverse(val)
    ref = (D.Normal(T([0.0, 0.0]), T([1.0, 1.0])).log_prob(x).numpy().sum()
           - D.StickBreakingTransform().forward_log_det_jacobian(x).numpy())
    np.testing.assert_allclose(sb.log_prob(val).numpy(), ref, rtol=1e-10)


# ---------------- transforms ----------------
ELEMENTWISE = [
    (lambda: D.ExpTransform(), np.array([-1.0, 0.3, 2.0])),
    (lambda: D.SigmoidTransform(), np.array([-1.0, 0.3, 2.0])),
    (lambda: D.TanhTransform(), np.array([-1.0, 0.3, 2.0])),
    (lambda: D.AffineTransform(T([1.0]), T([-2.5])), np.array([-1.0, 0.3, 2.0])),
    (lambda: D.PowerTransform(T([3.0])), np.array([0.5, 1.3, 2.0])),
]


@pytest.mark.parametrize("make,x", ELEMENTWISE)
def test_elementwise_transforms(make, x):
    t = make()
    y = t.forward(T(x))
    np.testing.assert_allclose(t.inverse(y).numpy(), x, rtol=1e-9)
    h = 1e-6
    num = (t.forward(T(x + h)).numpy() - t.forward(T(x - h)).numpy()) / (2 * h)
    np.testing.assert_allclose(np.broadcast_to(t.forward_log_det_jacobian(T(x)).numpy(), x.shape),
                               np.log(np.abs(num)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.broadcast_to(t.inverse_log_det_jacobian(y).numpy(), x.shape),
                               -np.log(np.abs(num)), rtol=1e-6, atol=1e-8)
    assert tuple(t.forward_shape((2, 3))) == (2, 3) and tuple(t.inverse_shape((2, 3))) == (2, 3)
    np.testing.assert_allclose(t(T(x)).numpy(), y.numpy())


def test_abs_and_softmax_transforms():
    a = D.AbsTransform()
    np.testing.assert_allclose(a.forward(T([-2.0, 3.0])).numpy(), [2.0, 3.0])
    neg, pos = a.inverse(T([2.0]))
    assert neg.numpy()[0] == -2.0 and pos.numpy()[0] == 2.0
    with pytest.raises(NotImplementedError):
        a.forward_log_det_jacobian(T([1.0]))
    s = D.SoftmaxTransform()
    x = np.array([[0.1, 2.0, -1.0]])
    np.testing.assert_allclose(s.forward(T(x)).numpy(), np.exp(x) / np.exp(x).sum(), rtol=1e-12)
    np.testing.assert_allclose(s.inverse(T([[0.2, 0.8]])).numpy(), np.log([[0.2, 0.8]]))
    with pytest.raises(NotImplementedError):
        s.forward_log_det_jacobian(T(x))
    with pytest.raises(TypeError):
        D.ExpTransform().forward(1.0)


def num_jacobian(f, x, h=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, -1)


def test_stick_breaking():
    t = D.StickBreakingTransform()
    x = np.array([0.4, -1.1, 0.7])
    y = t.forward(T(x)).numpy()
    assert y.shape == (4,) and y.sum() == pytest.approx(1.0) and np.all(y > 0)
    np.testing.assert_allclose(t.inverse(T(y)).numpy(), x, rtol=1e-9)
    jac = num_jacobian(lambda v: t.forward(T(v)).numpy()[:-1], x)
    assert t.forward_log_det_jacobian(T(x)).numpy()[0] == pytest.approx(
        math.log(abs(np.linalg.det(jac))), rel=1e-6)
    assert tuple(t.forward_shape((5, 3))) == (5, 4) and tuple(t.inverse_shape((5, 4))) == (5, 3)


def test_chain_independent_stack_reshape():
    ch = D.ChainTransform([D.AffineTransform(T([1.0]), T([2.0])), D.ExpTransform()])
    x = np.array([0.1, -0.4])
    np.testing.assert_allclose(ch.forward(T(x)).numpy(), np.exp(1 + 2 * x))
    np.testing.assert_allclose(ch.inverse(T(np.exp(1 + 2 * x))).numpy(), x, rtol=1e-12)
    np.testing.assert_allclose(ch.forward_log_det_jacobian(T(x)).numpy(), math.log(2) + 1 + 2 * x,
                               rtol=1e-12)
    it = D.IndependentTransform(D.ExpTransform(), 1)
    xx = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(it.forward_log_det_jacobian(T(xx)).numpy(), xx.sum(-1))
    assert it._domain.event_rank == 1
    st = D.StackTransform([D.ExpTransform(), D.TanhTransform()], 1)
    np.testing.assert_allclose(st.forward(T(xx)).numpy(),
                               np.stack([np.exp(xx[:, 0]), np.tanh(xx[:, 1])], 1), rtol=1e-12)
    np.testing.assert_allclose(st.inverse(st.forward(T(xx))).numpy(), xx, rtol=1e-9)
    with pytest.raises(ValueError):
        st.forward(T(np.ones((2, 3))))
    rt = D.ReshapeTransform((2, 3), (3, 2))
    v = np.arange(12.0).reshape(2, 2, 3)
    assert rt.forward(T(v)).shape == [2, 3, 2]
    np.testing.assert_array_equal(rt.inverse(rt.forward(T(v))).numpy(), v)
    assert tuple(rt.forward_shape((5, 2, 3))) == (5, 3, 2)
    assert rt.forward_log_det_jacobian(T(v)).shape == [2]
    with pytest.raises(ValueError):
        rt.forward_shape((3, 3))
    with pytest.raises(ValueError):
        D.ReshapeTransform((2, 3), (4,))
    # Transform(Transform) chains, Transform(Distribution) transforms
    assert isinstance(D.ExpTransform()(D.TanhTransform()), D.ChainTransform)
    assert isinstance(D.ExpTransform()(D.Normal(0.0, 1.0)), D.TransformedDistribution)


# ---------------- kl registry ----------------
def test_register_kl():
    class MyNormal(D.Normal):
        pass

    calls = []

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        calls.append(1)
        return paddle.zeros([1])

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 2.0)).numpy()[0] == 0.0 and calls
    # the parent pair still applies to the parents
    assert D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 1.0)).numpy()[0] == pytest.approx(0.0)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)


def test_static_mode_log_prob():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            v = paddle.static.data('v', [3], 'float32')
            lp = D.Normal(paddle.to_tensor(np.array([0.0, 1.0, 2.0], 'float32')),
                          paddle.to_tensor(np.array([1.0, 2.0, 3.0], 'float32'))).log_prob(v)
            b = D.Beta(2.0, 3.0).log_prob(v)
        exe = paddle.static.Executor()
        val = np.array([0.1, 0.2, 0.3], 'float32')
        out, ob = exe.run(main, feed={'v': val}, fetch_list=[lp, b])
    finally:
        paddle.disable_static()
    scale = np.array([1.0, 2.0, 3.0])
    ref = -(val - [0.0, 1.0, 2.0]) ** 2 / (2 * scale ** 2) - np.log(scale) - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    np.testing.assert_allclose(ob, [beta_logpdf(x, 2.0, 3.0) for x in val], rtol=1e-5)
