"""paddle.nn losses against numpy references: cross_entropy (hard/soft labels, ignore_index,
class weights, label_smoothing, axis, use_softmax), the other losses and their layers, gradients
against finite differences (float64), reductions (shape [1]) and argument errors."""
import numpy as np
import pytest

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

rng = np.random.default_rng(0)


def T(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


def _lsm(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def ce_ref(x, lab, weight=None, ignore_index=-100, reduction="mean"):
    """Paddle 2.3's hard-label cross_entropy over [N, C]."""
    valid = lab != ignore_index
    safe = np.where(valid, lab, 0)
    loss = -np.take_along_axis(_lsm(x), safe[:, None], 1)[:, 0] * valid
    w = np.ones(len(lab)) if weight is None else weight[safe] * valid
    loss = loss * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if weight is None:
        return loss.sum() / (valid.sum() if ignore_index != -100 else len(lab))
    return loss.sum() / w.sum()


def _num_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def check_grad(fn, *arrays, argnum=0):
    ts = [T(a, grad=(i == argnum)) for i, a in enumerate(arrays)]
    out = fn(*ts)
    w = rng.uniform(0.5, 1.5, size=out.shape)
    paddle.sum(out * T(w)).backward()

    def f(a):
        args = [T(b) for b in arrays]
        args[argnum] = T(a)
        return float((fn(*args).numpy() * w).sum())

    np.testing.assert_allclose(ts[argnum].grad.numpy(), _num_grad(f, arrays[argnum].copy()), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ cross entropy
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_hard(reduction, ignore_index, weighted):
    x = rng.normal(size=(8, 5))
    lab = rng.integers(0, 5, size=8)
    lab[0] = 1
    w = rng.uniform(0.2, 2.0, size=5) if weighted else None
    out = F.cross_entropy(T(x), T(lab), weight=None if w is None else T(w), ignore_index=ignore_index,
                          reduction=reduction)
    ref = ce_ref(x, lab, w, ignore_index, reduction)
    assert out.shape == ([1] if reduction != "none" else [8])
    np.testing.assert_allclose(out.numpy().reshape(np.shape(ref)), ref, rtol=1e-10)
    check_grad(lambda a, b: F.cross_entropy(a, b, weight=None if w is None else T(w), ignore_index=ignore_index,
                                            reduction=reduction), x, lab)


def test_cross_entropy_label_with_axis_dim_and_float32():
    x = rng.normal(size=(6, 4)).astype("float32")
    lab = rng.integers(0, 4, size=(6, 1))
    out = F.cross_entropy(T(x), T(lab), reduction="none")
    assert out.shape == [6, 1]
    np.testing.assert_allclose(out.numpy()[:, 0], ce_ref(x.astype("float64"), lab[:, 0], reduction="none"), rtol=1e-5)


def test_cross_entropy_soft_labels():
    x = rng.normal(size=(5, 4))
    lab = rng.uniform(size=(5, 4))
    lab /= lab.sum(-1, keepdims=True)
    w = rng.uniform(0.5, 2.0, size=4)
    out = F.cross_entropy(T(x), T(lab), soft_label=True, reduction="none")
    ref = -(lab * _lsm(x)).sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    out = F.cross_entropy(T(x), T(lab), soft_label=True, weight=T(w))
    wg = lab @ w
    np.testing.assert_allclose(out.numpy(), [(ref[:, 0] * wg).sum() / wg.sum()], rtol=1e-10)
    check_grad(lambda a, b: F.cross_entropy(a, b, soft_label=True, weight=T(w)), x, lab)
    check_grad(lambda a, b: F.cross_entropy(a, b, soft_label=True), x, lab, argnum=1)


def test_cross_entropy_label_smoothing_axis_and_no_softmax():
    x = rng.normal(size=(6, 5))
    lab = rng.integers(0, 5, size=6)
    eps = 0.1
    soft = np.eye(5)[lab] * (1 - eps) + eps / 5
    out = F.cross_entropy(T(x), T(lab), label_smoothing=eps)
    np.testing.assert_allclose(out.numpy(), [(-(soft * _lsm(x)).sum(-1)).mean()], rtol=1e-10)
    check_grad(lambda a, b: F.cross_entropy(a, b, label_smoothing=eps, reduction="none"), x, lab)
    x3 = rng.normal(size=(2, 5, 3))
    lab3 = rng.integers(0, 5, size=(2, 3))
    out = F.cross_entropy(T(x3), T(lab3), axis=1, reduction="none")
    ref = -np.take_along_axis(_lsm(x3, 1), lab3[:, None, :], 1)[:, 0, :]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    check_grad(lambda a, b: F.cross_entropy(a, b, axis=1), x3, lab3)
    p = np.exp(_lsm(x))
    out = F.cross_entropy(T(p), T(lab), use_softmax=False, reduction="none")
    np.testing.assert_allclose(out.numpy(), -np.log(p[np.arange(6), lab]), rtol=1e-10)


def test_cross_entropy_stable_for_large_logits():
    x = np.array([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]], dtype="float32")
    out = F.cross_entropy(T(x), T(np.array([2, 0])), reduction="none")
    np.testing.assert_allclose(out.numpy(), [2000.0, np.log(3.0)], rtol=1e-6)


def test_cross_entropy_second_order():
    x = rng.normal(size=(3, 4))
    lab = T(np.array([0, 3, 1]))
    t = T(x, grad=True)
    (g,) = paddle.grad([F.cross_entropy(t, lab, reduction="sum")], [t], create_graph=True)
    (gg,) = paddle.grad([paddle.sum(g * g)], [t])

    def f(a):
        tt = T(a, grad=True)
        (d,) = paddle.grad([F.cross_entropy(tt, lab, reduction="sum")], [tt])
        return float((d.numpy() ** 2).sum())

    np.testing.assert_allclose(gg.numpy(), _num_grad(f, x), rtol=1e-5, atol=1e-7)


def test_softmax_with_cross_entropy():
    x = rng.normal(size=(4, 6))
    lab = rng.integers(0, 6, size=(4, 1))
    loss, sm = F.softmax_with_cross_entropy(T(x), T(lab), return_softmax=True)
    np.testing.assert_allclose(sm.numpy(), np.exp(_lsm(x)), rtol=1e-10)
    np.testing.assert_allclose(loss.numpy(), -np.take_along_axis(_lsm(x), lab, 1), rtol=1e-10)
    loss = F.softmax_with_cross_entropy(T(x), T(lab), ignore_index=int(lab[0, 0]))
    assert float(loss.numpy()[0, 0]) == 0.0


def test_cross_entropy_layer_and_errors():
    x = rng.normal(size=(4, 3))
    lab = np.array([0, 1, 2, 1])
    layer = nn.CrossEntropyLoss(weight=T(np.array([1.0, 2.0, 0.5])), reduction="sum")
    np.testing.assert_allclose(layer(T(x), T(lab)).numpy(), [ce_ref(x, lab, np.array([1.0, 2.0, 0.5]), reduction="sum")])
    with pytest.raises(ValueError):
        nn.CrossEntropyLoss(reduction="avg")
    with pytest.raises(ValueError):
        F.cross_entropy(T(x), T(lab), reduction="bad")
    with pytest.raises(ValueError):
        F.cross_entropy(T(x), T(np.array([0, 1])))
    with pytest.raises(ValueError):
        F.cross_entropy(T(x), T(np.array([0, 1, 7, 1])))
    with pytest.raises(ValueError):
        F.cross_entropy(T(x), T(lab), weight=T(np.ones(5)))
    with pytest.raises(ValueError):
        F.cross_entropy(T(x), T(rng.uniform(size=(4, 4))), soft_label=True)


def test_nll_loss():
    x = _lsm(rng.normal(size=(5, 4)))
    lab = np.array([0, 3, 1, 2, 3])
    w = np.array([0.5, 1.0, 2.0, 1.5])
    out = F.nll_loss(T(x), T(lab), weight=T(w), ignore_index=2)
    valid = lab != 2
    ref = -(x[np.arange(5), lab] * w[lab] * valid).sum() / (w[lab] * valid).sum()
    np.testing.assert_allclose(out.numpy(), [ref], rtol=1e-10)
    np.testing.assert_allclose(nn.NLLLoss(reduction="none")(T(x), T(lab)).numpy(), -x[np.arange(5), lab])
    x4 = rng.normal(size=(2, 3, 2, 2))
    l4 = rng.integers(0, 3, size=(2, 2, 2))
    np.testing.assert_allclose(F.nll_loss(T(x4), T(l4), reduction="sum").numpy(),
                               [-np.take_along_axis(x4, l4[:, None], 1).sum()], rtol=1e-10)
    check_grad(lambda a, b: F.nll_loss(a, b, weight=T(w)), x, lab)
    with pytest.raises(ValueError):
        F.nll_loss(T(x), T(lab[:3]))


# ------------------------------------------------------------------ elementwise losses
def _pair(shape=(4, 3)):
    return rng.normal(size=shape), rng.normal(size=shape)


REDUCE = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}
ELEMENTWISE = [
    ("mse_loss", {}, lambda a, b: (a - b) ** 2),
    ("l1_loss", {}, lambda a, b: np.abs(a - b)),
    ("smooth_l1_loss", {"delta": 0.7}, lambda a, b: np.where(np.abs(a - b) < 0.7, 0.5 * (a - b) ** 2,
                                                            0.7 * (np.abs(a - b) - 0.35))),
]


@pytest.mark.parametrize("name,kw,ref", ELEMENTWISE, ids=[e[0] for e in ELEMENTWISE])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_elementwise_losses(name, kw, ref, reduction):
    a, b = _pair()
    out = getattr(F, name)(T(a), T(b), reduction=reduction, **kw)
    r = REDUCE[reduction](ref(a, b))
    assert out.shape == ([1] if reduction != "none" else [4, 3])
    np.testing.assert_allclose(out.numpy().reshape(np.shape(r)), r, rtol=1e-10)
    check_grad(lambda x, y: getattr(F, name)(x, y, reduction=reduction, **kw), a, b)
    with pytest.raises(ValueError):
        getattr(F, name)(T(a), T(b), reduction="avg")
    with pytest.raises(ValueError):
        getattr(F, name)(T(a), T(b[:2]))


def test_bce_losses():
    p = rng.uniform(0.05, 0.95, size=(4, 3))
    y = rng.uniform(size=(4, 3))
    w = rng.uniform(0.5, 1.5, size=(4, 3))
    ref = -w * (y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(F.binary_cross_entropy(T(p), T(y), weight=T(w)).numpy(), [ref.mean()], rtol=1e-10)
    np.testing.assert_allclose(nn.BCELoss(reduction="sum")(T(p), T(y)).numpy(),
                               [(-(y * np.log(p) + (1 - y) * np.log(1 - p))).sum()], rtol=1e-10)
    check_grad(lambda a, b: F.binary_cross_entropy(a, b), p, y)
    x = rng.normal(scale=3, size=(4, 3))
    pw = rng.uniform(0.5, 2.0, size=3)
    s = 1 / (1 + np.exp(-x))
    ref = -(pw * y * np.log(s) + (1 - y) * np.log(1 - s))
    out = F.binary_cross_entropy_with_logits(T(x), T(y), pos_weight=T(pw), reduction="none")
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-9)
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(weight=T(w))(T(x), T(y)).numpy(),
                               [(w * -(y * np.log(s) + (1 - y) * np.log(1 - s))).mean()], rtol=1e-9)
    check_grad(lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=T(pw)), x, y)
    big = F.binary_cross_entropy_with_logits(T(np.array([1000.0, -1000.0])), T(np.array([0.0, 1.0])), reduction="none")
    np.testing.assert_allclose(big.numpy(), [1000.0, 1000.0])
    with pytest.raises(ValueError):
        F.binary_cross_entropy(T(p), T(y), reduction="x")


