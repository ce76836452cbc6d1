"""Blocked activations in the predictor (csrc/graph/pd_exec_layout.c, csrc/kernels/cpu/layout_dnnl.c):
with IR optimisation and oneDNN on, float32 activations stay in oneDNN's nChw8c/nChw16c layout
between fused_conv2d, pool2d and same-shape elementwise ops, and are made plain for every other
op and for fetches. Each network here runs three ways: IR on (blocked), IR on with
PADDLE_C_INFER_LAYOUT=0 (the same fused program, all plain) and IR off (the program as saved), on
several batch sizes, each twice (the second run goes through the memory plan's reused buffers);
the three must agree. The fixture models against real Paddle Inference with every pass on (and so
this path) are tests/python/test_inference.py's."""
import os

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn as nn
import paddle.nn.functional as F


def _save(prefix, make, shape):
    """make() (called under the program guard: its layers' parameters are the program's) returns
    the function of x to save"""
    paddle.enable_static()
    try:
        paddle.seed(7)
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", shape, "float32")
            ys = make()(x)
            ys = ys if isinstance(ys, (list, tuple)) else [ys]
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        # batch_norm statistics that are not the identity, so that conv_bn_fuse_pass matters
        rng = np.random.default_rng(3)
        scope = paddle.static.global_scope()
        for v in main.list_vars():
            if v.persistable and ("mean" in v.name or "variance" in v.name):
                t = scope.find_var(v.name).get_tensor()
                a = np.array(t)
                t.set((rng.uniform(0.5, 1.5, a.shape) if "variance" in v.name else rng.uniform(-0.2, 0.2, a.shape))
                      .astype("float32"), paddle.CPUPlace())
        paddle.static.save_inference_model(prefix, [x], list(ys), exe, program=main)
    finally:
        paddle.disable_static()


def _predictor(prefix, ir=True, layout=True, memory_optim=True):
    cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.switch_ir_optim(ir)
    cfg.enable_mkldnn()
    if memory_optim:
        cfg.enable_memory_optim()
    old = os.environ.get("PADDLE_C_INFER_LAYOUT")
    if not layout:
        os.environ["PADDLE_C_INFER_LAYOUT"] = "0"
    try:
        return pi.create_predictor(cfg)
    finally:
        if old is None:
            os.environ.pop("PADDLE_C_INFER_LAYOUT", None)
        else:
            os.environ["PADDLE_C_INFER_LAYOUT"] = old


def _check(prefix, shapes, tol=2e-5):
    preds = {"blocked": _predictor(prefix), "plain": _predictor(prefix, layout=False),
             "ir_off": _predictor(prefix, ir=False)}
    rng = np.random.default_rng(11)
    for shape in shapes:
        xv = rng.standard_normal(shape).astype("float32")
        res = {}
        for name, p in preds.items():
            first = p.run([xv])
            again = p.run([xv])
            for a, b in zip(first, again):
                np.testing.assert_array_equal(a, b)
            res[name] = first
        for name in ("plain", "ir_off"):
            assert len(res[name]) == len(res["blocked"])
            for got, want in zip(res["blocked"], res[name]):
                assert got.shape == want.shape
                scale = max(float(np.abs(want).max()), 1.0)
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=f"blocked vs {name}, {shape}")
    return res


class _Chain(nn.Layer):
    """conv-bn-relu -> max pool -> conv-relu -> 1x1 conv + shortcut conv, add, relu -> avg pool ->
    depthwise conv -> global pool -> flatten -> fc"""

    def __init__(self, c1=16, c2=32, c3_bias=False):
        super().__init__()
        self.c1 = nn.Conv2D(3, c1, 3, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(c1)
        self.c2 = nn.Conv2D(c1, c2, 3, padding=1)
        self.c3 = nn.Conv2D(c2, c2, 1, bias_attr=None if c3_bias else False)  # a bias: bn stays unfused
        self.bn3 = nn.BatchNorm2D(c2)
        self.sc = nn.Conv2D(c1, c2, 1, bias_attr=False)
        self.bnsc = nn.BatchNorm2D(c2)
        self.dw = nn.Conv2D(c2, c2, 3, padding=1, groups=c2)
        self.fc = nn.Linear(c2, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.c1(x)))
        x = F.max_pool2d(x, 3, 2, 1)
        y = F.relu(self.c2(x))
        y = self.bn3(self.c3(y)) + self.bnsc(self.sc(x))
        y = F.relu(y)
        y = F.avg_pool2d(y, 2, 2, ceil_mode=True)
        y = F.hardswish(self.dw(y))
        y = F.adaptive_avg_pool2d(y, 1)
        return self.fc(paddle.flatten(y, 1))


