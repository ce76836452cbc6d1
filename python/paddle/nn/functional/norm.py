"""Normalization (Paddle 2.3 paddle.nn.functional): batch_norm (running stats updated in place in
training), layer_norm, instance_norm and group_norm (layer_norm on a reshaped input plus a
per-channel affine), local_response_norm and normalize (compositions of tensor ops)."""
from ..._C import _C_ops as _ops
from ...tensor import static_shape as _ss

__all__ = ["batch_norm", "layer_norm", "instance_norm", "local_response_norm", "normalize"]


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, epsilon=1e-05,
               data_format="NCHW", use_global_stats=None, name=None):
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"data_format must be NC/NCL/NCHW/NCDHW/NLC/NHWC/NDHWC, received {data_format!r}")
    layout = "NHWC" if data_format in ("NLC", "NHWC", "NDHWC") else "NCHW"
    ugs = (not training) if use_global_stats is None else bool(use_global_stats)
    out, _, _ = _ops.batch_norm(x, running_mean, running_var, weight, bias, not training, float(momentum),
                                float(epsilon), layout, ugs, False)
    return out


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    axis = len(x.shape) - len(normalized_shape)
    if any(a != b and a >= 0 for a, b in zip(x.shape[axis:], normalized_shape)) or \
            len(x.shape[axis:]) != len(normalized_shape):
        raise ValueError(f"normalized_shape {list(normalized_shape)} does not match the input's trailing dims "
                         f"{list(x.shape[axis:])}")
    w = weight.reshape([-1]) if weight is not None else None
    b = bias.reshape([-1]) if bias is not None else None
    return _ops.layer_norm(x, w, b, float(epsilon), axis)[0]


def _affine(out, weight, bias, channel_last=False):
    shp = [1] * len(out.shape)
    shp[-1 if channel_last else 1] = -1
    if weight is not None:
        out = out * weight.reshape(shp)
    if bias is not None:
        out = out + bias.reshape(shp)
    return out


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    shape = _ss.dims(x)  # a program's unknown dims are tensors
    y = _ops.layer_norm(_ss.reshape_to(x, [_ss.mul(shape[0], shape[1]), -1]), None, None, float(eps), 1)[0]
    return _affine(_ss.reshape_to(y, shape), weight, bias)


def group_norm(x, num_groups, weight=None, bias=None, epsilon=1e-05, data_format="NCHW"):
    cl = data_format in ("NHWC", "NLC", "NDHWC")
    if cl:
        perm = [0, len(x.shape) - 1] + list(range(1, len(x.shape) - 1))
        x = x.transpose(perm)
    shape = _ss.dims(x)  # a program's unknown dims are tensors
    y = _ops.layer_norm(_ss.reshape_to(x, [shape[0], num_groups, -1]), None, None, float(epsilon), 2)[0]
    y = _affine(_ss.reshape_to(y, shape), weight, bias)
    if cl:
        inv = [0] + list(range(2, len(shape))) + [1]
        y = y.transpose(inv)
    return y


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """x / (k + alpha/size * sum of squares over `size` neighbouring channels) ** beta."""
    from .pooling import avg_pool2d
    cl = data_format in ("NHWC", "NLC", "NDHWC")
    nd = len(x.shape)
    if cl:
        x = x.transpose([0, nd - 1] + list(range(1, nd - 1)))
    shape = _ss.dims(x)  # a program's unknown dims are tensors
    sq = _ss.reshape_to(x * x, [shape[0], 1, shape[1], -1])
    # sum over channel windows [c - size//2, c + (size-1)//2] via avg pooling with zero padding
    s = avg_pool2d(sq, [size, 1], stride=1, padding=[size // 2, (size - 1) // 2, 0, 0], exclusive=False) * size
    div = (_ss.reshape_to(s, shape) * (alpha / size) + k) ** beta
    y = x / div
    if cl:
        y = y.transpose([0] + list(range(2, nd)) + [1])
    return y


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    from ... import tensor as _t
    n = _t.linalg.norm(x, p=p, axis=axis, keepdim=True) if hasattr(_t, "linalg") else None
    if n is None:
        import paddle
        n = paddle.norm(x, p=p, axis=axis, keepdim=True)
    return x / n.clip(min=epsilon)
