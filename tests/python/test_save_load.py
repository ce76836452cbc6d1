"""paddle.save / paddle.load: the real Paddle files in ../shared/fixtures (pickle protocols 2
and 4, name tables), round trips of state dicts / nested containers / single tensors for every
protocol, atomic writes, and refusal of pickles that reference code or are corrupt."""
import os
import pickle

import numpy as np
import pytest

import paddle

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "paddle_models")
needs_fixtures = pytest.mark.skipif(not os.path.isdir(FIX), reason="../shared/fixtures not present")


@needs_fixtures
def test_loads_real_paddle_files():
    d = paddle.load(os.path.join(FIX, "pdparams_only", "mnist_mlp_pickle2.pdparams"), keep_name_table=True)
    table = d.pop("StructuredToParameterName@@")
    assert list(d) == ["1.weight", "1.bias", "4.weight", "4.bias"]
    assert table["1.weight"] == "linear_0.w_0" and table["4.bias"] == "linear_1.b_0"
    assert d["1.weight"].shape == [784, 512] and d["1.weight"].dtype == paddle.float32
    assert sum(t.size for t in d.values()) == 407050
    assert np.isfinite(d["1.weight"].numpy()).all() and float(d["1.weight"].abs().sum()) > 0
    bn = paddle.load(os.path.join(FIX, "pdparams_only", "tabular_mlp_bn_pickle4.pdparams"))
    assert len(bn) == 24 and "blocks.0.normalization._variance" in bn
    assert (bn["blocks.0.normalization._variance"].numpy() > 0).all()
    lstm = paddle.load(os.path.join(FIX, "pdparams_only", "text_lstm_pickle4.pdparams"), return_numpy=True)
    assert lstm["embedding.weight"].shape == (4411, 128)
    np.testing.assert_array_equal(lstm["lstm.weight_ih_l0"], lstm["lstm.0.cell.weight_ih"])
    clas = paddle.load(os.path.join(FIX, "paddleclas_mbv3_small_3cls", "latest.pdparams"))
    assert len(clas) == 214


def _roundtrip(obj, tmp_path, protocol, **kw):
    p = str(tmp_path / f"x_{protocol}.pdparams")
    paddle.save(obj, p, protocol=protocol)
    return paddle.load(p, **kw)


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_state_dict_roundtrip(tmp_path, protocol):
    lin = paddle.create_parameter([3, 4], "float32")
    sd = {"fc.weight": lin, "fc.bias": paddle.to_tensor([1.0, 2.0, 3.0, 4.0])}
    back = _roundtrip(sd, tmp_path, protocol, keep_name_table=True)
    assert back["StructuredToParameterName@@"]["fc.weight"] == lin.name
    np.testing.assert_array_equal(back["fc.weight"].numpy(), lin.numpy())
    raw = pickle.load(open(tmp_path / f"x_{protocol}.pdparams", "rb"))
    assert isinstance(raw["fc.weight"], np.ndarray)  # Paddle's layout: plain numpy arrays


def test_nested_and_single_tensor(tmp_path):
    obj = {"epoch": 3, "lr": 0.1, "stats": [paddle.to_tensor([1, 2]), {"m": paddle.ones([2])}],
           "name": "run"}
    back = _roundtrip(obj, tmp_path, 4)
    assert back["epoch"] == 3 and back["name"] == "run"
    assert back["stats"][0].tolist() == [1, 2] and back["stats"][1]["m"].tolist() == [1.0, 1.0]
    t = paddle.to_tensor([[1.5, 2.5]])
    t2 = _roundtrip(t, tmp_path, 4)
    assert isinstance(t2, paddle.Tensor) and t2.tolist() == [[1.5, 2.5]] and t2.name == t.name
    assert isinstance(_roundtrip(t, tmp_path, 2, return_numpy=True), np.ndarray)


def test_layer_state_dict_roundtrip(tmp_path):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([2, 3])

    a, b = Net(), Net()
    p = str(tmp_path / "net.pdparams")
    paddle.save(a.state_dict(), p)
    b.set_state_dict(paddle.load(p))
    np.testing.assert_array_equal(a.w.numpy(), b.w.numpy())


