"""Gumbel(loc, scale) (Paddle 2.6)."""
import math

import numpy as np

import paddle

from ._real26 import check_shape, scalar_param
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform


class Gumbel(TransformedDistribution):
    r"""p(x) = exp(-(z + exp(-z))) / scale, z = (x - loc) / scale.

    Args:
        loc (float|Tensor): location. scale (float|Tensor): scale, > 0.
    """

    def __init__(self, loc, scale):
        loc = scalar_param(loc, 'loc', 'Gumbel')
        scale = scalar_param(scale, 'scale', 'Gumbel')
        if loc.shape != scale.shape:
            loc, scale = paddle.broadcast_tensors([loc, scale])
        self.loc, self.scale = loc, scale
        finfo = np.finfo('float32')
        self.base_dist = Uniform(paddle.full_like(self.loc, float(finfo.tiny)),
                                 paddle.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return self.loc + self.scale * float(np.euler_gamma)

    @property
    def variance(self):
        return paddle.pow(self.scale, 2) * (math.pi * math.pi) / 6

    @property
    def stddev(self):
        return paddle.sqrt(self.variance)

    def prob(self, value):
        y = (self.loc - value) / self.scale
        return paddle.exp(y - paddle.exp(y)) / self.scale

    def log_prob(self, value):
        return paddle.log(self.prob(value))

    def cdf(self, value):
        return paddle.exp(-paddle.exp(-(value - self.loc) / self.scale))

    def entropy(self):
        return paddle.log(self.scale) + 1 + float(np.euler_gamma)

    def sample(self, shape):
        with paddle.no_grad():
            return self.rsample(shape)

    def rsample(self, shape):
        """loc - scale * log(-log(u)), u ~ Uniform(tiny, 1 - eps) (gradients flow to loc, scale)."""
        u = self._base.sample(list(check_shape(shape)))
        return self.loc - self.scale * paddle.log(-paddle.log(u))
