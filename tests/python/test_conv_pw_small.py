"""Direct 1x1 convolutions on small planes in the predictor (csrc/kernels/cpu/conv_pw_small.c):
the fused_conv2d 1x1 layers with blocked input and output (nChw16c on AVX-512, nChw8c on AVX2), stride 1 or 2, at most
128 output positions (7x7 at batch 1 and 2, odd planes), with and without a bias, relu / relu6
(clip) / none, with and without the residual add fused into the convolution. Each saved network
runs through the predictor with the kernel (default) and with PADDLE_C_CONV_PW_SMALL=0 (oneDNN),
and with IR off (the plain, unfused program), against a float64 numpy reference; a child process
counts oneDNN's convolution executions (ONEDNN_VERBOSE) to show which layers the kernel took."""
import os
import subprocess
import sys

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn as nn
import paddle.nn.functional as F

TOL = 1e-5  # relative to max |y|
# the kernel runs where our ISA level's channel block is oneDNN's (AVX-512 kernels on oneDNN's
# 16-channel blocks, AVX2 ones on its 8-channel blocks); else (PADDLE_C_ISA=avx2 on an AVX-512 CPU)
# it declines every layer
_INFO = paddle._C.isa_info()
ACTIVE = (_INFO["active"] == "avx512" and _INFO["onednn"].startswith("avx512")) or \
    (_INFO["active"] == "avx2" and _INFO["onednn"].startswith("avx2"))


def _conv3x3_ref(x, w, b):
    """float64 3x3 convolution, pad 1, stride 1, NCHW"""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = x.shape[2] - 2, x.shape[3] - 2
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(3):
        for j in range(3):
            y += np.einsum("nchw,oc->nohw", x[:, :, i:i + oh, j:j + ow], w[:, :, i, j].astype(np.float64))
    return y + b.reshape(1, -1, 1, 1)


def _conv1x1_ref(x, conv, stride=1):
    y = np.einsum("nchw,oc->nohw", x[:, :, ::stride, ::stride], conv.weight.numpy()[:, :, 0, 0].astype(np.float64))
    if conv.bias is not None:
        y = y + conv.bias.numpy().reshape(1, -1, 1, 1)
    return y


def _init(net, seed):
    rng = np.random.default_rng(seed)
    for cv in net.sublayers():
        if isinstance(cv, nn.Conv2D):
            fan = int(np.prod(cv.weight.shape[1:]))
            cv.weight.set_value(rng.standard_normal(cv.weight.shape).astype("float32") / np.sqrt(fan))
            if cv.bias is not None:
                cv.bias.set_value(rng.uniform(-0.5, 0.5, cv.bias.shape).astype("float32"))


class _Block(nn.Layer):
    """a 3x3 stem (makes the activations blocked), then 1x1 layers: relu with a bias, relu6 (clip),
    a residual add + relu, a residual add alone, no bias and no activation; a stride-2 1x1 branch
    where s2 (the stem's plane halved)"""

    def __init__(self, cin, c1, c2, s2):
        super().__init__()
        self.stem = nn.Conv2D(cin, c1, 3, padding=1)
        self.a = nn.Conv2D(c1, c2, 1)
        self.b = nn.Conv2D(c2, c1, 1)
        self.c = nn.Conv2D(c1, c1, 1, bias_attr=False)
        self.d = nn.Conv2D(c1, c2, 1, bias_attr=False)
        self.e = nn.Conv2D(c2, c1, 1)
        self.s2 = s2
        if s2:
            self.f = nn.Conv2D(c1, c2, 1, stride=2)
            self.g = nn.Conv2D(c2, c2, 1)

    def forward(self, x):
        h0 = F.relu(self.stem(x))
        h1 = F.relu(self.a(h0))
        h2 = F.relu6(self.b(h1))
        h3 = F.relu(self.c(h2) + h0)
        h4 = self.d(h3)
        h5 = self.e(h4) + h3
        if not self.s2:
            return h5
        f = self.f(h5)
        return F.relu(self.g(F.relu(f)) + f)

    def ref(self, x):
        h0 = np.maximum(_conv3x3_ref(x, self.stem.weight.numpy(), self.stem.bias.numpy()), 0)
        h1 = np.maximum(_conv1x1_ref(h0, self.a), 0)
        h2 = np.clip(_conv1x1_ref(h1, self.b), 0, 6)
        h3 = np.maximum(_conv1x1_ref(h2, self.c) + h0, 0)
        h5 = _conv1x1_ref(_conv1x1_ref(h3, self.d), self.e) + h3
        if not self.s2:
            return h5
        f = _conv1x1_ref(h5, self.f, 2)
        return np.maximum(_conv1x1_ref(np.maximum(f, 0), self.g) + f, 0)


