"""The losses of Paddle 2.4-2.6 (issue 23; python/paddle/nn/functional/loss26.py) against
independent references: numpy formulas, brute-force enumeration of RNN-T alignments, finite
differences. tests/conformance (loss family) compares them with real Paddle 2.6.2's answers."""
import itertools
import math

import numpy as np
import pytest

import paddle
import paddle.nn.functional as F


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def test_soft_margin_and_multilabel_match_numpy():
    rs = np.random.RandomState(0)
    x, y = rs.randn(5, 4), np.sign(rs.randn(5, 4))
    np.testing.assert_allclose(F.soft_margin_loss(_t(x), _t(y), "none").numpy(), np.log1p(np.exp(-y * x)),
                               rtol=1e-12)
    # stable where exp(-y x) overflows
    big = F.soft_margin_loss(_t(np.array([-800.0])), _t(np.array([1.0])), "sum")
    assert abs(float(big) - 800.0) < 1e-9
    lab, w = rs.rand(5, 4), rs.rand(4)
    ref = -(lab * _log_sigmoid(x) + (1 - lab) * _log_sigmoid(-x)) * w
    got = F.multi_label_soft_margin_loss(_t(x), _t(lab), weight=_t(w), reduction="none")
    np.testing.assert_allclose(got.numpy(), ref.mean(-1), rtol=1e-12)
    assert list(got.shape) == [5]


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_matches_the_documented_formula(p):
    rs = np.random.RandomState(1)
    x, y, w = rs.randn(6, 5), rs.randint(0, 5, 6), rs.rand(5) + 0.5
    ref = np.zeros(6)
    for i in range(6):
        for j in range(5):
            if j != y[i]:
                ref[i] += max(0.0, w[y[i]] * (0.7 - x[i, y[i]] + x[i, j])) ** p / 5
    got = F.multi_margin_loss(_t(x), _t(y), p=p, margin=0.7, weight=_t(w), reduction="none")
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(float(paddle.nn.MultiMarginLoss(p=p, margin=0.7, weight=_t(w))(_t(x), _t(y))),
                               ref.mean(), rtol=1e-12)


def test_poisson_and_gaussian_nll_match_numpy():
    rs = np.random.RandomState(2)
    x, lab = rs.randn(3, 4), rs.randint(0, 5, (3, 4)).astype("float64")
    st = np.where(lab > 1, lab * np.log(np.maximum(lab, 1)) - lab + 0.5 * np.log(2 * np.pi * np.maximum(lab, 1)), 0)
    np.testing.assert_allclose(F.poisson_nll_loss(_t(x), _t(lab), full=True, reduction="none").numpy(),
                               np.exp(x) - lab * x + st, rtol=1e-12)
    xp = rs.rand(3, 4) + 0.1
    np.testing.assert_allclose(float(F.poisson_nll_loss(_t(xp), _t(lab), log_input=False, reduction="sum")),
                               (xp - lab * np.log(xp + 1e-8)).sum(), rtol=1e-12)
    var = rs.rand(3) + 0.2
    ref = 0.5 * (np.log(var[:, None]) + (x - lab) ** 2 / var[:, None]) + 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(float(F.gaussian_nll_loss(_t(x), _t(lab), _t(var), full=True)), ref.mean(),
                               rtol=1e-12)


def test_gaussian_nll_variance_gets_a_gradient():
    """Paddle 2.6.2 clamps under no_grad and leaves variance without a gradient; ours is
    d loss / d variance (finite differences), also through the epsilon clamp's passthrough."""
    rs = np.random.RandomState(3)
    x, lab, var = rs.randn(4, 2), rs.randn(4, 2), rs.rand(4, 2) + 0.3
    v = _t(var, grad=True)
    F.gaussian_nll_loss(_t(x), _t(lab), v, reduction="sum").backward()
    num = 0.5 * (1 / var - (x - lab) ** 2 / var ** 2)
    np.testing.assert_allclose(v.grad.numpy(), num, rtol=1e-10)
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(_t(x), _t(lab), _t(-var))
    with pytest.raises(ValueError, match="incorrect shape"):
        F.gaussian_nll_loss(_t(x), _t(lab), _t(var[:, :1].repeat(3, 1)))


def test_cosine_embedding_and_triplet_match_numpy():
    rs = np.random.RandomState(4)
    a, b, n = rs.randn(5, 3), rs.randn(5, 3), rs.randn(5, 3)
    lab = np.array([1, -1, 1, -1, -1])
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-11) * ((b * b).sum(1) + 1e-11))
    ref = np.where(lab == 1, 1 - cos, np.maximum(cos - 0.1, 0))
    np.testing.assert_allclose(F.cosine_embedding_loss(_t(a), _t(b), _t(lab), margin=0.1, reduction="none").numpy(),
                               ref, rtol=1e-10)
    d = lambda u, v: np.abs(u - v + 1e-6).sum(1)  # noqa: E731  (p = 1)
    ref = np.maximum(d(a, b) - np.minimum(d(a, n), d(b, n)) + 1.0, 0)
    got = F.triplet_margin_loss(_t(a), _t(b), _t(n), p=1, swap=True, reduction="none")
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10)


