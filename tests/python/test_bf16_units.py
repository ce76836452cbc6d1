"""bfloat16 matmul on the CPU's bf16 units (issue 21 item 2; csrc/kernels/cpu/gemm_bf16.c): every
matmul form in bfloat16 against numpy's float32 product of the same bfloat16-rounded inputs, on the
units path (oneDNN's bf16 matmul, where the CPU has avx512_bf16 / AMX) and on the forced float32
fallback (paddle._C._bf16_units(False), as PADDLE_C_BF16_UNITS=0); float32 accumulation (a long K
that bfloat16 accumulation would ruin); gradients and a Transformer training step under
auto_cast(dtype='bfloat16') against float32 within bfloat16's precision. On a CPU without bf16
units only the units-specific checks skip (both settings then run the fallback)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import paddle

_prev = paddle._C._bf16_units(True)  # whether the units path can be switched on here at all
UNITS = paddle._C.isa_info()["bf16_matmul"] == "units"
paddle._C._bf16_units(_prev)
NEED_UNITS = pytest.mark.skipif(not UNITS, reason="no bfloat16 units usable here (the CPU lacks avx512_bf16 / "
                                "AMX, or ONEDNN_MAX_CPU_ISA caps oneDNN below them): only the float32 "
                                "fallback exists")
PATHS = [pytest.param(True, id="units", marks=NEED_UNITS), pytest.param(False, id="fallback")]


@pytest.fixture
def path(request):
    prev = paddle._C._bf16_units(request.param)
    yield request.param
    paddle._C._bf16_units(prev)


def _bf16(rng, shape, scale=1.0):
    """a bfloat16 tensor and its exact float32 values"""
    t = paddle.to_tensor((rng.normal(size=shape) * scale).astype("float32")).astype("bfloat16")
    return t, t.astype("float32").numpy()


def _check(out, ref):
    """bfloat16 output of a float32-accumulated product: each element within its own bfloat16
    rounding (2^-9 relative) plus float32 accumulation-order noise, i.e. within 2^-8 of the output's
    scale"""
    assert out.dtype == paddle.bfloat16
    assert list(out.shape) == list(ref.shape)
    got = out.astype("float32").numpy()
    scale = max(float(np.abs(ref).max()), 1e-30)
    err = np.abs(got - ref)
    assert err.max() <= 2.0 ** -8 * scale, (err.max(), scale)
    assert np.all(err <= 2.0 ** -8 * np.abs(ref) + 1e-3 * scale)


# (x shape, y shape, transpose_x, transpose_y): 2-D, batched, broadcast batch (both sides, uneven),
# transposes, the shared-weight fold ([B, T, in] @ [in, out]), 1-D operands
FORMS = [
    ((64, 256), (256, 96), False, False),
    ((33, 17), (29, 33), True, True),
    ((17, 33), (29, 33), False, True),
    ((33, 17), (33, 29), True, False),
    ((4, 16, 48), (48, 40), False, False),        # the fold: one GEMM over 64 rows
    ((4, 48, 16), (48, 40), True, False),         # transposed x: no fold, shared y
    ((3, 5, 7), (3, 7, 4), False, False),          # batched
    ((2, 3, 5, 7), (3, 7, 4), False, False),       # broadcast batch (y shared by the outer dim)
    ((2, 1, 5, 7), (3, 4, 7), False, True),        # both broadcast
    ((4, 1, 8, 6), (4, 3, 6, 9), False, False),    # uneven broadcast: per-batch GEMMs
    ((7, 5), (2, 7, 4), True, False),              # x shared by the batch
    ((6,), (6,), False, False),
    ((6,), (2, 6, 3), False, False),
    ((2, 3, 6), (6,), False, False),
]


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("xs,ys,tx,ty", FORMS)
def test_matmul_forms(path, xs, ys, tx, ty):
    rng = np.random.default_rng(abs(hash((xs, ys, tx, ty))) % 2**32)
    x, xf = _bf16(rng, xs)
    y, yf = _bf16(rng, ys)
    a = np.swapaxes(xf, -1, -2) if tx and xf.ndim > 1 else xf
    b = np.swapaxes(yf, -1, -2) if ty and yf.ndim > 1 else yf
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    if xf.ndim == 1 and yf.ndim == 1:
        ref = ref.reshape([1])
    _check(paddle.matmul(x, y, transpose_x=tx, transpose_y=ty), ref)


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_matmul_strided_views(path):
    """inputs that are no BLAS view (a column-sliced x, a permuted y) are copied first"""
    rng = np.random.default_rng(5)
    x, xf = _bf16(rng, (3, 20, 40))
    y, yf = _bf16(rng, (3, 13, 20))
    xs = x[:, :, ::2]
    yp = paddle.transpose(y, [0, 2, 1])
    ref = np.matmul(np.swapaxes(xf[:, :, ::2], -1, -2), np.swapaxes(yf, -1, -2))
    _check(paddle.matmul(xs, yp, transpose_x=True), ref)


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_float32_accumulation(path):
    """K = 8192 products of similar terms: a bfloat16 accumulator (8 bits) would stall far from the
    sum; float32 accumulation stays within the output's rounding"""
    rng = np.random.default_rng(7)
    x, xf = _bf16(rng, (8, 8192))
    x = paddle.abs(x)
    xf = np.abs(xf)
    y, yf = _bf16(rng, (8192, 16))
    y = paddle.abs(y)
    yf = np.abs(yf)
    _check(paddle.matmul(x, y), xf.astype(np.float64) @ yf.astype(np.float64))


