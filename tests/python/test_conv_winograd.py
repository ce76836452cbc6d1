"""Winograd F(2x2, 3x3) convolutions in the predictor (csrc/kernels/cpu/conv_winograd.c): the
stride-1 3x3 fused_conv2d layers of a saved network, run with PADDLE_C_WINOGRAD=1 (every eligible
layer, thresholds ignored) against a float64 numpy convolution of each layer's own input, and
against the same predictor with PADDLE_C_WINOGRAD=0 (oneDNN's direct kernels; results must differ
in the last bits, which shows the other kernel ran). Shapes: odd and even planes, pads 0 / 1,
batch 1 and 3, channels 16..256 (8-multiples: blocked nChw8c in and out) plus a chain whose
intermediates are fetched (plain NCHW in and out) and a first layer fed a plain input. Errors are
measured relative to each output's scale (max |y|): F(2x2, 3x3) stays within ~1e-6 of it."""
import os

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn as nn
import paddle.nn.functional as F

# relative to max |y| per layer, by tile (PADDLE_C_WINOGRAD=1: F(2x2, 3x3), =4: F(4x4, 3x3));
# measured maxima in docs/performance_log.md, "Winograd convolutions in the predictor and in training"
TOL = {"1": 1e-5, "4": 5e-5}


def _conv_ref(x, w, b, pad, act, stride=1):
    """float64 direct convolution, NCHW, 3x3, stride 1 (or 2: test_conv_winograd_s2.py)"""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    oh, ow = (h - 3) // stride + 1, (wd - 3) // stride + 1
    y = np.zeros((n, w.shape[0], oh, ow))
    for i in range(3):
        for j in range(3):
            xs = x[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            y += np.einsum("nchw,oc->nohw", xs, w[:, :, i, j].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    if act == "relu":
        y = np.maximum(y, 0)
    elif act == "relu6":
        y = np.clip(y, 0, 6)
    return y


# (in channels, out channels, pad, bias, activation) per layer of a chain
LAYERS = [(16, 32, 1, True, "relu"), (32, 64, 0, True, None), (64, 48, 1, False, "relu6"), (48, 256, 1, True, "relu"),
          (256, 24, 0, True, None)]


class _Chain(nn.Layer):
    """3x3 convolutions (stride 1, or 2 for test_conv_winograd_s2.py), layers as LAYERS'"""

    def __init__(self, layers, stride=1):
        super().__init__()
        self.convs = nn.LayerList([nn.Conv2D(ci, co, 3, stride=stride, padding=p, bias_attr=None if b else False)
                                   for ci, co, p, b, _ in layers])
        self.acts = [a for *_, a in layers]
        rng = np.random.default_rng(5)
        for cv in self.convs:  # weights of unit-ish output scale
            fan = cv.weight.shape[1] * 9
            cv.weight.set_value(rng.standard_normal(cv.weight.shape).astype("float32") / np.sqrt(fan))
            if cv.bias is not None:
                cv.bias.set_value(rng.uniform(-0.5, 0.5, cv.bias.shape).astype("float32"))

    def forward(self, x):
        outs = []
        for cv, a in zip(self.convs, self.acts):
            x = cv(x)
            x = F.relu(x) if a == "relu" else F.relu6(x) if a == "relu6" else x
            outs.append(x)
        return outs


def _save_chain(d, layers, stride=1):
    """the chain saved twice under d: "last" (only the last output fetched: intermediates stay blocked
    between the layers) and "all" (every output fetched: plain NCHW with fetch "plain"); its params"""
    paddle.seed(3)
    net = _Chain(layers, stride)
    net.eval()
    spec = [paddle.static.InputSpec([None, layers[0][0], None, None], "float32", "x")]
    last = os.path.join(str(d), "last")
    allf = os.path.join(str(d), "all")
    paddle.jit.save(paddle.jit.to_static(lambda x: net(x)[-1], input_spec=spec), last)
    paddle.jit.save(paddle.jit.to_static(lambda x: net(x), input_spec=spec), allf)
    params = [(cv.weight.numpy(), None if cv.bias is None else cv.bias.numpy()) for cv in net.convs]
    return last, allf, params


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("wino")
    last, allf, params = _save_chain(d, LAYERS)
    one = _Chain([(32, 32, 1, True, "relu")])
    one.eval()
    onef = os.path.join(str(d), "one")
    paddle.jit.save(paddle.jit.to_static(lambda x: one(x)[0], input_spec=[paddle.static.InputSpec(
        [None, 32, None, None], "float32", "x")]), onef)
    return last, allf, params, onef


def _run(prefix, x, wino, fetch="blocked", threads=None, var="PADDLE_C_WINOGRAD"):
    """fetch "plain": the executor makes fetched values plain (PADDLE_C_INFER_FETCH=plain, read per
    predictor), so a fetched convolution output is written plain NCHW; by default it may stay
    blocked (the output handle reorders it). wino: the value of var (None: unset)"""
    old = os.environ.get(var)
    if wino is None:
        os.environ.pop(var, None)
    else:
        os.environ[var] = wino
    if fetch == "plain":
        os.environ["PADDLE_C_INFER_FETCH"] = "plain"
    try:
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.enable_mkldnn()
        cfg.enable_memory_optim()
        if threads:
            cfg.set_cpu_math_library_num_threads(threads)
        p = pi.create_predictor(cfg)
        first = p.run([x])
        again = p.run([x])  # the cached filter transform, the memory plan's reused buffers
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
        return first
    finally:
        os.environ.pop("PADDLE_C_INFER_FETCH", None)
        if old is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = old


def _rel_err(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


@pytest.mark.parametrize("fetch", ["plain", "blocked"])
@pytest.mark.parametrize("wino", ["1", "4"])
@pytest.mark.parametrize("shape", [(1, 16, 13, 11), (3, 16, 8, 9), (1, 16, 5, 5)])
def test_chain_fetch_all_plain(models, shape, wino, fetch):
    """every layer's output fetched: with fetch "plain" the layers write plain NCHW (the output
    transforms' scatter path), else blocked values reordered by the output handles"""
    _, allf, params, _ = models
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    outs = _run(allf, x, wino, fetch)
    tol = TOL[wino]
    direct = _run(allf, x, "0", fetch)
    inp = x
    for (ci, co, pad, _, act), (w, b), y, yd in zip(LAYERS, params, outs, direct):
        ref = _conv_ref(inp, w, b, pad, act)
        assert y.shape == ref.shape
        assert _rel_err(y, ref) < tol, (ci, co, pad, _rel_err(y, ref))
        assert _rel_err(yd, ref) < 1e-5
        inp = y
    assert any(not np.array_equal(y, yd) for y, yd in zip(outs, direct)), "Winograd did not run"


@pytest.mark.parametrize("wino", ["1", "4"])
@pytest.mark.parametrize("shape", [(1, 16, 17, 15), (3, 16, 10, 7)])
def test_chain_blocked(models, shape, wino):
    last, _, params, _ = models
    x = np.random.default_rng(2).standard_normal(shape).astype("float32")
    (y,) = _run(last, x, wino)
    (yd,) = _run(last, x, "0")
    ref = x
    for (_, _, pad, _, act), (w, b) in zip(LAYERS, params):
        ref = _conv_ref(ref, w, b, pad, act)
    assert y.shape == ref.shape
    assert _rel_err(y, ref) < TOL[wino] * 2  # five layers compounded
    assert _rel_err(yd, ref) < 2e-5
    assert not np.array_equal(y, yd), "Winograd did not run"


@pytest.mark.parametrize("wino", ["1", "4"])
@pytest.mark.parametrize("shape", [(1, 16, 17, 15), (2, 16, 10, 7)])
def test_two_threads_shared_input_transform(models, shape, wino, monkeypatch):
    """at 2 threads a layer with fewer tile blocks than 2 x threads splits its output channels into
    chunks (the 64- and 256-channel layers here); the inputs are transformed once into a V the
    chunks share (PADDLE_C_WINOGRAD_SHARED_V=0: each chunk transformed its own). Every fetched layer
    against float64 numpy, and bit-equal to the per-chunk transform and to one thread (the same
    arithmetic per output)"""
    _, allf, params, _ = models
    monkeypatch.setenv("PADDLE_C_WINOGRAD_TSPLIT", "0")  # no tile halves (test_batch1_tile_halves_two_threads)
    x = np.random.default_rng(6).standard_normal(shape).astype("float32")
    two = _run(allf, x, wino, "plain", threads=2)
    one = _run(allf, x, wino, "plain", threads=1)
    monkeypatch.setenv("PADDLE_C_WINOGRAD_SHARED_V", "0")
    per_chunk = _run(allf, x, wino, "plain", threads=2)
    direct = _run(allf, x, "0", "plain", threads=2)
    inp = x
    for (ci, co, pad, _, act), (w, b), y, y1, yc in zip(LAYERS, params, two, one, per_chunk):
        ref = _conv_ref(inp, w, b, pad, act)
        assert _rel_err(y, ref) < TOL[wino], (ci, co, _rel_err(y, ref))
        np.testing.assert_array_equal(y, yc)
        np.testing.assert_array_equal(y, y1)
        inp = y
    assert any(not np.array_equal(y, yd) for y, yd in zip(two, direct)), "Winograd did not run"


@pytest.mark.parametrize("hw", [16, 8, 6])
def test_auto_thresholds(models, hw, monkeypatch):
    """unset (auto): a 32-channel layer of 16x16 (16 4x4 tiles) runs F(4x4, 3x3) on both ISA levels;
    one of 8x8 (4 / 16 tiles) F(2x2, 3x3) in the predictor on both (16 2x2 tiles; on AVX2 with
    PADDLE_C_WINOGRAD_F2SMALL=0, read per call, oneDNN as before); one of 6x6 (4 / 9 tiles) oneDNN
    on both. Bit-equal to the forced run of the same kernel, and not to the other kernels'."""
    one = models[3]
    x = np.random.default_rng(4).standard_normal((1, 32, hw, hw)).astype("float32")
    avx2 = paddle._C.isa_info()["active"] == "avx2"
    want = {16: "4", 8: "2", 6: "0"}[hw]
    runs = {t: _run(one, x, t)[0] for t in ("auto", "0", "1", "4")}
    runs["2"] = runs.pop("1")
    assert not np.array_equal(runs["2"], runs["0"]) and not np.array_equal(runs["4"], runs["0"])
    for t in ("0", "2", "4"):
        if t == want:
            np.testing.assert_array_equal(runs["auto"], runs[t])
        else:
            assert not np.array_equal(runs["auto"], runs[t]), t
    if avx2 and hw == 8:
        monkeypatch.setenv("PADDLE_C_WINOGRAD_F2SMALL", "0")
        np.testing.assert_array_equal(_run(one, x, None)[0], runs["0"])


class _Narrow(nn.Layer):
    """a 3x3 layer with 24 output channels (padded blocks where the predictor's block is 16) whose
    output a second convolution reads blocked, and an elementwise add reads with its padding lanes"""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2D(32, 24, 3, padding=1)
        self.b = nn.Conv2D(24, 16, 1)

    def forward(self, x):
        y = F.relu(self.a(x))
        return self.b(y + y)


def test_padded_blocked_output(tmp_path, capfd, monkeypatch):
    """24 output channels on nChw16c (AVX-512) are a padded block: Winograd writes the 24 channels
    and zeros in the 8 padding lanes (the trace checks them), and the result matches numpy and
    oneDNN's; on AVX2 (nChw8c) the same layer fills whole blocks"""
    paddle.seed(7)
    net = _Narrow()
    net.eval()
    prefix = str(tmp_path / "narrow")
    paddle.jit.save(paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 32, None, None], "float32",
                                                                                  "x")]), prefix)
    w1, b1 = net.a.weight.numpy(), net.a.bias.numpy()
    w2, b2 = net.b.weight.numpy()[:, :, 0, 0].astype(np.float64), net.b.bias.numpy()
    x = np.random.default_rng(6).standard_normal((3, 32, 13, 10)).astype("float32")
    y = 2 * _conv_ref(x, w1, b1, 1, "relu")
    ref = np.einsum("nchw,oc->nohw", y, w2) + b2.reshape(1, -1, 1, 1)
    off = _run(prefix, x, "0")[0]
    assert _rel_err(off, ref) < 1e-5
    for wino in ("1", "4", "auto"):
        got = _run(prefix, x, wino)[0]
        assert _rel_err(got, ref) < TOL.get(wino, TOL["4"]), wino
        assert not np.array_equal(got, off), "Winograd did not run: " + wino  # auto: from O = 24
    monkeypatch.setenv("PADDLE_C_WINOGRAD", "4")
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.enable_mkldnn()
    cfg.enable_memory_optim()
    p = pi.create_predictor(cfg)
    capfd.readouterr()
    for _ in range(2):
        p.run([x])
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("[layout]")]
    assert not any("padding not zero" in ln or "made plain" in ln for ln in lines), lines
    first = next(ln for ln in lines if ln.startswith("[layout] fused_conv2d"))
    block = 16 if paddle._C.isa_info()["onednn"].startswith("avx512") else 8
    assert first.endswith(": blocked padded" if 24 % block else ": blocked"), lines


