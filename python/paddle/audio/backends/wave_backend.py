"""Paddle's wave_backend: PCM16 WAV files through Python's wave module."""
import struct
import wave

import numpy as np

import paddle

from .backend import AudioInfo


def _error_message():
    return ("only PCM16 WAV supportted. \nif want support more other audio types, please manually "
            "installed (usually with `pip install paddleaudio`). \n and use "
            "paddle.audio.backends.set_backend('soundfile') to set audio backend")


def _open(filepath):
    file_obj = filepath if hasattr(filepath, 'read') else open(filepath, 'rb')
    try:
        f = wave.open(file_obj)
    except (wave.Error, EOFError, RuntimeError, struct.error) as e:  # not a (complete) PCM WAV file
        file_obj.close()
        raise NotImplementedError(_error_message() + f" ({type(e).__name__}: {e})") from e
    return file_obj, f


def info(filepath):
    """AudioInfo(sample_rate, num_samples, num_channels, bits_per_sample, 'PCM_S') of a WAV file
    (a path or a binary file object)."""
    file_obj, f = _open(filepath)
    try:
        return AudioInfo(f.getframerate(), f.getnframes(), f.getnchannels(), f.getsampwidth() * 8,
                         "PCM_S")
    finally:
        file_obj.close()


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """(waveform, sample_rate) of a PCM16 WAV file. normalize=True: float32 in [-1, 1)
    (int16 / 2**15); False: the raw int16 values as float32 (as Paddle). channels_first: shape
    (channels, time), else (time, channels). frames [frame_offset, frame_offset + num_frames)
    (num_frames=-1: to the end)."""
    file_obj, f = _open(filepath)
    try:
        channels = f.getnchannels()
        width = f.getsampwidth()
        sample_rate = f.getframerate()
        frames = f.getnframes()
        if width != 2:
            raise NotImplementedError(_error_message() + f" (this file has {8 * width}-bit samples)")
        raw = f.readframes(frames)
    finally:
        file_obj.close()
    data = np.frombuffer(raw, dtype='<i2').astype(np.float32)
    frames = data.size // channels
    data = data[:frames * channels].reshape(frames, channels)
    if normalize:
        data = data / np.float32(2 ** 15)
    if num_frames != -1:
        data = data[frame_offset:frame_offset + num_frames]
    elif frame_offset:
        data = data[frame_offset:]
    if channels_first:
        data = data.T
    return paddle.to_tensor(np.ascontiguousarray(data)), sample_rate


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Write a 2-D tensor as a PCM16 WAV file (float32 input is scaled by 2**15; other dtypes are
    written as int16 values)."""
    if src.ndim != 2:
        raise AssertionError("Expected 2D tensor")
    if bits_per_sample not in (None, 16):
        raise ValueError("Invalid bits_per_sample, only support 16 bit")
    a = src.numpy()
    if channels_first:
        a = a.T
    if src.dtype == paddle.float32:
        a = a * (2 ** 15)
    a = np.ascontiguousarray(a.astype('<i2'))
    with wave.open(filepath, 'w') as f:
        f.setnchannels(a.shape[1])
        f.setsampwidth(2)
        f.setframerate(sample_rate)
        f.writeframes(a.tobytes())
