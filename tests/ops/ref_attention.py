"""numpy references for the fused attention core (ops/attention.yaml): per-head scaled dot-product
attention on column blocks of the projections, and its gradient for given softmax probabilities."""
import numpy as np


def _heads(x, h):
    b, t, e = x.shape
    return x.reshape(b, t, h, e // h).transpose(0, 2, 1, 3)


def _merge(x):
    b, h, t, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * d)


def attention(q, k, v, mask, num_heads, scale):
    """(out, probs, keep mask [1]) with dropout 0."""
    Q, K, V = _heads(q, num_heads), _heads(k, num_heads), _heads(v, num_heads)
    s = scale * (Q @ K.transpose(0, 1, 3, 2))
    if mask is not None:
        s = s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    return _merge(p @ V), p, np.ones([1], dtype=np.uint8)


def attention_grad(q, k, v, probs, dout, dprobs, num_heads, scale):
    """(dq, dk, dv) of out = merge(P V_h) with P given (no dropout), plus dprobs on P."""
    Q, K, V = _heads(q, num_heads), _heads(k, num_heads), _heads(v, num_heads)
    dO = _heads(dout, num_heads)
    dV = probs.transpose(0, 1, 3, 2) @ dO
    dP = dO @ V.transpose(0, 1, 3, 2)
    if dprobs is not None:
        dP = dP + dprobs
    dS = probs * (dP - (dP * probs).sum(-1, keepdims=True)) * scale
    return _merge(dS @ K), _merge(dS.transpose(0, 1, 3, 2) @ Q), _merge(dV)
