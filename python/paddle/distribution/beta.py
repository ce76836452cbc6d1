"""Beta(alpha, beta), through a two-category Dirichlet."""
import numbers

import paddle

from . import dirichlet, exponential_family


class Beta(exponential_family.ExponentialFamily):
    r"""The Beta distribution on [0, 1].

    Args:
        alpha, beta (float|Tensor): positive shape parameters (broadcast together; a float
            becomes a [1] tensor, Paddle 2.3 has no 0-D tensors).
    """

    def __init__(self, alpha, beta):
        if isinstance(alpha, numbers.Real):
            alpha = paddle.full(shape=[1], fill_value=alpha)
        if isinstance(beta, numbers.Real):
            beta = paddle.full(shape=[1], fill_value=beta)
        self.alpha, self.beta = paddle.broadcast_tensors([alpha, beta])
        self._dirichlet = dirichlet.Dirichlet(paddle.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s.pow(2) * (s + 1))

    def prob(self, value):
        return paddle.exp(self.log_prob(value))

    def log_prob(self, value):
        return self._dirichlet.log_prob(paddle.stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        shape = tuple(shape)
        return paddle.squeeze(self._dirichlet.sample(shape)[..., 0], axis=-1)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return paddle.lgamma(x) + paddle.lgamma(y) - paddle.lgamma(x + y)
