"""paddle.autograd.jacobian / hessian (Paddle 2.6's functional API).

A Jacobian (Hessian) object evaluates lazily: row i of the Jacobian of ys w.r.t. xs is
paddle.grad(ys_flat[i], xs, create_graph=True) (for batch_axis=0, of ys_flat[:, i], the batch
rows being independent), computed the first time an index needs it and cached. Indexing takes
ints and slices; any other use (arithmetic, .numpy(), .shape of the tensor ...) evaluates the
whole matrix. Shapes, as Paddle: without batch, ys and xs are 0-D or 1-D and the Jacobian is
[len(ys)?, len(xs)?] (0-D operands contribute no axis); with batch_axis=0 they are 1-D or 2-D and
it is [B, M?, N?]. hessian(ys, xs) is the Jacobian of jacobian(ys, xs) w.r.t. xs (ys a single
value, or one per batch row)."""
from collections.abc import Sequence

import paddle

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]


def _is_tensor(x):
    return isinstance(x, paddle.Tensor)


class Jacobian:
    """The lazily evaluated Jacobian of ys w.r.t. xs (see the module docstring)."""

    def __init__(self, ys, xs, is_batched=False, _ys_scalar=False):
        if isinstance(ys, Jacobian):
            ys = ys._evaluate_all()
        ys_nd, xs_nd = len(ys.shape), len(xs.shape)
        if not is_batched:
            if not 0 <= xs_nd <= 1:
                raise ValueError(f"xs.ndim should be 0 or 1 when is_batched=False but got {xs_nd}")
            if not 0 <= ys_nd <= 1:
                raise ValueError(f"ys.ndim should be 0 or 1 when is_batched=False but got {ys_nd}")
            self._ys_axis = ys_nd == 1 and not _ys_scalar
            self._xs_axis = xs_nd == 1
            self._ys_flat = ys.reshape([-1])
            n_x = int(xs.reshape([-1]).shape[0])
            self._inner = [int(self._ys_flat.shape[0]), n_x]
            self.shape = ([self._inner[0]] if self._ys_axis else []) + ([n_x] if self._xs_axis else [])
        else:
            if not 1 <= ys_nd <= 2:
                raise ValueError(f"ys.ndim should be 1 or 2 when is_batched=True but got {ys_nd}")
            if not 1 <= xs_nd <= 2:
                raise ValueError(f"xs.ndim should be 1 or 2 when is_batched=True but got {xs_nd}")
            self._ys_axis = ys_nd == 2
            self._xs_axis = xs_nd == 2
            self._ys_flat = ys.reshape([ys.shape[0], -1])
            b = int(xs.shape[0])
            n_x = int(xs.reshape([b, -1]).shape[1])
            self._inner = [b, int(self._ys_flat.shape[1]), n_x]
            self.shape = ([b] + ([self._inner[1]] if self._ys_axis else [])
                          + ([n_x] if self._xs_axis else []))
        self._is_batched = is_batched
        self._xs = xs
        self._cache = {}

    # -- evaluation ---------------------------------------------------------------------------
    def _row(self, i):
        v = self._cache.get(i)
        if v is None:
            y = self._ys_flat[:, i] if self._is_batched else self._ys_flat[i]
            (g,) = paddle.grad(y, self._xs, create_graph=True, allow_unused=True)
            if g is None:
                g = paddle.zeros_like(self._xs)
            v = g.reshape([self._inner[0], -1]) if self._is_batched else g.reshape([-1])
            self._cache[i] = v
        return v

    def _lazy_pos(self):
        if not self._ys_axis:
            return None
        return 1 if self._is_batched else 0

    def __getitem__(self, indexes):
        if len(self.shape) == 0:
            raise IndexError("0-D tensor can not be indexed.")
        idx = tuple(indexes) if isinstance(indexes, tuple) else (indexes,)
        if any(i is Ellipsis for i in idx):
            raise IndexError('Ellipsis index currently is not supported.')
        if len(idx) > len(self.shape):
            raise IndexError(f"too many indices: the Jacobian has shape {self.shape}, "
                             f"received {len(idx)} indices")
        idx = idx + (slice(None),) * (len(self.shape) - len(idx))
        for k, i in enumerate(idx):
            if isinstance(i, bool) or not isinstance(i, (int, slice)):
                raise TypeError(f'Not supported index type {i}.')
            if isinstance(i, int) and not -self.shape[k] <= i < self.shape[k]:
                raise IndexError(f"index {i} is out of bounds for axis {k} with size {self.shape[k]}")
        lazy = self._lazy_pos()
        if lazy is None:
            rows = [0]
        else:
            sel = idx[lazy]
            rows = list(range(self.shape[lazy]))[sel] if isinstance(sel, slice) else \
                [sel % self.shape[lazy]]
            idx = idx[:lazy] + ((0 if isinstance(sel, int) else slice(None)),) + idx[lazy + 1:]
        if not rows:
            raise IndexError("the index selects no rows of the Jacobian")
        axis = 1 if self._is_batched else 0
        block = paddle.stack([self._row(r) for r in rows], axis=axis)  # inner axes, M' rows
        shape = list(block.shape)
        keep = [True] * len(shape)
        keep[axis] = self._ys_axis
        keep[axis + 1] = self._xs_axis
        block = block.reshape([s for s, k in zip(shape, keep) if k])
        return block[idx]

    def _evaluate_all(self):
        if len(self.shape) == 0:
            return self._row(0).reshape([])
        return self[:]

    def __getattr__(self, name):
        if name.startswith('__') or name in ('shape', '_cache', '_ys_flat', '_xs', '_inner',
                                             '_is_batched', '_ys_axis', '_xs_axis'):
            raise AttributeError(name)
        return getattr(self._evaluate_all(), name)