_CHILD = r"""
import sys, numpy as np, paddle.inference as pi
prefix, xin, out, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
cfg.enable_mkldnn()
cfg.enable_memory_optim()
cfg.set_cpu_math_library_num_threads(threads)
p = pi.create_predictor(cfg)
np.save(out, p.run([np.load(xin)])[0])
"""


def _saved_layer(tmp_path_factory, c, name):
    """one c -> c 3x3 pad-1 relu layer (saved) and its weights"""
    net = _Chain([(c, c, 1, True, "relu")])
    net.eval()
    prefix = os.path.join(str(tmp_path_factory.mktemp("wino_" + name)), name)
    paddle.jit.save(paddle.jit.to_static(lambda x: net(x)[0], input_spec=[paddle.static.InputSpec(
        [None, c, None, None], "float32", "x")]), prefix)
    return prefix, net.convs[0].weight.numpy(), net.convs[0].bias.numpy()


@pytest.fixture(scope="module")
def wide_layer(tmp_path_factory):
    return _saved_layer(tmp_path_factory, 32, "wide")


@pytest.mark.parametrize("wino", ["1", "4"])
@pytest.mark.parametrize("threads", [1, 2])
def test_many_tile_blocks(wide_layer, tmp_path, wino, threads):
    """a 32 -> 32 layer over 2 x 61 x 59 (480 4x4 / 1860 2x2 tiles, odd edges): U fits L3, so the
    tiles run in blocks whose whole V and M stay in L2 (48 / 120 tiles on AVX-512, 54 / 126 on AVX2)
    instead of blocks of 240, V and M tile-major, with the input transform's prefetch and the
    column-wise output transform; blocked and plain outputs against float64 numpy, and bit-equal to
    PADDLE_C_WINOGRAD_XFORM=old (the previous blocking and transforms: the same arithmetic per
    output; read once, so child processes)"""
    import subprocess
    import sys
    prefix, w, b = wide_layer
    x = np.random.default_rng(8).standard_normal((2, 32, 61, 59)).astype("float32")
    ref = _conv_ref(x, w, b, 1, "relu")
    xin = str(tmp_path / "x.npy")
    np.save(xin, x)
    got = {}
    for name, extra in (("new", {}), ("old", {"PADDLE_C_WINOGRAD_XFORM": "old"}),
                        ("plain", {"PADDLE_C_INFER_FETCH": "plain"}),
                        ("plain_old", {"PADDLE_C_INFER_FETCH": "plain", "PADDLE_C_WINOGRAD_XFORM": "old"})):
        env = dict(os.environ, PADDLE_C_WINOGRAD=wino, **extra)
        out = str(tmp_path / (name + ".npy"))
        subprocess.run([sys.executable, "-c", _CHILD, prefix, xin, out, str(threads)], env=env, check=True)
        got[name] = np.load(out)
    for name in ("new", "plain"):
        assert got[name].shape == ref.shape
        assert _rel_err(got[name], ref) < TOL[wino], (name, _rel_err(got[name], ref))
    np.testing.assert_array_equal(got["new"], got["old"])
    np.testing.assert_array_equal(got["plain"], got["plain_old"])
    assert not np.array_equal(got["new"], _run(prefix, x, "0")[0]), "Winograd did not run"


