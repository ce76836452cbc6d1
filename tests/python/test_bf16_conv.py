"""bfloat16 convolutions (issue 21 item 2, issue 17's EnableMkldnnBfloat16; docs/arch/autograd_training.md
"bfloat16 convolutions"): conv2d / depthwise / grouped / conv2d_transpose / conv3d in bfloat16,
forward and the three gradients, on both paths: oneDNN's bf16 primitives where the CPU has bf16
units (avx512_bf16 / AMX) and the float32 fallback (PADDLE_C_BF16_UNITS=0, or a CPU without
them). References: float64 numpy convolutions (tests/ops/ref_conv.py) for the forward, the float32
kernels (checked against float64 by the op sweep) on the same bf16-rounded values for the
gradients. Then a ResNet-style block's training step under auto_cast(bfloat16) against float32,
and the predictor's bfloat16 mode on a fixture model against its float32 run."""
import os
import sys

import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from paddle import _C

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "ops"))
import ref_conv  # noqa: E402
from bf16_util import bf16_round, close, f32  # noqa: E402

UNITS = bool(_C.isa_info()["bf16_units"])
PATHS = [pytest.param("units", marks=pytest.mark.skipif(not UNITS, reason="this CPU has no bf16 units "
                                                                           "(avx512_bf16 / AMX): only the fallback runs")),
         "fallback"]


@pytest.fixture
def path(request, monkeypatch):
    # PADDLE_C_BF16_UNITS is read on every convolution (csrc/core/pd_isa.c pd_bf16_units_enabled)
    monkeypatch.setenv("PADDLE_C_BF16_UNITS", "1" if request.param == "units" else "0")
    return request.param


CASES = {
    # name: (op, x shape, w shape, keyword arguments)
    "3x3s2": ("conv2d", [2, 16, 9, 8], [32, 16, 3, 3], dict(stride=2, padding=1)),
    "1x1": ("conv2d", [2, 32, 7, 7], [16, 32, 1, 1], dict()),
    "groups_dil": ("conv2d", [2, 16, 8, 9], [24, 8, 3, 3], dict(padding=[1, 2], groups=2, dilation=[1, 2])),
    "depthwise": ("conv2d", [2, 32, 8, 8], [32, 1, 3, 3], dict(padding=1, groups=32)),
    "nhwc": ("conv2d", [2, 7, 6, 16], [16, 16, 3, 3], dict(padding=1, data_format="NHWC")),
    "transpose": ("conv2d_transpose", [2, 16, 5, 4], [16, 8, 3, 3], dict(stride=2, padding=1, output_padding=1)),
    "conv3d": ("conv3d", [1, 16, 4, 5, 4], [16, 16, 3, 3, 3], dict(padding=1)),
}


def run_conv(op, x, w, b, kw):
    fn = {"conv2d": F.conv2d, "conv2d_transpose": F.conv2d_transpose, "conv3d": F.conv3d}[op]
    return fn(x, w, bias=b, **kw)


