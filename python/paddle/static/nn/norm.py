"""paddle.static.nn normalizations (Paddle 2.3): batch_norm (scale/bias plus the moving mean and
variance, updated in place while training), layer_norm, group_norm, instance_norm, data_norm and
spectral_norm. Parameters follow Paddle's names (batch_norm_0.w_0 scale, .b_0 bias, .w_1 mean,
.w_2 variance; data_norm's dn.batch_size ...)."""
from ...framework.param_attr import ParamAttr
from ...nn import functional as F
from ...nn import initializer as I
from ..._C import _C_ops as _ops
from ._helper import Helper, append_act, dtype_name, static_only

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "data_norm", "spectral_norm"]


def _param_dtype(x):
    dt = dtype_name(x)
    return "float32" if dt in ("float16", "bfloat16") else dt


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization over the channel axis (1 for NCHW, last for NHWC)."""
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("unsupported data layout:" + data_layout)
    helper = Helper("batch_norm", name)
    shape = list(input.shape)
    c = shape[1] if data_layout == "NCHW" else shape[-1]
    dt = _param_dtype(input)
    scale = helper.param(param_attr, [c], dt, default_initializer=I.Constant(1.0))
    bias = helper.param(bias_attr, [c], dt, is_bias=True)
    mean = helper.param(ParamAttr(name=moving_mean_name, initializer=I.Constant(0.0), trainable=False,
                                  do_model_average=do_model_average_for_mean_and_var), [c], dt)
    mean.stop_gradient = True
    var = helper.param(ParamAttr(name=moving_variance_name, initializer=I.Constant(1.0), trainable=False,
                                 do_model_average=do_model_average_for_mean_and_var), [c], dt)
    var.stop_gradient = True
    fmt = "NCHW" if data_layout == "NCHW" else "NHWC"
    if len(shape) == 2:
        fmt = "NC"
    out = F.batch_norm(input, mean, var, scale, bias, training=not is_test, momentum=momentum, epsilon=epsilon,
                       data_format=fmt, use_global_stats=use_global_stats)
    return helper.done(append_act(out, act))


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None, bias_attr=None,
               act=None, name=None):
    """Normalizes over the dims from begin_norm_axis on, with a flattened scale and bias."""
    helper = Helper("layer_norm", name)
    shape = list(input.shape)
    n = 1
    for d in shape[begin_norm_axis:]:
        n *= d
    if n <= 0:
        raise ValueError(f"layer_norm: the normalized dims {shape[begin_norm_axis:]} must be known")
    dt = _param_dtype(input)
    s = helper.param(param_attr, [n], dt, default_initializer=I.Constant(1.0)) if scale else None
    b = helper.param(bias_attr, [n], dt, is_bias=True) if shift else None
    if begin_norm_axis > 1 and _unknown(input):
        right = shape[begin_norm_axis:]
        out = _moments_norm(input, list(range(begin_norm_axis, len(shape))), epsilon)
        if s is not None:
            out = out * s.reshape(right)
        if b is not None:
            out = out + b.reshape(right)
    else:
        out = _ops.layer_norm(input, s, b, float(epsilon), int(begin_norm_axis))[0]
    return helper.done(append_act(out, act))


def _unknown(x):
    return any(d < 0 for d in x.shape)


def _moments_norm(x, axes, epsilon):
    """(x - mean) / sqrt(var + epsilon) over axes (biased variance): a composition whose shapes
    keep a program's unknown batch dim in place (the fused layer_norm's flattened statistics
    would not)."""
    import paddle
    mean = paddle.mean(x, axis=axes, keepdim=True)
    d = x - mean
    var = paddle.mean(d * d, axis=axes, keepdim=True)
    return d / paddle.sqrt(var + float(epsilon))


def _affine(y, scale, bias, channel_axis):
    shp = [1] * len(y.shape)
    shp[channel_axis] = -1
    if scale is not None:
        y = y * scale.reshape(shp)
    if bias is not None:
        y = y + bias.reshape(shp)
    return y


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """Normalizes each group of channels of each sample, then a per-channel scale and bias."""
    import paddle
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("unsupported data layout:" + data_layout)
    helper = Helper("group_norm", name)
    shape = list(input.shape)
    c = shape[1] if data_layout == "NCHW" else shape[-1]
    if c % groups:
        raise ValueError(f"group_norm: the channels ({c}) must be divisible by groups ({groups})")
    dt = _param_dtype(input)
    s = helper.param(param_attr, [c], dt, default_initializer=I.Constant(1.0))
    b = helper.param(bias_attr, [c], dt, is_bias=True)
    x = input
    if data_layout == "NHWC":
        x = paddle.transpose(x, [0, len(shape) - 1] + list(range(1, len(shape) - 1)))
    xs = list(x.shape)
    if _unknown(x):
        y = _moments_norm(x.reshape([0, groups, -1]), [2], epsilon).reshape([0] + xs[1:])
    else:
        y = _ops.layer_norm(x.reshape([xs[0], groups, -1]), None, None, float(epsilon), 2)[0].reshape(xs)
    y = _affine(y, s, b, 1)
    if data_layout == "NHWC":
        y = paddle.transpose(y, [0] + list(range(2, len(shape))) + [1])
    return helper.done(append_act(y, act))


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Normalizes each channel of each sample over its spatial dims, then a per-channel affine
    (none when both attributes are False)."""
    import paddle
    shape = list(input.shape)
    if len(shape) < 2 or shape[1] is None or shape[1] < 0:
        raise ValueError(f"instance_norm: the input needs a known channel dim, received {shape}")
    helper = Helper("instance_norm", name)
    dt = _param_dtype(input)
    c = shape[1]
    s = b = None
    if not (param_attr is False and bias_attr is False):
        s = helper.param(param_attr, [c], dt, default_initializer=I.Constant(1.0))
        b = helper.param(bias_attr, [c], dt, is_bias=True, default_initializer=I.Constant(0.0))
    if _unknown(input):
        y = _moments_norm(input, list(range(2, len(shape))), epsilon)
    else:
        y = _ops.layer_norm(input.reshape([shape[0], shape[1], -1]), None, None, float(epsilon), 2)[0].reshape(shape)
    return helper.done(_affine(y, s, b, 1))


