"""Real PaddlePaddle 2.6.2 (the oracle) loads and runs the programs our recorder wrote
(tests/python/data/recorded_programs.json, from tools/oracle/recorded_programs.py): each becomes
a framework.proto ProgramDesc with exactly our attribute types, goes through
Program.parse_from_string and Executor.run with our feeds and parameters, and its outputs are
compared with ours. Writes tests/python/data/recorded_in_paddle.json (per program: the digest of
the program Paddle saw, ok or Paddle's error, the largest difference per output). Run from an
empty directory:

    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/check_recorded.py
"""
import hashlib
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "python", "data")

import paddle  # noqa: E402  (the oracle)
from paddle.base.proto import framework_pb2  # noqa: E402

VT = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5, "float64": 6, "uint8": 20,
      "int8": 21, "bfloat16": 22, "complex64": 23, "complex128": 24}
FIELD = {0: "i", 1: "f", 2: "s", 3: "ints", 4: "floats", 5: "strings", 6: "b", 7: "bools", 9: "l", 11: "longs",
         12: "float64s", 15: "float64"}


def digest(prog):
    return hashlib.sha256(json.dumps({k: prog[k] for k in ("vars", "ops")}, sort_keys=True).encode()).hexdigest()


def to_proto(prog):
    pd = framework_pb2.ProgramDesc()
    b = pd.blocks.add()
    b.idx, b.parent_idx = 0, -1
    for v in prog["vars"]:
        vd = b.vars.add()
        vd.name = v["name"]
        vd.type.type = framework_pb2.VarType.LOD_TENSOR
        vd.type.lod_tensor.tensor.data_type = VT[v["dtype"]]
        vd.type.lod_tensor.tensor.dims.extend(v["shape"])
        vd.persistable = v["persistable"]
    for o in prog["ops"]:
        od = b.ops.add()
        od.type = o["type"]
        for slot, args in o["inputs"].items():
            x = od.inputs.add()
            x.parameter = slot
            x.arguments.extend(args)
        for slot, args in o["outputs"].items():
            x = od.outputs.add()
            x.parameter = slot
            x.arguments.extend(args)
        for name, ty, val in o["attrs"]:
            a = od.attrs.add()
            a.name, a.type = name, ty
            f = FIELD[ty]
            if isinstance(val, list):
                getattr(a, f).extend(val)
            else:
                setattr(a, f, val)
    return pd.SerializeToString()


def main():
    with open(os.path.join(DATA, "recorded_programs.json")) as f:
        progs = json.load(f)
    arrays = np.load(os.path.join(DATA, "recorded_programs.npz"))
    paddle.enable_static()
    place = paddle.CPUPlace()
    report = {}
    for name, prog in progs.items():
        entry = {"digest": digest(prog), "paddle": paddle.__version__}
        try:
            p = paddle.static.Program.parse_from_string(to_proto(prog))
            scope = paddle.static.Scope()
            with paddle.static.scope_guard(scope):
                for n in prog["params"]:
                    scope.var(n).get_tensor().set(arrays[f"{name}|param|{n}"], place)
                feed = {n: arrays[f"{name}|feed|{n}"] for n in prog["feeds"]}
                outs = paddle.static.Executor(place).run(p, feed=feed, fetch_list=prog["fetch"])
            diffs = []
            for i, o in enumerate(outs):
                ours = arrays[f"{name}|out|{i}"]
                o = np.asarray(o)
                if o.shape != ours.shape and o.size == ours.size:
                    o = o.reshape(ours.shape)  # Paddle 2.6's 0-D results are [1] in ours
                if o.shape != ours.shape:
                    diffs.append(f"shape {list(o.shape)} vs ours {list(ours.shape)}")
                    continue
                scale = max(float(np.abs(o.astype(np.float64)).max()) if o.size else 0.0, 1e-30)
                diffs.append(float(np.abs(o.astype(np.float64) - ours.astype(np.float64)).max() / scale) if o.size else 0.0)
            entry["status"] = "ok"
            entry["max_rel_diff"] = diffs
        except Exception as e:  # Paddle's refusal is the result
            msg = str(e)
            k = msg.find("Error Message Summary")
            entry["status"] = "error: " + (msg[k:k + 400] if k >= 0 else msg.strip().splitlines()[-1][:400])
        report[name] = entry
        print(name, entry["status"][:200], entry.get("max_rel_diff"))
    with open(os.path.join(DATA, "recorded_in_paddle.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
