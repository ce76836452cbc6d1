"""Writes tests/python/data/audio26.npz: real PaddlePaddle 2.6.2's paddle.audio outputs on a fixed
input, compared by tests/python/test_audio_reader_hub.py. Run with the oracle venv from an empty
directory: `cd $(mktemp -d) && /work/oracle/bin/python /work/main/tools/oracle/audio26.py OUT.npz`."""
import sys

import numpy as np

import paddle
import paddle.audio.functional as AF
from paddle.audio import features as AFeat


def signal():
    """The test waveform (also rebuilt by the test): two tones plus a ramp, shape (2, 600)."""
    t = np.arange(600, dtype=np.float64) / 8000.0
    a = 0.5 * np.sin(2 * np.pi * 440.0 * t) + 0.25 * np.sin(2 * np.pi * 1875.0 * t)
    b = 0.3 * np.cos(2 * np.pi * 3000.0 * t) + np.linspace(-0.2, 0.2, t.size)
    return np.stack([a, b]).astype(np.float32)


out = {}
for name in ['hamming', 'hann', 'blackman', 'triang', 'bohman', 'cosine', 'taylor', ('tukey', 0.3),
             ('gaussian', 2.5), ('exponential', None, 2.0), ('general_gaussian', 1.5, 3.0)]:
    key = name if isinstance(name, str) else name[0]
    for fftbins in (True, False):
        if key == 'exponential' and not fftbins:
            continue
        out[f"win_{key}_{int(fftbins)}"] = AF.get_window(name, 11, fftbins=fftbins).numpy()
hz = paddle.to_tensor([0.0, 60.0, 440.0, 999.0, 1000.0, 1001.0, 4000.0, 11025.0])
for htk in (False, True):
    out[f"hz_to_mel_{int(htk)}"] = AF.hz_to_mel(hz, htk=htk).numpy()
    out[f"mel_to_hz_{int(htk)}"] = AF.mel_to_hz(AF.hz_to_mel(hz, htk=htk), htk=htk).numpy()
    out[f"mel_freq_{int(htk)}"] = AF.mel_frequencies(10, 20.0, 8000.0, htk=htk).numpy()
out["fft_freq"] = AF.fft_frequencies(16000, 30).numpy()
out["fbank_slaney"] = AF.compute_fbank_matrix(8000, 64, n_mels=10).numpy()
out["fbank_htk_l2"] = AF.compute_fbank_matrix(8000, 64, n_mels=8, f_min=100.0, f_max=3500.0, htk=True,
                                              norm=2.0).numpy()
out["dct_ortho"] = AF.create_dct(5, 12).numpy()
out["dct_none"] = AF.create_dct(4, 6, norm=None).numpy()
sp = paddle.to_tensor(np.array([[1e-12, 1e-4, 0.5], [2.0, 30.0, 1e3]], np.float32))
out["db"] = AF.power_to_db(sp).numpy()
out["db_ref_top"] = AF.power_to_db(sp, ref_value=2.0, top_db=40.0).numpy()
x = paddle.to_tensor(signal())
out["spectrogram"] = AFeat.Spectrogram(n_fft=64, hop_length=64)(x).numpy()
out["melspectrogram"] = AFeat.MelSpectrogram(sr=8000, n_fft=64, hop_length=64, n_mels=8)(x).numpy()
out["logmel"] = AFeat.LogMelSpectrogram(sr=8000, n_fft=64, hop_length=100, n_mels=8, top_db=60.0)(x).numpy()
out["mfcc"] = AFeat.MFCC(sr=8000, n_mfcc=6, n_fft=64, n_mels=8, window='hamming')(x).numpy()
np.savez_compressed(sys.argv[1], **{k: v.astype(np.float32) for k, v in out.items()})
print(len(out), "arrays")
