"""paddle.nn common layers, functionals and nn.utils against numpy references; gradients of
the compositions against central finite differences in float64."""
import numpy as np
import pytest

import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def _t(a, sg=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = sg
    return t


def _fd_check(fn, arrays, eps=1e-6, rtol=1e-5, atol=1e-6):
    """grads of sum(w * fn(*tensors)) vs central differences (float64)."""
    rng = np.random.default_rng(0)
    ts = [_t(a, False) for a in arrays]
    out = fn(*ts)
    w = rng.uniform(0.5, 1.5, out.shape)
    (paddle.sum(out * paddle.to_tensor(w))).backward()
    for k, a in enumerate(arrays):
        num = np.zeros_like(a)
        flat = a.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            fp = (fn(*[_t(b) for b in arrays]).numpy() * w).sum()
            flat[i] = old - eps
            fm = (fn(*[_t(b) for b in arrays]).numpy() * w).sum()
            flat[i] = old
            num.reshape(-1)[i] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(ts[k].grad.numpy(), num, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- Linear / Bilinear
def test_linear_layout_names_and_forward():
    lin = nn.Linear(3, 5)
    assert lin.weight.shape == [3, 5] and lin.bias.shape == [5]
    assert lin.weight.name.endswith(".w_0") and lin.bias.name.endswith(".b_0")
    assert lin.weight.name.startswith("linear_")
    np.testing.assert_array_equal(lin.bias.numpy(), 0)
    x = np.random.rand(4, 3).astype("float32")
    np.testing.assert_allclose(lin(_t(x)).numpy(), x @ lin.weight.numpy() + lin.bias.numpy(), rtol=1e-5, atol=1e-6)
    assert "in_features=3, out_features=5" in repr(lin)
    nb = nn.Linear(3, 2, bias_attr=False)
    assert nb.bias is None and len(nb.parameters()) == 1
    # XavierUniform default: |w| <= sqrt(6 / (in + out))
    big = nn.Linear(50, 30)
    assert np.abs(big.weight.numpy()).max() <= np.sqrt(6 / 80) + 1e-6


def test_linear_weight_attr_and_grad():
    lin = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="my_w", initializer=nn.initializer.Constant(0.5)))
    assert lin.weight.name == "my_w"
    np.testing.assert_array_equal(lin.weight.numpy(), 0.5)
    _fd_check(lambda x, w, b: F.linear(x, w, b), [np.random.rand(3, 2), np.random.rand(2, 4), np.random.rand(4)])


def test_bilinear():
    rng = np.random.default_rng(1)
    x1, x2, w, b = rng.random((3, 2)), rng.random((3, 4)), rng.random((5, 2, 4)), rng.random((1, 5))
    ref = np.einsum("bi,oij,bj->bo", x1, w, x2) + b
    np.testing.assert_allclose(F.bilinear(_t(x1), _t(x2), _t(w), _t(b)).numpy(), ref, rtol=1e-10)
    _fd_check(F.bilinear, [x1, x2, w, b])
    layer = nn.Bilinear(2, 4, 5)
    assert layer.weight.shape == [5, 2, 4] and layer.bias.shape == [1, 5]
    assert layer(_t(x1.astype("float32")), _t(x2.astype("float32"))).shape == [3, 5]


# ---------------------------------------------------------------- Embedding / one_hot
def test_embedding_padding_idx():
    emb = nn.Embedding(6, 3, padding_idx=2)
    np.testing.assert_array_equal(emb.weight.numpy()[2], 0)
    ids = np.array([[0, 2, 5], [2, 2, 1]])
    out = emb(_t(ids))
    ref = emb.weight.numpy()[ids]
    ref[ids == 2] = 0
    np.testing.assert_allclose(out.numpy(), ref)
    paddle.sum(out * 3.0).backward()
    g = emb.weight.grad.numpy()
    np.testing.assert_array_equal(g[2], 0)
    np.testing.assert_allclose(g[0], 3.0)
    np.testing.assert_allclose(g[3], 0.0)
    assert nn.Embedding(4, 2, padding_idx=-1)._padding_idx == 3
    with pytest.raises(ValueError):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(IndexError):
        F.embedding(_t(np.array([4])), emb.weight[:4])


