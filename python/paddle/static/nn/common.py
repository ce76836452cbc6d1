"""paddle.static.nn layers with parameters (Paddle 2.3): fc, conv2d/3d and their transposes,
deform_conv2d, embedding, sparse_embedding, prelu, bilinear_tensor_product, row_conv,
crf_decoding and multi_box_head. Each makes its parameters (named after the layer: conv2d_0.w_0)
and composes existing ops, which record, run and differentiate like any op."""
import math

from ...nn import functional as F
from ...nn import initializer as I
from ...nn.functional.conv import _padding
from ..._C import _C_ops as _ops
from ._helper import Helper, append_act, as_list, dtype_name, static_only

__all__ = ["fc", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "deform_conv2d", "embedding",
           "sparse_embedding", "prelu", "bilinear_tensor_product", "row_conv", "crf_decoding", "multi_box_head"]


@static_only
def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """out = act(sum_i flatten(x_i, num_flatten_dims) @ w_i + b): the dims of x_i from
    num_flatten_dims on are flattened into one (Paddle's mul op)."""
    import paddle
    helper = Helper("fc", name)
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    attrs = weight_attr if isinstance(weight_attr, (list, tuple)) else [weight_attr] * len(xs)
    if len(attrs) != len(xs):
        raise ValueError(f"fc: {len(xs)} inputs but {len(attrs)} weight attributes")
    nfd = int(num_flatten_dims)
    outs = []
    for xi, attr in zip(xs, attrs):
        shape = list(xi.shape)
        if nfd < 1 or nfd >= len(shape):
            raise ValueError(f"fc: num_flatten_dims must be in [1, {len(shape) - 1}] for an input of shape {shape}")
        k = 1
        for d in shape[nfd:]:
            if d < 0:
                raise ValueError(f"fc: the dims of the input from num_flatten_dims on must be known, received {shape}")
            k *= d
        w = helper.param(attr, [k, size], dtype_name(xi))
        flat = paddle.flatten(xi, start_axis=nfd) if len(shape) > nfd + 1 else xi
        outs.append(paddle.matmul(flat, w))
    out = outs[0] if len(outs) == 1 else paddle.add_n(outs)
    b = helper.param(bias_attr, [size], dtype_name(xs[0]), is_bias=True)
    if b is not None:
        out = out + b
    return helper.done(append_act(out, activation))


def _conv_init(filter_size, channels):
    n = channels
    for k in filter_size:
        n *= k
    if n <= 0:
        raise ValueError(f"Invalid filter number, excepted number is larger than 0, but received {n}, please "
                         f"check the input shape and filter size.")
    return I.Normal(0.0, (2.0 / n) ** 0.5)


def _conv(nd, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr, act,
          name, data_format):
    kind = f"conv{nd}d"
    cl = data_format in ("NHWC", "NDHWC")
    channels = input.shape[-1 if cl else 1]
    if channels is None or channels < 0:
        raise ValueError(f"{kind}: the input's channel dim must be known, received shape {list(input.shape)}")
    groups = 1 if groups is None else int(groups)
    if channels % groups:
        raise ValueError(f"{kind}: the channel number of input ({channels}) must be divisible by groups ({groups})")
    helper = Helper(kind, name)
    fs = as_list(filter_size, nd, "filter_size")
    w = helper.param(param_attr, [num_filters, channels // groups] + fs, dtype_name(input),
                     default_initializer=_conv_init(fs, channels))
    b = helper.param(bias_attr, [num_filters], dtype_name(input), is_bias=True)
    fn = F.conv2d if nd == 2 else F.conv3d
    out = fn(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups, data_format=data_format)
    return helper.done(append_act(out, act))


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """2-D convolution with a [num_filters, C / groups, kh, kw] filter (Normal(0, sqrt(2 / fan_in))
    by default) and a [num_filters] bias."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): {data_format}.")
    return _conv(2, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr, act,
                 name, data_format)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """3-D convolution (see conv2d)."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): {data_format}.")
    return _conv(3, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr, act,
                 name, data_format)


