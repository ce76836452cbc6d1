"""What real PaddlePaddle reads from each .pdmodel fixture (../shared/fixtures/paddle_models, also
programs_only/): per block its parent, variables (type, dtype code, dims, lod_level, flags) and
ops (type, slots, attribute types and values), as Paddle 2.6.2's Program.parse_from_string and
its descriptor API return them. Paddle 2.6 hides an op's "extra" attributes (use_cudnn,
use_mkldnn, fuse_* ...: runtime-only, kept aside and written back) from that API; for each op type
the names it hid are listed under "hidden_attrs" (taken from the raw protobuf), and the op records
leave them out. Values are canonical JSON (sorted keys); to keep the committed
file small each var and op is stored as the sha1 of its canonical JSON, except for the small
lite_simple_conv_bn_relu model, stored in full. tests/python/test_static_io.py rebuilds the same
canonical JSON from paddle-c's reading and compares. The ProgramDesc version and op_version_map
come from the raw protobuf (Paddle overwrites the version when it parses).

Run with the oracle (never imported by the project), from an empty directory:
    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/static_fixture_summary.py \\
        /path/to/shared/fixtures/paddle_models > /path/to/repo/tests/python/data/static_fixture_summary.json
"""
import glob
import hashlib
import json
import os
import sys

FULL = {"lite_simple_conv_bn_relu/model.pdmodel"}
TENSOR_TYPES = (7, 8, 13)  # LOD_TENSOR, SELECTED_ROWS, LOD_TENSOR_ARRAY


def canon(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def digest(obj):
    return hashlib.sha1(canon(obj).encode()).hexdigest()[:12]


def var_record(d):
    t = int(d.type())
    rec = {"name": d.name(), "type": t, "persistable": bool(d.persistable()),
           "need_check_feed": bool(d.need_check_feed()), "is_parameter": bool(d.is_parameter()),
           "stop_gradient": bool(d.stop_gradient()), "dtype": None, "shape": None, "lod_level": None}
    if t in TENSOR_TYPES:
        rec["dtype"] = int(d.dtype())
        rec["shape"] = [int(s) for s in d.shape()]
        if t != 8:
            rec["lod_level"] = int(d.lod_level())
    return rec


def attr_value(od, name, t):
    if t == 8:   # BLOCK
        return int(od._block_attr_id(name))
    if t == 10:  # BLOCKS
        return [int(i) for i in od._blocks_attr_ids(name)]
    v = od.attr(name)
    if t in (4, 12):  # FLOATS, FLOAT64S
        return [float(x) for x in v]
    if t in (1, 15):
        return float(v)
    if t == 6:
        return bool(v)
    if t == 7:
        return [bool(x) for x in v]
    if t in (13,):   # VAR
        return v if isinstance(v, str) else v.name()
    if t in (14,):
        return [x if isinstance(x, str) else x.name() for x in v]
    if t in (16, 17):  # SCALAR(S): their Python value
        return repr(v)
    return v


def op_record(od):
    rec = {"type": od.type(),
           "inputs": {n: list(od.input(n)) for n in od.input_names()},
           "outputs": {n: list(od.output(n)) for n in od.output_names()},
           "attrs": {}}
    for n in od.attr_names():
        t = int(od.attr_type(n))
        rec["attrs"][n] = [t, attr_value(od, n, t)]
    return rec


def summarize(path, rel):
    import paddle
    from paddle.base.proto import framework_pb2
    raw = open(path, "rb").read()
    pb = framework_pb2.ProgramDesc()
    pb.ParseFromString(raw)
    prog = paddle.static.Program.parse_from_string(raw)
    out = {"version": pb.version.version if pb.HasField("version") else None,
           "op_version_map": {p.op_name: p.op_version.version for p in pb.op_version_map.pair},
           "blocks": [], "hidden_attrs": {}}
    hidden = {}
    full = rel in FULL
    for bi in range(prog.desc.num_blocks()):
        bd = prog.desc.block(bi)
        vars_ = sorted((var_record(d) for d in bd.all_vars()), key=lambda r: r["name"])
        ops = [op_record(bd.op(i)) for i in range(bd.op_size())]
        for rec, op_pb in zip(ops, pb.blocks[bi].ops):
            assert rec["type"] == op_pb.type
            raw_names = {a.name for a in op_pb.attrs}
            added = set(rec["attrs"]) - raw_names
            assert not added, f"Paddle added attributes {added} to {rec['type']}"
            gone = sorted(raw_names - set(rec["attrs"]))
            assert hidden.setdefault(rec["type"], gone) == gone, f"{rec['type']}: hidden attributes differ between ops"
        out["hidden_attrs"] = {k: v for k, v in sorted(hidden.items()) if v}
        out["blocks"].append({
            "idx": bd.id, "parent": bd.parent, "forward_block_idx": bd.get_forward_block_idx(),
            "vars": vars_ if full else {r["name"]: digest(r) for r in vars_},
            "ops": ops if full else [digest(r) for r in ops],
        })
    return out


def main():
    import paddle
    paddle.enable_static()
    root = sys.argv[1]
    files = sorted(glob.glob(os.path.join(root, "*", "*.pdmodel")))
    res = {"paddle": paddle.__version__, "models": {}}
    for f in files:
        rel = os.path.relpath(f, root)
        res["models"][rel] = summarize(f, rel)
    json.dump(res, sys.stdout, sort_keys=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
