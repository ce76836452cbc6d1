"""Writes the committed seed corpus of paddle.load's pickle reader (tests/fuzz/corpus/pdparams):
files paddle-c saves with protocols 2, 3 and 4 (state dicts, nested containers, a single tensor,
empty tensors, every numeric dtype) and hand-made hostile cases: structured dtypes whose field
offset lies outside the item (1 MiB and 2^44 past the buffer: issue 24's memory read), subarray,
object and void dtypes in arrays and scalars, a dtype object with fields on its own, a mutated
protocol-2 byte-encoding name (unknown and non-text codecs), bytes() with an argument, a code
reference, truncations. Files named hostile_* must be refused with ValueError or
pickle.UnpicklingError; the others must load.

    PYTHONPATH=python python tests/fuzz/make_pickle_seeds.py     (from the repository root)"""
import os
import pickle
import shutil
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus", "pdparams")
sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    from numpy._core.multiarray import _reconstruct, scalar as np_scalar
except ImportError:
    from numpy.core.multiarray import _reconstruct, scalar as np_scalar


class _Dtype:
    """Pickles as numpy.dtype(base) followed by the given __setstate__ state."""

    def __init__(self, base, state):
        self.base, self.state = base, state

    def __reduce__(self):
        return (np.dtype, (self.base, False, True), self.state)


class _Array:
    """Pickles as numpy's _reconstruct(ndarray, (0,), b'b') + __setstate__((1, shape, dtype, False, data))."""

    def __init__(self, shape, dtype, data, cls=np.ndarray):
        self.shape, self.dtype, self.data, self.cls = shape, dtype, data, cls

    def __reduce__(self):
        return (_reconstruct, (self.cls, (0,), b"b"), (1, self.shape, self.dtype, False, self.data))


class _Scalar:
    def __init__(self, dtype, data):
        self.dtype, self.data = dtype, data

    def __reduce__(self):
        return (np_scalar, (self.dtype, self.data))


def _fields(offset, itemsize=8):
    return _Dtype("V8", (3, "|", None, ("a",), {"a": (np.dtype("<f4"), offset)}, itemsize, 1, 16))


def hostile():
    out = {}
    for proto in (2, 4):
        out[f"hostile_field_offset_1MiB_p{proto}"] = pickle.dumps(
            {"w": _Array((4,), _fields(1 << 20), b"\0" * 32)}, protocol=proto)
        out[f"hostile_field_offset_2p44_p{proto}"] = pickle.dumps(
            {"w": _Array((4,), _fields(1 << 44), b"\0" * 32)}, protocol=proto)
    out["hostile_field_offset_nested"] = pickle.dumps(
        {"opt": [("moment", _Array((2,), _fields(4096), b"\0" * 16))]}, protocol=4)
    out["hostile_plain_fields_dtype"] = pickle.dumps(  # a legal-looking structured dtype
        {"w": _Array((2,), np.dtype([("a", "<f4"), ("b", "<i4")]), b"\0" * 16)}, protocol=4)
    out["hostile_subarray_dtype"] = pickle.dumps(
        {"w": _Array((2,), np.dtype(("<f4", (4,))), b"\0" * 32)}, protocol=4)
    out["hostile_void_dtype"] = pickle.dumps({"w": _Array((2,), np.dtype("V8"), b"\0" * 16)}, protocol=4)
    out["hostile_object_dtype"] = pickle.dumps(
        {"w": _Array((2,), np.dtype("O"), [1, 2])}, protocol=4)
    out["hostile_string_dtype"] = pickle.dumps({"w": _Array((2,), np.dtype("S4"), b"\0" * 8)}, protocol=4)
    out["hostile_scalar_fields"] = pickle.dumps({"s": _Scalar(_fields(1 << 20), b"\0" * 8)}, protocol=4)
    out["hostile_scalar_object"] = pickle.dumps({"s": _Scalar(np.dtype("O"), 5)}, protocol=4)
    out["hostile_dtype_alone"] = pickle.dumps({"d": _fields(1 << 20)}, protocol=4)
    out["odd_float_dtype_state"] = pickle.dumps(  # a float32 whose state claims 1 KiB items
        {"w": _Array((2,), _Dtype("f4", (3, "<", None, None, None, 1024, 1, 0)), b"\0" * 8)}, protocol=4)
    good2 = pickle.dumps({"w": np.zeros(3, "float32")}, protocol=2)
    assert b"latin1" in good2
    out["hostile_unknown_encoding_p2"] = good2.replace(b"latin1", b"zatin1")
    out["hostile_bytes_codec_p2"] = good2.replace(b"\x06latin1", b"\x06rot_13").replace(
        b"X\x06\x00\x00\x00latin1", b"X\x06\x00\x00\x00rot_13")
    out["hostile_hex_codec_p2"] = good2.replace(b"\x06\x00\x00\x00latin1", b"\x03\x00\x00\x00hex")
    out["hostile_bytes_with_arg_p2"] = (b"\x80\x02c__builtin__\nbytes\nq\x00J\x00\x00\x00\x40\x85q\x01Rq\x02.")
    out["hostile_code_reference"] = b"\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\x02id\x94\x85\x94R\x94."
    # memo bombs: CPython grows its memo table to twice the slot a PUT names (32 GiB for 2^31)
    out["hostile_memo_long_binput_2p31"] = b"]r\xff\xff\xff\x7f."
    out["hostile_memo_put_text"] = b"(lp2000000000\n."
    full = pickle.dumps({"w": np.arange(64, dtype="float32")}, protocol=4)
    out["hostile_truncated"] = full[: len(full) // 2]
    return out


def good():
    import paddle
    import io
    out = {}
    for proto in (2, 3, 4):
        sd = {"fc.weight": paddle.to_tensor(np.arange(12, dtype="float32").reshape(3, 4)),
              "fc.bias": paddle.zeros([4]), "empty": paddle.zeros([0]),
              "ids": paddle.to_tensor(np.arange(5, dtype="int64"))}
        buf = io.BytesIO()
        paddle.save(sd, buf, protocol=proto)
        out[f"state_dict_p{proto}"] = buf.getvalue()
        buf = io.BytesIO()
        paddle.save({"epoch": 3, "lr": 0.5, "stats": [paddle.ones([2], dtype="float16"), {"m": paddle.ones([1])}],
                     "name": "run"}, buf, protocol=proto)
        out[f"nested_p{proto}"] = buf.getvalue()
    buf = io.BytesIO()
    paddle.save(paddle.to_tensor([[1.5, 2.5]]), buf, protocol=4)
    out["single_tensor_p4"] = buf.getvalue()
    arrs = {str(d): np.arange(6).astype(d) for d in
            ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64",
             "complex64", "complex128")}
    arrs[">f4"] = np.arange(3, dtype=">f4")
    out["numpy_dtypes_p4"] = pickle.dumps(arrs, protocol=4)
    out["numpy_dtypes_p2"] = pickle.dumps(arrs, protocol=2)
    out["numpy_scalars_p4"] = pickle.dumps({"s": np.float32(1.5), "i": np.int64(7)}, protocol=4)
    return out


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    for name, blob in {**good(), **hostile()}.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(blob)
    print(f"wrote {len(os.listdir(OUT))} files to {OUT}")


if __name__ == "__main__":
    main()
