"""Image functions on numpy arrays (HWC or HW), Paddle's 'cv2' backend. OpenCV is not needed:
everything is numpy (resampling as separable weight matrices, warps by inverse mapping), with
OpenCV's conventions (half-pixel centres, no antialiasing for nearest/bilinear/bicubic, BT.601
grey). The tensor backend reuses these on CHW data moved to HWC; `bound` is the white level."""
import functools
import math
import numbers
from collections.abc import Sequence

import numpy as np

INTERPOLATIONS = ('nearest', 'bilinear', 'bicubic', 'box', 'lanczos', 'hamming', 'area')


def _check_interp(interpolation):
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"interpolation must be one of {INTERPOLATIONS}, received {interpolation!r}")


def _finish(out, like, bound=255):
    """Float result -> dtype (and rank) of the input image, rounded and clipped for integers."""
    if np.issubdtype(like.dtype, np.integer):
        info = np.iinfo(like.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    elif like.dtype == np.bool_:
        out = out > 0.5
    return out.astype(like.dtype, copy=False)


def _as3(img):
    return img[:, :, None] if img.ndim == 2 else img


def _back(out, img):
    return out[:, :, 0] if img.ndim == 2 else out


# ---------------------------------------------------------------- conversions / normalize
def to_tensor(pic, data_format='CHW'):
    from ... import tensor as _t
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if data_format == 'CHW':
        pic = pic.transpose((2, 0, 1))
    if pic.dtype == np.uint8:
        return _t.to_tensor(np.ascontiguousarray(pic, dtype=np.float32) / np.float32(255.0))
    if pic.dtype == np.bool_:
        pic = pic.astype(np.uint8)
    return _t.to_tensor(np.ascontiguousarray(pic))


@functools.lru_cache(maxsize=64)
def _norm_consts(mean, std, data_format):
    shape = (-1, 1, 1) if data_format == 'CHW' else (1, 1, -1)
    return (np.array(mean, dtype=np.float64).reshape(shape).astype(np.float32),
            np.array(std, dtype=np.float64).reshape(shape).astype(np.float32))


def _as_key(v):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    if isinstance(v, np.ndarray):
        return tuple(v.ravel().tolist())
    return v


def normalize(img, mean, std, data_format='CHW', to_rgb=False):
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
    mean, std = _norm_consts(_as_key(mean), _as_key(std), data_format)  # per-call work cached
    img = np.asarray(img)
    if img.ndim == 2:
        img = img[None] if data_format == 'CHW' else img[:, :, None]
    if to_rgb:  # BGR -> RGB on the channel axis
        img = img[::-1] if data_format == 'CHW' else img[..., ::-1]
    out = img.astype(np.float32)  # a fresh array: normalise it in place
    out -= mean
    out /= std
    return out


# ---------------------------------------------------------------- resampling
def _filter(name):
    """(support, kernel) for the antialiased (PIL-style) filters."""
    if name in ('box', 'area'):
        return 0.5, lambda x: ((x >= -0.5) & (x < 0.5)).astype(np.float64)
    if name == 'bilinear':
        return 1.0, lambda x: np.maximum(0.0, 1.0 - np.abs(x))
    if name == 'hamming':
        return 1.0, lambda x: np.where(np.abs(x) < 1.0, np.sinc(x) * (0.54 + 0.46 * np.cos(np.pi * x)), 0.0)
    if name == 'lanczos':
        return 3.0, lambda x: np.where(np.abs(x) < 3.0, np.sinc(x) * np.sinc(x / 3.0), 0.0)
    if name == 'bicubic':
        return 2.0, lambda x: _cubic(x, -0.5)
    raise ValueError(name)


def _cubic(x, a):
    x = np.abs(x)
    return np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))


