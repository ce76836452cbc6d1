"""Writes the committed seed corpus of the fuzz targets (tests/fuzz/corpus/{pdmodel,pdiparams}):
small real files (the Paddle-Lite conv+bn+relu fixture, models real Paddle saved for the tests),
programs and parameters paddle-c saves, and hand-made hostile cases: truncations, bit flips,
huge counts and lengths, block-parent cycles, out-of-range block references, bad dtype/attribute
codes, duplicate names, invalid UTF-8, absurd dims and LoDs.

    PYTHONPATH=python python tests/fuzz/make_seeds.py     (from the repository root)

Larger real files (../shared/fixtures) are added at run time by run_long.sh, not committed."""
import os
import shutil
import struct
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
DATA = os.path.join(ROOT, "tests", "python", "data", "static_io")


# ---------------------------------------------------------------------------------- a tiny protobuf encoder
def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fv(num, v):  # varint field
    return varint(num << 3) + varint(v)


def fl(num, payload):  # length-delimited field
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def f32(num, x):
    return varint((num << 3) | 5) + struct.pack("<f", x)


def tensor_desc(dtype, dims):
    return fv(1, dtype) + b"".join(fv(2, d) for d in dims)


def var(name, vtype=7, dtype=5, dims=(2,), lod_level=None, persistable=None):
    t = fv(1, vtype)
    if vtype in (7, 13):
        lt = fl(1, tensor_desc(dtype, dims)) + (fv(2, lod_level) if lod_level is not None else b"")
        t += fl(3 if vtype == 7 else 4, lt)
    out = fl(1, name.encode() if isinstance(name, str) else name) + fl(2, t)
    if persistable is not None:
        out += fv(3, int(persistable))
    return out


def attr(name, atype, body=b""):
    return fl(1, name.encode() if isinstance(name, str) else name) + fv(2, atype) + body


def op(optype, inputs=(), outputs=(), attrs=()):
    out = b""
    for slot, args in inputs:
        out += fl(1, fl(1, slot.encode()) + b"".join(fl(2, a.encode()) for a in args))
    for slot, args in outputs:
        out += fl(2, fl(1, slot.encode()) + b"".join(fl(2, a.encode()) for a in args))
    out += fl(3, optype.encode() if isinstance(optype, str) else optype)
    for a in attrs:
        out += fl(4, a)
    return out


def block(idx, parent, vars_=(), ops=()):
    return fv(1, idx) + fv(2, parent) + b"".join(fl(3, v) for v in vars_) + b"".join(fl(4, o) for o in ops)


def program(blocks, version=2003000):
    return b"".join(fl(1, b) for b in blocks) + (fl(4, fv(1, version)) if version is not None else b"")


