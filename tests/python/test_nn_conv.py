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