def resize_weights(n_in, n_out, interpolation):
    """(n_out, n_in) matrix W so that out = W @ in along one axis."""
    W = np.zeros((n_out, n_in), dtype=np.float64)
    scale = n_in / n_out
    dst = np.arange(n_out)
    rows = np.arange(n_out)
    if interpolation == 'nearest':
        W[rows, np.minimum(np.floor(dst * scale).astype(np.int64), n_in - 1)] = 1.0
    elif interpolation == 'bilinear':
        src = np.maximum((dst + 0.5) * scale - 0.5, 0.0)
        i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        f = np.where(i0 >= n_in - 1, 0.0, src - i0)
        np.add.at(W, (rows, i0), 1.0 - f)
        np.add.at(W, (rows, np.minimum(i0 + 1, n_in - 1)), f)
    elif interpolation == 'bicubic':
        src = (dst + 0.5) * scale - 0.5
        i0 = np.floor(src).astype(np.int64)
        f = src - i0
        for k in range(-1, 3):
            np.add.at(W, (rows, np.clip(i0 + k, 0, n_in - 1)), _cubic(k - f, -0.75))
    else:  # box / area / lanczos / hamming: antialiased convolution as PIL does
        support, kern = _filter(interpolation)
        fs = max(scale, 1.0)
        centers = (dst + 0.5) * scale
        for i, c in enumerate(centers):
            lo = max(int(c - support * fs + 0.5), 0)
            hi = min(int(c + support * fs + 0.5), n_in)
            if hi <= lo:
                lo, hi = min(int(c), n_in - 1), min(int(c), n_in - 1) + 1
            w = kern((np.arange(lo, hi) - c + 0.5) / fs)
            s = w.sum()
            W[i, lo:hi] = w / s if s != 0 else 1.0 / (hi - lo)
    return W


def resize_to(img, oh, ow, interpolation='bilinear', bound=255):
    _check_interp(interpolation)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"resize: output size must be positive, received ({oh}, {ow})")
    x = _as3(np.asarray(img))
    h, w = x.shape[:2]
    if (h, w) == (oh, ow):
        return img.copy()
    wh = resize_weights(h, oh, interpolation)
    ww = resize_weights(w, ow, interpolation)
    out = np.einsum('oh,hwc->owc', wh, x.astype(np.float64))
    out = np.einsum('pw,owc->opc', ww, out)
    return _back(_finish(out, x, bound), img)


def target_size(h, w, size):
    """Paddle's rule: an int resizes the shorter side (keeping the aspect), (h, w) is exact."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        if (w <= h and w == size) or (h <= w and h == size):
            return h, w
        if w < h:
            return int(size * h / w), int(size)
        return int(size), int(size * w / h)
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError(f"resize: size must be an int or a (h, w) sequence, received {size!r}")


def resize(img, size, interpolation='bilinear', bound=255):
    h, w = img.shape[:2]
    oh, ow = target_size(h, w, size)
    return resize_to(img, oh, ow, interpolation, bound)


# ---------------------------------------------------------------- pad / crop / flip
def parse_padding(padding):
    """Paddle's padding argument -> (left, top, right, bottom)."""
    if isinstance(padding, bool) or not isinstance(padding, (numbers.Integral, list, tuple)):
        raise TypeError(f"pad: padding must be an int or a 2/4-element sequence, received {padding!r}")
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    if len(padding) == 2:
        return int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1])
    if len(padding) == 4:
        return tuple(int(p) for p in padding)
    raise ValueError(f"Padding must be an int or a 2, or 4 element tuple, not a {len(padding)} element tuple")


def check_pad_args(padding, fill, padding_mode):
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError(f"pad: inappropriate fill argument {fill!r}")
    if not isinstance(padding_mode, str):
        raise TypeError(f"pad: padding_mode must be a str, received {padding_mode!r}")
    if padding_mode not in ('constant', 'edge', 'reflect', 'symmetric'):
        raise ValueError(f"Padding mode should be either constant, edge, reflect or symmetric, "
                         f"received {padding_mode!r}")
    l, t, r, b = parse_padding(padding)
    if min(l, t, r, b) < 0:
        raise ValueError(f"pad: padding must be non-negative, received {padding!r}")
    return l, t, r, b


def _fill_value(fill, c):
    f = np.asarray(fill, dtype=np.float64).reshape(-1)
    if f.size == 1:
        return np.repeat(f, c)
    if f.size < c:
        raise ValueError(f"fill has {f.size} values but the image has {c} channels")
    return f[:c]


def pad(img, padding, fill=0, padding_mode='constant'):
    l, t, r, b = check_pad_args(padding, fill, padding_mode)
    x = _as3(np.asarray(img))
    if padding_mode == 'constant':
        h, w, c = x.shape
        out = np.empty((h + t + b, w + l + r, c), dtype=x.dtype)
        out[...] = _fill_value(fill, c).astype(x.dtype) if x.dtype != np.bool_ else _fill_value(fill, c) > 0
        out[t:t + h, l:l + w] = x
    else:
        if padding_mode == 'reflect' and (max(t, b) >= x.shape[0] or max(l, r) >= x.shape[1]):
            raise ValueError("pad: reflect padding must be smaller than the image size")
        out = np.pad(x, ((t, b), (l, r), (0, 0)), mode=padding_mode)
    return _back(out, img)