def crafted_programs():
    relu = op("relu", [("X", ["x"])], [("Out", ["y"])], [attr("use_mkldnn", 6, fv(10, 0))])
    good = program([block(0, -1, [var("x", dims=(-1, 4)), var("y", dims=(-1, 4))], [relu])])
    sub = block(1, 0, [var("z")], [op("scale", [("X", ["x"])], [("Out", ["z"])], [attr("scale", 1, f32(4, 2.0))])])
    cond = op("conditional_block", [("Cond", ["c"]), ("Input", ["x"])], [("Out", ["z"])],
              [attr("sub_block", 8, fv(12, 1)), attr("is_scalar_condition", 6, fv(10, 1))])
    b0 = block(0, -1, [var("x"), var("c", dtype=0, dims=(1,)), var("z")], [cond])
    return {
        "good_relu": good,
        "sub_block": program([b0, sub]),
        "cycle_parents": program([block(0, -1), block(1, 2), block(2, 1)]),
        "self_parent": program([block(0, -1), block(1, 1)]),
        "parent_chain_out_of_range": program([block(0, -1), block(1, 2), block(2, 99)]),
        "block0_with_parent": program([block(0, 0)]),
        "idx_mismatch": program([block(0, -1), block(5, 0)]),
        "block_attr_out_of_range": program([block(0, -1, [], [op("while", [], [], [attr("sub_block", 8, fv(12, 7))])])]),
        "blocks_attr_negative": program([block(0, -1, [], [op("while", [], [], [attr("blocks", 10, fv(14, -3))])])]),
        "no_blocks": fl(4, fv(1, 2003000)),
        "empty": b"",
        "dtype_99": program([block(0, -1, [var("x", dtype=99)])]),
        "vartype_99": program([block(0, -1, [var("x", vtype=99)])]),
        "reader_var": program([block(0, -1, [var("r", vtype=15)])]),
        "ten_dims": program([block(0, -1, [var("x", dims=tuple(range(1, 11)))])]),
        "dims_product_overflow": program([block(0, -1, [var("x", dims=(1 << 40, 1 << 40, 0))])]),
        "dim_minus_5": program([block(0, -1, [var("x", dims=(-5, 2))])]),
        "lod_level_huge": program([block(0, -1, [var("x", lod_level=1 << 30)])]),
        "attr_type_99": program([block(0, -1, [], [op("relu", attrs=[attr("a", 99)])])]),
        "dup_vars": program([block(0, -1, [var("x"), var("x")])]),
        "dup_attrs": program([block(0, -1, [], [op("relu", attrs=[attr("a", 0, fv(3, 1)), attr("a", 0, fv(3, 2))])])]),
        "dup_slots": program([block(0, -1, [], [op("relu", [("X", ["a"]), ("X", ["b"])])])]),
        "bad_utf8_name": program([block(0, -1, [var(b"\xff\xfe")])]),
        "empty_op_type": program([block(0, -1, [], [op("")])]),
        "empty_var_name": program([block(0, -1, [var("")])]),
        "scalar_attr": program([block(0, -1, [], [op("fill", attrs=[attr("v", 16, fl(20, fv(1, 4) + fl(5, b"")))])])]),
        "scalar_no_value": program([block(0, -1, [], [op("fill", attrs=[attr("v", 16)])])]),
        "huge_length": fl(1, b"")[:1] + varint(1 << 40) + b"\0" * 8,
        "huge_repeated_ints": program([block(0, -1, [], [op("x", attrs=[attr("ints", 3, fl(6, b"\x01" * 4000))])])]),
        "int_overflow_ints": program([block(0, -1, [], [op("x", attrs=[attr("ints", 3, fl(6, varint(1 << 62)))])])]),
        "many_empty_attrs": program([block(0, -1, [], [op("x", attrs=[attr("a%d" % i, 2) for i in range(300)])])]),
        "var_attr_bad_type": program([block(0, -1, [var("x") + fl(7, fl(1, b"k") + fv(2, 8))])]),
        "op_version_map": good + fl(5, fl(1, fl(1, b"relu") + fl(2, fv(1, 1)))),
        "op_version_dup": good + fl(5, fl(1, fl(1, b"relu") + fl(2, fv(1, 1))) + fl(1, fl(1, b"relu") + fl(2, fv(1, 2)))),
        "missing_required": fl(1, fv(1, 0)),
        "unknown_fields": good + fv(9, 5) + fl(12, b"junk"),
    }


# ---------------------------------------------------------------------------------- tensor streams
def stream(dtype, dims, data, lod=(), version=0, desc=None):
    out = struct.pack("<I", version) + struct.pack("<Q", len(lod))
    for lv in lod:
        out += struct.pack("<Q", 8 * len(lv)) + b"".join(struct.pack("<Q", x) for x in lv)
    d = tensor_desc(dtype, dims) if desc is None else desc
    return out + struct.pack("<I", 0) + struct.pack("<i", len(d)) + d + data


