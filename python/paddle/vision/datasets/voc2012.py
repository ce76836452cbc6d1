"""VOC2012 semantic segmentation (Paddle 2.x) from VOCtrainval_11-May-2012.tar: samples are
(image, label) with the JPEG image and the class-index PNG mask, as PIL images ('pil') or numpy
arrays ('cv2': HWC RGB image and HW mask of class indices). Modes follow Paddle: 'train' reads
the trainval list, 'test' the train list, 'valid' the val list."""
import io
import os
import tarfile
import zlib

import numpy as np

from ...io import Dataset
from ._utils import check_backend, check_mode, default_dtype, locate

__all__ = ['VOC2012']

SET_FILE = 'VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt'
DATA_FILE = 'VOCdevkit/VOC2012/JPEGImages/{}.jpg'
LABEL_FILE = 'VOCdevkit/VOC2012/SegmentationClass/{}.png'
MODE_FLAG_MAP = {'train': 'trainval', 'test': 'train', 'valid': 'val'}


class VOC2012(Dataset):
    def __init__(self, data_file=None, mode='train', transform=None, download=True, backend=None):
        self.mode = check_mode(mode, ('train', 'valid', 'test'))
        self.flag = MODE_FLAG_MAP[self.mode]
        self.backend = check_backend(backend)
        self.data_file = locate(data_file, 'voc2012', 'VOCtrainval_11-May-2012.tar', (),
                                "data file", download)
        self.transform = transform
        self.dtype = default_dtype()
        self._load_anno()

    def _load_anno(self):
        try:
            with tarfile.open(self.data_file) as tar:
                self.name2mem = {m.name: m for m in tar.getmembers()}
                set_name = SET_FILE.format(self.flag)
                if set_name not in self.name2mem:
                    raise ValueError(f"VOC2012: {self.data_file!r} lacks {set_name!r}")
                lines = tar.extractfile(self.name2mem[set_name]).read().decode().split()
        except (tarfile.TarError, OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
            raise ValueError(f"VOC2012: {self.data_file!r} is not a readable tarball: {e}") from e
        self.data = [DATA_FILE.format(n) for n in lines]
        self.labels = [LABEL_FILE.format(n) for n in lines]
        self._tar, self._tar_pid = None, None

    def _read(self, name):
        if self._tar is None or self._tar_pid != os.getpid():
            self._tar, self._tar_pid = tarfile.open(self.data_file), os.getpid()
        if name not in self.name2mem:
            raise ValueError(f"VOC2012: {name!r} is missing from {self.data_file!r}")
        try:
            return self._tar.extractfile(self.name2mem[name]).read()
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            raise ValueError(f"VOC2012: cannot read {name!r} from {self.data_file!r}: {e}") from e

    def __getitem__(self, idx):
        from PIL import Image
        image = Image.open(io.BytesIO(self._read(self.data[idx])))
        label = Image.open(io.BytesIO(self._read(self.labels[idx])))
        if self.backend == 'cv2':
            image = np.asarray(image.convert('RGB'))
            label = np.asarray(label)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        return ((image.astype(self.dtype) if isinstance(image, np.ndarray) else image),
                label.astype(self.dtype))

    def __len__(self):
        return len(self.data)

    def __getstate__(self):
        d = dict(self.__dict__)
        d['_tar'] = None
        return d