# (input channels, c1, c2, stride-2 branch): 16 channels (one output block per slab), 48 (3
# blocks), 80 (a full slab + 1 block), ResNet-50's stage 4 widths (512 <-> 2048)
NETS = {"c16": (8, 16, 32, False), "c48": (16, 48, 80, True), "wide": (16, 512, 2048, False)}


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    d = tmp_path_factory.mktemp("pw_small")
    out = {}
    for i, (name, (cin, c1, c2, s2)) in enumerate(NETS.items()):
        paddle.seed(11 + i)
        net = _Block(cin, c1, c2, s2)
        _init(net, 20 + i)
        net.eval()
        prefix = os.path.join(str(d), name)
        paddle.jit.save(paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, cin, None, None],
                                                                                      "float32", "x")]), prefix)
        out[name] = (prefix, net)
    return out


def _run(prefix, x, pw=True, ir=True, threads=None):
    old = os.environ.get("PADDLE_C_CONV_PW_SMALL")
    os.environ["PADDLE_C_CONV_PW_SMALL"] = "1" if pw else "0"
    # the three runs below must agree bit for bit: on the configured thread count throughout (a
    # governor window over one of them moved oneDNN's last bits on the =0 path: found under
    # PADDLE_C_THREAD_GOVERNOR=chaos)
    det = paddle.get_flags("FLAGS_cpu_deterministic")["FLAGS_cpu_deterministic"]
    paddle.set_flags({"FLAGS_cpu_deterministic": True})
    try:
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.enable_mkldnn()
        cfg.enable_memory_optim()
        cfg.switch_ir_optim(ir)
        if threads:
            cfg.set_cpu_math_library_num_threads(threads)
        p = pi.create_predictor(cfg)
        runs = [p.run([x])[0].copy() for _ in range(3)]  # the packed filter cached; the memory plan
        for r in runs[1:]:
            np.testing.assert_array_equal(r, runs[0])
        return runs[0]
    finally:
        paddle.set_flags({"FLAGS_cpu_deterministic": det})
        if old is None:
            os.environ.pop("PADDLE_C_CONV_PW_SMALL", None)
        else:
            os.environ["PADDLE_C_CONV_PW_SMALL"] = old


def _rel_err(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 7, 7), (2, 7, 7), (1, 5, 3), (2, 6, 10), (1, 14, 14)])
@pytest.mark.parametrize("name", list(NETS))
def test_against_numpy(nets, name, shape, threads):
    """the fused predictor with and without the kernel, and IR off, against float64 numpy. 14x14
    at batch 1 (196 positions) stays with oneDNN but for the stride-2 branch (7x7)"""
    if name == "wide" and (shape[0] > 1 or threads > 1 or shape[1:] == (5, 3)):
        pytest.skip("the wide network at one shape and thread count (time)")
    prefix, net = nets[name]
    n, h, w = shape
    x = np.random.default_rng(h * 31 + w).standard_normal((n, NETS[name][0], h, w)).astype("float32")
    ref = net.ref(x)
    got = _run(prefix, x, threads=threads)
    off = _run(prefix, x, pw=False, threads=threads)
    plain = _run(prefix, x, ir=False, threads=threads)
    assert got.shape == ref.shape
    for y in (got, off, plain):
        assert _rel_err(y, ref) < TOL, _rel_err(y, ref)
    if ACTIVE and name == "wide" and shape == (1, 7, 7):  # 512-term sums: a different order shows in the bits
        assert not np.array_equal(got, off), "the kernel did not run"