def test_focal_kl_log_losses():
    x = rng.normal(size=(4, 3))
    y = (rng.uniform(size=(4, 3)) > 0.5).astype("float64")
    p = 1 / (1 + np.exp(-x))
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    pt = p * y + (1 - p) * (1 - y)
    at = 0.25 * y + 0.75 * (1 - y)
    norm = np.array([2.0])
    out = F.sigmoid_focal_loss(T(x), T(y), normalizer=T(norm))
    np.testing.assert_allclose(out.numpy(), [(ce * (1 - pt) ** 2 * at).sum() / 2.0], rtol=1e-10)
    check_grad(lambda a, b: F.sigmoid_focal_loss(a, b, reduction="none"), x, y)
    q = np.exp(_lsm(rng.normal(size=(4, 3))))
    lx = _lsm(x)
    kl = q * (np.log(q) - lx)
    np.testing.assert_allclose(F.kl_div(T(lx), T(q), reduction="batchmean").numpy(), [kl.sum() / 4], rtol=1e-10)
    np.testing.assert_allclose(nn.KLDivLoss("none")(T(lx), T(q)).numpy(), kl, rtol=1e-10)
    check_grad(lambda a, b: F.kl_div(a, b), lx, q)
    pr = rng.uniform(0.1, 0.9, size=(4, 1))
    yl = rng.uniform(size=(4, 1))
    ref = -yl * np.log(pr + 1e-4) - (1 - yl) * np.log(1 - pr + 1e-4)
    np.testing.assert_allclose(F.log_loss(T(pr), T(yl)).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(F.square_error_cost(T(pr), T(yl)).numpy(), (pr - yl) ** 2)
    with pytest.raises(ValueError):
        F.kl_div(T(lx), T(q), reduction="avg")


def test_margin_losses():
    a, b = _pair((6,))
    lab = np.where(rng.uniform(size=6) > 0.5, 1.0, -1.0)
    ref = np.maximum(0, -lab * (a - b) + 0.3)
    np.testing.assert_allclose(F.margin_ranking_loss(T(a), T(b), T(lab), margin=0.3).numpy(), [ref.mean()], rtol=1e-10)
    np.testing.assert_allclose(nn.MarginRankingLoss(0.3, "sum")(T(a), T(b), T(lab)).numpy(), [ref.sum()], rtol=1e-10)
    check_grad(lambda x, y: F.margin_ranking_loss(x, y, T(lab), margin=0.3, reduction="none"), a, b)
    ref = np.where(lab == 1, a, np.maximum(0, 1.0 - a))
    np.testing.assert_allclose(F.hinge_embedding_loss(T(a), T(lab), reduction="none").numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(nn.HingeEmbeddingLoss()(T(a), T(lab)).numpy(), [ref.mean()], rtol=1e-10)
    with pytest.raises(ValueError):
        nn.HingeEmbeddingLoss(reduction="bad")


def test_dice_npair_margin_ce():
    p = np.exp(_lsm(rng.normal(size=(3, 4, 5))))
    lab = rng.integers(0, 5, size=(3, 4, 1))
    oh = np.eye(5)[lab[..., 0]]
    inse = (p * oh).sum((1, 2))
    den = p.sum((1, 2)) + oh.sum((1, 2))
    np.testing.assert_allclose(F.dice_loss(T(p), T(lab)).numpy(), [(1 - 2 * inse / (den + 1e-5)).mean()], rtol=1e-10)
    anc, pos = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    labels = np.array([1, 2, 1, 0])
    tgt = (labels[:, None] == labels[None, :]).astype("float64")
    tgt /= tgt.sum(1, keepdims=True)
    ce = -(tgt * _lsm(anc @ pos.T)).sum(1, keepdims=True)
    ref = 0.25 * 0.002 * ((anc ** 2).sum(1).mean() + (pos ** 2).sum(1).mean()) + (tgt * ce).sum(0).mean()
    np.testing.assert_allclose(F.npair_loss(T(anc), T(pos), T(labels)).numpy(), [ref], rtol=1e-10)
    cos = rng.uniform(-0.9, 0.9, size=(3, 5))
    lab = np.array([1, 0, 4])
    adj = cos.copy()
    adj[np.arange(3), lab] = np.cos(np.arccos(cos[np.arange(3), lab]) + 0.5)
    ref = -_lsm(64.0 * adj)[np.arange(3), lab]
    loss, sm = F.margin_cross_entropy(T(cos), T(lab), return_softmax=True, reduction=None)
    np.testing.assert_allclose(loss.numpy()[:, 0], ref, rtol=1e-8)
    np.testing.assert_allclose(sm.numpy(), np.exp(_lsm(64.0 * adj)), rtol=1e-8, atol=1e-12)
