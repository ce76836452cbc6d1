"""paddle.signal: frame / overlap_add / stft against numpy references written here from their
definitions, istft(stft(x)) round trips, gradients through stft against finite differences, and
argument errors of the types Paddle 2.6 raises."""
import numpy as np
import pytest

import paddle
from paddle.signal import frame, istft, overlap_add, stft


def np_frame(x, frame_length, hop, axis=-1):
    if axis == 0:
        return np.moveaxis(np_frame(np.moveaxis(x, 0, -1), frame_length, hop), [-2, -1], [1, 0])
    n = 1 + (x.shape[-1] - frame_length) // hop
    return np.stack([x[..., t * hop:t * hop + frame_length] for t in range(n)], -1)


def np_overlap_add(x, hop, axis=-1):
    if axis == 0:
        return np.moveaxis(np_overlap_add(np.moveaxis(x, [0, 1], [-1, -2]), hop), -1, 0)
    f, n = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + ((n - 1) * hop + f,), x.dtype)
    for t in range(n):
        out[..., t * hop:t * hop + f] += x[..., :, t]
    return out


def np_window(window, win_length, n_fft):
    w = np.ones(win_length) if window is None else window
    left = (n_fft - win_length) // 2
    full = np.zeros(n_fft, w.dtype)
    full[left:left + win_length] = w
    return full


def np_stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect", normalized=False,
            onesided=True):
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    one = x.ndim == 1
    x = np.atleast_2d(x)
    if center:
        x = np.pad(x, [(0, 0), (n_fft // 2, n_fft // 2)], mode=pad_mode)
    w = np_window(window, win_length, n_fft)
    n = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[:, t * hop:t * hop + n_fft] * w for t in range(n)], 1)  # [B, T, n_fft]
    norm = "ortho" if normalized else "backward"
    spec = np.fft.rfft(frames, axis=-1, norm=norm) if onesided else np.fft.fft(frames, axis=-1, norm=norm)
    spec = spec.transpose(0, 2, 1)
    return spec[0] if one else spec


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
def test_frame_and_overlap_add_vs_numpy(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 40)) * 10
    if dtype == "complex64":
        x = x + 1j * rng.standard_normal((3, 40))
    x = x.astype(dtype)
    for fl, hop in [(8, 2), (7, 3), (40, 5), (5, 5)]:
        np.testing.assert_allclose(frame(paddle.to_tensor(x), fl, hop).numpy(), np_frame(x, fl, hop))
        xt = np.ascontiguousarray(x.T)
        np.testing.assert_allclose(frame(paddle.to_tensor(xt), fl, hop, axis=0).numpy(), np_frame(xt, fl, hop, 0))
    fr = x.reshape(3, 8, 5)
    for hop in (1, 3, 8, 10):
        np.testing.assert_allclose(overlap_add(paddle.to_tensor(fr), hop).numpy(), np_overlap_add(fr, hop),
                                   rtol=1e-5, atol=1e-5)
        fr0 = np.ascontiguousarray(fr.transpose(2, 1, 0))
        np.testing.assert_allclose(overlap_add(paddle.to_tensor(fr0), hop, axis=0).numpy(),
                                   np_overlap_add(fr0, hop, 0), rtol=1e-5, atol=1e-5)
    assert overlap_add(paddle.to_tensor(fr), 2).dtype == paddle.to_tensor(fr).dtype


STFT_CASES = [dict(n_fft=16), dict(n_fft=15, hop_length=4), dict(n_fft=16, win_length=10, window="hann"),
              dict(n_fft=32, hop_length=8, center=False), dict(n_fft=16, pad_mode="constant", normalized=True),
              dict(n_fft=16, onesided=False, window="rand"), dict(n_fft=64, hop_length=64)]


def _window(kw, rng, dtype):
    kw = dict(kw)
    w = kw.pop("window", None)
    wl = kw.get("win_length", kw["n_fft"])
    if w == "hann":
        w = np.hanning(wl + 1)[:-1]
    elif w == "rand":
        w = rng.uniform(0.5, 1.5, wl)
    return kw, (None if w is None else w.astype(dtype))