@NEED_UNITS
def test_units_path_reported_and_switchable():
    from paddle.utils.install_check import isa_summary
    prev = paddle._C._bf16_units(True)
    try:
        info = paddle._C.isa_info()
        assert info["bf16_matmul"] == "units" and "units" in info["bf16_compute"]
        assert "matmul on the bf16 units" in isa_summary()
        assert paddle._C._bf16_units(False) is True
        assert paddle._C.isa_info()["bf16_matmul"] == "float32"
        assert "matmul through float32" in isa_summary()
    finally:
        paddle._C._bf16_units(prev)


@NEED_UNITS
def test_units_and_fallback_differ_only_by_rounding():
    """the two paths are different code (the fallback rounds a float32 GEMM, the units accumulate in
    their own order) and agree to bfloat16 rounding of the output"""
    rng = np.random.default_rng(11)
    x, _ = _bf16(rng, (96, 512))
    y, _ = _bf16(rng, (512, 80))
    outs = []
    for on in (True, False):
        prev = paddle._C._bf16_units(on)
        try:
            outs.append(paddle.matmul(x, y).astype("float32").numpy())
        finally:
            paddle._C._bf16_units(prev)
    scale = np.abs(outs[1]).max()
    assert np.abs(outs[0] - outs[1]).max() <= 2.0 ** -7 * scale


def test_env_switch_forces_fallback():
    code = ("import paddle\n"
            "i = paddle._C.isa_info()\n"
            "print(i['bf16_matmul'])\n")
    env = dict(os.environ, PADDLE_C_BF16_UNITS="0")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "float32"


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_many_geometries_cache_eviction(path):
    """more distinct geometries than the primitive cache holds (256), then the first again"""
    rng = np.random.default_rng(13)
    x, xf = _bf16(rng, (9, 40))
    y, yf = _bf16(rng, (40, 300))
    for n in list(range(1, 300, 1)) + [1, 2, 3]:
        if n % 37 == 0 or n < 4:
            _check(paddle.matmul(x, y[:, :n]), xf @ yf[:, :n])
        else:
            paddle.matmul(x, y[:, :n])


