"""Parameters: the trainable tensors layers own (Paddle's ParamBase). A Parameter is a
paddle.Tensor subclass carrying its name, trainable flag, per-parameter learning rate,
regularizer and clip flag; paddle.create_parameter makes one outside a layer."""
from .. import _C
from ..utils import unique_name

Tensor = _C.Tensor


class Parameter(Tensor):
    """A trainable tensor (stop_gradient=False unless trainable=False), persistable."""

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, v):
        self.stop_gradient = not bool(v)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def _is_initialized(self):
        """False for a parameter created under paddle.LazyGuard until initialize() runs."""
        return self.__dict__.get("_init_func") is None

    def initialize(self):
        """Run the initializer of a parameter created under paddle.LazyGuard (once)."""
        from . import lazy_init
        lazy_init.initialize(self)

    def __deepcopy__(self, memo):
        c = Tensor.__deepcopy__(self, memo)
        p = c._share_as(Parameter)
        p.stop_gradient = self.stop_gradient
        for k, v in c.__dict__.items():
            p.__dict__[k] = v
        p.__dict__["_name"] = self.name
        memo[id(self)] = p
        return p


def make_parameter(tensor, name, trainable=True, learning_rate=1.0, regularizer=None,
                   need_clip=True, do_model_average=True):
    p = tensor._share_as(Parameter)
    p.stop_gradient = not trainable
    p.name = name
    p.persistable = True
    p.optimize_attr = {"learning_rate": float(learning_rate)}
    p.regularizer = regularizer
    p.need_clip = need_clip
    p.do_model_average = do_model_average
    p.is_distributed = False
    return p


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A new Parameter of shape/dtype initialised by attr's initializer, default_initializer,
    or the default (Constant(0) for biases, XavierUniform otherwise; see
    paddle.nn.initializer.set_global_initializer)."""
    from .. import no_grad
    from ..framework.dtype import convert_dtype
    from ..nn import initializer as I
    from .param_attr import ParamAttr
    from ..static.framework import _create_static_parameter, _in_static
    if _in_static():
        return _create_static_parameter(shape, dtype, name, attr, is_bias, default_initializer)
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if attr is None:
        attr = ParamAttr()
    if type(attr).__name__ == "WeightNormParamAttr":
        raise NotImplementedError("paddle.static.WeightNormParamAttr works in static mode only (as in Paddle "
                                  "2.3); in dynamic mode use paddle.nn.utils.weight_norm")
    if isinstance(shape, int):
        shape = [shape]
    shape = [int(s) for s in shape]
    if any(s < 0 for s in shape):
        raise ValueError(f"create_parameter: every dimension must be >= 0, received {shape}")
    d = convert_dtype(dtype)
    init = attr.initializer or default_initializer or I.base._default_initializer(is_bias)
    pname = attr.name or name or unique_name.generate("create_parameter" + (".b" if is_bias else ".w"))
    t = _C._C_ops.empty(shape, d)
    p = make_parameter(t, pname, attr.trainable, attr.learning_rate, attr.regularizer,
                       attr.need_clip, attr.do_model_average)
    from . import lazy_init
    if lazy_init.lazy_active():
        lazy_init.defer(p, init)
        return p
    with no_grad():
        init(p)
    return p


# Paddle binds create_parameter to its Tensor class too (a plain function: Tensor.create_parameter(shape, dtype))
Tensor.create_parameter = staticmethod(create_parameter)
