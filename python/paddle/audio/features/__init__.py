"""paddle.audio.features (Paddle 2.6): Spectrogram, MelSpectrogram, LogMelSpectrogram, MFCC."""
from .layers import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram  # noqa: F401

__all__ = ['LogMelSpectrogram', 'MelSpectrogram', 'MFCC', 'Spectrogram']
