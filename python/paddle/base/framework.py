"""paddle.base.framework (Paddle 2.6; paddle.fluid.framework in 2.3): the static-graph framework
module (paddle.static.framework) plus 2.6's mode queries."""
from ..static import framework as _sf
from ..static.framework import *  # noqa: F401,F403
from ..static.framework import Program, Variable, default_main_program, default_startup_program  # noqa: F401
from ..static.framework import in_dynamic_mode, in_pir_mode, program_guard  # noqa: F401
from ..framework import in_dynamic_or_pir_mode, use_pir_api  # noqa: F401

in_dygraph_mode = in_dynamic_mode


def __getattr__(name):  # everything else paddle.static.framework has, private names included
    return getattr(_sf, name)