def test_one_hot():
    x = np.array([[1, 0], [3, 2]])
    np.testing.assert_array_equal(F.one_hot(_t(x), 4).numpy(), np.eye(4, dtype="float32")[x])
    with pytest.raises(ValueError):
        F.one_hot(_t(np.array([4])), 4)


# ---------------------------------------------------------------- dropout
def test_dropout_statistics_and_modes():
    x = paddle.ones([200, 500])
    out = F.dropout(x, 0.3).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    down = F.dropout(x, 0.3, mode="downscale_in_infer").numpy()
    assert set(np.unique(down)) <= {0.0, 1.0}
    np.testing.assert_allclose(F.dropout(x, 0.3, training=False, mode="downscale_in_infer").numpy(), 0.7)
    np.testing.assert_array_equal(F.dropout(x, 0.3, training=False).numpy(), 1)
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), 0)
    with pytest.raises(ValueError):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError):
        F.dropout(x, 0.5, mode="bad")


def test_dropout_reproducible_and_grad():
    x = paddle.rand([50, 40])
    paddle.seed(123)
    a = F.dropout(x, 0.5).numpy()
    paddle.seed(123)
    b = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, F.dropout(x, 0.5).numpy())
    xv = paddle.to_tensor(np.random.rand(30, 20))
    xv.stop_gradient = False
    out = F.dropout(xv, 0.4)
    out.sum().backward()
    mask = out.numpy() != 0
    # Paddle divides by the keep probability as a float32 (1.0f - p), in the tensor's dtype
    np.testing.assert_allclose(xv.grad.numpy(), mask / np.float64(np.float32(1) - np.float32(0.4)), rtol=1e-15)


def test_dropout_layer_axis_and_nd():
    d = nn.Dropout(0.5, axis=1)
    x = paddle.ones([40, 30])
    o = d(x).numpy()
    cols = (o != 0).all(0) | (o == 0).all(0)
    assert cols.all()
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), 1)
    o2 = nn.Dropout2D(0.5)(paddle.ones([4, 8, 3, 3])).numpy()
    per_ch = o2.reshape(4, 8, 9)
    assert ((per_ch == 0).all(-1) | (per_ch == 2).all(-1)).all()
    o3 = nn.Dropout3D(0.5)(paddle.ones([2, 6, 2, 2, 2])).numpy()
    assert ((o3.reshape(2, 6, 8) == 0).all(-1) | (o3.reshape(2, 6, 8) == 2).all(-1)).all()
    ad = nn.AlphaDropout(0.2)
    y = ad(paddle.randn([400, 400])).numpy()
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    ad.eval()
    assert "p=0.5, axis=1" in repr(nn.Dropout(0.5, axis=1))


# ---------------------------------------------------------------- pad
@pytest.mark.parametrize("mode,npmode", [("constant", "constant"), ("reflect", "reflect"),
                                         ("replicate", "edge"), ("circular", "wrap")])
def test_pad_modes(mode, npmode):
    x = np.random.rand(2, 3, 4, 5)
    out = F.pad(_t(x), [1, 2, 3, 1], mode=mode)   # [left, right, top, bottom]
    ref = np.pad(x, [(0, 0), (0, 0), (3, 1), (1, 2)], mode=npmode)
    np.testing.assert_allclose(out.numpy(), ref)
    _fd_check(lambda t: F.pad(t, [1, 2, 1, 1], mode=mode), [np.random.rand(1, 2, 3, 4)])


