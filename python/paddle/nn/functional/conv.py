"""Convolutions (Paddle 2.3 paddle.nn.functional.conv*): conv1d/2d/3d and their transposes over
the conv2d / conv3d / conv2d_transpose / conv3d_transpose ops (1-D runs as 2-D on an unsqueezed
input). Padding may be an int, a list (symmetric or per-side pairs) or 'SAME'/'VALID'. conv1d/2d/3d
hand the bias to the op (fused into the oneDNN convolution) unless auto_cast is on; the
transposes add it afterwards."""
from ..._C import _C_ops as _ops
from ..._C import _amp_state

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose"]


def _tuple(v, n, name="value"):
    if isinstance(v, int):
        return [v] * n
    v = [int(a) for a in v]
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{name} must be an int or a list of {n} ints, received {v}")
    return v


def _padding(padding, n, channel_last):
    """-> (algorithm, explicit pads list of n or 2n values)."""
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"padding must be 'SAME', 'VALID', an int or a list, received {padding!r}")
        return p, [0] * n
    if isinstance(padding, int):
        return "EXPLICIT", [padding] * n
    padding = list(padding)
    if len(padding) > 0 and isinstance(padding[0], (list, tuple)):
        # [[0,0],[0,0],[pt,pb],[pl,pr]] form (batch and channel pairs must be 0)
        sp = padding[1:-1] if channel_last else padding[2:]
        if len(sp) != n:
            raise ValueError(f"padding pairs must cover {n} spatial dims")
        return "EXPLICIT", [int(v) for pr in sp for v in pr]
    if len(padding) == n or len(padding) == 2 * n:
        return "EXPLICIT", [int(v) for v in padding]
    if len(padding) == 1:
        return "EXPLICIT", [int(padding[0])] * n
    raise ValueError(f"padding must have {n} or {2 * n} values, received {padding}")


def _fmt_check(data_format, allowed):
    if data_format not in allowed:
        raise ValueError(f"data_format must be one of {allowed}, received {data_format!r}")
    return data_format in ("NHWC", "NLC", "NDHWC")


def _fused(bias):
    """The bias the conv op takes (flattened to [C_out]; a wrong size is the op's ValueError), or
    None: without bias, or under auto_cast, where Paddle's separate elementwise_add promotes a
    float16 conv output and a float32 bias to float32 (_add_bias keeps that); and while a
    static program records, where Paddle's conv2d op has no bias input (elementwise_add follows)."""
    from ...static.framework import _in_static
    if bias is None or _amp_state()[0] or _in_static():
        return None
    return bias if len(bias.shape) == 1 else bias.reshape([-1])


def _add_bias(out, bias, channel_last, nd):
    if bias is None:
        return out
    # the add op itself (Paddle's elementwise_add): under auto_cast a float16 conv output and a
    # float32 bias promote to float32, as in Paddle, instead of the operator's right-to-left cast
    if channel_last:
        return _ops.add(out, bias)
    return _ops.add(out, bias.reshape([1, -1] + [1] * (nd - 2)))


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    cl = _fmt_check(data_format, ("NCHW", "NHWC"))
    algo, pads = _padding(padding, 2, cl)
    fb = _fused(bias)
    out = _ops.conv2d(x, weight, _tuple(stride, 2, "stride"), pads, algo, groups, _tuple(dilation, 2, "dilation"),
                      data_format, fb)
    return out if fb is not None else _add_bias(out, bias, cl, 4)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    cl = _fmt_check(data_format, ("NCDHW", "NDHWC"))
    algo, pads = _padding(padding, 3, cl)
    fb = _fused(bias)
    out = _ops.conv3d(x, weight, _tuple(stride, 3, "stride"), pads, algo, groups, _tuple(dilation, 3, "dilation"),
                      data_format, fb)
    return out if fb is not None else _add_bias(out, bias, cl, 5)


def _pads_1d_to_2d(algo, pads):
    if algo != "EXPLICIT":
        return [0, 0]
    return [0, 0, pads[0], pads[1]] if len(pads) == 2 else [0, pads[0]]


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL", name=None):
    cl = _fmt_check(data_format, ("NCL", "NLC"))
    algo, pads = _padding(padding, 1, cl)
    x2 = x.unsqueeze(1 if cl else 2)
    w2 = weight.unsqueeze(2)
    fb = _fused(bias)
    out = _ops.conv2d(x2, w2, [1] + _tuple(stride, 1, "stride"), _pads_1d_to_2d(algo, pads), algo, groups,
                      [1] + _tuple(dilation, 1, "dilation"), "NHWC" if cl else "NCHW", fb)
    out = out.squeeze(1 if cl else 2)
    return out if fb is not None else _add_bias(out, bias, cl, 3)


def _out_size(output_size, n):
    if output_size is None:
        return []
    return _tuple(output_size, n, "output_size")


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                     output_size=None, data_format="NCHW", name=None):
    cl = _fmt_check(data_format, ("NCHW", "NHWC"))
    algo, pads = _padding(padding, 2, cl)
    osz = _out_size(output_size, 2)
    op = [] if osz else _tuple(output_padding, 2, "output_padding")
    out = _ops.conv2d_transpose(x, weight, _tuple(stride, 2, "stride"), pads, op, osz, algo, groups,
                                _tuple(dilation, 2, "dilation"), data_format)
    return _add_bias(out, bias, cl, 4)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCDHW", name=None):
    cl = _fmt_check(data_format, ("NCDHW", "NDHWC"))
    algo, pads = _padding(padding, 3, cl)
    osz = _out_size(output_size, 3)
    op = [] if osz else _tuple(output_padding, 3, "output_padding")
    out = _ops.conv3d_transpose(x, weight, _tuple(stride, 3, "stride"), pads, op, osz, algo, groups,
                                _tuple(dilation, 3, "dilation"), data_format)
    return _add_bias(out, bias, cl, 5)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCL", name=None):
    cl = _fmt_check(data_format, ("NCL", "NLC"))
    algo, pads = _padding(padding, 1, cl)
    osz = _out_size(output_size, 1)
    op = [] if osz else [0] + _tuple(output_padding, 1, "output_padding")
    x2 = x.unsqueeze(1 if cl else 2)
    w2 = weight.unsqueeze(2)
    out = _ops.conv2d_transpose(x2, w2, [1] + _tuple(stride, 1, "stride"), _pads_1d_to_2d(algo, pads), op,
                                [1] + osz if osz else [], algo, groups, [1] + _tuple(dilation, 1, "dilation"),
                                "NHWC" if cl else "NCHW")
    out = out.squeeze(1 if cl else 2)
    return _add_bias(out, bias, cl, 3)
