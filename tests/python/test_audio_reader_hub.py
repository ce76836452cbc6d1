"""paddle.audio (against real Paddle 2.6.2's outputs in data/audio26.npz, made by
tools/oracle/audio26.py, and numpy formulas), paddle.reader, paddle.hub (source='local' and the
no-network error) and paddle.LazyGuard."""
import io
import math
import os
import random
import wave
import zipfile

import numpy as np
import pytest

import paddle
import paddle.audio.functional as AF
from paddle.audio import features as AFeat

HERE = os.path.dirname(os.path.abspath(__file__))
REF = np.load(os.path.join(HERE, "data", "audio26.npz"))


def _signal():  # the waveform of tools/oracle/audio26.py
    t = np.arange(600, dtype=np.float64) / 8000.0
    a = 0.5 * np.sin(2 * np.pi * 440.0 * t) + 0.25 * np.sin(2 * np.pi * 1875.0 * t)
    b = 0.3 * np.cos(2 * np.pi * 3000.0 * t) + np.linspace(-0.2, 0.2, t.size)
    return np.stack([a, b]).astype(np.float32)


def _close(got, key, rtol=1e-4, atol=1e-5):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    ref = REF[key]
    assert got.shape == ref.shape, (key, got.shape, ref.shape)
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, err_msg=key)


# ---------------------------------------------------------------- audio.functional vs Paddle 2.6.2
def test_windows_match_paddle():
    n = 0
    for name in ['hamming', 'hann', 'blackman', 'triang', 'bohman', 'cosine', 'taylor', ('tukey', 0.3),
                 ('gaussian', 2.5), ('exponential', None, 2.0), ('general_gaussian', 1.5, 3.0)]:
        key = name if isinstance(name, str) else name[0]
        for fftbins in (True, False):
            if key == 'exponential' and not fftbins:
                continue
            w = AF.get_window(name, 11, fftbins=fftbins)
            assert w.dtype == paddle.float64
            _close(w, f"win_{key}_{int(fftbins)}", rtol=1e-6, atol=1e-7)
            n += 1
    assert n == 21
    # independent reference: numpy's symmetric hann / hamming / blackman
    np.testing.assert_allclose(AF.get_window('hann', 9, fftbins=False).numpy(), np.hanning(9), atol=1e-12)
    np.testing.assert_allclose(AF.get_window('hamming', 8, fftbins=True).numpy(), np.hamming(9)[:-1], atol=1e-12)
    np.testing.assert_allclose(AF.get_window('blackman', 7, fftbins=False).numpy(), np.blackman(7), atol=1e-12)
    assert AF.get_window('hann', 16, dtype='float32').dtype == paddle.float32
    with pytest.raises(ValueError, match="needs one or more parameters"):
        AF.get_window('gaussian', 8)
    with pytest.raises(ValueError, match="Unknown window type"):
        AF.get_window('nope', 8)
    with pytest.raises(ValueError, match="non-negative integer"):
        AF.get_window('hann', -1)


def test_mel_scale_match_paddle_and_formula():
    hzl = [0.0, 60.0, 440.0, 999.0, 1000.0, 1001.0, 4000.0, 11025.0]
    hz = paddle.to_tensor(hzl)
    for htk in (False, True):
        _close(AF.hz_to_mel(hz, htk=htk), f"hz_to_mel_{int(htk)}")
        _close(AF.mel_to_hz(AF.hz_to_mel(hz, htk=htk), htk=htk), f"mel_to_hz_{int(htk)}", rtol=1e-4, atol=2e-3)
        _close(AF.mel_frequencies(10, 20.0, 8000.0, htk=htk), f"mel_freq_{int(htk)}", atol=1e-3)
    f = np.array(hzl)
    np.testing.assert_allclose(AF.hz_to_mel(hz, htk=True).numpy(), 2595 * np.log10(1 + f / 700), rtol=1e-6)
    slaney = np.where(f >= 1000, 15 + 27 * np.log(np.maximum(f, 1) / 1000) / np.log(6.4), 3 * f / 200)
    np.testing.assert_allclose(AF.hz_to_mel(hz).numpy(), slaney, rtol=1e-5, atol=1e-5)
    # scalars in, floats out, and the inverse
    assert isinstance(AF.hz_to_mel(2000.0), float)
    assert AF.hz_to_mel(500.0) == pytest.approx(7.5)
    assert AF.mel_to_hz(AF.hz_to_mel(3000.0)) == pytest.approx(3000.0)
    assert AF.mel_to_hz(AF.hz_to_mel(3000.0, htk=True), htk=True) == pytest.approx(3000.0)


