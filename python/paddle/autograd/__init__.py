"""paddle.autograd: backward, PyLayer; grad mode helpers live here too (exported at paddle.*)."""
from . import backward_mode
from .backward_mode import backward, grad  # noqa: F401
from .autograd import hessian, jacobian  # noqa: F401
from .py_layer import PyLayer, PyLayerContext  # noqa: F401
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401

backward_mode.install()

__all__ = ["backward", "PyLayer", "PyLayerContext", "jacobian", "hessian"]