def _conv_t(nd, input, num_filters, output_size, filter_size, padding, stride, dilation, groups, param_attr,
            bias_attr, act, name, data_format):
    kind = f"conv{nd}d_transpose"
    cl = data_format in ("NHWC", "NDHWC")
    channels = input.shape[-1 if cl else 1]
    groups = 1 if groups is None else int(groups)
    if groups <= 0 or num_filters % groups:
        raise ValueError(f"{kind}: num_filters ({num_filters}) must be divisible by groups ({groups})")
    stride = as_list(stride, nd, "stride")
    dilation = as_list(dilation, nd, "dilation")
    if filter_size is None:
        if output_size is None:
            raise ValueError("output_size must be set when filter_size is None")
        osz = as_list(output_size, nd, "output_size")
        algo, pads = _padding(padding, nd, cl)
        if len(pads) == nd:
            pads = [p for p in pads for _ in (0, 1)]
        spatial = list(input.shape[1:1 + nd]) if cl else list(input.shape[2:2 + nd])
        if any(s < 0 for s in spatial):
            raise ValueError(f"{kind}: filter_size cannot be inferred from output_size with unknown input dims")
        filter_size = [(osz[i] - (spatial[i] - 1) * stride[i] + pads[2 * i] + pads[2 * i + 1] - 1) // dilation[i] + 1
                       for i in range(nd)]
    else:
        filter_size = as_list(filter_size, nd, "filter_size")
    helper = Helper(kind, name)
    w = helper.param(param_attr, [channels, num_filters // groups] + filter_size, dtype_name(input))
    b = helper.param(bias_attr, [num_filters], dtype_name(input), is_bias=True)
    fn = F.conv2d_transpose if nd == 2 else F.conv3d_transpose
    out = fn(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups,
             output_size=output_size, data_format=data_format)
    return helper.done(append_act(out, act))


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCHW"):
    """2-D transposed convolution with a [C, num_filters / groups, kh, kw] filter; filter_size is
    inferred from output_size when not given."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) of Op(paddle.static.nn.layers.conv2d_transpose) got wrong value: "
                         f"received {data_format} but only NCHW or NHWC supported.")
    return _conv_t(2, input, num_filters, output_size, filter_size, padding, stride, dilation, groups, param_attr,
                   bias_attr, act, name, data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCDHW"):
    """3-D transposed convolution (see conv2d_transpose)."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"Param(data_format) of Op(paddle.static.nn.layers.conv3d_transpose) got wrong value: "
                         f"received {data_format} but only NCDHW or NDHWC supported.")
    return _conv_t(3, input, num_filters, output_size, filter_size, padding, stride, dilation, groups, param_attr,
                   bias_attr, act, name, data_format)


@static_only
def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
                  deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None, name=None):
    """Deformable convolution v2 (v1 when mask is None) with its filter and bias parameters."""
    from ...vision.ops import deform_conv2d as _deform
    channels = x.shape[1]
    groups = 1 if groups is None else int(groups)
    if channels % groups:
        raise ValueError("num_channels must be divisible by groups.")
    helper = Helper("deformable_conv", name)
    fs = as_list(filter_size, 2, "filter_size")
    w = helper.param(weight_attr, [num_filters, channels // groups] + fs, dtype_name(x),
                     default_initializer=_conv_init(fs, channels))
    b = helper.param(bias_attr, [num_filters], dtype_name(x), is_bias=True)
    return helper.done(_deform(x, offset, w, b, stride=stride, padding=padding, dilation=dilation,
                               deformable_groups=deformable_groups or 1, groups=groups, mask=mask))


@static_only
def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """Rows of a [vocab, dim] table (lookup_table_v2): out has input's shape plus dim."""
    helper = Helper("embedding")
    w = helper.param(param_attr, list(size), dtype)
    pidx = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else size[0] + padding_idx)
    return helper.done(F.embedding(input, w, padding_idx=pidx if pidx >= 0 else None, sparse=bool(is_sparse)))


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None, table_class="MemorySparseTable",
                     param_attr=None, dtype="float32", slot=None):
    """Paddle's parameter-server embedding; here a local table with row-sparse gradients."""
    if table_class not in ("MemorySparseTable", "SSDSparseTable"):
        raise ValueError("table_class must be in [MemorySparseTable, SSDSparseTable]")
    helper = Helper("sparse_embedding")
    w = helper.param(param_attr, list(size), dtype)
    pidx = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else size[0] + padding_idx)
    return helper.done(F.embedding(input, w, padding_idx=pidx if pidx >= 0 else None, sparse=True))


@static_only
def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """max(0, x) + alpha * min(0, x) with alpha (Constant(0.25)) shared by all elements (mode
    'all'), per channel ('channel': [1, C, 1, 1]) or per element ('element': [1] + x.shape[1:])."""
    import paddle
    if mode not in ("all", "channel", "element"):
        raise ValueError("mode should be one of all, channel, element.")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"data_format must be one of NC, NCL, NCHW, NCDHW, NLC, NHWC, NDHWC but receive {data_format}")
    shape = list(x.shape)
    cl = data_format in ("NLC", "NHWC", "NDHWC")
    if mode == "all":
        alpha_shape = [1]
    elif mode == "channel":
        if len(shape) < 2:
            raise ValueError("The size of input shape should be equal or larger than 2 in prelu() when mode is "
                             "'channel'")
        alpha_shape = [1, 1, 1, shape[-1]] if cl else [1, shape[1], 1, 1]
    else:
        if len(shape) < 1:
            raise ValueError("The size of input shape should be equal or larger than 1 in prelu() when mode is "
                             "'element'")
        alpha_shape = [1] + shape[1:]
    helper = Helper("prelu", name)
    alpha = helper.param(param_attr, alpha_shape, dtype_name(x), default_initializer=I.Constant(0.25))
    if mode == "channel":
        bshape = [1] * len(shape)
        bshape[-1 if cl else 1] = shape[-1 if cl else 1]
        a = alpha.reshape(bshape)
    else:
        a = alpha
    pos = F.relu(x)
    return helper.done(pos + a * (x - pos))


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """out[b, i] = act(x[b] W_i y[b]^T + bias_i) with W [size, dim_x, dim_y], bias [1, size]."""
    helper = Helper("bilinear_tensor_product", name)
    dt = dtype_name(x)
    w = helper.param(param_attr, [size, x.shape[1], y.shape[1]], dt)
    b = helper.param(bias_attr, [1, size], dt, is_bias=True)
    return helper.done(append_act(F.bilinear(x, y, w, b), act))


