"""Writes tests/python/data/paddle_op_protos.json from real PaddlePaddle 2.6.2 (the oracle): the
names of every registered operator type, and for the types ops/compat.yaml names (plus those
colliding with one of our op names) their input/output slots (dispensable, duplicable, extra)
and attributes (type code, whether Paddle has a default). test_static_compat.py checks what our
recorder writes against it. Run from an empty directory:

    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/dump_op_protos.py
"""
import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

import paddle  # noqa: E402,F401  (the oracle)
from paddle.base import core, framework  # noqa: E402

SKIP_ATTRS = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"}


def our_names():
    names = set()
    for p in glob.glob(os.path.join(REPO, "ops", "*.yaml")):
        for line in open(p):
            m = re.match(r"^- (?:\{)?(?:op|type): *([A-Za-z0-9_]+)", line)
            if m:
                names.add(m.group(1))
            for m in re.finditer(r"type: *([A-Za-z0-9_]+)", line):
                names.add(m.group(1))
    return names


def main():
    protos = framework.OpProtoHolder.instance().op_proto_map
    want = our_names() & set(protos)
    out = {"version": paddle.__version__, "types": sorted(protos), "ops": {}}
    for t in sorted(want):
        p = protos[t]
        defaults = core.get_op_attrs_default_value(t.encode())
        out["ops"][t] = {
            "inputs": [[i.name, bool(i.dispensable), bool(i.duplicable), bool(i.extra)] for i in p.inputs],
            "outputs": [[o.name, bool(o.dispensable), bool(o.duplicable), bool(o.extra), bool(o.intermediate)]
                        for o in p.outputs],
            "attrs": [[a.name, int(a.type), a.name in defaults, bool(a.extra)] for a in p.attrs
                      if a.name not in SKIP_ATTRS],
        }
    path = os.path.join(REPO, "tests", "python", "data", "paddle_op_protos.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(out['ops'])} op types written to {path}")


if __name__ == "__main__":
    main()
