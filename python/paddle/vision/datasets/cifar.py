"""Cifar10 and Cifar100 (Paddle 2.x) from the python-pickle tarballs (cifar-10-python.tar.gz,
cifar-100-python.tar.gz). The batches are unpickled by a restricted unpickler that only builds
numpy arrays, lists, dicts and bytes: a tarball can never run code. Samples are (image, label):
image a PIL RGB image ('pil') or a uint8->float32 HWC [32, 32, 3] array ('cv2'); label an int64
array, 0-d as Paddle 2.3 returns it."""
import io
import pickle
import tarfile
import zlib

import numpy as np

from ...framework.io import _SafeUnpickler, _check_opcodes, _plain_dtype
from ...io import Dataset
from ._utils import check_backend, check_mode, default_dtype, locate

__all__ = ['Cifar10', 'Cifar100']


def _frombuffer(buf, dtype, shape, order):
    return np.frombuffer(bytes(buf), dtype=_plain_dtype(dtype, "Cifar")).reshape(shape, order=order).copy()


class _CifarUnpickler(_SafeUnpickler):
    def find_class(self, module, name):
        if module in ("numpy.core.numeric", "numpy._core.numeric") and name == "_frombuffer":
            return _frombuffer
        try:
            return super().find_class(module, name)
        except pickle.UnpicklingError:
            raise pickle.UnpicklingError(
                f"Cifar: refusing to unpickle {module}.{name}: a CIFAR batch holds only numpy "
                "arrays, lists and bytes (the file is corrupt or not a CIFAR batch)") from None


def load_batch(fileobj):
    try:
        raw = fileobj.read()
        _check_opcodes(raw, allow=("BYTEARRAY8",))  # paddle.load's opcode walk (memo bombs)
        batch = _CifarUnpickler(io.BytesIO(raw), encoding='bytes').load()
    except pickle.UnpicklingError:
        raise
    except Exception as e:  # truncated / garbage data
        raise ValueError(f"Cifar: cannot unpickle the batch: {e}") from e
    if not isinstance(batch, dict):
        raise ValueError("Cifar: a batch must be a dict")
    return batch


class Cifar10(Dataset):
    """CIFAR-10: 50000 train / 10000 test 32x32 colour images in 10 classes. data_file: the
    cifar-10-python.tar.gz tarball (default ~/.cache/paddle/dataset/cifar/)."""
    FILENAME = 'cifar-10-python.tar.gz'
    FLAGS = {'train': 'data_batch', 'test': 'test_batch'}
    LABEL_KEYS = (b'labels',)

    def __init__(self, data_file=None, mode='train', transform=None, download=True, backend=None):
        self.mode = check_mode(mode, ('train', 'test'))
        self.backend = check_backend(backend)
        self.flag = self.FLAGS[self.mode]
        self.data_file = locate(data_file, 'cifar', self.FILENAME, (), "data file", download)
        self.transform = transform
        self.dtype = default_dtype()
        self._load_data()

    def _load_data(self):
        datas, labels = [], []
        try:
            tar = tarfile.open(self.data_file, mode='r')
            names = sorted(m.name for m in tar.getmembers() if m.isfile() and self.flag in m.name)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            raise ValueError(f"Cifar: {self.data_file!r} is not a readable tarball: {e}") from e
        with tar:
            if not names:
                raise ValueError(f"Cifar: {self.data_file!r} holds no '{self.flag}' batches")
            for name in names:
                try:
                    raw = tar.extractfile(name).read()
                except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
                    raise ValueError(f"Cifar: cannot read {name!r} from {self.data_file!r}: {e}") from e
                batch = load_batch(io.BytesIO(raw))
                data = batch.get(b'data', batch.get('data'))
                lab = None
                for k in self.LABEL_KEYS:
                    lab = batch.get(k, batch.get(k.decode()))
                    if lab is not None:
                        break
                if data is None or lab is None:
                    raise ValueError(f"Cifar: batch {name!r} lacks its data or labels")
                data = np.asarray(data, dtype=np.uint8).reshape(-1, 3072)
                lab = np.asarray(lab, dtype=np.int64).reshape(-1)
                if len(lab) != len(data):
                    raise ValueError(f"Cifar: batch {name!r} has {len(data)} images, {len(lab)} labels")
                datas.append(data)
                labels.append(lab)
        self.data = np.concatenate(datas)
        self.labels = np.concatenate(labels)

    def __getitem__(self, idx):
        image = self.data[idx].reshape(3, 32, 32).transpose(1, 2, 0)
        label = np.array(self.labels[idx]).astype('int64')
        if self.backend == 'pil':
            from PIL import Image
            image = Image.fromarray(np.ascontiguousarray(image))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        return (image.astype(self.dtype) if isinstance(image, np.ndarray) else image), label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100 (fine labels, 100 classes) from cifar-100-python.tar.gz."""
    FILENAME = 'cifar-100-python.tar.gz'
    FLAGS = {'train': 'train', 'test': 'test'}
    LABEL_KEYS = (b'fine_labels', b'labels')