@pytest.mark.parametrize("kw", STFT_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stft_vs_numpy(kw, dtype):
    rng = np.random.default_rng(1)
    kw, w = _window(kw, rng, dtype)
    for shape in [(64,), (3, 100)]:
        x = rng.standard_normal(shape).astype(dtype)
        got = stft(paddle.to_tensor(x), window=None if w is None else paddle.to_tensor(w), **kw)
        ref = np_stft(x.astype(np.float64), window=w, **kw)
        tol = 1e-4 if dtype == "float32" else 1e-10
        assert got.dtype == (paddle.complex64 if dtype == "float32" else paddle.complex128)
        np.testing.assert_allclose(got.numpy(), ref, rtol=tol, atol=tol)


def test_stft_of_complex_input():
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((2, 50)) + 1j * rng.standard_normal((2, 50))).astype(np.complex128)
    got = stft(paddle.to_tensor(x), 16, onesided=False, pad_mode="constant")
    hop, n = 4, 16
    xp = np.pad(x, [(0, 0), (8, 8)])
    fr = np.stack([xp[:, t * hop:t * hop + n] for t in range(1 + (xp.shape[1] - n) // hop)], 1)
    np.testing.assert_allclose(got.numpy(), np.fft.fft(fr, axis=-1).transpose(0, 2, 1), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kw", [dict(n_fft=16), dict(n_fft=16, hop_length=8, window="hann"),
                                dict(n_fft=15, hop_length=5, normalized=True), dict(n_fft=32, win_length=24,
                                                                                    window="hann", hop_length=6),
                                dict(n_fft=16, onesided=False, window="rand"), dict(n_fft=16, center=False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_istft_round_trip(kw, dtype):
    rng = np.random.default_rng(3)
    kw, w = _window(kw, rng, dtype)
    x = rng.standard_normal((2, 128)).astype(dtype)
    wt = None if w is None else paddle.to_tensor(w)
    spec = stft(paddle.to_tensor(x), window=wt, **kw)
    ikw = {k: v for k, v in kw.items() if k != "pad_mode"}
    y = istft(spec, window=wt, length=128 if kw.get("center", True) else None, **ikw).numpy()
    tol = 1e-4 if dtype == "float32" else 1e-9
    if kw.get("center", True):
        np.testing.assert_allclose(y, x, rtol=tol, atol=tol)
    else:  # without centring the first/last samples covered by one window only are still exact
        np.testing.assert_allclose(y, x[:, :y.shape[1]], rtol=tol, atol=tol)
    y1 = istft(spec[0], window=wt, **ikw).numpy()
    assert y1.ndim == 1


def test_istft_vs_numpy_overlap_add():
    rng = np.random.default_rng(4)
    spec = (rng.standard_normal((2, 9, 12)) + 1j * rng.standard_normal((2, 9, 12)))
    spec[:, 0].imag = 0
    spec[:, -1].imag = 0
    n_fft, hop = 16, 4
    w = np.hanning(n_fft + 1)[:-1]
    frames = np.fft.irfft(spec.transpose(0, 2, 1), n_fft, axis=-1) * w  # [B, T, n_fft]
    y = np_overlap_add(frames.transpose(0, 2, 1), hop)
    env = np_overlap_add(np.tile((w * w)[:, None], (1, 12)), hop)
    ref = (y / env)[:, n_fft // 2:-(n_fft // 2)]
    got = istft(paddle.to_tensor(spec), n_fft, hop, window=paddle.to_tensor(w)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)
    got_c = istft(paddle.to_tensor(np.concatenate([spec, np.conj(spec[:, -2:0:-1])], 1)), n_fft, hop,
                  window=paddle.to_tensor(w), onesided=False, return_complex=True).numpy()
    np.testing.assert_allclose(got_c.real, ref, rtol=1e-9, atol=1e-9)


def test_stft_gradient_vs_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 24))
    wr, wi = rng.uniform(0.5, 1.5, (2, 1, 5, 7))
    win = np.hanning(8)

    def loss_np(a):
        o = stft(paddle.to_tensor(a), 8, 4, window=paddle.to_tensor(win)).numpy()
        return float((o.real * wr).sum() + (o.imag * wi).sum())

    t = paddle.to_tensor(x)
    t.stop_gradient = False
    o = stft(t, 8, 4, window=paddle.to_tensor(win))
    assert o.shape == [1, 5, 7]
    loss = (paddle.real(o) * paddle.to_tensor(wr)).sum() + (paddle.imag(o) * paddle.to_tensor(wi)).sum()
    (g,) = paddle.grad([loss], [t])
    num = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += 1e-6
        xm.flat[i] -= 1e-6
        num.flat[i] = (loss_np(xp) - loss_np(xm)) / 2e-6
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-7)


def test_errors():
    x = paddle.to_tensor(np.random.rand(2, 64).astype("float32"))
    xc = paddle.to_tensor((np.random.rand(2, 64) + 1j).astype("complex64"))
    for kw, msg in [(dict(n_fft=16, hop_length=0), "hop_length should be > 0"),
                    (dict(n_fft=16, win_length=20), r"win_length should be in \(0, n_fft\(16\)\]"),
                    (dict(n_fft=200), r"n_fft should be in \(0, seq_length\(64\)\]"),
                    (dict(n_fft=16, pad_mode="edge"), "pad_mode should be"),
                    (dict(n_fft=16, window=paddle.ones([10])), "window tensor of size equal to win_length")]:
        with pytest.raises(AssertionError, match=msg):
            stft(x, **kw)
    with pytest.raises(AssertionError, match="rank of x is 3"):
        stft(paddle.ones([1, 2, 64]), 16)
    with pytest.raises(AssertionError, match="onesided should be False"):
        stft(xc, 16)
    y = stft(x, 16)
    with pytest.raises(AssertionError, match="fft_size should be equal"):
        istft(y, 20)
    with pytest.raises(AssertionError, match="onesided should be False"):
        istft(y, 16, return_complex=True)
    with pytest.raises(AssertionError, match="hop_length should be in"):
        istft(y, 16, hop_length=20)
    with pytest.raises(AssertionError, match="rank of x is 4"):
        istft(paddle.ones([1, 2, 9, 17], "complex64"), 16)
    with pytest.raises(ValueError, match="NOLA"):
        istft(y, 16, window=paddle.zeros([16]))
    with pytest.raises(ValueError, match="It should be 0 or -1"):
        frame(x, 16, 4, axis=1)
    with pytest.raises(ValueError, match="less equal than sequence length"):
        frame(x, 100, 4)
    with pytest.raises(ValueError, match="hop_length"):
        frame(x, 16, 0)
    with pytest.raises(ValueError, match="It should be 0 or -1"):
        overlap_add(paddle.ones([2, 16, 5]), 4, axis=1)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        overlap_add(paddle.ones([16]), 4)
    assert istft(y, 16, length=100).shape == [2, 72]
    assert istft(y, 16, center=False).shape == [2, 80]
