"""Independent: reinterprets rightmost batch axes of a distribution as event axes."""
from . import distribution


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Independent(distribution.Distribution):
    r"""Reinterprets the rightmost ``reinterpreted_batch_rank`` batch axes of ``base`` as event
    axes (log_prob and entropy sum over them).

    Args:
        base (Distribution): the base distribution.
        reinterpreted_batch_rank (int): 0 < rank <= len(base.batch_shape).
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, distribution.Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}, "
                             f"but got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = base.batch_shape + base.event_shape
        k = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:k], event_shape=shape[k:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def rsample(self, shape=()):
        return self._base.rsample(shape)

    def log_prob(self, value):
        return _sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return _sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