@pytest.mark.parametrize("c1,c2,c3_bias", [(16, 32, False), (16, 32, True), (12, 20, False), (8, 24, False),
                                           (24, 40, True), (40, 72, False)])
def test_chain_conv_pool_conv_flatten_fc(tmp_path, c1, c2, c3_bias):
    """channels that fill the blocks (16, 32) and that do not (12, 20, 8, 24, 40, 72: padded blocks,
    ceil(C / block) * block channels stored, the padding lanes zero); with c3_bias a batch_norm
    stays in the program (not layout-aware: its input is made plain and the residual add gets one
    blocked and one plain operand)"""
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _Chain(c1, c2, c3_bias), [None, 3, -1, -1])
    _check(prefix, [[1, 3, 17, 17], [3, 3, 24, 20], [2, 3, 9, 31]])


def test_fetched_intermediates_and_broadcast_consumers(tmp_path):
    """a conv output that is fetched, one read by a reshape, an SE-style broadcast multiply
    ([N, C, H, W] * [N, C, 1, 1]), a concat on channels and a transpose: all need plain values"""
    prefix = str(tmp_path / "m")

    def make():
        c1, c2, c3, fc1 = nn.Conv2D(3, 16, 3, padding=1), nn.Conv2D(16, 16, 3), nn.Conv2D(16, 8, 1), nn.Conv2D(16, 16, 1)
        return lambda x: build(x, c1, c2, c3, fc1)

    def build(x, c1, c2, c3, fc1):
        a = F.relu(c1(x))                    # fetched and read by convs
        b = F.relu(c2(a))
        se = F.hardsigmoid(fc1(F.adaptive_avg_pool2d(b, 1)))
        b2 = b * se                          # broadcast: plain
        c = c3(b2)
        cat = paddle.concat([c, c3(b)], axis=1)
        t = paddle.transpose(F.max_pool2d(cat, 2, 2), [0, 2, 3, 1])
        r = paddle.reshape(c3(b), [0, -1])
        return [a, t, r]

    _save(prefix, make, [None, 3, -1, -1])
    _check(prefix, [[1, 3, 12, 12], [2, 3, 15, 10]])


@pytest.mark.parametrize("kind", ["max_pad", "max_ceil", "avg_incl", "avg_excl_ceil", "adaptive3", "max_k2",
                                  "max_big", "max_big_oneDNN"])
def test_pool_geometries_on_blocked_input(tmp_path, monkeypatch, kind):
    """max pools run the row-split kernel (layout_dnnl.c maxpool_rows), with PADDLE_C_POOL_ROWS=0
    oneDNN's; "big": channels that do not fill a block (24) on planes large enough for the threads"""
    prefix = str(tmp_path / "m")
    pool = {"max_pad": lambda v: F.max_pool2d(v, 3, 2, 1),
            "max_ceil": lambda v: F.max_pool2d(v, 3, 2, 0, ceil_mode=True),
            "avg_incl": lambda v: F.avg_pool2d(v, 3, 2, 1, exclusive=False),
            "avg_excl_ceil": lambda v: F.avg_pool2d(v, 3, 2, 1, ceil_mode=True),
            "adaptive3": lambda v: F.adaptive_max_pool2d(v, 3),
            "max_k2": lambda v: F.max_pool2d(v, 2, 1),
            "max_big": lambda v: F.max_pool2d(v, 3, 2, 1),
            "max_big_oneDNN": lambda v: F.max_pool2d(v, 3, 2, 1)}[kind]
    ch = 24 if kind.startswith("max_big") else 16
    if kind.endswith("oneDNN"):
        monkeypatch.setenv("PADDLE_C_POOL_ROWS", "0")

    def make():
        conv, conv2 = nn.Conv2D(3, ch, 3, padding=1), nn.Conv2D(ch, 16, 1)
        return lambda x: conv2(pool(F.relu(conv(x))))

    _save(prefix, make, [None, 3, -1, -1])
    _check(prefix, [[1, 3, 61, 58], [2, 3, 40, 47]] if kind.startswith("max_big") else [[1, 3, 11, 11], [2, 3, 14, 9]])


