"""paddle.metric vs independent references: top-k accuracy by counting, precision/recall by
confusion counts, ROC AUC by the rank (Mann-Whitney) formula, functional accuracy."""
import numpy as np
import pytest

import paddle

rng = np.random.default_rng(0)


def test_accuracy_topk_accumulates():
    m = paddle.metric.Accuracy(topk=(1, 3))
    assert m.name() == ["acc_top1", "acc_top3"]
    hits1 = hits3 = n = 0
    for _ in range(4):
        p = rng.random((16, 10)).astype("float32")
        y = rng.integers(0, 10, (16, 1))
        m.update(m.compute(paddle.to_tensor(p), paddle.to_tensor(y)))
        order = np.argsort(-p, axis=1)
        hits1 += (order[:, :1] == y).any(1).sum()
        hits3 += (order[:, :3] == y).any(1).sum()
        n += 16
    a1, a3 = m.accumulate()
    assert a1 == pytest.approx(hits1 / n) and a3 == pytest.approx(hits3 / n)
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    assert paddle.metric.Accuracy().name() == ["acc"]


def test_functional_accuracy():
    p = rng.random((20, 5)).astype("float32")
    y = rng.integers(0, 5, (20, 1))
    acc = paddle.metric.accuracy(paddle.to_tensor(p), paddle.to_tensor(y), k=2)
    want = (np.argsort(-p, axis=1)[:, :2] == y).any(1).mean()
    assert acc.shape == [1] and acc.item() == pytest.approx(want, rel=1e-6)


def test_precision_recall():
    pr, rc = paddle.metric.Precision(), paddle.metric.Recall()
    preds = rng.random(200)
    labels = rng.integers(0, 2, 200)
    pr.update(preds, labels)
    rc.update(paddle.to_tensor(preds), paddle.to_tensor(labels))
    pos = preds > 0.5
    tp = (pos & (labels == 1)).sum()
    assert pr.accumulate() == pytest.approx(tp / pos.sum())
    assert rc.accumulate() == pytest.approx(tp / (labels == 1).sum())
    with pytest.raises(ValueError):
        pr.update(np.ones(3), np.ones(4))


def test_auc_roc_matches_rank_formula():
    m = paddle.metric.Auc()
    scores = rng.random(500)
    labels = (rng.random(500) < scores).astype(np.int64)  # informative scores
    preds = np.stack([1 - scores, scores], axis=1)
    m.update(preds, labels)
    pos, neg = scores[labels == 1], scores[labels == 0]
    exact = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert m.accumulate() == pytest.approx(exact, abs=2e-3)
    with pytest.raises(ValueError):
        paddle.metric.Auc(curve="XYZ")