def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead convolution: out[t] = sum_{j <= future_context_size} input[t + j] * filter[j]
    within each sequence (a LoD input [T, D], or [B, T, D] padded)."""
    helper = Helper("row_conv")
    w = helper.param(param_attr, [future_context_size + 1, input.shape[-1]], dtype_name(input))
    return helper.done(append_act(_ops.row_conv(input, None, w), act))


def crf_decoding(input, param_attr, label=None, length=None):
    """Viterbi decoding with the transition parameter named param_attr.name (made by
    linear_chain_crf): the best tag path (int64), or with label 1 where it agrees, else 0."""
    from ...framework.param_attr import ParamAttr
    from ..framework import default_main_program
    attr = ParamAttr._to_attr(param_attr)
    pname = attr.name if attr else None
    gb = default_main_program().global_block()
    trans = gb._find_var_recursive(pname) if pname else None
    if trans is None:
        raise ValueError(f"crf_decoding: no parameter named {pname!r} (the transition made by linear_chain_crf)")
    return _ops.crf_decoding(input, trans, None, label, length)


@static_only
def multi_box_head(inputs, image, base_size, num_classes, aspect_ratios, min_ratio=None, max_ratio=None,
                   min_sizes=None, max_sizes=None, steps=None, step_w=None, step_h=None, offset=0.5,
                   variance=[0.1, 0.1, 0.2, 0.2], flip=True, clip=False, kernel_size=1, pad=0, stride=1, name=None,
                   min_max_aspect_ratios_order=False):
    """SSD heads: prior boxes of each feature map plus a location and a confidence conv2d;
    returns (mbox_loc [N, priors, 4], mbox_conf [N, priors, num_classes], boxes, variances)."""
    import paddle
    from ...vision.ops import prior_box

    def seq(v):
        return isinstance(v, (list, tuple))

    if not seq(inputs):
        raise ValueError("inputs should be a list or tuple.")
    n = len(inputs)
    if n <= 2:
        assert min_sizes is not None and max_sizes is not None
        assert len(min_sizes) == n and len(max_sizes) == n
    elif min_sizes is None and max_sizes is None:
        min_sizes, max_sizes = [], []
        step = int(math.floor((max_ratio - min_ratio) / (n - 2)))
        for ratio in range(min_ratio, max_ratio + 1, step):
            min_sizes.append(base_size * ratio / 100.0)
            max_sizes.append(base_size * (ratio + step) / 100.0)
        min_sizes = [base_size * 0.10] + min_sizes
        max_sizes = [base_size * 0.20] + max_sizes
    for v, what in ((aspect_ratios, "aspect_ratios"), (step_h, "step_h"), (step_w, "step_w"), (steps, "steps")):
        if v is not None and v != [] and not (seq(v) and len(v) == n):
            raise ValueError(f"{what} should be list or tuple, and the length of inputs and {what} should be the "
                             f"same.")
    if steps is not None:
        step_w = step_h = steps
    locs, confs, boxes, variances = [], [], [], []
    for i, x in enumerate(inputs):
        mn = min_sizes[i] if seq(min_sizes[i]) else [min_sizes[i]]
        mx = max_sizes[i] if seq(max_sizes[i]) else [max_sizes[i]]
        ar = [] if aspect_ratios is None else (aspect_ratios[i] if seq(aspect_ratios[i]) else [aspect_ratios[i]])
        st = [step_w[i] if step_w else 0.0, step_h[i] if step_w else 0.0]
        box, var = prior_box(x, image, mn, mx, ar, variance, flip, clip, st, offset, min_max_aspect_ratios_order)
        boxes.append(box)
        variances.append(var)
        nb = box.shape[2]
        for out_list, width in ((locs, nb * 4), (confs, nb * num_classes)):
            c = conv2d(x, width, kernel_size, stride=stride, padding=pad)
            c = paddle.transpose(c, [0, 2, 3, 1])
            out_list.append(paddle.flatten(c, start_axis=1))
    if n == 1:
        box, var, loc, conf = boxes[0], variances[0], locs[0], confs[0]
    else:
        box = paddle.concat([b.reshape([-1, 4]) for b in boxes])
        var = paddle.concat([v.reshape([-1, 4]) for v in variances])
        loc = paddle.concat(locs, axis=1).reshape([0, -1, 4])
        conf = paddle.concat(confs, axis=1).reshape([0, -1, num_classes])
    box.stop_gradient = True
    var.stop_gradient = True
    return loc, conf, box, var