def _binary(op):
    def f(self, other):
        rhs = other._evaluate_all() if isinstance(other, Jacobian) else other
        return op(self._evaluate_all(), rhs)
    return f


for _n, _op in [('__add__', lambda a, b: a + b), ('__sub__', lambda a, b: a - b),
                ('__mul__', lambda a, b: a * b), ('__div__', lambda a, b: a / b),
                ('__truediv__', lambda a, b: a / b), ('__pow__', lambda a, b: a ** b),
                ('__mod__', lambda a, b: a % b), ('__floordiv__', lambda a, b: a // b),
                ('__matmul__', lambda a, b: a @ b), ('__eq__', lambda a, b: a == b),
                ('__ne__', lambda a, b: a != b), ('__lt__', lambda a, b: a < b),
                ('__le__', lambda a, b: a <= b), ('__gt__', lambda a, b: a > b),
                ('__ge__', lambda a, b: a >= b)]:
    setattr(Jacobian, _n, _binary(_op))
Jacobian.__hash__ = object.__hash__


class Hessian(Jacobian):
    """The lazily evaluated Hessian (the Jacobian of a Jacobian)."""


def _seq(x):
    return isinstance(x, Sequence) and not _is_tensor(x)


def jacobian(ys, xs, batch_axis=None):
    """Jacobian(s) of ys w.r.t. xs, lazily evaluated (Paddle 2.6).

    Args:
        ys (Tensor|tuple[Tensor]): outputs (0-D/1-D; 1-D/2-D with batch_axis=0).
        xs (Tensor|tuple[Tensor]): inputs, with stop_gradient False.
        batch_axis (int|None): None, or 0 when the first axis is an independent batch axis.

    Returns:
        Jacobian, a tuple of them (one of ys/xs a sequence) or a tuple of tuples (both).
    """
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    b = batch_axis is not None
    if _seq(ys) and _seq(xs):
        return tuple(tuple(Jacobian(y, x, b) for x in xs) for y in ys)
    if _seq(ys):
        return tuple(Jacobian(y, xs, b) for y in ys)
    if _seq(xs):
        return tuple(Jacobian(ys, x, b) for x in xs)
    return Jacobian(ys, xs, b)


def hessian(ys, xs, batch_axis=None):
    """Hessian(s) of a single value ys (one per batch row with batch_axis=0) w.r.t. xs,
    lazily evaluated (Paddle 2.6).

    Returns:
        Hessian, or a tuple of tuples of them when xs is a sequence.
    """
    if batch_axis is None:
        if ys.numel() > 1:
            raise ValueError(f"Only support ys.numel()({ys.numel()})==1 when batch_axis is None.")
        ys = ys.reshape([-1])
        scalar = True
    elif isinstance(batch_axis, int) and not isinstance(batch_axis, bool):
        if ys[0].numel() > 1:
            raise ValueError(f"Only support ys[0].numel()({ys.numel()})==1 when batch_axis is int")
        if batch_axis != 0:
            raise ValueError("Only support batch_axis=0 yet.")
        ys = ys.reshape([-1])
        scalar = False
    else:
        raise ValueError(f"batch_axis should be None or int, but got {type(batch_axis)}.")
    b = batch_axis is not None

    def first(x):
        return Jacobian(ys, x, b, _ys_scalar=scalar)

    def second(j, x):
        h = Jacobian(j, x, b)
        h.__class__ = Hessian
        return h

    if not _seq(xs):
        return second(first(xs), xs)
    firsts = [first(x) for x in xs]
    return tuple(tuple(second(j, x) for x in xs) for j in firsts)
