"""conv_elementwise_add_mkldnn_fuse_pass (csrc/graph/pd_pass_fuse.c): a convolution whose output
only an elementwise_add of a same-shaped value reads becomes fused_conv2d with that value as
ResidualData (oneDNN's sum post-op, ahead of the activation the next pass fuses), and the memory
plan (csrc/graph/pd_exec_memplan.c) writes such a convolution's output in place over its residual
when it reads the residual last; without the plan (EnableMemoryOptim off) the executor does the same
where nothing else holds the residual (pd_exec_residual_inplace). Each network runs fused (blocked activations and
PADDLE_C_INFER_LAYOUT=0), with the pass deleted and with IR off, several batch sizes, each
predictor three times (profile, plan, planned run), against each other and against numpy.
The fixture models with every pass on against real Paddle's outputs are test_inference.py's."""
import os

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn.functional as F

PASS = "conv_elementwise_add_mkldnn_fuse_pass"


def _op_types(path):
    prog = paddle.static.Program.parse_from_string(open(path, "rb").read())
    return [op.type for op in prog.global_block().ops]


def _save(prefix, build, shape):
    """saves the network; returns {parameter name: numpy value}"""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", shape, "float32")
            y = build(x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        params = {p.name: np.array(paddle.static.global_scope().find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    return params


def _predictor(prefix, ir=True, delete=(), layout=True, debug=None, prog=None, memory_optim=True):
    old = os.environ.get("PADDLE_C_INFER_LAYOUT")
    if not layout:
        os.environ["PADDLE_C_INFER_LAYOUT"] = "0"
    if debug:
        os.environ["PADDLE_C_IR_DEBUG_DIR"] = debug
    try:
        cfg = pi.Config(prog or prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.enable_mkldnn()
        if memory_optim:
            cfg.enable_memory_optim()
        cfg.switch_ir_optim(ir)
        cfg.switch_ir_debug(bool(debug))
        for p in delete:
            cfg.delete_pass(p)
        return pi.create_predictor(cfg)
    finally:
        os.environ.pop("PADDLE_C_IR_DEBUG_DIR", None)
        if old is None:
            os.environ.pop("PADDLE_C_INFER_LAYOUT", None)
        else:
            os.environ["PADDLE_C_INFER_LAYOUT"] = old


def _runs(pred, xs):
    """each input three times through one predictor (the memory plan: profile, plan, planned)"""
    outs = []
    for xv in xs:
        got = [pred.run([xv])[0].copy() for _ in range(3)]
        for g in got[1:]:
            np.testing.assert_array_equal(g, got[0])
        outs.append(got[0])
    return outs


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(float(np.abs(want).max()), 1.0))


def _np_conv(x, w, b, stride=1, pad=0):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.float64))
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


def _net(C):
    """ResNet-like: identity blocks (a chain of in-place residuals), a downsampling block whose two
    operands are both convolutions, a residual computed after its convolution (the convolution
    moves), a residual that is also the convolution's input (never in place), a broadcasting add
    (not fused) and a fetched value that is also a residual"""
    convs = {}

    def conv(name, cin, cout, k, stride=1):
        m = paddle.nn.Conv2D(cin, cout, k, stride=stride, padding=k // 2)
        convs[name] = (m.weight.name, m.bias.name, stride, k // 2)
        return m

    def build(x):
        a = F.relu(conv("a", C, C, 3)(x))
        o1 = F.relu(conv("b", C, C, 3)(a) + x)                 # conv -> add(shortcut) -> relu
        o2 = F.relu(conv("c", C, C, 1)(o1) + o1)               # the residual is the conv's input too
        o3 = conv("d", C, C, 3)(o2) + o1                       # chain, no activation
        o3b = F.relu(conv("c2", C, C, 1)(o3) + o3)             # ... and read last there (never in place)
        d = conv("e", C, 2 * C, 3, 2)(o3b)
        s = conv("f", C, 2 * C, 1, 2)(o3b)
        o4 = F.relu(d + s)                                     # two convolution operands
        e = conv("g", 2 * C, 2 * C, 3)(o4)
        g = paddle.scale(o4, 0.5)                              # computed after conv g
        o5 = F.leaky_relu(e + g, 0.1)                          # residual written after the convolution
        h = conv("h", 2 * C, 2 * C, 3)(o5)
        o6 = h + paddle.mean(o5, axis=[2, 3], keepdim=True)    # broadcasting: stays an add
        return o6
    return build, convs


def _np_net(x, params, convs):
    def cv(name, v):
        w, b, stride, pad = convs[name]
        return _np_conv(v, params[w], params[b], stride, pad)
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    a = relu(cv("a", x))
    o1 = relu(cv("b", a) + x)
    o2 = relu(cv("c", o1) + o1)
    o3 = cv("d", o2) + o1
    o3b = relu(cv("c2", o3) + o3)
    o4 = relu(cv("e", o3b) + cv("f", o3b))
    o5v = cv("g", o4) + 0.5 * o4
    o5 = np.where(o5v > 0, o5v, 0.1 * o5v)
    return cv("h", o5) + o5.mean(axis=(2, 3), keepdims=True)


@pytest.mark.parametrize("C", [16, 12])  # channels filling oneDNN's blocks (blocked path) or not (plain path)
def test_residual_fusion_matches_unfused_and_numpy(tmp_path, C):
    build, convs = _net(C)
    prefix = str(tmp_path / "m")
    params = _save(prefix, build, [None, C, 10, 9])
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal([n, C, 10, 9]).astype("float32") for n in (1, 3, 2)]
    dbg = str(tmp_path / "dbg")
    fused = _runs(_predictor(prefix, debug=dbg), xs)
    plain = _runs(_predictor(prefix, layout=False), xs)
    nopass = _runs(_predictor(prefix, delete=(PASS,)), xs)
    off = _runs(_predictor(prefix, ir=False), xs)
    # without the memory plan (Paddle's default Config): the executor's own in-place residuals
    # (pd_exec_residual_inplace), blocked and plain, and with them switched off
    noplan = _runs(_predictor(prefix, memory_optim=False), xs)
    noplan_plain = _runs(_predictor(prefix, layout=False, memory_optim=False), xs)
    os.environ["PADDLE_C_INPLACE_RESIDUAL"] = "0"
    try:
        noplan_copy = _runs(_predictor(prefix, memory_optim=False), xs)
    finally:
        del os.environ["PADDLE_C_INPLACE_RESIDUAL"]
    for k, xv in enumerate(xs):
        _close(fused[k], off[k])
        _close(plain[k], off[k])
        _close(nopass[k], off[k])
        _close(noplan[k], off[k])
        _close(noplan_plain[k], off[k])
        np.testing.assert_array_equal(noplan[k], noplan_copy[k])  # the same sums, in place or not
        _close(fused[k], _np_net(xv.astype(np.float64), params, convs), 1e-4)
    # the ops: after the pass every same-shape add is in a convolution (a residual that is also
    # its convolution's input too); only the broadcasting add stays
    dumps = {f[3:-len(".pdmodel")]: os.path.join(dbg, f) for f in sorted(os.listdir(dbg)) if f.endswith(".pdmodel")}
    before = _op_types(dumps["conv_bias_mkldnn_fuse_pass"])
    after = _op_types(dumps[PASS])
    assert before.count("elementwise_add") == 7, before
    assert after.count("elementwise_add") == 1, after
    final = _op_types(list(dumps.values())[-1])
    assert final.count("fused_conv2d") == 9 and "relu" not in final and "leaky_relu" not in final, final
    prog = paddle.static.Program.parse_from_string(open(list(dumps.values())[-1], "rb").read())
    res = [op for op in prog.global_block().ops if op.type == "fused_conv2d" and op.input("ResidualData")]
    assert len(res) == 6 and all(op.attr("fuse_residual_connection") for op in res)
    assert sorted(op.attr("fuse_activation") for op in res) == ["", "leaky_relu", "relu", "relu", "relu", "relu"]
    # the program order stays valid: every input is written before it is read
    written = {"x", "feed"} | set(params)
    for op in prog.global_block().ops:
        for n in op.input_arg_names:
            assert n in written, (op.type, n)
        written |= set(op.output_arg_names)


def test_dumped_residual_program_loads(tmp_path):
    """the IR-debug dump with fused_conv2d(ResidualData) is a Paddle program: it loads and runs with
    IR off (the loader's ResidualData / fuse_residual_connection) with the same outputs"""
    build, _ = _net(8)
    prefix = str(tmp_path / "m")
    _save(prefix, build, [None, 8, 6, 7])
    xv = np.random.default_rng(2).standard_normal([2, 8, 6, 7]).astype("float32")
    dbg = str(tmp_path / "dbg")
    want = _runs(_predictor(prefix, debug=dbg), [xv])[0]
    dump = next(os.path.join(dbg, f) for f in sorted(os.listdir(dbg)) if f.endswith(PASS + ".pdmodel"))
    assert "fused_conv2d" in _op_types(dump)
    got = _runs(_predictor(prefix, ir=False, prog=dump), [xv])[0]
    _close(got, want)


def test_fetched_residual_is_not_overwritten(tmp_path):
    """a residual that is also fetched keeps its value (the output is not placed over it), with the
    memory plan and without"""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 8, 5, 5], "float32")
            r = F.relu(paddle.nn.Conv2D(8, 8, 3, padding=1)(x))
            y = F.relu(paddle.nn.Conv2D(8, 8, 3, padding=1)(r) + r)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        prefix = str(tmp_path / "m")
        paddle.static.save_inference_model(prefix, [x], [r, y], exe, program=main)
    finally:
        paddle.disable_static()
    xv = np.random.default_rng(3).standard_normal([2, 8, 5, 5]).astype("float32")
    got = {}
    for ir, mo in ((True, True), (True, False), (False, True)):
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        if mo:
            cfg.enable_memory_optim()
        cfg.switch_ir_optim(ir)
        pred = pi.create_predictor(cfg)
        for _ in range(3):
            rv, yv = pred.run([xv])
            got[ir, mo] = (rv.copy(), yv.copy())
    for k in ((True, True), (True, False)):  # with the memory plan and without (the executor's in-place)
        _close(got[k][0], got[False, True][0])
        _close(got[k][1], got[False, True][1])


