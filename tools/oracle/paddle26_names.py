"""Writes tests/conformance/expected/paddle26_names.json: the public names of real PaddlePaddle
2.6.2's top-level `paddle` module (run with the oracle venv, from an empty directory:
`cd $(mktemp -d) && /work/oracle/bin/python /work/main/tools/oracle/paddle26_names.py OUT`)."""
import json
import sys

import paddle

names = sorted(n for n in dir(paddle) if not n.startswith("_"))
with open(sys.argv[1], "w") as f:
    json.dump({"paddle": paddle.__version__, "names": names}, f, indent=0)
    f.write("\n")
print(len(names), "names")