def test_refuses_code_and_corrupt_files(tmp_path):
    evil = tmp_path / "evil.pdparams"

    class Boom:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    with open(evil, "wb") as f:
        pickle.dump({"x": Boom()}, f)
    with pytest.raises(pickle.UnpicklingError, match="never executes code"):
        paddle.load(str(evil))
    assert not (tmp_path / "pwned").exists()
    bad = tmp_path / "bad.pdparams"
    good = tmp_path / "good.pdparams"
    paddle.save({"w": paddle.ones([100])}, str(good))
    data = open(good, "rb").read()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a valid Paddle file"):
        paddle.load(str(bad))
    bad.write_bytes(b"\x00garbage" * 10)
    with pytest.raises((ValueError, pickle.UnpicklingError)):
        paddle.load(str(bad))
    with pytest.raises(ValueError, match="does not exist"):
        paddle.load(str(tmp_path / "nope.pdparams"))


def test_save_errors_and_atomic(tmp_path):
    with pytest.raises(ValueError):
        paddle.save({"a": paddle.ones([1])}, str(tmp_path / "x"), protocol=5)
    with pytest.raises(ValueError):
        paddle.save({"a": paddle.ones([1])}, str(tmp_path) + "/")
    p = tmp_path / "sub" / "m.pdparams"
    paddle.save({"a": paddle.ones([2])}, str(p))
    assert p.exists() and not any(n.name.startswith("m.pdparams.tmp") for n in p.parent.iterdir())


# ---- Paddle's binary LoDTensor stream (paddle.save(use_binary_format=True), .pdiparams) ----

def _stream_bytes(arr, vartype):
    """The layout written by hand from framework.proto / MANIFEST.md: u32 0, u64 0 (no LoD),
    u32 0, i32 desc size, TensorDesc {1: data_type, 2: each dim}, raw data."""
    import struct
    desc = bytes([0x08, vartype]) + b"".join(bytes([0x10, d]) for d in arr.shape)
    return struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + arr.tobytes()


