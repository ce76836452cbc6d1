"""Common functionals (Paddle 2.3's nn.functional.common): linear, bilinear, the dropout
family, pad/zeropad2d, interpolate/upsample, unfold/fold and cosine_similarity. Heavy parts
run C ops (dropout, pad, interp, unfold, fold); the rest are compositions of tensor ops.
class_center_sample (single process) works on the host: unique labels, then negatives drawn
from paddle's generator (randperm)."""
import numbers

import numpy as np

from ..._C import _C_ops as _ops
from ...framework.param import Tensor
from ...tensor import static_shape as _ss
from ...framework.misc import check_tensor

__all__ = ["linear", "bilinear", "dropout", "dropout2d", "dropout3d", "alpha_dropout", "pad",
           "zeropad2d", "interpolate", "upsample", "unfold", "fold", "cosine_similarity",
           "class_center_sample"]


_check_t = check_tensor  # (x, op, name="x"): Paddle's argument check, framework/misc.py


def _ints(v, n, fn, what):
    """int or list of ints -> list of n ints."""
    if isinstance(v, Tensor):
        v = v.numpy().tolist()
    if isinstance(v, (numbers.Integral, np.integer)):
        return [int(v)] * n
    v = [int(i.item() if isinstance(i, Tensor) else i) for i in v]
    if len(v) != n:
        raise ValueError(f"[{fn}] expected {what} to be an int or {n} ints, received {v}")
    return v


def linear(x, weight, bias=None, name=None):
    """x @ weight (+ bias); weight is [in_features, out_features] (Paddle's layout)."""
    import paddle
    _check_t(x, "linear")
    out = paddle.matmul(x, weight)
    return out if bias is None else paddle.add(out, bias)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[b, o] = sum_ij x1[b, i] weight[o, i, j] x2[b, j] (+ bias[0, o])."""
    import paddle
    _check_t(x1, "bilinear", "x1")
    _check_t(x2, "bilinear", "x2")
    if len(weight.shape) != 3:
        raise ValueError(f"[bilinear] expected a 3-D weight [out, in1, in2], received {weight.shape}")
    o, i1, i2 = weight.shape
    if len(x1.shape) != 2 or len(x2.shape) != 2 or x1.shape[1] != i1 or x2.shape[1] != i2:
        raise ValueError(f"[bilinear] expected x1 [N, {i1}] and x2 [N, {i2}], received {x1.shape} and {x2.shape}")
    w = paddle.reshape(paddle.transpose(weight, [1, 0, 2]), [i1, o * i2])
    t = paddle.reshape(paddle.matmul(x1, w), [-1, o, i2])
    out = paddle.sum(t * paddle.unsqueeze(x2, 1), axis=-1)
    return out if bias is None else out + bias


# ---------------------------------------------------------------- dropout
def _check_p(p, fn):
    if isinstance(p, Tensor) and p.size == 1 and p.dtype.name in ("float16", "bfloat16", "float32", "float64"):
        p = float(p.item())  # Paddle accepts p as a one-element float Tensor
    if isinstance(p, bool) or not isinstance(p, (numbers.Real, np.floating)):
        raise TypeError(f"[{fn}] p must be a float, received {type(p).__name__}")
    if not 0 <= p <= 1:
        raise ValueError(f"[{fn}] p must be in [0, 1], received {p}")
    return float(p)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zeroes elements with probability p. upscale_in_train: kept values are scaled by
    1/(1-p) while training, identity at inference; downscale_in_infer: no scaling while
    training, x*(1-p) at inference. axis: the mask varies only along these axes."""
    import paddle
    _check_t(x, "dropout")
    p = _check_p(p, "dropout")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"[dropout] mode must be 'upscale_in_train' or 'downscale_in_infer', received {mode!r}")
    if not training:
        return x if mode == "upscale_in_train" else paddle.scale(x, 1.0 - p)
    if p == 0:
        return x
    if axis is None:
        return _ops.dropout(x, p, mode, 0)[0]
    if isinstance(axis, Tensor):
        axis = axis.tolist()  # Paddle accepts the axes as an integer Tensor
    axes = [axis] if isinstance(axis, int) else list(axis)
    nd = len(x.shape)
    if not axes or any(not -nd <= a < nd for a in axes) or len(set(a % nd for a in axes)) != len(axes):
        raise ValueError(f"[dropout] invalid axis {axis} for a {nd}-D input")
    axes = [a % nd for a in axes]
    mshape = [_ss.dim(x, i) if i in axes else 1 for i in range(nd)]  # tensors where unknown
    keep = paddle.bernoulli(paddle.full(mshape, 1.0 - p, dtype=x.dtype))
    out = x * keep
    if mode == "upscale_in_train":
        out = paddle.scale(out, 1.0 / (1.0 - p)) if p < 1 else out * 0.0
    return out


