"""The converters of the network layers (export.py, op_mapper.py): convolution and transposed
convolution, pooling (adaptive pooling with unequal windows as MatMuls), batch / layer / instance
norm (LayerNormalization only from opset 17, decomposed before), interpolation (Resize from 11,
Upsample before), pad3d, and the recurrent layers (our lstm/gru/simple_rnn *_seq ops as ONNX
LSTM/GRU/RNN with Paddle's gate order rearranged). Registered in op_mapper.CONVERTERS on import
(op_mapper.py imports this module last)."""

import numpy as np

from .op_mapper import _attr, _in, _out, reg


# ------------------------------------------------------------------ convolution, pooling, norms
def _pads_2d(g, op, in_hw, kernel, strides, dilations):
    """ONNX pads [h0, w0, h1, w1] for Paddle's paddings + padding_algorithm."""
    algo = _attr(op, "padding_algorithm", "EXPLICIT")
    p = [int(v) for v in _attr(op, "paddings", [0, 0])]
    if algo == "VALID":
        return [0, 0, 0, 0]
    if algo == "SAME":  # Paddle's UpdatePaddingAndDilation: SAME also sets the dilation to 1
        pads = [0, 0, 0, 0]
        for i in range(2):
            if in_hw[i] < 0:
                raise NotImplementedError("padding_algorithm SAME with unknown spatial dims")
            out = (in_hw[i] + strides[i] - 1) // strides[i]
            k = kernel[i]
            total = max((out - 1) * strides[i] + k - in_hw[i], 0)
            pads[i], pads[i + 2] = total // 2, total - total // 2
        return pads
    if len(p) == 2:
        return [p[0], p[1], p[0], p[1]]
    if len(p) == 4:  # Paddle: [top, bottom, left, right]
        return [p[0], p[2], p[1], p[3]]
    raise NotImplementedError(f"paddings of length {len(p)}")


def _nchw(g, op, x, key="data_format"):
    fmt = _attr(op, key, "NCHW")
    if fmt in ("NHWC",):
        return g.node("Transpose", [x], perm=[0, 3, 1, 2]), True
    if fmt not in ("NCHW", "AnyLayout"):
        raise NotImplementedError(f"data_format {fmt}")
    return x, False


def _finish(g, t, out, nhwc):
    if nhwc:
        g.node("Transpose", [t], out, perm=[0, 2, 3, 1])
    else:
        g.node("Identity", [t], out)


def _conv_common(g, op):
    """What conv2d and conv2d_transpose read alike: the input (NCHW), filter, output, layout,
    spatial input dims, filter shape, strides and dilations."""
    x, w, out = _in(op, "Input"), _in(op, "Filter"), _out(op, "Output")
    x, nhwc = _nchw(g, op, x)
    shp = g.shape(_in(op, "Input"))
    hw = [shp[1], shp[2]] if nhwc else shp[2:4]
    strides = [int(s) for s in _attr(op, "strides", [1, 1])]
    dil = [int(d) for d in _attr(op, "dilations", [1, 1])]
    return x, w, out, nhwc, hw, g.shape(w), strides, dil


@reg("conv2d", "depthwise_conv2d")
def _conv2d(g, op):
    x, w, out, nhwc, hw, wshape, strides, dil = _conv_common(g, op)
    pads = _pads_2d(g, op, hw, wshape[2:], strides, dil)
    if _attr(op, "padding_algorithm", "EXPLICIT") == "SAME":
        dil = [1, 1]
    t = g.node("Conv", [x, w], kernel_shape=wshape[2:], strides=strides, dilations=dil, pads=pads,
               group=int(_attr(op, "groups", 1)))
    _finish(g, t, out, nhwc)


