"""Image functions on paddle Tensors laid out CHW (or NCHW, or HWC where data_format says so).
normalize, crop and flips are tensor ops; resampling, colour and warps move the pixels to numpy
HWC, reuse functional_cv2 (white level 1.0 for float tensors, 255 for integer ones) and return
a Tensor of the input's dtype. These are data-pipeline functions: they carry no gradient."""
import numpy as np

from . import functional_cv2 as F_np


def _tensor_mod():
    from ... import tensor as _t
    return _t


def _is_chw(data_format):
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
    return data_format == 'CHW'


def check_image(img, data_format='CHW'):
    if img.ndim not in (3, 4):
        raise ValueError(f"expected an image tensor of rank 3 (CHW) or 4 (NCHW), received shape {img.shape}")
    _is_chw(data_format)


def image_size(img, data_format='CHW'):
    """(width, height)."""
    check_image(img, data_format)
    s = img.shape
    return (s[-1], s[-2]) if _is_chw(data_format) else (s[-2], s[-3])


def _bound(arr):
    return 1.0 if arr.dtype.kind == 'f' else 255


def apply_numpy(img, fn, data_format='CHW'):
    """Run fn(hwc_array, bound) on each image of a CHW/NCHW tensor; back to a Tensor."""
    check_image(img, data_format)
    arr = img.numpy()
    chw = _is_chw(data_format)
    batch = arr if arr.ndim == 4 else arr[None]
    outs = []
    for im in batch:
        hwc = im.transpose(1, 2, 0) if chw else im
        o = fn(np.ascontiguousarray(hwc), _bound(arr))
        if o.ndim == 2:
            o = o[:, :, None]
        outs.append(o.transpose(2, 0, 1) if chw else o)
    out = np.stack(outs) if arr.ndim == 4 else outs[0]
    return _tensor_mod().to_tensor(np.ascontiguousarray(out.astype(arr.dtype, copy=False)))


def normalize(img, mean, std, data_format='CHW'):
    t = _tensor_mod()
    check_image(img, data_format)
    shape = [-1, 1, 1] if _is_chw(data_format) else [1, 1, -1]
    mean = t.to_tensor(np.asarray(mean, dtype=np.float64).reshape(shape), dtype=img.dtype)
    std = t.to_tensor(np.asarray(std, dtype=np.float64).reshape(shape), dtype=img.dtype)
    return (img - mean) / std


def crop(img, top, left, height, width, data_format='CHW'):
    check_image(img, data_format)
    if _is_chw(data_format):
        return img[..., top:top + height, left:left + width]
    return img[..., top:top + height, left:left + width, :]


def center_crop(img, output_size, data_format='CHW'):
    if isinstance(output_size, (int, float)):
        output_size = (int(output_size), int(output_size))
    w, h = image_size(img, data_format)
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw, data_format)


def hflip(img, data_format='CHW'):
    check_image(img, data_format)
    return img.flip([-1 if _is_chw(data_format) else -2])


def vflip(img, data_format='CHW'):
    check_image(img, data_format)
    return img.flip([-2 if _is_chw(data_format) else -3])


def resize(img, size, interpolation='bilinear', data_format='CHW'):
    return apply_numpy(img, lambda x, b: F_np.resize(x, size, interpolation, b), data_format)


def pad(img, padding, fill=0, padding_mode='constant', data_format='CHW'):
    F_np.check_pad_args(padding, fill, padding_mode)
    return apply_numpy(img, lambda x, b: F_np.pad(x, padding, fill, padding_mode), data_format)


def adjust_brightness(img, factor):
    return apply_numpy(img, lambda x, b: F_np.adjust_brightness(x, factor, b))


def adjust_contrast(img, factor):
    return apply_numpy(img, lambda x, b: F_np.adjust_contrast(x, factor, b))


def adjust_saturation(img, factor):
    return apply_numpy(img, lambda x, b: F_np.adjust_saturation(x, factor, b))


def adjust_hue(img, factor):
    return apply_numpy(img, lambda x, b: F_np.adjust_hue(x, factor, b))


def to_grayscale(img, num_output_channels=1, data_format='CHW'):
    return apply_numpy(img, lambda x, b: F_np.to_grayscale(x, num_output_channels,
                                                            (0.2989, 0.587, 0.114)), data_format)


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=0):
    return apply_numpy(img, lambda x, b: F_np.rotate(x, angle, interpolation, expand, center, fill))


def warp_affine(img, matrix, interpolation='nearest', fill=0):
    def fn(x, b):
        return F_np.warp_affine(x, matrix, (x.shape[1], x.shape[0]), interpolation, fill)
    return apply_numpy(img, fn)


def perspective(img, coeffs, interpolation='nearest', fill=0):
    return apply_numpy(img, lambda x, b: F_np.warp_perspective(x, coeffs, interpolation, fill))


def erase(img, i, j, h, w, v, inplace=False):
    t = _tensor_mod()
    arr = img.numpy().copy()
    vv = v.numpy() if isinstance(v, type(img)) else np.asarray(v)
    if vv.ndim == 3 and arr.ndim >= 3 and vv.shape[-1] == arr.shape[-3] and vv.shape[0] != arr.shape[-3]:
        vv = vv.transpose(2, 0, 1)  # HWC value given for a CHW image
    elif vv.ndim == 1:
        vv = vv.reshape(-1, 1, 1)
    arr[..., i:i + h, j:j + w] = vv
    out = t.to_tensor(arr)
    if inplace:
        img.set_value(arr) if hasattr(img, 'set_value') else img._copy_(out)
        return img
    return out
