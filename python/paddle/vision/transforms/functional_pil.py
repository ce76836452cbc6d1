"""Image functions on PIL images (Paddle's 'pil' backend): resampling, flips, rotations, affine
and perspective warps and enhancements use Pillow itself, so results match Paddle's; padding
and erasing go through numpy and come back as an image of the same mode (palette kept)."""
import numbers

import numpy as np

from . import functional_cv2 as F_np

try:
    from PIL import Image, ImageEnhance, ImageOps
except ImportError:  # pragma: no cover - pillow is a dependency of paddle.vision
    Image = ImageEnhance = ImageOps = None


def _interp(name):
    table = {'nearest': Image.NEAREST, 'bilinear': Image.BILINEAR, 'bicubic': Image.BICUBIC,
             'box': Image.BOX, 'lanczos': Image.LANCZOS, 'hamming': Image.HAMMING}
    if name not in table:
        raise ValueError(f"interpolation must be one of {tuple(table)} for PIL images, received {name!r}")
    return table[name]


def _from_np(arr, like):
    """numpy array -> PIL image in the mode of `like` (palette copied)."""
    mode = like.mode
    if mode == '1':
        out = Image.fromarray(arr.astype(np.uint8) * 255, 'L').convert('1')
    elif mode in ('L', 'P') or arr.ndim == 2:
        out = Image.fromarray(arr if arr.ndim == 2 else arr[:, :, 0], mode if mode != 'I;16' else None)
    else:
        out = Image.fromarray(arr, mode)
    if mode == 'P' and like.getpalette() is not None:
        out.putpalette(like.getpalette())
    return out


def _fill(fill, img):
    bands = len(img.getbands())
    if isinstance(fill, numbers.Number):
        return fill if bands == 1 else tuple([fill] * bands)
    fill = tuple(fill)
    if bands == 1:
        return fill[0]
    if len(fill) == 1:
        return tuple(fill * bands)
    return fill[:bands]


def to_tensor(pic, data_format='CHW'):
    from ... import tensor as _t
    if data_format not in ('CHW', 'HWC'):
        raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
    if pic.mode in ('I', 'I;16'):
        arr = np.array(pic, np.int32)
    elif pic.mode == 'F':
        arr = np.array(pic, np.float32)
    elif pic.mode == '1':
        arr = 255 * np.array(pic, np.uint8)
    else:
        arr = np.array(pic)
    nchannel = 3 if pic.mode == 'YCbCr' else (1 if pic.mode in ('I;16', '1') else len(pic.getbands()))
    arr = arr.reshape(pic.size[1], pic.size[0], nchannel)
    if data_format == 'CHW':
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255.0)
    return _t.to_tensor(np.ascontiguousarray(arr))


def resize(img, size, interpolation='bilinear'):
    w, h = img.size
    oh, ow = F_np.target_size(h, w, size)
    if (oh, ow) == (h, w) and isinstance(size, numbers.Integral):
        return img
    return img.resize((ow, oh), _interp(interpolation))


def pad(img, padding, fill=0, padding_mode='constant'):
    l, t, r, b = F_np.check_pad_args(padding, fill, padding_mode)
    if padding_mode == 'constant':
        return ImageOps.expand(img, border=(l, t, r, b), fill=_fill(fill, img))
    return _from_np(F_np.pad(np.asarray(img), (l, t, r, b), fill, padding_mode), img)


def crop(img, top, left, height, width):
    return img.crop((left, top, left + width, top + height))


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    w, h = img.size
    th, tw = output_size
    i = int(round((h - th) / 2.0))
    j = int(round((w - tw) / 2.0))
    return crop(img, i, j, th, tw)


def hflip(img):
    return img.transpose(Image.FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(Image.FLIP_TOP_BOTTOM)


def adjust_brightness(img, brightness_factor):
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor):
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor):
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    mode = img.mode
    if mode in ('L', '1', 'I', 'F'):
        return img
    h, s, v = img.convert('HSV').split()
    np_h = np.array(h, dtype=np.uint8)
    np_h = (np_h.astype(np.int64) + int(np.uint8(np.int64(hue_factor * 255) % 256))) % 256
    h = Image.fromarray(np_h.astype(np.uint8), 'L')
    return Image.merge('HSV', (h, s, v)).convert(mode)


def to_grayscale(img, num_output_channels=1):
    if num_output_channels == 1:
        return img.convert('L')
    if num_output_channels == 3:
        g = np.array(img.convert('L'), dtype=np.uint8)
        return Image.fromarray(np.dstack([g, g, g]), 'RGB')
    raise ValueError(f"num_output_channels should be 1 or 3, received {num_output_channels}")


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=0):
    return img.rotate(angle, _interp(interpolation), expand, center, fillcolor=_fill(fill, img))


def affine(img, matrix, interpolation='nearest', fill=0):
    return img.transform(img.size, Image.AFFINE, tuple(matrix), _interp(interpolation),
                         fillcolor=_fill(fill, img))


def perspective(img, coeffs, interpolation='nearest', fill=0):
    return img.transform(img.size, Image.PERSPECTIVE, tuple(coeffs), _interp(interpolation),
                         fillcolor=_fill(fill, img))


def erase(img, i, j, h, w, v, inplace=False):
    arr = np.array(img)
    v = np.asarray(v)
    return _from_np(F_np.erase(arr, i, j, h, w, v.astype(arr.dtype) if v.dtype.kind == 'f' and
                               arr.dtype == np.uint8 else v, inplace=True), img)
