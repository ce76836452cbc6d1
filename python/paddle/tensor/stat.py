"""Statistics of paddle.tensor.stat (Paddle 2.3 signatures): mean, std, var, numel. std/var use
the unbiased (n - 1) estimator unless unbiased=False; a full reduction gives shape [1]."""
import numpy as np

from .._C import _C_ops
from ..framework.misc import kernel_not_found
from .math_reduce import _axes

__all__ = ["mean", "std", "var", "numel"]
_TENSOR_METHODS = list(__all__)


def _float_only(x, op, complex_ok=False):
    """mean / std / var of other dtypes: no kernel (Paddle's NotFound, a RuntimeError and here
    also a TypeError)."""
    ok = ("float16", "bfloat16", "float32", "float64") + (("complex64", "complex128") if complex_ok else ())
    if x.dtype.name not in ok:
        raise kernel_not_found(op, x.dtype.name, ok)


def mean(x, axis=None, keepdim=False, name=None):
    _float_only(x, "mean", complex_ok=True)
    return _C_ops.mean(x, _axes(axis, "mean"), bool(keepdim))


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    _float_only(x, "var")
    return _C_ops.var(x, _axes(axis, "var"), bool(keepdim), bool(unbiased))


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    _float_only(x, "std")
    return _C_ops.std(x, _axes(axis, "std"), bool(keepdim), bool(unbiased))


def numel(x, name=None):
    """The number of elements as an int64 scalar Tensor ([1], or 0-D with FLAGS_set_to_1d off)."""
    from .. import _C
    if _C._is_variable(x):  # a program: the product of its dims when it runs (Paddle's size op)
        from ..framework.dtype import convert_dtype
        return _C_ops.prod(_C_ops.cast(_C_ops.shape(x), convert_dtype("int64")), [0], False)
    n = np.array(int(np.prod(x.shape, dtype=np.int64)), dtype=np.int64)
    return _C.from_buffer(n.reshape(1) if _C.set_to_1d() else n)
