"""paddle.vision.datasets: MNIST, FashionMNIST, Cifar10/100, Flowers, VOC2012 and the folder
datasets. Nothing is downloaded: files come from explicit paths, Paddle's cache folder
~/.cache/paddle/dataset/<name>/ or Debian data packages, else a FileNotFoundError says where."""
from .cifar import Cifar10, Cifar100  # noqa: F401
from .flowers import Flowers  # noqa: F401
from .folder import DatasetFolder, ImageFolder  # noqa: F401
from .mnist import MNIST, FashionMNIST  # noqa: F401
from .voc2012 import VOC2012  # noqa: F401

__all__ = ['DatasetFolder', 'ImageFolder', 'MNIST', 'FashionMNIST', 'Flowers', 'Cifar10',
           'Cifar100', 'VOC2012']