@pytest.fixture(scope="module")
def layer64(tmp_path_factory):
    return _saved_layer(tmp_path_factory, 64, "l64")


@pytest.mark.parametrize("hw", [(40, 40), (47, 45)])
def test_batch1_l2_blocks_two_threads(layer64, tmp_path, hw):
    """batch 1 at 2 threads, 64 -> 64 (F(4x4)'s U 576 KB fits a core's L2) over 100 / 144 tiles: the
    tiles run in L2-sized blocks per thread instead of one block shared by the threads' output
    channel chunks (PADDLE_C_WINOGRAD_L2B=0, read once: child processes). Against float64 numpy, and
    bit-equal to the shared block and to one thread (the same arithmetic per output)"""
    import subprocess
    import sys
    prefix, w, b = layer64
    x = np.random.default_rng(9).standard_normal((1, 64) + hw).astype("float32")
    ref = _conv_ref(x, w, b, 1, "relu")
    xin = str(tmp_path / "x.npy")
    np.save(xin, x)
    got = {}
    for name, threads, extra in (("l2", 2, {}), ("shared", 2, {"PADDLE_C_WINOGRAD_L2B": "0"}), ("one", 1, {})):
        env = dict(os.environ, PADDLE_C_WINOGRAD="4", **extra)
        out = str(tmp_path / (name + ".npy"))
        subprocess.run([sys.executable, "-c", _CHILD, prefix, xin, out, str(threads)], env=env, check=True)
        got[name] = np.load(out)
    assert got["l2"].shape == ref.shape
    assert _rel_err(got["l2"], ref) < TOL["4"], _rel_err(got["l2"], ref)
    np.testing.assert_array_equal(got["l2"], got["shared"])
    np.testing.assert_array_equal(got["l2"], got["one"])
    assert not np.array_equal(got["l2"], _run(prefix, x, "0")[0]), "Winograd did not run"


