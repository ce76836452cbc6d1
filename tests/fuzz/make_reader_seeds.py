"""Writes the seed corpora of the Atheris targets (tests/fuzz/atheris_readers.py) that read files
other than pickles: tests/fuzz/corpus/{matfile,idx,cifar,text,dlpack}. Small valid files in the
real formats plus a few crafted ones; deterministic (numpy RandomState(0)).

    python tests/fuzz/make_reader_seeds.py
"""
import gzip
import io
import os
import pickle
import struct
import sys
import tarfile
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "oracle"))


def _write(kind, name, data):
    d = os.path.join(OUT, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---------------------------------------------------------------- MATLAB level 5
_MI = {np.dtype(np.int8): 1, np.dtype(np.uint8): 2, np.dtype(np.int16): 3, np.dtype(np.uint16): 4,
       np.dtype(np.int32): 5, np.dtype(np.uint32): 6, np.dtype(np.float32): 7, np.dtype(np.float64): 9}
_CLASS = {np.dtype(np.float64): 6, np.dtype(np.float32): 7, np.dtype(np.int8): 8, np.dtype(np.uint8): 9,
          np.dtype(np.int16): 10, np.dtype(np.uint16): 11, np.dtype(np.int32): 12, np.dtype(np.uint32): 13}


def _element(t, payload):
    pad = (-len(payload)) % 8
    return struct.pack("<II", t, len(payload)) + payload + b"\0" * pad


def _mat_matrix(name, arr):
    arr = np.asarray(arr)
    flags = _element(6, struct.pack("<II", _CLASS[arr.dtype], 0))
    dims = _element(5, struct.pack("<" + "i" * arr.ndim, *arr.shape))
    nm = _element(1, name.encode())
    data = _element(_MI[arr.dtype], arr.tobytes(order="F"))
    return _element(14, flags + dims + nm + data)


def matfile(vars_, compress=False):
    head = b"MATLAB 5.0 MAT-file, written by make_reader_seeds.py".ljust(116, b" ") + b"\0" * 8
    head += struct.pack("<H", 0x0100) + b"IM"
    body = b""
    for k, v in vars_.items():
        m = _mat_matrix(k, v)
        body += _element(15, zlib.compress(m)) if compress else m
    return head + body


# ---------------------------------------------------------------- IDX
def idx(arr):
    arr = np.asarray(arr, dtype=np.uint8)
    magic = 2051 if arr.ndim == 3 else 2049
    return struct.pack(">I", magic) + struct.pack(">" + "I" * arr.ndim, *arr.shape) + arr.tobytes()


def main():
    rs = np.random.RandomState(0)
    # matfile: Flowers' label and setid files, plain and compressed, a big-endian header
    _write("matfile", "labels", matfile({"labels": np.array([[3, 1, 4, 1, 5]], np.float64)}))
    _write("matfile", "setid_compressed", matfile({"trnid": np.array([[1, 2]], np.uint16),
                                                   "tstid": np.array([[3, 4, 5]], np.uint16)}, compress=True))
    _write("matfile", "int32_3d", matfile({"x": rs.randint(-9, 9, (2, 3, 2)).astype(np.int32)}))
    m = bytearray(matfile({"y": np.arange(6, dtype=np.float32).reshape(2, 3)}))
    m[126:128] = b"MI"
    _write("matfile", "wrong_endian_mark", bytes(m))
    # idx: the first byte picks images (odd) or labels (even); raw and gzip bodies
    imgs, labs = rs.randint(0, 256, (3, 4, 5)), rs.randint(0, 10, 3)
    _write("idx", "images", b"\x01" + idx(imgs))
    _write("idx", "labels", b"\x02" + idx(labs))
    _write("idx", "images_gz", b"\x01" + gzip.compress(idx(imgs), mtime=0))
    _write("idx", "labels_gz", b"\x02" + gzip.compress(idx(labs), mtime=0))
    _write("idx", "huge_header", b"\x01" + struct.pack(">IIII", 2051, 2 ** 31, 2 ** 31, 2 ** 31))
    # cifar: a batch (protocols 2 and 4) and a tarball holding one
    batch = {b"batch_label": b"x", b"data": rs.randint(0, 256, (2, 3072)).astype(np.uint8),
             b"labels": [1, 2], b"filenames": [b"a.png", b"b.png"]}
    for p in (2, 4):
        _write("cifar", f"batch_p{p}", pickle.dumps(batch, protocol=p))
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w:gz") as tar:
        raw = pickle.dumps(batch, protocol=2)
        info = tarfile.TarInfo("cifar-10-batches-py/test_batch")
        info.size = len(raw)
        tar.addfile(info, io.BytesIO(raw))
    _write("cifar", "tarball", b.getvalue())
    # text: the first byte picks the dataset (tests/fuzz/atheris_readers.py's _TEXT order)
    import text_archives
    names = ["aclImdb_v1.tar.gz", "simple-examples.tgz", "ml-1m.zip", "housing.data", "wmt14.tgz",
             "wmt16.tar.gz", "conll05st-tests.tar.gz"]
    with tempfile.TemporaryDirectory() as d:
        text_archives.build(d)
        for i, n in enumerate(names):
            with open(os.path.join(d, n), "rb") as f:
                _write("text", n, bytes([i]) + f.read())
    # dlpack: a few headers (the target decodes the bytes with atheris.FuzzedDataProvider)
    for i in range(8):
        _write("dlpack", f"random_{i}", rs.randint(0, 256, 24 + 8 * i).astype(np.uint8).tobytes())
    print("seed corpora written to", OUT)


if __name__ == "__main__":
    main()
