"""The audio backend interface: AudioInfo and the load / save / info entry points that
set_backend rebinds (the wave backend by default)."""


class AudioInfo:
    """Audio info, the return type of a backend's info()."""

    def __init__(self, sample_rate, num_samples, num_channels, bits_per_sample, encoding):
        self.sample_rate = sample_rate
        self.num_samples = num_samples
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    def __repr__(self):
        return (f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, "
                f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
                f"encoding={self.encoding!r})")


def info(filepath):
    """Signal information of an audio file (rebound by set_backend)."""
    raise NotImplementedError("please set audio backend")


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """Load an audio file -> (waveform Tensor, sample_rate) (rebound by set_backend)."""
    raise NotImplementedError("please set audio backend")


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Save an audio tensor to a file (rebound by set_backend)."""
    raise NotImplementedError("please set audio backend")
