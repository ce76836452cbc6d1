"""Dynamic-to-static conversion: the AST transformer, its runtime and the function converter."""
from .convert_operators import RETURN_NO_VALUE_MAGIC_NUM, UndefinedVar, VariadicReturn  # noqa: F401
from .function_converter import convert_function, set_code_level, set_verbosity  # noqa: F401
def dygraph_to_static_func(fn):
    """Paddle 1.x name: fn converted (runs in static mode into the current program)."""
    return convert_function(fn)
