"""Geometric(probs) (Paddle 2.6): the number of failures before the first success."""
import numbers

import numpy as np

import paddle

from . import distribution
from .distribution import _is_tensor


def _check_k(k):
    if isinstance(k, bool) or not (isinstance(k, numbers.Integral) or _is_tensor(k)):
        raise TypeError(f"Expected type of k is number.Real|framework.Variable, but got {type(k)}")
    return k


class Geometric(distribution.Distribution):
    r"""P(X = k) = (1 - probs)^k * probs, k = 0, 1, 2, ...

    Args:
        probs (float|Tensor): success probability, in (0, 1].
    """

    def __init__(self, probs):
        if isinstance(probs, numbers.Real) and not isinstance(probs, bool):
            probs = paddle.full([], float(probs), dtype='float32')
        elif not _is_tensor(probs):
            raise TypeError("Expected type of probs is Number.Real|Tensor|framework.Variable, "
                            f"but got {type(probs)}")
        if paddle.in_dynamic_mode():
            p = probs.numpy()
            if np.any(p <= 0) or np.any(p > 1):
                raise ValueError("Expected parameter probs of distribution Geometric to satisfy "
                                 "the constraint Interval(lower_bound=0.0, upper_bound=1.0)")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        return paddle.sqrt(self.variance)

    def pmf(self, k):
        return paddle.pow(1.0 - self.probs, _check_k(k)) * self.probs

    def log_pmf(self, k):
        return paddle.log(self.pmf(k))

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """floor(log(u) / log1p(-probs)), u ~ U(tiny, 1)."""
        shape = list(self._extend_shape(tuple(shape)))
        u = paddle.uniform(shape, dtype=self.probs.dtype,
                           min=float(np.finfo('float32').tiny), max=1.0)
        return paddle.floor(paddle.log(u) / paddle.log1p(-self.probs))

    def entropy(self):
        x = (1.0 - self.probs) * paddle.log(1.0 - self.probs)
        return -(x + self.probs * paddle.log(self.probs)) / self.probs

    def cdf(self, k):
        return 1.0 - paddle.pow(1.0 - self.probs, _check_k(k) + 1)

    def kl_divergence(self, other):
        if not isinstance(other, Geometric):
            raise TypeError(f"Exected type of other is geometric.Geometric, but got {type(other)}")
        p, q = self.probs, other.probs
        return p * paddle.log(p / q) + (1.0 - p) * paddle.log((1.0 - p) / (1.0 - q))
