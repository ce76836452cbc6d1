"""The FFT kernels' fast paths against numpy.fft: the six-step form of long 1-d complex transforms
(n >= 65536 with a divisor >= 16: powers of two 2^16 .. 2^21, non-powers of two, batches of long
rows, and sizes that fall back to FFTW's own plans), and even-length real transforms computed as a
half-length complex transform plus a split pass (rfft, fft of real input, ihfft, batched rows,
non-last axes, unaligned views, the irfft gradient that runs an r2c), in float32/float64,
forward and inverse, every norm; gradients against their closed forms (adjoint transforms)."""
import numpy as np
import pytest

import paddle
import paddle.fft as F

NORMS = ["backward", "ortho", "forward"]


def _scale(norm, n, inverse):
    if norm == "ortho":
        return 1 / np.sqrt(n)
    return 1.0 if (norm == "backward") != inverse else 1.0 / n


def _tol(dt):
    return 2e-6 if dt in (np.complex64, np.float32) else 1e-13


def _rel_err(got, ref):
    return np.abs(got - ref).max() / np.abs(ref).max()


# 2^16 .. 2^21, non-powers of two (3^11 = 243 * 729, 3 * 2^16, 4 * 7 * 11 * 325, 10^6), a prime
# and 2 * prime (no split: FFTW's own plans)
C2C_SIZES = [1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 177147, 196608, 100100, 1000000, 65537, 131074]
C2C_CASES = [(n, np.complex64) for n in C2C_SIZES] + [(n, np.complex128) for n in C2C_SIZES if n not in (1 << 17, 1 << 19, 1 << 21, 1000000, 131074)]


@pytest.mark.parametrize("n,dt", C2C_CASES)
def test_long_c2c_vs_numpy(n, dt):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    t = paddle.to_tensor(x)
    for inverse in (False, True):
        ref = (np.fft.ifft(x.astype(np.complex128)) * n) if inverse else np.fft.fft(x.astype(np.complex128))
        f = F.ifft if inverse else F.fft
        for norm in NORMS:
            for _ in range(3 if norm == "backward" else 1):  # the third call re-plans with FFTW_MEASURE
                got = f(t, norm=norm).numpy()
                assert got.dtype == dt
                err = _rel_err(got, ref * _scale(norm, n, inverse))
                assert err < _tol(dt), (n, dt, inverse, norm, err)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_batch_of_long_rows_and_other_axes(dt):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((3, 65536)) + 1j * rng.standard_normal((3, 65536))).astype(dt)
    t = paddle.to_tensor(x)
    for norm in NORMS:
        assert _rel_err(F.fft(t, norm=norm).numpy(), np.fft.fft(x.astype(np.complex128), norm=norm)) < _tol(dt)
        assert _rel_err(F.ifft(t, norm=norm).numpy(), np.fft.ifft(x.astype(np.complex128), norm=norm)) < _tol(dt)
    # a long axis that is not the last one, and a strided (non-contiguous) input
    y = np.ascontiguousarray(x.T)
    assert _rel_err(F.fft(paddle.to_tensor(y), axis=0).numpy(), np.fft.fft(y.astype(np.complex128), axis=0)) < _tol(dt)
    v = paddle.to_tensor(x)[:, ::2]
    assert _rel_err(F.fft(v).numpy(), np.fft.fft(x[:, ::2].astype(np.complex128))) < _tol(dt)
    # n pads / crops to a length that takes the six-step form
    assert _rel_err(F.fft(t, n=1 << 17).numpy(), np.fft.fft(x.astype(np.complex128), n=1 << 17)) < _tol(dt)


@pytest.mark.parametrize("dt", [np.complex128])
@pytest.mark.parametrize("norm", NORMS)
def test_long_c2c_gradient_is_the_adjoint(dt, norm):
    # L = Re sum(conj(v) fft(x)) -> dL/dRe x + i dL/dIm x = s n ifft(v) (the adjoint of s F)
    n = 1 << 17
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    for inverse in (False, True):
        t = paddle.to_tensor(x)
        t.stop_gradient = False
        o = (F.ifft if inverse else F.fft)(t, norm=norm)
        vt = paddle.to_tensor(v)
        loss = (paddle.real(o) * paddle.real(vt)).sum() + (paddle.imag(o) * paddle.imag(vt)).sum()
        (g,) = paddle.grad([loss], [t])
        adj = np.fft.fft(v) if inverse else np.fft.ifft(v) * n
        assert _rel_err(g.numpy(), adj * _scale(norm, n, inverse)) < 1e-12


# even lengths from 64 up (the half-length form), odd lengths and short ones (FFTW's r2c)
R2C_SHAPES = [(1 << 20,), (1 << 17,), (256, 1024), (3, 64), (5, 66), (7, 130), (2, 3, 514), (1, 70), (4, 62),
              (3, 65), (2, 1026), (2, 1 << 17), (3, 2 * 4099)]


