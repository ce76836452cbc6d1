"""Fuzzing of the Python readers of untrusted bytes as part of the suite (issue 24): each Atheris
target of tests/fuzz/atheris_readers.py runs for a few seconds from its committed seed corpus
(any finding fails: a crash, a hang, an exception other than the documented refusal), and the
cases the fuzzers found are pinned here one by one."""
import ctypes
import io
import os
import pickle
import subprocess
import sys
import tarfile
import zipfile

import numpy as np
import pytest

import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.join(HERE, "..", "fuzz")
CORPUS = os.path.join(FUZZ, "corpus")
sys.path.insert(0, FUZZ)
import dlpack_ctypes  # noqa: E402

TARGETS = {"pickle": "pdparams", "matfile": "matfile", "idx": "idx", "cifar": "cifar", "text": "text",
           "dlpack": "dlpack"}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_atheris_target_runs_clean(target, tmp_path):
    pytest.importorskip("atheris", reason="scripts/deps.sh installs atheris")
    work = tmp_path / "corpus"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(paddle.__file__))
    secs = os.environ.get("PADDLE_C_FUZZ_SECONDS", "2")
    # through a shell that forks (not execs) the target: libFuzzer's rss figure is the process's
    # peak RSS, which Linux carries across fork + exec, so a target started straight from this
    # worker (grown to gigabytes by the test files before) starts "using" the worker's RSS and
    # trips -rss_limit_mb at once; the shell's own fork starts from the shell's few MB
    r = subprocess.run(["sh", "-c", '"$@"; exit $?', "sh", sys.executable, os.path.join(FUZZ, "atheris_readers.py"), target,
                        f"-max_total_time={secs}", "-timeout=30",
                        "-rss_limit_mb=" + os.environ.get("PADDLE_C_FUZZ_RSS_MB", "3072"), "-max_len=65536",
                        f"-artifact_prefix={tmp_path}/", str(work), os.path.join(CORPUS, TARGETS[target])],
                       capture_output=True, text=True, timeout=300, env=env)
    tail = "\n".join((r.stdout + r.stderr).splitlines()[-40:])
    assert r.returncode == 0, f"atheris target {target} found something:\n{tail}"
    assert "DONE" in r.stderr or "Done" in r.stderr, tail


# ---------------------------------------------------------------- pinned findings
def test_memo_bomb_refused_without_allocating():
    """CPython's unpickler grows its memo table to twice the slot a PUT names: 6 bytes asked it for
    32 GiB. The slot is checked against the stores before it."""
    for raw in (b"]r\xff\xff\xff\x7f.", b"(lp2000000000\n."):
        with pytest.raises(ValueError, match="memo index"):
            paddle.load(io.BytesIO(raw))
    # ordinary memo use (shared objects) still loads
    shared = [1, 2]
    got = paddle.load(io.BytesIO(pickle.dumps({"a": shared, "b": shared}, protocol=2)))
    assert got == {"a": [1, 2], "b": [1, 2]}


def test_malformed_dtype_state_never_reaches_numpy():
    """A mutated dtype state (a str where numpy expects the field names) crashed numpy's
    dtype.__setstate__; states are now checked as data before a dtype is made."""
    good = pickle.dumps({"w": np.arange(4, dtype=">f4")}, protocol=2)
    assert paddle.load(io.BytesIO(good), return_numpy=True)["w"].tolist() == [0, 1, 2, 3]

    class _D:
        def __reduce__(self):
            return (np.dtype, ("V8", False, True), (3, "|", None, "a", -1, 0))

    raw = pickle.dumps({"d": _D()}, protocol=2)
    with pytest.raises(ValueError, match="plain numeric"):
        paddle.load(io.BytesIO(raw))


def test_matfile_short_element_is_value_error(tmp_path):
    from paddle.vision.datasets import _matfile
    p = tmp_path / "x.mat"
    p.write_bytes(open(os.path.join(CORPUS, "matfile", "finding_short_flags_struct_error"), "rb").read())
    with pytest.raises(ValueError, match="MATLAB"):
        _matfile.loadmat(str(p))


def _zip_bytes(version_bump=False, encrypted=False):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation\n")
    raw = bytearray(b.getvalue())
    if version_bump:  # "version needed to extract" of the central directory entry: 10.1
        cd = raw.rfind(b"PK\x01\x02")
        raw[cd + 6:cd + 8] = (101).to_bytes(2, "little")
    if encrypted:  # general purpose flag bit 0 of the central directory entry
        cd = raw.rfind(b"PK\x01\x02")
        raw[cd + 8] |= 1
    return bytes(raw)


