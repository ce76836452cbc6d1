"""paddle.audio.functional.get_window: Paddle 2.6's window names (scipy.signal.windows formulas),
computed in float64 with numpy and returned as a Tensor of the requested dtype."""
import math

import numpy as np

import paddle


def _len_guards(M):
    if int(M) != M or M < 0:
        raise ValueError('Window length M must be a non-negative integer')
    return M <= 1


def _extend(M, sym):
    return (M, False) if sym else (M + 1, True)


def _general_cosine(M, a, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    fac = np.linspace(-math.pi, math.pi, M)
    w = sum(a[k] * np.cos(k * fac) for k in range(len(a)))
    return w[:-1] if trunc else w


def _general_hamming(M, alpha, sym=True):
    return _general_cosine(M, [alpha, 1.0 - alpha], sym)


def _hamming(M, sym=True):
    return _general_hamming(M, 0.54, sym)


def _hann(M, sym=True):
    return _general_hamming(M, 0.5, sym)


def _blackman(M, sym=True):
    return _general_cosine(M, [0.42, 0.50, 0.08], sym)


def _general_gaussian(M, p, sig, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    n = np.arange(M) - (M - 1.0) / 2.0
    w = np.exp(-0.5 * np.abs(n / sig) ** (2 * p))
    return w[:-1] if trunc else w


def _gaussian(M, std, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    n = np.arange(M) - (M - 1.0) / 2.0
    w = np.exp(-n ** 2 / (2 * std * std))
    return w[:-1] if trunc else w


def _exponential(M, center=None, tau=1.0, sym=True):
    if sym and center is not None:
        raise ValueError("If sym==True, center must be None.")
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    if center is None:
        center = (M - 1) / 2
    w = np.exp(-np.abs(np.arange(M) - center) / tau)
    return w[:-1] if trunc else w


def _triang(M, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    n = np.arange(1, (M + 1) // 2 + 1)
    if M % 2 == 0:
        w = (2 * n - 1.0) / M
        w = np.concatenate([w, w[::-1]])
    else:
        w = 2 * n / (M + 1.0)
        w = np.concatenate([w, w[-2::-1]])
    return w[:-1] if trunc else w


def _bohman(M, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    fac = np.abs(np.linspace(-1, 1, M)[1:-1])
    w = (1 - fac) * np.cos(math.pi * fac) + 1.0 / math.pi * np.sin(math.pi * fac)
    w = np.concatenate([[0.0], w, [0.0]])
    return w[:-1] if trunc else w


def _cosine(M, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    w = np.sin(math.pi / M * (np.arange(M) + 0.5))
    return w[:-1] if trunc else w


def _tukey(M, alpha=0.5, sym=True):
    if _len_guards(M):
        return np.ones(M)
    if alpha <= 0:
        return np.ones(M)
    if alpha >= 1.0:
        return _hann(M, sym=sym)
    M, trunc = _extend(M, sym)
    n = np.arange(M, dtype=np.float64)
    width = int(alpha * (M - 1) / 2.0)
    n1, n2, n3 = n[:width + 1], n[width + 1:M - width - 1], n[M - width - 1:]
    w1 = 0.5 * (1 + np.cos(math.pi * (-1 + 2.0 * n1 / alpha / (M - 1))))
    w3 = 0.5 * (1 + np.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (M - 1))))
    w = np.concatenate([w1, np.ones(len(n2)), w3])
    return w[:-1] if trunc else w


def _taylor(M, nbar=4, sll=30, norm=True, sym=True):
    if _len_guards(M):
        return np.ones(M)
    M, trunc = _extend(M, sym)
    B = 10 ** (sll / 20)
    A = math.log(B + math.sqrt(B * B - 1)) / math.pi
    s2 = nbar ** 2 / (A ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar, dtype=np.float64)
    m2 = ma * ma
    signs = np.where(np.arange(nbar - 1) % 2 == 0, 1.0, -1.0)
    Fm = np.empty(nbar - 1)
    for mi in range(len(ma)):
        numer = signs[mi] * np.prod(1 - m2[mi] / s2 / (A ** 2 + (ma - 0.5) ** 2))
        denom = 2 * np.prod(1 - m2[mi] / m2[:mi]) * np.prod(1 - m2[mi] / m2[mi + 1:])
        Fm[mi] = numer / denom

    def W(n):
        return 1 + 2 * Fm @ np.cos(2 * math.pi * ma[:, None] * (np.asarray(n, np.float64) - M / 2.0 + 0.5) / M)

    w = W(np.arange(M))
    if norm:
        w = w / W((M - 1) / 2)
    return w[:-1] if trunc else w


_WINDOWS = {
    'hamming': _hamming, 'hann': _hann, 'blackman': _blackman, 'gaussian': _gaussian,
    'general_gaussian': _general_gaussian, 'exponential': _exponential, 'triang': _triang,
    'bohman': _bohman, 'cosine': _cosine, 'tukey': _tukey, 'taylor': _taylor,
    'general_cosine': _general_cosine, 'general_hamming': _general_hamming,
}


def get_window(window, win_length, fftbins=True, dtype='float64'):
    """A window of win_length samples: 'hamming', 'hann', 'gaussian', 'general_gaussian',
    'exponential', 'triang', 'bohman', 'blackman', 'cosine', 'tukey', 'taylor' (a name, or a
    tuple (name, *params) for windows that take parameters). fftbins=True: periodic (DFT-even)
    window; False: symmetric."""
    sym = not fftbins
    args = ()
    if isinstance(window, tuple):
        winstr = window[0]
        args = window[1:]
    elif isinstance(window, str):
        if window in ('gaussian', 'exponential'):
            raise ValueError(f"The '{window}' window needs one or more parameters -- pass a tuple.")
        winstr = window
    else:
        raise ValueError(f"{type(window)} as window type is not supported.")
    func = _WINDOWS.get(winstr)
    if func is None:
        raise ValueError("Unknown window type.")
    w = func(win_length, *args, sym=sym)
    return paddle.to_tensor(np.ascontiguousarray(w, dtype=np.float64), dtype=dtype)