_CHILD = r"""
import sys, numpy as np, paddle.inference as pi
cfg = pi.Config(sys.argv[1] + ".pdmodel", sys.argv[1] + ".pdiparams")
cfg.enable_mkldnn()
cfg.enable_memory_optim()
p = pi.create_predictor(cfg)
n, h, w = (int(v) for v in sys.argv[2:5])
p.run([np.ones((n, int(sys.argv[5]), h, w), "float32")])
"""


def _dnnl_convs(prefix, shape, cin, pw):
    env = dict(os.environ, ONEDNN_VERBOSE="profile_exec", PADDLE_C_CONV_PW_SMALL="1" if pw else "0",
               PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", _CHILD, prefix, *map(str, shape), str(cin)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return sum(1 for ln in r.stdout.splitlines() if ln.startswith("onednn_verbose") and ",exec," in ln
               and ",convolution," in ln)


@pytest.mark.parametrize("shape,taken", [((1, 7, 7), 7), ((2, 7, 7), 7), ((1, 5, 3), 7), ((1, 12, 12), 2),
                                         ((1, 14, 14), 2), ((1, 24, 24), 0)])
def test_which_layers(nets, shape, taken):
    """oneDNN runs every convolution with PADDLE_C_CONV_PW_SMALL=0; with the kernel on AVX-512 the
    1x1 layers of at most 128 output positions leave it (the c48 network: a, b, c, d, e and the
    stride-2 f and g; 12x12 / 14x14: 144 / 196 positions, only the 6x6 / 7x7 stride-2 branch;
    24x24: its 12x12 branch too has more than 128); the same on AVX2 with oneDNN's 8-channel
    blocks. Where the blocks differ (PADDLE_C_ISA=avx2 on an AVX-512 CPU) oneDNN keeps them all."""
    prefix, _ = nets["c48"]
    off = _dnnl_convs(prefix, shape, 16, False)
    on = _dnnl_convs(prefix, shape, 16, True)
    assert off - on == (taken if ACTIVE else 0), (off, on)


@pytest.mark.parametrize("shape", [(1, 7, 7), (1, 14, 14)])
def test_pretouch_same_bits(nets, shape, monkeypatch):
    """the pre-read of a layer's input (conv_dnnl.h pd_conv_pretouch: this kernel's input, oneDNN's
    source before its layers of 40 MFLOP or more, here the 512 -> 2048 ones at 14x14) only reads:
    2 threads, the same bits with PADDLE_C_PRETOUCH=0 (read per call), both against float64 numpy"""
    prefix, net = nets["wide"]
    x = np.random.default_rng(41).standard_normal((shape[0], NETS["wide"][0]) + shape[1:]).astype("float32")
    on = _run(prefix, x, threads=2)
    monkeypatch.setenv("PADDLE_C_PRETOUCH", "0")
    off = _run(prefix, x, threads=2)
    np.testing.assert_array_equal(on, off)
    assert _rel_err(on, net.ref(x)) < TOL


# ---------------------------------------------------------------- larger kernels (3x3, 5x5)
def _conv_ref_pads(x, w, b, stride, pads):
    """float64 convolution with explicit (top, bottom, left, right) zero padding"""
    t, bo, l, r = pads
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (t, bo), (l, r)))
    kh, kw = w.shape[2:]
    oh, ow = (x.shape[2] - kh) // stride + 1, (x.shape[3] - kw) // stride + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            xs = x[:, :, i:i + (oh - 1) * stride + 1:stride, j:j + (ow - 1) * stride + 1:stride]
            y += np.einsum("nchw,oc->nohw", xs, w[:, :, i, j].astype(np.float64))
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def _conv_ref(x, w, b, stride, pad):
    """float64 convolution, NCHW, symmetric zero padding pad, stride stride"""
    return _conv_ref_pads(x, w, b, stride, (pad,) * 4)