@pytest.fixture(scope="module")
def layer128(tmp_path_factory):
    return _saved_layer(tmp_path_factory, 128, "l128")


@pytest.mark.parametrize("hw", [(28, 28), (27, 25)])
def test_batch1_tile_halves_two_threads(layer128, hw, monkeypatch):
    """batch 1 at 2 threads, 128 -> 128 over 49 4x4 tiles (ResNet-50's 128x28 layers; U 2.4 MB, too big
    for a core's L2): one block of fewer tiles than twice the threads, so each thread takes a half of
    the tiles with all output channels instead of sharing one V split into output channel chunks
    (PADDLE_C_WINOGRAD_TSPLIT=0, read per call). Against float64 numpy, and bit-equal to the chunks and
    to one thread (the same sums per output)"""
    prefix, w, b = layer128
    x = np.random.default_rng(10).standard_normal((1, 128) + hw).astype("float32")
    ref = _conv_ref(x, w, b, 1, "relu")
    halves = _run(prefix, x, "4", threads=2)[0]
    one = _run(prefix, x, "4", threads=1)[0]
    monkeypatch.setenv("PADDLE_C_WINOGRAD_TSPLIT", "0")
    chunks = _run(prefix, x, "4", threads=2)[0]
    assert _rel_err(halves, ref) < TOL["4"], _rel_err(halves, ref)
    np.testing.assert_array_equal(halves, chunks)
    np.testing.assert_array_equal(halves, one)
    assert not np.array_equal(halves, _run(prefix, x, "0")[0]), "Winograd did not run"


