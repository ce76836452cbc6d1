"""Runs the real models of tools/oracle/fixture_cases.py with real Paddle Inference 2.6.2 (the
oracle) on their inputs and writes the outputs (or their subsamples) to
tests/python/data/fixture_expected.npz; with --dump DIR it also writes each model's program
(variables, ops, typed attributes) and parameters there (for checking our executor before our
own .pdmodel reader exists; not committed). Run from an empty directory:

    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/make_fixture_expected.py
"""
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "python", "data")
spec = importlib.util.spec_from_file_location("fixture_cases", os.path.join(HERE, "fixture_cases.py"))
fc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fc)

import paddle  # noqa: E402  (the oracle)
import paddle.inference as pi  # noqa: E402

ATTR_FIELD = {0: "i", 1: "f", 2: "s", 3: "ints", 4: "floats", 5: "strings", 6: "b", 7: "bools", 9: "l", 11: "longs",
              12: "float64s", 15: "float64"}
SKIP = {"op_callstack", "op_namescope", "op_role", "op_role_var", "op_device", "with_quant_attr"}


def dump_program(model_path, params_path, out_dir, name):
    from paddle.base.proto import framework_pb2
    pd = framework_pb2.ProgramDesc()
    with open(model_path, "rb") as f:
        pd.ParseFromString(f.read())
    b = pd.blocks[0]
    vs = []
    for v in b.vars:
        t = v.type
        if t.type != framework_pb2.VarType.LOD_TENSOR:
            continue
        vs.append({"name": v.name, "dtype": int(t.lod_tensor.tensor.data_type), "shape": list(t.lod_tensor.tensor.dims),
                   "persistable": bool(v.persistable)})
    ops = []
    for op in b.ops:
        attrs = []
        for a in op.attrs:
            if a.name in SKIP or a.type not in ATTR_FIELD:
                continue
            val = getattr(a, ATTR_FIELD[a.type])
            attrs.append([a.name, int(a.type), list(val) if not isinstance(val, (int, float, str, bool)) else val])
        ops.append({"type": op.type, "inputs": {i.parameter: list(i.arguments) for i in op.inputs},
                    "outputs": {o.parameter: list(o.arguments) for o in op.outputs}, "attrs": attrs})
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump({"vars": vs, "ops": ops}, f)
    if params_path:
        paddle.enable_static()
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feeds, fetches = paddle.static.load_inference_model(model_path[:-len(".pdmodel")], exe)
        scope = paddle.static.global_scope()
        arrays = {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in prog.list_vars()
                  if v.persistable and scope.find_var(v.name) is not None and v.name not in ("feed", "fetch")}
        np.savez(os.path.join(out_dir, name + "_params.npz"), **arrays)
        paddle.disable_static()


def run(model, feeds):
    mp, pp = fc.paths(model)
    cfg = pi.Config(mp, pp)
    cfg.disable_gpu()
    cfg.set_cpu_math_library_num_threads(1)
    cfg.disable_glog_info()
    pred = pi.create_predictor(cfg)
    for n in pred.get_input_names():
        h = pred.get_input_handle(n)
        h.reshape(list(feeds[n].shape))
        h.copy_from_cpu(feeds[n])
    pred.run()
    return {n: pred.get_output_handle(n).copy_to_cpu() for n in pred.get_output_names()}, pred.get_output_names()


def main():
    dump = sys.argv[sys.argv.index("--dump") + 1] if "--dump" in sys.argv else None
    arrays, order = {}, {}
    for model, (_, cases) in fc.MODELS.items():
        if dump:
            dump_program(*fc.paths(model), dump, model)
        for cname, make in cases:
            outs, names = run(model, make())
            order[model] = names
            for k, n in enumerate(names):
                for key, a in fc.keep(outs[n]).items():
                    arrays[f"{model}|{cname}|{k}|{key}"] = a
            print(model, cname, {n: list(np.shape(outs[n])) for n in names}, file=sys.stderr)
    if dump:
        d = os.path.join(fc.FIXTURES, "programs_only")
        for name in fc.PROGRAMS_ONLY:
            dump_program(os.path.join(d, name + ".pdmodel"), None, dump, name)
    np.savez_compressed(os.path.join(DATA, "fixture_expected.npz"), **arrays)
    with open(os.path.join(DATA, "fixture_expected_fetch.json"), "w") as f:
        json.dump({"paddle": paddle.__version__, "fetch": order}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
