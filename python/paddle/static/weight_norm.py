"""paddle.static.WeightNormParamAttr: a parameter attribute that makes a layer's weight
w = g * v / ||v|| (Salimans & Kingma's weight normalization; the norm over every dimension but
dim, or over all of v when dim is None). In a static program the layer gets two parameters,
<name>_g and <name>_v, and w is computed from them by ops of the main program; the startup
program initializes v with the attribute's initializer and g with ||v||, so w starts equal to
what the initializer alone would give (Paddle's LayerHelper._create_weight_normalize)."""
import copy

from .. import _C
from ..framework.param_attr import ParamAttr


class WeightNormParamAttr(ParamAttr):
    """ParamAttr plus dim (the dimension whose slices are normalized separately; None: the whole
    weight). Static mode only."""

    params_with_weight_norm = []

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=False, need_clip=True):
        if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
            raise TypeError(f"WeightNormParamAttr: dim must be an int or None, received {type(dim).__name__}")
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable, do_model_average=do_model_average,
                         need_clip=need_clip)
        self.dim = dim

    def __repr__(self):
        return f"WeightNormParamAttr(dim={self.dim}, name={self.name!r}, trainable={self.trainable})"


def _norm_except_dim(x, dim, g_shape):
    """sqrt(sum(|x|^2)) over every axis but dim, shaped g_shape."""
    import paddle
    nd = len(x.shape)
    sq = paddle.pow(paddle.abs(x), 2.0)
    if dim is None:
        s = paddle.sum(sq)
    else:
        axes = [a for a in range(nd) if a != dim]
        s = paddle.sum(sq, axis=axes, keepdim=True) if axes else sq
    return paddle.reshape(paddle.pow(s, 0.5), g_shape)


def create_weight_normalized(shape, dtype, attr, is_bias, default_initializer):
    """The Variable w of a WeightNormParamAttr parameter (g and v made in the current programs)."""
    import paddle
    from .framework import _create_static_parameter, default_startup_program
    from ..utils import unique_name
    shape = [int(s) for s in shape]
    dim = attr.dim
    if dim is not None:
        if dim < 0:
            dim += len(shape)
        if not 0 <= dim < len(shape):
            raise ValueError(f"WeightNormParamAttr: dim {attr.dim} is out of range for a weight of shape {shape}")
    name = attr.name or unique_name.generate("weight_norm.w")
    g_shape = [1] * len(shape)
    if dim is not None:
        g_shape[dim] = shape[dim]
    v_attr = ParamAttr(name=name + "_v", initializer=attr.initializer, learning_rate=attr.learning_rate,
                       regularizer=attr.regularizer, trainable=attr.trainable,
                       do_model_average=attr.do_model_average, need_clip=attr.need_clip)
    g_attr = copy.copy(v_attr)
    g_attr.name = name + "_g"
    g_attr.initializer = None

    def init_g(sg):
        sv = default_startup_program().global_block().desc.find_var(name + "_v")._tensor()
        _C._static_assign(sg, _norm_except_dim(sv, dim, g_shape))

    v = _create_static_parameter(shape, dtype, attr=v_attr, is_bias=is_bias, default_initializer=default_initializer)
    g = _create_static_parameter(g_shape, dtype, attr=g_attr, default_initializer=init_g)
    w = paddle.multiply(v, paddle.divide(g, _norm_except_dim(v, dim, g_shape)))
    WeightNormParamAttr.params_with_weight_norm.append(w)
    return w
