"""Shared parameter handling of the distributions Paddle 2.6 added (Cauchy, Laplace, Gumbel,
Geometric, LogNormal): a Python number becomes a 0-D float32 tensor, as in Paddle 2.6."""
import numbers

import paddle

from .distribution import _is_tensor


def scalar_param(v, what, cls):
    if isinstance(v, bool) or not (isinstance(v, numbers.Real) or _is_tensor(v)):
        raise TypeError(f"Expected type of {what} is Real|Variable, but got {type(v)}")
    if isinstance(v, numbers.Real):
        return paddle.full(shape=[], fill_value=float(v), dtype='float32')
    return v


def check_shape(shape):
    if not isinstance(shape, (list, tuple)) and not _is_tensor(shape) \
            and type(shape).__name__ != 'ndarray':
        raise TypeError(f"Expected type of shape is Sequence[int], but got {type(shape)}")
    if _is_tensor(shape):
        shape = shape.numpy().tolist()
    return tuple(int(s) for s in shape)


def check_value(value, cls):
    if not _is_tensor(value):
        raise TypeError(f"Expected type of value is Variable, but got {type(value)}")
    return value
