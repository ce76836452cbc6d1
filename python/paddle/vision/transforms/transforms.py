"""The transform classes of paddle.vision.transforms (Paddle 2.x signatures and defaults).
Random draws use Python's `random` module, as Paddle's transforms do: random.seed(n) makes the
random transforms reproducible (paddle.seed does not, in Paddle either), and each DataLoader
worker reseeds `random` with its own seed, so workers draw different streams."""
import math
import numbers
import random
import traceback
from collections.abc import Iterable, Sequence

import numpy as np

from . import functional as F

__all__ = ['BaseTransform', 'Compose', 'Resize', 'RandomResizedCrop', 'CenterCrop',
           'RandomHorizontalFlip', 'RandomVerticalFlip', 'Transpose', 'Normalize',
           'BrightnessTransform', 'SaturationTransform', 'ContrastTransform', 'HueTransform',
           'ColorJitter', 'RandomCrop', 'Pad', 'RandomAffine', 'RandomRotation',
           'RandomPerspective', 'Grayscale', 'ToTensor', 'RandomErasing']


# ---------------------------------------------------------------- random draws (Python's random)
_rand = random.random
_uniform = random.uniform


def _randint(low, high):
    """Integer in [low, high] (both ends included, like random.randint)."""
    if high < low:
        raise ValueError(f"empty range for a random integer: [{low}, {high}]")
    return random.randint(int(low), int(high))


def _shuffle(items):
    items = list(items)
    random.shuffle(items)
    return items


def _get_image_size(img):
    return F._get_image_size(img)


def _setup_size(size, name='size'):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return (int(size), int(size))
    if isinstance(size, Sequence) and len(size) == 2:
        return (int(size[0]), int(size[1]))
    raise TypeError(f"{name} must be an int or a (h, w) sequence, received {size!r}")


def _check_prob(prob):
    if not isinstance(prob, numbers.Number) or not 0 <= prob <= 1:
        raise ValueError(f"The probability should be in range [0, 1], received {prob!r}")
    return prob


# ---------------------------------------------------------------- base classes
class Compose:
    """Applies the transforms in order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for f in self.transforms:
            try:
                data = f(data)
            except Exception as e:
                print(f"fail to perform transform [{f}] with error: {e} and stack:\n"
                      f"{traceback.format_exc()}")
                raise e
        return data

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class BaseTransform:
    """Base of the transforms: __call__ takes one input or a tuple whose items are handled by
    _apply_<key> for the keys given (default ('image',)); random parameters are drawn once per
    call in _get_params and shared by all items."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence) or isinstance(keys, str):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        pass

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            if self.keys[0] == 'image':  # the common case: one image
                self.params = self._get_params((inputs,))
                f = self._get_apply('image')
                return inputs if f is None else f(inputs)
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = []
        for i in range(min(len(inputs), len(self.keys))):
            apply_func = self._get_apply(self.keys[i])
            outputs.append(inputs[i] if apply_func is None else apply_func(inputs[i]))
        if len(inputs) > len(self.keys):
            outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError

    def _apply_boxes(self, boxes):
        raise NotImplementedError

    def _apply_mask(self, mask):
        raise NotImplementedError