def test_pad_layers_and_formats():
    x = np.random.rand(2, 3, 4)
    np.testing.assert_allclose(nn.Pad1D(2, mode="reflect")(_t(x)).numpy(), np.pad(x, [(0, 0), (0, 0), (2, 2)], "reflect"))
    np.testing.assert_allclose(F.pad(_t(x), [1, 0], data_format="NLC").numpy(), np.pad(x, [(0, 0), (1, 0), (0, 0)]))
    x4 = np.random.rand(1, 4, 3, 2)
    np.testing.assert_allclose(nn.Pad2D([1, 0, 2, 0], value=7.0, data_format="NHWC")(_t(x4)).numpy(),
                               np.pad(x4, [(0, 0), (2, 0), (1, 0), (0, 0)], constant_values=7.0))
    x5 = np.random.rand(1, 1, 2, 3, 2)
    np.testing.assert_allclose(nn.Pad3D([1, 1, 0, 1, 1, 0], mode="replicate")(_t(x5)).numpy(),
                               np.pad(x5, [(0, 0), (0, 0), (1, 0), (0, 1), (1, 1)], "edge"))
    np.testing.assert_allclose(nn.ZeroPad2D(1)(_t(x4)).numpy(), np.pad(x4, [(0, 0), (0, 0), (1, 1), (1, 1)]))
    np.testing.assert_allclose(F.pad(_t(x), [0, 1, 1, 0, 2, 2], value=3.0).numpy(),
                               np.pad(x, [(0, 1), (1, 0), (2, 2)], constant_values=3.0))
    with pytest.raises(ValueError):
        F.pad(_t(x), [4, 4], mode="reflect")


# ---------------------------------------------------------------- interpolate
def _taps(i_n, o_n, mode, ac, am, scale=None):
    r = ((i_n - 1) / (o_n - 1) if o_n > 1 else 0.0) if ac else (1.0 / scale if scale else i_n / o_n)
    M = np.zeros((o_n, i_n))
    for o in range(o_n):
        if mode == "nearest":
            M[o, min(int(r * o + 0.5) if ac else int(r * o), i_n - 1)] = 1
        elif mode == "cubic":
            s = r * o if ac else r * (o + 0.5) - 0.5
            f = np.floor(s)
            t = s - f
            A = -0.75

            def k(d):
                d = abs(d)
                return ((A + 2) * d - (A + 3)) * d * d + 1 if d <= 1 else ((A * d - 5 * A) * d + 8 * A) * d - 4 * A
            for j in range(-1, 3):
                M[o, int(min(max(f + j, 0), i_n - 1))] += k(t - j)
        else:
            s = r * (o + 0.5) - 0.5 if (am == 0 and not ac) else r * o
            s = max(s, 0.0)
            i0 = min(int(s), i_n - 1)
            lam = s - i0
            M[o, i0] += 1 - lam
            M[o, min(i0 + 1, i_n - 1)] += lam
    return M


def _resize_ref(x, out, mode, ac=False, am=0, scales=None):
    y = x
    for d in range(len(out)):
        M = _taps(x.shape[2 + d], out[d], mode, ac, am, scales[d] if scales else None)
        y = np.moveaxis(np.tensordot(M, np.moveaxis(y, 2 + d, 0), axes=(1, 0)), 0, 2 + d)
    return y


@pytest.mark.parametrize("mode,ac,am", [("bilinear", False, 0), ("bilinear", False, 1), ("bilinear", True, 0),
                                        ("nearest", False, 0), ("bicubic", False, 0), ("bicubic", True, 0)])
def test_interpolate_2d(mode, ac, am):
    x = np.random.rand(2, 3, 5, 4)
    out = F.interpolate(_t(x), size=[7, 9], mode=mode, align_corners=ac, align_mode=am)
    ref = _resize_ref(x, [7, 9], {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode), ac, am)
    # Paddle's coordinate ratio (and linear weights) are float32 for every dtype: ~1e-7 from the
    # double reference (checked against Paddle 2.6.2)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6, atol=1e-7)
    _fd_check(lambda t: F.interpolate(t, size=[3, 5], mode=mode, align_corners=ac, align_mode=am),
              [np.random.rand(1, 2, 4, 3)])


