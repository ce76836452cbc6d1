"""Depthwise filter gradient's direct kernel (conv_dnnl.c dw_bwd_w: groups = C = O, NCHW) against
float64 numpy references over kernel sizes 1-7, strides, asymmetric padding, dilation, odd planes,
1-D, windows that hang over the edge; and against oneDNN's own kernels (PADDLE_C_CONV_DW=dnnl, read
once, in a subprocess)."""
import os
import subprocess
import sys

import numpy as np

import paddle
import paddle.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import ref_conv  # noqa: E402

CASES = [  # x shape, kernel, stride, padding, dilation
    ((2, 8, 14, 14), 5, 1, 2, 1),
    ((3, 16, 13, 11), 5, 2, 2, 1),
    ((2, 9, 10, 10), 3, 1, 1, 1),
    ((2, 4, 17, 9), 7, 3, 3, 1),
    ((1, 5, 9, 12), 3, 1, 2, 2),
    ((2, 3, 6, 5), (3, 5), (2, 1), [1, 0, 2, 1], 1),
    ((2, 6, 7, 6), 5, 1, 0, 1),   # no padding: every output reads the whole window
    ((2, 6, 3, 3), 5, 1, 3, 1),   # padding wider than the plane: some taps never land
    ((1, 7, 1, 1), 1, 1, 0, 1),
    ((2, 4, 20, 20), 5, 1, 4, 2),  # dilated: the scalar loop
    ((1, 3, 12, 14), (2, 9), 1, [0, 0, 4, 4], 1),  # window wider than 8 taps: the scalar loop
    ((2, 5, 11, 13), (3, 7), (1, 2), [1, 2, 3, 1], 1),  # asymmetric padding, 7 taps wide
]


def _check(xs, k, s, p, d, rng):
    C = xs[1]
    kk = (k, k) if isinstance(k, int) else k
    x = rng.standard_normal(xs).astype("float32")
    w = rng.standard_normal((C, 1) + kk).astype("float32")
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    y = F.conv2d(xt, wt, stride=s, padding=p, dilation=d, groups=C)
    st = [s, s] if isinstance(s, int) else list(s)
    pd = [p, p] if isinstance(p, int) else list(p)
    ref = ref_conv.conv(x.astype("f8"), w.astype("f8"), st, pd, "EXPLICIT", C, [d, d])
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-4)
    g = rng.standard_normal(ref.shape).astype("float32")
    (y * paddle.to_tensor(g)).sum().backward()
    rdw = ref_conv.conv_grad_filter(x.astype("f8"), g.astype("f8"), list(w.shape), st, pd, "EXPLICIT", C, [d, d])
    np.testing.assert_allclose(wt.grad.numpy(), rdw, rtol=1e-4, atol=1e-4 * max(1, np.abs(rdw).max()))
    return wt.grad.numpy(), xt.grad.numpy()


def test_depthwise_filter_grad_vs_numpy():
    rng = np.random.default_rng(8)
    for c in CASES:
        _check(*c, rng)
    # 1-D depthwise (conv1d is conv2d on an unsqueezed input)
    x = rng.standard_normal((2, 6, 19)).astype("float32")
    w = rng.standard_normal((6, 1, 5)).astype("float32")
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    F.conv1d(xt, wt, stride=2, padding=2, groups=6).sum().backward()
    rdw = ref_conv.conv_grad_filter(x[:, :, None].astype("f8"), np.ones((2, 6, 1, 10)), [6, 1, 1, 5], [1, 2],
                                    [0, 2], "EXPLICIT", 6, [1, 1])
    np.testing.assert_allclose(wt.grad.numpy(), rdw[:, :, 0], rtol=1e-4, atol=1e-4)


_SCRIPT = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import test_conv_depthwise_grad as t
rng = np.random.default_rng(9)
np.savez(sys.argv[2], *[a for c in t.CASES for a in t._check(*c, rng)])
"""


def test_depthwise_filter_grad_matches_onednn(tmp_path):
    rng = np.random.default_rng(9)
    ours = [a for c in CASES for a in _check(*c, rng)]
    f = tmp_path / "dnnl.npz"
    subprocess.run([sys.executable, "-c", _SCRIPT, os.path.dirname(__file__), str(f)], check=True, timeout=120,
                   env=dict(os.environ, PADDLE_C_CONV_DW="dnnl"))
    d = np.load(f)
    theirs = [d[k] for k in sorted(d.files, key=lambda s: int(s.split("_")[1]))]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * max(1, np.abs(b).max()))
