"""paddle.fft against numpy.fft (every function, both precisions, every norm, odd/even sizes,
n / s padding and truncation, axes permutations, non-contiguous inputs), gradients against
central finite differences in float64, the helpers (fftfreq, rfftfreq, fftshift, ifftshift), and
argument errors of the exception types Paddle 2.6 raises."""
import numpy as np
import pytest

import paddle
import paddle.fft as F

NORMS = ["backward", "ortho", "forward"]
SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def np_ihfftn(x, s=None, axes=None, norm="backward"):
    return np.conj(np.fft.rfftn(x, s, axes, norm=SWAP[norm]))


def np_hfftn(x, s=None, axes=None, norm="backward"):
    return np.fft.irfftn(np.conj(x), s, axes, norm=SWAP[norm])


REF1 = {"fft": np.fft.fft, "ifft": np.fft.ifft, "rfft": np.fft.rfft, "irfft": np.fft.irfft, "hfft": np.fft.hfft,
        "ihfft": np.fft.ihfft}
REFN = {"fftn": np.fft.fftn, "ifftn": np.fft.ifftn, "rfftn": np.fft.rfftn, "irfftn": np.fft.irfftn,
        "hfftn": np_hfftn, "ihfftn": np_ihfftn}
REAL_IN = {"rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"}
CPLX_IN = {"irfft", "hfft", "irfftn", "hfftn", "irfft2", "hfft2"}


def _input(name, shape, prec, rng, force_real=False):
    base = name.rstrip("n2")
    real = base in {"rfft", "ihfft"} or force_real
    x = rng.standard_normal(shape)
    if not real:
        x = x + 1j * rng.standard_normal(shape)
    if prec == "single":
        return x.astype(np.float32 if real else np.complex64)
    return x.astype(np.float64 if real else np.complex128)


def _tol(prec):
    return dict(rtol=2e-4, atol=2e-4) if prec == "single" else dict(rtol=1e-10, atol=1e-10)


def _out_dtype(name, x):
    single = x.dtype in (np.float32, np.complex64)
    base = name.rstrip("n2")
    if base in {"irfft", "hfft"}:
        return np.float32 if single else np.float64
    return np.complex64 if single else np.complex128


CASES_1D = [((8,), None, -1), ((7,), None, 0), ((3, 10), 6, -1), ((3, 9), 13, 1), ((5, 4), 5, 0), ((4, 6, 5), 4, 1),
            ((2, 1), None, 0)]


@pytest.mark.parametrize("name", list(REF1))
@pytest.mark.parametrize("prec", ["single", "double"])
@pytest.mark.parametrize("norm", NORMS)
def test_one_dim_vs_numpy(name, prec, norm):
    rng = np.random.default_rng(1)
    for shape, n, axis in CASES_1D:
        if name in CPLX_IN and n is None and shape[axis] == 1:
            continue  # n = 2 * (1 - 1) = 0 points: an error (tested below)
        x = _input(name, shape, prec, rng)
        got = getattr(F, name)(paddle.to_tensor(x), n=n, axis=axis, norm=norm)
        ref = REF1[name](x.astype(np.complex128 if x.dtype.kind == "c" else np.float64), n=n, axis=axis, norm=norm)
        assert got.numpy().dtype == _out_dtype(name, x), (name, shape)
        np.testing.assert_allclose(got.numpy(), ref, err_msg=f"{name} {shape} n={n} axis={axis}", **_tol(prec))


def test_fft_of_real_input_is_full_spectrum():
    rng = np.random.default_rng(2)
    for prec in ("single", "double"):
        for shape, n, axis in CASES_1D:
            x = _input("rfft", shape, prec, rng)
            for name in ("fft", "ifft"):
                for norm in NORMS:
                    got = getattr(F, name)(paddle.to_tensor(x), n=n, axis=axis, norm=norm).numpy()
                    ref = REF1[name](x.astype(np.float64), n=n, axis=axis, norm=norm)
                    np.testing.assert_allclose(got, ref, **_tol(prec))
            for name in ("fft2", "fftn", "ifftn"):
                if len(shape) < 2:
                    continue
                got = getattr(F, name)(paddle.to_tensor(x)).numpy()
                ref = getattr(np.fft, name)(x.astype(np.float64))
                np.testing.assert_allclose(got, ref, **_tol(prec))


CASES_ND = [((6, 5), None, None), ((4, 7, 6), None, (0, 2)), ((4, 7, 6), None, (2, 0)), ((5, 4, 3), (3, 8), (1, 0)),
            ((3, 4, 5), (4, 6, 4), None), ((2, 3, 8), (5,), None), ((6, 5, 2), (7, 4), (-3, -2)),
            ((3, 4, 5), None, (1,))]


