"""paddle.fluid: the legacy 1.x names programs of the Paddle 1.7 era import (seed E21), mapped onto
the 2.x objects they are in Paddle 2.3 (Program, Executor, places, ParamAttr ...); the dygraph
names live in paddle.fluid.dygraph."""
from ..framework.param_attr import ParamAttr  # noqa: F401
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace  # noqa: F401
from ..static import (Executor, Program, Variable, data, default_main_program,  # noqa: F401
                      default_startup_program, global_scope, program_guard, scope_guard)
from ..static.framework import disable_static as enable_dygraph  # noqa: F401
from ..static.framework import enable_static as disable_dygraph  # noqa: F401
from ..static.framework import in_dynamic_mode as in_dygraph_mode  # noqa: F401
from . import dygraph  # noqa: F401
from .dygraph import to_variable  # noqa: F401

enable_imperative = enable_dygraph
disable_imperative = disable_dygraph
