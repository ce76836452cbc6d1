"""1x1 convolutions' GEMM path (conv_dnnl.c pw_gemm: the data gradient of 1x1 unpadded one-group
NCHW convolutions, strided ones included, and with PADDLE_C_CONV_PW=012 the forward and filter
gradient too; 1x1 planes as one GEMM over the batch) against float64 numpy references, odd shapes, 1-D/2-D/3-D, strides, and against the
oneDNN convolution it replaces (PADDLE_C_CONV_PW=none) in subprocesses (the variable is read once)."""
import os
import subprocess
import sys

import numpy as np

import paddle
import paddle.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import ref_conv  # noqa: E402

CASES = [  # x shape, out channels, stride (1x1, no padding)
    ((3, 24, 7, 5), 40, 1),
    ((2, 37, 9, 11), 13, 1),     # odd channel counts / plane
    ((2, 64, 14, 14), 16, 1),    # C > O: the wide data gradient
    ((2, 16, 9, 9), 24, 2),      # strided: sampled positions, zeros elsewhere
    ((3, 20, 8, 11), 8, (2, 3)),  # unequal strides, W not a multiple of its stride
    ((1, 8, 1, 1), 4, 1),
    ((6, 40, 1, 1), 10, 1),      # 1x1 planes (squeeze-and-excitation): one GEMM over the batch
    ((3, 7, 1, 1), 12, 2),
    ((2, 12, 5, 6), 12, 1),
]


def _check(x_shape, O, stride, rng):
    x = rng.standard_normal(x_shape).astype("float32")
    C = x_shape[1]
    w = (rng.standard_normal((O, C, 1, 1)) / np.sqrt(C)).astype("float32")
    st = list(stride) if isinstance(stride, tuple) else [stride, stride]
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    y = F.conv2d(xt, wt, stride=st)
    ref = ref_conv.conv(x.astype("f8"), w.astype("f8"), st, [0, 0])
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5 * max(1, np.abs(ref).max()))
    g = rng.standard_normal(ref.shape).astype("float32")
    (y * paddle.to_tensor(g)).sum().backward()
    rdx = ref_conv.conv_transpose(g.astype("f8"), w.astype("f8"), st, [0, 0], [], list(x_shape[2:]))
    rdw = ref_conv.conv_grad_filter(x.astype("f8"), g.astype("f8"), [O, C, 1, 1], st, [0, 0])
    np.testing.assert_allclose(xt.grad.numpy(), rdx, rtol=1e-4, atol=1e-5 * max(1, np.abs(rdx).max()))
    np.testing.assert_allclose(wt.grad.numpy(), rdw, rtol=1e-4, atol=1e-5 * max(1, np.abs(rdw).max()))
    if st != [1, 1]:  # positions no output reads get exactly zero gradient
        mask = np.ones(x_shape[2:], bool)
        mask[::st[0], ::st[1]] = False
        assert not xt.grad.numpy()[:, :, mask].any()
    return xt.grad.numpy(), wt.grad.numpy(), y.numpy()


def test_pointwise_conv_gradients_vs_numpy():
    rng = np.random.default_rng(3)
    for xs, O, s in CASES:
        _check(xs, O, s, rng)


def test_pointwise_conv_1d_3d_and_transpose_op():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 10, 13)).astype("float32")
    w = rng.standard_normal((6, 10, 1)).astype("float32")
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    y = F.conv1d(xt, wt, stride=2)
    ref = ref_conv.conv(x[..., None].astype("f8"), w[..., None].astype("f8"), [2, 1], [0, 0])[..., 0]
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5)
    y.sum().backward()
    rdx = np.zeros_like(x, dtype="f8")
    rdx[:, :, ::2] = w[:, :, 0].astype("f8").sum(0)[None, :, None]
    np.testing.assert_allclose(xt.grad.numpy(), rdx, rtol=1e-4, atol=1e-5)
    x3 = rng.standard_normal((2, 6, 3, 4, 5)).astype("float32")
    w3 = rng.standard_normal((5, 6, 1, 1, 1)).astype("float32")
    x3t, w3t = paddle.to_tensor(x3, stop_gradient=False), paddle.to_tensor(w3, stop_gradient=False)
    y3 = F.conv3d(x3t, w3t)
    np.testing.assert_allclose(y3.numpy(), np.einsum("oc,ncdhw->nodhw", w3[:, :, 0, 0, 0], x3), rtol=1e-4, atol=1e-4)
    g3 = rng.standard_normal(y3.shape).astype("float32")
    (y3 * paddle.to_tensor(g3)).sum().backward()
    np.testing.assert_allclose(x3t.grad.numpy(), np.einsum("oc,nodhw->ncdhw", w3[:, :, 0, 0, 0], g3), rtol=1e-4,
                               atol=1e-4)
    # conv2d_transpose with a 1x1 filter is the same data-gradient GEMM
    dy = rng.standard_normal((2, 8, 5, 7)).astype("float32")
    wf = rng.standard_normal((8, 3, 1, 1)).astype("float32")
    out = F.conv2d_transpose(paddle.to_tensor(dy), paddle.to_tensor(wf))
    np.testing.assert_allclose(out.numpy(), np.einsum("oc,nohw->nchw", wf[:, :, 0, 0], dy), rtol=1e-4, atol=1e-4)
    for op in (0, 1):  # strided, with output_padding: the extra row / column gets nothing
        out = F.conv2d_transpose(paddle.to_tensor(dy), paddle.to_tensor(wf), stride=2, output_padding=op).numpy()
        ref = np.zeros((2, 3, 9 + op, 13 + op))
        ref[:, :, 0:9:2, 0:13:2] = np.einsum("oc,nohw->nchw", wf[:, :, 0, 0], dy)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


_SCRIPT = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import test_conv_pointwise as t
rng = np.random.default_rng(5)
out = []
for xs, O, s in t.CASES:
    out += list(t._check(xs, O, s, rng))
np.savez(sys.argv[2], *out)
"""


def test_pointwise_gemm_matches_onednn_path(tmp_path):
    """every mode through the GEMMs (012), the default (13, this process) and oneDNN alone (none)
    agree closely"""
    rng = np.random.default_rng(5)
    res = {"1": [a for xs, O, s in CASES for a in _check(xs, O, s, rng)]}
    for mode in ("none", "012"):
        env = dict(os.environ, PADDLE_C_CONV_PW=mode)
        f = tmp_path / f"{mode}.npz"
        subprocess.run([sys.executable, "-c", _SCRIPT, os.path.dirname(__file__), str(f)], env=env, check=True,
                       timeout=120)
        d = np.load(f)
        res[mode] = [d[k] for k in sorted(d.files, key=lambda s: int(s.split("_")[1]))]
    for mode in ("1", "012"):
        for a, b in zip(res[mode], res["none"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * max(1, np.abs(b).max()))
