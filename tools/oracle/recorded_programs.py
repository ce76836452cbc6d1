"""Programs recorded from our Python API in static mode (paddle.enable_static + program_guard),
exported with their exact attribute types so real Paddle can rebuild them (check_recorded.py).

    PYTHONPATH=python python tools/oracle/recorded_programs.py      # writes tests/python/data/
        recorded_programs.json (the programs) and recorded_programs.npz (feeds, parameters and
        our outputs)

test_static_compat.py records the same programs and checks that they are still exactly what
Paddle 2.6.2 was shown (tests/python/data/recorded_in_paddle.json)."""
import json
import os

import numpy as np

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "python", "data")


def _rand(seed, *shape, lo=-1.0, hi=1.0, dtype="float32"):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


def convnet():
    x = paddle.static.data("x", [-1, 3, 16, 16], "float32")
    conv, dw, bn = nn.Conv2D(3, 8, 3, padding=1), nn.Conv2D(8, 8, 3, padding=1, groups=8, bias_attr=False), nn.BatchNorm2D(8)
    up, lin = nn.Conv2DTranspose(8, 4, 2, stride=2), nn.Linear(4, 5)
    bn.eval()
    y = F.relu(bn(conv(x)))
    y = F.hardswish(dw(y))
    y = F.max_pool2d(y, 2)
    y = F.hardsigmoid(F.leaky_relu(up(y), 0.1))
    y = F.avg_pool2d(y, 3, stride=2, padding=1, ceil_mode=True)
    y = F.interpolate(y, scale_factor=2, mode="nearest")
    y = F.interpolate(y, size=[9, 7], mode="bilinear", align_corners=True)
    y = F.adaptive_avg_pool2d(y, 1)
    y = F.dropout(paddle.flatten(y, 1), 0.2, training=False)
    return {"x": _rand(1, 2, 3, 16, 16)}, [F.softmax(lin(y)), F.sigmoid(y)]


def tensor_ops():
    x = paddle.static.data("x", [-1, 4, 6], "float32")
    i = paddle.static.data("i", [3], "int64")
    ln = nn.LayerNorm(6)
    emb = nn.Embedding(10, 6, padding_idx=0)
    a = F.gelu(ln(x))
    b = paddle.tanh(paddle.transpose(a, [0, 2, 1]))
    c = paddle.reshape(b, [-1, 4])
    d = paddle.concat([x[:, 1:3], x[:, :2] * 2.0 + 1.0], axis=1)
    s1, s2 = paddle.split(d, 2, axis=1)
    e = paddle.gather(x, i, axis=2) + paddle.index_select(x, i, axis=2)
    red = [paddle.sum(x, axis=1), paddle.mean(x, axis=[1, 2], keepdim=True), paddle.max(x, axis=-1), paddle.min(x),
           paddle.prod(x, axis=1)]
    am = paddle.argmax(x, axis=2)
    tv, ti = paddle.topk(x, 2, axis=-1)
    z = paddle.unsqueeze(paddle.cast(am, "float32"), [1])
    w = paddle.where(x > 0.0, x, paddle.zeros_like(x))
    f = paddle.clip(paddle.pow(paddle.abs(x), 2.0), 0.1, 0.8) + paddle.sqrt(paddle.exp(x)) - paddle.log(paddle.abs(x) + 1.0)
    g = paddle.cumsum(x, axis=1) + paddle.expand(paddle.ones([1, 4, 1]), [1, 4, 6]) * paddle.full([1], 0.5)
    h = paddle.stack([s1, s2], axis=0)
    t = paddle.tile(paddle.arange(0, 6, 1).astype("float32"), [2])
    lsp = paddle.linspace(0.0, 1.0, 5)
    oh = F.one_hot(i, 7)
    eb = emb(i)
    m = paddle.matmul(x, x, transpose_y=True)
    fl = paddle.floor(x * 3.0) + paddle.remainder(x, paddle.full_like(x, 0.3)) + paddle.maximum(x, paddle.minimum(x, x * 0.5))
    sq = paddle.squeeze(x[:, 0:1, :], axis=1)
    logic = paddle.logical_and(x > 0.2, x < 0.7).astype("float32")
    out = [c, s1, e, z, w, f, g, h, t, lsp, oh, eb, m, fl, sq, logic, tv, ti] + red
    return {"x": _rand(2, 2, 4, 6), "i": np.array([5, 0, 3], "int64")}, out


