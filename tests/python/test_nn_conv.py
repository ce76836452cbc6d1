"""paddle.nn conv/pool/norm layers: forward vs numpy references (tests/ops/ref_conv.py), gradients
vs finite differences, BatchNorm train vs eval and running stats, NHWC vs NCHW agreement."""
import os
import sys

import numpy as np

import paddle
import paddle.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import ref_conv  # noqa: E402


def T(a, sg=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = sg
    return t


def test_conv2d_layer_vs_numpy_and_nhwc():
    rng = np.random.default_rng(0)
    m = paddle.nn.Conv2D(3, 4, 3, stride=2, padding=1)
    x = rng.standard_normal((2, 3, 9, 8)).astype("float32")
    y = m(T(x)).numpy()
    ref = ref_conv.conv(x, m.weight.numpy(), [2, 2], [1, 1]) + m.bias.numpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    yh = F.conv2d(T(x.transpose(0, 2, 3, 1)), m.weight, m.bias, 2, 1, data_format="NHWC").numpy()
    np.testing.assert_allclose(yh.transpose(0, 3, 1, 2), y, rtol=1e-4, atol=1e-4)
    w = m.weight.numpy()
    assert abs(w.std() - (2.0 / 27) ** 0.5) < 0.12


def test_conv_transpose_and_1d_3d():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 5)).astype("float64")
    m = paddle.nn.Conv1D(4, 2, 3, padding=1)
    m.weight.set_value(m.weight.numpy()) if hasattr(m.weight, "set_value") else None
    w = m.weight.numpy().astype("float64")
    y = F.conv1d(T(x), T(w), padding=1).numpy()
    np.testing.assert_allclose(y, ref_conv.conv(x, w, [1], [1]), rtol=1e-8)
    x3 = rng.standard_normal((1, 2, 3, 4, 3))
    w3 = rng.standard_normal((2, 3, 2, 2, 2))
    y3 = F.conv3d_transpose(T(x3), T(w3), stride=2).numpy()
    np.testing.assert_allclose(y3, ref_conv.conv_transpose(x3, w3, [2, 2, 2]), rtol=1e-8)


def _fd(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in range(a.size):
        o = a.flat[i]
        a.flat[i] = o + eps
        fp = f()
        a.flat[i] = o - eps
        fm = f()
        a.flat[i] = o
        g.flat[i] = (fp - fm) / (2 * eps)
    return g


def test_conv_bn_pool_gradients_fd():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 5, 5))
    w = rng.standard_normal((3, 2, 3, 3))
    sc = rng.uniform(0.5, 1.5, 3)

    def net(xt, wt, st):
        y = F.conv2d(xt, wt, padding=1)
        y = F.batch_norm(y, T(np.zeros(3)), T(np.ones(3)), st, None, training=True)
        y = F.max_pool2d(F.relu(y), 2)
        return (y * y).sum()

    xt, wt, st = T(x, False), T(w, False), T(sc, False)
    loss = net(xt, wt, st)
    gx, gw, gs = paddle.grad([loss], [xt, wt, st])
    val = lambda: float(net(T(x), T(w), T(sc)).numpy().reshape(-1)[0])  # noqa: E731
    np.testing.assert_allclose(gx.numpy(), _fd(val, x), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gw.numpy(), _fd(val, w), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gs.numpy(), _fd(val, sc), rtol=1e-4, atol=1e-6)


def test_batchnorm_train_eval_running_stats():
    rng = np.random.default_rng(3)
    bn = paddle.nn.BatchNorm2D(3, momentum=0.8)
    x = rng.standard_normal((4, 3, 5, 5)).astype("float32") * 2 + 1
    y = bn(T(x)).numpy()
    ref, m, _ = ref_conv.batch_norm(x, np.zeros(3, "float32"), np.ones(3, "float32"), np.ones(3, "float32"),
                                    np.zeros(3, "float32"))
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * x.mean((0, 2, 3)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.8 + 0.2 * x.var((0, 2, 3)), rtol=1e-4)
    bn.eval()
    ye = bn(T(x)).numpy()
    rm, rv = bn._mean.numpy(), bn._variance.numpy()
    np.testing.assert_allclose(ye, (x - rm.reshape(1, -1, 1, 1)) / np.sqrt(rv.reshape(1, -1, 1, 1) + 1e-5),
                               rtol=1e-4, atol=1e-4)
    bnh = paddle.nn.BatchNorm2D(3, data_format="NHWC")
    yh = bnh(T(x.transpose(0, 2, 3, 1))).numpy()
    np.testing.assert_allclose(yh.transpose(0, 3, 1, 2), ref, rtol=1e-4, atol=1e-4)