def test_interpolate_scale_formats_and_modes():
    # Paddle computes source coordinates and linear weights in float32 for every dtype (checked
    # against Paddle 2.6.2): float64 results match the double reference to ~1e-7
    x = np.random.rand(1, 2, 5, 3)
    out = F.interpolate(_t(x), scale_factor=[1.5, 2.0], mode="bilinear")
    np.testing.assert_allclose(out.numpy(), _resize_ref(x, [7, 6], "linear", False, 0, [1.5, 2.0]), rtol=1e-6)
    xh = np.transpose(x, [0, 2, 3, 1])
    oh = F.interpolate(_t(xh), scale_factor=2, mode="nearest", data_format="NHWC").numpy()
    np.testing.assert_allclose(oh, xh.repeat(2, 1).repeat(2, 2))
    x1 = np.random.rand(2, 3, 4)
    np.testing.assert_allclose(F.interpolate(_t(x1), size=[7], mode="linear", data_format="NCW").numpy(),
                               _resize_ref(x1, [7], "linear"), rtol=1e-6, atol=2e-7)  # float32 weights
    x3 = np.random.rand(1, 2, 3, 2, 4)
    np.testing.assert_allclose(F.interpolate(_t(x3), size=[4, 3, 5], mode="trilinear", align_corners=True,
                                             data_format="NCDHW").numpy(),
                               _resize_ref(x3, [4, 3, 5], "linear", True), rtol=1e-6)
    # bilinear align_corners keeps a linear ramp exact
    ramp = np.add.outer(np.arange(4.0), 2 * np.arange(3.0))[None, None]
    up = nn.UpsamplingBilinear2D(size=[7, 5])(_t(ramp)).numpy()
    np.testing.assert_allclose(up[0, 0], np.add.outer(np.linspace(0, 3, 7), 2 * np.linspace(0, 2, 5)), atol=1e-12)
    assert nn.UpsamplingNearest2D(scale_factor=2)(_t(x)).shape == [1, 2, 10, 6]
    assert nn.Upsample(size=[3, 3], mode="bicubic")(_t(x)).shape == [1, 2, 3, 3]
    with pytest.raises(ValueError):
        F.interpolate(_t(x), size=[2, 2], mode="nearest", align_corners=True)
    with pytest.raises(ValueError):
        F.interpolate(_t(x), size=[2, 2], mode="trilinear")


