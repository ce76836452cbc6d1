#!/usr/bin/env python3
"""Atheris (coverage-guided, libFuzzer underneath) targets of Paddle-C's Python readers of
untrusted bytes (issue 24). Each target feeds the fuzzer's bytes to one reader and fails on
anything but the documented refusal: ValueError (malformed file; FileNotFoundError never, the file
exists) or pickle.UnpicklingError (code or a forbidden type in a pickle). A crash of the process,
a hang (-timeout) or another exception type is a finding.

    python tests/fuzz/atheris_readers.py TARGET [libFuzzer flags] [corpus dirs]
    python tests/fuzz/atheris_readers.py --list

tests/python/test_fuzz_atheris.py runs each target for a few seconds from its seed corpus
(tests/fuzz/corpus/<corpus>); tests/fuzz/run_long.sh runs them for hours.
"""
import io
import os
import pickle
import struct
import sys
import tempfile

import atheris

import numpy as np
import paddle
from paddle.framework import io as pio
from paddle.vision.datasets import _matfile, cifar, mnist
from paddle.text import datasets as tds
from paddle.text.datasets import conll05, imdb, imikolov, movielens, uci_housing, wmt14, wmt16


def _instrument(*mods):
    """Coverage of the readers' own code only (instrument_imports over `import paddle` would
    instrument ~300 modules: a minute of start-up on a loaded 2-core machine)."""
    import inspect
    for m in mods:
        for obj in list(vars(m).values()):
            if inspect.isfunction(obj) and obj.__module__ == m.__name__:
                atheris.instrument_func(obj)
            elif inspect.isclass(obj) and obj.__module__ == m.__name__:
                for f in vars(obj).values():
                    if inspect.isfunction(f):
                        atheris.instrument_func(f)


_instrument(pio, _matfile, cifar, mnist, conll05, imdb, imikolov, movielens, uci_housing, wmt14, wmt16)