@pytest.fixture(scope="module")
def layer256(tmp_path_factory):
    return _saved_layer(tmp_path_factory, 256, "l256")


def test_auto_large_filter_few_tiles(layer256, monkeypatch):
    """unset (auto), AVX-512 predictor: 256 -> 256 at 14x14 batch 1 (16 4x4 tiles, F(4x4)'s U 9.4 MB
    streamed per inference) runs F(2x2, 3x3) (U 4.2 MB, 49 tiles); with PADDLE_C_WINOGRAD_F2BIG=0
    (read per call) F(4x4) as before; at batch 3 (48 tiles) F(4x4). AVX2: F(4x4) throughout. Bit-equal
    to the forced kernel, within its tolerance of float64 numpy"""
    prefix, w, b = layer256
    avx2 = paddle._C.isa_info()["active"] == "avx2"
    for n, want in ((1, "4" if avx2 else "1"), (3, "4")):
        x = np.random.default_rng(11 + n).standard_normal((n, 256, 14, 14)).astype("float32")
        auto = _run(prefix, x, None)[0]
        forced = {t: _run(prefix, x, t)[0] for t in ("1", "4")}
        assert not np.array_equal(forced["1"], forced["4"])
        np.testing.assert_array_equal(auto, forced[want])
        assert _rel_err(auto, _conv_ref(x, w, b, 1, "relu")) < TOL[want]
        if n == 1:
            monkeypatch.setenv("PADDLE_C_WINOGRAD_F2BIG", "0")
            np.testing.assert_array_equal(_run(prefix, x, None)[0], forced["4"])
            monkeypatch.delenv("PADDLE_C_WINOGRAD_F2BIG")