def _dropout_nd(x, p, training, data_format, nd, fn):
    _check_t(x, fn)
    if len(x.shape) != nd:
        raise ValueError(f"[{fn}] expected a {nd}-D input, received {len(x.shape)}-D")
    fmts = ("NCHW", "NHWC") if nd == 4 else ("NCDHW", "NDHWC")
    if data_format not in fmts:
        raise ValueError(f"[{fn}] data_format must be one of {fmts}, received {data_format!r}")
    axis = [0, 1] if data_format == fmts[0] else [0, nd - 1]
    return dropout(x, p, axis=axis, training=training, mode="upscale_in_train")


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Zeroes whole channels of a 4-D input with probability p (scaled by 1/(1-p))."""
    return _dropout_nd(x, p, training, data_format, 4, "dropout2d")


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Zeroes whole channels of a 5-D input with probability p (scaled by 1/(1-p))."""
    return _dropout_nd(x, p, training, data_format, 5, "dropout3d")


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout that keeps SELU's self-normalising mean and variance."""
    import paddle
    _check_t(x, "alpha_dropout")
    p = _check_p(p, "alpha_dropout")
    if not training or p == 0:
        return x
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    alpha_p = -alpha * scale
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5 if p < 1 else 0.0
    b = -a * alpha_p * p
    keep = paddle.bernoulli(paddle.full_like(x, 1.0 - p, dtype=x.dtype))
    y = x * keep + (1.0 - keep) * alpha_p
    return paddle.scale(y, a, b)


# ---------------------------------------------------------------- pad
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Pads x. pad: 2*ndim ints (constant mode, every dim from the first: [before0, after0,
    ...]) or 2*spatial ints starting from the last spatial dim ([left, right, top, bottom,
    front, back]). mode: constant, reflect, replicate or circular."""
    _check_t(x, "pad")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(f"[pad] mode must be constant, reflect, replicate or circular, received {mode!r}")
    if isinstance(pad, Tensor):
        pad = pad.numpy().tolist()
    pad = [int(v) for v in pad]
    nd = len(x.shape)
    if mode == "constant" and len(pad) == 2 * nd:
        return _ops.pad(x, pad, mode, float(value))
    if nd not in _PAD_FORMATS:
        raise ValueError(f"[pad] expected a 3-D, 4-D or 5-D input for mode {mode!r}, received {nd}-D")
    fmts = _PAD_FORMATS[nd]
    if data_format not in fmts:
        if data_format == "NCHW" and nd != 4:  # the default: take the input's channel-first format
            data_format = fmts[0]
        else:
            raise ValueError(f"[pad] data_format must be one of {fmts} for a {nd}-D input, received {data_format!r}")
    ns = nd - 2
    if len(pad) != 2 * ns:
        raise ValueError(f"[pad] expected {2 * ns} paddings for a {nd}-D input, received {len(pad)}")
    spatial = list(range(2, nd)) if data_format == fmts[0] else list(range(1, nd - 1))
    full = [0] * (2 * nd)
    for k in range(ns):
        d = spatial[ns - 1 - k]  # pad pairs start from the last spatial dim
        full[2 * d], full[2 * d + 1] = pad[2 * k], pad[2 * k + 1]
    from ...static.framework import _in_static
    if _in_static() and nd < 5:
        # Paddle's op for these modes (pad3d) takes a 5-D input: pad that and drop the unit dims
        axes = ([2] if nd == 4 else [2, 3]) if data_format == fmts[0] else ([1] if nd == 4 else [1, 2])
        x5 = _ops.unsqueeze(x, axes)
        full5 = list(full)
        for a in axes:
            full5[2 * a:2 * a] = [0, 0]
        return _ops.squeeze(_ops.pad(x5, full5, mode, float(value)), axes)
    return _ops.pad(x, full, mode, float(value))


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of a 4-D input; padding [left, right, top, bottom] or an int."""
    return pad(x, _ints(padding, 4, "zeropad2d", "padding"), "constant", 0.0, data_format)