def test_fbank_dct_db_match_paddle():
    _close(AF.fft_frequencies(16000, 30), "fft_freq")
    _close(AF.compute_fbank_matrix(8000, 64, n_mels=10), "fbank_slaney", atol=1e-6)
    _close(AF.compute_fbank_matrix(8000, 64, n_mels=8, f_min=100.0, f_max=3500.0, htk=True, norm=2.0),
           "fbank_htk_l2", atol=1e-6)
    _close(AF.create_dct(5, 12), "dct_ortho", atol=1e-6)
    _close(AF.create_dct(4, 6, norm=None), "dct_none", atol=1e-6)
    d = AF.create_dct(6, 6).numpy()  # orthonormal DCT-II
    np.testing.assert_allclose(d.T @ d, np.eye(6), atol=1e-6)
    sp = paddle.to_tensor(np.array([[1e-12, 1e-4, 0.5], [2.0, 30.0, 1e3]], np.float32))
    _close(AF.power_to_db(sp), "db")
    _close(AF.power_to_db(sp, ref_value=2.0, top_db=40.0), "db_ref_top")
    with pytest.raises(Exception, match="amin must be strictly positive"):
        AF.power_to_db(sp, amin=0)


def test_feature_layers_match_paddle():
    x = paddle.to_tensor(_signal())
    _close(AFeat.Spectrogram(n_fft=64, hop_length=64)(x), "spectrogram", atol=1e-4)
    _close(AFeat.MelSpectrogram(sr=8000, n_fft=64, hop_length=64, n_mels=8)(x), "melspectrogram", atol=1e-4)
    _close(AFeat.LogMelSpectrogram(sr=8000, n_fft=64, hop_length=100, n_mels=8, top_db=60.0)(x), "logmel",
           rtol=1e-4, atol=1e-3)
    m = AFeat.MFCC(sr=8000, n_mfcc=6, n_fft=64, n_mels=8, window='hamming')
    _close(m(x), "mfcc", rtol=1e-4, atol=2e-3)
    assert sorted(k for k, _ in m.named_buffers()) == [
        '_log_melspectrogram._melspectrogram._spectrogram.fft_window',
        '_log_melspectrogram._melspectrogram.fbank_matrix', 'dct_matrix']
    # differentiable in the waveform
    xg = paddle.to_tensor(_signal(), stop_gradient=False)
    AFeat.MelSpectrogram(sr=8000, n_fft=64, hop_length=64, n_mels=8)(xg).sum().backward()
    assert xg.grad is not None and np.isfinite(xg.grad.numpy()).all() and np.abs(xg.grad.numpy()).sum() > 0


# ---------------------------------------------------------------- audio.backends
def _write_wav(path, data16, sr, channels):
    with wave.open(path, 'wb') as f:
        f.setnchannels(channels)
        f.setsampwidth(2)
        f.setframerate(sr)
        f.writeframes(data16.astype('<i2').tobytes())


