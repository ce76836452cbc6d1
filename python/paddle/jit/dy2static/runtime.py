"""The `_jst` namespace converted code calls (one cell per converted function points here)."""
from .convert_builtins import (convert_assert, convert_call, convert_len, convert_print,  # noqa: F401
                               convert_shape)
from .convert_loops import convert_while_loop, for_enumerate, for_iter, for_range, for_zip  # noqa: F401
from .convert_operators import (UndefinedVar, convert_append, convert_compare_chain,  # noqa: F401
                                convert_ifelse, convert_ifelse_expr, convert_logical_and,
                                convert_logical_not, convert_logical_or, loop_cond, not_any)