@reg("conv2d_transpose")
def _conv2d_transpose(g, op):
    x, w, out, nhwc, hw, wshape, strides, dil = _conv_common(g, op)
    if _attr(op, "padding_algorithm", "EXPLICIT") == "SAME":
        raise NotImplementedError("conv2d_transpose with padding_algorithm SAME")
    pads = _pads_2d(g, op, hw, wshape[2:], strides, dil)
    oshape = g.shape(out)
    ohw = [oshape[1], oshape[2]] if nhwc else oshape[2:4]
    extra = []
    for i in range(2):
        base = (hw[i] - 1) * strides[i] - pads[i] - pads[i + 2] + dil[i] * (wshape[2 + i] - 1) + 1
        if hw[i] < 0 or ohw[i] < 0:
            extra = [int(v) for v in (_attr(op, "output_padding", []) or [0, 0])]
            break
        extra.append(ohw[i] - base)
    t = g.node("ConvTranspose", [x, w], kernel_shape=wshape[2:], strides=strides, dilations=dil, pads=pads,
               group=int(_attr(op, "groups", 1)), output_padding=extra if any(extra) else None)
    _finish(g, t, out, nhwc)


def _adaptive_matrix(n_in, n_out):
    m = np.zeros((n_out, n_in), dtype=np.float64)
    for i in range(n_out):
        s, e = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, s:e] = 1.0 / (e - s)
    return m


