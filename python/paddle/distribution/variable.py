"""Random-variable descriptors (event rank, discreteness, constraint) of transform domains."""
import paddle

from . import constraint


class Variable:
    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        return self._constraint(value)


class Real(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.real)


class Positive(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.positive)


class Independent(Variable):
    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ret = self._base.constraint(value)
        n = self._reinterpreted_batch_rank
        if len(ret.shape) < n:
            raise ValueError(f"Input dimensions must be equal or grater than {n}")
        return ret.reshape(list(ret.shape[:len(ret.shape) - n]) + [-1]).all(-1)


class Stack(Variable):
    def __init__(self, vars, axis=0):
        self._vars = vars
        self._axis = axis

    @property
    def is_discrete(self):
        return any(v.is_discrete for v in self._vars)

    @property
    def event_rank(self):
        rank = max(v.event_rank for v in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank

    def constraint(self, value):
        if not -len(value.shape) <= self._axis < len(value.shape):
            raise ValueError(f"Input dimensions {len(value.shape)} should be grater than stack "
                             f"constraint axis {self._axis}.")
        return paddle.stack([v.constraint(x) for v, x in
                             zip(self._vars, paddle.unstack(value, self._axis))], self._axis)


real = Real()
positive = Positive()