# ---------------------------------------------------------------- deterministic transforms
class ToTensor(BaseTransform):
    """PIL/numpy HWC image (uint8 in [0, 255]) -> Tensor (CHW by default) float32 in [0, 1]."""

    def __init__(self, data_format='CHW', keys=None):
        super().__init__(keys)
        if data_format not in ('CHW', 'HWC'):
            raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    def __init__(self, size, interpolation='bilinear', keys=None):
        super().__init__(keys)
        if not (isinstance(size, numbers.Integral) or (isinstance(size, Iterable) and len(size) == 2)):
            raise TypeError(f"Resize: size must be an int or a (h, w) sequence, received {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = _setup_size(size)

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class Normalize(BaseTransform):
    """(img - mean) / std per channel; mean/std may be numbers (used for all 3 channels)."""

    def __init__(self, mean=0.0, std=1.0, data_format='CHW', to_rgb=False, keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean, mean, mean]
        if isinstance(std, numbers.Number):
            std = [std, std, std]
        if any(s == 0 for s in std):
            raise ValueError(f"Normalize: std must be non-zero, received {std}")
        if data_format not in ('CHW', 'HWC'):
            raise ValueError(f"data_format should be CHW or HWC, received {data_format!r}")
        self.mean, self.std = mean, std
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permutes the axes of a numpy/PIL image (HWC -> CHW by default) or a Tensor."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return img.transpose(list(self.order))
        if F._is_pil_image(img):
            img = np.asarray(img)
        if len(img.shape) == 2:
            img = img[..., np.newaxis]
        return img.transpose(self.order)


class Pad(BaseTransform):
    def __init__(self, padding, fill=0, padding_mode='constant', keys=None):
        from .functional_cv2 import check_pad_args
        check_pad_args(padding, fill, padding_mode)
        if isinstance(padding, list):
            padding = tuple(padding)
        if isinstance(fill, list):
            fill = tuple(fill)
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class Grayscale(BaseTransform):
    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        if num_output_channels not in (1, 3):
            raise ValueError(f"num_output_channels should be 1 or 3, received {num_output_channels}")
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


# ---------------------------------------------------------------- random geometry
class RandomResizedCrop(BaseTransform):
    """Crops a random area (fraction `scale` of the image, aspect in `ratio`) and resizes it."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4, 4. / 3), interpolation='bilinear',
                 keys=None):
        super().__init__(keys)
        self.size = _setup_size(size)
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError(f"scale and ratio should be of kind (min, max), received {scale}, {ratio}")
        if ratio[0] <= 0:
            raise ValueError(f"ratio must be positive, received {ratio}")
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _get_param(self, image, attempts=10):
        width, height = _get_image_size(image)
        area = height * width
        log_ratio = tuple(math.log(x) for x in self.ratio)
        for _ in range(attempts):
            target_area = _uniform(*self.scale) * area
            aspect_ratio = math.exp(_uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(0, height - h), _randint(0, width - w), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w = width
            h = int(round(w / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h = height
            w = int(round(h * max(self.ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class RandomHorizontalFlip(BaseTransform):
    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob)

    def _apply_image(self, img):
        return F.hflip(img) if _rand() < self.prob else img


class RandomVerticalFlip(BaseTransform):
    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob)

    def _apply_image(self, img):
        return F.vflip(img) if _rand() < self.prob else img


class RandomCrop(BaseTransform):
    """Random crop of `size`, after optional padding (and padding up to size if pad_if_needed)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode='constant',
                 keys=None):
        super().__init__(keys)
        self.size = _setup_size(size)
        if padding is not None:
            from .functional_cv2 import check_pad_args
            check_pad_args(padding, fill, padding_mode)
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def _get_param(self, img, output_size):
        w, h = _get_image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        if th > h or tw > w:
            raise ValueError(f"RandomCrop: crop size {output_size} is larger than the image "
                             f"({h}, {w}); use padding or pad_if_needed=True")
        return _randint(0, h - th), _randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = _get_image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        i, j, h, w = self._get_param(img, self.size)
        return F.crop(img, i, j, h, w)


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [-x, x]
    if not isinstance(x, Sequence) or len(x) not in req_sizes:
        raise ValueError(f"If {name} is a sequence, its length should be one of {req_sizes}.")
    return [float(d) for d in x]


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)) or isinstance(fill, str):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