@pytest.mark.parametrize("name", list(REFN))
@pytest.mark.parametrize("prec", ["single", "double"])
@pytest.mark.parametrize("norm", NORMS)
def test_n_dim_vs_numpy(name, prec, norm):
    rng = np.random.default_rng(3)
    for shape, s, axes in CASES_ND:
        x = _input(name, shape, prec, rng)
        got = getattr(F, name)(paddle.to_tensor(x), s=s, axes=axes, norm=norm)
        xr = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        ref = REFN[name](xr, s=s, axes=axes, norm=norm)
        assert got.numpy().dtype == _out_dtype(name, x)
        np.testing.assert_allclose(got.numpy(), ref, err_msg=f"{name} {shape} s={s} axes={axes}", **_tol(prec))


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
@pytest.mark.parametrize("prec", ["single", "double"])
@pytest.mark.parametrize("norm", NORMS)
def test_two_dim_vs_numpy(name, prec, norm):
    rng = np.random.default_rng(4)
    refn = REFN[name[:-1] + "n"]
    for shape, s, axes in [((6, 5), None, (-2, -1)), ((3, 7, 4), (5, 6), (0, 2)), ((4, 5, 3), None, (2, 1)),
                           ((5, 8), (3, 3), (-2, -1))]:
        x = _input(name, shape, prec, rng)
        got = getattr(F, name)(paddle.to_tensor(x), s=s, axes=axes, norm=norm)
        xr = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        np.testing.assert_allclose(got.numpy(), refn(xr, s=s, axes=axes, norm=norm), **_tol(prec))


@pytest.mark.parametrize("name", list(REF1) + list(REFN))
def test_non_contiguous_inputs(name):
    rng = np.random.default_rng(5)
    big = _input(name, (6, 9, 8), "double", rng)
    t = paddle.to_tensor(big)
    views = [(paddle.transpose(t, [2, 0, 1]), big.transpose(2, 0, 1)), (t[:, ::2, 1::3], big[:, ::2, 1::3]),
             (t[::-1] if False else t[1:5, 3, :], big[1:5, 3, :])]
    for v, ref_in in views:
        if name in REF1:
            got = getattr(F, name)(v, axis=0).numpy()
            ref = REF1[name](ref_in, axis=0)
        else:
            got = getattr(F, name)(v).numpy()
            ref = REFN[name](ref_in)
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)