class _KxK(nn.Layer):
    """a 3x3 stem (blocked activations), then stride-2 layers with larger kernels: 3x3 pad 1 + relu,
    3x3 pad 0 without a bias (no border to pad: the input read as it is), 5x5 pad 2 + relu6, and a
    stride-1 3x3 pad 1 layer whose output is added to the last one's (the residual fused into it)"""

    def __init__(self, cin, c1, c2):
        super().__init__()
        self.stem = nn.Conv2D(cin, c1, 3, padding=1)
        self.a = nn.Conv2D(c1, c2, 3, stride=2, padding=1)
        self.b = nn.Conv2D(c2, c1, 3, stride=2, padding=0, bias_attr=False)
        self.c = nn.Conv2D(c1, c2, 5, stride=2, padding=2)
        self.d = nn.Conv2D(c2, c2, 3, padding=1)

    def forward(self, x):
        h = F.relu(self.stem(x))
        a = F.relu(self.a(h))
        c = F.relu6(self.c(self.b(a)))
        return F.relu(self.d(c) + c)

    def ref(self, x):
        p = lambda cv: (cv.weight.numpy(), None if cv.bias is None else cv.bias.numpy())  # noqa: E731
        h = np.maximum(_conv_ref(x, *p(self.stem), 1, 1), 0)
        a = np.maximum(_conv_ref(h, *p(self.a), 2, 1), 0)
        c = np.clip(_conv_ref(_conv_ref(a, *p(self.b), 2, 0), *p(self.c), 2, 2), 0, 6)
        return np.maximum(_conv_ref(c, *p(self.d), 1, 1) + c, 0)


def _save_kxk(d, name, c1, c2, seed):
    paddle.seed(seed)
    net = _KxK(16, c1, c2)
    _init(net, seed + 26)
    net.eval()
    prefix = os.path.join(str(d), name)
    paddle.jit.save(paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 16, None, None],
                                                                                  "float32", "x")]), prefix)
    return prefix, net


@pytest.fixture(scope="module")
def kxk_net(tmp_path_factory):
    return _save_kxk(tmp_path_factory.mktemp("pw_kxk"), "kxk", 48, 80, 5)


def test_kxk_wide_passes(tmp_path):
    """512 channels: a slab's 3x3 weights (3 x 512 x 64 channels, 1.2 MB) run in three passes over the
    kernel rows with partial sums kept in y, the 5x5 layer's in five; the relu / relu6 and the
    residual applied once, after the last pass. Against float64 numpy and against =0"""
    prefix, net = _save_kxk(tmp_path, "wide", 512, 512, 9)
    x = np.random.default_rng(3).standard_normal((1, 16, 14, 14)).astype("float32")
    ref = net.ref(x)
    rule = _run_env(prefix, x, {})
    every = _run_env(prefix, x, {"PADDLE_C_CONV_SMALL_KXK": "1"})
    off = _run_env(prefix, x, {"PADDLE_C_CONV_SMALL_KXK": "0"})
    for y in (rule, every, off):
        assert _rel_err(y, ref) < TOL, _rel_err(y, ref)
    if ACTIVE:
        assert not np.array_equal(rule, off), "the kernel did not run"


def _run_env(prefix, x, env, threads=2):
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return _run(prefix, x, pw=env.get("PADDLE_C_CONV_PW_SMALL", "1") != "0", threads=threads)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 14, 14), (2, 13, 9), (1, 20, 22), (3, 8, 8)])
def test_kxk_against_numpy(kxk_net, shape, threads):
    """the stride-2 3x3 / 5x5 layers on the kernel (the rule), every eligible layer on it (=1: the
    stride-1 3x3 too), none (=0: oneDNN / Winograd), all against float64 numpy; 20x22 gives the
    first stride-2 layer 110 output positions (taken), (3, 8, 8) 48 (taken at every layer)"""
    prefix, net = kxk_net
    n, h, w = shape
    x = np.random.default_rng(h * 7 + w).standard_normal((n, 16, h, w)).astype("float32")
    ref = net.ref(x)
    rule = _run_env(prefix, x, {}, threads)
    every = _run_env(prefix, x, {"PADDLE_C_CONV_SMALL_KXK": "1"}, threads)
    off = _run_env(prefix, x, {"PADDLE_C_CONV_SMALL_KXK": "0"}, threads)
    for y in (rule, every, off):
        assert y.shape == ref.shape
        assert _rel_err(y, ref) < TOL, _rel_err(y, ref)
    if ACTIVE:
        assert not np.array_equal(rule, off), "the kernel did not run"


