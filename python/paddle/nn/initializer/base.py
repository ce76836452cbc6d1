"""Initializer base class, fan computation, calculate_gain and the global default initializers
(paddle.nn.initializer.set_global_initializer)."""
import math


class Initializer:
    """Callable on a parameter: fills it in place (under no_grad) and returns it."""

    def __call__(self, param, block=None):
        from ... import no_grad
        with no_grad():
            value = self._value(list(param.shape), param.dtype)
            param._copy_(value)
        return param

    def _value(self, shape, dtype):
        raise NotImplementedError(f"{type(self).__name__} must implement _value(shape, dtype)")


def _program_seed():
    """The seed of a random initializer's op: the current main program's random_seed, as Paddle's
    initializers take it (`if self._seed == 0: self._seed = block.program.random_seed`, in dygraph
    too). 0 (the default) draws from the global generator; a program seed set (Program.random_seed,
    paddle.framework.random._manual_program_seed) makes every draw of one shape the same values."""
    from ...static.framework import default_main_program
    return int(default_main_program().random_seed or 0)


def _compute_fans(shape):
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (Paddle's table)."""
    if param is None:
        param = 0.01
    table = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + param ** 2))
    if nonlinearity not in table:
        raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}; expected one of "
                         f"{sorted(list(table) + ['leaky_relu'])}")
    return table[nonlinearity]


_global_weight = None
_global_bias = None


def set_global_initializer(weight_init, bias_init=None):
    """Default initializers for every parameter created afterwards (None resets)."""
    global _global_weight, _global_bias
    for v, what in ((weight_init, "weight_init"), (bias_init, "bias_init")):
        if v is not None and not isinstance(v, Initializer):
            raise TypeError(f"set_global_initializer: {what} must be an Initializer or None")
    _global_weight, _global_bias = weight_init, bias_init


def _default_initializer(is_bias):
    from .constant import Constant
    from .xavier import XavierUniform
    if is_bias:
        return _global_bias or Constant(0.0)
    return _global_weight or XavierUniform()


__all__ = ["Initializer", "calculate_gain", "set_global_initializer"]