def test_clones_in_threads_agree(tmp_path):
    """the blocked path in clones on threads (primitive caches shared)"""
    import threading
    prefix = str(tmp_path / "m")
    _save(prefix, _Chain, [None, 3, -1, -1])
    p = _predictor(prefix)
    xv = np.random.default_rng(5).standard_normal([2, 3, 16, 16]).astype("float32")
    want = p.run([xv])[0]
    outs = [None] * 4

    def go(i):
        c = p.clone()
        for _ in range(3):
            outs[i] = c.run([xv])[0]

    ts = [threading.Thread(target=go, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for o in outs:
        np.testing.assert_array_equal(o, want)


def test_trace_shows_blocked_values(tmp_path, capfd, monkeypatch):
    """PADDLE_C_INFER_LAYOUT=trace prints each instruction's output layout: the convolutions, the
    max pool and the residual add keep blocked values, fetches and the flatten's input are plain;
    channel counts that do not fill a block are blocked with padded channels (never made plain,
    their padding lanes zero: the trace checks them)"""
    prefix = str(tmp_path / "m")
    _save(prefix, _Chain, [None, 3, -1, -1])
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    p = _predictor(prefix)
    capfd.readouterr()
    p.run([np.ones([1, 3, 16, 16], "float32")])
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("[layout]")]
    blocked = {ln.split()[1] for ln in lines if ln.endswith(": blocked")}
    # the residual add + relu is in the 1x1 convolution now (conv_elementwise_add_mkldnn_fuse_pass)
    assert {"fused_conv2d", "pool2d"} <= blocked and not any(" add " in ln or "elementwise_add" in ln for ln in lines), lines
    assert not any("made plain" in ln for ln in lines), lines  # the plan chose every slot right
    assert any(ln.startswith("[layout] fc ") and ln.endswith("plain") for ln in lines), lines

    prefix2 = str(tmp_path / "m2")
    _save(prefix2, lambda: _Chain(12, 20), [None, 3, -1, -1])
    p2 = _predictor(prefix2)
    capfd.readouterr()
    p2.run([np.ones([1, 3, 16, 16], "float32")])
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("[layout]")]
    padded = {ln.split()[1] for ln in lines if ln.endswith(": blocked padded")}  # 12, 20: padded with 8 or 16
    assert {"fused_conv2d", "pool2d"} <= padded, lines
    assert not any("made plain" in ln or "padding not zero" in ln for ln in lines), lines
    assert any(ln.startswith("[layout] fc ") and ln.endswith("plain") for ln in lines), lines


class _SE(nn.Layer):
    """MobileNetV3's squeeze-and-excitation: x * hardsigmoid(conv(relu(conv(avgpool(x))))) (or
    sigmoid), then a depthwise convolution and a windowed max pool of the product"""

    def __init__(self, c=16, act="hardsigmoid"):
        super().__init__()
        self.c0 = nn.Conv2D(3, c, 3, padding=1)
        self.s1 = nn.Conv2D(c, 8, 1)
        self.s2 = nn.Conv2D(8, c, 1)
        self.c1 = nn.Conv2D(c, c, 3, padding=1, groups=c)
        self.act = getattr(F, act)

    def forward(self, x):
        x = F.relu(self.c0(x))
        s = self.act(self.s2(F.relu(self.s1(F.adaptive_avg_pool2d(x, 1)))))
        y = F.max_pool2d(F.relu(self.c1(x * s)), 2, 2)
        return F.adaptive_avg_pool2d(y, 1)


@pytest.mark.parametrize("c,act", [(16, "hardsigmoid"), (24, "hardsigmoid"), (40, "sigmoid"), (72, "hardsigmoid"),
                                   (8, "sigmoid")])
def test_squeeze_excitation_multiply_stays_blocked(tmp_path, capfd, monkeypatch, c, act):
    """x [N, C, H, W] blocked times a [N, C, 1, 1] scale runs on the blocks (the [N, C, 1, 1]
    values are plain: unpadded, the same bytes in both layouts; padded, written plain by the
    global pool); results as the plain and IR-off runs; with C not a multiple of the block the
    product stays blocked with zero padding lanes"""
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _SE(c, act), [None, 3, -1, -1])
    _check(prefix, [[1, 3, 10, 10], [3, 3, 7, 12], [16, 3, 6, 9]])
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    p = _predictor(prefix)
    capfd.readouterr()
    p.run([np.ones([2, 3, 8, 8], "float32")])
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("[layout]")]
    want = ": blocked padded" if c % paddle_block() else ": blocked"
    assert any(ln.startswith("[layout] multiply ") and ln.endswith(want) for ln in lines), lines
    assert not any("made plain" in ln or "padding not zero" in ln for ln in lines), lines


