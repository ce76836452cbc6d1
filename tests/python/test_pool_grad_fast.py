"""The float32 2-D max-pool gradient's direct path (pool.c max2d_bwd_f32) against the generic
window loop (PADDLE_C_POOL_BWD_GENERIC=1, read per call) bit for bit, and against numpy: ties,
NaN, padding, ceil_mode, strides, NHWC, adaptive windows, odd shapes."""
import os

import numpy as np

import paddle
import paddle.nn.functional as F


def _grad(x, dy, fn):
    xt = paddle.to_tensor(x, stop_gradient=False)
    y = fn(xt)
    (y * paddle.to_tensor(dy)).sum().backward()
    return y.numpy(), xt.grad.numpy()


def _both(x, fn, rng):
    y = fn(paddle.to_tensor(x)).numpy()
    dy = rng.standard_normal(y.shape).astype("float32")
    fast = _grad(x, dy, fn)
    os.environ["PADDLE_C_POOL_BWD_GENERIC"] = "1"
    try:
        slow = _grad(x, dy, fn)
    finally:
        del os.environ["PADDLE_C_POOL_BWD_GENERIC"]
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_array_equal(fast[1], slow[1])
    return fast, dy


def _ref_max2d(x, dy, k, s, p):
    """numpy: first argmax in row order of each (-inf padded) window gets dy"""
    N, C, H, W = x.shape
    OH, OW = dy.shape[2:]
    dx = np.zeros_like(x, dtype="f8")
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    h0, w0 = max(oh * s - p, 0), max(ow * s - p, 0)
                    h1, w1 = min(oh * s - p + k, H), min(ow * s - p + k, W)
                    win = x[n, c, h0:h1, w0:w1]
                    i = np.argmax(win)
                    dx[n, c, h0 + i // win.shape[1], w0 + i % win.shape[1]] += dy[n, c, oh, ow]
    return dx


def test_max_pool_grad_fast_path_vs_generic_and_numpy():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 13, 11)).astype("float32")
    (y, dx), dy = _both(x, lambda t: F.max_pool2d(t, 3, 2, 1), rng)
    np.testing.assert_allclose(dx, _ref_max2d(x, dy, 3, 2, 1), rtol=1e-6, atol=1e-6)
    # ties (integers): the first maximum in row order takes the gradient; overlapping windows add up
    xi = rng.integers(0, 3, (2, 4, 9, 10)).astype("float32")
    (y, dx), dy = _both(xi, lambda t: F.max_pool2d(t, 3, 1, 1), rng)
    np.testing.assert_allclose(dx, _ref_max2d(xi, dy, 3, 1, 1), rtol=1e-6, atol=1e-6)
    # NaN wins its windows
    xn = x.copy()
    xn[0, 1, 4, 5] = np.nan
    _both(xn, lambda t: F.max_pool2d(t, 2, 2), rng)
    for fn in (lambda t: F.max_pool2d(t, 3, 2, 0, ceil_mode=True),
               lambda t: F.max_pool2d(t, (2, 3), (1, 2), (1, 0)),
               lambda t: F.max_pool2d(t, 5, 3, 2),
               lambda t: F.adaptive_max_pool2d(t, (4, 3)),
               lambda t: F.max_pool2d(t.transpose([0, 2, 3, 1]), 3, 2, 1, data_format="NHWC")):
        _both(x, fn, rng)
    _both(rng.standard_normal((1, 1, 1, 1)).astype("float32"), lambda t: F.max_pool2d(t, 1, 1), rng)
