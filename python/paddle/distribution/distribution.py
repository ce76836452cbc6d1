"""The Distribution base class (Paddle 2.3 semantics)."""
import warnings

import numpy as np

import paddle


def _is_tensor(x):
    return isinstance(x, paddle.Tensor)


def _dtype_name(t):
    return str(t.dtype).replace('paddle.', '')


class Distribution:
    """Abstract base of probability distributions.

    Args:
        batch_shape (Sequence[int]): shape of the batch of distributions.
        event_shape (Sequence[int]): shape of one draw.
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__}.mean is not implemented")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__}.variance is not implemented")

    def sample(self, shape=()):
        raise NotImplementedError(f"{type(self).__name__}.sample is not implemented")

    def rsample(self, shape=()):
        raise NotImplementedError(
            f"{type(self).__name__}.rsample is not implemented (not reparameterizable)")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__}.entropy is not implemented")

    def kl_divergence(self, other):
        from . import kl
        return kl.kl_divergence(self, other)

    def prob(self, value):
        return self.log_prob(value).exp()

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__}.log_prob is not implemented")

    def probs(self, value):
        raise NotImplementedError(f"{type(self).__name__}.probs is not implemented")

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """True when every argument is a Tensor; ValueError when Tensors and numbers mix."""
        n_tensor = sum(1 for a in args if _is_tensor(a))
        if n_tensor and n_tensor != len(args):
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return n_tensor > 0

    def _to_tensor(self, *args):
        """float / list / tuple / ndarray arguments -> Tensors broadcast to one shape (float32
        unless an argument is float64)."""
        arrays = []
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray)) and not _is_tensor(arg):
                raise TypeError(
                    "Type of input args must be float, list, tuple, numpy.ndarray or Tensor, "
                    f"but received type {type(arg)}")
            a = np.array(arg.numpy() if _is_tensor(arg) else arg)
            if a.dtype != np.float32 and a.dtype != np.float64:
                warnings.warn("data type of argument only support float32 and float64, your "
                              "argument will be convert to float32.")
                a = a.astype('float32')
            arrays.append(a)
        dtype = np.result_type(*[a.dtype for a in arrays]) if arrays else np.float32
        shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
        if len(shape) == 0:
            shape = (1,)
        return tuple(paddle.to_tensor(np.broadcast_to(a, shape).astype(dtype)) for a in arrays)

    def _check_values_dtype_in_probs(self, param, value):
        if value.dtype != param.dtype and _dtype_name(value) in ('float32', 'float64'):
            warnings.warn("dtype of input 'value' needs to be the same as parameters of "
                          "distribution class. dtype of 'value' will be converted.")
            return paddle.cast(value, param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        return (paddle.log(probs) - paddle.log1p(-probs)) if is_binary else paddle.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        import paddle.nn.functional as F
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)
