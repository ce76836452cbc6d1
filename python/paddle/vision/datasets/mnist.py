"""MNIST and FashionMNIST (Paddle 2.x): gzipped IDX files parsed with numpy. Samples are
(image, label): image a PIL 'L' image (backend 'pil') or a float32 [28, 28] array ('cv2'), as
Paddle gives them, before the transform; label an int64 array of shape [1]."""
import functools
import gzip
import zlib
import struct

import numpy as np

from ...io import Dataset
from ._utils import check_backend, check_mode, default_dtype, locate

__all__ = ['MNIST', 'FashionMNIST']


def _read_idx(path, kind):
    """Reads a (gzipped) IDX file: kind 'images' -> uint8 [N, rows, cols]; 'labels' -> uint8 [N]."""
    opener = gzip.open if path.endswith('.gz') else open
    try:
        with opener(path, 'rb') as f:
            buf = f.read()
    except (OSError, EOFError, zlib.error) as e:
        raise ValueError(f"cannot read IDX file {path!r}: {e}") from e
    want_magic, ndim = (2051, 3) if kind == 'images' else (2049, 1)
    head = 4 + 4 * ndim
    if len(buf) < head:
        raise ValueError(f"{path!r} is too short to be an IDX {kind} file")
    magic = struct.unpack_from('>I', buf, 0)[0]
    if magic != want_magic:
        raise ValueError(f"{path!r} is not an IDX {kind} file (magic {magic}, expected {want_magic})")
    dims = struct.unpack_from('>' + 'I' * ndim, buf, 4)
    n = int(np.prod(dims, dtype=np.int64))
    if len(buf) - head < n:
        raise ValueError(f"{path!r} is truncated: header says {dims}, holds {len(buf) - head} bytes")
    return np.frombuffer(buf, dtype=np.uint8, count=n, offset=head).reshape(dims)


class MNIST(Dataset):
    """MNIST handwritten digits. image_path/label_path: the IDX .gz files; without them the
    files are looked up in ~/.cache/paddle/dataset/mnist/ (no download)."""
    NAME = 'mnist'
    FILES = {'train': ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
             'test': ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}
    EXTRA_DIRS = ()

    def __init__(self, image_path=None, label_path=None, mode='train', transform=None,
                 download=True, backend=None):
        self.mode = check_mode(mode, ('train', 'test'))
        self.backend = check_backend(backend)
        img_name, lab_name = self.FILES[self.mode]
        self.image_path = locate(image_path, self.NAME, img_name, self.EXTRA_DIRS,
                                 "image file", download)
        self.label_path = locate(label_path, self.NAME, lab_name, self.EXTRA_DIRS,
                                 "label file", download)
        self.transform = transform
        self.dtype = default_dtype()
        self._parse_dataset()

    def _parse_dataset(self):
        self.images = _read_idx(self.image_path, 'images')
        labels = _read_idx(self.label_path, 'labels')
        if len(labels) != len(self.images):
            raise ValueError(f"{self.image_path!r} holds {len(self.images)} images but "
                             f"{self.label_path!r} holds {len(labels)} labels")
        self.labels = labels.astype(np.int64).reshape(-1, 1)

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx].copy()
        if self.backend == 'pil':
            image = _pil_image().fromarray(np.ascontiguousarray(image), mode='L')
        else:
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        return (image.astype(self.dtype) if isinstance(image, np.ndarray) else image), label

    def __len__(self):
        return len(self.labels)

    def _getitems(self, indices):
        """[self[i] for i in indices], for the DataLoader's batched fetch. With the 'pil' backend
        and a Normalize with one mean and one std (the seed programs' transform), one vectorised
        pass over the batch gives exactly the per-sample arrays (the same float32 operations on
        the same pixels: a PIL 'L' image of a uint8 array gives those bytes back) without a PIL
        round trip per image; anything else goes sample by sample."""
        from ..transforms import Normalize
        tr = self.transform
        if (type(self).__getitem__ is not MNIST.__getitem__ or self.backend != 'pil'
                or type(tr) is not Normalize or tr.to_rgb or tuple(tr.keys) != ('image',)
                or len(tr.mean) != 1 or len(tr.std) != 1):
            return [self[i] for i in indices]
        idx = np.asarray(indices, dtype=np.int64)
        imgs = self.images[idx]
        out = (imgs[:, None] if tr.data_format == 'CHW' else imgs[..., None]).astype(np.float32)
        from ..transforms.functional_cv2 import _norm_consts
        mean, std = _norm_consts((tr.mean[0],), (tr.std[0],), tr.data_format)
        out -= mean
        out /= std
        labels = self.labels[idx]
        return [(out[k], labels[k]) for k in range(len(idx))]


@functools.lru_cache(maxsize=1)
def _pil_image():
    from PIL import Image
    return Image


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images, MNIST's format). Also found where Debian's
    dataset-fashion-mnist package puts it (/usr/share/datasets/fashion-mnist/)."""
    NAME = 'fashion-mnist'
    EXTRA_DIRS = ('/usr/share/datasets/fashion-mnist',)