def paddle_block():
    """the predictor's channel block on this CPU: 16 where oneDNN runs AVX-512 kernels, else 8"""
    return 16 if paddle._C.isa_info()["onednn"].startswith("avx512") else 8


def _trace_twice(prefix, shape, capfd, monkeypatch):
    """the trace's lines of a blocked predictor's two runs of ones(shape) (the second through the
    memory plan)"""
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    p = _predictor(prefix)
    capfd.readouterr()
    p.run([np.ones(shape, "float32")])
    p.run([np.ones(shape, "float32")])
    return [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("[layout]")]


class _Elementwise(nn.Layer):
    """elementwise ops on padded blocked values that do not map 0 to 0 (sigmoid, hardsigmoid, exp,
    scale with a bias, a division whose padding lanes would be 0 / 0) between convolutions, a
    nearest upsampling and a convolution output that is also fetched"""

    def __init__(self, c=24, c2=40):
        super().__init__()
        self.c0 = nn.Conv2D(3, c, 3, padding=1)
        self.c1 = nn.Conv2D(c, c2, 3, padding=1)
        self.dw = nn.Conv2D(c2, c2, 3, padding=1, groups=c2)
        self.c2 = nn.Conv2D(c2, c, 1)

    def forward(self, x):
        y = self.c0(x)                   # read by two ops: no activation fused
        s = F.sigmoid(y)
        w = y * s
        h = F.hardsigmoid(w)
        e = paddle.exp(w)
        q = paddle.scale(h, 2.0, 0.5) + e
        d = q / s
        u = F.interpolate(d, scale_factor=2, mode="nearest")
        z = F.relu(self.c1(u))
        f = self.c2(z)                   # fetched
        return [F.adaptive_avg_pool2d(F.relu(self.dw(z)), 1), f]


@pytest.mark.parametrize("c,c2", [(24, 40), (8, 72)])
def test_padded_elementwise_ops_keep_padding_zero(tmp_path, capfd, monkeypatch, c, c2):
    """the elementwise ops run on the padded storage and their padding lanes are zeroed again
    (else 0.5, 1 or NaN would reach the next convolution's zero weights: 0 * NaN = NaN); all
    outputs as the plain and IR-off runs"""
    prefix = str(tmp_path / "m")
    # a static spatial size (the static interpolate with a scale factor needs it)
    _save(prefix, lambda: _Elementwise(c, c2), [None, 3, 9, 7])
    _check(prefix, [[1, 3, 9, 7], [3, 3, 9, 7], [16, 3, 9, 7]], tol=5e-5)
    lines = _trace_twice(prefix, [2, 3, 9, 7], capfd, monkeypatch)
    want = ": blocked padded" if min(c, c2) % paddle_block() else ": blocked"
    blocked = {ln.split()[1] for ln in lines if ln.endswith(want)}
    assert {"sigmoid", "multiply", "hardsigmoid", "exp", "scale", "divide", "add", "interp"} <= blocked, lines
    assert not any("padding not zero" in ln for ln in lines), lines


