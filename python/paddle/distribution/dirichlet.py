"""Dirichlet(concentration)."""
import paddle

from . import exponential_family


def _standard_gamma(alpha):
    return paddle._C_ops.standard_gamma(alpha, 0)


def _dirichlet(concentration):
    """One Dirichlet draw per row of the last axis (normalized Gamma(alpha, 1) draws)."""
    g = _standard_gamma(concentration)
    return g / g.sum(-1, keepdim=True)


class Dirichlet(exponential_family.ExponentialFamily):
    r"""The Dirichlet distribution over the simplex of the last axis.

    Args:
        concentration (Tensor): alpha > 0, at least 1-D; the last axis is the event.
    """

    def __init__(self, concentration):
        if len(concentration.shape) < 1:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def sample(self, shape=()):
        shape = tuple(shape)
        return _dirichlet(self.concentration.expand(list(self._extend_shape(shape))))

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        a = self.concentration
        return ((paddle.log(value) * (a - 1.0)).sum(-1) + paddle.lgamma(a.sum(-1))
                - paddle.lgamma(a).sum(-1))

    def entropy(self):
        a = self.concentration
        a0 = a.sum(-1)
        k = a.shape[-1]
        return (paddle.lgamma(a).sum(-1) - paddle.lgamma(a0) - (k - a0) * paddle.digamma(a0)
                - ((a - 1.0) * paddle.digamma(a)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - paddle.lgamma(x.sum(-1))
