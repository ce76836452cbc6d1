"""Writes the expected results of the paddle.static.nn cases (tests/python/static_nn_cases.py)
and of paddle.static.Print from real PaddlePaddle (the oracle, 2.6.2; never imported by the
project): tests/python/data/static_nn_oracle.npz (per case: parameter names and shapes, outputs
with their LoD, gradients) and static_print_oracle.txt. Run from an empty directory:

    /work/oracle/bin/python /path/to/repo/tools/oracle/static_nn.py /path/to/repo/tests/python/data
"""
import contextlib
import io
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "python"))

PRINT_PROGRAM = r'''
import numpy as np, paddle
paddle.enable_static()
main, start = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, start):
    x = paddle.static.data("x", [-1, 3], "float32", lod_level=1)
    x.stop_gradient = False
    i = paddle.static.data("i", [4], "int64")
    y = paddle.static.Print(x, message="the x", summarize=4)
    z = paddle.static.Print(i, print_tensor_name=False, print_tensor_type=False, first_n=1)
    w = paddle.static.Print(y * 2.5, summarize=-1, print_tensor_layout=False, print_tensor_lod=False)
    loss = paddle.sum(w)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(start)
for k in range(2):
    print("RUN", k, flush=True)
    t = LOD(np.array([[0.5, -1.25, 3], [1e-8, 123456789.0, 7], [1, 2, 3]], "float32"), [[1, 2]])
    exe.run(main, feed={"x": t, "i": np.arange(4)}, fetch_list=[loss, z])
'''


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    import paddle
    paddle.enable_static()
    from static_nn_cases import CASES, run_case
    arrays, meta = {}, {}
    for name in CASES:
        r = run_case(paddle, name)
        meta[name] = {"params": r["params"], "lods": r["lods"], "n_outs": len(r["outs"]), "n_grads": len(r["grads"])}
        for k, a in enumerate(r["outs"]):
            arrays[f"{name}/out{k}"] = a
        for k, a in enumerate(r["grads"]):
            arrays[f"{name}/grad{k}"] = a
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(os.path.join(out_dir, "static_nn_oracle.npz"), **arrays)
    # Print writes through C++ std::cout: capture the child's stdout
    src = PRINT_PROGRAM.replace("LOD(", "paddle.base.create_lod_tensor(").replace("[[1, 2]])", "[[1, 2]], paddle.CPUPlace())")
    txt = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True).stdout
    with open(os.path.join(out_dir, "static_print_oracle.txt"), "w") as f:
        f.write(txt)
    print(f"wrote {len(arrays) - 1} arrays for {len(CASES)} cases and the Print text")


if __name__ == "__main__":
    main()
