"""Runs a seed program from the Paddle 2.0 docs verbatim (examples/seeds/<name>.py, copied from
../shared/seed_examples). The slides leave some names undefined (np, F, paddle ...): the
preamble below defines them around the unchanged body, as the seed README allows.
An optional second argument is code run after the body (e.g. to use a class a seed defines).
Usage: python examples/run_seed.py e16_tensor_print"""
import os
import sys

PREAMBLE = """\
import numpy as np
import paddle
import paddle.nn.functional as F
"""


def main(name, epilogue=""):
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "seeds", name if name.endswith(".py") else name + ".py")
    with open(path, encoding="utf-8") as f:
        body = f.read()
    code = compile(PREAMBLE + body + "\n" + epilogue, path, "exec")
    exec(code, {"__name__": "__main__"})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
