"""Multinomial(total_count, probs)."""
from collections.abc import Iterable

import paddle

from . import categorical, distribution


def _clip_by_zero(x):
    return (x.clip(min=0) + x - x.clip(max=0)) / 2


class Multinomial(distribution.Distribution):
    r"""The multinomial distribution: counts of ``total_count`` categorical draws.

    Args:
        total_count (int): number of draws, >= 1.
        probs (Tensor): event probabilities on the last axis (normalized here).
    """

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError(
                "input parameter total_count must be int type and grater than zero.")
        if len(probs.shape) < 1:
            raise ValueError("probs parameter shoule not be none and over one dimension")
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self._categorical = categorical.Categorical(logits=self._probs_to_logits(probs))
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        if value.dtype != self.probs.dtype:
            value = paddle.cast(value, self.probs.dtype)
        logits, value = paddle.broadcast_tensors([paddle.log(self.probs), value])
        logits = paddle.where(paddle.logical_and(value == 0, paddle.isinf(logits)),
                              paddle.zeros_like(logits), logits)
        return (paddle.lgamma(value.sum(-1) + 1) - paddle.lgamma(value + 1).sum(-1)
                + (value * logits).sum(-1))

    def sample(self, shape=()):
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        draws = self._categorical.sample([self.total_count] + list(shape))
        onehot = paddle.nn.functional.one_hot(draws, self.probs.shape[-1])
        return paddle.cast(onehot, self.probs.dtype).sum(0)

    def entropy(self):
        dt = self.probs.dtype
        n = paddle.full(shape=[1], fill_value=self.total_count, dtype=dt)
        support = paddle.arange(self.total_count + 1, dtype=dt).reshape(
            [-1] + [1] * len(self.probs.shape))[1:]
        pmf = paddle.exp(self._binomial_logpmf(n, support))
        return (n * self._categorical.entropy() - paddle.lgamma(n + 1)
                + (pmf * paddle.lgamma(support + 1)).sum([0, -1]))

    def _binomial_logpmf(self, count, value):
        logits = self._probs_to_logits(self.probs, is_binary=True)
        norm = (count * _clip_by_zero(logits) + count * paddle.log1p(paddle.exp(-paddle.abs(logits)))
                - paddle.lgamma(count + 1))
        return value * logits - paddle.lgamma(value + 1) - paddle.lgamma(count - value + 1) - norm
