"""Winograd in the eager float32 conv2d (csrc/kernels/cpu/conv_winograd.c, pd_conv_winograd_eager):
the forward, the input gradient (the transposed convolution: the same kernel with the filter's
channels swapped, its taps flipped and pads 2 - p) and the filter gradient (per-point GEMMs over the
tiles) of stride-1 3x3 convolutions, forced with PADDLE_C_WINOGRAD=2 (F(2x2, 3x3)) and =4
(F(4x4, 3x3)), against float64 numpy and against the same call with PADDLE_C_WINOGRAD=0 (oneDNN:
close, never bit-equal, so Winograd ran). Odd and even planes, pads 0 / 1 / 2 and asymmetric, batch
1 and 3, channels 8..72. Each case runs in this process (the detected ISA level) and once more in a
child with PADDLE_C_ISA=avx2 (the lower level's copy: the AVX2 microkernel where this CPU has
AVX-512). Errors are relative to each output's scale."""
import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import paddle
import paddle.nn.functional as F

TOL = {"2": 1e-5, "4": 5e-5}  # as test_conv_winograd.py; measured maxima in docs/performance_log.md
# (N, C, O, H, W, pads [top, bottom, left, right])
CASES = [(1, 32, 48, 9, 11, [1, 1, 1, 1]), (3, 16, 24, 7, 5, [0, 0, 0, 0]), (3, 40, 56, 10, 7, [1, 1, 1, 1]),
         (1, 8, 72, 13, 6, [0, 1, 1, 0]), (3, 24, 16, 5, 9, [2, 2, 1, 1]), (1, 64, 64, 3, 3, [1, 1, 1, 1])]


def _ref(x, w, pads):
    """float64 direct convolution, NCHW, 3x3, stride 1, pads [top, bottom, left, right]"""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    oh, ow = x.shape[2] - 2, x.shape[3] - 2
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(3):
        for j in range(3):
            y += np.einsum("nchw,oc->nohw", x[:, :, i:i + oh, j:j + ow], w[:, :, i, j].astype(np.float64))
    return y


def _data(case):
    n, c, o, h, w, p = case
    rng = np.random.default_rng(c * 100 + h)
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    wt = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(9 * c)).astype("float32")
    gy = rng.standard_normal((n, o, h + p[0] + p[1] - 2, w + p[2] + p[3] - 2)).astype("float32")
    return x, wt, gy


def _setenv(kv):
    for k, v in kv.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@contextlib.contextmanager
def _env(**kv):
    """environment variables set for the block (None: unset), restored after"""
    old = {k: os.environ.get(k) for k in kv}
    _setenv(kv)
    try:
        yield
    finally:
        _setenv(old)


def _run(case, mode):
    """y, dx, dw of sum(conv2d(x, w) * gy) with PADDLE_C_WINOGRAD=mode"""
    x, w, gy = _data(case)
    with _env(PADDLE_C_WINOGRAD=mode):
        xt = paddle.to_tensor(x, stop_gradient=False)
        wt = paddle.to_tensor(w, stop_gradient=False)
        y = F.conv2d(xt, wt, padding=case[5])
        (y * paddle.to_tensor(gy)).sum().backward()
        return y.numpy(), xt.grad.numpy(), wt.grad.numpy()


