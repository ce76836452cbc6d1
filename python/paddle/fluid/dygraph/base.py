"""paddle.fluid.dygraph.base / paddle.base.dygraph.base: guard, no_grad and to_variable under the
module path Paddle's code and tests import them from."""
from . import guard, no_grad, to_variable  # noqa: F401
from ...static.framework import in_dynamic_mode as in_dygraph_mode  # noqa: F401