def test_channels_last_mode_agrees(tmp_path):
    """PADDLE_C_INFER_NHWC=1 (read once per process, so in a child): values of C channels take layout
    C (NHWC, oneDNN 3's brgconv layout) instead of nChw8c/16c; the chain (conv, pools, residual add,
    depthwise + hardswish, global pool) agrees with plain and IR off, and its values are tagged C"""
    import subprocess
    import sys
    code = (
        "import sys, os; sys.path.insert(0, %r); import test_inference_layout as T\n"
        "T._save(%r, lambda: T._Chain(16, 32, False), [None, 3, -1, -1])\n"
        "T._check(%r, [[1, 3, 17, 17], [2, 3, 9, 31]])\n" % (os.path.dirname(__file__), str(tmp_path / "m"),
                                                           str(tmp_path / "m")))
    env = dict(os.environ, PADDLE_C_INFER_NHWC="1", PADDLE_C_INFER_LAYOUT="trace", ONEDNN_VERBOSE="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    blocked = [ln for ln in r.stderr.splitlines() if ln.startswith("[layout]") and ln.endswith(": blocked")]
    assert blocked, r.stderr
    # oneDNN's log: the layout predictor's convolutions read and write channels-last (acdb)
    convs = [ln.replace(":a:", "::") for ln in r.stdout.splitlines() if ln.startswith("onednn_verbose,exec,cpu,convolution")]
    assert any("src_f32::blocked:acdb" in ln and "dst_f32::blocked:acdb" in ln for ln in convs), convs[:4]


class _ResidualFromPlainSlot(nn.Layer):
    """a residual that is plain when the convolution adding it runs, whose output may stay
    blocked: its slot must stay plain (a flip reads it first), or a tile (not layout-aware)
    produced it. The memory plan keeps residual and output in separate buffers (sharing one, the
    kernel would re-block the residual in place on every run). "concat": a channel concat, which
    now writes the residual blocked itself"""

    def __init__(self, c, kind="flip"):
        super().__init__()
        self.kind = kind
        self.c0 = nn.Conv2D(3, c if kind == "flip" else c // 2, 3, padding=1)
        self.cm = nn.Conv2D(c if kind == "flip" else c // 2, c, 1)
        self.c1 = nn.Conv2D(c, c, 3, padding=1)
        self.c2 = nn.Conv2D(c, c, 1)

    def forward(self, x):
        a = F.relu(self.c0(x))
        if self.kind == "flip":
            m, r = paddle.flip(a, [3]), a
        else:
            m = self.cm(a)
            r = paddle.concat([a, a], axis=1) if self.kind == "concat" else paddle.tile(a, [1, 2, 1, 1])
        b = F.relu(self.c1(m) + r)
        return F.adaptive_avg_pool2d(self.c2(b), 1)


@pytest.mark.parametrize("c,kind", [(16, "flip"), (24, "flip"), (32, "tile"), (48, "tile"), (32, "concat"),
                                    (48, "concat")])
def test_residual_from_a_plain_slot(tmp_path, c, kind):
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _ResidualFromPlainSlot(c, kind), [None, 3, -1, -1])
    _check(prefix, [[1, 3, 10, 10], [3, 3, 7, 12], [2, 3, 6, 9]])


class _DepthwiseFromPlain(nn.Layer):
    """BlazeFace's pattern: a depthwise 5x5 stride-2 convolution whose input must stay plain (a
    flip also reads it) and whose output may be blocked"""

    def __init__(self, c):
        super().__init__()
        self.c0 = nn.Conv2D(3, c, 3, padding=1)
        self.dw = nn.Conv2D(c, c, 5, stride=2, padding=2, groups=c)
        self.c1 = nn.Conv2D(c, c, 1)

    def forward(self, x):
        a = F.relu(self.c0(x))
        return [F.adaptive_avg_pool2d(self.c1(F.relu(self.dw(a))), 1), paddle.flip(a, [3])]


@pytest.mark.parametrize("c", [96, 40])
def test_depthwise_from_plain_input_runs_oneDNN_jit(tmp_path, c):
    """results as the plain and IR-off runs; oneDNN's log (in a child: ONEDNN_VERBOSE is read once)
    shows no reference-kernel convolution (with format any for the plain input oneDNN 3.2 picked
    acdb and only its reference kernel for this layer)"""
    import subprocess
    import sys
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _DepthwiseFromPlain(c), [None, 3, -1, -1])
    _check(prefix, [[1, 3, 16, 16], [4, 3, 13, 9]])
    code = ("import sys; sys.path.insert(0, %r); import numpy as np, test_inference_layout as T\n"
            "T._predictor(%r).run([np.ones([2, 3, 16, 16], 'float32')])\n" % (os.path.dirname(__file__), prefix))
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    convs = [ln for ln in r.stdout.splitlines() if ln.startswith("onednn_verbose,exec,cpu,convolution")]
    assert any(f"g{c}mb2" in ln for ln in convs), convs
    assert not any(",ref:" in ln for ln in convs), [ln for ln in convs if ",ref:" in ln]


def test_prior_box_reads_blocked_input(tmp_path, capfd, monkeypatch):
    """prior_box reads only its inputs' shapes (META): a convolution output it also reads stays
    blocked (padded: 20 channels, with 8 or 16 lanes) instead of being made plain; boxes and the convolution branch
    as the plain and IR-off runs"""
    from paddle.vision.ops import prior_box
    prefix = str(tmp_path / "m")

    def make():
        c0, c1 = nn.Conv2D(3, 20, 3, stride=2, padding=1), nn.Conv2D(20, 24, 3, padding=1)

        def f(x):
            a = F.relu(c0(x))
            box, var = prior_box(a, x, min_sizes=[4.0, 8.0], aspect_ratios=[1.0, 2.0], clip=True)
            return [F.adaptive_avg_pool2d(c1(a), 1), box, var]
        return f

    _save(prefix, make, [None, 3, 16, 12])
    _check(prefix, [[1, 3, 16, 12], [3, 3, 16, 12]])
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    p = _predictor(prefix)
    capfd.readouterr()
    p.run([np.ones([2, 3, 16, 12], "float32")])
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("[layout]")]
    convs = [ln for ln in lines if ln.startswith("[layout] fused_conv2d ")]
    assert len(convs) == 2 and convs[0].endswith(": blocked padded"), lines  # the one prior_box reads
    assert any(ln.startswith("[layout] prior_box ") for ln in lines), lines
    assert not any("made plain" in ln for ln in lines), lines


