"""paddle.jit (Paddle 2.3's 9 names): to_static / not_to_static / ProgramTranslator (AST conversion
to static programs, program_translator.py), TracedLayer (traced_layer.py), save / load
(api.py) and TranslatedLayer (translated_layer.py), set_code_level / set_verbosity."""
from .dy2static.function_converter import set_code_level, set_verbosity  # noqa: F401
from .program_translator import (ProgramTranslator, StaticFunction, enable_to_static,  # noqa: F401
                                 not_to_static, to_static)
from .api import load, save  # noqa: F401
from .translated_layer import TranslatedLayer  # noqa: F401
from .traced_layer import TracedLayer  # noqa: F401
from .dy2static import dygraph_to_static_func  # noqa: F401

__all__ = ["to_static", "not_to_static", "ProgramTranslator", "TracedLayer", "set_code_level", "set_verbosity",
           "save", "load", "TranslatedLayer"]