def test_text_datasets_malformed_archives_are_value_errors(tmp_path):
    from paddle.text import Imdb, Movielens, WMT14
    p = tmp_path / "a"
    p.write_bytes(b"not an archive at all")
    for make in (lambda: Imdb(str(p), cutoff=0), lambda: Movielens(str(p)), lambda: WMT14(str(p), dict_size=5)):
        with pytest.raises(ValueError, match="is not a valid"):
            make()
    p.write_bytes(_zip_bytes(version_bump=True))
    with pytest.raises(ValueError, match="NotImplementedError"):
        Movielens(str(p))
    p.write_bytes(_zip_bytes(encrypted=True))  # zipfile raises RuntimeError("... encrypted ...")
    with pytest.raises(ValueError, match="encrypted"):
        Movielens(str(p))
    for name in ("finding_zip_bad_crc", "finding_zip_version", "finding_zip_encrypted"):
        raw = open(os.path.join(CORPUS, "text", name), "rb").read()
        p.write_bytes(raw[1:])  # the first byte picks the dataset: 2 = Movielens
        assert raw[0] % 7 == 2
        with pytest.raises(ValueError):
            Movielens(str(p))
    missing = tmp_path / "missing.tar.gz"
    with pytest.raises(FileNotFoundError):
        Imdb(str(missing))


def test_cifar_memo_bomb_and_protocol5_batches(tmp_path):
    from paddle.vision.datasets import cifar
    with pytest.raises(ValueError, match="memo index"):
        cifar.load_batch(io.BytesIO(b"]r\xff\xff\xff\x7f."))
    batch = {b"data": np.arange(6, dtype=np.uint8).reshape(2, 3), b"labels": [1, 2]}
    got = cifar.load_batch(io.BytesIO(pickle.dumps(batch, protocol=5)))
    assert got[b"data"].tolist() == [[0, 1, 2], [3, 4, 5]]


# ---------------------------------------------------------------- DLPack headers
def _header(buf, shape, strides=None, code=2, bits=32, device=1, offset=0, null_data=False, null_shape=False):
    m = dlpack_ctypes.DLManaged()
    m.dl_tensor.data = None if null_data else ctypes.addressof(buf)
    m.dl_tensor.device.device_type = device
    m.dl_tensor.ndim = len(shape)
    m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes = code, bits, 1
    sh = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    st = (ctypes.c_int64 * max(len(shape), 1))(*(strides or [0]))
    m.dl_tensor.shape = None if null_shape else ctypes.addressof(sh)
    m.dl_tensor.strides = ctypes.addressof(st) if strides is not None else None
    m.dl_tensor.byte_offset = offset
    return m, sh, st


@pytest.mark.parametrize("kw,msg", [
    (dict(shape=[2, -1]), "negative"),
    (dict(shape=[2, 3], null_shape=True), "shape pointer is NULL"),
    (dict(shape=[2, 3], null_data=True), "data pointer is NULL"),
    (dict(shape=[2 ** 40, 2 ** 40]), "overflows int64"),
    (dict(shape=[3, 3], strides=[2 ** 62, 1]), "overflow"),
    # found by the dlpack target in CI: a stride-0 view of 2^60 complex64 (the element count fits
    # int64, its size in bytes does not; numpy() could never copy it)
    (dict(shape=[1210590772666787777], strides=[0], code=5, bits=64), "size in bytes overflows"),
    (dict(shape=[4], offset=2), "not aligned"),
    (dict(shape=[4], offset=2 ** 63 + 8), "overflows int64"),
    (dict(shape=[4], device=2), "only CPU"),
    (dict(shape=[4], bits=24), "unsupported DLPack data type"),
    (dict(shape=[1] * 40), "too many dimensions"),
])
def test_from_dlpack_refuses_what_a_consumer_can_check(kw, msg):
    buf = (ctypes.c_float * 64)()
    m, sh, st = _header(buf, **kw)
    with pytest.raises(ValueError, match=msg):
        paddle.utils.dlpack.from_dlpack(dlpack_ctypes.capsule(m))


def test_from_dlpack_strided_and_empty_headers_read_right():
    a = np.arange(64, dtype=np.float32)
    buf = (ctypes.c_float * 64).from_buffer(a)
    # a [3, 4] view with strides (8, -2) starting at element 6 + offset 4 elements: negative strides
    m, sh, st = _header(buf, [3, 4], strides=[8, -2], offset=4 * 10)
    t = paddle.utils.dlpack.from_dlpack(dlpack_ctypes.capsule(m))
    want = np.lib.stride_tricks.as_strided(a[10:], shape=(3, 4), strides=(32, -8))
    np.testing.assert_array_equal(t.numpy(), want)
    del t
    # an empty tensor may have NULL data and huge other dims
    m2, sh2, st2 = _header(buf, [0, 2 ** 40, 2 ** 40], null_data=True)
    t2 = paddle.utils.dlpack.from_dlpack(dlpack_ctypes.capsule(m2))
    assert t2.shape == [0, 2 ** 40, 2 ** 40] and t2.size == 0
    del t2
    m3, sh3, st3 = _header(buf, [0, 5], null_data=True)
    t3 = paddle.utils.dlpack.from_dlpack(dlpack_ctypes.capsule(m3))
    assert t3.numpy().shape == (0, 5)
    del t3
