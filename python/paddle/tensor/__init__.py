"""paddle.tensor: the tensor functions, gathered from one module per family, and the patching
of their Tensor-method forms onto paddle.Tensor (x.exp(), x.sum(axis=1) ...)."""
import importlib
import importlib.util

from .. import _C
from . import tensor_methods
from .to_tensor import to_tensor  # noqa: F401

_MODULES = ["to_tensor", "creation", "random", "math", "logic", "math_reduce", "stat", "linalg",
            "math_extra", "tensor_extra", "linalg_ext", "linalg_decomp",
            "search_reduce", "softmax_ops", "manipulation", "search", "indexing", "api26"]

__all__ = ["to_tensor"]
_tensor_methods = []
_loaded = {}
for _m in _MODULES:
    if importlib.util.find_spec(f"{__name__}.{_m}") is None:
        continue  # family not built yet; the API coverage test reports the missing names
    _mod = importlib.import_module(f"{__name__}.{_m}")
    _loaded[_m] = _mod
    for _n in getattr(_mod, "__all__", []):
        globals()[_n] = getattr(_mod, _n)
        if _n not in __all__:
            __all__.append(_n)
    for _n in getattr(_mod, "_TENSOR_METHODS", []):
        _tensor_methods.append((_n, getattr(_mod, _n)))

tensor_methods.install()
for _n, _f in _tensor_methods:
    setattr(_C.Tensor, _n, _f)

if "indexing" in _loaded:
    _C.Tensor.__getitem__ = _loaded["indexing"].getitem
    _C.Tensor.__setitem__ = _loaded["indexing"].setitem
if "transpose" in globals():
    _C.Tensor.T = property(lambda self: globals()["transpose"](self, list(range(self.ndim))[::-1]))
