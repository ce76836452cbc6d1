"""Audio feature layers over paddle.signal.stft and matmul (differentiable in the waveform)."""
import paddle
from paddle import nn

from ..functional import compute_fbank_matrix, create_dct, power_to_db
from ..functional.window import get_window


class Spectrogram(nn.Layer):
    """|STFT(x)| ** power of waveforms x of shape (N, T) -> (N, n_fft//2 + 1, frames)."""

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window='hann', power=1.0,
                 center=True, pad_mode='reflect', dtype='float32'):
        super().__init__()
        assert power > 0, 'Power of spectrogram must be > 0.'
        self.power = power
        if win_length is None:
            win_length = n_fft
        self.fft_window = get_window(window, win_length, fftbins=True, dtype=dtype)
        self._stft_args = dict(n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                               center=center, pad_mode=pad_mode)
        self.register_buffer('fft_window', self.fft_window)

    def forward(self, x):
        stft = paddle.signal.stft(x, window=self.fft_window, **self._stft_args)
        return paddle.pow(paddle.abs(stft), self.power)


class MelSpectrogram(nn.Layer):
    """fbank_matrix @ Spectrogram(x): (N, T) -> (N, n_mels, frames)."""

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window='hann',
                 power=2.0, center=True, pad_mode='reflect', n_mels=64, f_min=50.0, f_max=None,
                 htk=False, norm='slaney', dtype='float32'):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                                        window=window, power=power, center=center,
                                        pad_mode=pad_mode, dtype=dtype)
        self.n_mels = n_mels
        self.f_min = f_min
        self.f_max = f_max
        self.htk = htk
        self.norm = norm
        if f_max is None:
            f_max = sr // 2
        self.fbank_matrix = compute_fbank_matrix(sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=f_min,
                                                 f_max=f_max, htk=htk, norm=norm, dtype=dtype)
        self.register_buffer('fbank_matrix', self.fbank_matrix)

    def forward(self, x):
        return paddle.matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(nn.Layer):
    """power_to_db(MelSpectrogram(x))."""

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window='hann',
                 power=2.0, center=True, pad_mode='reflect', n_mels=64, f_min=50.0, f_max=None,
                 htk=False, norm='slaney', ref_value=1.0, amin=1e-10, top_db=None, dtype='float32'):
        super().__init__()
        self._melspectrogram = MelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
            power=power, center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
            f_max=f_max, htk=htk, norm=norm, dtype=dtype)
        self.ref_value = ref_value
        self.amin = amin
        self.top_db = top_db

    def forward(self, x):
        return power_to_db(self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin,
                           top_db=self.top_db)


class MFCC(nn.Layer):
    """DCT of LogMelSpectrogram(x): (N, T) -> (N, n_mfcc, frames)."""

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None,
                 window='hann', power=2.0, center=True, pad_mode='reflect', n_mels=64, f_min=50.0,
                 f_max=None, htk=False, norm='slaney', ref_value=1.0, amin=1e-10, top_db=None,
                 dtype='float32'):
        super().__init__()
        assert n_mfcc <= n_mels, 'n_mfcc cannot be larger than n_mels: %d vs %d' % (n_mfcc, n_mels)
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
            power=power, center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min,
            f_max=f_max, htk=htk, norm=norm, ref_value=ref_value, amin=amin, top_db=top_db,
            dtype=dtype)
        self.dct_matrix = create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype)
        self.register_buffer('dct_matrix', self.dct_matrix)

    def forward(self, x):
        log_mel = self._log_melspectrogram(x)
        return paddle.matmul(log_mel.transpose((0, 2, 1)), self.dct_matrix).transpose((0, 2, 1))
