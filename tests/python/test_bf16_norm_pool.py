"""batch_norm and max pooling on bfloat16 activations (issue 21 item 2; docs/arch/autograd_training.md
"bfloat16 convolutions", batch_norm / pooling paragraph). batch_norm: the bfloat16 kernel (csrc/kernels/cpu/norm.c bn_fwd_bf16 / bn_bwd_bf16) takes
a bf16 x with float32 scale, bias and running statistics, keeps statistics and sums in float32 /
double and rounds each output once; auto_cast(bfloat16) hands it the bf16 convolution output
without casts (only X is cast: the running statistics stay the layer's float32 tensors, updated in
place). References: float64 numpy on the bf16-rounded input (forward, running statistics, the
analytic gradients), and the float32 kernel on the widened input (the same sums in the same order,
so the outputs must equal its outputs rounded to bf16, bit for bit). Max pooling in training takes
max_pool2d_with_index on bf16 (the float32 argmax kernel on the widened x) and its backward the
bf16 scatter (float32 sums per plane, rounded once): the float32 path's values, rounded."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from bf16_util import bf16_round, close, f32


def ref_bn(x, rm, rv, w, b, train, fmt, mom=0.9, eps=1e-5):
    """float64 batch norm: (y, new running mean, new running variance, normalised x, mean, invstd)"""
    x = x.astype(np.float64)
    cax = x.ndim - 1 if fmt == "NHWC" and x.ndim > 2 else 1
    axes = tuple(i for i in range(x.ndim) if i != cax)
    shp = [1] * x.ndim
    shp[cax] = -1
    if train:
        mean, var = x.mean(axes), x.var(axes)
        rm2, rv2 = mom * rm + (1 - mom) * mean, mom * rv + (1 - mom) * var
    else:
        mean, var = rm.astype(np.float64), rv.astype(np.float64)
        rm2, rv2 = rm, rv
    inv = 1 / np.sqrt(var + eps)
    xh = (x - mean.reshape(shp)) * inv.reshape(shp)
    return xh * w.reshape(shp) + b.reshape(shp), rm2, rv2, xh, inv, axes, shp


# (x shape, data_format): NCHW planes of >= 16 values (the chunked plane path, one plane over 4096
# values to cross a chunk), short planes, NHWC, 2-D and 3-D x (the whole-tensor path)
SHAPES = [([3, 5, 7, 9], "NCHW"), ([2, 3, 67, 65], "NCHW"), ([5, 7, 3, 3], "NCHW"), ([4, 6, 5, 3], "NHWC"),
          ([9, 5], "NCHW"), ([4, 3, 17], "NCHW"), ([33, 64, 4, 4], "NCHW")]


@pytest.mark.parametrize("shape,fmt", SHAPES)
@pytest.mark.parametrize("train", [True, False])
def test_forward_backward_vs_float64(shape, fmt, train):
    rng = np.random.default_rng(len(shape) * 7 + shape[1])
    C = shape[-1] if fmt == "NHWC" and len(shape) > 2 else shape[1]
    xv = bf16_round(rng.normal(1.5, 2.0, size=shape).astype(np.float32))
    gv = bf16_round(rng.normal(size=shape).astype(np.float32))
    wv = rng.uniform(0.5, 1.5, C).astype(np.float32)
    bv = rng.normal(size=C).astype(np.float32)
    rmv = rng.normal(size=C).astype(np.float32)
    rvv = rng.uniform(0.5, 2.0, C).astype(np.float32)
    x = paddle.to_tensor(xv).astype("bfloat16")
    x.stop_gradient = False
    w, b = paddle.to_tensor(wv), paddle.to_tensor(bv)
    w.stop_gradient = b.stop_gradient = False
    rm, rv = paddle.to_tensor(rmv), paddle.to_tensor(rvv)
    y = F.batch_norm(x, rm, rv, w, b, training=train, data_format=fmt)
    assert y.dtype == paddle.bfloat16 and rm.dtype == paddle.float32
    (y * paddle.to_tensor(gv).astype("bfloat16")).astype("float32").sum().backward()
    yr, rm2, rv2, xh, inv, axes, shp = ref_bn(xv, rmv, rvv, wv, bv, train, fmt)
    close(f32(y), yr, "y", 1e-2)
    # the running statistics are float32 values computed in float32 / double: float32 closeness
    np.testing.assert_allclose(rm.numpy(), rm2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.numpy(), rv2, rtol=1e-5, atol=1e-6)
    g = gv.astype(np.float64)
    # analytic float64 gradients of sum(g * y)
    db = g.sum(axes)
    dw = (g * xh).sum(axes)
    if train:
        M = xv.size / C
        dx = (wv * inv).reshape(shp) * (g - db.reshape(shp) / M - xh * dw.reshape(shp) / M)
    else:
        dx = g * (wv * inv).reshape(shp)
    assert x.grad.dtype == paddle.bfloat16 and w.grad.dtype == paddle.float32
    close(f32(x.grad), dx, "dx", 2e-2)
    close(w.grad.numpy(), dw, "dscale", 1e-4)
    close(b.grad.numpy(), db, "dbias", 1e-5)


@pytest.mark.parametrize("shape,fmt", SHAPES)
def test_equals_float32_kernel_rounded(shape, fmt):
    """the bf16 kernel = the float32 kernel on the widened input with outputs rounded once (the
    numerics auto_cast's emulation gave before the kernel existed), for y, dx, dscale and dbias"""
    rng = np.random.default_rng(3)
    C = shape[-1] if fmt == "NHWC" and len(shape) > 2 else shape[1]
    xv = bf16_round(rng.normal(size=shape).astype(np.float32) * 3 + 1)
    gv = bf16_round(rng.normal(size=shape).astype(np.float32))
    outs = []
    for dt in ("bfloat16", "float32"):
        x = paddle.to_tensor(xv).astype(dt)
        x.stop_gradient = False
        w = paddle.to_tensor(np.linspace(0.5, 2, C).astype(np.float32))
        b = paddle.to_tensor(np.linspace(-1, 1, C).astype(np.float32))
        w.stop_gradient = b.stop_gradient = False
        y = F.batch_norm(x, paddle.zeros([C]), paddle.ones([C]), w, b, training=True, data_format=fmt)
        y.backward(paddle.to_tensor(gv).astype(dt))
        outs.append((bf16_round(f32(y)), bf16_round(f32(x.grad)), w.grad.numpy(), b.grad.numpy()))
    for name, a, c in zip(("y", "dx", "dscale", "dbias"), *outs):
        np.testing.assert_array_equal(a, c, err_msg=name)


def test_auto_cast_keeps_bf16_and_updates_running_stats():
    paddle.seed(1)
    conv = paddle.nn.Conv2D(3, 6, 3, padding=1, bias_attr=False)
    bn = paddle.nn.BatchNorm2D(6)
    x = paddle.randn([4, 3, 9, 7])
    mean0 = bn._mean.numpy().copy()
    with paddle.amp.auto_cast(dtype="bfloat16"):
        h = conv(x)
        y = bn(h)
    assert h.dtype == paddle.bfloat16 and y.dtype == paddle.bfloat16
    assert bn._mean.dtype == paddle.float32 and bn.weight.dtype == paddle.float32
    hv = f32(h).astype(np.float64)
    np.testing.assert_allclose(bn._mean.numpy(), 0.9 * mean0 + 0.1 * hv.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    y.astype("float32").sum().backward()
    assert bn.weight.grad.dtype == paddle.float32 and conv.weight.grad.dtype == paddle.float32
    close(bn.bias.grad.numpy(), np.full(6, hv[:, 0].size), "dbias", 1e-6)


def test_double_backward_bf16_x():
    """create_graph through batch_norm on a bf16 x: composed in float32 on the widened values"""
    rng = np.random.default_rng(5)
    xv = bf16_round(rng.normal(size=[4, 3, 5, 5]).astype(np.float32))
    r = paddle.to_tensor(rng.uniform(0.5, 2.0, [4, 3, 5, 5]).astype(np.float32))
    res = []
    for dt in ("bfloat16", "float32"):
        x = paddle.to_tensor(xv).astype(dt)
        x.stop_gradient = False
        w = paddle.to_tensor(np.array([0.5, 1.0, 2.0], np.float32))
        w.stop_gradient = False
        y = F.batch_norm(x, paddle.zeros([3]), paddle.ones([3]), w, None, training=True)
        (gx,) = paddle.grad(((y.astype("float32") * r) ** 2).sum(), x, create_graph=True)
        assert gx.dtype == x.dtype
        (gw,) = paddle.grad((gx.astype("float32") * r).sum(), w)
        res.append((f32(gx), gw.numpy()))
    close(res[0][0], res[1][0], "dx", 1e-2)
    close(res[0][1], res[1][1], "d(dx)/dw", 5e-2)  # y and dx are rounded to bf16 on the bf16 side


def test_bf16_x_needs_float32_statistics():
    x = paddle.randn([2, 3, 4, 4]).astype("bfloat16")
    w = paddle.ones([3]).astype("bfloat16")
    with pytest.raises(ValueError, match="float32"):
        F.batch_norm(x, paddle.zeros([3]), paddle.ones([3]), w, None, training=True)


POOLS = [("max_pool2d", [2, 3, 11, 9], dict(kernel_size=3, stride=2, padding=1)),
         ("max_pool2d", [3, 2, 7, 8], dict(kernel_size=[3, 2], stride=[1, 2], ceil_mode=True)),
         ("max_pool2d", [2, 6, 5, 3], dict(kernel_size=2, stride=1, data_format="NHWC")),
         ("adaptive_max_pool2d", [2, 3, 7, 5], dict(output_size=[3, 2])),
         ("max_pool1d", [2, 3, 13], dict(kernel_size=3, stride=2, padding=1))]


@pytest.mark.parametrize("fn,shape,kw", POOLS)
def test_max_pool_bf16_equals_float32_rounded(fn, shape, kw):
    rng = np.random.default_rng(len(shape) + shape[-1])
    # ties on purpose (few distinct values): the first maximum wins on both paths
    xv = bf16_round(rng.integers(-4, 5, shape).astype(np.float32) * 0.37)
    gv = bf16_round(rng.normal(size=shape).astype(np.float32))
    res = []
    for dt in ("bfloat16", "float32"):
        x = paddle.to_tensor(xv).astype(dt)
        x.stop_gradient = False
        y = getattr(F, fn)(x, **kw)
        assert y.dtype == x.dtype
        y.backward(paddle.to_tensor(gv[tuple(slice(0, n) for n in y.shape)]).astype(dt))
        res.append((f32(y), bf16_round(f32(x.grad))))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


def test_max_pool_under_auto_cast_stays_bf16():
    x = paddle.randn([2, 4, 9, 9])
    conv = paddle.nn.Conv2D(4, 4, 3, padding=1, bias_attr=False)
    with paddle.amp.auto_cast(dtype="bfloat16"):
        h = F.relu(conv(x)).detach()
        h.stop_gradient = False
        p = F.max_pool2d(h, 3, 2, 1)
    assert h.dtype == p.dtype == paddle.bfloat16
    p.astype("float32").sum().backward()
    # each input position gets one per window whose first maximum it is
    hv = f32(h)
    want = np.zeros_like(hv)
    for n in range(2):
        for c in range(4):
            for i in range(5):
                for j in range(5):
                    r0, c0 = max(2 * i - 1, 0), max(2 * j - 1, 0)
                    win = hv[n, c, r0:2 * i + 2, c0:2 * j + 2]
                    a, b = np.unravel_index(np.argmax(win), win.shape)
                    want[n, c, r0 + a, c0 + b] += 1
    assert h.grad.dtype == paddle.bfloat16
    np.testing.assert_array_equal(f32(h.grad), want)
