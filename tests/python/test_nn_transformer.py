"""paddle.nn attention layers: MultiHeadAttention against numpy (bool and float masks, kdim/vdim,
need_weights), Cache/StaticCache incremental decoding equal to full decoding, the encoder and
decoder stacks, Transformer shapes and masks, train/eval dropout, and gradients in float64."""
import numpy as np
import pytest

import paddle
import paddle.nn as nn


@pytest.fixture
def f64():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    yield
    paddle.set_default_dtype(old)


def lin(layer, x):
    return x @ layer.weight.numpy() + layer.bias.numpy()


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_mha(mha, q, k, v, mask=None):
    nh, hd = mha.num_heads, mha.head_dim

    def heads(x):
        return x.reshape(x.shape[0], x.shape[1], nh, hd).transpose(0, 2, 1, 3)
    Q, K, V = heads(lin(mha.q_proj, q)), heads(lin(mha.k_proj, k)), heads(lin(mha.v_proj, v))
    s = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(hd)
    if mask is not None:
        s = s + mask
    w = np_softmax(s)
    o = (w @ V).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], -1)
    return lin(mha.out_proj, o), w


def test_mha_vs_numpy(f64):
    mha = nn.MultiHeadAttention(8, 2, kdim=6, vdim=5, need_weights=True)
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(2, 3, 8)), rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 5))
    out, w = mha(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v))
    ro, rw = np_mha(mha, q, k, v)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), rw, rtol=1e-10, atol=1e-12)
    assert w.shape == [2, 2, 3, 4]


def test_mha_parameters_and_errors():
    mha = nn.MultiHeadAttention(8, 4)
    names = [n for n, _ in mha.named_parameters()]
    assert names == ["q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias", "v_proj.weight",
                     "v_proj.bias", "out_proj.weight", "out_proj.bias"]
    assert mha.q_proj.weight.shape == [8, 8] and mha.head_dim == 2
    assert nn.MultiHeadAttention(8, 2, kdim=3).k_proj.weight.shape == [3, 8]
    assert nn.MultiHeadAttention(8, 2, bias_attr=False).q_proj.bias is None
    with pytest.raises(ValueError):
        nn.MultiHeadAttention(8, 3)
    with pytest.raises(ValueError):
        mha(paddle.rand([2, 3, 7]))


def test_mha_masks(f64):
    mha = nn.MultiHeadAttention(4, 2)
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 3, 4))
    keep = rng.uniform(size=(2, 1, 3, 3)) > 0.3
    keep[..., 0] = True
    out_b = mha(paddle.to_tensor(q), attn_mask=paddle.to_tensor(keep))
    add = np.where(keep, 0.0, -1e9)
    ref, _ = np_mha(mha, q, q, q, add)
    np.testing.assert_allclose(out_b.numpy(), ref, rtol=1e-9, atol=1e-11)
    fmask = rng.normal(size=(3, 3))  # float masks are added to the scores, broadcast
    out_f = mha(paddle.to_tensor(q), attn_mask=paddle.to_tensor(fmask))
    ref, _ = np_mha(mha, q, q, q, fmask)
    np.testing.assert_allclose(out_f.numpy(), ref, rtol=1e-9, atol=1e-11)
    out_i = mha(paddle.to_tensor(q), attn_mask=paddle.to_tensor(keep.astype("int64")))
    np.testing.assert_allclose(out_i.numpy(), out_b.numpy(), rtol=1e-12)


def test_mha_cache_incremental_equals_full(f64):
    mha = nn.MultiHeadAttention(8, 2)
    x = paddle.to_tensor(np.random.default_rng(2).normal(size=(2, 5, 8)))
    causal = nn.Transformer.generate_square_subsequent_mask(None, 5)
    full = mha(x, attn_mask=causal).numpy()
    cache = mha.gen_cache(x)
    assert isinstance(cache, nn.MultiHeadAttention.Cache) and cache.k.shape == [2, 2, 0, 4]
    steps = []
    for t in range(5):
        o, cache = mha(x[:, t:t + 1], cache=cache)
        steps.append(o.numpy())
    assert cache.k.shape == [2, 2, 5, 4]
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-10, atol=1e-12)
    # a Cache with values is used as given; StaticCache holds projected keys/values
    mem = paddle.to_tensor(np.random.default_rng(3).normal(size=(2, 4, 8)))
    sc = mha.gen_cache(mem, mem, type=nn.MultiHeadAttention.StaticCache)
    o1, sc2 = mha(x, mem, mem, cache=sc)
    np.testing.assert_allclose(o1.numpy(), mha(x, mem, mem).numpy(), rtol=1e-10)
    assert sc2 is sc
    c2 = mha.gen_cache(sc.k, sc.v, type=nn.MultiHeadAttention.Cache)
    assert c2.k is sc.k


def _no_dropout_layers(d=8, nh=2, ff=16, pre=False):
    enc = nn.TransformerEncoderLayer(d, nh, ff, dropout=0.0, normalize_before=pre)
    dec = nn.TransformerDecoderLayer(d, nh, ff, dropout=0.0, normalize_before=pre)
    return enc, dec


def np_ln(ln, x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * ln.weight.numpy() + ln.bias.numpy()


@pytest.mark.parametrize("pre", [False, True])
def test_encoder_layer_vs_numpy(pre, f64):
    enc, _ = _no_dropout_layers(pre=pre)
    x = np.random.default_rng(4).normal(size=(2, 3, 8))
    got = enc(paddle.to_tensor(x)).numpy()
    h = np_ln(enc.norm1, x) if pre else x
    a, _ = np_mha(enc.self_attn, h, h, h)
    s = x + a
    s = s if pre else np_ln(enc.norm1, s)
    h = np_ln(enc.norm2, s) if pre else s
    f = lin(enc.linear2, np.maximum(lin(enc.linear1, h), 0))
    ref = s + f
    ref = ref if pre else np_ln(enc.norm2, ref)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-10)