REFUSALS = (ValueError, pickle.UnpicklingError)
_TMP = tempfile.mkdtemp(prefix="atheris_", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def _file(data, name):
    p = os.path.join(_TMP, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def _refused(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except REFUSALS:
        pass


@atheris.instrument_func
def t_pickle(data):
    """paddle.load of a .pdparams / .pdopt / tensor (pickle protocols 2-4, our binary form)."""
    _refused(paddle.load, io.BytesIO(data))
    _refused(paddle.load, io.BytesIO(data), return_numpy=True)


@atheris.instrument_func
def t_matfile(data):
    """The MATLAB level-5 reader used for Flowers' label/setid files without scipy."""
    _refused(_matfile.loadmat, _file(data, "f.mat"))


@atheris.instrument_func
def t_idx(data):
    """MNIST / FashionMNIST IDX files, raw and gzipped (first byte picks images or labels)."""
    kind = "images" if data[:1] in (b"", b"\0") or data[0] & 1 else "labels"
    _refused(mnist._read_idx, _file(data[1:], "f.idx"), kind)
    _refused(mnist._read_idx, _file(data[1:], "f.idx.gz"), kind)


@atheris.instrument_func
def t_cifar(data):
    """A CIFAR batch (pickle with numpy arrays) and a CIFAR tarball."""
    _refused(cifar.load_batch, io.BytesIO(data))
    _refused(paddle.vision.datasets.Cifar10, data_file=_file(data, "c.tar.gz"), mode="test")


def _text_setup():
    """Conll05st's dictionaries (from tools/oracle/text_archives.py) and a private DATA_HOME
    (WMT16 writes its dictionaries there)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "oracle"))
    import text_archives
    from paddle.text.datasets import _common
    d = os.path.join(_TMP, "text_archives")
    text_archives.build(d)
    _common.DATA_HOME = os.path.join(_TMP, "home")
    return lambda n: os.path.join(d, n)


_J = None


def _conll(p):
    return tds.Conll05st(p, _J("wordDict.txt"), _J("verbDict.txt"), _J("targetDict.txt"), _J("emb"))


_TEXT = [  # the first byte of a text seed picks one (tests/fuzz/make_reader_seeds.py, same order)
    ("Imdb", lambda p: tds.Imdb(p, cutoff=0)),
    ("Imikolov", lambda p: tds.Imikolov(p, "NGRAM", 2, min_word_freq=0)),
    ("Movielens", lambda p: tds.Movielens(p)),
    ("UCIHousing", lambda p: tds.UCIHousing(p)),
    ("WMT14", lambda p: tds.WMT14(p, dict_size=5)),
    ("WMT16", lambda p: tds.WMT16(p, src_dict_size=5, trg_dict_size=5)),
    ("Conll05st", _conll),
]


def _read_some(make, path):
    ds = make(path)
    for i in range(min(len(ds), 3)):
        ds[i]


@atheris.instrument_func
def t_text(data):
    """paddle.text.datasets from a local archive (first byte picks the dataset)."""
    if not data:
        return
    global _J
    if _J is None:
        _J = _text_setup()
    _name, make = _TEXT[data[0] % len(_TEXT)]
    _refused(_read_some, make, _file(data[1:], "t.archive"))


_DL_CODES = (0, 1, 2, 4, 5, 6, 3, 7, 255)


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlpack_ctypes  # noqa: E402


@atheris.instrument_func
def t_dlpack(data):
    """from_dlpack of a capsule whose DLTensor header comes from the fuzzer (device, dtype, ndim,
    shape, strides, byte_offset) over a real 4 KiB buffer. Headers whose extent would lie outside
    the buffer are not checkable by a consumer (DLPack trusts its producer) and are not made:
    the target makes headers that fit, or ones a consumer can reject (negative sizes, overflow,
    bad dtype/device/ndim, NULL pointers)."""
    import ctypes
    fdp = atheris.FuzzedDataProvider(data)
    buf = (ctypes.c_uint8 * 4096)()
    ndim = fdp.ConsumeIntInRange(-2, 12)
    nd = max(ndim, 0)
    shape = (ctypes.c_int64 * max(nd, 1))(*[fdp.ConsumeIntInRange(-3, 8) if fdp.ConsumeBool()
                                           else fdp.ConsumeInt(8) for _ in range(nd)])
    use_strides = fdp.ConsumeBool()
    strides = (ctypes.c_int64 * max(nd, 1))(*[fdp.ConsumeIntInRange(-64, 64) if fdp.ConsumeBool()
                                             else fdp.ConsumeInt(8) for _ in range(nd)])
    code = _DL_CODES[fdp.ConsumeIntInRange(0, len(_DL_CODES) - 1)]
    bits = fdp.ConsumeIntInRange(0, 255)
    lanes = fdp.ConsumeIntInRange(0, 3)
    device = fdp.ConsumeIntInRange(0, 3)
    offset = fdp.ConsumeIntInRange(0, 64) if fdp.ConsumeBool() else fdp.ConsumeInt(8) & (2 ** 64 - 1)
    null_shape = nd > 0 and fdp.ConsumeProbability() < 0.05
    null_data = fdp.ConsumeProbability() < 0.05
    # Headers a consumer cannot reject (every size, stride and offset in int64 range, data and
    # shape given) but whose extent lies outside the buffer are not made: DLPack trusts its producer
    # there. Everything else is made: accepted or refused (ValueError), never a read outside buf.
    if not null_shape and not null_data and all(shape[i] >= 0 for i in range(nd)):
        isz = max(bits // 8, 1)
        big = 2 ** 63
        dims = [shape[i] for i in range(nd)]
        if use_strides:
            st = [strides[i] for i in range(nd)]
        else:
            st, acc = [0] * nd, 1
            for i in reversed(range(nd)):
                st[i], acc = acc, acc * dims[i]
        numel = int(np.prod(dims, dtype=object)) if nd else 1
        if numel == 0:
            lo = hi = 0
        else:
            ext = [(dims[i] - 1) * st[i] for i in range(nd)]
            lo, hi = sum(e for e in ext if e < 0), sum(e for e in ext if e > 0)
            if any(abs(e) >= big for e in ext):
                lo = -big  # rejectable
        inside = numel < big and all(abs(x) < big for x in st) and abs(lo) * isz < big and hi * isz < big \
            and (hi - lo + 1) * isz < big and offset < big
        if inside and not (numel == 0 or 0 <= offset + lo * isz and offset + (hi + 1) * isz <= 4096):
            return
    m = dlpack_ctypes.DLManaged()
    m.dl_tensor.data = None if null_data else ctypes.addressof(buf)
    m.dl_tensor.device.device_type = device
    m.dl_tensor.ndim = ndim
    m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes = code, bits, lanes
    m.dl_tensor.shape = None if null_shape else ctypes.addressof(shape)
    m.dl_tensor.strides = ctypes.addressof(strides) if use_strides else None
    m.dl_tensor.byte_offset = offset
    cap = dlpack_ctypes.capsule(m)
    try:
        t = paddle.utils.dlpack.from_dlpack(cap)
    except (ValueError, TypeError, OverflowError):
        return
    n = int(np.prod([shape[i] for i in range(nd)], dtype=object))
    if n == 0:  # nothing to read (numpy itself refuses shapes like [0, 2^40, 2^40])
        assert t.size == 0, f"from_dlpack: {t.size} elements, the header says 0"
        del t
        return
    if n * max(bits // 8, 1) > 1 << 26:  # a stride-0 view of 4 KiB that repeats past 64 MiB:
        assert t.size == n, f"from_dlpack: {t.size} elements, the header says {n}"  # no full copy
        del t
        return
    a = np.array(t.numpy(), copy=True)  # reads every element through the header: ASan sees a read outside buf
    del t  # the storage (whose deleter reads m) goes before m
    assert a.size == n, f"from_dlpack: {a.size} elements, the header says {n}"


TARGETS = {"pickle": (t_pickle, "pdparams"), "matfile": (t_matfile, "matfile"), "idx": (t_idx, "idx"),
           "cifar": (t_cifar, "cifar"), "text": (t_text, "text"), "dlpack": (t_dlpack, "dlpack")}


def main(argv):
    if len(argv) < 2 or argv[1] not in TARGETS and argv[1] != "--list":
        sys.exit(f"usage: {argv[0]} TARGET [libFuzzer flags] [corpus dirs]; TARGET one of {sorted(TARGETS)}")
    if argv[1] == "--list":
        for k, (fn, corpus) in TARGETS.items():
            print(k, corpus, fn.__doc__.split("\n")[0])
        return
    fn = TARGETS[argv[1]][0]
    atheris.Setup([argv[0]] + argv[2:], fn)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