def test_nearest_interp_keeps_blocked_values(tmp_path, capfd, monkeypatch):
    """interp_v2 in the predictor's layout plan: nearest 2-D resizes of a blocked value stay blocked
    (integer and fractional ratios), bilinear runs on a plain copy; the FPN pattern
    upsample + add of a convolution stays blocked. Against IR off, PADDLE_C_INFER_LAYOUT=0 and numpy."""
    def build(x):
        a = paddle.nn.Conv2D(4, 16, 3, padding=1)(x)
        u = F.interpolate(a, scale_factor=2, mode="nearest")
        b = paddle.nn.Conv2D(16, 16, 1)(paddle.nn.Conv2D(16, 16, 3, stride=2, padding=1)(u)) + a
        v = F.interpolate(b, size=[7, 5], mode="nearest")
        w = F.interpolate(b, size=[9, 11], mode="nearest")
        z = F.interpolate(b, scale_factor=2, mode="bilinear")
        c1 = paddle.nn.Conv2D(16, 8, 1)(v)
        c2 = paddle.nn.Conv2D(16, 8, 1)(w)
        c3 = paddle.nn.Conv2D(16, 8, 1)(z)
        return paddle.concat([c1.flatten(1), c2.flatten(1), c3.flatten(1), u.flatten(1)], axis=1)
    prefix = str(tmp_path / "m")
    params = _save(prefix, build, [None, 4, 6, 8])
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal([n, 4, 6, 8]).astype("float32") for n in (1, 2)]
    off = _runs(_predictor(prefix, ir=False), xs)
    plain = _runs(_predictor(prefix, layout=False), xs)
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    pred = _predictor(prefix)
    capfd.readouterr()
    fused = _runs(pred, xs)
    lines = [ln for ln in capfd.readouterr().err.splitlines() if "interp" in ln]
    for k in range(len(xs)):
        _close(fused[k], off[k])
        _close(plain[k], off[k])
    # per run: the two nearest resizes only convolutions read stay blocked; u (also read by a
    # flatten) and the bilinear one are plain
    assert sum(ln.endswith(": blocked") for ln in lines) == 2 * 3 * len(xs), lines
    assert sum(ln.endswith(": plain") for ln in lines) == 2 * 3 * len(xs), lines
    # numpy: u, the nearest 2x upsample of the first convolution, ends the output
    w0 = next(v for v in params.values() if v.shape == (16, 4, 3, 3))
    b0 = next(v for k, v in params.items() if v.shape == (16,) and k.startswith(next(
        k2 for k2, v2 in params.items() if v2 is w0).split(".w_")[0]))
    a = _np_conv(xs[1].astype(np.float64), w0, b0, 1, 1)
    u = a.repeat(2, axis=2).repeat(2, axis=3).reshape(2, -1)
    _close(fused[1][:, -u.shape[1]:], u, 1e-4)


