"""Stride-2 3x3 convolutions in the predictor by polyphase Winograd (csrc/kernels/cpu/conv_winograd_s2.c:
the four input phases, F(4x4, 2x2) / F(4, 2) / direct, AVX-512 only): a chain of stride-2 pad-1
fused_conv2d layers saved by jit.save, run with PADDLE_C_WINOGRAD_S2=1 (every eligible layer) against a
float64 numpy convolution of each layer's own input, and against the same predictor with
PADDLE_C_WINOGRAD_S2=0 (oneDNN's direct kernel: close but not bit-equal, which shows the other kernel
ran). Odd and even planes, batch 1 and 3, 16..256 channels, relu / none, plain (every output fetched)
and blocked (the last only) layouts, 1 and 2 threads. The AVX2 copy declines (bit-equal to oneDNN).
Errors relative to each output's scale (max |y|)."""
import os

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn as nn
import paddle.nn.functional as F

TOL = 1e-5  # measured maxima ~2e-6 (docs/performance_log.md); F(4x4, 3x3) allows 5e-5
AVX512 = paddle._C.isa_info()["active"] != "avx2"


def _conv_ref(x, w, b, act):
    """float64 direct convolution, NCHW, 3x3, stride 2, pad 1"""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, c, h, wd = x.shape
    oh, ow = (h - 3) // 2 + 1, (wd - 3) // 2 + 1
    y = np.zeros((n, w.shape[0], oh, ow))
    for i in range(3):
        for j in range(3):
            xs = x[:, :, i:i + 2 * oh - 1:2, j:j + 2 * ow - 1:2]
            y += np.einsum("nchw,oc->nohw", xs, w[:, :, i, j].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    if act == "relu":
        y = np.maximum(y, 0)
    return y


# (in channels, out channels, bias, activation) per layer
LAYERS = [(16, 32, True, "relu"), (32, 64, False, None), (64, 256, True, "relu"), (256, 48, True, None)]


class _Chain(nn.Layer):
    def __init__(self, layers):
        super().__init__()
        self.convs = nn.LayerList([nn.Conv2D(ci, co, 3, stride=2, padding=1, bias_attr=None if b else False)
                                   for ci, co, b, _ in layers])
        self.acts = [a for *_, a in layers]
        rng = np.random.default_rng(11)
        for cv in self.convs:  # weights of unit-ish output scale
            fan = cv.weight.shape[1] * 9
            cv.weight.set_value(rng.standard_normal(cv.weight.shape).astype("float32") / np.sqrt(fan))
            if cv.bias is not None:
                cv.bias.set_value(rng.uniform(-0.5, 0.5, cv.bias.shape).astype("float32"))

    def forward(self, x):
        outs = []
        for cv, a in zip(self.convs, self.acts):
            x = cv(x)
            x = F.relu(x) if a == "relu" else x
            outs.append(x)
        return outs


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("wino_s2")
    paddle.seed(3)
    net = _Chain(LAYERS)
    net.eval()
    spec = [paddle.static.InputSpec([None, 16, None, None], "float32", "x")]
    last = os.path.join(str(d), "last")
    allf = os.path.join(str(d), "all")
    # only the last output fetched: intermediates stay blocked between the layers
    paddle.jit.save(paddle.jit.to_static(lambda x: net(x)[-1], input_spec=spec), last)
    # every output fetched (with PADDLE_C_INFER_FETCH=plain: plain NCHW in and out)
    paddle.jit.save(paddle.jit.to_static(lambda x: net(x), input_spec=spec), allf)
    params = [(cv.weight.numpy(), None if cv.bias is None else cv.bias.numpy()) for cv in net.convs]
    return last, allf, params


def _run(prefix, x, mode, fetch="blocked", threads=None):
    """mode: PADDLE_C_WINOGRAD_S2 (None: unset, the auto rule)"""
    env = {"PADDLE_C_WINOGRAD_S2": mode, "PADDLE_C_INFER_FETCH": "plain" if fetch == "plain" else None}
    old = {k: os.environ.get(k) for k in env}
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
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
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _rel_err(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def _ran(got, direct):
    """the polyphase kernel ran (AVX-512) or declined (AVX2: oneDNN's bits)"""
    same = all(np.array_equal(a, b) for a, b in zip(got, direct))
    assert same != AVX512, "polyphase Winograd did not run" if AVX512 else "the AVX2 copy did not decline"


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("fetch", ["plain", "blocked"])
@pytest.mark.parametrize("shape", [(1, 16, 57, 55), (3, 16, 28, 28), (1, 16, 13, 11)])
def test_chain_every_layer(models, shape, fetch, threads):
    """every layer's output fetched, each against float64 numpy of its own input"""
    _, allf, params = models
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    outs = _run(allf, x, "1", fetch, threads)
    direct = _run(allf, x, "0", fetch, threads)
    inp = x
    for (ci, co, _, act), (w, b), y, yd in zip(LAYERS, params, outs, direct):
        ref = _conv_ref(inp, w, b, act)
        assert y.shape == ref.shape
        assert _rel_err(y, ref) < TOL, (ci, co, shape, _rel_err(y, ref))
        assert _rel_err(yd, ref) < 1e-5
        inp = y
    _ran(outs, direct)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 16, 57, 55), (3, 16, 28, 28), (3, 16, 13, 11)])
def test_chain_blocked(models, shape, threads):
    """only the last output fetched: blocked activations between the layers"""
    last, _, params = models
    x = np.random.default_rng(2).standard_normal(shape).astype("float32")
    (y,) = _run(last, x, "1", threads=threads)
    (yd,) = _run(last, x, "0", threads=threads)
    ref = x
    for (_, _, _, act), (w, b) in zip(LAYERS, params):
        ref = _conv_ref(ref, w, b, act)
    assert y.shape == ref.shape
    assert _rel_err(y, ref) < TOL * 2  # four layers compounded
    assert _rel_err(yd, ref) < 2e-5
    _ran([y], [yd])


def test_threads_bit_equal(models):
    """1 and 2 threads (different output channel chunks) give the same bits: the same sums per output"""
    _, allf, _ = models
    x = np.random.default_rng(3).standard_normal((1, 16, 57, 55)).astype("float32")
    one = _run(allf, x, "1", "plain", threads=1)
    two = _run(allf, x, "1", "plain", threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("hw", [57, 13])
def test_auto_rule(models, hw):
    """unset (auto): the first layer (16 in) and any below 32 channels stay on oneDNN; the 32 -> 64 layer
    runs where it has >= 16 4x4 tiles (57x55 input: 15x14 out, 16 tiles; 13x11: 4x3, 1 tile)"""
    _, allf, params = models
    x = np.random.default_rng(4).standard_normal((1, 16, hw, hw)).astype("float32")
    auto = _run(allf, x, None, "plain")
    off = _run(allf, x, "0", "plain")
    np.testing.assert_array_equal(auto[0], off[0])  # 16 input channels: oneDNN
    (w, b), (_, _, _, act) = params[1], LAYERS[1]
    assert _rel_err(auto[1], _conv_ref(auto[0], w, b, act)) < TOL
    if AVX512 and hw == 57:
        assert not np.array_equal(auto[1], off[1]), "auto did not take the 16-tile layer"
    else:
        np.testing.assert_array_equal(auto[1], off[1])
