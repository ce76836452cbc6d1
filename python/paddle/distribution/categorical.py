"""Categorical(logits)."""
import numpy as np

import paddle

from . import distribution


class Categorical(distribution.Distribution):
    r"""The categorical distribution over the last axis of ``logits``.

    As in Paddle, ``probs`` / ``log_prob`` read ``logits`` as unnormalized probabilities
    (``logits / sum(logits)``), while ``sample``, ``entropy`` and ``kl_divergence`` use
    ``softmax(logits)``.

    Args:
        logits (list|tuple|numpy.ndarray|Tensor): float32 or float64.
        name (str, optional): name prefix of the ops.
    """

    def __init__(self, logits, name=None):
        self.name = name if name is not None else 'Categorical'
        self.dtype = 'float32'
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = distribution._dtype_name(logits)
        else:
            if isinstance(logits, np.ndarray) and str(logits.dtype) in ('float32', 'float64'):
                self.dtype = str(logits.dtype)
            self.logits = self._to_tensor(logits)[0]
            if distribution._dtype_name(self.logits) != self.dtype:
                self.logits = paddle.cast(self.logits, self.dtype)
        self._prob = self.logits / paddle.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]), ())

    def sample(self, shape):
        """Category indices (int64) of shape ``shape + logits.shape[:-1]``."""
        shape = [int(s) for s in shape]
        n = int(np.prod(shape)) if shape else 1
        lshape = list(self.logits.shape)
        if len(lshape) > 1:
            out_shape = shape + lshape[:-1]
            logits = paddle.reshape(self.logits, [int(np.prod(lshape[:-1])), lshape[-1]])
        else:
            out_shape = shape
            logits = self.logits
        idx = paddle.multinomial(self._logits_to_probs(logits), n, True)
        perm = list(range(len(idx.shape)))
        perm.insert(0, perm.pop(-1))
        idx = paddle.transpose(idx, perm)
        return paddle.reshape(idx, out_shape)

    def _log_softmax(self, logits):
        shifted = logits - paddle.max(logits, axis=-1, keepdim=True)
        z = paddle.sum(paddle.exp(shifted), axis=-1, keepdim=True)
        return shifted - paddle.log(z)

    def kl_divergence(self, other):
        """KL(self || other), keeping the last axis (size 1)."""
        if not isinstance(other, Categorical):
            return super().kl_divergence(other)
        lp = self._log_softmax(self.logits)
        lq = self._log_softmax(other.logits)
        return paddle.sum(paddle.exp(lp) * (lp - lq), axis=-1, keepdim=True)

    def entropy(self):
        lp = self._log_softmax(self.logits)
        return -1.0 * paddle.sum(paddle.exp(lp) * lp, axis=-1)

    def probs(self, value):
        """Probability of the category indices ``value`` (see the class note)."""
        if len(self._prob.shape) == 1:
            return paddle.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if len(value.shape) == 1:
            idx = paddle.reshape(value, (len(self._prob.shape) - 1) * [1] + [-1])
            idx = paddle.expand(idx, list(self._prob.shape[:-1]) + [value.shape[0]])
            return paddle.take_along_axis(self._prob, idx, axis=-1)
        return paddle.take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        return self.probs(value)

    def log_prob(self, value):
        return paddle.log(self.probs(value))