# ---------------------------------------------------------------- interpolate
_INTERP = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,), "bicubic": (4,),
           "area": (3, 4, 5)}
_FMT = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                data_format="NCHW", name=None):
    """Resizes the spatial dims of x to size (or by scale_factor): nearest, linear (3-D),
    bilinear/bicubic (4-D), trilinear (5-D). align_corners maps corner pixels onto each other;
    align_mode 0 uses half-pixel source coordinates, 1 uses out*ratio (linear modes)."""
    _check_t(x, "interpolate")
    m = str(mode).lower()
    if m not in _INTERP:
        raise ValueError(f"[interpolate] mode must be one of {sorted(_INTERP)}, received {mode!r}")
    nd = len(x.shape)
    if nd not in _INTERP[m]:
        raise ValueError(f"[interpolate] mode {m!r} does not take a {nd}-D input")
    if data_format not in _FMT.get(nd, ()):
        raise ValueError(f"[interpolate] data_format must be one of {_FMT.get(nd)} for a {nd}-D input, "
                         f"received {data_format!r}")
    if align_corners and m in ("nearest", "area"):
        raise ValueError("[interpolate] align_corners=True is only valid for the linear, bilinear, "
                         "trilinear and bicubic modes")
    if align_mode not in (0, 1):
        raise ValueError(f"[interpolate] align_mode must be 0 or 1, received {align_mode}")
    ns = nd - 2
    sp = list(x.shape[2:]) if data_format[1] == "C" else list(x.shape[1:-1])
    if (size is None) == (scale_factor is None):
        raise ValueError("[interpolate] exactly one of size and scale_factor must be given")
    scale = []
    if size is not None:
        out = _ints(size, ns, "interpolate", "size")
    else:
        if isinstance(scale_factor, Tensor):
            scale_factor = scale_factor.numpy().tolist()
        if isinstance(scale_factor, (numbers.Real, np.floating)):
            scale = [float(scale_factor)] * ns
        else:
            scale = [float(s) for s in scale_factor]
            if len(scale) != ns:
                raise ValueError(f"[interpolate] expected {ns} scale factors, received {len(scale)}")
        if any(s <= 0 for s in scale):
            raise ValueError(f"[interpolate] scale_factor must be > 0, received {scale_factor}")
        out = [int(i * s) for i, s in zip(sp, scale)]
    if any(o <= 0 for o in out):
        raise ValueError(f"[interpolate] the output size must be > 0, received {out}")
    if m == "area":  # Paddle: adaptive average pooling to the output size
        from . import pooling
        if nd == 3:
            if data_format == "NWC":
                return pooling.adaptive_avg_pool1d(x.transpose([0, 2, 1]), out).transpose([0, 2, 1])
            return pooling.adaptive_avg_pool1d(x, out)
        pool = pooling.adaptive_avg_pool2d if nd == 4 else pooling.adaptive_avg_pool3d
        return pool(x, out, data_format=data_format)
    return _ops.interp(x, out, scale, m, bool(align_corners), int(align_mode), data_format)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
             data_format="NCHW", name=None):
    """Same as interpolate."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# ---------------------------------------------------------------- unfold / fold
def _fold_args(kernel_sizes, strides, paddings, dilations, fn):
    k = _ints(kernel_sizes, 2, fn, "kernel_sizes")
    s = _ints(strides, 2, fn, "strides")
    d = _ints(dilations, 2, fn, "dilations")
    if isinstance(paddings, (numbers.Integral, np.integer)):
        p = [int(paddings)] * 4
    else:
        p = [int(v) for v in paddings]
        if len(p) == 2:
            p = p + p
        if len(p) != 4:
            raise ValueError(f"[{fn}] paddings must be an int, 2 ints or 4 ints, received {paddings}")
    return k, s, p, d


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: [N, C, H, W] -> [N, C*kh*kw, L] sliding blocks. paddings: int, [ph, pw] or
    [top, left, bottom, right]."""
    _check_t(x, "unfold")
    k, s, p, d = _fold_args(kernel_sizes, strides, paddings, dilations, "unfold")
    return _ops.unfold(x, k, s, p, d)


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """col2im: [N, C*kh*kw, L] -> [N, C, H, W], overlapping blocks summed."""
    _check_t(x, "fold")
    k, s, p, d = _fold_args(kernel_sizes, strides, paddings, dilations, "fold")
    return _ops.fold(x, _ints(output_sizes, 2, "fold", "output_sizes"), k, s, p, d)


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1*x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along axis."""
    import paddle
    _check_t(x1, "cosine_similarity", "x1")
    _check_t(x2, "cosine_similarity", "x2")
    w12 = paddle.sum(x1 * x2, axis=axis)
    w1 = paddle.sum(x1 * x1, axis=axis)
    w2 = paddle.sum(x2 * x2, axis=axis)
    n12 = paddle.sqrt(paddle.clip(w1 * w2, min=eps * eps))
    return w12 / n12


def class_center_sample(label, num_classes, num_samples, group=None):
    """PartialFC class-centre sampling (single process): the positive centres are the distinct
    labels in ascending order, then random negative classes (not among the labels) are added until
    num_samples centres are chosen (all positives are kept when there are more). Returns
    (remapped_label, sampled_class_center): each label's index among the sampled centres, and the
    sampled class ids, both of label's dtype."""
    import paddle
    if not (group is False or group is None or hasattr(group, "is_member")):
        raise ValueError("[class_center_sample] Expected group is False, None or instance of "
                         f"paddle.distributed.collective.Group (got group: {group})")
    if hasattr(group, "is_member") and getattr(group, "nranks", 1) != 1:
        raise NotImplementedError("[class_center_sample] model-parallel groups are not supported (single process only)")
    if not isinstance(label, Tensor):
        raise TypeError(f"[class_center_sample] expected label to be a paddle.Tensor, received {type(label).__name__}")
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"[class_center_sample] expected label of dtype int32 or int64, received {label.dtype.name}")
    num_classes, num_samples = int(num_classes), int(num_samples)
    if num_classes <= 0:
        raise ValueError(f"[class_center_sample] expected num_classes > 0, received {num_classes}")
    if num_samples <= 0 or num_samples > num_classes:
        raise ValueError(f"[class_center_sample] Expected num_samples less than or equal to {num_classes} "
                         f"and greater than 0, got num_samples {num_samples}")
    if len(label.shape) != 1:
        raise ValueError(f"[class_center_sample] Expected label_dims == 1 (got label_dims: {len(label.shape)})")
    if label.shape[0] < 1:
        raise ValueError(f"[class_center_sample] Expected label_size > 0 (got label_size: {label.shape[0]})")
    lab = label.numpy().astype(np.int64)
    if lab.min() < 0 or lab.max() >= num_classes:
        raise ValueError(f"[class_center_sample] expected label values in [0, {num_classes}), received "
                         f"values in [{lab.min()}, {lab.max()}]")
    pos = np.unique(lab)
    sampled = list(pos)
    need = num_samples - len(pos)
    if need > 0:
        posset = set(pos.tolist())
        perm = paddle.randperm(num_classes).numpy()
        sampled += [v for v in perm.tolist() if v not in posset][:need]
    sampled = np.asarray(sampled, dtype=np.int64)
    index = {int(v): i for i, v in enumerate(sampled.tolist())}
    remapped = np.asarray([index[int(v)] for v in lab], dtype=np.int64)
    dt = label.dtype.name
    return paddle.to_tensor(remapped.astype(dt)), paddle.to_tensor(sampled.astype(dt))
