"""paddle.fluid.dygraph (Paddle 1.x): Layer, Linear with the 1.x signature Linear(input_dim,
output_dim, param_attr, bias_attr, act, dtype), to_variable, guard, no_grad, TracedLayer,
ProgramTranslator / declarative (= paddle.jit.to_static) and the jit module."""
import contextlib

import numpy as np

from ... import _C
from ...autograd import no_grad  # noqa: F401
from ...jit import ProgramTranslator, TracedLayer, not_to_static  # noqa: F401
from ...jit import to_static as declarative  # noqa: F401
from ...nn import Layer, LayerList, ParameterList, Sequential  # noqa: F401
from ...nn import Linear as _Linear2
from ...static.framework import _dygraph_guard, disable_static as enable_dygraph  # noqa: F401
from ...static.framework import enable_static as disable_dygraph  # noqa: F401
from ...static.framework import in_dynamic_mode as enabled  # noqa: F401
from ... import jit  # noqa: F401

Tensor = _C.Tensor


@contextlib.contextmanager
def guard(place=None):
    """Runs the block in dygraph (imperative) mode, with names counted afresh."""
    from ...utils import unique_name
    with _dygraph_guard(), unique_name.guard():
        yield


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A Tensor from a numpy array (or Tensor / number / list), as Paddle 1.x's to_variable."""
    import paddle
    if isinstance(value, Tensor):
        return value if dtype is None else paddle.cast(value, dtype)
    if not isinstance(value, (np.ndarray, list, tuple, int, float, complex, bool, np.generic)):
        raise TypeError(f"The type of 'value' in fluid.dygraph.to_variable must be (numpy.ndarray, Tensor, "
                        f"list, tuple, number), but received {type(value)}.")
    t = paddle.to_tensor(value, dtype=dtype)
    t.stop_gradient = True
    return t


class Linear(_Linear2):
    """Paddle 1.x's fully connected layer: out = act(input @ weight + bias)."""

    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None, dtype="float32"):
        super().__init__(input_dim, output_dim, weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act

    def forward(self, input):
        out = super().forward(input)
        if self._act:
            import paddle
            out = getattr(paddle.nn.functional, self._act)(out)
        return out

from . import base  # noqa: E402,F401  (paddle.fluid.dygraph.base: guard, no_grad, to_variable)