def crop(img, top, left, height, width):
    return img[top:top + height, left:left + width]


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    h, w = img.shape[:2]
    th, tw = output_size
    i = int(round((h - th) / 2.0))
    j = int(round((w - tw) / 2.0))
    return crop(img, i, j, th, tw)


def hflip(img):
    return np.ascontiguousarray(img[:, ::-1])


def vflip(img):
    return np.ascontiguousarray(img[::-1])


# ---------------------------------------------------------------- colour
GRAY_WEIGHTS = (0.299, 0.587, 0.114)


def gray(x, weights=GRAY_WEIGHTS):
    """HWC float (3 channels) -> HW float luminance."""
    return x[..., 0] * weights[0] + x[..., 1] * weights[1] + x[..., 2] * weights[2]


def to_grayscale(img, num_output_channels=1, weights=GRAY_WEIGHTS):
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels should be 1 or 3, received {num_output_channels}")
    x = _as3(np.asarray(img))
    g = x[..., 0].astype(np.float64) if x.shape[2] == 1 else gray(x[..., :3].astype(np.float64), weights)
    g = _finish(g, x)[:, :, None]
    return np.repeat(g, num_output_channels, axis=2)


def _blend(a, b, factor, like, bound):
    """factor * a + (1 - factor) * b, clipped to [0, bound], in the dtype of like."""
    out = np.clip(factor * a + (1.0 - factor) * b, 0, bound)
    return _finish(out, like)


def adjust_brightness(img, brightness_factor, bound=255):
    x = np.asarray(img)
    return _blend(x.astype(np.float64), 0.0, brightness_factor, x, bound)


def adjust_contrast(img, contrast_factor, bound=255):
    x = _as3(np.asarray(img))
    xf = x.astype(np.float64)
    g = xf[..., 0] if x.shape[2] == 1 else gray(xf[..., :3])
    mean = g.mean()
    if np.issubdtype(x.dtype, np.integer):
        mean = float(np.rint(mean))
    return _back(_blend(xf, mean, contrast_factor, x, bound), img)


def adjust_saturation(img, saturation_factor, bound=255):
    x = _as3(np.asarray(img))
    if x.shape[2] == 1:
        return img.copy()
    xf = x.astype(np.float64)
    g = gray(xf[..., :3])[:, :, None]
    if np.issubdtype(x.dtype, np.integer):
        g = np.rint(g)
    out = xf.copy()
    out[..., :3] = np.clip(saturation_factor * xf[..., :3] + (1 - saturation_factor) * g, 0, bound)
    return _back(_finish(out, x), img)


def rgb_to_hsv(x):
    """float RGB in [0, 1] (..., 3) -> HSV in [0, 1]."""
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    maxc = x.max(-1)
    minc = x.min(-1)
    v = maxc
    d = maxc - minc
    s = np.where(maxc > 0, d / np.where(maxc > 0, maxc, 1), 0.0)
    dd = np.where(d > 0, d, 1)
    rc, gc, bc = (maxc - r) / dd, (maxc - g) / dd, (maxc - b) / dd
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(d > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], -1)


def hsv_to_rgb(x):
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    r = np.choose(i, [v, q, p, p, t, v])
    g = np.choose(i, [t, v, v, q, p, p])
    b = np.choose(i, [p, p, t, v, v, q])
    return np.stack([r, g, b], -1)


def adjust_hue(img, hue_factor, bound=255):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    x = _as3(np.asarray(img))
    if x.shape[2] == 1:
        return img.copy()
    xf = x.astype(np.float64)
    hsv = rgb_to_hsv(xf[..., :3] / bound)
    hsv[..., 0] = (hsv[..., 0] + hue_factor) % 1.0
    out = xf.copy()
    out[..., :3] = hsv_to_rgb(hsv) * bound
    return _back(_finish(out, x), img)