class _ConcatHead(nn.Layer):
    """ppocrv3_det's FPN neck and DB head in small: convolutions of ca / cb channels at two scales,
    the smaller one upsampled (nearest), concatenated along the channels with a convolution output
    and (with_x) the fed, plain x; a 3x3 convolution + batch_norm + relu of the concat, then
    conv2d_transpose 2x2 stride 2 (+ bias) -> batch_norm -> relu -> conv2d_transpose to 1 channel
    -> sigmoid. Also a concat along H (not layout-aware: made plain) and a fetched concat."""

    def __init__(self, ca, cb, with_x):
        super().__init__()
        self.with_x = with_x
        self.a = nn.Conv2D(3, ca, 3, padding=1)
        self.b = nn.Conv2D(ca, cb, 3, stride=2, padding=1)
        self.c = nn.Conv2D(cb, cb, 1)
        cin = ca + 2 * cb + (3 if with_x else 0)
        self.h = nn.Conv2D(cin, 16, 3, padding=1, bias_attr=False)
        self.bn = nn.BatchNorm2D(16)
        self.t1 = nn.Conv2DTranspose(16, 12, 2, stride=2)
        self.bn2 = nn.BatchNorm2D(12)
        self.t2 = nn.Conv2DTranspose(12, 1, 2, stride=2)
        self.e = nn.Conv2D(ca, ca, 1)

    def forward(self, x):
        a = F.relu(self.a(x))
        b = F.relu(self.b(a))
        ub = F.interpolate(b, scale_factor=2, mode="nearest")
        uc = F.interpolate(self.c(b), scale_factor=2, mode="nearest")
        parts = [a, ub, uc] + ([x] if self.with_x else [])
        cat = paddle.concat(parts, axis=1)
        h = F.relu(self.bn(self.h(cat)))
        y = F.sigmoid(self.t2(F.relu(self.bn2(self.t1(h)))))
        e = self.e(a)
        rows = paddle.concat([e, a], axis=2)          # along H: plain
        fetched = paddle.concat([e, a], axis=1)       # fetched: plain
        return [y, F.adaptive_avg_pool2d(rows, 1), fetched]


@pytest.mark.parametrize("ca,cb,with_x", [(16, 32, False), (24, 24, True), (12, 8, False), (8, 40, True)])
def test_concat_along_channels_stays_blocked(tmp_path, capfd, monkeypatch, ca, cb, with_x):
    """concat along axis 1 writes a blocked output from blocked (block-filling or padded, lanes
    shifted where an input starts inside a block) and plain inputs; the convolution after it reads
    it blocked; the tiling conv2d_transpose head (oneDNN's plain GEMM kernel) and everything else
    as the plain and IR-off runs, on several batch sizes, twice through the memory plan; a concat
    along H and a fetched concat stay plain"""
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _ConcatHead(ca, cb, with_x), [None, 3, 8, 12])
    _check(prefix, [[1, 3, 8, 12], [3, 3, 8, 12], [16, 3, 8, 12]], tol=5e-5)
    lines = _trace_twice(prefix, [2, 3, 8, 12], capfd, monkeypatch)
    cats = [ln for ln in lines if ln.startswith("[layout] concat ")]
    assert len(cats) == 6, lines
    total = ca + 2 * cb + (3 if with_x else 0)
    want = ": blocked padded" if total % paddle_block() else ": blocked"
    assert sum(ln.endswith(want) for ln in cats) == 2, cats  # the channel concat, both runs
    assert sum(ln.endswith(": plain") for ln in cats) == 4, cats  # along H, fetched
    assert not any("made plain" in ln or "padding not zero" in ln for ln in lines), lines


