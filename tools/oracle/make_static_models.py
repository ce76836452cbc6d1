"""Small inference models written by real PaddlePaddle 2.6.2, for tests/python/test_static_io.py
(paddle-c must load and run what Paddle saves). Writes into OUT (default
tests/python/data/static_io):

  mlp/inference.pdmodel, .pdiparams   Linear(4,8)-relu-Linear(8,3)-softmax, save_inference_model
  cnn/inference.pdmodel, .pdiparams   Conv2D(pad 1)-BatchNorm2D-relu-max_pool2d-Conv2D(stride 2,
                                      SAME)-relu-avg_pool2d-flatten-Linear, save_inference_model
  mlp_1x/__model__ + one file per parameter   the 1.x directory layout (normalize_program, the
                                      program bytes as __model__, save_vars without a filename)
  lod_tensor.bin                      one LoDTensor with a 2-level LoD (paddle.save binary format)
  expected.npz                        inputs and the outputs Paddle computes for them
  meta.json                           feed/fetch names and the LoD above

Run with the oracle (never imported by the project), from an empty directory:
    cd $(mktemp -d) && /work/oracle/bin/python /path/to/repo/tools/oracle/make_static_models.py OUT
"""
import json
import os
import sys

import numpy as np

import paddle


def build_mlp():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        h = paddle.nn.functional.relu(paddle.nn.Linear(4, 8)(x))
        y = paddle.nn.functional.softmax(paddle.nn.Linear(8, 3)(h))
    return main, startup, x, y


def build_cnn():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("img", [None, 3, 8, 8], "float32")
        h = paddle.nn.Conv2D(3, 4, 3, padding=1)(x)
        h = paddle.nn.functional.relu(paddle.nn.BatchNorm2D(4)(h))
        h = paddle.nn.functional.max_pool2d(h, 2)
        h = paddle.nn.functional.relu(paddle.nn.Conv2D(4, 6, 3, stride=2, padding="SAME")(h))
        h = paddle.nn.functional.avg_pool2d(h, 2, ceil_mode=True)
        y = paddle.nn.Linear(6, 5)(paddle.flatten(h, 1))
    return main, startup, x, y


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "static_io")
    os.makedirs(out, exist_ok=True)
    paddle.enable_static()
    paddle.seed(2024)
    np.random.seed(2024)
    exe = paddle.static.Executor(paddle.CPUPlace())
    expected, meta = {}, {"paddle": paddle.__version__}

    for name, build, shape in (("mlp", build_mlp, (3, 4)), ("cnn", build_cnn, (2, 3, 8, 8))):
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            main_prog, startup, x, y = build()
            exe.run(startup)
            # move batch-norm statistics away from 0/1 so that inference uses them visibly
            for v in main_prog.list_vars():
                if v.persistable and ("batch_norm" in v.name) and v.name.endswith(("w_1", "w_2")):
                    t = scope.find_var(v.name).get_tensor()
                    t.set(np.random.uniform(0.5, 1.5, np.array(t).shape).astype("float32"), paddle.CPUPlace())
            xv = np.random.uniform(-1, 1, shape).astype("float32")
            paddle.static.save_inference_model(os.path.join(out, name, "inference"), [x], [y], exe,
                                               program=main_prog)
            ref, = exe.run(main_prog.clone(for_test=True), feed={x.name: xv}, fetch_list=[y])
            expected[f"{name}_x"] = xv
            expected[f"{name}_y"] = ref
            meta[name] = {"feed": [x.name], "fetch_shape": list(ref.shape)}
            if name == "mlp":
                prog = paddle.static.normalize_program(main_prog, [x], [y])
                d = os.path.join(out, "mlp_1x")
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "__model__"), "wb") as f:
                    f.write(prog._remove_training_info(clip_extra=False).desc.serialize_to_string())
                paddle.static.io.save_vars(exe, d, main_program=prog,
                                           predicate=paddle.static.io.is_persistable)

    t = paddle.base.core.LoDTensor()
    arr = np.arange(12, dtype="float32").reshape(6, 2)
    t.set(arr, paddle.CPUPlace())
    lod = [[0, 2, 3], [0, 1, 4, 6]]
    t.set_lod(lod)
    paddle.save(t, os.path.join(out, "lod_tensor.bin"), use_binary_format=True)
    expected["lod_tensor"] = arr
    meta["lod_tensor_lod"] = lod
    np.savez(os.path.join(out, "expected.npz"), **expected)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