def _grads(bf16, seed=3):
    paddle.seed(seed)
    lin = paddle.nn.Linear(48, 40)
    w2 = paddle.create_parameter([40, 24], "float32")
    rng = np.random.default_rng(0)
    w2.set_value(rng.normal(size=(40, 24)).astype("float32") * 0.2)
    x = paddle.to_tensor(rng.normal(size=(4, 16, 48)).astype("float32"), stop_gradient=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with paddle.amp.auto_cast(enable=bf16, dtype="bfloat16"):
            h = paddle.nn.functional.gelu(lin(x))
            out = paddle.matmul(h, w2)
            att = paddle.matmul(out, out, transpose_y=True)  # batched, both operands bf16
    loss = (att.astype("float32") ** 2).mean() + out.astype("float32").mean()
    loss.backward()
    return float(loss), x.grad.numpy(), lin.weight.grad.numpy(), w2.grad.numpy(), out.dtype


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_gradients_under_auto_cast(path):
    l32, *g32, d32 = _grads(False)
    l16, *g16, d16 = _grads(True)
    assert d32 == paddle.float32 and d16 == paddle.bfloat16
    assert abs(l16 - l32) <= 3e-2 * abs(l32)
    for a, b in zip(g16, g32):
        assert a.dtype == np.float32
        err = np.linalg.norm(a - b) / np.linalg.norm(b)
        assert 1e-5 < err < 5e-2, err  # bfloat16's rounding, not float32's, and close


def _transformer_step(bf16):
    paddle.seed(5)
    enc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0), 2)
    rng = np.random.default_rng(1)
    x = paddle.to_tensor(rng.normal(size=(4, 16, 64)).astype("float32"))
    y = paddle.to_tensor(rng.normal(size=(4, 16, 64)).astype("float32"))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=enc.parameters())
    losses, g = [], None
    for _ in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with paddle.amp.auto_cast(enable=bf16, dtype="bfloat16"):
                out = enc(x)
        loss = paddle.nn.functional.mse_loss(out.astype("float32"), y)
        loss.backward()
        if g is None:  # the first step's (later ones see parameters Adam moved apart)
            g = enc.layers[0].linear1.weight.grad.numpy().copy()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return np.array(losses), g


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_transformer_step_under_auto_cast(path):
    l32, g32 = _transformer_step(False)
    l16, g16 = _transformer_step(True)
    assert np.all(np.abs(l16 - l32) <= 2e-2 * np.abs(l32)), (l16, l32)
    assert l16[-1] < l16[0]  # it trains
    # two layers of bfloat16 activations (matmul outputs rounded to 8 bits, then layer_norm and
    # softmax on them): the fallback path, float32 GEMMs on rounded inputs, measures 6.3% here too
    err = np.linalg.norm(g16 - g32) / np.linalg.norm(g32)
    assert 1e-5 < err < 1e-1, err


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_lstm_under_auto_cast(path):
    """nn.LSTM / GRU / SimpleRNN under auto_cast (O1 and O2) run in float32, as Paddle's rnn op does
    (registered for float32 / float64 only, so auto_cast never lowers it); nn.RNN over a cell
    steps op by op, its GEMMs bfloat16 matmuls"""
    def run(bf16, make, level="O1"):
        paddle.seed(2)
        net = make()
        x = paddle.to_tensor(np.random.default_rng(4).normal(size=(3, 5, 12)).astype("float32"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with paddle.amp.auto_cast(enable=bf16, dtype="bfloat16", level=level):
                out, _ = net(x)
        loss = out.astype("float32").sum()
        loss.backward()
        w = [p for p in net.parameters() if p.name.endswith(".w_0") or "weight_ih" in p.name][0]
        return out.astype("float32").numpy(), w.grad.numpy(), out.dtype
    for make in (lambda: paddle.nn.LSTM(12, 16), lambda: paddle.nn.GRU(12, 16, num_layers=2),
                 lambda: paddle.nn.SimpleRNN(12, 16, direction="bidirect")):
        o32, g32, _ = run(False, make)
        for level in ("O1", "O2"):
            o16, g16, dt = run(True, make, level)
            assert dt == paddle.float32
            np.testing.assert_array_equal(o16, o32)
            np.testing.assert_array_equal(g16, g32)
    o32, g32, _ = run(False, lambda: paddle.nn.RNN(paddle.nn.LSTMCell(12, 16)))
    o16, g16, _ = run(True, lambda: paddle.nn.RNN(paddle.nn.LSTMCell(12, 16)))
    assert 1e-5 < np.abs(o16 - o32).max() < 3e-2
    err = np.linalg.norm(g16 - g32) / np.linalg.norm(g32)
    assert 1e-5 < err < 5e-2, err


def _ref_attention():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
    import ref_attention
    return ref_attention


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_attention_core_bf16(path):
    """the fused attention core in bfloat16 (strided per-head GEMMs on the units) against the float64
    reference on the same bfloat16 values, forward and gradient"""
    ref = _ref_attention()
    rng = np.random.default_rng(17)
    B, T, E, H = 3, 20, 32, 4
    q, qf = _bf16(rng, (B, T, E))
    k, kf = _bf16(rng, (B, T + 3, E))
    v, vf = _bf16(rng, (B, T + 3, E // 2))
    m, mf = _bf16(rng, (B, 1, T, T + 3))
    for t in (q, k, v):
        t.stop_gradient = False
    out, probs, _ = paddle._C_ops.attention_core(q, k, v, H, 0.3, 0.0, 0, m)
    ro, rp, _ = ref.attention(*(a.astype(np.float64) for a in (qf, kf, vf, mf)), H, 0.3)
    _check(out, ro)
    _check(probs, rp)
    dout, doutf = _bf16(rng, (B, T, E // 2))
    (out.astype("float32") * dout.astype("float32")).sum().backward()
    pf = probs.astype("float32").numpy().astype(np.float64)
    rq, rk, rv = ref.attention_grad(*(a.astype(np.float64) for a in (qf, kf, vf)), pf, doutf.astype(np.float64),
                                    None, H, 0.3)
    for g, r in ((q.grad, rq), (k.grad, rk), (v.grad, rv)):
        assert g.dtype == paddle.bfloat16
        got = g.astype("float32").numpy()
        # dS rounded to bfloat16 before its two products: 2^-7 of the gradient's scale
        assert np.abs(got - r).max() <= 2.0 ** -6 * np.abs(r).max()


@NEED_UNITS
def test_attention_core_bf16_dropout_units_vs_fallback():
    """with dropout both paths draw the same keep mask (one generator, same seed) and agree to bfloat16
    rounding"""
    rng = np.random.default_rng(19)
    q, _ = _bf16(rng, (2, 16, 24))
    k, _ = _bf16(rng, (2, 16, 24))
    v, _ = _bf16(rng, (2, 16, 24))
    res = []
    for on in (True, False):
        prev = paddle._C._bf16_units(on)
        try:
            paddle.seed(9)
            qq, kk, vv = q.detach(), k.detach(), v.detach()
            for t in (qq, kk, vv):
                t.stop_gradient = False
            out, probs, keep = paddle._C_ops.attention_core(qq, kk, vv, 3, 0.4, 0.25, 0, None)
            out.astype("float32").sum().backward()
            res.append([out.astype("float32").numpy(), keep.numpy(), qq.grad.astype("float32").numpy(),
                        vv.grad.astype("float32").numpy()])
        finally:
            paddle._C._bf16_units(prev)
    (o1, m1, q1, v1), (o2, m2, q2, v2) = res
    assert np.array_equal(m1, m2) and 0 < m1.mean() < 1
    for a, b in ((o1, o2), (q1, q2), (v1, v2)):
        assert np.abs(a - b).max() <= 2.0 ** -6 * np.abs(b).max()


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_multihead_attention_bf16_auto_cast(path):
    """under auto_cast(dtype='bfloat16') the fused core takes bfloat16 q, k, v (Paddle's matmul ops
    would): the attention weights come back in bfloat16, the output matches float32 to bf16 precision"""
    paddle.seed(4)
    mha = paddle.nn.MultiHeadAttention(32, 4, need_weights=True)
    mha.eval()
    x = paddle.to_tensor(np.random.default_rng(3).normal(size=(2, 10, 32)).astype("float32"))
    mask = paddle.to_tensor(np.triu(np.full((10, 10), -1e9, "float32"), 1))
    o32, w32 = mha(x, x, x, attn_mask=mask)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with paddle.amp.auto_cast(dtype="bfloat16"):
            o16, w16 = mha(x, x, x, attn_mask=mask)
    assert w16.dtype == paddle.bfloat16 and w32.dtype == paddle.float32
    err = np.abs(o16.astype("float32").numpy() - o32.numpy()).max() / np.abs(o32.numpy()).max()
    assert 1e-5 < err < 3e-2, err
    assert np.abs(w16.astype("float32").numpy() - w32.numpy()).max() < 1e-2


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_transformer_o2_bf16(path):
    """O2 (bfloat16 parameters with float32 master weights): the fused attention core runs in bfloat16
    too; the first loss matches float32's within bfloat16 precision and the steps train"""
    l32, _ = _transformer_step(False)
    paddle.seed(5)
    enc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0), 2)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=enc.parameters())
    enc, opt = paddle.amp.decorate(models=enc, optimizers=opt, level="O2", dtype="bfloat16")
    rng = np.random.default_rng(1)
    x = paddle.to_tensor(rng.normal(size=(4, 16, 64)).astype("float32"))
    y = paddle.to_tensor(rng.normal(size=(4, 16, 64)).astype("float32"))
    losses = []
    for _ in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with paddle.amp.auto_cast(level="O2", dtype="bfloat16"):
                out = enc(x)
        assert out.dtype == paddle.bfloat16
        loss = paddle.nn.functional.mse_loss(out.astype("float32"), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert abs(losses[0] - l32[0]) <= 3e-2 * abs(l32[0]), (losses, l32)
    assert losses[-1] < losses[0]
