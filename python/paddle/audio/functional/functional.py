"""paddle.audio.functional: mel scale conversions, filter banks, dB scaling and the DCT matrix
(Paddle 2.6 names, signatures and defaults). Scalars in, scalars out; Tensors in, Tensors out."""
import math

import numpy as np

import paddle
from paddle import Tensor

# Slaney's mel scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def hz_to_mel(freq, htk=False):
    """Hz -> mels (HTK: 2595 log10(1 + f/700); else Slaney's linear/log scale)."""
    if isinstance(freq, Tensor):
        if htk:
            return 2595.0 * paddle.log10(1.0 + freq / 700.0)
        lin = freq / _F_SP
        log = _MIN_LOG_MEL + paddle.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
        return paddle.where(freq > _MIN_LOG_HZ, log, lin)
    if htk:
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return freq / _F_SP


def mel_to_hz(mel, htk=False):
    """mels -> Hz, the inverse of hz_to_mel."""
    if isinstance(mel, Tensor):
        if htk:
            return 700.0 * (paddle.pow(paddle.full_like(mel, 10.0), mel / 2595.0) - 1.0)
        lin = _F_SP * mel
        log = _MIN_LOG_HZ * paddle.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        return paddle.where(mel > _MIN_LOG_MEL, log, lin)
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return _F_SP * mel


def _np_hz_to_mel(f, htk):
    f = np.asarray(f, dtype=np.float64)
    if htk:
        return 2595.0 * np.log10(1.0 + f / 700.0)
    return np.where(f > _MIN_LOG_HZ, _MIN_LOG_MEL + np.log(f / _MIN_LOG_HZ + 1e-10) / _LOGSTEP, f / _F_SP)


def _np_mel_to_hz(m, htk):
    m = np.asarray(m, dtype=np.float64)
    if htk:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    return np.where(m > _MIN_LOG_MEL, _MIN_LOG_HZ * np.exp(_LOGSTEP * (m - _MIN_LOG_MEL)), _F_SP * m)


def _np_mel_frequencies(n_mels, f_min, f_max, htk):
    mels = np.linspace(hz_to_mel(float(f_min), htk), hz_to_mel(float(f_max), htk), n_mels)
    return _np_mel_to_hz(mels, htk)


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype='float32'):
    """n_mels frequencies (Hz) evenly spaced on the mel scale from f_min to f_max, shape (n_mels,)."""
    return paddle.to_tensor(_np_mel_frequencies(n_mels, f_min, f_max, htk), dtype=dtype)


def fft_frequencies(sr, n_fft, dtype='float32'):
    """The n_fft//2 + 1 FFT bin centre frequencies (Hz) from 0 to sr/2."""
    return paddle.linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm='slaney',
                         dtype='float32'):
    """Triangular mel filter bank, shape (n_mels, n_fft//2 + 1). norm='slaney' scales each filter
    to constant energy; a number p normalises each row to unit p-norm; None leaves peaks at 1."""
    if f_max is None:
        f_max = float(sr) / 2
    fftfreqs = np.linspace(0, float(sr) / 2, int(1 + n_fft // 2))
    mel_f = _np_mel_frequencies(n_mels + 2, f_min, f_max, htk)
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fftfreqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    out = paddle.to_tensor(weights, dtype=dtype)
    if norm == 'slaney':
        enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
        out = paddle.to_tensor(weights * enorm[:, None], dtype=dtype)
    elif isinstance(norm, (int, float)) and not isinstance(norm, bool):
        out = paddle.nn.functional.normalize(out, p=norm, axis=-1)
    return out


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """10 log10(max(spect, amin) / ref_value), clipped below at (max - top_db) when top_db is given."""
    if amin <= 0:
        raise Exception("amin must be strictly positive")
    if ref_value <= 0:
        raise Exception("ref_value must be strictly positive")
    log_spec = 10.0 * paddle.log10(paddle.clip(spect, min=amin))
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        if top_db < 0:
            raise Exception("top_db must be non-negative")
        log_spec = paddle.maximum(log_spec, paddle.full_like(log_spec, 1.0) * (log_spec.max() - top_db))
    return log_spec


def create_dct(n_mfcc, n_mels, norm='ortho', dtype='float32'):
    """DCT-II matrix of shape (n_mels, n_mfcc) (orthonormal with norm='ortho', scaled by 2 with None)."""
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        dct = dct * 2.0
    else:
        if norm != 'ortho':
            raise AssertionError(f"create_dct: norm must be 'ortho' or None, received {norm!r}")
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct = dct * math.sqrt(2.0 / float(n_mels))
    return paddle.to_tensor(dct.T.copy(), dtype=dtype)
