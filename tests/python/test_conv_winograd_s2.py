"""Stride-2 3x3 convolutions in the predictor by polyphase Winograd (csrc/kernels/cpu/conv_winograd_s2.c:
the four input phases, F(4x4, 2x2) / F(4, 2) / direct, AVX-512 only; with 2x2 output tiles
(PADDLE_C_WINOGRAD_S2_TILE=2) F(2x2, 2x2) / F(2, 2) / direct): a chain of stride-2 pad-1
fused_conv2d layers saved by jit.save, run with PADDLE_C_WINOGRAD_S2=1 (every eligible layer) against a
float64 numpy convolution of each layer's own input, and against the same predictor with
PADDLE_C_WINOGRAD_S2=0 (oneDNN's direct kernel: close but not bit-equal, which shows the other kernel
ran). Odd and even planes, batch 1 and 3, 16..256 channels, relu / none, plain (every output fetched)
and blocked (the last only) layouts, 1 and 2 threads, on either ISA level (the AVX-512 copy on 16
channels at a time, the AVX2 one on 8).
Errors relative to each output's scale (max |y|)."""
import numpy as np
import pytest

import paddle
from test_conv_winograd import _rel_err, _save_chain
from test_conv_winograd import _conv_ref as _wref
from test_conv_winograd import _run as _wrun  # the predictor run twice (bit-equal), env var set around it

TOL = 1e-5  # measured maxima ~2e-6 (4x4 tiles; 3.6e-6 at 256 -> 256) (docs/performance_log.md); F(4x4, 3x3) allows 5e-5
TOL2 = 2e-6  # the 2x2 tiles (integer transforms): measured maxima 3.6e-7 (this chain), 6.1e-7 (256 -> 256); oneDNN 1.5e-6


def _conv_ref(x, w, b, act):
    """float64 direct convolution, NCHW, 3x3, stride 2, pad 1"""
    return _wref(x, w, b, 1, act, stride=2)


# (in channels, out channels, pad, bias, activation) per layer
LAYERS = [(16, 32, 1, True, "relu"), (32, 64, 1, False, None), (64, 256, 1, True, "relu"), (256, 48, 1, True, None)]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return _save_chain(tmp_path_factory.mktemp("wino_s2"), LAYERS, stride=2)


def _run(prefix, x, mode, fetch="blocked", threads=None):
    """mode: PADDLE_C_WINOGRAD_S2 (None: unset, the auto rule)"""
    return _wrun(prefix, x, mode, fetch, threads, var="PADDLE_C_WINOGRAD_S2")


def _ran(got, direct):
    """the polyphase kernel ran: not oneDNN's bits"""
    assert not all(np.array_equal(a, b) for a, b in zip(got, direct)), "polyphase Winograd did not run"


