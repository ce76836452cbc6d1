"""Programs whose int attributes are one-element Variables (arg_max / arg_min / cumsum axis,
gather axis, bincount minlength, eye num_rows / num_columns) in Paddle's program form.

Runs under Paddle-C and under real Paddle 2.6.2 (the same paddle API builds the programs; run the
real one as a subprocess from an empty temporary directory):
  make OUTDIR      builds every case, paddle.static.save_inference_model -> OUTDIR/<case>.pdmodel
                   (+ .pdiparams), runs it and writes OUTDIR/expected.npz (<case> -> output).
                   With real Paddle this made tests/python/data/attr_dyn_forms/.
  run DIR OUT.npz  loads DIR/<case> for every case whose .pdmodel is there (and the JIT_FEEDS
                   programs Paddle-C's jit.save wrote), runs it on the case's feed and writes the
                   outputs (the differential test runs Paddle-C's saved programs in real Paddle
                   this way).
  forms DIR        prints each saved program's ops: type, input slots, VAR attributes.
Paddle 2.6.2 writes such an attribute as a VAR attribute naming the variable (arg_max, arg_min,
cumsum, bincount, eye), and gather's axis as its Axis input (the attribute axis stays 0)."""
import os
import sys

import numpy as np

XV = (np.arange(12).reshape(3, 4) * 7 % 5).astype("float32") - 1.5


def _cases():
    import paddle

    def argmax():
        x = paddle.static.data("x", [3, 4], "float32")
        a = paddle.full([1], 1, "int64")
        return [x], [paddle.argmax(x, axis=a)]

    def argmin():
        x = paddle.static.data("x", [3, 4], "float32")
        a = paddle.full([1], 0, "int32")
        return [x], [paddle.argmin(x, axis=a, keepdim=True)]

    def cumsum():
        x = paddle.static.data("x", [3, 4], "float32")
        a = paddle.static.data("a", [1], "int64")  # fed: the same program with any axis
        return [x, a], [paddle.cumsum(x, axis=a)]

    def gather():
        x = paddle.static.data("x", [3, 4], "float32")
        i = paddle.static.data("i", [2], "int64")
        a = paddle.full([1], 1, "int64")
        return [x, i], [paddle.gather(x, i, axis=a)]

    def bincount():
        x = paddle.static.data("x", [5], "int64")
        m = paddle.full([1], 7, "int64")
        return [x], [paddle.bincount(x, minlength=m)]

    def eye():
        x = paddle.static.data("x", [1], "float32")
        r = paddle.full([1], 3, "int64")
        c = paddle.full([1], 4, "int64")
        return [x], [paddle.eye(r, c) + x]

    return {"argmax": argmax, "argmin": argmin, "cumsum": cumsum, "gather": gather, "bincount": bincount,
            "eye": eye}


FEEDS = {
    "argmax": {"x": XV},
    "argmin": {"x": XV},
    "cumsum": {"x": XV, "a": np.array([-1], "int64")},
    "gather": {"x": XV, "i": np.array([3, 0], "int64")},
    "bincount": {"x": np.array([1, 3, 3, 0, 5], "int64")},
    "eye": {"x": np.array([0.5], "float32")},
}


# programs Paddle-C writes with paddle.jit.save (the differential test saves them; `run` runs any
# of these it finds too, each output k as "<case>:<k>")
JIT_FEEDS = {"jit_cumsum_gather": {"x": XV, "a": np.array([0], "int64"), "i": np.array([2, 1], "int64")}}


def make(outdir):
    import paddle
    paddle.enable_static()
    os.makedirs(outdir, exist_ok=True)
    exe = paddle.static.Executor(paddle.CPUPlace())
    expected = {}
    for name, build in _cases().items():
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            feeds, outs = build()
        exe.run(start)
        expected[name] = exe.run(main, feed=FEEDS[name], fetch_list=outs)[0]
        paddle.static.save_inference_model(os.path.join(outdir, name), feeds, outs, exe, program=main)
    np.savez(os.path.join(outdir, "expected.npz"), **expected)


def run(d, out):
    import paddle
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    got = {}
    for name, feed in list(FEEDS.items()) + list(JIT_FEEDS.items()):
        if not os.path.exists(os.path.join(d, name + ".pdmodel")):
            continue
        prog, feed_names, fetch = paddle.static.load_inference_model(os.path.join(d, name), exe)
        outs = exe.run(prog, feed={k: feed[k] for k in feed_names}, fetch_list=fetch)
        if name in FEEDS:
            got[name] = outs[0]
        else:
            got.update({f"{name}:{k}": o for k, o in enumerate(outs)})
    np.savez(out, **got)


def forms(d):
    """(case, op type, sorted input slots with arguments, VAR attributes) of each saved program,
    read with Paddle-C's or Paddle's program classes."""
    import paddle
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    rows = []
    for name in FEEDS:
        prog, _, _ = paddle.static.load_inference_model(os.path.join(d, name), exe)
        for op in prog.global_block().ops:
            rows.append((name, op.type, sorted(k for k in op.input_names if op.input(k))))
    return rows


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "forms":
        for r in forms(sys.argv[2]):
            print(r)