# ---------------------------------------------------------------- geometric warps
def _sample(x, u, v, interpolation, fill):
    """Sample HWC image x at continuous coordinates (u, v) (pixel centres at i + 0.5)."""
    h, w, c = x.shape
    fv = _fill_value(fill, c)
    inside = (u >= 0) & (u < w) & (v >= 0) & (v < h)
    xf = x.astype(np.float64)
    if interpolation == 'nearest':
        iu = np.clip(np.floor(u).astype(np.int64), 0, w - 1)
        iv = np.clip(np.floor(v).astype(np.int64), 0, h - 1)
        out = xf[iv, iu]
    elif interpolation in ('bilinear', 'bicubic'):
        uu, vv = u - 0.5, v - 0.5
        u0, v0 = np.floor(uu), np.floor(vv)
        fu, fvv = (uu - u0)[..., None], (vv - v0)[..., None]
        u0, v0 = u0.astype(np.int64), v0.astype(np.int64)
        cu0, cu1 = np.clip(u0, 0, w - 1), np.clip(u0 + 1, 0, w - 1)
        cv0, cv1 = np.clip(v0, 0, h - 1), np.clip(v0 + 1, 0, h - 1)
        out = ((1 - fu) * (1 - fvv) * xf[cv0, cu0] + fu * (1 - fvv) * xf[cv0, cu1]
               + (1 - fu) * fvv * xf[cv1, cu0] + fu * fvv * xf[cv1, cu1])
    else:
        raise ValueError(f"warps support 'nearest', 'bilinear' and 'bicubic' (as bilinear), "
                         f"received {interpolation!r}")
    out = np.where(inside[..., None], out, fv)
    return _finish(out, x)


def warp_affine(img, matrix, out_size, interpolation='nearest', fill=0):
    """PIL's AFFINE convention: output point (x, y) reads input (a x + b y + c, d x + e y + f)."""
    x = _as3(np.asarray(img))
    ow, oh = out_size
    a, b, c, d, e, f = matrix
    yy, xx = np.meshgrid(np.arange(oh) + 0.5, np.arange(ow) + 0.5, indexing='ij')
    u = a * xx + b * yy + c
    v = d * xx + e * yy + f
    return _back(_sample(x, u, v, interpolation, fill), img)


def warp_perspective(img, coeffs, interpolation='nearest', fill=0):
    """PIL's PERSPECTIVE convention: (a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (...)."""
    x = _as3(np.asarray(img))
    h, w = x.shape[:2]
    a, b, c, d, e, f, g, hh = coeffs
    yy, xx = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing='ij')
    den = g * xx + hh * yy + 1.0
    den = np.where(den == 0, 1e-12, den)
    u = (a * xx + b * yy + c) / den
    v = (d * xx + e * yy + f) / den
    return _back(_sample(x, u, v, interpolation, fill), img)


def rotate_matrix(w, h, angle, expand=False, center=None):
    """Inverse matrix and output size for a counter-clockwise rotation (as PIL's Image.rotate)."""
    angle = angle % 360.0
    cx, cy = (w / 2.0, h / 2.0) if center is None else (center[0], center[1])
    rad = -math.radians(angle)
    m = [round(math.cos(rad), 15), round(math.sin(rad), 15), 0.0,
         round(-math.sin(rad), 15), round(math.cos(rad), 15), 0.0]

    def tr(x, y):
        return m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]

    m[2], m[5] = tr(-cx, -cy)
    m[2] += cx
    m[5] += cy
    if expand:
        xs, ys = zip(*(tr(x, y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))))
        nw = math.ceil(max(xs)) - math.floor(min(xs))
        nh = math.ceil(max(ys)) - math.floor(min(ys))
        m[2], m[5] = tr(-(nw - w) / 2.0, -(nh - h) / 2.0)
        w, h = nw, nh
    return m, (w, h)


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=0):
    h, w = img.shape[:2]
    m, size = rotate_matrix(w, h, angle, expand, center)
    return warp_affine(img, m, size, interpolation, fill)


def affine_matrix(center, angle, translate, scale, shear):
    """Inverse affine matrix (output -> input) for rotation (clockwise degrees), translation,
    scale and shear about center (torchvision/Paddle's formula)."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return m


def perspective_coeffs(startpoints, endpoints):
    """Coefficients of the map endpoints -> startpoints (what PIL's PERSPECTIVE transform takes)."""
    A = np.zeros((8, 8), dtype=np.float64)
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        A[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        A[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    B = np.array(startpoints, dtype=np.float64).reshape(8)
    return np.linalg.lstsq(A, B, rcond=None)[0].tolist()


def erase(img, i, j, h, w, v, inplace=False):
    if not inplace:
        img = img.copy()
    v = np.asarray(v)
    if img.ndim == 2 and v.ndim == 3:
        v = v[..., 0]
    img[i:i + h, j:j + w, ...] = v
    return img