def test_integer_inputs_are_promoted():
    x = np.arange(12).reshape(3, 4)
    for dt in ("int32", "int64"):
        t = paddle.to_tensor(x.astype(dt))
        np.testing.assert_allclose(F.fft(t).numpy(), np.fft.fft(x), rtol=1e-5, atol=1e-4)
        assert F.fft(t).dtype == paddle.complex64
        np.testing.assert_allclose(F.rfft2(t).numpy(), np.fft.rfft2(x), rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(F.ihfft(t).numpy(), np.fft.ihfft(x), rtol=1e-5, atol=1e-5)


def test_large_and_batched():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(1 << 16).astype(np.float32)
    for _ in range(4):  # the third call re-plans with FFTW_MEASURE
        np.testing.assert_allclose(F.fft(paddle.to_tensor(x)).numpy(), np.fft.fft(x.astype(np.float64)),
                                   rtol=1e-3, atol=2e-3)
    b = (rng.standard_normal((64, 1024)) + 1j * rng.standard_normal((64, 1024))).astype(np.complex64)
    for _ in range(4):
        np.testing.assert_allclose(F.ifft(paddle.to_tensor(b)).numpy(), np.fft.ifft(b.astype(np.complex128)),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(F.irfft(paddle.to_tensor(b)).numpy(), np.fft.irfft(b.astype(np.complex128)),
                                   rtol=1e-4, atol=1e-5)


# ---- gradients vs central finite differences (float64) ----
def _fd_grad(f, x, eps=1e-6):
    """d/dx of the real scalar f(x); for complex x the gradient is dL/dRe + i dL/dIm (Paddle's
    convention)."""
    g = np.zeros(x.shape, dtype=x.dtype)
    flat = x.reshape(-1)
    gf = g.reshape(-1)
    parts = [1.0, 1j] if x.dtype.kind == "c" else [1.0]
    for i in range(flat.size):
        for p in parts:
            old = flat[i]
            flat[i] = old + eps * p
            fp = f(x)
            flat[i] = old - eps * p
            fm = f(x)
            flat[i] = old
            gf[i] += (fp - fm) / (2 * eps) * p
    return g


GRAD_CASES = [("fft", dict(n=None, axis=-1), (3, 5)), ("fft", dict(n=7, axis=0), (4, 3)),
              ("ifft", dict(n=4, axis=1), (2, 6)), ("rfft", dict(n=None, axis=-1), (3, 6)),
              ("rfft", dict(n=9, axis=0), (7, 2)), ("irfft", dict(n=None, axis=-1), (2, 5)),
              ("irfft", dict(n=7, axis=-1), (2, 5)), ("irfft", dict(n=3, axis=0), (4, 2)),
              ("hfft", dict(n=6, axis=-1), (2, 4)), ("hfft", dict(n=None, axis=0), (3, 2)),
              ("ihfft", dict(n=None, axis=-1), (2, 7)), ("ihfft", dict(n=4, axis=-1), (2, 5)),
              ("fft2", dict(s=(3, 5)), (4, 4)), ("ifft2", dict(), (3, 4)), ("rfft2", dict(), (4, 6)),
              ("irfft2", dict(), (3, 4)), ("irfft2", dict(s=(4, 5)), (3, 3)), ("hfft2", dict(), (3, 3)),
              ("ihfft2", dict(), (3, 5)), ("fftn", dict(axes=(0, 2)), (2, 3, 4)), ("ifftn", dict(), (2, 3, 3)),
              ("rfftn", dict(s=(4, 5)), (3, 2, 4)), ("irfftn", dict(axes=(2, 0)), (3, 2, 4)),
              ("hfftn", dict(), (2, 3, 3)), ("ihfftn", dict(axes=(1, 0)), (4, 5))]


@pytest.mark.parametrize("name,kw,shape", GRAD_CASES)
@pytest.mark.parametrize("norm", NORMS)
def test_gradient_vs_finite_differences(name, kw, shape, norm):
    rng = np.random.default_rng(7)
    x = _input(name, shape, "double", rng)
    f = getattr(F, name)
    out0 = f(paddle.to_tensor(x), norm=norm, **kw).numpy()
    w1, w2 = rng.uniform(0.5, 1.5, out0.shape), rng.uniform(0.5, 1.5, out0.shape)

    def loss_np(a):
        o = f(paddle.to_tensor(a), norm=norm, **kw).numpy()
        return float((o.real * w1).sum() + (o.imag * w2).sum() if o.dtype.kind == "c" else (o * w1).sum())

    t = paddle.to_tensor(x)
    t.stop_gradient = False
    o = f(t, norm=norm, **kw)
    if o.dtype in (paddle.complex64, paddle.complex128):
        loss = (paddle.real(o) * paddle.to_tensor(w1)).sum() + (paddle.imag(o) * paddle.to_tensor(w2)).sum()
    else:
        loss = (o * paddle.to_tensor(w1)).sum()
    (g,) = paddle.grad([loss], [t])
    np.testing.assert_allclose(g.numpy(), _fd_grad(loss_np, x.copy()), rtol=1e-6, atol=1e-7, err_msg=name)


def test_double_backward_through_fft():
    # d/dx of sum(|grad of sum(|fft x|^2 w)|^2): the grad ops are differentiable too
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 6))
    w = rng.uniform(0.5, 1.5, (2, 4))

    def inner(t):
        o = F.rfft(t)
        return (paddle.real(o * paddle.conj(o)) * paddle.to_tensor(w)).sum()

    def outer_np(a):
        t = paddle.to_tensor(a)
        t.stop_gradient = False
        (g,) = paddle.grad([inner(t)], [t])
        return float((g.numpy() ** 2).sum())

    t = paddle.to_tensor(x)
    t.stop_gradient = False
    (g,) = paddle.grad([inner(t)], [t], create_graph=True)
    (gg,) = paddle.grad([(g * g).sum()], [t])
    np.testing.assert_allclose(gg.numpy(), _fd_grad(outer_np, x.copy()), rtol=1e-5, atol=1e-6)


