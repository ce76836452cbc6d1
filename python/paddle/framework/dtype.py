"""Paddle's dtype objects (paddle.float32 ...), conversion of user dtype spellings, and the
global default float dtype (paddle.set_default_dtype / get_default_dtype)."""
import builtins

import numpy as np

from .. import _C

dtype = _C.dtype
_BY_NAME = {d.name: d for d in _C.dtypes}
bool = _BY_NAME["bool"]  # noqa: A001  (Paddle exports paddle.bool)
uint8 = _BY_NAME["uint8"]
int8 = _BY_NAME["int8"]
int16 = _BY_NAME["int16"]
int32 = _BY_NAME["int32"]
int64 = _BY_NAME["int64"]
float16 = _BY_NAME["float16"]
bfloat16 = _BY_NAME["bfloat16"]
float32 = _BY_NAME["float32"]
float64 = _BY_NAME["float64"]
complex64 = _BY_NAME["complex64"]
complex128 = _BY_NAME["complex128"]

_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
            "long": "int64", "bool_": "bool", "uint16": "bfloat16", "complex": "complex128"}

_default_dtype = float32


def convert_dtype(d):
    """Any dtype spelling (paddle.float32, 'float32', np.float32, np.dtype) -> paddle dtype."""
    if isinstance(d, dtype):
        return d
    if d is None:
        raise TypeError("dtype must not be None")
    if isinstance(d, str):
        name = d[7:] if d.startswith("paddle.") else d
    elif d is builtins.bool:
        name = "bool"
    elif d is int:
        name = "int64"
    elif d is float:
        name = "float32"
    elif d is complex:
        name = "complex64"
    else:
        try:
            name = np.dtype(d).name
        except TypeError:
            raise TypeError(f"unsupported dtype {d!r}; expected e.g. paddle.float32 or 'float32'") from None
    name = _ALIASES.get(name, name)
    if name not in _BY_NAME:
        raise TypeError(f"unsupported dtype {d!r}; expected one of {sorted(_BY_NAME)}")
    return _BY_NAME[name]


def to_numpy_dtype(d):
    d = convert_dtype(d)
    return np.dtype("uint16") if d.name == "bfloat16" else np.dtype(d.name)


def set_default_dtype(d):
    """Sets the default float dtype (float16, float32 or float64)."""
    global _default_dtype
    d = convert_dtype(d)
    if d.name not in ("float16", "float32", "float64"):
        raise TypeError(f"set_default_dtype only supports float16, float32 and float64, received {d.name}")
    _default_dtype = d


def get_default_dtype():
    """The default float dtype as a string, e.g. 'float32' (as Paddle returns it)."""
    return _default_dtype.name


def is_float_dtype(d):
    return convert_dtype(d).name in ("float16", "bfloat16", "float32", "float64")


def is_int_dtype(d):
    return convert_dtype(d).name in ("uint8", "int8", "int16", "int32", "int64")
