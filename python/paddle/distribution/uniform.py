"""Uniform(low, high) on [low, high)."""
import paddle

from . import distribution
from .normal import _init_params, _check_shape


class Uniform(distribution.Distribution):
    r"""The uniform distribution on [low, high).

    Args:
        low, high (int|float|list|tuple|numpy.ndarray|Tensor): bounds.
        name (str, optional): name prefix of the ops.
    """

    def __init__(self, low, high, name=None):
        self.name = name if name is not None else 'Uniform'
        self.batch_size_unknown = False
        self.low, self.high = _init_params(self, low, high)
        super().__init__(tuple(self.low.shape))

    @property
    def mean(self):
        return (self.low + self.high) / 2.0

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12.0

    def _batch(self):
        shape = list((self.low + self.high).shape)
        if -1 in shape:
            raise NotImplementedError(
                f"{self.name}: sampling needs a known batch shape, received {shape}")
        return shape

    def sample(self, shape, seed=0):
        """Draws samples of shape ``shape + batch_shape``."""
        shape = _check_shape(shape)
        out_shape = shape + self._batch()
        u = paddle.uniform(out_shape, dtype=self.dtype, min=0.0, max=1.0, seed=seed)
        out = u * (paddle.zeros(out_shape, dtype=self.dtype) + (self.high - self.low)) + self.low
        if self.all_arg_is_float:
            return paddle.reshape(out, shape)
        return out

    def rsample(self, shape=()):
        shape = _check_shape(shape)
        u = paddle.uniform(list(self._extend_shape(shape)), dtype=self.dtype, min=0.0, max=1.0)
        return self.low + u * (self.high - self.low)

    def _inside(self, value):
        lb = paddle.cast(self.low < value, value.dtype)
        ub = paddle.cast(value < self.high, value.dtype)
        return lb * ub

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return paddle.log(self._inside(value)) - paddle.log(self.high - self.low)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._inside(value) / (self.high - self.low)

    def prob(self, value):
        return self.probs(value)

    def entropy(self):
        return paddle.log(self.high - self.low)

    def kl_divergence(self, other):
        """KL(self || other): log((b2 - a2) / (b1 - a1)) when [a1, b1] lies in [a2, b2], else inf."""
        if not isinstance(other, Uniform):
            return super().kl_divergence(other)
        kl = paddle.log((other.high - other.low) / (self.high - self.low))
        inside = paddle.logical_and(other.low <= self.low, self.high <= other.high)
        return paddle.where(inside, kl, paddle.full_like(kl, float('inf')))