# ---- helpers ----
@pytest.mark.parametrize("n", [1, 4, 5, 8, 11])
def test_freq_and_shift(n):
    for d in (1.0, 0.25):
        np.testing.assert_allclose(F.fftfreq(n, d).numpy(), np.fft.fftfreq(n, d), rtol=1e-6)
        np.testing.assert_allclose(F.rfftfreq(n, d).numpy(), np.fft.rfftfreq(n, d), rtol=1e-6)
    assert F.fftfreq(n).dtype == paddle.float32
    x = np.arange(n * 3).reshape(n, 3)
    for axes in (None, 0, 1, (0, 1), [1]):
        np.testing.assert_array_equal(F.fftshift(paddle.to_tensor(x), axes).numpy(), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(F.ifftshift(paddle.to_tensor(x), axes).numpy(), np.fft.ifftshift(x, axes))


# ---- errors (the types Paddle 2.6 raises for each) ----
def test_errors():
    x = paddle.to_tensor(np.ones((2, 3), np.float32))
    xc = paddle.to_tensor(np.ones((2, 4), np.complex64))
    for f in (F.fft, F.ifft, F.rfft, F.irfft, F.hfft, F.ihfft):
        a = xc if f in (F.irfft, F.hfft) else x
        for kw, msg in [(dict(n=0), "should be positive"), (dict(n=-1), "should be positive"),
                        (dict(n=1.5), "shoule be an integer"), (dict(axis=2), r"in range \[-2, 2\)"),
                        (dict(axis=-3), r"in range \[-2, 2\)"), (dict(norm="bad"), "Unexpected norm: bad"),
                        (dict(norm=None), "Unexpected norm")]:
            with pytest.raises(ValueError, match=msg):
                f(a, **kw)
        with pytest.raises(RuntimeError, match="float16"):
            f(paddle.to_tensor(np.ones(4, np.float16)))
    for f in (F.rfft, F.ihfft, F.rfft2, F.rfftn, F.ihfftn):
        with pytest.raises(RuntimeError, match="complex64"):
            f(paddle.to_tensor(np.ones((2, 4), np.complex64)))
    for f in (F.irfft, F.hfft, F.irfft2, F.hfftn):
        with pytest.raises(RuntimeError, match="fft_c2r"):
            f(paddle.to_tensor(np.ones((2, 4), np.float32)))
        with pytest.raises(RuntimeError, match="fft_c2r"):
            f(paddle.to_tensor(np.ones((2, 4), np.int32)))
    with pytest.raises(RuntimeError, match="bool"):
        F.fft(paddle.to_tensor(np.ones((2, 4), bool)))
    for f in (F.fft2, F.ifft2, F.rfft2, F.irfft2, F.hfft2, F.ihfft2):
        a = xc if f in (F.irfft2, F.hfft2) else x
        with pytest.raises(ValueError, match=r"rank of the input \(1\) should >= 2"):
            f(paddle.to_tensor(np.ones(4, np.float32)))
        for kw, msg in [(dict(s=[3]), "sequence of 2 integers"), (dict(s=3), "sequence of 2 integers"),
                        (dict(s=[3, 0]), r"contains invalid value \(0\)"), (dict(axes=0), "sequence of 2 integers"),
                        (dict(axes=[0, 2]), r"contains invalid value \(2\)"), (dict(axes=[]), "sequence of 2"),
                        (dict(norm="x"), "Unexpected norm")]:
            with pytest.raises(ValueError, match=msg):
                f(a, **kw)
    for f in (F.fftn, F.ifftn, F.rfftn, F.irfftn, F.hfftn, F.ihfftn):
        a = xc if f in (F.irfftn, F.hfftn) else x
        for kw, msg in [(dict(s=3), "sequence of integers"), (dict(axes=0), "sequence of integers"),
                        (dict(s=(4, 4), axes=(0,)), "does not match"), (dict(s=[3, -1]), "invalid value"),
                        (dict(axes=[0, 2]), "invalid value")]:
            with pytest.raises(ValueError, match=msg):
                f(a, **kw)
        with pytest.raises(IndexError):
            f(a, axes=[])
    with pytest.raises(ValueError, match="n-point"):
        F.fft(paddle.zeros([3, 0]))
    with pytest.raises(ValueError, match="n-point"):
        F.irfft(paddle.to_tensor(np.ones((2, 1), np.complex64)))
    assert F.fft(paddle.zeros([0, 3])).shape == [0, 3]
    with pytest.raises(ValueError, match="should not be 0"):
        F.fftfreq(0)
    with pytest.raises(ValueError, match="should not be 0"):
        F.rfftfreq(5, d=0)
    with pytest.raises(IndexError):
        F.fftshift(x, axes=5)


def test_concurrent_planning_and_execution():
    """Plans made and run from several threads at once (the binding releases the GIL for large
    inputs; FFTW's planner is guarded by the plan cache's mutex)."""
    import threading
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal((4, 1 << 14 | k)).astype(np.float32) for k in range(6)]
    errors = []

    def work(a):
        try:
            for _ in range(4):
                got = F.rfft(paddle.to_tensor(a)).numpy()
                np.testing.assert_allclose(got, np.fft.rfft(a.astype(np.float64)), rtol=1e-3, atol=2e-3)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a,)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
