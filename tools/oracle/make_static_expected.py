"""Runs the programs of tools/oracle/static_cases.py with real PaddlePaddle 2.6.2 (the oracle)
and writes their inputs and outputs to tests/python/data/static_compat_expected.npz (plus the
cases Paddle rejected, with its message, to static_compat_errors.json). Not part of the test
suite: the project never imports real Paddle. Run from an empty directory:

    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/make_static_expected.py
"""
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("static_cases", os.path.join(HERE, "static_cases.py"))
cases_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases_mod)

import paddle  # noqa: E402  (the oracle)

assert paddle.__version__ == "2.6.2", paddle.__version__
paddle.enable_static()


def build(case):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        blk = main.global_block()
        vs = {}
        for n, a in case["feeds"].items():
            vs[n] = paddle.static.data(n, list(a.shape), str(a.dtype))
        for n, a in case["params"].items():
            vs[n] = blk.create_var(name=n, shape=list(a.shape), dtype=str(a.dtype), persistable=True)
        for o in case["ops"]:
            for names in o["outputs"].values():
                for n in names:
                    if n not in vs:
                        vs[n] = blk.create_var(name=n)
            blk.append_op(type=o["type"], inputs={k: [vs[n] for n in v] for k, v in o["inputs"].items()},
                          outputs={k: [vs[n] for n in v] for k, v in o["outputs"].items()}, attrs=o["attrs"])
    return main


def main():
    arrays, errors = {}, {}
    place = paddle.CPUPlace()
    for case in cases_mod.CASES:
        name = case["name"]
        try:
            prog = build(case)
            scope = paddle.static.Scope()
            with paddle.static.scope_guard(scope):
                exe = paddle.static.Executor(place)
                for n, a in case["params"].items():
                    scope.var(n).get_tensor().set(a, place)
                outs = exe.run(prog, feed=case["feeds"], fetch_list=case["fetch"], return_numpy=True)
        except Exception as e:  # the oracle's refusal is data too
            errors[name] = str(e).strip().splitlines()[-1][:300]
            continue
        for n, a in case["feeds"].items():
            arrays[f"{name}|feed|{n}"] = a
        for n, a in case["params"].items():
            arrays[f"{name}|param|{n}"] = a
        for i, a in enumerate(outs):
            arrays[f"{name}|out|{i}"] = np.asarray(a)
    out = os.path.join(REPO, "tests", "python", "data")
    os.makedirs(out, exist_ok=True)
    np.savez_compressed(os.path.join(out, "static_compat_expected.npz"), **arrays)
    with open(os.path.join(out, "static_compat_errors.json"), "w") as f:
        json.dump(errors, f, indent=1, sort_keys=True)
    print(f"{len(cases_mod.CASES) - len(errors)} cases ran, {len(errors)} refused by Paddle", file=sys.stderr)
    for k, v in errors.items():
        print(f"  {k}: {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
