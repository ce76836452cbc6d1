"""Activation layers of paddle.nn (Paddle 2.3 signatures): thin Layer wrappers over
paddle.nn.functional's activations; PReLU owns its slope parameter."""
from .. import functional as F
from ..initializer import Constant
from .layers import Layer


def _simple(name, fn, doc):
    def forward(self, x):
        return fn(x)

    def __init__(self, name=None):
        Layer.__init__(self)
        self._name = name

    return type(name, (Layer,), {"__init__": __init__, "forward": forward, "__doc__": doc})


ReLU = _simple("ReLU", F.relu, "max(x, 0).")
ReLU6 = _simple("ReLU6", F.relu6, "min(max(x, 0), 6).")
Silu = _simple("Silu", F.silu, "x * sigmoid(x).")
Swish = _simple("Swish", F.swish, "x * sigmoid(x).")
Mish = _simple("Mish", F.mish, "x * tanh(softplus(x)).")
Sigmoid = _simple("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).")
Hardsigmoid = _simple("Hardsigmoid", F.hardsigmoid, "clip(x / 6 + 0.5, 0, 1).")
Hardswish = _simple("Hardswish", F.hardswish, "x * min(max(x + 3, 0), 6) / 6.")
Tanh = _simple("Tanh", F.tanh, "tanh(x).")
Tanhshrink = _simple("Tanhshrink", F.tanhshrink, "x - tanh(x).")
Softsign = _simple("Softsign", F.softsign, "x / (1 + |x|).")
LogSigmoid = _simple("LogSigmoid", F.log_sigmoid, "log(sigmoid(x)).")


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope
        self._name = name

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}"


class PReLU(Layer):
    """x if x > 0 else w * x with a learnable w: one slope (num_parameters=1) or one per channel."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or num_parameters < 1:
            raise ValueError(f"[PReLU] num_parameters must be a positive int, received {num_parameters!r}")
        self._num_parameters = num_parameters
        self._init = init
        self._data_format = data_format
        self._name = name
        self._weight_attr = weight_attr
        self._weight = self.create_parameter(attr=weight_attr, shape=[num_parameters],
                                             is_bias=False, default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}, dtype={self._dtype}"


class RReLU(Layer):
    """Randomized leaky relu (Paddle 2.4's layer, provided as an extra)."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self):
        return f"lower={self._lower}, upper={self._upper}"


def _one_param(cname, fn, pname, default, doc):
    def __init__(self, *args, name=None, **kw):
        Layer.__init__(self)
        if len(args) > 1:
            raise TypeError(f"{cname}() takes at most 1 positional argument plus name")
        v = args[0] if args else kw.pop(pname, default)
        if kw:
            raise TypeError(f"{cname}() got unexpected keyword arguments {sorted(kw)}")
        setattr(self, "_" + pname, v)
        self._name = name

    def forward(self, x):
        return fn(x, getattr(self, "_" + pname))

    def extra_repr(self):
        return f"{pname}={getattr(self, '_' + pname)}"

    return type(cname, (Layer,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                  "__doc__": doc})


ELU = _one_param("ELU", F.elu, "alpha", 1.0, "x if x > 0 else alpha * (exp(x) - 1).")
CELU = _one_param("CELU", F.celu, "alpha", 1.0, "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).")
GELU = _one_param("GELU", F.gelu, "approximate", False, "x * Phi(x) (tanh form when approximate).")
Softshrink = _one_param("Softshrink", F.softshrink, "threshold", 0.5, "soft shrinkage.")
Hardshrink = _one_param("Hardshrink", F.hardshrink, "threshold", 0.5, "hard shrinkage.")
ThresholdedReLU = _one_param("ThresholdedReLU", F.thresholded_relu, "threshold", 1.0,
                             "x if x > threshold else 0.")
Softmax = _one_param("Softmax", F.softmax, "axis", -1, "softmax along axis.")
LogSoftmax = _one_param("LogSoftmax", F.log_softmax, "axis", -1, "log_softmax along axis.")


class SELU(Layer):
    def __init__(self, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
                 name=None):
        super().__init__()
        self._scale, self._alpha, self._name = scale, alpha, name

    def forward(self, x):
        return F.selu(x, self._scale, self._alpha)

    def extra_repr(self):
        return f"scale={self._scale}, alpha={self._alpha}"


class Hardtanh(Layer):
    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002
        super().__init__()
        self._min, self._max, self._name = min, max, name

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max)

    def extra_repr(self):
        return f"min={self._min}, max={self._max}"


class Softplus(Layer):
    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self._beta, self._threshold, self._name = beta, threshold, name

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold)

    def extra_repr(self):
        return f"beta={self._beta}, threshold={self._threshold}"


class Maxout(Layer):
    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._groups, self._axis, self._name = groups, axis, name

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis)

    def extra_repr(self):
        return f"groups={self._groups}, axis={self._axis}"


class GLU(Layer):
    """a * sigmoid(b) with a, b the halves of x along axis (Paddle 2.6)."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return F.glu(x, self._axis)

    def extra_repr(self):
        return f"axis={self._axis}" + (f", name={self._name}" if self._name else "")


class Softmax2D(Layer):
    """Softmax over the channel axis (-3) of a [C, H, W] or [N, C, H, W] input (Paddle 2.6)."""

    def __init__(self, name=None):
        super().__init__()
        self._dtype, self._name = None, name

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise AssertionError(f"Softmax2D requires a 3D or 4D tensor as input. Received: {x.ndim}D.")
        return F.softmax(x, axis=-3, dtype=self._dtype)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


__all__ = ["GLU", "Softmax2D", "ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "SELU", "CELU", "GELU", "Silu",
           "Swish", "Mish", "Sigmoid", "Hardsigmoid", "Hardswish", "Hardtanh", "Tanh", "Tanhshrink",
           "Softplus", "Softsign", "Softshrink", "Hardshrink", "LogSigmoid", "Softmax", "LogSoftmax",
           "Maxout", "ThresholdedReLU"]
