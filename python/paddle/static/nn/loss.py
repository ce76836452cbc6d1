"""paddle.static.nn.nce (Paddle 2.3): noise-contrastive estimation. Per sample, the true classes
and num_neg_samples negatives drawn by the sampler (uniform, log_uniform or custom_dist; per
run, reproducible with a nonzero seed) are scored by sigmoid(x . w_c + b_c) and the cost is
-sum_true log(o / (o + k q_c)) - sum_neg log(k q_c / (o + k q_c)), q the sampler's probability."""
import numpy as np

from ...nn import functional as F
from ..._C import _C_ops as _ops
from ._helper import Helper, dtype_name, static_only

__all__ = ["nce"]


@static_only
def nce(input, label, num_total_classes, sample_weight=None, param_attr=None, bias_attr=None, num_neg_samples=None,
        name=None, sampler="uniform", custom_dist=None, seed=0, is_sparse=False):
    import paddle
    dt = dtype_name(input)
    if dt not in ("float32", "float64"):
        raise TypeError(f"The data type of 'input' in nce must be ['float32', 'float64'], but received {dt}.")
    if dtype_name(label) != "int64":
        raise TypeError(f"The data type of 'label' in nce must be ['int64'], but received {dtype_name(label)}.")
    if input.ndim != 2:
        raise ValueError(f"The rank of `input` must be 2, but received {input.ndim}.")
    C = int(num_total_classes)
    k = 10 if num_neg_samples is None else int(num_neg_samples)
    if sampler == "uniform":
        probs = np.full(C, 1.0 / C)
    elif sampler == "log_uniform":
        # Paddle's LogUniformSampler(range = C - 1): classes [0, C - 2], p(c) = log((c + 2) / (c + 1)) / log(C)
        c = np.arange(C, dtype=np.float64)
        probs = np.log((c + 2.0) / (c + 1.0)) / np.log(float(C))
    elif sampler == "custom_dist":
        assert custom_dist is not None
        probs = np.asarray(custom_dist, dtype=np.float64)
        if probs.shape != (C,):
            raise ValueError(f"nce: custom_dist needs {C} probabilities, received {probs.shape}")
    else:
        raise Exception("Unsupported sampler type.")
    helper = Helper("nce", name)
    w = helper.param(param_attr, [C, input.shape[1]], dt)
    b = helper.param(bias_attr, [C, 1], dt, is_bias=True) if bias_attr is not False else None
    label.stop_gradient = True
    t = label.shape[1]
    # negatives: per sample, k draws from the sampler through uniform numbers in [0, 1)
    u = paddle.tile(label[:, :1].astype("float64") * 0.0, [1, k])
    u = _ops.uniform_(u, 0.0, 1.0, int(seed))
    if sampler == "uniform":
        neg = paddle.floor(u * C)
    elif sampler == "log_uniform":
        neg = paddle.remainder(paddle.floor(paddle.exp(u * float(np.log(float(C))))) - 1.0, float(max(C - 1, 1)))
    else:
        cdf = paddle.to_tensor(np.cumsum(probs).astype("float64"))
        neg = paddle.searchsorted(cdf, u, right=True).astype("float64")
    neg = paddle.clip(neg, 0.0, float(C - 1)).astype("int64")
    neg.stop_gradient = True
    ids = paddle.concat([label, neg], axis=1)
    logits = paddle.sum(F.embedding(ids, w, sparse=bool(is_sparse)) * input.unsqueeze(1), axis=-1)
    if b is not None:
        logits = logits + F.embedding(ids, b, sparse=bool(is_sparse)).squeeze(-1)
    o = F.sigmoid(logits)
    q = F.embedding(ids, paddle.to_tensor(probs.astype(dt).reshape([-1, 1]))).squeeze(-1) * float(k)
    q.stop_gradient = True
    cost = -paddle.log(o[:, :t] / (o[:, :t] + q[:, :t])).sum(axis=1, keepdim=True) \
        - paddle.log(q[:, t:] / (o[:, t:] + q[:, t:])).sum(axis=1, keepdim=True)
    if sample_weight is not None:
        cost = cost * sample_weight
    return helper.done(cost)