class _YoloHead(nn.Layer):
    """a detection head: conv -> yolo_box (3 anchors, 2 classes; with iou_aware the an IoU planes
    come first: 24 channels, else 21), and a second output of the same convolution fetched
    through a relu (so the conv output has two readers)"""

    def __init__(self, iou_aware):
        super().__init__()
        self.iou_aware = iou_aware
        self.c = nn.Conv2D(3, 24 if iou_aware else 21, 3, padding=1)

    def forward(self, x):
        h = self.c(x)
        img = paddle.cast(x[:, 0:2, 0, 0] * 0 + 64, "int32")
        boxes, scores = paddle.vision.ops.yolo_box(h, img, [10, 13, 16, 30, 33, 23], 2, 0.3, 8,
                                                   iou_aware=self.iou_aware, iou_aware_factor=0.4)
        return [boxes, scores, F.relu(h)]


@pytest.mark.parametrize("iou_aware", [False, True])
def test_yolo_box_reads_blocked_head(tmp_path, capfd, monkeypatch, iou_aware):
    """yolo_box reads its x in the blocked layout (padded where 21 / 24 channels do not fill the
    block): boxes and scores as the plain and IR-off runs, and the head convolution's output is
    never made plain for it"""
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _YoloHead(iou_aware), [None, 3, -1, -1])
    res = _check(prefix, [[1, 3, 8, 8], [3, 3, 5, 7], [16, 3, 4, 6]])
    assert (res["blocked"][1] > 0).any() and (res["blocked"][1] == 0).any()  # the threshold bites both ways
    lines = _trace_twice(prefix, [2, 3, 6, 5], capfd, monkeypatch)
    conv = [ln for ln in lines if ln.startswith("[layout] fused_conv2d") or ln.startswith("[layout] conv2d")]
    assert conv and all(": blocked" in ln and "made plain" not in ln for ln in conv), lines
    # only the fetched relu output is made plain (for the fetch)
    assert not any("made plain" in ln for ln in lines if not ln.startswith("[layout] relu ")), lines
    assert not any("padding not zero" in ln for ln in lines), lines


class _FetchedConvs(nn.Layer):
    """outputs that are convolution and pooling outputs themselves, one also read by a further
    convolution: the predictor leaves them blocked and the output handle reorders them into the
    caller's buffer"""

    def __init__(self, c1, c2):
        super().__init__()
        self.c0 = nn.Conv2D(3, c1, 3, padding=1)
        self.c1 = nn.Conv2D(c1, c2, 3, stride=2, padding=1)
        self.c2 = nn.Conv2D(c2, c2, 1)

    def forward(self, x):
        a = F.relu(self.c0(x))
        b = F.relu(self.c1(a))
        return [a, self.c2(b), F.max_pool2d(b, 2, 2)]


@pytest.mark.parametrize("c1,c2", [(16, 32), (24, 40), (8, 12), (32, 64)])
def test_fetched_outputs_stay_blocked(tmp_path, capfd, monkeypatch, c1, c2):
    """block-filling and padded channel counts, planes whose pixel count is and is not a multiple
    of 8 (the reorder's 8 x 8 tiles and their tail): the same values as the plain and IR-off runs
    and as a predictor that makes its outputs plain itself (PADDLE_C_INFER_FETCH=plain); the trace
    shows the fetched convolution outputs blocked, none made plain. The C API's zero-copy Data of such an output
    is checked by tests/c/infer_check.c (test_inference.py's fixture runs)."""
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _FetchedConvs(c1, c2), [None, 3, -1, -1])
    shapes = [[1, 3, 13, 11], [3, 3, 16, 16], [2, 3, 9, 7]]
    _check(prefix, shapes)
    monkeypatch.setenv("PADDLE_C_INFER_FETCH", "plain")
    plain_fetch = _predictor(prefix)
    monkeypatch.delenv("PADDLE_C_INFER_FETCH")
    blocked = _predictor(prefix)
    rng = np.random.default_rng(2)
    for shape in shapes:
        xv = rng.standard_normal(shape).astype("float32")
        for got, want in zip(blocked.run([xv]), plain_fetch.run([xv])):
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * max(float(np.abs(want).max()), 1.0))
    lines = _trace_twice(prefix, [2, 3, 9, 7], capfd, monkeypatch)
    outs = [ln for ln in lines if "save_infer_model" in ln and " pool2d " not in ln]  # the pool decides itself
    assert len(outs) == 4 and all(": blocked" in ln for ln in outs), lines
    assert not any("made plain" in ln or "padding not zero" in ln for ln in lines), lines


