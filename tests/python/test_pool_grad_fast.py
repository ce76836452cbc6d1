"""Max-pool gradients. The float32 2-D recompute path (pool.c max2d_bwd_f32, under
PADDLE_C_POOL_ARGMAX=0) against the generic window loop (PADDLE_C_POOL_BWD_GENERIC=1, read per
call) bit for bit, and against numpy: ties, NaN, padding, ceil_mode, strides, NHWC, adaptive
windows, odd shapes. The training path with the saved int32 argmax (max_pool2d_with_index) against the
recompute path and numpy."""
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
    os.environ["PADDLE_C_POOL_ARGMAX"] = "0"  # pool2d_grad's recompute (not the saved argmax)
    try:
        fast = _grad(x, dy, fn)
        os.environ["PADDLE_C_POOL_BWD_GENERIC"] = "1"
        slow = _grad(x, dy, fn)
    finally:
        del os.environ["PADDLE_C_POOL_BWD_GENERIC"], os.environ["PADDLE_C_POOL_ARGMAX"]
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


class _Count:
    """counts max_pool2d_with_index calls through pooling's op module"""

    def __init__(self, ops):
        self.ops, self.n = ops, 0

    def __getattr__(self, name):
        if name == "max_pool2d_with_index":
            self.n += 1
        return getattr(self.ops, name)


def _grads(x, dy, fn, dtype):
    xt = paddle.to_tensor(x, stop_gradient=False)
    y = fn(xt)
    (y * paddle.to_tensor(dy)).sum().backward()
    return y.numpy(), xt.grad.numpy()


def test_max_pool_training_argmax_path_vs_recompute(monkeypatch):
    """Training-mode max pooling saves an int32 argmax (max_pool2d_with_index) and scatters the gradient
    there; PADDLE_C_POOL_ARGMAX=0 recomputes it in pool2d_grad. Both bit for bit equal (the first
    maximum in row order, as Paddle: ties, constant planes, overlapping windows, padding, ceil_mode,
    NaN, adaptive, NHWC, 1-D, 3-D; float32 and float64) and equal to numpy; no argmax without a
    gradient; the double backward agrees."""
    from paddle.nn.functional import pooling
    cnt = _Count(pooling._ops)
    monkeypatch.setattr(pooling, "_ops", cnt)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 9, 8))
    ties = rng.integers(0, 3, (2, 3, 9, 8)).astype("f8")
    nan = x.copy()
    nan[1, 2, 3, 4] = nan[0, 0, 0, 0] = np.nan
    cases = [(x, lambda t: F.max_pool2d(t, 3, 2, 1), (3, 2, 1)),
             (ties, lambda t: F.max_pool2d(t, 3, 1, 1), (3, 1, 1)),
             (np.ones((1, 2, 7, 7)), lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True), None),
             (np.ones((1, 2, 6, 5)), lambda t: F.max_pool2d(t, 2, 1, 0), (2, 1, 0)),
             (ties, lambda t: F.max_pool2d(t, (2, 3), (1, 2), (1, 0), ceil_mode=True), None),
             (nan, lambda t: F.max_pool2d(t, 3, 2, 1), None),
             (ties, lambda t: F.adaptive_max_pool2d(t, (4, 3)), None),
             (ties, lambda t: F.max_pool2d(t.transpose([0, 2, 3, 1]), 3, 2, 1, data_format="NHWC"), None),
             (ties[:, :, 0], lambda t: F.max_pool1d(t, 3, 2, 1, ceil_mode=True), None),
             (rng.integers(0, 2, (1, 2, 4, 5, 4)).astype("f8"), lambda t: F.max_pool3d(t, 2, 1, 1), None)]
    for dtype in ("float32", "float64"):
        for xs, fn, ref in cases:
            xs = xs.astype(dtype)
            with paddle.no_grad():
                n0 = cnt.n
                y0 = fn(paddle.to_tensor(xs)).numpy()
                assert cnt.n == n0  # inference: pool2d, no argmax
            dy = rng.standard_normal(y0.shape).astype(dtype)
            n0 = cnt.n
            fast = _grads(xs, dy, fn, dtype)
            assert cnt.n == n0 + 1
            monkeypatch.setenv("PADDLE_C_POOL_ARGMAX", "0")
            slow = _grads(xs, dy, fn, dtype)
            monkeypatch.delenv("PADDLE_C_POOL_ARGMAX")
            assert cnt.n == n0 + 1
            np.testing.assert_array_equal(fast[0], y0)
            np.testing.assert_array_equal(fast[0], slow[0])
            np.testing.assert_array_equal(fast[1], slow[1])
            if ref is not None:
                np.testing.assert_allclose(fast[1], _ref_max2d(xs, dy, *ref), rtol=1e-5, atol=1e-5)
    # the argmax itself: int32, flat in the plane, first maximum (numpy's argmax) per window
    xt = paddle.to_tensor(ties)
    out, am = paddle._C_ops.max_pool2d_with_index(xt, [3, 3], [1, 1], [1, 1], False, False, False, "NCHW", "EXPLICIT")
    out2, mask = F.max_pool2d(xt, 3, 1, 1, return_mask=True)
    assert am.dtype == paddle.int32
    np.testing.assert_array_equal(am.numpy(), mask.numpy())
    np.testing.assert_array_equal(out.numpy(), out2.numpy())
    # max_unpool takes the int32 indices (Paddle's mask dtype) as it takes int64 ones
    np.testing.assert_array_equal(F.max_unpool2d(out, am, 3, 1, 1, output_size=[9, 8]).numpy(),
                                  F.max_unpool2d(out2, mask, 3, 1, 1, output_size=[9, 8]).numpy())
    # double backward: d(dx . v)/d(dy) gathers v at the argmax on both paths
    v = paddle.to_tensor(rng.standard_normal(ties.shape))
    dy = rng.standard_normal((2, 3, 9, 8))
    res = []
    for env in ("1", "0"):
        monkeypatch.setenv("PADDLE_C_POOL_ARGMAX", env)
        xt = paddle.to_tensor(ties, stop_gradient=False)
        dyt = paddle.to_tensor(dy, stop_gradient=False)
        (g,) = paddle.grad([F.max_pool2d(xt, 3, 1, 1)], [xt], [dyt], create_graph=True)
        (gg,) = paddle.grad([(g * v).sum()], [dyt])
        res.append((g.numpy(), gg.numpy()))
    np.testing.assert_array_equal(res[0][1], res[1][1])
    np.testing.assert_array_equal(res[0][0], res[1][0])