def test_encoder_stack_copies_and_cache(f64):
    enc, _ = _no_dropout_layers()
    stack = nn.TransformerEncoder(enc, 3, norm=nn.LayerNorm(8))
    assert len(stack.layers) == 3 and stack.layers[0] is enc
    w = [layer.linear1.weight for layer in stack.layers]
    assert w[0] is not w[1] and not np.allclose(w[0].numpy(), w[1].numpy())
    assert len(stack.parameters()) == 3 * len(enc.parameters()) + 2
    x = paddle.to_tensor(np.random.default_rng(5).normal(size=(2, 4, 8)))
    causal = nn.Transformer.generate_square_subsequent_mask(None, 4)
    full = stack(x, src_mask=causal).numpy()
    cache = stack.gen_cache(x)
    steps = []
    for t in range(4):
        o, cache = stack(x[:, t:t + 1], cache=cache)
        steps.append(o.numpy())
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-9, atol=1e-10)


def test_decoder_incremental_equals_full(f64):
    _, dec = _no_dropout_layers()
    stack = nn.TransformerDecoder(dec, 2)
    rng = np.random.default_rng(6)
    tgt = paddle.to_tensor(rng.normal(size=(2, 5, 8)))
    mem = paddle.to_tensor(rng.normal(size=(2, 3, 8)))
    mem_mask = paddle.to_tensor(np.array([True, True, False])[None, None, None, :].repeat(2, 0))
    causal = nn.Transformer.generate_square_subsequent_mask(None, 5)
    full = stack(tgt, mem, tgt_mask=causal, memory_mask=mem_mask).numpy()
    cache = stack.gen_cache(mem)
    assert len(cache) == 2 and isinstance(cache[0][1], nn.MultiHeadAttention.StaticCache)
    steps = []
    for t in range(5):
        o, cache = stack(tgt[:, t:t + 1], mem, memory_mask=mem_mask, cache=cache)
        steps.append(o.numpy())
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-9, atol=1e-10)
    zipped = stack.gen_cache(mem, do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2


def test_transformer_shapes_and_mask():
    t = nn.Transformer(16, 4, 2, 2, 32)
    src, tgt = paddle.rand([2, 5, 16]), paddle.rand([2, 4, 16])
    m = t.generate_square_subsequent_mask(4)
    assert m.shape == [4, 4] and m.dtype.name == "float32"
    mn = m.numpy()
    assert np.all(mn[np.tril_indices(4)] == 0) and np.all(np.isneginf(mn[np.triu_indices(4, 1)]))
    out = t(src, tgt, tgt_mask=m)
    assert out.shape == [2, 4, 16]
    assert len(t.encoder.layers) == 2 and len(t.decoder.layers) == 2
    assert t.encoder.norm is not None and t.decoder.norm is not None


def test_train_eval_dropout():
    paddle.seed(7)
    t = nn.Transformer(8, 2, 1, 1, 16, dropout=0.5)
    src, tgt = paddle.rand([2, 3, 8]), paddle.rand([2, 3, 8])
    t.eval()
    a, b = t(src, tgt).numpy(), t(src, tgt).numpy()
    np.testing.assert_array_equal(a, b)
    t.train()
    c, d = t(src, tgt).numpy(), t(src, tgt).numpy()
    assert not np.allclose(c, d) and not np.allclose(c, a)
    mha = nn.MultiHeadAttention(8, 2, dropout=0.9, need_weights=True)
    _, w = mha(src)
    assert (w.numpy() == 0).mean() > 0.5
    mha.eval()
    _, w = mha(src)
    np.testing.assert_allclose(w.numpy().sum(-1), 1.0, rtol=1e-5)


def test_activation_and_attrs():
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", weight_attr=[None, None], bias_attr=False)
    assert layer.linear1.bias is None and layer.self_attn.q_proj.bias is None
    assert layer(paddle.rand([1, 2, 8])).shape == [1, 2, 8]
    with pytest.raises(ValueError):
        nn.TransformerEncoderLayer(8, 2, 16, activation="no_such_act")


def test_mha_gradients_vs_finite_differences(f64):
    mha = nn.MultiHeadAttention(4, 2)
    rng = np.random.default_rng(8)
    q = rng.normal(size=(1, 3, 4))
    mask = np.where(rng.uniform(size=(3, 3)) > 0.3, 0.0, -1e9)
    wout = rng.uniform(0.5, 1.5, size=(1, 3, 4))
    qt = paddle.to_tensor(q, stop_gradient=False)
    loss = (mha(qt, attn_mask=paddle.to_tensor(mask)) * paddle.to_tensor(wout)).sum()
    gq, gw = paddle.grad([loss], [qt, mha.k_proj.weight])
    wk = mha.k_proj.weight.numpy().copy()

    def f(qq, kw):
        with paddle.no_grad():
            mha.k_proj.weight.set_value(kw)
        r = float((np_mha(mha, qq, qq, qq, mask)[0] * wout).sum())
        with paddle.no_grad():
            mha.k_proj.weight.set_value(wk)
        return r

    eps = 1e-6
    for g, arr, which in ((gq, q, 0), (gw, wk, 1)):
        num = np.zeros_like(arr)
        for i in range(arr.size):
            a1, a2 = arr.copy().reshape(-1), arr.copy().reshape(-1)
            a1[i] += eps
            a2[i] -= eps
            a1, a2 = a1.reshape(arr.shape), a2.reshape(arr.shape)
            fp = f(a1, wk) if which == 0 else f(q, a1)
            fm = f(a2, wk) if which == 0 else f(q, a2)
            num.reshape(-1)[i] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)