def test_wave_backend_roundtrip(tmp_path):
    from paddle.audio import backends
    assert backends.list_available_backends()[-1] == "wave_backend"
    assert backends.get_current_backend() == "wave_backend"
    rs = np.random.RandomState(0)
    frames = rs.randint(-32768, 32767, size=(50, 2)).astype(np.int16)  # (time, channels)
    p = str(tmp_path / "a.wav")
    _write_wav(p, frames, 16000, 2)
    inf = paddle.audio.info(p)
    assert (inf.sample_rate, inf.num_samples, inf.num_channels, inf.bits_per_sample, inf.encoding) == \
        (16000, 50, 2, 16, "PCM_S")
    w, sr = paddle.audio.load(p)
    assert sr == 16000 and w.shape == [2, 50] and w.dtype == paddle.float32
    np.testing.assert_array_equal(w.numpy(), frames.T / 32768.0)
    w, _ = paddle.audio.load(p, frame_offset=10, num_frames=5, normalize=False, channels_first=False)
    np.testing.assert_array_equal(w.numpy(), frames[10:15].astype(np.float32))
    q = str(tmp_path / "b.wav")
    paddle.audio.save(q, paddle.to_tensor((frames.T / 32768.0).astype(np.float32)), 8000)
    w2, sr2 = paddle.audio.load(q)
    assert sr2 == 8000
    np.testing.assert_array_equal(w2.numpy(), frames.T / 32768.0)
    with open(q, 'rb') as fo:  # file objects too
        assert paddle.audio.info(fo).num_samples == 50
    with pytest.raises(ValueError, match="only support 16 bit"):
        paddle.audio.save(q, paddle.zeros([1, 4]), 8000, bits_per_sample=24)
    with pytest.raises(NotImplementedError):
        backends.set_backend("soundfile")
    backends.set_backend("wave_backend")
    assert paddle.audio.load is paddle.audio.backends.wave_backend.load