def loss_ops():
    x = paddle.static.data("x", [4, 5], "float32")
    y = paddle.static.data("y", [4, 1], "int64")
    lin = nn.Linear(5, 5)
    logits = lin(x)
    return {"x": _rand(3, 4, 5), "y": np.array([[1], [4], [0], [2]], "int64")}, [
        F.cross_entropy(logits, y), F.log_softmax(logits, axis=-1), F.mse_loss(logits, x)]


def vision_ops():
    x = paddle.static.data("x", [1, 3, 8, 8], "float32")
    y = F.pad(x, [1, 2, 0, 1], mode="reflect")
    z = F.pad(x, [1, 1, 2, 0], mode="constant", value=0.5)
    c = F.interpolate(x, size=[5, 11], mode="bicubic", align_corners=False)
    yb = paddle.static.data("yb", [1, 14, 4, 4], "float32")
    imsz = paddle.static.data("imsz", [1, 2], "int32")
    boxes, scores = paddle.vision.ops.yolo_box(yb, imsz, [10, 13, 16, 30], 2, 0.01, 8)
    return {"x": _rand(4, 1, 3, 8, 8), "yb": _rand(5, 1, 14, 4, 4, lo=-2, hi=2), "imsz": np.array([[32, 30]], "int32")}, [
        y, z, c, boxes, scores]


PROGRAMS = {"convnet": convnet, "tensor_ops": tensor_ops, "loss_ops": loss_ops, "vision_ops": vision_ops}


def _attr_value(od, name):
    v = od.attr(name)
    if isinstance(v, np.ndarray):
        v = v.tolist()
    return v


def export(prog):
    blk = prog.global_block()
    vs = []
    for n, v in blk.vars.items():
        d = v.desc if hasattr(v, "desc") else None
        vs.append({"name": n, "dtype": str(v.dtype).replace("paddle.", ""), "shape": list(v.shape),
                   "persistable": bool(v.persistable)})
    ops = []
    for op in blk.ops:
        od = op.desc
        ops.append({"type": op.type,
                    "inputs": {s: list(op.input(s)) for s in op.input_names},
                    "outputs": {s: list(op.output(s)) for s in op.output_names},
                    "attrs": sorted([n, od.attr_type(n), _attr_value(od, n)] for n in op.attr_names)})
    return {"vars": vs, "ops": ops}


def record(name):
    """(exported program, feeds, params, fetch names, our outputs) of program `name`."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            paddle.seed(7)
            feeds, outs = PROGRAMS[name]()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            got = exe.run(main, feed=feeds, fetch_list=outs)
            params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
            for n, v in main.global_block().vars.items():
                if v.persistable and n not in params and scope.find_var(n) is not None:
                    params[n] = np.array(scope.find_var(n).get_tensor())
        return export(main), feeds, params, [o.name for o in outs], got
    finally:
        paddle.disable_static()


def main():
    progs, arrays = {}, {}
    for name in PROGRAMS:
        prog, feeds, params, fetch, got = record(name)
        progs[name] = {**prog, "feeds": sorted(feeds), "params": sorted(params), "fetch": fetch}
        for n, a in feeds.items():
            arrays[f"{name}|feed|{n}"] = a
        for n, a in params.items():
            arrays[f"{name}|param|{n}"] = a
        for i, a in enumerate(got):
            arrays[f"{name}|out|{i}"] = np.asarray(a)
    with open(os.path.join(DATA, "recorded_programs.json"), "w") as f:
        json.dump(progs, f, indent=0, sort_keys=True)
    np.savez_compressed(os.path.join(DATA, "recorded_programs.npz"), **arrays)


if __name__ == "__main__":
    main()
