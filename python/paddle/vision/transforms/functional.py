"""paddle.vision.transforms.functional: the image functions of Paddle 2.x. Each takes a PIL
image, a numpy array (HWC or HW) or a paddle Tensor (CHW) and returns the same kind; the work is
done by functional_pil, functional_cv2 (numpy) or functional_tensor."""
import numbers
from collections.abc import Sequence

import numpy as np

from ... import _C
from . import functional_cv2 as F_cv2
from . import functional_pil as F_pil
from . import functional_tensor as F_t

__all__ = ['to_tensor', 'hflip', 'vflip', 'resize', 'pad', 'affine', 'rotate', 'perspective',
           'to_grayscale', 'crop', 'center_crop', 'adjust_brightness', 'adjust_contrast',
           'adjust_hue', 'adjust_saturation', 'normalize', 'erase']


def _is_pil_image(img):
    return F_pil.Image is not None and isinstance(img, F_pil.Image.Image)


def _is_tensor_image(img):
    return isinstance(img, _C.Tensor)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _kind(img, fname):
    if _is_pil_image(img):
        return 'pil'
    if _is_numpy_image(img):
        return 'np'
    if _is_tensor_image(img):
        return 'tensor'
    raise TypeError(f"{fname}: img should be PIL Image, ndarray with 2/3 dims or Tensor, "
                    f"received {type(img).__name__}"
                    + (f" with {img.ndim} dims" if isinstance(img, np.ndarray) else ""))


def _get_image_size(img):
    """(width, height) of any supported image."""
    k = _kind(img, 'get_image_size')
    if k == 'pil':
        return img.size
    if k == 'np':
        return img.shape[1], img.shape[0]
    return F_t.image_size(img)


def to_tensor(pic, data_format='CHW'):
    """HWC uint8 [0, 255] image -> CHW float32 Tensor in [0, 1] (other dtypes keep their values)."""
    k = _kind(pic, 'to_tensor')
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
    if k == 'pil':
        return F_pil.to_tensor(pic, data_format)
    if k == 'np':
        return F_cv2.to_tensor(pic, data_format)
    return pic if data_format == 'CHW' else pic.transpose([1, 2, 0])


def resize(img, size, interpolation='bilinear'):
    """int size: the shorter side becomes size (aspect kept); (h, w): exactly that size."""
    if not (isinstance(size, numbers.Integral) or (isinstance(size, Sequence) and len(size) == 2)):
        raise TypeError(f"resize: size must be an int or a (h, w) sequence, received {size!r}")
    k = _kind(img, 'resize')
    if k == 'pil':
        return F_pil.resize(img, size, interpolation)
    if k == 'np':
        return F_cv2.resize(img, size, interpolation)
    return F_t.resize(img, size, interpolation)


def pad(img, padding, fill=0, padding_mode='constant'):
    """padding: int (all sides), (left/right, top/bottom) or (left, top, right, bottom);
    padding_mode: constant (fill), edge, reflect or symmetric."""
    k = _kind(img, 'pad')
    if k == 'pil':
        return F_pil.pad(img, padding, fill, padding_mode)
    if k == 'np':
        return F_cv2.pad(img, padding, fill, padding_mode)
    return F_t.pad(img, padding, fill, padding_mode)


def crop(img, top, left, height, width):
    k = _kind(img, 'crop')
    if k == 'pil':
        return F_pil.crop(img, top, left, height, width)
    if k == 'np':
        return F_cv2.crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def center_crop(img, output_size):
    k = _kind(img, 'center_crop')
    if k == 'pil':
        return F_pil.center_crop(img, output_size)
    if k == 'np':
        return F_cv2.center_crop(img, output_size)
    return F_t.center_crop(img, output_size)


def hflip(img):
    k = _kind(img, 'hflip')
    return F_pil.hflip(img) if k == 'pil' else F_cv2.hflip(img) if k == 'np' else F_t.hflip(img)


def vflip(img):
    k = _kind(img, 'vflip')
    return F_pil.vflip(img) if k == 'pil' else F_cv2.vflip(img) if k == 'np' else F_t.vflip(img)


def _dispatch_color(img, name, factor):
    if not isinstance(factor, numbers.Number) or isinstance(factor, bool):
        raise TypeError(f"{name}: the factor must be a number, received {factor!r}")
    k = _kind(img, name)
    mod = F_pil if k == 'pil' else F_cv2 if k == 'np' else F_t
    return getattr(mod, name)(img, factor)


