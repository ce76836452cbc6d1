"""Bernoulli(probs) (Paddle 2.6)."""
import numpy as np

import paddle

from . import exponential_family
from .distribution import _dtype_name
from ._real26 import check_shape, check_value

_EPS = {'float32': float(np.finfo(np.float32).eps), 'float64': float(np.finfo(np.float64).eps)}


class Bernoulli(exponential_family.ExponentialFamily):
    r"""The Bernoulli distribution: P(X=1) = probs, P(X=0) = 1 - probs.

    Args:
        probs (float|Tensor): the probability of 1, in [0, 1]. A float gives a 0-D parameter.
        name (str, optional): name prefix of the ops.
    """

    def __init__(self, probs, name=None):
        self.name = name or 'Bernoulli'
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = _dtype_name(probs)
        else:
            if isinstance(probs, (int, float)) and not isinstance(probs, bool):
                self.probs = paddle.full([], float(probs), dtype=paddle.get_default_dtype())
            else:
                [self.probs] = self._to_tensor(probs)
            self.dtype = paddle.get_default_dtype()
        if paddle.in_dynamic_mode():
            p = self.probs.numpy()
            if np.any(p < 0) or np.any(p > 1) or np.any(np.isnan(p)):
                raise ValueError("The arg of `probs` must be in range [0, 1].")
        eps = _EPS.get(self.dtype, _EPS['float32'])
        self.probs = paddle.cast(paddle.clip(self.probs, min=eps, max=1 - eps), self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=tuple(self.probs.shape), event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, shape):
        """Draws 0/1 samples of shape ``shape + batch_shape`` (no gradient)."""
        shape = self._extend_shape(check_shape(shape))
        with paddle.no_grad():
            return paddle.bernoulli(self.probs.expand(list(shape)))

    def rsample(self, shape, temperature=1.0):
        """Relaxed (Gumbel-softmax / concrete) samples: logit(u) + logit(probs), over temperature;
        gradients flow to probs."""
        shape = list(self._extend_shape(check_shape(shape)))
        t = paddle.full([], float(temperature), dtype=self.dtype)
        probs = self.probs.expand(shape)
        u = paddle.rand(shape, dtype=self.dtype)
        return ((u.log() - (-u).log1p()) + (probs.log() - (-probs).log1p())) / t

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.probs, check_value(value, self))
        probs, value = paddle.broadcast_tensors([self.probs, value])
        zeros, ones = paddle.zeros_like(probs), paddle.ones_like(probs)
        return paddle.where(value < 0, zeros, paddle.where(value < 1, ones - probs, ones))

    def log_prob(self, value):
        import paddle.nn.functional as F
        value = self._check_values_dtype_in_probs(self.probs, check_value(value, self))
        logits, value = paddle.broadcast_tensors([self.logits, value])
        return -F.binary_cross_entropy_with_logits(logits, value, reduction='none')

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        import paddle.nn.functional as F
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction='none')

    def kl_divergence(self, other):
        import paddle.nn.functional as F
        if not isinstance(other, Bernoulli):
            raise TypeError(f"Expected type of other is Bernoulli, but got {type(other)}")
        a, b = self.logits, other.logits
        pa, qa = F.sigmoid(a), F.sigmoid(-a)
        return ((-F.softplus(-a)) * pa - (-F.softplus(-b)) * pa
                + (-F.softplus(a)) * qa - (-F.softplus(b)) * qa)