def test_pools_norms_vs_numpy():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 7, 6)).astype("float64")
    np.testing.assert_allclose(paddle.nn.MaxPool2D(3, 2, 1, ceil_mode=True)(T(x)).numpy(),
                               ref_conv.pool(x, [3, 3], [2, 2], [1, 1], True), rtol=1e-10)
    np.testing.assert_allclose(paddle.nn.AvgPool2D(2)(T(x)).numpy(), ref_conv.pool(x, [2, 2], [2, 2], [0, 0],
                                                                                   ptype="avg"), rtol=1e-10)
    np.testing.assert_allclose(paddle.nn.AdaptiveAvgPool2D((3, 2))(T(x)).numpy(),
                               ref_conv.pool(x, [3, 2], ptype="avg", adaptive=True), rtol=1e-10)
    out, mask = F.max_pool2d(T(x), 2, return_mask=True)
    assert mask.dtype == paddle.int32  # Paddle 2.6.2's mask dtype (max_pool1d/2d/3d, adaptive too)
    np.testing.assert_array_equal(mask.numpy(), ref_conv.pool(x, [2, 2], [2, 2], [0, 0], return_mask=True)[1])
    up = F.max_unpool2d(out, mask, 2).numpy()
    assert up.shape == (2, 4, 6, 6) and np.isclose(up.sum(), out.numpy().sum())
    g = paddle.nn.GroupNorm(2, 4)(T(x.astype("float32"))).numpy()
    xr = x.reshape(2, 2, -1)
    ref = ((xr - xr.mean(-1, keepdims=True)) / np.sqrt(xr.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(g, ref, rtol=1e-4, atol=1e-4)
    ln = paddle.nn.LayerNorm([7, 6])(T(x.astype("float32"))).numpy()
    np.testing.assert_allclose(ln, ref_conv.layer_norm(x, axis=2)[0], rtol=1e-4, atol=1e-4)
    lrn = paddle.nn.LocalResponseNorm(3)(T(x)).numpy()
    sq = np.pad(x * x, [(0, 0), (1, 1), (0, 0), (0, 0)])
    s = sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]
    np.testing.assert_allclose(lrn, x / (1 + 1e-4 / 3 * s) ** 0.75, rtol=1e-8)


def test_batchnorm_state_dict_keys_once():
    import paddle
    bn = paddle.nn.BatchNorm(4)
    assert list(bn.state_dict().keys()) == ["weight", "bias", "_mean", "_variance"]


# ---- float32 convolutions on the oneDNN paths, larger shapes, forward + backward vs numpy ----
def _conv_fwd_bwd_case(rng, x_shape, w_shape, stride, padding, groups=1, dilation=1, fmt="NCHW"):
    x = rng.standard_normal(x_shape).astype("float32")
    w = (rng.standard_normal(w_shape) / np.sqrt(np.prod(w_shape[1:]))).astype("float32")
    b = rng.standard_normal(w_shape[0]).astype("float32")
    xt, wt, bt = T(x, False), T(w, False), T(b, False)
    y = F.conv2d(xt, wt, bt, stride, padding, dilation, groups, data_format=fmt)
    st, pd, dl = [stride] * 2, [padding] * 2, [dilation] * 2
    ref = ref_conv.conv_bias(x.astype("f8"), w.astype("f8"), st, pd, "EXPLICIT", groups, dl, fmt, b.astype("f8"))
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    g = rng.standard_normal(ref.shape).astype("float32")
    (y * T(g)).sum().backward()
    sp = list(x_shape[1:3] if fmt == "NHWC" else x_shape[2:])
    rdx = ref_conv.conv_transpose(g.astype("f8"), w.astype("f8"), st, pd, [], sp, "EXPLICIT", groups, dl, fmt)
    rdw = ref_conv.conv_grad_filter(x.astype("f8"), g.astype("f8"), list(w_shape), st, pd, "EXPLICIT", groups, dl,
                                    fmt)
    rdb = g.astype("f8").sum(axis=(0, 1, 2) if fmt == "NHWC" else (0, 2, 3))
    for got, r in ((xt.grad, rdx), (wt.grad, rdw), (bt.grad, rdb)):
        np.testing.assert_allclose(got.numpy(), r, rtol=1e-4, atol=1e-4 * np.abs(r).max())


def test_conv2d_float32_large_forward_backward_vs_numpy():
    rng = np.random.default_rng(10)
    _conv_fwd_bwd_case(rng, (4, 16, 20, 20), (32, 16, 3, 3), 1, 1)              # blocked 3x3
    _conv_fwd_bwd_case(rng, (4, 3, 33, 31), (16, 3, 5, 5), 2, 0)                # first layer, 3 channels
    _conv_fwd_bwd_case(rng, (4, 24, 14, 14), (48, 24, 1, 1), 1, 0)              # 1x1: plain GEMM
    _conv_fwd_bwd_case(rng, (4, 32, 15, 15), (32, 1, 3, 3), 2, 1, groups=32)    # depthwise
    _conv_fwd_bwd_case(rng, (2, 16, 17, 13), (24, 4, 3, 3), 1, 2, groups=4, dilation=2)
    _conv_fwd_bwd_case(rng, (4, 18, 16, 16), (32, 16, 3, 3), 2, 1, fmt="NHWC")  # channels-last
    _conv_fwd_bwd_case(rng, (4, 18, 16, 32), (32, 1, 3, 3), 1, 1, groups=32, fmt="NHWC")


def test_conv_primitive_cache_eviction_and_threads():
    """More distinct geometries than the primitive cache holds, then concurrent use from threads
    (the binding releases the GIL on large inputs): every result still matches numpy."""
    import threading
    rng = np.random.default_rng(11)
    w = rng.standard_normal((4, 2, 3, 3)).astype("float32")
    for h in range(3, 140):
        x = rng.standard_normal((1, 2, h, 3)).astype("float32")
        y = F.conv2d(T(x), T(w), padding=1).numpy()
        if h % 40 == 0:
            np.testing.assert_allclose(y, ref_conv.conv(x, w, [1, 1], [1, 1]), rtol=1e-4, atol=1e-4)
    xs = [rng.standard_normal((8, 16, 24, 24 + i)).astype("float32") for i in range(4)]
    wb = rng.standard_normal((16, 16, 3, 3)).astype("float32") / 12
    refs = [ref_conv.conv(x.astype("f8"), wb.astype("f8"), [1, 1], [1, 1]) for x in xs]
    errs = []

    def work(i):
        try:
            for _ in range(3):
                got = F.conv2d(T(xs[i]), T(wb), padding=1).numpy()
                np.testing.assert_allclose(got, refs[i], rtol=1e-4, atol=1e-4)
        except Exception as e:  # noqa: BLE001 - reported below
            errs.append(e)
    th = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    assert not errs, errs


def _bn_ref(x, axis, eps=1e-5):
    red = tuple(i for i in range(x.ndim) if i != axis)
    m, v = x.mean(red, keepdims=True), x.var(red, keepdims=True)
    return m, v, (x - m) / np.sqrt(v + eps)


def test_batch_norm_train_forward_backward_layouts_vs_numpy():
    """Per-channel statistics in both kernel modes: long rows (NCHW, spatial >= 16) and per-column
    partial sums (NHWC, 2-D input, short spatial), threads splitting the rows. Long rows run per
    channel (statistics and output while the channel is in cache; the backward from planes of 128
    values) or, with fewer channels than threads, in two phases: (4, 3, 16, 16) and (8, 6, 9, 11)
    take the first (backward: only the former), (3, 1, 20, 20) the second on two threads."""
    rng = np.random.default_rng(12)
    for shape, fmt in (((8, 6, 9, 11), "NCHW"), ((4, 3, 16, 16), "NCHW"), ((3, 1, 20, 20), "NCHW"),
                       ((16, 5, 3, 3), "NCHW"), ((512, 12), "NCHW"),
                       ((8, 9, 11, 6), "NHWC"), ((4, 40, 40, 8), "NHWC")):
        axis = x_axis = len(shape) - 1 if fmt == "NHWC" else 1
        C = shape[x_axis]
        x = (rng.standard_normal(shape) * 3 + 2).astype("float32")
        sc = rng.uniform(0.5, 1.5, C).astype("float32")
        bi = rng.standard_normal(C).astype("float32")
        g = rng.standard_normal(shape).astype("float32")
        xt, st, bt = T(x, False), T(sc, False), T(bi, False)
        rm, rv = T(np.zeros(C, "float32")), T(np.ones(C, "float32"))
        y = F.batch_norm(xt, rm, rv, st, bt, training=True, momentum=0.9, data_format=fmt if len(shape) > 2 else "NC")
        m, v, xh = _bn_ref(x.astype("f8"), axis)
        shp = [1] * x.ndim
        shp[axis] = -1
        np.testing.assert_allclose(y.numpy(), xh * sc.reshape(shp) + bi.reshape(shp), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(rm.numpy(), 0.1 * m.reshape(-1), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * v.reshape(-1), rtol=1e-4, atol=1e-5)
        (y * T(g)).sum().backward()
        red = tuple(i for i in range(x.ndim) if i != axis)
        g8 = g.astype("f8")
        dxh = g8 * sc.reshape(shp)
        dx = (dxh - dxh.mean(red, keepdims=True) - xh * (dxh * xh).mean(red, keepdims=True)) / np.sqrt(v + 1e-5)
        np.testing.assert_allclose(xt.grad.numpy(), dx, rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(st.grad.numpy(), (g8 * xh).sum(red), rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(bt.grad.numpy(), g8.sum(red), rtol=1e-4, atol=1e-3)


def test_batch_norm_train_float64_per_channel_vs_numpy():
    """float64 through the per-channel path (planes of 256 values, backward too) and the two-phase one
    (one channel), against numpy in float64 to 1e-10"""
    rng = np.random.default_rng(21)
    for shape in ((4, 3, 16, 16), (3, 1, 20, 20), (2, 5, 7, 9)):
        C = shape[1]
        x = rng.standard_normal(shape) * 2 + 1
        sc, bi, g = rng.uniform(0.5, 1.5, C), rng.standard_normal(C), rng.standard_normal(shape)
        xt, st, bt = T(x, False), T(sc, False), T(bi, False)
        rm, rv = T(np.zeros(C)), T(np.ones(C))
        y = F.batch_norm(xt, rm, rv, st, bt, training=True, momentum=0.9)
        m, v, xh = _bn_ref(x, 1)
        shp = (1, C, 1, 1)
        np.testing.assert_allclose(y.numpy(), xh * sc.reshape(shp) + bi.reshape(shp), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * v.reshape(-1), rtol=1e-10)
        (y * T(g)).sum().backward()
        dxh = g * sc.reshape(shp)
        red = (0, 2, 3)
        dx = (dxh - dxh.mean(red, keepdims=True) - xh * (dxh * xh).mean(red, keepdims=True)) / np.sqrt(v + 1e-5)
        np.testing.assert_allclose(xt.grad.numpy(), dx, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(st.grad.numpy(), (g * xh).sum(red), rtol=1e-9, atol=1e-10)


def test_conv_bias_fused_and_under_auto_cast():
    """The bias goes into the conv op (same values as conv + add); under auto_cast it stays a
    separate add, so a float16 conv output with a float32 bias promotes to float32 (Paddle)."""
    rng = np.random.default_rng(13)
    x = T(rng.standard_normal((2, 3, 9, 9)).astype("float32"))
    m = paddle.nn.Conv2D(3, 8, 3, padding=1)
    m.bias.set_value(rng.standard_normal(8).astype("float32"))
    y = m(x)
    ref = F.conv2d(x, m.weight, None, 1, 1).numpy() + m.bias.numpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5, atol=1e-5)
    with paddle.amp.auto_cast():
        ya = m(x)
    assert ya.dtype.name == "float32"
    np.testing.assert_allclose(ya.numpy(), ref, rtol=2e-2, atol=2e-2)
    with paddle.amp.auto_cast():
        assert F.conv2d(x, m.weight, padding=1).dtype.name == "float16"