def numpy_forward(op, x, w, b, kw):
    x, w, b = x.astype(np.float64), w.astype(np.float64), b.astype(np.float64)
    nhwc = kw.get("data_format") == "NHWC"
    fmt = "NHWC" if nhwc else ("NCDHW" if x.ndim == 5 else "NCHW")
    nsp = x.ndim - 2
    s = kw.get("stride", 1)
    p = kw.get("padding", 0)
    d = kw.get("dilation", 1)
    g = kw.get("groups", 1)
    lst = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * nsp  # noqa: E731
    if op == "conv2d_transpose":
        y = ref_conv.conv_transpose(x, w, lst(s), lst(p), lst(kw.get("output_padding", 0)), [], "EXPLICIT", g, lst(d))
        return y + b.reshape([1, -1] + [1] * nsp)
    return ref_conv.conv_bias(x, w, lst(s), lst(p), "EXPLICIT", g, lst(d), fmt, b)


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("case", list(CASES))
def test_forward_and_three_gradients(path, case):
    op, xs, ws, kw = CASES[case]
    rng = np.random.default_rng(len(case))
    nout = ws[1] * kw.get("groups", 1) if op == "conv2d_transpose" else ws[0]
    xv = bf16_round(rng.uniform(-1, 1, xs).astype(np.float32))
    wv = bf16_round(rng.uniform(-1, 1, ws).astype(np.float32))
    bv = bf16_round(rng.uniform(-1, 1, [nout]).astype(np.float32))
    grads = {}
    for dt in ("bfloat16", "float32"):
        x = paddle.to_tensor(xv).astype(dt)
        w = paddle.to_tensor(wv).astype(dt)
        b = paddle.to_tensor(bv).astype(dt)
        for t in (x, w, b):
            t.stop_gradient = False
        y = run_conv(op, x, w, b, kw)
        if dt == "bfloat16":
            assert y.dtype == paddle.bfloat16
            close(f32(y), numpy_forward(op, xv, wv, bv, kw), f"{case} forward")
            dyv = bf16_round(np.random.default_rng(7).uniform(-1, 1, y.shape).astype(np.float32))
        dx, dw, db = paddle.grad([y], [x, w, b], grad_outputs=[paddle.to_tensor(dyv).astype(dt)])
        if dt == "bfloat16":
            assert dx.dtype == dw.dtype == db.dtype == paddle.bfloat16
        grads[dt] = [f32(t) for t in (dx, dw, db)]
    for name, got, want in zip(("input", "filter", "bias"), grads["bfloat16"], grads["float32"]):
        close(got, want, f"{case} d{name}")


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_paths_agree_and_fallback_rounds_once(path):
    """Both paths compute in float32 and round each output once: the result is the float32
    convolution's of the same bf16 values, rounded (up to the order of the float32 sums: a few
    outputs may land on the neighbouring bfloat16)."""
    rng = np.random.default_rng(3)
    xv = bf16_round(rng.uniform(-1, 1, [2, 16, 10, 10]).astype(np.float32))
    wv = bf16_round(rng.uniform(-1, 1, [16, 16, 3, 3]).astype(np.float32))
    y = f32(F.conv2d(paddle.to_tensor(xv).astype("bfloat16"), paddle.to_tensor(wv).astype("bfloat16"), padding=1))
    ref = bf16_round(F.conv2d(paddle.to_tensor(xv), paddle.to_tensor(wv), padding=1).numpy())
    differ = np.mean(y != ref)
    assert differ < 0.02, differ
    close(y, ref, "conv2d bf16 vs rounded float32", tol=1e-2)


class Block(paddle.nn.Layer):
    """A ResNet bottleneck with a projection shortcut, then pooling and a classifier."""

    def __init__(self):
        super().__init__()
        self.c1 = paddle.nn.Conv2D(16, 16, 1, bias_attr=False)
        self.b1 = paddle.nn.BatchNorm2D(16)
        self.c2 = paddle.nn.Conv2D(16, 16, 3, padding=1, bias_attr=False)
        self.b2 = paddle.nn.BatchNorm2D(16)
        self.c3 = paddle.nn.Conv2D(16, 32, 1, bias_attr=False)
        self.b3 = paddle.nn.BatchNorm2D(32)
        self.sc = paddle.nn.Conv2D(16, 32, 1, stride=1, bias_attr=False)
        self.pool = paddle.nn.MaxPool2D(2, 2)
        self.fc = paddle.nn.Linear(32, 10)

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        h = F.relu(self.b2(self.c2(h)))
        h = self.b3(self.c3(h))
        h = F.relu(h + self.sc(x))
        h = self.pool(h).mean(axis=[2, 3])
        return self.fc(h)


def block_step(net, x, lab, bf16):
    """loss and the parameters' gradients of one step"""
    if bf16:
        with paddle.amp.auto_cast(dtype="bfloat16"):
            out = net(x)
            assert net.c2(net.c1(x)).dtype == paddle.bfloat16  # the convolutions run in bf16
        loss = F.cross_entropy(out.astype("float32"), lab)
    else:
        loss = F.cross_entropy(net(x), lab)
    loss.backward()
    grads = {p.name: p.grad.numpy().copy() for p in net.parameters() if not p.stop_gradient}
    net.clear_gradients()
    return float(loss), grads


