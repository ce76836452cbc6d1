"""A minimal reader for MATLAB level-5 .mat files holding plain numeric matrices (what the
Flowers labels/setid files contain), used when scipy is not installed. Raises ValueError for
anything else (cells, structs, sparse, v7.3/HDF5 files)."""
import struct
import zlib

import numpy as np

_TYPES = {1: np.int8, 2: np.uint8, 3: np.int16, 4: np.uint16, 5: np.int32, 6: np.uint32,
          7: np.float32, 9: np.float64, 12: np.int64, 13: np.uint64}


def _elements(buf, end):
    pos = 0
    while pos + 8 <= len(buf):
        t, n = struct.unpack_from(end + 'II', buf, pos)
        if t >> 16:  # small data element: 4-byte tag, data in the next 4 bytes
            n, t = t >> 16, t & 0xFFFF
            yield t, buf[pos + 4:pos + 4 + n]
            pos += 8
            continue
        if pos + 8 + n > len(buf):
            raise ValueError("mat file: truncated data element")
        yield t, buf[pos + 8:pos + 8 + n]
        pos += 8 + n + ((-n) % 8 if t != 15 else 0)


def _matrix(data, end):
    parts = list(_elements(data, end))
    if len(parts) < 4:
        raise ValueError("mat file: malformed matrix")
    cls = struct.unpack_from(end + 'I', parts[0][1], 0)[0] & 0xFF
    if cls not in range(6, 16):
        raise ValueError(f"mat file: only numeric matrices are supported (class {cls})")
    dims = np.frombuffer(parts[1][1], dtype=np.dtype(np.int32).newbyteorder(end))
    name = parts[2][1].decode('latin1')
    t, raw = parts[3]
    if t not in _TYPES:
        raise ValueError(f"mat file: unsupported data type {t}")
    arr = np.frombuffer(raw, dtype=np.dtype(_TYPES[t]).newbyteorder(end))
    return name, arr.reshape(tuple(int(d) for d in dims), order='F')


def loadmat(path):
    """{name: ndarray} of a level-5 .mat file; ValueError for any malformed file."""
    try:
        return _loadmat(path)
    except (struct.error, IndexError, OverflowError, MemoryError, UnicodeError, zlib.error) as e:
        raise ValueError(f"{path!r} is not a valid MATLAB 5 .mat file ({type(e).__name__}: {e})") from None


def _loadmat(path):
    with open(path, 'rb') as f:
        buf = f.read()
    if len(buf) < 128:
        raise ValueError(f"{path!r} is not a MATLAB 5 .mat file")
    end = '<' if buf[126:128] == b'IM' else '>' if buf[126:128] == b'MI' else None
    if end is None:
        raise ValueError(f"{path!r} is not a MATLAB 5 .mat file (v7.3 HDF5 files are not supported)")
    out = {}
    for t, data in _elements(buf[128:], end):
        if t == 15:
            try:
                data = zlib.decompress(data)
            except zlib.error as e:
                raise ValueError(f"{path!r}: corrupt compressed element: {e}") from e
            for t2, d2 in _elements(data, end):
                if t2 == 14:
                    k, v = _matrix(d2, end)
                    out[k] = v
        elif t == 14:
            k, v = _matrix(data, end)
            out[k] = v
    return out