def test_triplet_with_distance_function():
    rs = np.random.RandomState(5)
    a, b, n = rs.randn(4, 3), rs.randn(4, 3), rs.randn(4, 3)
    cosd = lambda u, v: 1 - F.cosine_similarity(u, v, axis=1)  # noqa: E731
    got = paddle.nn.TripletMarginWithDistanceLoss(distance_function=cosd, margin=0.5, reduction="none")(
        _t(a), _t(b), _t(n))
    c = lambda u, v: 1 - (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)  # noqa: E731
    np.testing.assert_allclose(got.numpy(), np.maximum(c(a, b) - c(a, n) + 0.5, 0), rtol=1e-6)
    zero = lambda u, v: (u - v).abs().sum(1) * 0  # noqa: E731
    with pytest.raises(ValueError, match="greater than 0"):
        F.triplet_margin_with_distance_loss(_t(a), _t(b), _t(n), distance_function=zero)
    with pytest.raises(ValueError, match="margin"):
        F.triplet_margin_with_distance_loss(_t(a), _t(b), _t(n), margin=-1)


def _rnnt_brute(lp, y, T):
    """-log of the sum over every monotonic alignment: a path is T blanks and U labels interleaved,
    ending with a blank at (T - 1, U)."""
    U = len(y)
    total = -np.inf
    for pos in itertools.combinations(range(T - 1 + U), U):  # which of the first T-1+U steps emit labels
        t = u = 0
        s = 0.0
        for k in range(T - 1 + U):
            if k in pos:
                s += lp[t, u, y[u]]
                u += 1
            else:
                s += lp[t, u, 0]
                t += 1
        s += lp[T - 1, U, 0]
        total = np.logaddexp(total, s)
    return -total


def test_rnnt_loss_equals_brute_force_and_finite_differences():
    rs = np.random.RandomState(6)
    B, Tm, Um, D = 2, 4, 3, 4
    x = rs.randn(B, Tm, Um + 1, D)
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    lab = np.array([[1, 3, 2], [2, 1, 0]], dtype="int32")
    il, ll = np.array([4, 3], dtype="int32"), np.array([3, 2], dtype="int32")
    t = _t(lp, grad=True)
    loss = F.rnnt_loss(t, _t(lab), _t(il), _t(ll), fastemit_lambda=0.0, reduction="none")
    ref = [_rnnt_brute(lp[0], lab[0, :3], 4), _rnnt_brute(lp[1, :3], lab[1, :2], 3)]
    np.testing.assert_allclose(loss.numpy(), ref, rtol=1e-12)
    paddle.sum(loss * _t(np.array([1.0, 2.0]))).backward()
    g = t.grad.numpy()
    assert np.all(g[1, 3:] == 0) and np.all(g[1, :, 3:] == 0)  # past the lengths
    eps = 1e-6
    for idx in [(0, 0, 0, 0), (0, 1, 1, 3), (0, 2, 2, 2), (1, 1, 1, 1), (1, 2, 2, 0)]:
        hi, lo = lp.copy(), lp.copy()
        hi[idx] += eps
        lo[idx] -= eps
        b = idx[0]
        Tb, Ub = int(il[b]), int(ll[b])
        fd = (_rnnt_brute(hi[b, :Tb], lab[b, :Ub], Tb) - _rnnt_brute(lo[b, :Tb], lab[b, :Ub], Tb)) / (2 * eps)
        np.testing.assert_allclose(g[idx], fd * (1.0 + b), rtol=1e-6, atol=1e-9)
    # FastEmit scales the label emissions' gradient only; 'mean' is the sum over B
    t2 = _t(lp, grad=True)
    m = F.rnnt_loss(t2, _t(lab), _t(il), _t(ll), fastemit_lambda=0.5)
    np.testing.assert_allclose(float(m), sum(ref) / 2, rtol=1e-12)
    with pytest.raises(ValueError):
        F.rnnt_loss(t, _t(lab), _t(np.array([5, 3], dtype="int32")), _t(ll))


def test_layers_and_inplace_activations():
    x = _t(np.array([[-2.0, 0.3, 1.5, 3.0]]))
    y = F.leaky_relu_(x, 0.5)
    assert y is x and np.allclose(x.numpy(), [[-1.0, 0.3, 1.5, 3.0]])
    F.thresholded_relu_(x, 1.0)
    assert np.allclose(x.numpy(), [[0.0, 0.0, 1.5, 3.0]])
    F.hardtanh_(x, 0.0, 2.0)
    assert np.allclose(x.numpy(), [[0.0, 0.0, 1.5, 2.0]])
    z = np.random.RandomState(7).randn(2, 3, 2, 2)
    sm = paddle.nn.Softmax2D()(_t(z)).numpy()
    np.testing.assert_allclose(sm, np.exp(z) / np.exp(z).sum(1, keepdims=True), rtol=1e-12)
    g = paddle.nn.GLU(axis=0)(_t(z)).numpy()
    np.testing.assert_allclose(g, z[:1] / (1 + np.exp(-z[1:])), rtol=1e-12)
    with pytest.raises(ValueError):
        paddle.nn.CosineEmbeddingLoss(margin=1.5)
    with pytest.raises(ValueError):
        paddle.nn.PoissonNLLLoss(epsilon=0)
    assert paddle.nn.loss.SoftMarginLoss is paddle.nn.SoftMarginLoss
    assert paddle.nn.loss.CrossEntropyLoss is paddle.nn.CrossEntropyLoss
