"""paddle.base: Paddle 2.6's name for the legacy framework package that Paddle 2.3 calls
paddle.fluid (issue 23, the 2.6 aliases): the same objects under the new name."""
import sys as _sys

from ..fluid import *  # noqa: F401,F403
from ..fluid import (CPUPlace, CUDAPinnedPlace, CUDAPlace, Executor, ParamAttr, Program,  # noqa: F401
                     Variable, data, default_main_program, default_startup_program, disable_dygraph,
                     disable_imperative, dygraph, enable_dygraph, enable_imperative, global_scope,
                     in_dygraph_mode, program_guard, scope_guard, to_variable)
from . import core, data_feeder, framework  # noqa: F401
from ..framework import param_attr  # noqa: F401
from ..utils import unique_name  # noqa: F401

_sys.modules[__name__ + ".dygraph"] = dygraph
_sys.modules[__name__ + ".param_attr"] = param_attr
_sys.modules[__name__ + ".unique_name"] = unique_name