def rel_errors(got, want):
    out = {}
    for name, w in want.items():
        assert got[name].dtype == np.float32  # the float32 parameters get float32 gradients
        out[name] = float(np.linalg.norm(got[name] - w) / max(np.linalg.norm(w), 1e-30))
    return out


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_resnet_block_training_step_under_auto_cast(path):
    """Against float32: the loss within 2%, the gradients within bf16's reach. Each batch-norm
    backward subtracts means of bf16 values from bf16 values, so the error grows towards the input
    (measured here: 0.2% at the classifier, 3% at the shortcut, ~9% at the first convolution, the
    same on both paths): 15% allowed there, 2% for the layers after the last batch norm."""
    paddle.seed(5)
    net = Block()
    rng = np.random.default_rng(5)
    x = paddle.to_tensor(rng.standard_normal([4, 16, 12, 12]).astype(np.float32))
    lab = paddle.to_tensor(rng.integers(0, 10, [4, 1]).astype(np.int64))
    l32, g32 = block_step(net, x, lab, False)
    l16, g16 = block_step(net, x, lab, True)
    assert abs(l16 - l32) <= 2e-2 * abs(l32)
    rels = rel_errors(g16, g32)
    assert max(rels.values()) < 0.15, rels
    assert max(v for k, v in rels.items() if k.startswith("linear")) < 2e-2, rels


@pytest.mark.skipif(not UNITS, reason="this CPU has no bf16 units (avx512_bf16 / AMX): only the fallback runs")
def test_resnet_block_units_and_fallback_agree(monkeypatch):
    """The two bf16 paths differ only in how the convolutions sum in float32."""
    paddle.seed(6)
    net = Block()
    rng = np.random.default_rng(6)
    x = paddle.to_tensor(rng.standard_normal([4, 16, 12, 12]).astype(np.float32))
    lab = paddle.to_tensor(rng.integers(0, 10, [4, 1]).astype(np.int64))
    res = []
    for units in ("1", "0"):
        monkeypatch.setenv("PADDLE_C_BF16_UNITS", units)
        res.append(block_step(net, x, lab, True))
    assert abs(res[0][0] - res[1][0]) <= 1e-2 * abs(res[1][0])
    rels = rel_errors(res[0][1], res[1][1])
    assert max(rels.values()) < 0.1, rels


# ------------------------------------------------------------------------- the predictor
sys.path.insert(0, HERE)
from fixture_util import fc, needs_fixtures  # noqa: E402  (the fixture cases)
from test_inference import run as _run  # noqa: E402  (the feed/run/fetch helper)


def _predict(cfg, feeds):
    import paddle.inference as pi
    return _run(pi.create_predictor(cfg), feeds)


@needs_fixtures
@pytest.mark.parametrize("model", ["paddleclas_mbv3_small_3cls", "ppocr_mobile_v2_cls"])
@pytest.mark.parametrize("ir", [True, False])
def test_predictor_bfloat16_on_fixture_model(model, ir):
    import paddle.inference as pi
    name, make = fc.MODELS[model][1][0]
    feeds = make()
    # the switch turns the mode off too; PADDLE_C_FAKE_NO_BF16 plays a CPU without the units
    units = UNITS and os.environ.get("PADDLE_C_BF16_UNITS") != "0" and os.environ.get("PADDLE_C_FAKE_NO_BF16") != "1"
    outs = []
    for bf16 in (False, True):
        cfg = pi.Config(*fc.paths(model))
        cfg.disable_gpu()
        cfg.switch_ir_optim(ir)
        if bf16:
            if not units:
                with pytest.warns(RuntimeWarning, match="AVX512_BF16|PADDLE_C_BF16_UNITS"):
                    cfg.enable_mkldnn_bfloat16()
                assert not cfg.mkldnn_bfloat16_enabled()
            else:
                cfg.enable_mkldnn_bfloat16()
                assert cfg.mkldnn_bfloat16_enabled()
                line = next(ln for ln in cfg.summary().splitlines() if "mkldnn_bfloat16" in ln)
                assert "true" in line and "bf16" in line, line
        outs.append(_predict(cfg, feeds))
    f32o, bf16o = outs
    for a, b in zip(f32o, bf16o):
        assert b.dtype == a.dtype and b.shape == a.shape
        if not units:
            np.testing.assert_array_equal(b, a)  # nothing changed
            continue
        close(b, a, f"{model} bf16 vs float32", tol=3e-2)
        assert not np.array_equal(b, a)  # it did run in bfloat16
        if a.ndim == 2 and a.shape[1] > 1:
            np.testing.assert_array_equal(b.argmax(1), a.argmax(1))


