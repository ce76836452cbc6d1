"""paddle.audio (Paddle 2.6): functional (windows, mel scale, filter banks), features (spectrogram
layers), backends (WAV I/O) and datasets (ESC50, TESS)."""
from . import features  # noqa: F401
from . import functional  # noqa: F401
from . import datasets  # noqa: F401
from . import backends  # noqa: F401
from .backends.wave_backend import info, load, save  # noqa: F401

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]