@reg("pool2d")
def _pool2d(g, op):
    x0, out = _in(op, "X"), _out(op, "Out")
    x, nhwc = _nchw(g, op, x0)
    shp = g.shape(x0)
    hw = [shp[1], shp[2]] if nhwc else shp[2:4]
    kind = _attr(op, "pooling_type", "max")
    ksize = [int(k) for k in _attr(op, "ksize")]
    is_max = kind == "max"
    if _attr(op, "global_pooling", False) or (_attr(op, "adaptive", False) and ksize == [1, 1]):
        _finish(g, g.node("GlobalMaxPool" if is_max else "GlobalAveragePool", [x]), out, nhwc)
        return
    if _attr(op, "adaptive", False):
        if any(d < 0 for d in hw):
            raise NotImplementedError("adaptive pool2d with unknown spatial dims")
        if hw[0] % ksize[0] == 0 and hw[1] % ksize[1] == 0:
            k = [hw[0] // ksize[0], hw[1] // ksize[1]]
            t = g.node("MaxPool" if is_max else "AveragePool", [x], kernel_shape=k, strides=k)
        elif not is_max:  # windows of unequal size: mean over rows, then columns (two matmuls)
            dt = g.dtype(x0)
            mh = g.const(_adaptive_matrix(hw[0], ksize[0]).astype(dt))
            mwt = g.const(_adaptive_matrix(hw[1], ksize[1]).T.astype(dt))
            t = g.node("MatMul", [g.node("MatMul", [mh, x]), mwt])
        else:
            rows = []
            for i in range(ksize[0]):
                s, e = (i * hw[0]) // ksize[0], -((-(i + 1) * hw[0]) // ksize[0])
                rows.append(g.reduce("ReduceMax", g.slice(x, [2], [s], [e]), [2], 1))
            hmax = g.node("Concat", rows, axis=2) if len(rows) > 1 else rows[0]
            cols = []
            for j in range(ksize[1]):
                s, e = (j * hw[1]) // ksize[1], -((-(j + 1) * hw[1]) // ksize[1])
                cols.append(g.reduce("ReduceMax", g.slice(hmax, [3], [s], [e]), [3], 1))
            t = g.node("Concat", cols, axis=3) if len(cols) > 1 else cols[0]
        _finish(g, t, out, nhwc)
        return
    strides = [int(s) for s in _attr(op, "strides", [1, 1])]
    pads = _pads_2d(g, op, hw, ksize, strides, [1, 1])
    ceil = bool(_attr(op, "ceil_mode", False))
    attrs = dict(kernel_shape=ksize, strides=strides, pads=pads)
    if ceil and g.opset >= 10:
        attrs["ceil_mode"] = 1
    elif ceil:  # opset 9: extra end padding (ignored by max and by exclusive average)
        if any(d < 0 for d in hw):
            raise NotImplementedError("pool2d ceil_mode with unknown spatial dims at opset_version 9")
        if not is_max and not _attr(op, "exclusive", True):
            raise NotImplementedError("non-exclusive avg pool2d with ceil_mode needs opset_version >= 10")
        for i in range(2):
            span = hw[i] + pads[i] + pads[i + 2] - ksize[i]
            rem = span % strides[i]
            if rem:
                pads[i + 2] += strides[i] - rem
    if not is_max:
        attrs["count_include_pad"] = 0 if _attr(op, "exclusive", True) else 1
    _finish(g, g.node("MaxPool" if is_max else "AveragePool", [x], **attrs), out, nhwc)


@reg("batch_norm")
def _batch_norm(g, op):
    x0, y = _in(op, "X"), _out(op, "Y")
    x, nhwc = _nchw(g, op, x0, "data_layout")
    ins = [x, _in(op, "Scale"), _in(op, "Bias"), _in(op, "Mean"), _in(op, "Variance")]
    t = g.node("BatchNormalization", ins, epsilon=float(_attr(op, "epsilon", 1e-5)),
               momentum=float(_attr(op, "momentum", 0.9)))
    _finish(g, t, y, nhwc)


@reg("layer_norm")
def _layer_norm(g, op):
    x, y = _in(op, "X"), _out(op, "Y")
    shp = g.shape(x)
    r = len(shp)
    b = int(_attr(op, "begin_norm_axis", 1))
    eps = float(_attr(op, "epsilon", 1e-5))
    dt = g.dtype(x)
    norm = shp[b:]
    scale, bias = _in(op, "Scale"), _in(op, "Bias")

    def shaped(t):
        if t is None:
            return None
        if len(norm) == 1:
            return t
        if any(d < 0 for d in norm):
            raise NotImplementedError("layer_norm over unknown dims")
        return g.reshape(t, norm)

    scale, bias = shaped(scale), shaped(bias)
    if g.opset >= 17:
        sc = scale if scale is not None else g.const(np.ones(norm, dt))
        ins = [x, sc] + ([bias] if bias is not None else [])
        g.node("LayerNormalization", ins, y, axis=b, epsilon=eps)
        return
    axes = list(range(b, r))
    mean = g.reduce("ReduceMean", x, axes, 1)
    d = g.node("Sub", [x, mean])
    var = g.reduce("ReduceMean", g.node("Mul", [d, d]), axes, 1)
    t = g.node("Div", [d, g.node("Sqrt", [g.node("Add", [var, g.const(np.asarray(eps, dt))])])])
    if scale is not None:
        t = g.node("Mul", [t, scale])
    if bias is not None:
        t = g.node("Add", [t, bias])
    g.node("Identity", [t], y)


@reg("instance_norm")
def _instance_norm(g, op):
    x, y = _in(op, "X"), _out(op, "Y")
    c = g.shape(x)[1]
    dt = g.dtype(x)
    scale, bias = _in(op, "Scale"), _in(op, "Bias")
    if c < 0 and (scale is None or bias is None):
        raise NotImplementedError("instance_norm without scale/bias over an unknown channel count")
    scale = scale if scale is not None else g.const(np.ones([c], dt))
    bias = bias if bias is not None else g.const(np.zeros([c], dt))
    g.node("InstanceNormalization", [x, scale, bias], y, epsilon=float(_attr(op, "epsilon", 1e-5)))


def _interp(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    for slot in ("OutSize", "SizeTensor", "Scale"):
        if slot in op.input_names and op.input(slot):
            raise NotImplementedError(f"{op.type} with {slot} given as a tensor")
    if _attr(op, "data_layout", "NCHW") not in ("NCHW", "AnyLayout"):
        raise NotImplementedError(f"{op.type} with data_layout {_attr(op, 'data_layout')}")
    method = _attr(op, "interp_method", op.type.split("_")[0])
    align_corners = bool(_attr(op, "align_corners", False))
    align_mode = int(_attr(op, "align_mode", 1))
    ishp, oshp = g.shape(x), g.shape(out)
    r = len(ishp)
    scale = [float(s) for s in (_attr(op, "scale", []) or [])]
    sizes_given = any(int(_attr(op, k, -1)) > 0 for k in ("out_d", "out_h", "out_w"))
    use_scales = bool(scale) and not sizes_given and all(s > 0 for s in scale)
    if use_scales and len(scale) == 1:
        scale = scale * (r - 2)
    mode = {"nearest": "nearest", "bilinear": "linear", "linear": "linear", "trilinear": "linear",
            "bicubic": "cubic"}[method]
    if align_corners:
        ctm = "align_corners"
    elif mode == "nearest":
        ctm = "asymmetric"
    elif mode == "linear" and align_mode == 1:
        ctm = "asymmetric"
    else:
        ctm = "half_pixel"
    if g.opset < 11:
        if ctm != "asymmetric" or mode == "cubic":
            raise NotImplementedError(f"{op.type} (align_corners={align_corners}, align_mode={align_mode}) needs "
                                      "opset_version >= 11 (Resize coordinate modes)")
        if not use_scales:
            if any(d < 0 for d in ishp[2:] + oshp[2:]):
                raise NotImplementedError(f"{op.type} with unknown spatial dims at opset_version < 11")
            scale = [o / i for i, o in zip(ishp[2:], oshp[2:])]
            if any(int(np.float32(s) * i) != o for s, i, o in zip(scale, ishp[2:], oshp[2:])):
                raise NotImplementedError(f"{op.type} to a size that is not a float32 multiple of the input "
                                          "at opset_version < 11")
        sc = g.const(np.asarray([1.0, 1.0] + scale, np.float32))
        g.node("Upsample" if g.opset == 9 else "Resize", [x, sc], out, mode=mode)
        return
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm)
    if mode == "nearest":
        attrs["nearest_mode"] = "round_prefer_ceil" if align_corners else "floor"
    if mode == "cubic":
        attrs["cubic_coeff_a"] = -0.75
    roi = g.const(np.zeros([0], np.float32)) if g.opset < 13 else ""
    if use_scales:
        g.node("Resize", [x, roi, g.const(np.asarray([1.0, 1.0] + scale, np.float32))], out, **attrs)
        return
    if all(d >= 0 for d in oshp):
        sizes = g.ints(oshp)
    elif all(d >= 0 for d in oshp[2:]):
        nc = g.slice(g.node("Shape", [x]), [0], [0], [2])
        sizes = g.node("Concat", [nc, g.ints(oshp[2:])], axis=0)
    else:
        raise NotImplementedError(f"{op.type} with unknown output spatial dims")
    empty_scales = g.const(np.zeros([0], np.float32)) if g.opset < 13 else ""
    g.node("Resize", [x, roi, empty_scales, sizes], out, **attrs)


for _t in ("nearest_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2", "linear_interp_v2",
           "trilinear_interp_v2", "nearest_interp", "bilinear_interp"):
    reg(_t)(_interp)


@reg("pad3d")
def _pad3d(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    if _in(op, "Paddings") is not None:
        raise NotImplementedError("pad3d with paddings given as a tensor")
    p = [int(v) for v in _attr(op, "paddings")]  # [left, right, top, bottom, front, back]
    fmt = _attr(op, "data_format", "NCDHW")
    mode = _attr(op, "mode", "constant")
    if mode == "circular":
        raise NotImplementedError("pad3d circular mode")
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}[mode]
    d, h, w = (p[4], p[5]), (p[2], p[3]), (p[0], p[1])
    if fmt == "NCDHW":
        pads = [0, 0, d[0], h[0], w[0], 0, 0, d[1], h[1], w[1]]
    else:
        pads = [0, d[0], h[0], w[0], 0, 0, d[1], h[1], w[1], 0]
    value = float(_attr(op, "value", 0.0))
    if g.opset < 11:
        g.node("Pad", [x], out, mode=onnx_mode, pads=pads, value=value)
    else:
        g.node("Pad", [x, g.ints(pads), g.const(np.asarray(value, g.dtype(x)))], out, mode=onnx_mode)


# ------------------------------------------------------------------ recurrent layers (ours: *_seq ops)
def _rnn_common(g, op, n_gates, order):
    """X (time-major), W, R, B and initial states for ONNX LSTM/GRU/RNN from a *_seq op."""
    x = _in(op, "x")
    w_ih, w_hh = _in(op, "w_ih"), _in(op, "w_hh")
    if w_ih not in g.consts or w_hh not in g.consts:
        raise NotImplementedError(f"{op.type} with computed weights")
    wi, wh = g.consts[w_ih], g.consts[w_hh]
    hid = wh.shape[1]

    def reorder(a):
        blocks = np.split(a, n_gates, axis=0)
        return np.concatenate([blocks[i] for i in order], axis=0)

    bi = g.consts.get(_in(op, "b_ih")) if _in(op, "b_ih") is not None else np.zeros([n_gates * hid], wi.dtype)
    bh = g.consts.get(_in(op, "b_hh")) if _in(op, "b_hh") is not None else np.zeros([n_gates * hid], wi.dtype)
    if bi is None or bh is None:
        raise NotImplementedError(f"{op.type} with computed biases")
    W = g.const(reorder(wi)[None])
    R = g.const(reorder(wh)[None])
    B = g.const(np.concatenate([reorder(bi), reorder(bh)])[None])
    time_major = bool(_attr(op, "time_major", False))
    xt = x if time_major else g.node("Transpose", [x], perm=[1, 0, 2])
    sl = _in(op, "seq_len")
    seq = "" if sl is None else g.cast(sl, np.int32)
    direction = "reverse" if _attr(op, "reverse", False) else "forward"
    return xt, W, R, B, seq, hid, direction, time_major


def _rnn_outputs(g, op, y, time_major, states):
    out = _out(op, "out")
    ys = g.squeeze(y, [1])  # [T, 1, B, H] -> [T, B, H]
    if time_major:
        g.node("Identity", [ys], out)
    else:
        g.node("Transpose", [ys], out, perm=[1, 0, 2])
    for slot, t in states:
        name = _out(op, slot)
        if name is not None:
            g.squeeze(t, [0], name)


@reg("lstm_seq")
def _lstm_seq(g, op):
    # Paddle's gate blocks are i, f, c, o; ONNX's are i, o, f, c
    xt, W, R, B, seq, hid, direction, tm = _rnn_common(g, op, 4, [0, 3, 1, 2])
    h0 = g.unsqueeze(_in(op, "h0"), [0])
    c0 = g.unsqueeze(_in(op, "c0"), [0])
    y, yh, yc = g.node("LSTM", [xt, W, R, B, seq, h0, c0], n_out=3, hidden_size=hid, direction=direction)
    _rnn_outputs(g, op, y, tm, [("h_n", yh), ("c_n", yc)])


@reg("gru_seq")
def _gru_seq(g, op):
    # Paddle's gate blocks are r, z, c; ONNX's are z, r, h; Paddle applies r after W_hc h + b_hc
    xt, W, R, B, seq, hid, direction, tm = _rnn_common(g, op, 3, [1, 0, 2])
    h0 = g.unsqueeze(_in(op, "h0"), [0])
    y, yh = g.node("GRU", [xt, W, R, B, seq, h0], n_out=2, hidden_size=hid, direction=direction,
                   linear_before_reset=1)
    _rnn_outputs(g, op, y, tm, [("h_n", yh)])


@reg("simple_rnn_seq")
def _simple_rnn_seq(g, op):
    xt, W, R, B, seq, hid, direction, tm = _rnn_common(g, op, 1, [0])
    act = {"tanh": "Tanh", "relu": "Relu"}[_attr(op, "activation", "tanh")]
    h0 = g.unsqueeze(_in(op, "h0"), [0])
    y, yh = g.node("RNN", [xt, W, R, B, seq, h0], n_out=2, hidden_size=hid, direction=direction,
                   activations=[act])
    _rnn_outputs(g, op, y, tm, [("h_n", yh)])


# Paddle's rnn op (what nn.LSTM/GRU/SimpleRNN record, and Paddle's saved programs hold): Input
# time-major, PreState [L*D, B, H] (LSTM: h, c), WeightList = every (layer, direction)'s w_ih,
# w_hh, then their b_ih, b_hh. One ONNX node per layer and direction, as for the *_seq ops.
_RNN_MODES = {"LSTM": ("LSTM", 4, [0, 3, 1, 2]), "GRU": ("GRU", 3, [1, 0, 2]),
              "RNN_TANH": ("RNN", 1, [0]), "RNN_RELU": ("RNN", 1, [0])}


@reg("rnn")
def _rnn(g, op):
    mode = _attr(op, "mode", "RNN_TANH")
    if mode not in _RNN_MODES:
        raise NotImplementedError(f"rnn mode {mode}")
    onnx_type, n_gates, order = _RNN_MODES[mode]
    layers, dirs = int(_attr(op, "num_layers", 1)), 2 if _attr(op, "is_bidirec", False) else 1
    n = layers * dirs
    ws = op.input("WeightList")
    if len(ws) != 4 * n:
        raise NotImplementedError(f"rnn with {len(ws)} weights (ONNX export needs w_ih, w_hh, b_ih, b_hh of "
                                  f"each of the {n} layers and directions)")
    if any(w not in g.consts for w in ws):
        raise NotImplementedError("rnn with computed weights")

    def reorder(a):
        blocks = np.split(a, n_gates, axis=0)
        return np.concatenate([blocks[i] for i in order], axis=0)

    states = op.input("PreState")
    sl = _in(op, "SequenceLength")
    seq = "" if sl is None else g.cast(sl, np.int32)
    x = _in(op, "Input")
    finals = [[] for _ in states]
    for layer in range(layers):
        ys = []
        for d in range(dirs):
            k = layer * dirs + d
            wi, wh = g.consts[ws[2 * k]], g.consts[ws[2 * k + 1]]
            bi, bh = g.consts[ws[2 * n + 2 * k]], g.consts[ws[2 * n + 2 * k + 1]]
            hid = wh.shape[1]
            W, R = g.const(reorder(wi)[None]), g.const(reorder(wh)[None])
            B = g.const(np.concatenate([reorder(bi), reorder(bh)])[None])
            init = [g.slice(s, [0], [k], [k + 1]) for s in states]
            attrs = {"hidden_size": hid, "direction": "reverse" if d else "forward"}
            if onnx_type == "GRU":
                attrs["linear_before_reset"] = 1
            if onnx_type == "RNN":
                attrs["activations"] = ["Relu" if mode == "RNN_RELU" else "Tanh"]
            res = g.node(onnx_type, [x, W, R, B, seq] + init, n_out=1 + len(states), **attrs)
            ys.append(g.squeeze(res[0], [1]))  # [T, 1, B, H] -> [T, B, H]
            for j in range(len(states)):
                finals[j].append(res[1 + j])
        x = g.node("Concat", ys, axis=2) if dirs == 2 else ys[0]
    g.node("Identity", [x], _out(op, "Out"))
    for j in range(len(states)):
        name = _out(op, "State", j)
        if name is not None:
            g.node("Concat", finals[j], name, axis=0)
