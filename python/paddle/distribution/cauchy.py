"""Cauchy(loc, scale) (Paddle 2.6)."""
import math

import paddle

from . import distribution
from ._real26 import check_shape, check_value, scalar_param


class Cauchy(distribution.Distribution):
    r"""The Cauchy distribution: p(x) = 1 / (pi * scale * (1 + ((x - loc) / scale)^2)).

    Args:
        loc (float|Tensor): location. scale (float|Tensor): scale, > 0.
        name (str, optional): name prefix of the ops.
    """

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else 'Cauchy'
        loc = scalar_param(loc, 'loc', 'Cauchy')
        scale = scalar_param(scale, 'scale', 'Cauchy')
        if loc.shape != scale.shape:
            loc, scale = paddle.broadcast_tensors([loc, scale])
        self.loc, self.scale = loc, scale
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape), event_shape=())

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape, name=None):
        with paddle.no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape, name=None):
        """loc + scale * tan(pi * (u - 0.5)), u ~ U[0, 1)."""
        shape = list(self._extend_shape(check_shape(shape)))
        u = paddle.rand(shape, dtype=self.dtype)
        return self.loc.expand(shape) + self.scale.expand(shape) * paddle.tan(math.pi * (u - 0.5))

    def prob(self, value):
        return self.log_prob(value).exp()

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, check_value(value, self))
        loc, scale, value = paddle.broadcast_tensors([self.loc, self.scale, value])
        return -(paddle.square((value - loc) / scale)).log1p() - (math.log(math.pi) + scale.log())

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.loc, check_value(value, self))
        loc, scale, value = paddle.broadcast_tensors([self.loc, self.scale, value])
        return paddle.atan((value - loc) / scale) / math.pi + 0.5

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()

    def kl_divergence(self, other):
        if not isinstance(other, Cauchy):
            raise TypeError(f"Expected type of other is Cauchy, but got {type(other)}")
        t1 = ((self.scale + other.scale) ** 2 + (self.loc - other.loc) ** 2).log()
        return t1 - (4 * self.scale * other.scale).log()
