"""Eager / training convolutions with few output positions and a large filter (ResNet-50's last
stage at batch 1) run oneDNN's GEMM convolution on the plain buffers instead of the blocked
kernel, whose filter reorder on every call cost more (conv_dnnl.c layout_mode): forward and both
gradients against float64 numpy references, 2-D (strides, dilation, asymmetric padding) and 3-D,
and against the blocked path it replaces (PADDLE_C_CONV_FMT=any, read once: a subprocess)."""
import os
import subprocess
import sys

import numpy as np

import paddle
import paddle.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import ref_conv  # noqa: E402

CASES = [  # x shape, out channels, kernel, stride, padding, dilation: N * output positions <= 256, filter >= 2^18
    ((1, 512, 7, 7), 512, 3, 1, 1, 1),
    ((1, 256, 14, 14), 256, 3, 2, 1, 1),
    ((3, 130, 6, 5), 250, 3, 1, 1, 1),      # odd channels and plane
    ((2, 200, 9, 8), 160, 3, 1, 2, 2),      # dilation
    ((1, 96, 11, 9), 460, (3, 2), (2, 1), (1, 0), 1),
    ((1, 64, 4, 4, 4), 512, 3, 1, 1, 1),    # 3-D
]


def _run(rng):
    outs = []
    for xs, O, k, s, p, d in CASES:
        nsp = len(xs) - 2
        ks = [k] * nsp if isinstance(k, int) else list(k)
        x = rng.standard_normal(xs).astype("float32")
        w = (rng.standard_normal((O, xs[1], *ks)) / np.sqrt(xs[1] * np.prod(ks))).astype("float32")
        st = [s] * nsp if isinstance(s, int) else list(s)
        pd = [p] * nsp if isinstance(p, int) else list(p)
        dl = [d] * nsp
        xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
        conv = F.conv2d if nsp == 2 else F.conv3d
        y = conv(xt, wt, stride=st, padding=pd, dilation=dl)
        ref = ref_conv.conv(x.astype("f8"), w.astype("f8"), st, pd, dilations=dl)
        np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4 * max(1, np.abs(ref).max()))
        g = rng.standard_normal(ref.shape).astype("float32")
        (y * paddle.to_tensor(g)).sum().backward()
        rdw = ref_conv.conv_grad_filter(x.astype("f8"), g.astype("f8"), list(w.shape), st, pd, dilations=dl)
        np.testing.assert_allclose(wt.grad.numpy(), rdw, rtol=1e-4, atol=1e-4 * max(1, np.abs(rdw).max()))
        with paddle.no_grad():  # eval-style call, the case the rule is for
            y2 = conv(xt, wt, stride=st, padding=pd, dilation=dl)
        # to rounding, not bit for bit: the thread count may differ between the calls (the pool's
        # governor, core.md "Contention"), and a kernel may split its sums by it. (A clean-clone CI run
        # on the AVX2 EPYC saw 790 of 22500 values 1 ulp apart here: a primitive created in a one-thread
        # window, fixed since: test_pool_create.py.)
        np.testing.assert_allclose(y2.numpy(), y.numpy(), rtol=1e-6, atol=1e-6 * max(1, np.abs(ref).max()))
        outs.append(y.numpy())
    return outs


def test_plain_forward_vs_numpy():
    _run(np.random.default_rng(7))


def test_plain_forward_matches_blocked_path(tmp_path):
    """the same cases with PADDLE_C_CONV_FMT=any (every forward blocked) agree to rounding"""
    here = _run(np.random.default_rng(8))
    out = tmp_path / "blocked.npz"
    code = ("import sys, numpy as np; sys.path.insert(0, %r); import test_conv_plain_forward as t; "
            "np.savez(%r, *t._run(np.random.default_rng(8)))" % (os.path.dirname(__file__), str(out)))
    env = dict(os.environ, PADDLE_C_CONV_FMT="any")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    z = np.load(out)
    for i, a in enumerate(here):
        b = z["arr_%d" % i]
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * max(1, np.abs(b).max()))