class RandomRotation(BaseTransform):
    """Rotates by an angle drawn uniformly from degrees (a number d means (-d, d))."""

    def __init__(self, degrees, interpolation='nearest', expand=False, center=None, fill=0, keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            self.degrees = (-degrees, degrees)
        else:
            if not isinstance(degrees, Sequence) or len(degrees) != 2:
                raise ValueError("If degrees is a sequence, it must be of len 2.")
            self.degrees = degrees
        super().__init__(keys)
        self.interpolation, self.expand, self.center = interpolation, expand, center
        self.fill = _check_fill(fill)

    def _get_param(self, degrees):
        return _uniform(degrees[0], degrees[1])

    def _apply_image(self, img):
        angle = self._get_param(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """Random rotation (degrees), translation (fractions of width/height), scale and shear."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation='nearest',
                 fill=0, center=None, keys=None):
        self.degrees = _setup_angle(degrees, "degrees", (2,))
        super().__init__(keys)
        self.interpolation = interpolation
        if translate is not None:
            if not isinstance(translate, Sequence) or len(translate) != 2:
                raise TypeError("translate should be a sequence of length 2.")
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            if not isinstance(scale, Sequence) or len(scale) != 2:
                raise TypeError("scale should be a sequence of length 2.")
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = None if shear is None else _setup_angle(shear, "shear", (2, 4))
        self.fill = _check_fill(fill)
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise TypeError("center should be a sequence of length 2.")
        self.center = center

    def _get_param(self, img_size, degrees, translate=None, scale_ranges=None, shears=None):
        angle = _uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(_uniform(-max_dx, max_dx)), int(_uniform(-max_dy, max_dy)))
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def _apply_image(self, img):
        w, h = _get_image_size(img)
        ret = self._get_param([w, h], self.degrees, self.translate, self.scale, self.shear)
        return F.affine(img, *ret, interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomPerspective(BaseTransform):
    """With probability prob, moves each corner inwards by up to distortion_scale/2 of the size."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation='nearest', fill=0, keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob)
        if not 0 <= distortion_scale <= 1:
            raise ValueError("The distortion_scale should be in range [0, 1]")
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = _check_fill(fill)

    def get_params(self, width, height, distortion_scale):
        hh, hw = height // 2, width // 2
        dw, dh = int(distortion_scale * hw), int(distortion_scale * hh)
        topleft = [_randint(0, dw), _randint(0, dh)]
        topright = [_randint(width - dw - 1, width - 1), _randint(0, dh)]
        botright = [_randint(width - dw - 1, width - 1), _randint(height - dh - 1, height - 1)]
        botleft = [_randint(0, dw), _randint(height - dh - 1, height - 1)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def _apply_image(self, img):
        width, height = _get_image_size(img)
        if _rand() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img


class RandomErasing(BaseTransform):
    """With probability prob, erases a random box (area fraction `scale`, aspect `ratio`) with
    `value`: a number, per-channel values, or 'random' (normal noise)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        if not isinstance(scale, (tuple, list)) or not isinstance(ratio, (tuple, list)):
            raise TypeError("scale and ratio should be a tuple or list")
        if not (scale[0] >= 0 and scale[1] <= 1 and scale[0] <= scale[1]):
            raise ValueError("scale should be of kind (min, max) and in range [0, 1]")
        if not (ratio[0] >= 0 and ratio[0] <= ratio[1]):
            raise ValueError("ratio should be of kind (min, max)")
        self.prob = _check_prob(prob)
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("value should be a number, tuple, list or str")
        if isinstance(value, str) and value != "random":
            raise ValueError("value must be 'random' when type is str")
        self.scale, self.ratio, self.value, self.inplace = scale, ratio, value, inplace

    def _get_param(self, img, scale, ratio, value):
        if F._is_pil_image(img):
            shape = np.asarray(img).shape
            h, w = shape[0], shape[1]
            c = shape[2] if len(shape) == 3 else 1
            chw = False
        elif F._is_numpy_image(img):
            h, w = img.shape[0], img.shape[1]
            c = img.shape[2] if img.ndim == 3 else 1
            chw = False
        else:
            c, h, w = img.shape[-3], img.shape[-2], img.shape[-1]
            chw = True
        img_area = h * w
        log_ratio = np.log(ratio)
        for _ in range(10):
            erase_area = _uniform(*scale) * img_area
            aspect_ratio = math.exp(_uniform(*log_ratio))
            erase_h = int(round(math.sqrt(erase_area * aspect_ratio)))
            erase_w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if erase_h >= h or erase_w >= w:
                continue
            if value is None and chw:  # Tensor images: standard normal noise from paddle
                from ... import tensor as _t
                v = _t.randn([erase_h, erase_w, c], dtype='float32').numpy()
            elif value is None:  # numpy/PIL images: N(0, 255^2) noise from numpy, as Paddle draws it
                v = np.random.normal(size=[erase_h, erase_w, c]) * 255
            else:
                v = np.asarray(value, dtype=np.float64).reshape(1, 1, -1)
            if chw:
                v = v.transpose(2, 0, 1)
            return _randint(0, h - erase_h), _randint(0, w - erase_w), erase_h, erase_w, v
        return 0, 0, h, w, None

    def _apply_image(self, img):
        if _rand() < self.prob:
            if isinstance(self.value, numbers.Number):
                value = [self.value]
            elif isinstance(self.value, str):
                value = None
            else:
                value = self.value
            if value is not None and len(value) not in (1, 3):
                raise ValueError("Value should be a single number or a sequence with length "
                                 "equals to image's channel.")
            top, left, eh, ew, v = self._get_param(img, self.scale, self.ratio, value)
            if v is None:
                return img
            if not F._is_tensor_image(img):
                dtype = np.asarray(img).dtype
                if np.issubdtype(dtype, np.integer):
                    info = np.iinfo(dtype)
                    v = np.clip(np.rint(v), info.min, info.max).astype(dtype)
            return F.erase(img, top, left, eh, ew, v, self.inplace)
        return img


# ---------------------------------------------------------------- colour
def _check_input(value, name, center=1, bound=(0, float('inf')), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
        value = list(value)
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if value[0] == value[1] == center:
        value = None
    return value


class BrightnessTransform(BaseTransform):
    """Brightness factor drawn uniformly from [max(0, 1 - value), 1 + value]."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, 'brightness')

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_brightness(img, _uniform(self.value[0], self.value[1]))


class ContrastTransform(BaseTransform):
    def __init__(self, value, keys=None):
        super().__init__(keys)
        if isinstance(value, numbers.Number) and value < 0:
            raise ValueError("contrast value should be non-negative")
        self.value = _check_input(value, 'contrast')

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_contrast(img, _uniform(self.value[0], self.value[1]))


class SaturationTransform(BaseTransform):
    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, 'saturation')

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_saturation(img, _uniform(self.value[0], self.value[1]))


class HueTransform(BaseTransform):
    """Hue shift drawn uniformly from [-value, value] (value <= 0.5)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, 'hue', center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    def _apply_image(self, img):
        if self.value is None:
            return img
        return F.adjust_hue(img, _uniform(self.value[0], self.value[1]))


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        # validate now so bad values fail at construction
        for v, cls in ((brightness, BrightnessTransform), (contrast, ContrastTransform),
                       (saturation, SaturationTransform), (hue, HueTransform)):
            if v is not None:
                cls(v, self.keys)

    def _get_param(self, brightness, contrast, saturation, hue):
        ts = []
        if brightness is not None:
            ts.append(BrightnessTransform(brightness, self.keys))
        if contrast is not None:
            ts.append(ContrastTransform(contrast, self.keys))
        if saturation is not None:
            ts.append(SaturationTransform(saturation, self.keys))
        if hue is not None:
            ts.append(HueTransform(hue, self.keys))
        return Compose(_shuffle(ts))

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)
