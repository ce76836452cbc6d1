"""Calls, print, assert, len and .shape in converted code. convert_call converts user functions,
methods and sublayers recursively (never paddle's own code, builtins or not_to_static
functions); print/assert on program Variables print at run time (paddle.static.Print when
present) and check at run time (a flag Variable fetched after each run)."""
import builtins
import inspect
import logging
import types

import numpy as np

from ... import _C
from .convert_operators import TensorList, UndefinedVar, _bool_var, _in_block, _paddle, is_var, to_bool

Tensor = _C.Tensor
_log = logging.getLogger("paddle.jit")


# ---------------------------------------------------------------------------------- trace context
class TraceContext:
    """What a program being built collects besides its ops: run-time assertions."""
    stack = []

    def __init__(self, program):
        self.program = program
        self.asserts = []  # (flag variable name, message)

    def __enter__(self):
        TraceContext.stack.append(self)
        return self

    def __exit__(self, *a):
        TraceContext.stack.pop()
        return False

    @classmethod
    def current(cls):
        return cls.stack[-1] if cls.stack else None


# ---------------------------------------------------------------------------------- print / assert
def convert_print(*args, **kwargs):
    printer = getattr(_paddle().static, "Print", None)
    if any(is_var(a) for a in args):
        if printer is not None:
            for a in args:
                if is_var(a):
                    printer(a)
                else:
                    builtins.print(a, **kwargs)
            return
        _log.warning("print() of a program Variable shows its description while the program is built "
                     "(paddle.static.Print is not available to print it at run time)")
    builtins.print(*args, **kwargs)


def convert_assert(cond, message=None):
    if not is_var(cond):
        if isinstance(cond, UndefinedVar):
            cond._fail()
        assert to_bool(cond), message
        return
    paddle = _paddle()
    ctx = TraceContext.current()
    c = cond
    if c.dtype != paddle.bool:
        c = paddle.cast(c, "bool")
    c = paddle.reshape(paddle.all(c), [1])
    if ctx is None:
        return
    with _in_block(0):
        flag = paddle.full([1], True, "bool")
    name = flag.name
    from ...static.nn.control_flow import _assign
    _assign(paddle.logical_and(flag, c), flag)
    msg = message if message is None or isinstance(message, str) else str(message)
    ctx.asserts.append((name, msg))


# ---------------------------------------------------------------------------------- shape / len
def convert_shape(x):
    """x.shape: for a Variable with unknown dims, a list whose unknown entries are int32 Variables
    (paddle.shape(x)[i]); otherwise x.shape."""
    if not is_var(x):
        return x.shape
    shape = x.shape
    if all(s >= 0 for s in shape):
        return list(shape)
    paddle = _paddle()
    st = paddle.shape(x)
    return [s if s >= 0 else paddle.slice(st, [0], [i], [i + 1]) for i, s in enumerate(shape)]


def convert_len(x):
    if isinstance(x, TensorList):
        return x.length()
    if is_var(x):
        if not x.shape:
            raise TypeError("len() of a 0-D Variable")
        if x.shape[0] >= 0:
            return x.shape[0]
        paddle = _paddle()
        return paddle.slice(paddle.shape(x), [0], [0], [1])
    return len(x)


def convert_getitem_list(x, i):
    return x[i]


# ---------------------------------------------------------------------------------- calls
_SKIP_MODULE_PREFIXES = ("paddle.", "numpy", "builtins", "typing", "abc", "collections", "functools", "math",
                         "inspect", "copy", "random", "six", "enum", "re", "os", "sys", "logging",
                         "warnings", "itertools", "operator", "contextlib", "threading", "weakref",
                         "_collections_abc", "dataclasses", "scipy", "PIL", "pytest", "_pytest", "unittest")


def _skip_module(mod):
    if not mod:
        return True
    return mod.startswith(_SKIP_MODULE_PREFIXES) or mod in ("paddle", "numpy", "math")


def _list_aware(fn):
    paddle = _paddle()
    if fn is paddle.stack or fn is getattr(paddle.tensor, "stack", None):
        def stack(x, axis=0, name=None):
            if isinstance(x, TensorList):
                return x.stack(axis)
            return fn(x, axis, name)
        return stack
    if fn is paddle.concat or fn is getattr(paddle.tensor, "concat", None):
        def concat(x, axis=0, name=None):
            if isinstance(x, TensorList):
                return x.concat(axis)
            return fn(x, axis=axis, name=name)
        return concat
    if fn is paddle.shape:
        return fn
    return None


_BUILTIN_MAP = {}


def _builtin_map():
    if not _BUILTIN_MAP:
        _BUILTIN_MAP.update({builtins.len: convert_len, builtins.print: convert_print})
    return _BUILTIN_MAP


def convert_call(fn):
    """The function to call in place of fn inside converted code."""
    if isinstance(fn, UndefinedVar):
        fn._fail()
    m = _builtin_map()
    try:
        if fn in m:
            return m[fn]
    except TypeError:  # unhashable callables
        pass
    if getattr(fn, "_jst_not_to_static", False):
        return fn
    from ..program_translator import StaticFunction
    if isinstance(fn, StaticFunction):
        return fn
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType, type)):
        return fn
    from ...nn import Layer
    if isinstance(fn, Layer):
        if _skip_module(type(fn).__module__):
            return fn
        return _LayerCall(fn)
    if inspect.isfunction(fn):
        la = _list_aware(fn) if fn.__module__ and fn.__module__.startswith("paddle") else None
        if la is not None:
            return la
        if _skip_module(fn.__module__) or fn.__name__ == "<lambda>":
            return fn
        from .function_converter import convert_function
        return _returns_plain(convert_function(fn))
    if inspect.ismethod(fn):
        func, owner = fn.__func__, fn.__self__
        if getattr(func, "_jst_not_to_static", False):
            return fn
        if isinstance(owner, Layer) and func.__name__ == "forward" and not _skip_module(type(owner).__module__):
            from .function_converter import convert_function
            return _returns_plain(types.MethodType(convert_function(func), owner))
        if _skip_module(getattr(func, "__module__", None)) or isinstance(owner, type):
            return fn
        from .function_converter import convert_function
        return _returns_plain(types.MethodType(convert_function(func), owner))
    return fn


def unwrap_return(v):
    """A callee's VariadicReturn as the value its caller sees: its one item (or a tuple); the
    placeholders for missing values matter only for the function to_static converted itself."""
    from .convert_operators import VariadicReturn
    if isinstance(v, VariadicReturn):
        if not v.items:
            return None
        return v.items[0] if len(v.items) == 1 else tuple(v.items)
    return v


def _returns_plain(fn):
    if fn is None or not callable(fn):
        return fn

    def call(*args, **kwargs):
        return unwrap_return(fn(*args, **kwargs))
    return call


class _LayerCall:
    """Calls a user Layer with its forward converted (hooks still run through Layer.__call__)."""

    def __init__(self, layer):
        self.layer = layer

    def __call__(self, *args, **kwargs):
        from .function_converter import convert_function
        layer = self.layer
        fwd = type(layer).forward
        own = layer.__dict__.get("forward")
        if own is not None:
            # forward replaced on the instance (e.g. a to_static StaticFunction): call as is
            return layer(*args, **kwargs)
        from ..program_translator import StaticFunction
        if getattr(fwd, "_jst_not_to_static", False) or isinstance(fwd, StaticFunction):
            return layer(*args, **kwargs)
        conv = convert_function(fwd)
        object.__setattr__(layer, "forward", types.MethodType(conv, layer))
        try:
            return unwrap_return(layer(*args, **kwargs))
        finally:
            layer.__dict__.pop("forward", None)