# ---------------------------------------------------------------- unfold / fold
def _unfold_ref(x, k, s, p, d):
    n, c, h, w = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])])
    oh = (h + p[0] + p[2] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (w + p[1] + p[3] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    cols = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            cols[:, :, i, j] = xp[:, :, i * d[0]: i * d[0] + s[0] * oh: s[0], j * d[1]: j * d[1] + s[1] * ow: s[1]]
    return cols.reshape(n, c * k[0] * k[1], oh * ow)


def test_unfold_fold():
    x = np.random.rand(2, 3, 6, 5)
    out = F.unfold(_t(x), [2, 3], strides=[2, 1], paddings=[1, 0, 0, 1], dilations=[1, 2])
    np.testing.assert_allclose(out.numpy(), _unfold_ref(x, [2, 3], [2, 1], [1, 0, 0, 1], [1, 2]))
    layer = nn.Unfold(kernel_sizes=2, paddings=1)
    np.testing.assert_allclose(layer(_t(x)).numpy(), _unfold_ref(x, [2, 2], [1, 1], [1, 1, 1, 1], [1, 1]))
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>
    y = np.random.rand(*out.shape)
    fy = F.fold(_t(y), [6, 5], [2, 3], strides=[2, 1], paddings=[1, 0, 0, 1], dilations=[1, 2]).numpy()
    np.testing.assert_allclose((out.numpy() * y).sum(), (x * fy).sum(), rtol=1e-10)
    assert nn.Fold([6, 5], 2)(_t(np.random.rand(1, 12, 20))).shape == [1, 3, 6, 5]
    _fd_check(lambda t: F.unfold(t, 2, 1, 1), [np.random.rand(1, 2, 3, 3)])
    with pytest.raises(ValueError):
        F.unfold(_t(x), 9)


# ---------------------------------------------------------------- misc layers
def test_flatten_unflatten_identity():
    x = paddle.rand([2, 3, 4, 5])
    assert nn.Flatten()(x).shape == [2, 60]
    assert nn.Flatten(0, 1)(x).shape == [6, 4, 5]
    assert nn.Unflatten(1, [3, 1])(x).shape == [2, 3, 1, 4, 5]
    assert nn.Identity(3, foo=1)(x) is x


def test_pixel_and_channel_shuffle():
    x = np.random.rand(2, 8, 3, 2)
    ps = F.pixel_shuffle(_t(x), 2).numpy()
    ref = x.reshape(2, 2, 2, 2, 3, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 4)
    np.testing.assert_allclose(ps, ref)
    np.testing.assert_allclose(nn.PixelUnshuffle(2)(_t(ps)).numpy(), x)
    xh = np.transpose(x, [0, 2, 3, 1])
    np.testing.assert_allclose(nn.PixelShuffle(2, "NHWC")(_t(xh)).numpy(), np.transpose(ref, [0, 2, 3, 1]))
    cs = nn.ChannelShuffle(2)(_t(x)).numpy()
    np.testing.assert_allclose(cs, x.reshape(2, 2, 4, 3, 2).transpose(0, 2, 1, 3, 4).reshape(2, 8, 3, 2))
    with pytest.raises(ValueError):
        F.pixel_shuffle(_t(x), 3)


def test_cosine_similarity_and_pairwise_distance():
    a, b = np.random.rand(4, 5), np.random.rand(4, 5)
    ref = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    np.testing.assert_allclose(nn.CosineSimilarity()(_t(a), _t(b)).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(nn.PairwiseDistance()(_t(a), _t(b)).numpy(),
                               np.linalg.norm(a - b + 1e-6, axis=-1), rtol=1e-10)
    _fd_check(lambda x, y: F.cosine_similarity(x, y, axis=1), [a, b])


# ---------------------------------------------------------------- nn.utils
def test_weight_norm_and_remove():
    lin = nn.Linear(3, 4)
    w0 = lin.weight.numpy().copy()
    nn.utils.weight_norm(lin, dim=0)
    names = [n for n, _ in lin.named_parameters()]
    assert "weight_g" in names and "weight_v" in names and "weight" not in names
    assert lin.weight_g.shape == [3]
    x = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(lin(_t(x)).numpy(), x @ w0 + lin.bias.numpy(), rtol=1e-5)
    lin(_t(x)).sum().backward()
    assert lin.weight_g.grad is not None and lin.weight_v.grad is not None
    nn.utils.remove_weight_norm(lin)
    np.testing.assert_allclose(lin.weight.numpy(), w0, rtol=1e-5)
    with pytest.raises(ValueError):
        nn.utils.remove_weight_norm(lin)


def test_spectral_norm():
    lin = nn.Linear(6, 4)
    nn.utils.spectral_norm(lin, n_power_iterations=30)
    lin(paddle.ones([1, 6]))
    s = np.linalg.svd(lin.weight.numpy(), compute_uv=False)
    assert abs(s[0] - 1) < 1e-3
    sn = nn.SpectralNorm([4, 6], dim=0, power_iters=30)
    w = np.random.rand(4, 6).astype("float32")
    np.testing.assert_allclose(np.linalg.svd(sn(_t(w)).numpy(), compute_uv=False)[0], 1, rtol=1e-3)


def test_parameters_vector_and_clip_grad():
    lin = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert vec.shape == [8]
    nn.utils.vector_to_parameters(paddle.arange(8, dtype="float32"), lin.parameters())
    np.testing.assert_array_equal(lin.weight.numpy().ravel(), np.arange(6))
    np.testing.assert_array_equal(lin.bias.numpy(), [6, 7])
    lin(paddle.ones([4, 3]) * 10).sum().backward()
    g = np.concatenate([p.grad.numpy().ravel() for p in lin.parameters()])
    total = nn.utils.clip_grad_norm_(lin.parameters(), 1.0)
    np.testing.assert_allclose(total.numpy(), np.linalg.norm(g), rtol=1e-5)
    g2 = np.concatenate([p.grad.numpy().ravel() for p in lin.parameters()])
    np.testing.assert_allclose(np.linalg.norm(g2), 1.0, rtol=1e-4)
    nn.utils.clip_grad_value_(lin.parameters(), 0.1)
    assert np.abs(np.concatenate([p.grad.numpy().ravel() for p in lin.parameters()])).max() <= 0.1 + 1e-7
