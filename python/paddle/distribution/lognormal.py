"""LogNormal(loc, scale) (Paddle 2.6): exp(X), X ~ Normal(loc, scale)."""
import numbers

import paddle

from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution


def _param(v):
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return paddle.full([], float(v), dtype='float32')
    return v


class LogNormal(TransformedDistribution):
    r"""The log-normal distribution: Y = exp(X), X ~ Normal(loc, scale).

    Args:
        loc (int|float|list|tuple|numpy.ndarray|Tensor): mean of the underlying normal.
        scale (int|float|list|tuple|numpy.ndarray|Tensor): its standard deviation.
    """

    def __init__(self, loc, scale):
        loc, scale = _param(loc), _param(scale)
        if isinstance(loc, paddle.Tensor) != isinstance(scale, paddle.Tensor):
            loc = loc if isinstance(loc, paddle.Tensor) else paddle.to_tensor(loc, dtype=scale.dtype)
            scale = scale if isinstance(scale, paddle.Tensor) else paddle.to_tensor(scale, dtype=loc.dtype)
        self._base = Normal(loc=loc, scale=scale)
        self.loc = self._base.loc
        self.scale = self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return paddle.exp(self._base.mean + self._base.variance / 2)

    @property
    def variance(self):
        return paddle.expm1(self._base.variance) * paddle.exp(2 * self._base.mean + self._base.variance)

    def entropy(self):
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        return paddle.exp(self.log_prob(value))

    def kl_divergence(self, other):
        return self._base.kl_divergence(other._base)
