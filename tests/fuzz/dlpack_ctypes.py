"""The DLPack ABI (0.x) in ctypes: capsules with any header a producer could send (used by the
Atheris target tests/fuzz/atheris_readers.py and by tests/python/test_fuzz_readers.py)."""
import ctypes as c


class DLDevice(c.Structure):
    _fields_ = [("device_type", c.c_int32), ("device_id", c.c_int32)]


class DLDataType(c.Structure):
    _fields_ = [("code", c.c_uint8), ("bits", c.c_uint8), ("lanes", c.c_uint16)]


class DLTensor(c.Structure):
    _fields_ = [("data", c.c_void_p), ("device", DLDevice), ("ndim", c.c_int32), ("dtype", DLDataType),
                ("shape", c.c_void_p), ("strides", c.c_void_p), ("byte_offset", c.c_uint64)]


class DLManaged(c.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c.c_void_p), ("deleter", c.c_void_p)]


_new = c.pythonapi.PyCapsule_New
_new.restype = c.py_object
_new.argtypes = [c.c_void_p, c.c_char_p, c.c_void_p]
_NAME = b"dltensor"  # lives as long as the module: a capsule keeps a pointer to its name


def capsule(m):
    """A 'dltensor' capsule over the DLManaged m (no destructor: the caller keeps m alive longer
    than every tensor made from it)."""
    return _new(c.addressof(m), _NAME, None)