def test_wave_backend_rejects_garbage(tmp_path):
    good = io.BytesIO()
    with wave.open(good, 'wb') as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(8000)
        f.writeframes(np.arange(40, dtype='<i2').tobytes())
    blob = good.getvalue()
    rng = random.Random(1)
    for i in range(60):  # fuzz: truncations and byte flips give a clean Python error or a valid load
        b = bytearray(blob[:rng.randrange(len(blob) + 1)])
        for _ in range(rng.randrange(4)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        p = str(tmp_path / f"f{i}.wav")
        with open(p, 'wb') as fo:
            fo.write(bytes(b))
        try:
            w, _ = paddle.audio.load(p)
            assert w.ndim == 2
        except (NotImplementedError, EOFError, ValueError, wave.Error):
            pass
    p = str(tmp_path / "8bit.wav")
    with wave.open(p, 'wb') as f:
        f.setnchannels(1)
        f.setsampwidth(1)
        f.setframerate(8000)
        f.writeframes(bytes(range(10)))
    with pytest.raises(NotImplementedError, match="PCM16"):
        paddle.audio.load(p)


# ---------------------------------------------------------------- audio.datasets
def test_datasets_offline(tmp_path, monkeypatch):
    from paddle.audio.datasets import _common
    from paddle.audio.datasets import ESC50, TESS
    monkeypatch.setattr(_common, "DATA_HOME", str(tmp_path / "home"))
    with pytest.raises(RuntimeError, match="ESC-50-master.zip"):
        ESC50()
    with pytest.raises(RuntimeError, match="TESS_Toronto_emotional_speech_set.zip"):
        TESS(mode='dev')
    # a local archive: 5 ESC-50 clips (one per fold), 4 TESS clips
    sig = (np.sin(np.arange(800) / 5.0) * 8000).astype(np.int16)
    src = tmp_path / "src"
    os.makedirs(src / "ESC-50-master" / "audio")
    os.makedirs(src / "ESC-50-master" / "meta")
    rows = ["filename,fold,target,category,esc10,src_file,take"]
    for k in range(5):
        _write_wav(str(src / "ESC-50-master" / "audio" / f"{k + 1}-x-A-{k}.wav"), sig * (k + 1) // 5, 8000, 1)
        rows.append(f"{k + 1}-x-A-{k}.wav,{k + 1},{k * 10},dog,False,x,A")
    (src / "ESC-50-master" / "meta" / "esc50.csv").write_text("\n".join(rows) + "\n")
    z = str(tmp_path / "ESC-50-master.zip")
    with zipfile.ZipFile(z, "w") as zf:
        for root, _, names in os.walk(src):
            for n in names:
                full = os.path.join(root, n)
                zf.write(full, os.path.relpath(full, src))
    train = ESC50(mode='train', split=2, archive={'url': z, 'md5': None})
    dev = ESC50(mode='dev', split=2)  # now extracted under DATA_HOME
    assert len(train) == 4 and len(dev) == 1 and dev.labels == [10]
    x, y = dev[0]
    assert y == 10 and x.shape == [800]
    np.testing.assert_allclose(x.numpy(), (sig * 2 // 5) / 32768.0, atol=1e-7)
    mf, _ = ESC50(mode='dev', split=2, feat_type='melspectrogram', n_fft=64, hop_length=64, n_mels=8)[0]
    assert mf.shape == [8, 13]
    td = tmp_path / "home" / "TESS_Toronto_emotional_speech_set" / "OAF"
    os.makedirs(td)
    for i, emo in enumerate(['angry', 'sad', 'ps', 'happy']):
        _write_wav(str(td / f"OAF_w{i}_{emo}.wav"), sig, 8000, 1)
    tr, dv = TESS(mode='train', n_folds=2, split=1), TESS(mode='dev', n_folds=2, split=1)
    assert len(tr) == 2 and len(dv) == 2
    assert sorted(tr.labels + dv.labels) == sorted([0, 6, 5, 3])
    with pytest.raises(RuntimeError, match="Unknown feat_type"):
        TESS(feat_type='nope', n_folds=2)


# ---------------------------------------------------------------- paddle.reader
def _r(seq):
    return lambda: iter(list(seq))


def test_reader_decorators():
    R = paddle.reader
    calls = []

    def counted():
        calls.append(1)
        yield from range(4)
    c = R.cache(counted)
    assert list(c()) == [0, 1, 2, 3] and list(c()) == [0, 1, 2, 3] and len(calls) == 1
    assert list(R.map_readers(lambda a, b: a * b, _r([1, 2, 3]), _r([4, 5]))()) == [4, 10]
    assert list(R.chain(_r([1, 2]), _r([]), _r([3]))()) == [1, 2, 3]
    assert list(R.compose(_r([1, 2]), _r([(3, 4), (5, 6)]))()) == [(1, 3, 4), (2, 5, 6)]
    with pytest.raises(R.ComposeNotAligned):
        list(R.compose(_r([1, 2]), _r([3]))())
    assert list(R.compose(_r([1, 2]), _r([3]), check_alignment=False)()) == [(1, 3)]
    assert issubclass(R.ComposeNotAligned, ValueError)
    assert list(R.firstn(_r(range(10)), 3)()) == [0, 1, 2]
    assert list(R.buffered(_r(range(50)), 4)()) == list(range(50))
    random.seed(3)
    s = list(R.shuffle(_r(range(10)), 4)())  # shuffled within buffers [0-3], [4-7], [8-9]
    assert sorted(s[:4]) == [0, 1, 2, 3] and sorted(s[4:8]) == [4, 5, 6, 7] and sorted(s[8:]) == [8, 9]
    assert list(R.xmap_readers(lambda v: v * v, _r(range(30)), 3, 4, order=True)()) == [v * v for v in range(30)]
    assert sorted(R.xmap_readers(lambda v: v + 1, _r(range(30)), 3, 4)()) == list(range(1, 31))


def test_multiprocess_reader():
    R = paddle.reader
    for use_pipe in (True, False):
        out = list(R.multiprocess_reader([_r([1, 2, 3]), _r([10, 20])], use_pipe=use_pipe)())
        assert sorted(out) == [1, 2, 3, 10, 20]
    with pytest.raises(AssertionError):
        R.multiprocess_reader([])


# ---------------------------------------------------------------- paddle.hub
def test_hub_local_and_offline(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(
        "dependencies = ['numpy']\n"
        "import paddle\n"
        "def tiny(out=3):\n    '''A tiny Linear.'''\n    return paddle.nn.Linear(2, out)\n"
        "def _hidden():\n    pass\n")
    assert paddle.hub.list(str(repo), source='local') == ['tiny']
    assert paddle.hub.help(str(repo), 'tiny', source='local') == 'A tiny Linear.'
    m = paddle.hub.load(str(repo), 'tiny', source='local', out=5)
    assert isinstance(m, paddle.nn.Linear) and m.weight.shape == [2, 5]
    with pytest.raises(RuntimeError, match="Cannot find callable nope"):
        paddle.hub.load(str(repo), 'nope', source='local')
    with pytest.raises(ValueError, match="Unknown source"):
        paddle.hub.list(str(repo), source='svn')
    (repo / "hubconf.py").write_text("dependencies = ['no_such_pkg_xyz']\ndef f():\n    return 1\n")
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_pkg_xyz"):
        paddle.hub.load(str(repo), 'f', source='local')
    import paddle.hapi.hub as hapi_hub
    monkeypatch.setattr(hapi_hub, "HUB_DIR", str(tmp_path / "hub"))
    with pytest.raises(RuntimeError, match="https://github.com/PaddlePaddle/PaddleClas/archive/release.zip"):
        paddle.hub.list('PaddlePaddle/PaddleClas:release', source='github')
    with pytest.raises(RuntimeError, match="https://gitee.com/a/b/repository/archive/master.zip"):
        paddle.hub.load('a/b', 'x', source='gitee')


# ---------------------------------------------------------------- paddle.LazyGuard
def test_lazy_guard():
    paddle.seed(7)
    eager = paddle.nn.Linear(4, 3)
    paddle.seed(7)
    with paddle.LazyGuard():
        lazy = paddle.nn.Linear(4, 3)
    assert not lazy.weight._is_initialized() and not lazy.bias._is_initialized()
    assert eager.weight._is_initialized()
    with pytest.raises(RuntimeError, match="PreconditionNotMet.*initialize"):
        lazy(paddle.ones([1, 4]))
    paddle.seed(7)  # the same initializer with the same stream gives the eager values
    lazy.weight.initialize()
    lazy.bias.initialize()
    np.testing.assert_array_equal(lazy.weight.numpy(), eager.weight.numpy())
    np.testing.assert_array_equal(lazy.bias.numpy(), np.zeros(3, np.float32))
    np.testing.assert_allclose(lazy(paddle.ones([1, 4])).numpy(), eager(paddle.ones([1, 4])).numpy())
    with pytest.raises(AssertionError, match="_init_func"):
        lazy.weight.initialize()  # exactly once
    with pytest.raises(AssertionError):
        eager.weight.initialize()
    with paddle.LazyGuard():  # a ParamAttr initializer is kept
        c = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(2.5)))
    c.weight.initialize()
    np.testing.assert_array_equal(c.weight.numpy(), np.full((2, 2), 2.5, np.float32))
    c.bias.initialize()
    assert paddle.nn.Linear(2, 2)(paddle.ones([1, 2])).shape == [1, 2]  # guard is off again
    from paddle.framework import lazy_init
    assert lazy_init._state.pending == 0
    with paddle.LazyGuard():
        dropped = paddle.nn.Linear(2, 2)
    assert lazy_init._state.pending == 2
    del dropped  # never initialized: no longer pending once collected
    import gc
    gc.collect()
    assert lazy_init._state.pending == 0
