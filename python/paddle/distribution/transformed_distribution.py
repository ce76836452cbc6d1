"""TransformedDistribution: a base distribution pushed through a sequence of transforms."""
import typing

from . import distribution, independent, transform


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class TransformedDistribution(distribution.Distribution):
    r"""The distribution of ``transforms[-1](...transforms[0](X))`` for X ~ ``base``.

    Args:
        base (Distribution): the base distribution.
        transforms (Sequence[Transform]): applied in order.
    """

    def __init__(self, base, transforms):
        if not isinstance(base, distribution.Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected type of 'transforms' is Sequence[Transform] or Chain, "
                            f"but got {type(transforms)}.")
        if not all(isinstance(t, transform.Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._base = base
        self._transforms = list(transforms)
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = transform.ChainTransform(transforms)
        base_shape = base.batch_shape + base.event_shape
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"'base' needs to have shape with size at least "
                             f"{chain._domain.event_rank}, bug got {len(base_shape)}.")
        if chain._domain.event_rank > len(base.event_shape):
            base = independent.Independent(base, chain._domain.event_rank - len(base.event_shape))
            self._base = base
        out_shape = tuple(chain.forward_shape(base.batch_shape + base.event_shape))
        out_event_rank = chain._codomain.event_rank + max(
            len(base.event_shape) - chain._domain.event_rank, 0)
        k = len(out_shape) - out_event_rank
        super().__init__(out_shape[:k], out_shape[k:])

    def sample(self, shape=()):
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        lp = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            lp = lp - _sum_rightmost(t.forward_log_det_jacobian(x),
                                     event_rank - t._domain.event_rank)
            y = x
        return lp + _sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))

    def prob(self, value):
        return self.log_prob(value).exp()
