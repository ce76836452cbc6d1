"""Random sampling API of Paddle 2.3 (paddle.rand, randn, randint, uniform, normal, randperm,
bernoulli, multinomial, Tensor.uniform_/exponential_) and paddle.seed, over the C random ops.
All of them draw from the global generator (real Paddle's CPU generator: mt19937_64 seeded
through a seed sequence, csrc/core/pd_random.h) unless given a non-zero seed, so a seeded
program draws real Paddle's numbers."""
import numbers

from .. import _C
from .._C import _C_ops
from ..framework.dtype import convert_dtype, get_default_dtype
from . import static_shape as _ss
from .creation import _dtype, _scalar, _shape

Tensor = _C.Tensor

__all__ = ["seed", "rand", "randn", "randint", "randint_like", "uniform", "normal",
           "standard_normal", "randperm", "bernoulli", "multinomial", "get_rng_state",
           "set_rng_state"]
_TENSOR_METHODS = ["uniform_", "exponential_", "bernoulli", "multinomial"]


class Generator:
    """A small stand-in for paddle's Generator object over the global C generator."""

    def manual_seed(self, s):
        _C.seed(int(s))
        return self

    def seed(self):
        import time
        s = time.time_ns() & 0x7FFFFFFFFFFFFFFF
        _C.seed(s)
        return s

    def initial_seed(self):
        return _C.get_rng_state()[0]

    def get_state(self):
        return _C.get_rng_state()

    def set_state(self, state):
        _C.set_rng_state(*state)

    def random(self):
        """One 64-bit draw of the generator."""
        return _C.rng_next()


_default_generator = Generator()


def seed(s):
    """Seeds the global generator; every random op is then reproducible run to run."""
    _C.seed(int(s))
    return _default_generator


def get_rng_state():
    return [_C.get_rng_state()]


def set_rng_state(state_list):
    st = state_list[0] if isinstance(state_list, (list, tuple)) and state_list and \
        isinstance(state_list[0], (list, tuple)) else state_list
    _C.set_rng_state(*st)


def _float_dtype(dtype, op):
    d = _dtype(dtype)
    if d.name not in ("float16", "bfloat16", "float32", "float64"):  # Paddle's NotFound (a RuntimeError)
        from ..framework.misc import kernel_not_found
        raise kernel_not_found(op, d.name, ("float16", "bfloat16", "float32", "float64"))
    return d


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    if _ss.needs_tensor(shape):  # a program: the shape is known when it runs (Paddle's ShapeTensor)
        d = _float_dtype(dtype, "uniform")
        return _C_ops.uniform_(_ss.full(shape, 0.0, d), float(_scalar(min, "min")), float(_scalar(max, "max")),
                               int(seed))
    return _C_ops.uniform(_shape(shape), _float_dtype(dtype, "uniform"), float(_scalar(min, "min")),
                          float(_scalar(max, "max")), int(seed))


def rand(shape, dtype=None, name=None):
    return uniform(shape, dtype, 0.0, 1.0)


def _gaussian(shape, mean, std, dtype, op):
    return _C_ops.gaussian(_shape(shape), float(mean), float(std), 0, _float_dtype(dtype, op))


def standard_normal(shape, dtype=None, name=None):
    return _gaussian(shape, 0.0, 1.0, dtype, "standard_normal")


def randn(shape, dtype=None, name=None):
    return _gaussian(shape, 0.0, 1.0, dtype, "randn")


def normal(mean=0.0, std=1.0, shape=None, name=None):
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        return _gaussian([1] if shape is None else shape, _scalar(mean, "mean"), _scalar(std, "std"),
                         None, "normal")
    ref = mean if mt else std
    if mt and st and mean.size != std.size:
        raise ValueError(f"normal: mean and std must have the same number of elements, received "
                         f"{mean.shape} and {std.shape}")
    if _ss.is_var(ref) and _ss.unknown(ref.shape):  # a program: the shape when it runs (Paddle's ShapeTensor)
        z = _C_ops.gaussian_dyn(_C_ops.shape(ref), 0.0, 1.0, 0, ref.dtype)
    else:
        z = _C_ops.gaussian(ref.shape, 0.0, 1.0, 0, ref.dtype)
    if st:
        z = _C_ops.multiply(z, std)
    else:
        z = _C_ops.multiply(z, _C_ops.full([1], float(_scalar(std, "std")), ref.dtype))
    if mt:
        return _C_ops.add(z, mean)
    return _C_ops.add(z, _C_ops.full([1], float(_scalar(mean, "mean")), ref.dtype))


def randint(low=0, high=None, shape=[1], dtype=None, name=None):  # noqa: B006 (Paddle's default)
    if high is None:
        if low <= 0:
            raise ValueError(f"randint: if high is None, low must be greater than 0, received low={low}")
        low, high = 0, low
    d = convert_dtype(dtype if dtype is not None else "int64")
    return _C_ops.randint(int(_scalar(low, "low")), int(_scalar(high, "high")), _shape(shape), d, 0)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    d = convert_dtype(dtype if dtype is not None else x.dtype)
    if high is None:
        if low <= 0:
            raise ValueError(f"randint_like: if high is None, low must be greater than 0, received low={low}")
        low, high = 0, low
    kd = d if d.name in ("int32", "int64") else convert_dtype("int64")
    if any(s < 0 for s in x.shape):
        raise NotImplementedError("randint_like: x has dims known only when the program runs; random ops "
                                  "of a static program need a known shape")
    out = _C_ops.randint(int(low), int(high), x.shape, kd, 0)
    if kd != d:
        t = _C_ops.empty(x.shape, d)
        t._copy_(out)
        out = t
    return out


def randperm(n, dtype="int64", name=None):
    if isinstance(n, bool) or not isinstance(_scalar(n, "n"), numbers.Integral):
        raise TypeError(f"randperm: n must be an int, received {n!r}")
    return _C_ops.randperm(int(_scalar(n, "n")), convert_dtype(dtype), 0)


def bernoulli(x, name=None):
    return _C_ops.bernoulli(x, 0)


def multinomial(x, num_samples=1, replacement=False, name=None):
    return _C_ops.multinomial(x, int(num_samples), bool(replacement), 0)


def uniform_(x, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    return _C_ops.uniform_(x, float(_scalar(min, "min")), float(_scalar(max, "max")), int(seed))


def exponential_(x, lam=1.0, name=None):
    return _C_ops.exponential_(x, float(_scalar(lam, "lam")), 0)