class _Strided3x3(nn.Layer):
    """ResNet's stride-2 3x3 and small-plane 3x3 layers between 1x1 ones (all blocked)"""

    def __init__(self, c):
        super().__init__()
        self.a = nn.Conv2D(3, c, 1)
        self.s2 = nn.Conv2D(c, c, 3, stride=2, padding=1)
        self.s1 = nn.Conv2D(c, 2 * c, 3, padding=1)
        self.b = nn.Conv2D(2 * c, c, 1)

    def forward(self, x):
        y = F.relu(self.s2(F.relu(self.a(x))))
        y = F.relu(self.s1(y))
        return F.adaptive_avg_pool2d(self.b(y), 1)


@pytest.mark.parametrize("c", [64, 96])
def test_spatial_convolutions_run_brgconv(tmp_path, c):
    """with 16-lane blocks (AVX-512), a predictor's 3x3 convolution with few output positions runs
    oneDNN's brgconv on channels-last activations, reordered from and to the blocks around it
    (conv_dnnl.c brg_worth_it; PADDLE_C_CONV_BRG=0 keeps jit on nChw16c): the same values as the
    plain and IR-off runs; oneDNN's log of the blocked predictor (in children: ONEDNN_VERBOSE and the
    switch are read once) shows brgconv with acdb activations, and none with the switch off"""
    import subprocess
    import sys
    if paddle_block() != 16:
        pytest.skip("brgconv for the blocked path is taken with AVX-512 blocks only")
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _Strided3x3(c), [None, 3, -1, -1])
    _check(prefix, [[1, 3, 16, 16], [2, 3, 15, 9]], tol=5e-5)
    code = ("import sys; sys.path.insert(0, %r); import numpy as np, test_inference_layout as T\n"
            "T._predictor(%r).run([np.ones([2, 3, 16, 16], 'float32')])\n" % (os.path.dirname(__file__), prefix))
    brg = {}
    for switch in ("", "0"):
        # conv_pw_small's direct kernel left out: it takes the stride-2 3x3 layer on planes this small
        env = dict(os.environ, ONEDNN_VERBOSE="1", PADDLE_C_CONV_BRG=switch, PADDLE_C_CONV_SMALL_KXK="0")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        convs = [ln.replace(":a:", "::") for ln in r.stdout.splitlines()
                 if ln.startswith("onednn_verbose,exec,cpu,convolution") and "kh3" in ln and "_ic3oc" not in ln]
        assert convs, r.stdout[-2000:]
        brg[switch] = [ln for ln in convs if ",brgconv:" in ln and "src_f32::blocked:acdb" in ln]
    assert brg[""] and not brg["0"], brg


def test_thread_counts_agree_bitwise(tmp_path, monkeypatch):
    """the conv cache keeps a forward blocked primitive per thread count (oneDNN fixes a jit / brg
    kernel's work split when it is built; the pool governor alternates between the configured count
    and one thread): those kernels keep each output's reduction on one thread, so predictors at 1
    and 2 threads in one process, sharing the cache, give the same bits (and the plain IR-off run's
    values to rounding). The batch of 3 stays whole at 2 threads (PADDLE_C_INFER_DP=0: split, its
    parts of 2 and 1 samples may take other kernels than a batch of 3)"""
    monkeypatch.setenv("PADDLE_C_INFER_DP", "0")
    prefix = str(tmp_path / "m")
    _save(prefix, lambda: _Strided3x3(64), [None, 3, -1, -1])
    xv = np.random.default_rng(9).standard_normal([3, 3, 20, 18]).astype("float32")
    outs = {}
    for nt in (2, 1, 2):
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.enable_mkldnn()
        cfg.enable_memory_optim()
        cfg.set_cpu_math_library_num_threads(nt)
        p = pi.create_predictor(cfg)
        got = [p.run([xv])[0] for _ in range(2)]
        np.testing.assert_array_equal(got[0], got[1])
        if nt in outs:
            np.testing.assert_array_equal(got[0], outs[nt])
        outs[nt] = got[0]
    np.testing.assert_array_equal(outs[1], outs[2])
    ref = _predictor(prefix, ir=False, layout=False).run([xv])[0]
    np.testing.assert_allclose(outs[1], ref, rtol=5e-5, atol=5e-5 * np.abs(ref).max())
