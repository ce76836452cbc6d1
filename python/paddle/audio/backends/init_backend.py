"""Backend selection: list_available_backends / get_current_backend / set_backend. Only the
built-in wave_backend exists here (paddleaudio's soundfile backend is used when that package is
installed, as in Paddle)."""
import sys

import paddle

from . import backend, wave_backend


def list_available_backends():
    """Names of the available backends: paddleaudio's (when installed), then 'wave_backend'."""
    backends = []
    if "paddleaudio" in sys.modules:
        backends = list(sys.modules["paddleaudio"].backends.list_audio_backends())
    backends.append("wave_backend")
    return backends


def get_current_backend():
    """The name of the backend that paddle.audio.load / save / info use."""
    if "paddleaudio" in sys.modules:
        pa = sys.modules["paddleaudio"]
        if paddle.audio.load == pa.load:
            return pa.backends.get_audio_backend()
    return "wave_backend"


def set_backend(backend_name):
    """Bind paddle.audio.load / save / info to backend_name (one of list_available_backends())."""
    if backend_name not in list_available_backends():
        raise NotImplementedError(f"audio backend {backend_name!r} is not available; available: "
                                  f"{list_available_backends()}")
    if backend_name == "wave_backend":
        module = wave_backend
    else:
        module = sys.modules["paddleaudio"]
        module.backends.set_audio_backend(backend_name)
    for func in ("save", "load", "info"):
        setattr(backend, func, getattr(module, func))
        setattr(paddle.audio, func, getattr(module, func))


def _init_set_audio_backend():
    for func in ("save", "load", "info"):
        setattr(backend, func, getattr(wave_backend, func))