def adjust_brightness(img, brightness_factor):
    """Multiplies the pixels by brightness_factor (0 gives black, 1 the original)."""
    return _dispatch_color(img, 'adjust_brightness', brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Blends with the mean grey level (0 gives a grey image, 1 the original)."""
    return _dispatch_color(img, 'adjust_contrast', contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Blends with the greyscale image (0 gives grey, 1 the original)."""
    return _dispatch_color(img, 'adjust_saturation', saturation_factor)


def adjust_hue(img, hue_factor):
    """Shifts the hue channel by hue_factor (in [-0.5, 0.5]) turns of the colour wheel."""
    if isinstance(hue_factor, numbers.Number) and not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    return _dispatch_color(img, 'adjust_hue', hue_factor)


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (numbers.Number, Sequence)) or isinstance(fill, str):
        raise TypeError(f"fill should be a number or a sequence, received {fill!r}")
    return fill


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=0):
    """Rotates counter-clockwise by angle degrees about center (default: the image centre)."""
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"rotate: angle must be a number, received {angle!r}")
    if center is not None and not (isinstance(center, Sequence) and len(center) == 2):
        raise TypeError(f"rotate: center must be a 2-element sequence, received {center!r}")
    fill = _check_fill(fill)
    k = _kind(img, 'rotate')
    if k == 'pil':
        return F_pil.rotate(img, angle, interpolation, expand, center, fill)
    if k == 'np':
        return F_cv2.rotate(img, angle, interpolation, expand, center, fill)
    return F_t.rotate(img, angle, interpolation, expand, center, fill)


def affine(img, angle, translate, scale, shear, interpolation='nearest', fill=0, center=None):
    """Affine transform keeping the centre: rotation by angle (clockwise degrees), translation
    (pixels), scale, shear (degrees: a number for x, or (x, y))."""
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"affine: angle must be a number, received {angle!r}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise TypeError(f"affine: translate must be a 2-element list or tuple, received {translate!r}")
    if not isinstance(scale, numbers.Number):
        raise TypeError(f"affine: scale must be a number, received {scale!r}")
    if scale <= 0.0:
        raise ValueError(f"affine: scale must be positive, received {scale}")
    if isinstance(shear, numbers.Number):
        shear = [float(shear), 0.0]
    elif isinstance(shear, (list, tuple)) and len(shear) in (1, 2):
        shear = [float(shear[0]), 0.0] if len(shear) == 1 else [float(s) for s in shear]
    else:
        raise TypeError(f"affine: shear must be a number or a sequence of 1 or 2, received {shear!r}")
    if center is not None and not (isinstance(center, Sequence) and len(center) == 2):
        raise TypeError(f"affine: center must be a 2-element sequence, received {center!r}")
    fill = _check_fill(fill)
    k = _kind(img, 'affine')
    w, h = _get_image_size(img)
    if center is None:
        center = (w * 0.5, h * 0.5)
    m = F_cv2.affine_matrix(center, float(angle), [float(t) for t in translate], float(scale), shear)
    if k == 'pil':
        return F_pil.affine(img, m, interpolation, fill)
    if k == 'np':
        return F_cv2.warp_affine(img, m, (w, h), interpolation, fill)
    return F_t.warp_affine(img, m, interpolation, fill)


def perspective(img, startpoints, endpoints, interpolation='nearest', fill=0):
    """Maps the four startpoints (corners [x, y]) onto the four endpoints."""
    for name, pts in (('startpoints', startpoints), ('endpoints', endpoints)):
        if len(pts) != 4 or any(len(p) != 2 for p in pts):
            raise ValueError(f"perspective: {name} must be four [x, y] points, received {pts!r}")
    fill = _check_fill(fill)
    k = _kind(img, 'perspective')
    coeffs = F_cv2.perspective_coeffs(startpoints, endpoints)
    if k == 'pil':
        return F_pil.perspective(img, coeffs, interpolation, fill)
    if k == 'np':
        return F_cv2.warp_perspective(img, coeffs, interpolation, fill)
    return F_t.perspective(img, coeffs, interpolation, fill)


def to_grayscale(img, num_output_channels=1):
    """RGB -> grey with 1 or 3 identical channels."""
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels should be 1 or 3, received {num_output_channels}")
    k = _kind(img, 'to_grayscale')
    if k == 'pil':
        return F_pil.to_grayscale(img, num_output_channels)
    if k == 'np':
        return F_cv2.to_grayscale(img, num_output_channels)
    return F_t.to_grayscale(img, num_output_channels)


def normalize(img, mean, std, data_format='CHW', to_rgb=False):
    """(img - mean) / std per channel; numpy/PIL inputs give float32 numpy arrays."""
    if _is_tensor_image(img):
        return F_t.normalize(img, mean, std, data_format)
    k = _kind(img, 'normalize')
    if k == 'pil':
        img = np.asarray(img)
    return F_cv2.normalize(img, mean, std, data_format, to_rgb)


def erase(img, i, j, h, w, v, inplace=False):
    """Sets the box rows i..i+h, columns j..j+w to v (a value, per-channel values or an array)."""
    k = _kind(img, 'erase')
    if k == 'pil':
        return F_pil.erase(img, i, j, h, w, v, inplace)
    if k == 'np':
        return F_cv2.erase(img, i, j, h, w, v, inplace)
    return F_t.erase(img, i, j, h, w, v, inplace)
