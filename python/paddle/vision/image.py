"""The image backend switch of paddle.vision ('pil', 'cv2' or 'tensor') and image_load.
Without OpenCV the 'cv2' backend decodes with Pillow and returns what cv2.imread would: a BGR
uint8 HWC numpy array."""
import numpy as np

_image_backend = 'pil'
_BACKENDS = ('pil', 'cv2', 'tensor')


def set_image_backend(backend):
    """Selects what datasets and image_load return: 'pil' (PIL images), 'cv2' (numpy HWC) or
    'tensor' (uint8 CHW Tensors)."""
    global _image_backend
    if backend not in _BACKENDS:
        raise ValueError(f"Expected backend are one of {list(_BACKENDS)}, but got {backend!r}")
    _image_backend = backend


def get_image_backend():
    return _image_backend


def _pil():
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover
        raise ImportError("paddle.vision needs Pillow to decode images: pip install pillow") from e
    return Image


def image_load(path, backend=None):
    """Loads an image file: a PIL image ('pil'), a BGR uint8 HWC array ('cv2', as cv2.imread)
    or a uint8 CHW Tensor in RGB ('tensor')."""
    if backend is None:
        backend = _image_backend
    if backend not in _BACKENDS:
        raise ValueError(f"Expected backend are one of {list(_BACKENDS)}, but got {backend!r}")
    Image = _pil()
    if backend == 'pil':
        return Image.open(path)
    if backend == 'cv2':
        try:
            import cv2
            return cv2.imread(path)
        except ImportError:
            with Image.open(path) as im:
                return np.ascontiguousarray(np.asarray(im.convert('RGB'))[:, :, ::-1])
    from .. import tensor as _t
    with Image.open(path) as im:
        return _t.to_tensor(np.ascontiguousarray(np.asarray(im.convert('RGB')).transpose(2, 0, 1)))