def _rel(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def _errors(case, mode):
    """relative errors of y and dx vs float64, and whether they differ from oneDNN's (mode 0)"""
    x, w, gy = _data(case)
    p = case[5]
    y, dx, dw = _run(case, mode)
    y0, dx0, dw0 = _run(case, "0")
    yr = _ref(x, w, p)
    # dx = the convolution of gy with w's channels swapped, taps flipped, pads 2 - p
    dxr = _ref(gy, np.ascontiguousarray(w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]), [2 - v for v in p])
    # dw[o, c, i, j] = sum over n, oy, ox of gy[n, o, oy, ox] x_padded[n, c, oy + i, ox + j]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p[0], p[1]), (p[2], p[3])))
    oh, ow = gy.shape[2:]
    dwr = np.zeros(w.shape)
    for i in range(3):
        for j in range(3):
            dwr[:, :, i, j] = np.einsum("nchw,nohw->oc", xp[:, :, i:i + oh, j:j + ow], gy.astype(np.float64))
    return {"y": _rel(y, yr), "dx": _rel(dx, dxr), "dw": _rel(dw, dwr), "y0": _rel(y0, yr), "dx0": _rel(dx0, dxr),
            "dw0": _rel(dw0, dwr), "shape": list(y.shape) == list(yr.shape),
            "differs": bool(not np.array_equal(y, y0) and not np.array_equal(dx, dx0) and not np.array_equal(dw, dw0))}


def _check(e, mode):
    assert e["shape"]
    assert e["y"] < TOL[mode] and e["dx"] < TOL[mode] and e["dw"] < TOL[mode], e
    assert e["y0"] < 1e-5 and e["dx0"] < 1e-5 and e["dw0"] < 1e-5, e
    assert e["differs"], "Winograd did not run"


@pytest.mark.parametrize("mode", ["2", "4"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:5])) + "p" + "".join(map(str, c[5])))
def test_eager_forward_and_input_grad(case, mode):
    _check(_errors(case, mode), mode)


def test_lower_isa_level():
    """the same cases in a child forced to the AVX2 copy (PADDLE_C_ISA=avx2)"""
    code = ("import json, sys; sys.path.insert(0, %r); import paddle; import test_conv_winograd_train as t; "
            "print(paddle._C.isa_info()['active']); "
            "print(json.dumps([[t._errors(c, m) for c in t.CASES] for m in ('2', '4')]))") % os.path.dirname(__file__)
    env = dict(os.environ, PADDLE_C_ISA="avx2")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().splitlines()
    assert lines[-2] == "avx2"
    res = json.loads(lines[-1])
    for m, errs in zip(("2", "4"), res):
        for e in errs:
            _check(e, m)


def test_auto_declines_small():
    """unset (auto): a layer below the channel threshold (16 channels) runs oneDNN: bit-equal to mode 0"""
    case = CASES[1]
    x, w, _ = _data(case)
    with _env(PADDLE_C_WINOGRAD=None):
        y = F.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), padding=case[5]).numpy()
    np.testing.assert_array_equal(y, _run(case, "0")[0])


def test_wgrad_switch():
    """PADDLE_C_WINOGRAD_WGRAD=0 leaves the filter gradient to oneDNN (bit-equal to mode 0's) while the
    forward and the input gradient stay Winograd's"""
    case = CASES[2]
    with _env(PADDLE_C_WINOGRAD_WGRAD="0"):
        y, dx, dw = _run(case, "4")
    y0, dx0, dw0 = _run(case, "0")
    np.testing.assert_array_equal(dw, dw0)
    assert not np.array_equal(y, y0) and not np.array_equal(dx, dx0)


def test_no_grad_and_float64_untouched():
    """no_grad forward takes the same path; float64 never does (bit-equal across modes)"""
    x, w, _ = _data(CASES[0])
    x64, w64 = paddle.to_tensor(x.astype("float64")), paddle.to_tensor(w.astype("float64"))
    with paddle.no_grad():
        with _env(PADDLE_C_WINOGRAD="4"):
            y = F.conv2d(paddle.to_tensor(x), paddle.to_tensor(w), padding=1).numpy()
            y64 = F.conv2d(x64, w64, padding=1).numpy()
        with _env(PADDLE_C_WINOGRAD="0"):
            y64_0 = F.conv2d(x64, w64, padding=1).numpy()
    assert _rel(y, _ref(x, w, [1, 1, 1, 1])) < TOL["4"]
    np.testing.assert_array_equal(y64, y64_0)
