"""Normal(loc, scale)."""
import math
from collections.abc import Iterable

import numpy as np

import paddle

from . import distribution


def _param_dtype(a, b):
    for v in (a, b):
        if isinstance(v, np.ndarray) and str(v.dtype) in ('float32', 'float64'):
            return str(v.dtype)
    return 'float32'


def _init_params(dist, a, b):
    """Shared by Normal and Uniform: Tensors are kept, numbers/lists/arrays become tensors."""
    dist.all_arg_is_float = False
    dist.dtype = 'float32'
    if isinstance(a, int) and not isinstance(a, bool):
        a = float(a)
    if isinstance(b, int) and not isinstance(b, bool):
        b = float(b)
    if dist._validate_args(a, b):
        dist.dtype = distribution._dtype_name(a)
        return a, b
    if isinstance(a, float) and isinstance(b, float):
        dist.all_arg_is_float = True
    dist.dtype = _param_dtype(a, b)
    ta, tb = dist._to_tensor(a, b)
    if distribution._dtype_name(ta) != dist.dtype:
        ta, tb = paddle.cast(ta, dist.dtype), paddle.cast(tb, dist.dtype)
    return ta, tb


def _check_shape(shape, what='sample'):
    if not isinstance(shape, Iterable):
        raise TypeError(f"{what} shape must be Iterable object.")
    return [int(s) for s in shape]


class Normal(distribution.Distribution):
    r"""The normal distribution N(loc, scale^2).

    Args:
        loc (int|float|list|tuple|numpy.ndarray|Tensor): mean.
        scale (int|float|list|tuple|numpy.ndarray|Tensor): standard deviation.
        name (str, optional): name prefix of the ops.
    """

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else 'Normal'
        self.loc, self.scale = _init_params(self, loc, scale)
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale.pow(2)

    def _batch(self):
        shape = list((self.loc + self.scale).shape)
        if -1 in shape:
            raise NotImplementedError(
                f"{self.name}: sampling needs a known batch shape, received {shape}")
        return shape

    def sample(self, shape=(), seed=0):
        """Draws samples of shape ``shape + batch_shape`` (no gradient)."""
        shape = _check_shape(shape)
        out_shape = shape + self._batch()
        eps = paddle._C_ops.gaussian(out_shape, 0.0, 1.0, int(seed), self.dtype)
        out = eps * (paddle.zeros(out_shape, dtype=self.dtype) + self.scale) + self.loc
        if self.all_arg_is_float:
            return paddle.reshape(out, shape)
        return out

    def rsample(self, shape=()):
        """Reparameterized samples loc + eps * scale (gradients flow to loc and scale)."""
        shape = _check_shape(shape)
        eps = paddle.normal(shape=list(self._extend_shape(shape)))
        if eps.dtype != self.loc.dtype:
            eps = paddle.cast(eps, self.loc.dtype)
        return self.loc + eps * self.scale

    def entropy(self):
        zero = paddle.zeros(self._batch(), dtype=self.dtype)
        return 0.5 + zero + (0.5 * math.log(2 * math.pi) + paddle.log(self.scale + zero))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        d = value - self.loc
        return -1.0 * (d * d) / (2.0 * var) - (paddle.log(self.scale)
                                               + math.log(math.sqrt(2.0 * math.pi)))

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        d = value - self.loc
        return paddle.exp(-1.0 * (d * d) / (2.0 * var)) / (math.sqrt(2 * math.pi) * self.scale)

    def prob(self, value):
        return self.probs(value)

    def kl_divergence(self, other):
        """KL(self || other) between two Normals."""
        if not isinstance(other, Normal):
            return super().kl_divergence(other)
        ratio = self.scale / other.scale
        ratio = ratio * ratio
        t1 = (self.loc - other.loc) / other.scale
        t1 = t1 * t1
        return 0.5 * ratio + 0.5 * (t1 - 1.0 - paddle.log(ratio))
