"""Source -> converted function: reads a function's source, transforms it (ast_transformer.py),
compiles it under the user's file name and line numbers (so tracebacks and error messages name
the user's own lines), and rebuilds the function with the original globals, closure cells,
defaults and a `_jst` cell holding the runtime. Results are cached per code object; code levels
and verbosity (set_code_level / set_verbosity) control what is logged."""
import ast
import inspect
import logging
import os
import sys
import textwrap
import types
import weakref

from . import ast_transformer

_log = logging.getLogger("paddle.jit.dy2static")
_CODE_CACHE = {}                  # original code object -> (converted code object, source text)
_FUNC_CACHE = weakref.WeakKeyDictionary()
CONVERTED_CODES = weakref.WeakSet() if hasattr(weakref, "WeakSet") else set()
_settings = {"code_level": int(os.environ.get("TRANSLATOR_CODE_LEVEL", "-1")),
             "code_stdout": False,
             "verbosity": int(os.environ.get("TRANSLATOR_VERBOSITY", "0")),
             "verbosity_stdout": False}


class ConversionError(Exception):
    pass


def _runtime():
    from . import runtime
    return runtime


def log(level, msg):
    """Verbosity-gated log line (set_verbosity)."""
    if _settings["verbosity"] >= level:
        text = f"[Dynamic-to-Static] {msg}"
        _log.warning(text)
        if _settings["verbosity_stdout"]:
            print(text)


def _log_code(fn_name, source):
    if _settings["code_level"] > 0:
        text = f"After the level {_settings['code_level']} ast transformer: '{fn_name}'\n{source}"
        _log.warning(text)
        if _settings["code_stdout"]:
            print(text)


def _class_name(fn):
    parts = fn.__qualname__.split(".")
    if len(parts) >= 2 and parts[-2] != "<locals>":
        return parts[-2]
    return None


def _source_tree(fn):
    try:
        lines, lnum = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise ConversionError(f"cannot read the source of {fn.__qualname__}: {e}")
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise ConversionError(f"cannot parse the source of {fn.__qualname__}: {e}")
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        raise ConversionError(f"{fn.__qualname__} is not a plain `def` function")
    fdef = tree.body[0]
    if fdef.name != fn.__name__:
        raise ConversionError(f"the source found for {fn.__qualname__} defines {fdef.name}")
    for node in ast.walk(fdef):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            raise ConversionError(f"{fn.__qualname__} is a generator or coroutine")
    ast.increment_lineno(tree, lnum - 1)
    fdef.decorator_list = []
    return fdef


def converted_code(fn):
    """(code object of the converted function, its source text) for fn, cached per code object."""
    code = fn.__code__
    hit = _CODE_CACHE.get(code)
    if hit is not None:
        return hit
    fdef = _source_tree(fn)
    ast_transformer.transform_function(fdef, class_name=_class_name(fn))
    freevars = list(code.co_freevars)
    if "__class__" not in freevars and _uses_class_cell(fdef):
        raise ConversionError(f"{fn.__qualname__} uses super() but has no __class__ cell")
    params = ["_jst"] + [v for v in freevars if v != "_jst"]
    factory = ast.FunctionDef(name="_jst_factory", args=ast_transformer._no_args(params),
                              body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
                              decorator_list=[], returns=None, type_comment=None)
    # __class__ must reach the function as a cell when super() is used: reference it
    if "__class__" in freevars:
        fdef.body.insert(0, ast.Expr(value=ast.Name(id="__class__", ctx=ast.Load())))
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    filename = inspect.getsourcefile(fn) or code.co_filename
    try:
        mcode = compile(module, filename, "exec")
    except SyntaxError as e:
        raise ConversionError(f"the converted code of {fn.__qualname__} does not compile: {e}")
    fcode = _find_code(mcode, "_jst_factory")
    inner = _find_code(fcode, fdef.name)
    if "__class__" in freevars:
        fdef.body.pop(0)
    text = ast.unparse(fdef)
    _mark(inner)
    _CODE_CACHE[code] = (inner, text)
    _log_code(fn.__qualname__, text)
    log(2, f"converted {fn.__qualname__}")
    return inner, text


def _uses_class_cell(fdef):
    return any(isinstance(n, ast.Name) and n.id == "__class__" for n in ast.walk(fdef))


def _find_code(code, name):
    for c in code.co_consts:
        if isinstance(c, types.CodeType) and c.co_name == name:
            return c
    raise ConversionError(f"internal: no code object {name}")


def _mark(code):
    CONVERTED_CODES.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _mark(c)


def is_converted(fn):
    c = getattr(fn, "__code__", None)
    return c is not None and c in CONVERTED_CODES


def convert_function(fn, strict=False):
    """fn converted (a new function object sharing fn's globals and closure cells); fn itself
    when it cannot be converted (a warning says why) unless strict."""
    if is_converted(fn) or getattr(fn, "_jst_not_to_static", False):
        return fn
    hit = _FUNC_CACHE.get(fn)
    if hit is not None:
        return hit
    try:
        inner, _ = converted_code(fn)
    except ConversionError as e:
        if strict:
            raise
        _log.warning(f"to_static: {e}; {fn.__qualname__} runs unconverted (its Python control flow follows "
                     "the values seen while the program is built)")
        _FUNC_CACHE[fn] = fn
        return fn
    cells = []
    names = fn.__code__.co_freevars
    for v in inner.co_freevars:
        if v == "_jst":
            cells.append(types.CellType(_runtime()))
        else:
            cells.append(fn.__closure__[names.index(v)])
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells) or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__dict__.update(fn.__dict__)
    new.__wrapped_dygraph__ = fn
    _FUNC_CACHE[fn] = new
    return new


def converted_source(fn):
    return converted_code(fn)[1]


# ---------------------------------------------------------------------------------- errors
def user_frame(tb):
    """The innermost traceback entry in converted code (filename, lineno, name) or None."""
    found = None
    while tb is not None:
        if tb.tb_frame.f_code in CONVERTED_CODES:
            found = (tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return found


def attach_user_location(e):
    """Adds Paddle's 'In transformed code' header naming the user's file and line to e's
    message (once); returns e."""
    if getattr(e, "_jst_located", False):
        return e
    loc = user_frame(e.__traceback__)
    if loc is None:
        return e
    import linecache
    fname, line, name = loc
    src = linecache.getline(fname, line).strip()
    head = (f"In transformed code:\n\n    File \"{fname}\", line {line}, in {name}\n\t{src}\n\n"
            f"    {type(e).__name__}: ")
    try:
        if e.args and isinstance(e.args[0], str):
            e.args = (head + e.args[0],) + tuple(e.args[1:])
        else:
            e.args = (head + str(e),)
    except Exception:  # noqa: BLE001
        pass
    try:
        e._jst_located = True
    except Exception:  # noqa: BLE001
        pass
    return e


def set_code_level(level=100, also_to_stdout=False):
    _settings["code_level"] = int(level)
    _settings["code_stdout"] = bool(also_to_stdout)


def set_verbosity(level=0, also_to_stdout=False):
    _settings["verbosity"] = int(level)
    _settings["verbosity_stdout"] = bool(also_to_stdout)


del sys