def _dnnl_convs_env(prefix, shape, cin, env):
    e = dict(os.environ, ONEDNN_VERBOSE="profile_exec", PYTHONPATH=os.pathsep.join(sys.path),
             PADDLE_C_WINOGRAD="0", PADDLE_C_WINOGRAD_S2="0", **env)
    r = subprocess.run([sys.executable, "-c", _CHILD, prefix, *map(str, shape), str(cin)], env=e,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return sum(1 for ln in r.stdout.splitlines() if ln.startswith("onednn_verbose") and ",exec," in ln
               and ",convolution," in ln)


@pytest.mark.parametrize("shape,rule,every", [((1, 14, 14), 3, 4), ((1, 24, 24), 2, 3), ((1, 40, 40), 2, 3),
                                              ((1, 64, 64), 1, 2), ((1, 96, 96), 0, 0)])
def test_kxk_which_layers(kxk_net, shape, rule, every):
    """oneDNN convolutions left (Winograd off, so that only this kernel can take a layer) with the
    rule and with =1, against =0. Output planes of a / b / c (d as c): 14x14 input 7x7 / 3x3 / 2x2, all
    three stride-2 layers taken (+ the stride-1 one with =1); 24x24: 12x12 (144 positions: oneDNN) /
    5x5 / 3x3; 40x40: 20x20 / 9x9 / 5x5; 64x64: 32x32 / 15x15 (225) / 8x8; 96x96: 48x48 / 23x23 /
    12x12, none of at most 128 positions"""
    prefix, _ = kxk_net
    off = _dnnl_convs_env(prefix, shape, 16, {"PADDLE_C_CONV_SMALL_KXK": "0"})
    on = _dnnl_convs_env(prefix, shape, 16, {})
    ev = _dnnl_convs_env(prefix, shape, 16, {"PADDLE_C_CONV_SMALL_KXK": "1"})
    assert (off - on, off - ev) == ((rule, every) if ACTIVE else (0, 0)), (off, on, ev)


@pytest.mark.parametrize("k,padding,pads", [(4, 1, None), (2, 0, None), (7, 3, None), (5, [1, 2, 0, 1], (1, 2, 0, 1)),
                                            (3, "SAME", "same"), (4, "SAME", "same")])
def test_kxk_even_kernels_and_asymmetric_padding(tmp_path, k, padding, pads):
    """stride-2 layers with even kernels, asymmetric padding (Paddle's [top, bottom, left, right]) and
    SAME (its asymmetric split of the padding): the padded copy's borders against float64 numpy"""
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2D(3, 32, 3, padding=1)
            self.a = nn.Conv2D(32, 48, k, stride=2, padding=padding)

        def forward(self, x):
            return F.relu(self.a(F.relu(self.stem(x))))

    paddle.seed(k)
    net = Net()
    _init(net, 40 + k)
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 3, None, None],
                                                                                  "float32", "x")]), prefix)
    for shape in [(1, 3, 13, 11), (2, 3, 16, 16), (1, 3, 9, 20)]:
        x = np.random.default_rng(1).standard_normal(shape).astype("float32")
        h = np.maximum(_conv_ref(x, net.stem.weight.numpy(), net.stem.bias.numpy(), 1, 1), 0)
        p = pads
        if p is None:
            p = (padding,) * 4
        elif p == "same":  # Paddle's SAME: out = ceil(in / 2), the extra row / column at the bottom / right
            ph = max((-(-shape[2] // 2) - 1) * 2 + k - shape[2], 0)
            pw = max((-(-shape[3] // 2) - 1) * 2 + k - shape[3], 0)
            p = (ph // 2, ph - ph // 2, pw // 2, pw - pw // 2)
        want = np.maximum(_conv_ref_pads(h, net.a.weight.numpy(), net.a.bias.numpy(), 2, p), 0)
        got = _run_env(prefix, x, {})
        off = _run_env(prefix, x, {"PADDLE_C_CONV_SMALL_KXK": "0"})
        assert got.shape == want.shape, (got.shape, want.shape)
        assert _rel_err(got, want) < TOL and _rel_err(off, want) < TOL, (_rel_err(got, want), _rel_err(off, want))
        if ACTIVE:
            assert not np.array_equal(got, off), "the kernel did not run"
