"""The Transformer training fast paths of issue 21 against numpy in float64 and float32:
matmul's backward with a shared 2-D right operand as one GEMM over flattened rows (every
transpose flag, 1-D y, complex), and whatever the attention/encoder layers compute through the
fused kernels (values and gradients against a plain numpy implementation)."""
import numpy as np
import pytest

import paddle


def _t(a, grad=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = not grad
    return t


@pytest.mark.parametrize("xs,ys,tx,ty", [
    ((3, 5, 4), (4, 6), False, False),
    ((2, 3, 5, 4), (6, 4), False, True),
    ((3, 5, 4), (4,), False, False),
    ((3, 5, 4), (4,), False, True),
    ((2, 1, 5, 4), (4, 6), False, False),
    ((3, 4, 5), (4, 6), True, False),     # x transposed: the batched form
    ((3, 4, 5), (6, 4), True, True),
])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_matmul_grad_shared_rhs(xs, ys, tx, ty, dtype):
    rng = np.random.default_rng(0)

    def r(s):
        a = rng.normal(size=s)
        return a + 1j * rng.normal(size=s) if dtype == "complex128" else a
    x, y = r(xs), r(ys)
    X = np.swapaxes(x, -1, -2) if tx else x
    Y = y if y.ndim == 1 else (np.swapaxes(y, -1, -2) if ty else y)
    out = X @ Y
    g = r(out.shape)
    px, py = _t(x), _t(y)
    o = paddle.matmul(px, py, transpose_x=tx, transpose_y=ty)
    np.testing.assert_allclose(o.numpy(), out, rtol=1e-10, atol=1e-10)
    gx, gy = paddle.grad([o], [px, py], [paddle.to_tensor(g)])
    # numpy reference: dY = sum over batch of X^H G, dX = G Y^H
    if y.ndim == 1:
        dY = (X.conj() * g[..., None]).reshape(-1, X.shape[-1]).sum(0)
        dX = g[..., None] * Y.conj()
    else:
        dY = (np.swapaxes(X, -1, -2).conj() @ g).reshape(-1, *Y.shape).sum(0)
        dX = g @ np.swapaxes(Y, -1, -2).conj()
        if ty:
            dY = dY.T
    dX = dX.reshape(np.broadcast_shapes(dX.shape, X.shape))
    if tx:
        dX = np.swapaxes(dX, -1, -2)
    dX = dX.sum(axis=tuple(i for i, (a, b) in enumerate(zip(dX.shape, x.shape)) if b == 1 and a != 1), keepdims=True)
    np.testing.assert_allclose(gy.numpy(), dY, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gx.numpy(), dX, rtol=1e-9, atol=1e-9)


def test_linear_3d_weight_grad_float32():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 7, 16)).astype("float32")
    lin = paddle.nn.Linear(16, 12)
    g = rng.normal(size=(4, 7, 12)).astype("float32")
    out = lin(_t(x))
    out.backward(paddle.to_tensor(g))
    np.testing.assert_allclose(lin.weight.grad.numpy(), x.reshape(-1, 16).T @ g.reshape(-1, 12), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.reshape(-1, 12).sum(0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n,p", [(1, 0.5), (37, 0.3), (8192 * 3 + 5, 0.1), (70001, 0.9), (1000, 0.0), (999, 1.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_mask_is_the_engine_stream(n, p, dtype):
    """dropout with a fixed seed: mask[i] = !(u_i < p), u_i = uniform_real_distribution<float>
    over a plainly seeded mt19937_64 (Paddle's op-seed rule; numpy's MT19937 is the 32-bit one, so
    the reference engine is written out here); out = x / (T)(1.0f - p)."""
    seed = 12345
    x = np.random.default_rng(2).normal(size=n).astype(dtype)
    out, mask = paddle._C._C_ops.dropout(paddle.to_tensor(x), p, "upscale_in_train", seed)
    ref = np.array([u >= np.float32(p) for u in _mt64_units(seed, n)]) & (np.float32(p) < 1)
    np.testing.assert_array_equal(mask.numpy().astype(bool), ref)
    keep = np.asarray(np.float32(1) - np.float32(p), dtype)
    want = np.where(ref, x / keep, 0) if p < 1 else np.zeros_like(x)
    np.testing.assert_array_equal(out.numpy(), want.astype(dtype))


def _mt64_units(seed, n):
    """std::mt19937_64 seeded with seed, its draws as generate_canonical<float> (pure Python)."""
    M = (1 << 64) - 1
    mt = [seed & M]
    for i in range(1, 312):
        mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & M)
    idx, out = 312, []
    for _ in range(n):
        if idx >= 312:
            for i in range(312):
                y = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                mt[i] = mt[(i + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
            idx = 0
        y = mt[idx]
        idx += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000 & M
        y ^= (y << 37) & 0xFFF7EEE000000000 & M
        y ^= y >> 43
        u = np.float32(y) * np.float32(2.0 ** -64)
        out.append(min(u, np.float32(0.99999994)))
    return out


def test_fused_attention_draws_the_dropout_ops_stream():
    """attention_core's dropout mask is the one the dropout op draws from the same generator state."""
    q = paddle.rand([2, 5, 8])
    paddle.seed(7)
    _, _, m = paddle._C._C_ops.attention_core(q, q, q, 2, 0.5, 0.3, 0, None)
    paddle.seed(7)
    _, ref = paddle._C._C_ops.dropout(paddle.ones([2 * 2 * 5 * 5]), 0.3, "upscale_in_train", 0)
    np.testing.assert_array_equal(m.numpy().reshape(-1), ref.numpy())


def _np_layer_norm(x, w, b, axis, eps=1e-5):
    ax = tuple(range(axis, x.ndim))
    m = x.mean(ax, keepdims=True)
    v = ((x - m) ** 2).mean(ax, keepdims=True)
    xh = (x - m) / np.sqrt(v + eps)
    shp = x.shape[axis:]
    return xh * (w.reshape(shp) if w is not None else 1) + (b.reshape(shp) if b is not None else 0), xh, v


@pytest.mark.parametrize("shape,axis", [((64, 37, 96), 2), ((5, 7, 3), 1), ((300, 257), 1), ((33, 4, 20), 1)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_fwd_bwd_vs_numpy(shape, axis, affine, dtype):
    """layer_norm's lane-wise row statistics and threaded dscale/dbias column sums (sizes above and
    below the threading cut, rows not a multiple of the lane width) against numpy in float64."""
    rng = np.random.default_rng(3)
    x = (rng.normal(size=shape) * 3 + 5).astype(dtype)
    ns = int(np.prod(shape[axis:]))
    w = rng.normal(size=ns).astype(dtype) if affine else None
    b = rng.normal(size=ns).astype(dtype) if affine else None
    g = rng.normal(size=shape).astype(dtype)
    px = _t(x)
    pw = _t(w) if affine else None
    pb = _t(b) if affine else None
    y = paddle.nn.functional.layer_norm(px, list(shape[axis:]), pw, pb)
    ref, xh, v = _np_layer_norm(x.astype("float64"), None if w is None else w.astype("float64"),
                                None if b is None else b.astype("float64"), axis)
    tol = 2e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(y.numpy(), ref, rtol=tol, atol=tol)
    ins = [px] + ([pw, pb] if affine else [])
    grads = paddle.grad([y], ins, [paddle.to_tensor(g)])
    ax = tuple(range(axis, x.ndim))
    G = g.astype("float64") * (w.astype("float64").reshape(shape[axis:]) if affine else 1)
    dx = (G - G.mean(ax, keepdims=True) - xh * (G * xh).mean(ax, keepdims=True)) / np.sqrt(v + 1e-5)
    np.testing.assert_allclose(grads[0].numpy(), dx, rtol=10 * tol, atol=10 * tol)
    if affine:
        lead = tuple(range(axis))
        np.testing.assert_allclose(grads[1].numpy(), (g * xh).sum(lead).reshape(-1), rtol=10 * tol, atol=10 * tol * np.sqrt(x.size / ns))
        np.testing.assert_allclose(grads[2].numpy(), g.sum(lead).reshape(-1), rtol=10 * tol, atol=10 * tol * np.sqrt(x.size / ns))


# ---------------------------------------------------------------- fused attention core
from paddle.nn.layer import transformer as _tr  # noqa: E402


def _mha_run(fused, mha, q, k, v, mask, seed, create_graph=False):
    """out (and weights), then the grads of every parameter, the inputs and a float mask."""
    old, orig, calls = _tr._FUSED, paddle._C._C_ops.attention_core, []
    _tr._FUSED = fused
    paddle._C._C_ops.attention_core = lambda *a: calls.append(1) or orig(*a)
    try:
        paddle.seed(seed)
        ins = [_t(q), _t(k), _t(v)]
        m = None
        if mask is not None:
            m = paddle.to_tensor(mask)
            m.stop_gradient = mask.dtype == np.bool_
        res = mha(*ins, attn_mask=m)
        out, w = (res if isinstance(res, tuple) else (res, None))
        loss = (out * out).sum() + ((w * w).sum() if w is not None else 0)
        wrt = ins + list(mha.parameters()) + ([m] if m is not None and not m.stop_gradient else [])
        grads = paddle.grad([loss], wrt, create_graph=create_graph)
        if create_graph:  # a second order term through the attention core
            g2 = paddle.grad([sum((g * g).sum() for g in grads[:3])], ins)
            grads = list(grads) + list(g2)
        assert bool(calls) == fused, "the fused attention path was (not) taken"
        return [out.numpy()] + ([w.numpy()] if w is not None else []) + [g.numpy() for g in grads]
    finally:
        _tr._FUSED = old
        paddle._C._C_ops.attention_core = orig


MASKS = {
    "none": None,
    "bool_2d": lambda B, H, Tq, Tk, r: r.random((Tq, Tk)) > 0.3,
    "float_b11k": lambda B, H, Tq, Tk, r: r.normal(size=(B, 1, 1, Tk)),
    "float_bhqk": lambda B, H, Tq, Tk, r: r.normal(size=(B, H, Tq, Tk)),
    "float_hqk": lambda B, H, Tq, Tk, r: r.normal(size=(H, Tq, Tk)),
}


@pytest.mark.parametrize("mask_kind", list(MASKS))
@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("need_weights", [False, True])
def test_fused_attention_equals_composed(mask_kind, train, need_weights):
    """MultiHeadAttention through attention_core equals the op-by-op path (float64, the same
    dropout draws from the same seed): outputs, weights, and the gradients of the inputs, all
    parameters and a float mask (bool masks convert to constants)."""
    paddle.set_default_dtype("float64")
    try:
        rng = np.random.default_rng(5)
        B, Tq, Tk, E, H = 3, 5, 7, 12, 3
        mha = paddle.nn.MultiHeadAttention(E, H, dropout=0.3, kdim=10, vdim=9, need_weights=need_weights)
        mha.train() if train else mha.eval()
        q, k, v = rng.normal(size=(B, Tq, E)), rng.normal(size=(B, Tk, 10)), rng.normal(size=(B, Tk, 9))
        mk = MASKS[mask_kind]
        mask = None if mk is None else mk(B, H, Tq, Tk, rng)
        a = _mha_run(True, mha, q, k, v, mask, 11)
        b = _mha_run(False, mha, q, k, v, mask, 11)
        assert len(a) == len(b)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-10)
    finally:
        paddle.set_default_dtype("float32")


def test_fused_attention_create_graph():
    """paddle.grad(create_graph=True) through the fused op (its composed backward) gives the same
    first and second order gradients as the op-by-op path."""
    paddle.set_default_dtype("float64")
    try:
        rng = np.random.default_rng(6)
        mha = paddle.nn.MultiHeadAttention(8, 2, dropout=0.2)
        q = rng.normal(size=(2, 4, 8))
        mask = rng.normal(size=(2, 1, 4, 4))
        a = _mha_run(True, mha, q, q, q, mask, 3, create_graph=True)
        b = _mha_run(False, mha, q, q, q, mask, 3, create_graph=True)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-10)
    finally:
        paddle.set_default_dtype("float32")


def test_fused_attention_float32_encoder_step():
    """A float32 encoder layer in training: fused and op-by-op losses and gradients agree to float
    tolerance (same dropout draws)."""
    rng = np.random.default_rng(7)
    layer = paddle.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1)
    x = rng.normal(size=(4, 16, 32)).astype("float32")
    res = []
    for fused in (True, False):
        old = _tr._FUSED
        _tr._FUSED = fused
        try:
            paddle.seed(21)
            out = layer(_t(x, grad=False))
            loss = (out * out).mean()
            gs = paddle.grad([loss], list(layer.parameters()))
            res.append([loss.numpy()] + [g.numpy() for g in gs])
        finally:
            _tr._FUSED = old
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)


def test_attention_core_errors():
    q = paddle.randn([2, 3, 4])
    with pytest.raises(ValueError, match="attention_core"):
        paddle._C._C_ops.attention_core(q, q, q, 3)  # 4 is not a multiple of 3
    with pytest.raises(ValueError, match="attn_mask"):
        paddle._C._C_ops.attention_core(q, q, q, 2, 1.0, 0.0, 0, paddle.randn([2, 2, 3, 2]))
    with pytest.raises(TypeError, match="attention_core"):
        paddle._C._C_ops.attention_core(q.astype("int32"), q, q, 2)