@static_only
def data_norm(input, act=None, epsilon=1e-05, param_attr=None, data_layout="NCHW", in_place=False, name=None,
              moving_mean_name=None, moving_variance_name=None, do_model_average_for_mean_and_var=True, slot_dim=-1,
              sync_stats=False, summary_decay_rate=0.9999999, enable_scale_and_shift=False):
    """(x - batch_sum / batch_size) * sqrt(batch_size / batch_square_sum) per channel, with the
    statistics as parameters (<name>.batch_size, .batch_sum, .batch_square_sum; name 'dn' by
    default) and, with enable_scale_and_shift, <name>.scale_w and <name>.bias."""
    shape = list(input.shape)
    if len(shape) < 2:
        raise ValueError(f"The shape pf Input < 2 (got {len(shape)}D input, input shape is: {shape})")
    if data_layout == "NCHW":
        c = shape[1]
    elif data_layout == "NHWC":
        c = shape[-1]
    else:
        raise ValueError("unsupported data layout:" + data_layout)
    d = dict(param_attr) if isinstance(param_attr, dict) else {}
    name = "dn" if name is None else name
    helper = Helper("data_norm", name)
    dt = dtype_name(input)

    def stat(suffix, value):
        return helper.param(ParamAttr(name=f"{name}.{suffix}", initializer=I.Constant(float(value)), trainable=True),
                            [c], dt)

    scale_w = bias = None
    if enable_scale_and_shift:
        scale_w = stat("scale_w", d.get("scale_w", 1.0))
        bias = stat("bias", d.get("bias", 0.0))
    size = stat("batch_size", d.get("batch_size", 1e4))
    bsum = stat("batch_sum", d.get("batch_sum", 0.0))
    bsq = stat("batch_square_sum", d.get("batch_square", 1e4))
    axis = 1 if data_layout == "NCHW" else len(shape) - 1
    y = _affine(input, None, -(bsum / size), axis)
    y = _affine(y, (size / bsq).sqrt(), None, axis)
    if enable_scale_and_shift:
        y = _affine(y, scale_w, bias, axis)
    return helper.done(append_act(y, act))


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """weight / sigma, sigma its largest singular value (weight seen as [shape[dim], rest]) by
    power_iters power iterations from the vectors u, v (non-trainable Normal(0, 1) parameters,
    spectral_norm_0.w_0 / .w_1). The gradient is Paddle's spectral_norm_grad:
    grad * (1 - u v^T * sum(weight / sigma)) / sigma, with u, v and sigma held constant."""
    import paddle
    shape = list(weight.shape)
    dt = dtype_name(weight)
    if dt not in ("float32", "float64"):
        raise TypeError(f"The data type of 'weight' in spectral_norm must be float32 or float64, received {dt}.")
    if dim not in (0, 1):
        raise ValueError(f"The input `dim` must be 0 (if weight in fc) or 1 (if weight in conv), but received dim={dim}")
    helper = Helper("spectral_norm", name)
    h = shape[dim]
    w = 1
    for i, d in enumerate(shape):
        if i != dim:
            w *= d
    u = helper.param(ParamAttr(), [h], dt, default_initializer=I.Normal(0.0, 1.0))
    u.stop_gradient = True
    v = helper.param(ParamAttr(), [w], dt, default_initializer=I.Normal(0.0, 1.0))
    v.stop_gradient = True
    perm = [dim] + [i for i in range(len(shape)) if i != dim]
    mat = (paddle.transpose(weight, perm) if dim else weight).reshape([h, w]).detach()
    uu, vv = u.reshape([h, 1]), v.reshape([w, 1])
    for _ in range(int(power_iters)):
        vv = paddle.matmul(mat, uu, transpose_x=True)
        vv = vv / (paddle.sqrt(paddle.sum(vv * vv)) + eps)
        uu = paddle.matmul(mat, vv)
        uu = uu / (paddle.sqrt(paddle.sum(uu * uu)) + eps)
    sigma = paddle.sum(uu * paddle.matmul(mat, vv)).detach()
    normed = weight / sigma
    # Paddle's gradient factor, in weight's layout
    k = (1.0 - paddle.matmul(uu, vv, transpose_y=True) * paddle.sum(normed.detach())) / sigma
    if dim:
        k = paddle.transpose(k.reshape([shape[dim]] + [d for i, d in enumerate(shape) if i != dim]),
                             [perm.index(i) for i in range(len(shape))])
    else:
        k = k.reshape(shape)
    k = k.detach()
    return helper.done(weight * k + (normed - weight * k).detach())
