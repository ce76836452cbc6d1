"""paddle.utils.dlpack: zero-copy exchange with other frameworks through DLPack capsules."""
from .. import _C

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(x):
    """Encodes x as a DLPack capsule that shares its memory."""
    return _C.to_dlpack(x)


def from_dlpack(dlpack):
    """A Tensor sharing the memory of a DLPack capsule (or of an object with __dlpack__)."""
    return _C.from_dlpack(dlpack)
