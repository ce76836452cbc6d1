"""DatasetFolder (root/<class>/.../<file>, one class per sub-folder) and ImageFolder (all image
files under root, no labels), as in Paddle 2.x. Files are decoded by `loader` (default: the
image backend's loader: PIL RGB images, or RGB HWC uint8 arrays for 'cv2')."""
import os

import numpy as np

from ...io import Dataset

__all__ = ['DatasetFolder', 'ImageFolder']

IMG_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp')


def has_valid_extension(filename, extensions):
    return filename.lower().endswith(tuple(e.lower() for e in extensions))


def _validator(extensions, is_valid_file):
    if extensions is not None and is_valid_file is not None:
        raise ValueError("Both extensions and is_valid_file cannot be passed at the same time")
    if is_valid_file is not None:
        if not callable(is_valid_file):
            raise TypeError("is_valid_file must be a callable taking a path")
        return is_valid_file, None
    extensions = IMG_EXTENSIONS if extensions is None else extensions
    if isinstance(extensions, str):
        extensions = (extensions,)
    extensions = tuple(extensions)
    return (lambda p: has_valid_extension(p, extensions)), extensions


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    images = []
    dir = os.path.expanduser(dir)
    if extensions is not None:
        def is_valid_file(x):
            return has_valid_extension(x, extensions)
    for target in sorted(class_to_idx.keys()):
        d = os.path.join(dir, target)
        if not os.path.isdir(d):
            continue
        for root, _, fnames in sorted(os.walk(d, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    images.append((path, class_to_idx[target]))
    return images


def pil_loader(path):
    from PIL import Image
    with open(path, 'rb') as f:
        img = Image.open(f)
        return img.convert('RGB')


def cv2_loader(path):
    """RGB uint8 HWC array (Paddle's cv2 loader converts cv2's BGR to RGB)."""
    return np.asarray(pil_loader(path))


def default_loader(path):
    from ..image import get_image_backend
    return cv2_loader(path) if get_image_backend() == 'cv2' else pil_loader(path)


def _check_root(root):
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"root must be a path, received {type(root).__name__}")
    root = os.fspath(root)
    if not os.path.isdir(root):
        raise FileNotFoundError(f"root folder {root!r} does not exist")
    return root


class DatasetFolder(Dataset):
    """root/<class_name>/<...>/<file>: samples (loader(path), class_index), classes sorted by
    name. extensions (default: image extensions) or is_valid_file select the files."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = _check_root(root)
        self.transform = transform
        valid, extensions = _validator(extensions, is_valid_file)
        classes, class_to_idx = self._find_classes(self.root)
        samples = make_dataset(self.root, class_to_idx, None, valid)
        if len(samples) == 0:
            raise RuntimeError(f"Found 0 files in subfolders of: {self.root}\n" +
                               (f"Supported extensions are: {','.join(extensions)}" if extensions
                                else "(no file passed is_valid_file)"))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    def _find_classes(self, dir):
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every valid file under root (recursively, sorted); a sample is [loader(path)]."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = _check_root(root)
        valid, extensions = _validator(extensions, is_valid_file)
        samples = []
        for r, _, fnames in sorted(os.walk(self.root, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(r, fname)
                if valid(path):
                    samples.append(path)
        if len(samples) == 0:
            raise RuntimeError(f"Found 0 files in: {self.root}\n" +
                               (f"Supported extensions are: {','.join(extensions)}" if extensions
                                else "(no file passed is_valid_file)"))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