@pytest.mark.parametrize("tile", [None, "2"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("fetch", ["plain", "blocked"])
@pytest.mark.parametrize("shape", [(1, 16, 57, 55), (3, 16, 28, 28), (1, 16, 13, 11)])
def test_chain_every_layer(models, shape, fetch, threads, tile, monkeypatch):
    """every layer's output fetched, each against float64 numpy of its own input; tile "2": the 2x2
    output tiles forced (PADDLE_C_WINOGRAD_S2_TILE, read per call), not the 4x4 tiles' bits"""
    _, allf, params = models
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    if tile:
        monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_TILE", "4")
        four = _run(allf, x, "1", fetch, threads)
        monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_TILE", tile)
    outs = _run(allf, x, "1", fetch, threads)
    direct = _run(allf, x, "0", fetch, threads)
    if tile:
        assert all(not np.array_equal(a, b) for a, b in zip(outs, four)), "the 2x2 tiles did not run"
    inp = x
    for (ci, co, _, _, act), (w, b), y, yd in zip(LAYERS, params, outs, direct):
        ref = _conv_ref(inp, w, b, act)
        assert y.shape == ref.shape
        assert _rel_err(y, ref) < (TOL2 if tile else TOL), (ci, co, shape, _rel_err(y, ref))
        assert _rel_err(yd, ref) < 1e-5
        inp = y
    _ran(outs, direct)


@pytest.mark.parametrize("tile", [None, "2"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 16, 57, 55), (3, 16, 28, 28), (3, 16, 13, 11)])
def test_chain_blocked(models, shape, threads, tile, monkeypatch):
    """only the last output fetched: blocked activations between the layers"""
    last, _, params = models
    x = np.random.default_rng(2).standard_normal(shape).astype("float32")
    if tile:
        monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_TILE", tile)
    (y,) = _run(last, x, "1", threads=threads)
    (yd,) = _run(last, x, "0", threads=threads)
    ref = x
    for (*_, act), (w, b) in zip(LAYERS, params):
        ref = _conv_ref(ref, w, b, act)
    assert y.shape == ref.shape
    assert _rel_err(y, ref) < TOL * 2  # four layers compounded
    assert _rel_err(yd, ref) < 2e-5
    _ran([y], [yd])


@pytest.mark.parametrize("tile", [None, "2"])
def test_threads_bit_equal(models, monkeypatch, tile):
    """1 and 2 threads give the same bits: the same sums per output. At 2 threads the 16 -> 32 layer
    (29x28 out: 56 4x4 tiles) takes a half of the tiles per thread with all output channels, the
    others output channel chunks; PADDLE_C_WINOGRAD_TSPLIT=0 (read per call) chunks every layer. With
    2x2 tiles (forced) the 32 -> 64 layer (15x14 out: 56 tiles) takes the halves, the others chunks"""
    _, allf, params = models
    x = np.random.default_rng(3).standard_normal((1, 16, 57, 55)).astype("float32")
    if tile:
        monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_TILE", tile)
    one = _run(allf, x, "1", "plain", threads=1)
    two = _run(allf, x, "1", "plain", threads=2)
    monkeypatch.setenv("PADDLE_C_WINOGRAD_TSPLIT", "0")
    chunks = _run(allf, x, "1", "plain", threads=2)
    for a, b, c in zip(one, two, chunks):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    (w, b), act = params[0], LAYERS[0][-1]
    assert _rel_err(two[0], _conv_ref(x, w, b, act)) < TOL


@pytest.mark.parametrize("hw", [57, 13])
def test_auto_rule(models, hw):
    """unset (auto): the first layer (16 in) and any below 32 channels stay on oneDNN; the 32 -> 64 layer
    runs where it has >= 16 4x4 tiles (57x55 input: 15x14 out, 16 tiles; 13x11: 4x3, 1 tile)"""
    _, allf, params = models
    x = np.random.default_rng(4).standard_normal((1, 16, hw, hw)).astype("float32")
    auto = _run(allf, x, None, "plain")
    off = _run(allf, x, "0", "plain")
    np.testing.assert_array_equal(auto[0], off[0])  # 16 input channels: oneDNN
    (w, b), act = params[1], LAYERS[1][-1]
    assert _rel_err(auto[1], _conv_ref(auto[0], w, b, act)) < TOL
    if hw == 57:
        assert not np.array_equal(auto[1], off[1]), "auto did not take the 16-tile layer"
    else:
        np.testing.assert_array_equal(auto[1], off[1])


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """one 256 -> 256 layer (like ResNet-50's stride-2 layer at 28x28: 4x4 tiles' U 9.4 MB, 2x2 4.2 MB)"""
    _, allf, params = _save_chain(tmp_path_factory.mktemp("wino_s2_big"), [(256, 256, 1, True, "relu")], stride=2)
    return allf, params


def _tiles(prefix, x, threads, tile, monkeypatch):
    """the output with PADDLE_C_WINOGRAD_S2_TILE=tile (None: unset) and the auto rule"""
    if tile:
        monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_TILE", tile)
    else:
        monkeypatch.delenv("PADDLE_C_WINOGRAD_S2_TILE", raising=False)
    return _run(prefix, x, None if tile is None else "1", "plain", threads)[0]


@pytest.mark.parametrize("threads", [1, 2])
def test_auto_rule_tiles(big, threads, monkeypatch):
    """unset (auto), the measured rule: 2x2 tiles at batch 1 (14x14 out: 16 4x4 / 49 2x2 tiles, where
    oneDNN was 1.3 times the 2x2 tiles' time and the 4x4 tiles 1.2 to 1.6), 4x4 tiles at batch 4 (64 4x4
    tiles); PADDLE_C_WINOGRAD_S2_AUTO2=0 (read per call): the 4x4 rule alone, oneDNN at batch 1. The 2x2
    tiles at 2 threads (the per-thread tile halves) give the bits of 1 thread. The batch stays whole
    (PADDLE_C_INFER_DP=0: split across 2 threads, batch 4 would run as two 1-thread parts of 2)"""
    monkeypatch.setenv("PADDLE_C_INFER_DP", "0")
    allf, ((w, b),) = big
    for n, want in ((1, "2"), (4, "4")):
        x = np.random.default_rng(5).standard_normal((n, 256, 28, 28)).astype("float32")
        auto = _tiles(allf, x, threads, None, monkeypatch)
        two = _tiles(allf, x, threads, "2", monkeypatch)
        four = _tiles(allf, x, threads, "4", monkeypatch)
        one = _tiles(allf, x, 1, "2", monkeypatch) if threads == 2 and n == 1 else None
        monkeypatch.delenv("PADDLE_C_WINOGRAD_S2_TILE")
        direct = _run(allf, x, "0", "plain", threads)[0]
        ref = _conv_ref(x, w, b, "relu")
        for y, tol in ((auto, TOL), (two, TOL2), (four, TOL)):
            assert _rel_err(y, ref) < tol
        assert not np.array_equal(two, four) and not np.array_equal(two, direct)
        if threads == 2 and n == 1:  # a half of the 49 tiles per thread with all 256 output channels
            np.testing.assert_array_equal(two, one)
        np.testing.assert_array_equal(auto, two if want == "2" else four)
        if n == 1:
            monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_AUTO2", "0")
            np.testing.assert_array_equal(_run(allf, x, None, "plain", threads)[0], direct)
            monkeypatch.delenv("PADDLE_C_WINOGRAD_S2_AUTO2")


@pytest.fixture(scope="module")
def narrow(tmp_path_factory):
    """widths that are multiples of 8 but not 16 (24 -> 40 -> 56): the AVX2 copy takes them (8 channels
    at a time, V / M rows of C + 16 floats, U panels of 16 with the last one padded), the AVX-512 one
    leaves them to oneDNN"""
    return _save_chain(tmp_path_factory.mktemp("wino_s2_narrow"), [(24, 40, 1, True, "relu"), (40, 56, 1, True, None)],
                       stride=2)


@pytest.mark.parametrize("fetch", ["plain", "blocked"])
@pytest.mark.parametrize("tile", ["2", "4"])
def test_narrow_channels(narrow, fetch, tile, monkeypatch):
    """every eligible layer (=1) with each tile: each output against float64 numpy of its own input;
    on AVX2 not oneDNN's bits (the kernel ran), on AVX-512 oneDNN's (declined)"""
    _, allf, params = narrow
    x = np.random.default_rng(6).standard_normal((2, 24, 30, 26)).astype("float32")
    monkeypatch.setenv("PADDLE_C_WINOGRAD_S2_TILE", tile)
    outs = _run(allf, x, "1", fetch, 2)
    direct = _run(allf, x, "0", fetch, 2)
    inp = x
    for (w, b), act, y in zip(params, ("relu", None), outs):
        ref = _conv_ref(inp, w, b, act)
        assert y.shape == ref.shape
        assert _rel_err(y, ref) < (TOL2 if tile == "2" else TOL), _rel_err(y, ref)
        inp = y
    ran = not all(np.array_equal(a, b) for a, b in zip(outs, direct))
    info = paddle._C.isa_info()
    if info["active"] == "avx512":
        assert not ran
    elif info["onednn"].startswith("avx2"):  # (PADDLE_C_ISA=avx2 beside oneDNN's 16-channel blocks: either)
        assert ran, "the AVX2 copy did not run"
