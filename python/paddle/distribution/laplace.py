"""Laplace(loc, scale) (Paddle 2.6)."""
import numbers

import numpy as np

import paddle

from . import distribution
from ._real26 import scalar_param


class Laplace(distribution.Distribution):
    r"""p(x) = exp(-|x - loc| / scale) / (2 * scale).

    Args:
        loc (float|Tensor): location. scale (float|Tensor): scale, > 0.
    """

    def __init__(self, loc, scale):
        loc = scalar_param(loc, 'loc', 'Laplace')
        scale = scalar_param(scale, 'scale', 'Laplace')
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            loc, scale = paddle.broadcast_tensors([loc, scale])
        self.loc, self.scale = loc, scale
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def _validate_value(self, value):
        if isinstance(value, numbers.Real):
            value = paddle.full([], float(value), dtype='float32')
        if value.dtype != self.scale.dtype:
            value = paddle.cast(value, self.scale.dtype)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(paddle.broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        loc, scale, value = self._validate_value(value)
        return -paddle.log(2 * scale) - paddle.abs(value - loc) / scale

    def entropy(self):
        return 1 + paddle.log(2 * self.scale)

    def cdf(self, value):
        loc, scale, value = self._validate_value(value)
        d = value - loc
        return 0.5 - 0.5 * d.sign() * paddle.expm1(-d.abs() / scale)

    def icdf(self, value):
        loc, scale, value = self._validate_value(value)
        t = value - 0.5
        return loc - scale * t.sign() * paddle.log1p(-2 * t.abs())

    def sample(self, shape=()):
        with paddle.no_grad():
            return self.rsample(tuple(shape))

    def _get_eps(self):
        return 2.22045e-16 if self.loc.dtype in (paddle.float64, paddle.complex128) else 1.19209e-07

    def rsample(self, shape):
        """loc - scale * sign(u) * log1p(-|u|), u ~ U(-1, 1)."""
        eps = self._get_eps()
        shape = list(self._extend_shape(tuple(shape)))
        u = paddle.uniform(shape, dtype=self.loc.dtype, min=float(np.nextafter(-1, 1)) + eps / 2,
                           max=1.0 - eps / 2)
        return self.loc - self.scale * u.sign() * paddle.log1p(-u.abs())

    def kl_divergence(self, other):
        t = paddle.abs(self.loc - other.loc)
        term1 = (self.scale * paddle.exp(-t / self.scale) + t) / other.scale
        return term1 + paddle.log(other.scale / self.scale) - 1