@pytest.mark.parametrize("shape", R2C_SHAPES)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_rfft_even_lengths_vs_numpy(shape, dt):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(dt)
    t = paddle.to_tensor(x)
    x64 = x.astype(np.float64)
    cdt = np.complex64 if dt == np.float32 else np.complex128
    for norm in NORMS:
        for _ in range(3 if norm == "backward" else 1):
            got = F.rfft(t, norm=norm).numpy()
            assert got.dtype == cdt
            assert _rel_err(got, np.fft.rfft(x64, norm=norm)) < _tol(dt), (shape, norm)
        assert _rel_err(F.fft(t, norm=norm).numpy(), np.fft.fft(x64, norm=norm)) < _tol(dt), (shape, norm)
        assert _rel_err(F.ihfft(t, norm=norm).numpy(), np.fft.ihfft(x64, norm=norm)) < _tol(dt), (shape, norm)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_rfft_layouts(dt):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 128, 6)).astype(dt)
    t = paddle.to_tensor(x)
    for axis in (0, 1, 2):  # only the last axis is contiguous
        assert _rel_err(F.rfft(t, axis=axis).numpy(), np.fft.rfft(x.astype(np.float64), axis=axis)) < _tol(dt)
    # rows that start at an odd float offset (a view): not aligned as complex numbers
    big = paddle.to_tensor(rng.standard_normal(1 + 8 * 256).astype(dt))
    v = big[1:].reshape([8, 256])
    assert _rel_err(F.rfft(v).numpy(), np.fft.rfft(v.numpy().astype(np.float64))) < _tol(dt)
    # rows with an odd stride
    w = paddle.to_tensor(rng.standard_normal((6, 129)).astype(dt))[:, :128]
    assert _rel_err(F.rfft(w).numpy(), np.fft.rfft(w.numpy().astype(np.float64))) < _tol(dt)
    # rfft2 / rfftn (their last axis runs through r2c)
    y = rng.standard_normal((4, 96, 128)).astype(dt)
    assert _rel_err(F.rfft2(paddle.to_tensor(y)).numpy(), np.fft.rfft2(y.astype(np.float64))) < _tol(dt)
    assert _rel_err(F.rfftn(paddle.to_tensor(y)).numpy(), np.fft.rfftn(y.astype(np.float64))) < _tol(dt)


@pytest.mark.parametrize("norm", NORMS)
def test_rfft_and_irfft_gradients_are_adjoints(norm):
    rng = np.random.default_rng(4)
    rows, n = 4, 1024
    h = n // 2 + 1
    # rfft: L = Re sum(conj(v) rfft(x)) -> grad = s n Re(ifft(v zero-padded to n))
    x = rng.standard_normal((rows, n))
    v = rng.standard_normal((rows, h)) + 1j * rng.standard_normal((rows, h))
    t = paddle.to_tensor(x)
    t.stop_gradient = False
    o = F.rfft(t, norm=norm)
    vt = paddle.to_tensor(v)
    loss = (paddle.real(o) * paddle.real(vt)).sum() + (paddle.imag(o) * paddle.imag(vt)).sum()
    (g,) = paddle.grad([loss], [t])
    pad = np.concatenate([v, np.zeros((rows, n - h))], axis=1)
    assert _rel_err(g.numpy(), _scale(norm, n, False) * n * np.fft.ifft(pad).real) < 1e-12
    # irfft: L = sum(w irfft(z)) -> grad = s c_k rfft(w)[k] (c_k = 2 but for DC and Nyquist; Paddle's rule)
    z = rng.standard_normal((rows, h)) + 1j * rng.standard_normal((rows, h))
    w = rng.standard_normal((rows, n))
    t = paddle.to_tensor(z)
    t.stop_gradient = False
    (g,) = paddle.grad([(F.irfft(t, norm=norm) * paddle.to_tensor(w)).sum()], [t])
    c = np.full(h, 2.0)
    c[0] = c[-1] = 1.0
    assert _rel_err(g.numpy(), _scale(norm, n, True) * c * np.fft.rfft(w)) < 1e-12


def test_stft_matches_numpy_framing():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(16000).astype(np.float32)
    win = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(512) / 512)).astype(np.float32)
    got = paddle.signal.stft(paddle.to_tensor(a), 512, 128, window=paddle.to_tensor(win)).numpy()
    p = np.pad(a.astype(np.float64), 256, mode="reflect")
    frames = np.stack([p[i * 128:i * 128 + 512] for i in range(1 + (len(p) - 512) // 128)])
    ref = np.fft.rfft(frames * win, axis=-1).T
    assert _rel_err(got, ref) < 2e-6
