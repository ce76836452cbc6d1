"""paddle.metric (Paddle 2.3): the Metric base (compute -> update -> accumulate -> reset,
name), Accuracy (top-k; names 'acc' or 'acc_topK'), Precision and Recall (binary, threshold
0.5), Auc (ROC or PR from a histogram over num_thresholds buckets), and the functional
accuracy(input, label, k). compute runs on tensors (our ops); update/accumulate keep small
running counts on the host, as Paddle's do."""
import abc

import numpy as np

from .. import _C

Tensor = _C.Tensor


def _np(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


class Metric(abc.ABC):
    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        ...

    @abc.abstractmethod
    def update(self, *args):
        ...

    @abc.abstractmethod
    def accumulate(self):
        ...

    @abc.abstractmethod
    def name(self):
        ...

    def compute(self, *args):
        """Optional: turns (outputs, labels) into the states update() takes (default: as is)."""
        return args


class Accuracy(Metric):
    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__()
        self.topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not self.topk or any(not isinstance(k, int) or k < 1 for k in self.topk):
            raise ValueError(f"Accuracy: topk must be positive ints, received {topk!r}")
        self.maxk = max(self.topk)
        self._init_name(name)
        self.reset()

    def _init_name(self, name):
        name = name or "acc"
        if self.maxk != 1 or len(self.topk) > 1:
            self._name = [f"{name}_top{k}" for k in self.topk]
        else:
            self._name = [name]

    def compute(self, pred, label, *args):
        """[N, maxk] float32: 1 where the i-th ranked class equals the label."""
        from ..tensor.search import argsort
        from ..tensor.to_tensor import to_tensor
        pred = pred if isinstance(pred, Tensor) else to_tensor(np.asarray(pred))
        label = label if isinstance(label, Tensor) else to_tensor(np.asarray(label))
        idx = argsort(pred, axis=-1, descending=True)
        idx = idx[..., : self.maxk]
        if label.ndim == pred.ndim and label.shape[-1] != 1:  # one-hot labels
            label = _C._C_ops.argmax(label, -1, True, False, _C.dtypes[5])
        elif label.ndim == pred.ndim - 1:
            label = _C._C_ops.unsqueeze(label, [-1])
        label = _C._C_ops.cast(label, idx.dtype)
        correct = _C._C_ops.equal(idx, label)
        return _C._C_ops.cast(correct, _C.dtypes[8])

    def update(self, correct, *args):
        c = _np(correct)
        n = int(np.prod(c.shape[:-1])) if c.ndim > 1 else c.shape[0]
        accs = []
        for i, k in enumerate(self.topk):
            num = float(c[..., :k].sum())
            accs.append(num / n if n else 0.0)
            self.total[i] += num
            self.count[i] += n
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


class _BinaryCounts(Metric):
    """Shared by Precision and Recall: preds are probabilities (> 0.5 counts as positive),
    labels 0/1; keeps tp, fp, fn."""

    def __init__(self, name):
        super().__init__()
        self._name = name
        self.reset()

    def update(self, preds, labels):
        p = np.floor(_np(preds).reshape(-1) + 0.5).astype(np.int64)
        lab = _np(labels).reshape(-1).astype(np.int64)
        if p.shape != lab.shape:
            raise ValueError(f"{type(self).__name__}: preds and labels differ in size: {p.shape} vs {lab.shape}")
        self.tp += int(((p == 1) & (lab == 1)).sum())
        self.fp += int(((p == 1) & (lab == 0)).sum())
        self.fn += int(((p == 0) & (lab == 1)).sum())

    def reset(self):
        self.tp = self.fp = self.fn = 0

    def name(self):
        return self._name


class Precision(_BinaryCounts):
    """Binary precision tp / (tp + fp)."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(name)

    def accumulate(self):
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0


class Recall(_BinaryCounts):
    """Binary recall tp / (tp + fn)."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(name)

    def accumulate(self):
        r = self.tp + self.fn
        return float(self.tp) / r if r != 0 else 0.0


class Auc(Metric):
    """Area under the ROC (or PR) curve from score histograms; preds are [N, 2] class
    probabilities (column 1 is the positive score) or [N]/[N, 1] positive scores."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__()
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Auc: curve must be 'ROC' or 'PR', received {curve!r}")
        if not isinstance(num_thresholds, int) or num_thresholds < 1:
            raise ValueError("Auc: num_thresholds must be a positive int")
        self._curve, self._num_thresholds, self._name = curve, num_thresholds, name
        self.reset()

    def update(self, preds, labels):
        p = _np(preds)
        if p.ndim == 2 and p.shape[1] == 2:
            p = p[:, 1]
        p = p.reshape(-1)
        lab = _np(labels).reshape(-1)
        if p.shape != lab.shape:
            raise ValueError(f"Auc: preds and labels differ in size: {p.shape} vs {lab.shape}")
        bins = np.clip((p * self._num_thresholds).astype(np.int64), 0, self._num_thresholds)
        pos = lab.astype(bool)
        self._stat_pos += np.bincount(bins[pos], minlength=self._num_thresholds + 1)
        self._stat_neg += np.bincount(bins[~pos], minlength=self._num_thresholds + 1)

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1, dtype=np.int64)
        self._stat_neg = np.zeros(self._num_thresholds + 1, dtype=np.int64)

    def accumulate(self):
        tot_pos = tot_neg = 0.0
        auc = 0.0
        if self._curve == "ROC":
            for i in range(self._num_thresholds, -1, -1):
                new_pos = tot_pos + self._stat_pos[i]
                new_neg = tot_neg + self._stat_neg[i]
                auc += (new_neg - tot_neg) * (tot_pos + new_pos) / 2.0
                tot_pos, tot_neg = new_pos, new_neg
            return auc / tot_pos / tot_neg if tot_pos > 0 and tot_neg > 0 else 0.0
        # PR: precision integrated over recall
        prev_recall, prev_prec = 0.0, 1.0
        total_pos = float(self._stat_pos.sum())
        if total_pos == 0:
            return 0.0
        for i in range(self._num_thresholds, -1, -1):
            tot_pos += self._stat_pos[i]
            tot_neg += self._stat_neg[i]
            if tot_pos + tot_neg == 0:
                continue
            recall = tot_pos / total_pos
            prec = tot_pos / (tot_pos + tot_neg)
            auc += (recall - prev_recall) * (prec + prev_prec) / 2.0
            prev_recall, prev_prec = recall, prec
        return auc

    def name(self):
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of a batch as a float32 Tensor [1]."""
    from ..tensor.search import topk as _topk
    if not isinstance(input, Tensor) or not isinstance(label, Tensor):
        raise TypeError("accuracy: input and label must be Tensors")
    _, idx = _topk(input, k)
    lab = label if label.ndim == idx.ndim else _C._C_ops.unsqueeze(label, [-1])
    lab = _C._C_ops.cast(lab, idx.dtype)
    hit = _C._C_ops.any(_C._C_ops.equal(idx, lab), [-1], False)
    n = hit.shape[0] if hit.ndim else 1
    acc = _C._C_ops.scale(_C._C_ops.sum(_C._C_ops.cast(hit, _C.dtypes[8]), [], False, None), 1.0 / max(n, 1), 0.0, True)
    if correct is not None:
        correct._copy_(_C._C_ops.sum(_C._C_ops.cast(hit, correct.dtype), [], False, None))
    if total is not None:
        total._copy_(_C._C_ops.full([1], n, total.dtype))
    return acc


__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
