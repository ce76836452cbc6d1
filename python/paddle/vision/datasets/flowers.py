"""Flowers (Oxford 102 Flowers, Paddle 2.x): images from 102flowers.tgz, labels from
imagelabels.mat and the split from setid.mat (Paddle trains on 'tstid', the larger split).
Samples are (image, label): PIL image ('pil') or RGB HWC float32 array ('cv2'); label int64 [1]."""
import io
import os
import tarfile
import zlib

import numpy as np

from ...io import Dataset
from ._utils import check_backend, check_mode, default_dtype, locate

__all__ = ['Flowers']

MODE_FLAG_MAP = {'train': 'tstid', 'test': 'trnid', 'valid': 'valid'}


def _loadmat(path):
    try:
        import scipy.io
        return scipy.io.loadmat(path)
    except ImportError:
        from ._matfile import loadmat
        return loadmat(path)


class Flowers(Dataset):
    def __init__(self, data_file=None, label_file=None, setid_file=None, mode='train',
                 transform=None, download=True, backend=None):
        self.mode = check_mode(mode, ('train', 'valid', 'test'))
        self.flag = MODE_FLAG_MAP[self.mode]
        self.backend = check_backend(backend)
        self.data_file = locate(data_file, 'flowers', '102flowers.tgz', (), "data file", download)
        self.label_file = locate(label_file, 'flowers', 'imagelabels.mat', (), "label file", download)
        self.setid_file = locate(setid_file, 'flowers', 'setid.mat', (), "setid file", download)
        self.transform = transform
        self.dtype = default_dtype()
        self._load_anno()

    def _load_anno(self):
        try:
            with tarfile.open(self.data_file) as tar:
                self.name2mem = {m.name: m for m in tar.getmembers()}
        except (tarfile.TarError, OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
            raise ValueError(f"Flowers: {self.data_file!r} is not a readable tarball: {e}") from e
        self._tar, self._tar_pid = None, None
        self.labels = np.asarray(_loadmat(self.label_file)['labels']).reshape(-1)
        setid = _loadmat(self.setid_file)
        if self.flag not in setid:
            raise ValueError(f"Flowers: {self.setid_file!r} has no '{self.flag}' split")
        self.indexes = np.asarray(setid[self.flag]).reshape(-1)

    def _read(self, name):
        if self._tar is None or self._tar_pid != os.getpid():  # one handle per (worker) process
            self._tar, self._tar_pid = tarfile.open(self.data_file), os.getpid()
        if name not in self.name2mem:
            raise ValueError(f"Flowers: {name!r} is missing from {self.data_file!r}")
        try:
            return self._tar.extractfile(self.name2mem[name]).read()
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            raise ValueError(f"Flowers: cannot read {name!r} from {self.data_file!r}: {e}") from e

    def __getitem__(self, idx):
        from PIL import Image
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype('int64')
        image = Image.open(io.BytesIO(self._read("jpg/image_%05d.jpg" % index)))
        if self.backend == 'cv2':
            image = np.asarray(image.convert('RGB'))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        return (image.astype(self.dtype) if isinstance(image, np.ndarray) else image), label

    def __len__(self):
        return len(self.indexes)

    def __getstate__(self):
        d = dict(self.__dict__)
        d['_tar'] = None
        return d