# pointwise convolutions without bias: on the units, bf16 matmuls on the plain buffers
# (conv_dnnl.c pw_bf16: forward, data gradient, filter gradient where the plane is large enough)
# ([3, 64, 4, 4], 96) and ([4, 24, 1, 1], 40): planes small against the channels, the filter gradient as
# one product over the batch's positions (pw_bf16_wgrad_rows), and with the other small planes (under 100
# values, more than one image) the forward and data gradient too (pw_bf16_rows)
PW_CASES = [([3, 13, 5, 7], 11), ([2, 32, 9, 9], 48), ([4, 24, 1, 1], 40), ([2, 8, 3, 3], 200), ([1, 5, 17, 3], 3),
            ([3, 64, 4, 4], 96)]


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("xs,cout", PW_CASES)
def test_pointwise_no_bias(path, xs, cout):
    rng = np.random.default_rng(xs[1] + cout)
    xv = bf16_round(rng.uniform(-1, 1, xs).astype(np.float32))
    wv = bf16_round(rng.uniform(-1, 1, [cout, xs[1], 1, 1]).astype(np.float32))
    dyv = bf16_round(rng.uniform(-1, 1, [xs[0], cout] + xs[2:]).astype(np.float32))
    x64, w64, dy64 = (a.astype(np.float64) for a in (xv, wv, dyv))
    w2 = w64[:, :, 0, 0]
    x = paddle.to_tensor(xv).astype("bfloat16")
    w = paddle.to_tensor(wv).astype("bfloat16")
    x.stop_gradient = w.stop_gradient = False
    y = F.conv2d(x, w)
    assert y.dtype == paddle.bfloat16
    close(f32(y), np.einsum("oc,nchw->nohw", w2, x64), "forward", tol=1e-2)
    dx, dw = paddle.grad([y], [x, w], grad_outputs=[paddle.to_tensor(dyv).astype("bfloat16")])
    assert dx.dtype == dw.dtype == paddle.bfloat16
    close(f32(dx), np.einsum("oc,nohw->nchw", w2, dy64), "dx", tol=1e-2)
    close(f32(dw)[:, :, 0, 0], np.einsum("nohw,nchw->oc", dy64, x64), "dw", tol=1e-2)


@pytest.mark.skipif(not UNITS, reason="the pointwise matmul path runs on the bf16 units only")
def test_pointwise_matmul_path_matches_convolution():
    """PADDLE_C_CONV_PW_BF16 (read once per process): the matmul path and oneDNN's convolutions
    give the same bf16 values up to the order of the float32 sums"""
    import subprocess
    code = ("import numpy as np, paddle, paddle.nn.functional as F\n"
            "r = np.random.default_rng(0)\n"
            "x = paddle.to_tensor(r.uniform(-1, 1, [3, 24, 20, 20]).astype('float32')).astype('bfloat16')\n"
            "w = paddle.to_tensor(r.uniform(-1, 1, [40, 24, 1, 1]).astype('float32')).astype('bfloat16')\n"
            "dy = paddle.to_tensor(r.uniform(-1, 1, [3, 40, 20, 20]).astype('float32')).astype('bfloat16')\n"
            "x.stop_gradient = w.stop_gradient = False\n"
            "y = F.conv2d(x, w)\n"
            "dx, dw = paddle.grad([y], [x, w], grad_outputs=[dy])\n"
            "np.save(__import__('sys').argv[1], np.concatenate([t.astype('float32').numpy().ravel() for t in (y, dx, dw)]))\n")
    import tempfile
    outs = []
    with tempfile.TemporaryDirectory() as d:
        for mode in ("none", "012"):
            env = dict(os.environ, PADDLE_C_CONV_PW_BF16=mode, PYTHONPATH=os.path.join(REPO, "python"))
            f = os.path.join(d, mode + ".npy")
            subprocess.run([sys.executable, "-c", code, f], env=env, check=True, cwd=d)
            outs.append(np.load(f))
    assert np.mean(outs[0] != outs[1]) < 0.05
    close(outs[1], outs[0], "matmul path vs convolutions", tol=1e-2)
