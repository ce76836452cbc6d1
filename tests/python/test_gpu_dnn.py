"""GPU kernels of the CUDA 'dnn' family (csrc/kernels/gpu/dnn.c; csrc/cuda/dnn.cu on cuDNN 9,
dnn_pool.cu) end to end against the CPU: convolutions (groups, depthwise, strides, dilations,
SAME / asymmetric paddings, NCHW / NHWC, transposed with output_padding, bias) and poolings (max /
avg, ceil_mode, exclusive, adaptive, with mask), forward and backward through autograd (the grad
ops conv2d_transpose / conv2d_grad_filter / pool2d_grad / unpool the rules run). float64 to 1e-9;
float32 within TF32's precision (cuDNN may use TF32 as Paddle's default); float16 / bfloat16
forward against the float32 CPU result. Skips without a GPU."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F

pytestmark = pytest.mark.skipif(paddle.device.cuda.device_count() == 0, reason="no GPU")

TOL = {"float64": 1e-9, "float32": 3e-3}


def _run(fn, arrays, dev, dtype):
    ts = []
    for a in arrays:
        t = paddle.to_tensor(a.astype(dtype))
        if dev == "gpu":
            t = t.cuda()
        t.stop_gradient = False
        ts.append(t)
    out = fn(*ts)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    r = paddle.to_tensor(np.random.default_rng(3).standard_normal(outs[0].shape).astype(dtype))
    if dev == "gpu":
        r = r.cuda()
    (outs[0] * r).sum().backward()
    return [o.numpy() for o in outs] + [t.grad.numpy() for t in ts]


def _check(fn, shapes, dtype):
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s) for s in shapes]
    cpu = _run(fn, arrays, "cpu", dtype)
    gpu = _run(fn, arrays, "gpu", dtype)
    for c, g in zip(cpu, gpu):
        assert c.shape == g.shape and c.dtype == g.dtype
        if c.dtype.kind in "iu":
            np.testing.assert_array_equal(g, c)
        else:
            scale = max(1.0, float(np.abs(c).max()) if c.size else 1.0)
            np.testing.assert_allclose(g, c, rtol=0, atol=TOL[dtype] * scale)


CONVS = [
    ("3x3 pad1", lambda x, w: F.conv2d(x, w, padding=1), [(2, 4, 9, 8), (6, 4, 3, 3)]),
    ("stride2 asym pads", lambda x, w: F.conv2d(x, w, stride=2, padding=[1, 0, 2, 1]), [(2, 3, 7, 6), (4, 3, 3, 3)]),
    ("SAME stride2 NHWC", lambda x, w: F.conv2d(x, w, stride=2, padding="SAME", data_format="NHWC"),
     [(2, 8, 8, 5), (6, 5, 3, 3)]),
    ("groups dilation bias", lambda x, w, b: F.conv2d(x, w, b, padding=2, dilation=2, groups=2),
     [(2, 4, 9, 9), (6, 2, 3, 3), (6,)]),
    ("depthwise NHWC", lambda x, w: F.conv2d(x, w, padding=1, groups=8, data_format="NHWC"),
     [(2, 7, 7, 8), (8, 1, 3, 3)]),
    ("1x1", lambda x, w: F.conv2d(x, w), [(2, 16, 5, 6), (8, 16, 1, 1)]),
    ("conv1d", lambda x, w: F.conv1d(x, w, stride=2, padding=1), [(2, 4, 11), (6, 4, 3)]),
    ("conv3d", lambda x, w: F.conv3d(x, w, padding=1, groups=2), [(1, 4, 4, 5, 4), (4, 2, 3, 3, 3)]),
    ("transpose output_padding", lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1, output_padding=1),
     [(2, 4, 5, 4), (4, 3, 3, 3)]),
    ("transpose groups NHWC", lambda x, w: F.conv2d_transpose(x, w, stride=2, groups=2, data_format="NHWC"),
     [(1, 4, 5, 4), (4, 3, 2, 2)]),
]
POOLS = [
    ("max 3x3/2 p1", lambda x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 9, 8)]),
    ("max ceil NHWC", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True, data_format="NHWC"), [(2, 7, 6, 3)]),
    ("max with mask", lambda x: F.max_pool2d(x, [3, 2], 2, [1, 0], return_mask=True), [(2, 3, 7, 6)]),
    ("avg non-exclusive", lambda x: F.avg_pool2d(x, 3, [2, 1], 1, exclusive=False), [(2, 3, 7, 6)]),
    ("avg ceil exclusive", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), [(2, 3, 7, 6)]),
    ("adaptive avg", lambda x: F.adaptive_avg_pool2d(x, [2, 3]), [(2, 3, 7, 5)]),
    ("adaptive max", lambda x: F.adaptive_max_pool2d(x, [3, 2]), [(2, 3, 7, 5)]),
    ("global avg", lambda x: F.adaptive_avg_pool2d(x, 1), [(2, 16, 7, 7)]),
    ("pool3d", lambda x: F.max_pool3d(x, 2, [1, 2, 1]), [(1, 2, 4, 5, 4)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,fn,shapes", CONVS + POOLS, ids=[c[0] for c in CONVS + POOLS])
def test_dnn_fwd_bwd_matches_cpu(name, fn, shapes, dtype):
    _check(fn, shapes, dtype)


@pytest.mark.parametrize("dtype,tol", [("float16", 1e-2), ("bfloat16", 3e-2)])
def test_dnn_half_forward(dtype, tol):
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 8, 9, 9)), rng.standard_normal((16, 8, 3, 3)), rng.standard_normal(16)
    ref = F.conv2d(paddle.to_tensor(x.astype("float32")), paddle.to_tensor(w.astype("float32")),
                   paddle.to_tensor(b.astype("float32")), stride=2, padding="SAME")
    ref = F.max_pool2d(ref, 2, 2).numpy()
    g = [paddle.to_tensor(a.astype("float32")).astype(dtype).cuda() for a in (x, w, b)]
    out = F.max_pool2d(F.conv2d(g[0], g[1], g[2], stride=2, padding="SAME"), 2, 2)
    got = out.astype("float32").numpy()
    np.testing.assert_allclose(got, ref, rtol=0, atol=tol * max(1.0, np.abs(ref).max()))