def crafted_streams():
    f4 = np.arange(6, dtype="float32").tobytes()
    return {
        "plain": stream(5, (2, 3), f4),
        "lod": stream(5, (6, 1), f4, lod=[[0, 2, 6]]),
        "lod2": stream(5, (6, 1), f4, lod=[[0, 1, 2], [0, 4, 6]]),
        "two_tensors": stream(5, (2, 3), f4) + stream(3, (1,), struct.pack("<q", 7)),
        "int8_and_bool": stream(21, (3,), b"\x01\x02\x03") + stream(0, (2,), b"\x00\x01"),
        "fp16": stream(4, (2,), b"\x00\x3c\x00\x40"),
        "zero_dim": stream(5, (), struct.pack("<f", 1.5)),
        "empty_tensor": stream(5, (0, 3), b""),
        "packed_dims": stream(5, (2, 3), f4, desc=fv(1, 5) + fl(2, varint(2) + varint(3))),
        "version_1": stream(5, (2, 3), f4, version=1),
        "lod_count_huge": struct.pack("<IQ", 0, 1 << 60),
        "lod_level_size_huge": struct.pack("<IQQ", 0, 1, 1 << 62),
        "lod_not_multiple": struct.pack("<IQQ", 0, 1, 7) + b"\0" * 7,
        "lod_bad_offsets": stream(5, (6, 1), f4, lod=[[0, 9, 6]]),
        "lod_wrong_end": stream(5, (6, 1), f4, lod=[[0, 2, 5]]),
        "desc_negative": struct.pack("<IQIi", 0, 0, 0, -1),
        "desc_huge": struct.pack("<IQIi", 0, 0, 0, 1 << 30),
        "dims_huge": stream(5, (1 << 40, 1 << 40), b""),
        "dims_huge_with_zero": stream(5, (1 << 40, 1 << 40, 0), b""),
        "dim_negative": stream(5, (-3,), b""),
        "dtype_99": stream(99, (1,), b"\0" * 4),
        "no_dtype": stream(5, (1,), b"", desc=fl(2, varint(1))),
        "ten_dims": stream(5, (1,) * 10, b"\0" * 4),
        "truncated_data": stream(5, (2, 3), f4[:10]),
        "bad_varint": stream(5, (1,), b"", desc=b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"),
    }


def main():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import paddle
    pm = os.path.join(OUT, "pdmodel")
    pp = os.path.join(OUT, "pdiparams")
    for d in (pm, pp):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    def put(d, name, data):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    for k, v in crafted_programs().items():
        put(pm, "crafted_" + k, v)
    for k, v in crafted_streams().items():
        put(pp, "crafted_" + k, v)
    # real files: small fixtures and what real Paddle saved for the tests
    fix = os.path.join(os.path.dirname(ROOT), "shared", "fixtures", "paddle_models", "lite_simple_conv_bn_relu")
    for cand in (fix, os.path.join(ROOT, "..", "..", "shared", "fixtures", "paddle_models", "lite_simple_conv_bn_relu")):
        if os.path.isdir(cand):
            put(pm, "paddle_lite_conv_bn_relu", open(os.path.join(cand, "model.pdmodel"), "rb").read())
            put(pp, "paddle_lite_conv_bn_relu", open(os.path.join(cand, "model.pdiparams"), "rb").read())
            break
    for name in ("mlp", "cnn"):
        put(pm, f"paddle_{name}", open(os.path.join(DATA, name, "inference.pdmodel"), "rb").read())
        put(pp, f"paddle_{name}", open(os.path.join(DATA, name, "inference.pdiparams"), "rb").read())
    put(pp, "paddle_lod_tensor", open(os.path.join(DATA, "lod_tensor.bin"), "rb").read())
    # programs and parameters saved here
    paddle.enable_static()
    paddle.seed(0)
    main_p, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_p, startup):
        x = paddle.static.data("x", [None, 3, 8, 8], "float32")
        h = paddle.nn.functional.relu(paddle.nn.BatchNorm2D(4)(paddle.nn.Conv2D(3, 4, 3, padding=1)(x)))
        y = paddle.nn.Linear(4 * 4 * 4, 2)(paddle.flatten(paddle.nn.functional.max_pool2d(h, 2), 1))
    exe = paddle.static.Executor()
    exe.run(startup)
    prog = paddle.static.serialize_program([x], [y], program=main_p)
    params = paddle.static.serialize_persistables([x], [y], exe, program=main_p)
    put(pm, "ours_cnn", prog)
    put(pm, "ours_training_program", main_p.desc.serialize_to_string())
    put(pp, "ours_cnn", params)
    # truncations and bit flips of a real program and a real parameter file
    rng = np.random.RandomState(0)
    src = open(os.path.join(DATA, "mlp", "inference.pdmodel"), "rb").read()
    for cut in (1, 7, len(src) // 3, len(src) // 2, len(src) - 1):
        put(pm, f"truncated_{cut}", src[:cut])
    for i in range(6):
        b = bytearray(src)
        for _ in range(1 + i):
            k = rng.randint(len(b))
            b[k] ^= 1 << rng.randint(8)
        put(pm, f"bitflip_{i}", bytes(b))
    src = open(os.path.join(DATA, "mlp", "inference.pdiparams"), "rb").read()
    for cut in (3, 13, 40, len(src) - 1):
        put(pp, f"truncated_{cut}", src[:cut])
    for i in range(4):
        b = bytearray(src)
        k = rng.randint(min(len(b), 60))
        b[k] ^= 1 << rng.randint(8)
        put(pp, f"bitflip_{i}", bytes(b))


if __name__ == "__main__":
    main()