@pytest.mark.parametrize("memory_optim", [True, False])
def test_residual_read_twice_keeps_its_value(tmp_path, memory_optim):
    """r is the residual of two convolutions whose inputs are other values (y1 = conv(a) + r, then
    y2 = conv(y1) + r, y3 = conv(y2) + r): only the last reader may write over it, with the memory
    plan and without (the executor's in-place residual checks the value dies there); against IR off
    and numpy"""
    def build(x):
        a = F.relu(paddle.nn.Conv2D(8, 16, 1)(x))
        r = F.relu(paddle.nn.Conv2D(8, 16, 3, padding=1)(x))
        y1 = paddle.nn.Conv2D(16, 16, 3, padding=1)(a) + r
        y2 = F.relu(paddle.nn.Conv2D(16, 16, 1)(y1) + r)
        return paddle.nn.Conv2D(16, 16, 3, padding=1)(y2) + r

    prefix = str(tmp_path / "m")
    params = _save(prefix, build, [None, 8, 7, 6])
    xs = [np.random.default_rng(n).standard_normal([n, 8, 7, 6]).astype("float32") for n in (1, 2)]
    got = _runs(_predictor(prefix, memory_optim=memory_optim), xs)
    off = _runs(_predictor(prefix, ir=False), xs)
    ws = sorted(k for k in params if k.endswith(".w_0"))
    bs = sorted(k for k in params if k.endswith(".b_0"))
    assert len(ws) == 5 == len(bs)

    def conv(i, v):
        w, b = params[ws[i]].astype(np.float64), params[bs[i]].astype(np.float64)
        p = w.shape[2] // 2
        v = np.pad(v, ((0, 0), (0, 0), (p, p), (p, p)))
        oh, ow = v.shape[2] - 2 * p, v.shape[3] - 2 * p
        y = np.zeros((v.shape[0], w.shape[0], oh, ow))
        for i2 in range(w.shape[2]):
            for j2 in range(w.shape[3]):
                y += np.einsum("nchw,oc->nohw", v[:, :, i2:i2 + oh, j2:j2 + ow], w[:, :, i2, j2])
        return y + b.reshape(1, -1, 1, 1)

    # parameters are numbered in creation order: conv2_d_0 .. conv2_d_4
    order = sorted(range(5), key=lambda i: int(ws[i].split(".")[0].rsplit("_", 1)[1]))
    for k, xv in enumerate(xs):
        x64 = xv.astype(np.float64)
        a = np.maximum(conv(order[0], x64), 0)
        r = np.maximum(conv(order[1], x64), 0)
        y1 = conv(order[2], a) + r
        y2 = np.maximum(conv(order[3], y1) + r, 0)
        want = conv(order[4], y2) + r
        _close(got[k], off[k])
        _close(got[k], want, 1e-4)