def test_binary_format_bytes_and_roundtrip(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    p = str(tmp_path / "t.bin")
    paddle.save(paddle.to_tensor(a), p, use_binary_format=True)
    assert open(p, "rb").read() == _stream_bytes(a, 5)  # VarType.FP32 = 5
    t = paddle.load(p)
    assert isinstance(t, paddle.Tensor) and t.shape == [2, 3]
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(paddle.load(p, return_numpy=True), a)
    # a file written by hand in the documented layout loads (int64 = VarType 3)
    b = np.array([[7, -1], [3, 2 ** 40]], dtype=np.int64)
    (tmp_path / "h.bin").write_bytes(_stream_bytes(b, 3))
    np.testing.assert_array_equal(paddle.load(str(tmp_path / "h.bin")).numpy(), b)
    for dt in ["float64", "int32", "uint8", "bool", "float16", "complex64"]:
        x = paddle.to_tensor((np.arange(12) % 5).reshape(3, 4).astype(dt))
        view = x[:, ::2]  # strided: written contiguously
        paddle.save(view, p, use_binary_format=True)
        y = paddle.load(p)
        assert y.dtype == view.dtype
        np.testing.assert_array_equal(y.numpy(), view.numpy())


def test_binary_format_errors(tmp_path):
    p = str(tmp_path / "t.bin")
    with pytest.raises(NotImplementedError, match="expects a Tensor"):
        paddle.save({"a": paddle.ones([2])}, p, use_binary_format=True)
    with pytest.raises(ValueError, match="not supported"):
        paddle.save(paddle.ones([2]), p, bogus_option=1)
    good = _stream_bytes(np.ones((4, 5), np.float32), 5)
    for n in range(4, len(good)):  # every truncation is an error, never a crash
        (tmp_path / "c.bin").write_bytes(good[:n])
        with pytest.raises(ValueError, match="truncated|corrupt"):
            paddle.load(str(tmp_path / "c.bin"))
    bad = bytearray(good)
    bad[21] = 0x7f  # data_type code that does not exist
    (tmp_path / "d.bin").write_bytes(bytes(bad))
    with pytest.raises((ValueError, NotImplementedError)):
        paddle.load(str(tmp_path / "d.bin"))
    (tmp_path / "two.bin").write_bytes(good + good)
    with pytest.raises(ValueError, match="holds 2 tensors"):
        paddle.load(str(tmp_path / "two.bin"))


@needs_fixtures
@pytest.mark.parametrize("name,count,elems", [
    ("lite_simple_conv_bn_relu/model.pdiparams", 5, 992),
    ("ppocr_mobile_v2_cls/inference.pdiparams", 213, 133628),
    ("ppocrv3_en_det/inference.pdiparams", 288, 592625),
    ("blazeface_facedet/model.pdiparams", 198, 119616),
    ("ppyolo_tiny_320/model.pdiparams", 358, 1024344),
])
def test_real_pdiparams_streams(name, count, elems):
    """Every tensor of the real combined parameter files (counts from MANIFEST.md)."""
    raw = open(os.path.join(FIX, name), "rb").read()
    ts = paddle._C.tensor_stream_load(raw, name)
    assert len(ts) == count and sum(t.size for t in ts) == elems
    assert all(t.dtype == paddle.float32 and np.isfinite(t.numpy()).all() for t in ts)
    # writing them back reproduces the file byte for byte
    assert paddle._C.tensor_stream_dump(ts) == raw


@needs_fixtures
def test_pdiparams_matches_pdparams_checkpoint():
    """MANIFEST: 212 of latest.pdparams' tensors are bit-identical to the same-named ones in
    inference.pdiparams (stored sorted by parameter name)."""
    d = paddle.load(os.path.join(FIX, "paddleclas_mbv3_small_3cls", "latest.pdparams"), keep_name_table=True)
    table = d.pop("StructuredToParameterName@@")
    raw = open(os.path.join(FIX, "paddleclas_mbv3_small_3cls", "inference.pdiparams"), "rb").read()
    ts = paddle._C.tensor_stream_load(raw)
    names = sorted(table.values())
    assert len(names) == len(ts) == 214
    by_name = dict(zip(names, ts))
    same = sum(1 for k, v in d.items() if by_name[table[k]].shape == v.shape
               and np.array_equal(by_name[table[k]].numpy(), v.numpy()))
    assert same == 212


# ---- hostile pickles (issue 24): the seed corpus of tests/fuzz/corpus/pdparams ----
CORPUS = os.path.join(os.path.dirname(__file__), "..", "fuzz", "corpus", "pdparams")


def _corpus():
    return sorted(os.listdir(CORPUS))


def test_corpus_is_current():
    names = _corpus()
    assert sum(n.startswith("hostile_") for n in names) >= 15 and len(names) >= 25


@pytest.mark.parametrize("name", [n for n in _corpus() if n.startswith("hostile_")])
@pytest.mark.parametrize("return_numpy", [True, False])
def test_hostile_pickles_are_refused(name, return_numpy):
    """Structured dtypes with field offsets outside the item (a read 1 MiB / 2^44 bytes past the
    buffer), subarray/object/void/string dtypes, dtype objects with fields, mutated protocol-2
    codec names, code references, truncations: refused in both load modes."""
    with pytest.raises((ValueError, pickle.UnpicklingError)):
        paddle.load(os.path.join(CORPUS, name), return_numpy=return_numpy)


def test_hostile_dtypes_refused_by_every_pickle_reader(tmp_path):
    import shutil
    src = os.path.join(CORPUS, "hostile_field_offset_1MiB_p4")
    with pytest.raises(ValueError, match="plain numeric dtypes"):
        paddle.load(src, return_numpy=True)
    # static.load / load_program_state read .pdparams with the same unpickler
    shutil.copy(src, tmp_path / "m.pdparams")
    with pytest.raises(ValueError, match="plain numeric dtypes"):
        paddle.static.load_program_state(str(tmp_path / "m"))
    # a CIFAR batch's numpy _frombuffer with a structured dtype
    from paddle.vision.datasets import cifar

    class FB:
        def __reduce__(self):
            try:
                from numpy._core.numeric import _frombuffer
            except ImportError:
                from numpy.core.numeric import _frombuffer
            return (_frombuffer, (b"\0" * 16, np.dtype([("a", "<f4"), ("b", "<f4")]), (2,), "C"))

    import io
    with pytest.raises(ValueError):
        cifar.load_batch(io.BytesIO(pickle.dumps({b"data": FB()}, protocol=2)))


@pytest.mark.parametrize("name", [n for n in _corpus() if not n.startswith("hostile_")])
def test_benign_corpus_files_load_as_numpy_reads_them(name):
    """Every non-hostile seed loads, and its arrays equal what plain pickle + numpy read (the
    independent reference; numpy's dtypes canonical)."""
    path = os.path.join(CORPUS, name)
    ours = paddle.load(path, return_numpy=True, keep_name_table=True)
    ref = pickle.load(open(path, "rb"), encoding="latin1")

    def walk(a, b):
        if isinstance(b, np.ndarray):
            assert type(a) is np.ndarray and a.dtype == b.dtype and a.dtype.fields is None
            np.testing.assert_array_equal(a, b)
        elif isinstance(b, tuple) and len(b) == 2 and isinstance(b[1], np.ndarray) and not isinstance(a, tuple):
            walk(a, b[1])
        elif isinstance(b, dict):
            assert sorted(a) == sorted(b)
            for k in b:
                walk(a[k], b[k])
        elif isinstance(b, (list, tuple)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                walk(x, y)
        else:
            assert a == b
    walk(ours, ref)


def test_odd_dtype_state_is_rebuilt_canonical():
    d = paddle.load(os.path.join(CORPUS, "odd_float_dtype_state"), return_numpy=True)
    assert d["w"].dtype == np.float32 and d["w"].dtype.itemsize == 4 and d["w"].tolist() == [0.0, 0.0]


def test_mutated_pickles_raise_only_value_errors():
    """3,000 mutations of the corpus (bit flips, truncations, insertions, splices): paddle.load
    either loads plain numeric arrays or raises ValueError / pickle.UnpicklingError."""
    seeds = [open(os.path.join(CORPUS, n), "rb").read() for n in _corpus()]
    rng = np.random.RandomState(2424)
    loaded = 0
    import io
    for i in range(3000):
        b = bytearray(seeds[rng.randint(len(seeds))])
        kind = i % 5
        if kind == 0:
            for _ in range(1 + rng.randint(4)):
                if b:
                    b[rng.randint(len(b))] ^= 1 << rng.randint(8)
        elif kind == 1:
            b = b[:rng.randint(len(b) + 1)]
        elif kind == 2:
            k = rng.randint(len(b) + 1)
            b[k:k] = bytes(rng.randint(0, 256, rng.randint(1, 8)).astype(np.uint8))
        elif kind == 3:
            o = seeds[rng.randint(len(seeds))]
            b = b[:rng.randint(len(b) + 1)] + o[rng.randint(len(o) + 1):]
        else:
            if b:
                b[rng.randint(len(b))] = rng.randint(256)
        try:
            r = paddle.load(io.BytesIO(bytes(b)), return_numpy=bool(i % 2))
        except (ValueError, pickle.UnpicklingError):
            continue
        loaded += 1
        stack = [r]
        while stack:
            x = stack.pop()
            if isinstance(x, np.ndarray):
                assert type(x) is np.ndarray and x.dtype.kind in "biufc" and x.dtype.fields is None
                x.sum()  # touches every element
            elif isinstance(x, dict):
                stack.extend(x.values())
            elif isinstance(x, (list, tuple)):
                stack.extend(x)
    assert loaded > 20


def test_protocol2_empty_tensor_roundtrip(tmp_path):
    """Paddle writes b'' as __builtin__.bytes() under protocol 2; real Paddle round-trips it."""
    p = str(tmp_path / "e.pdparams")
    paddle.save({"w": paddle.zeros([0]), "v": paddle.zeros([2, 0], dtype="int64")}, p, protocol=2)
    back = paddle.load(p)
    assert back["w"].shape == [0] and back["v"].shape == [2, 0] and back["v"].dtype == paddle.int64
