"""paddle.text: viterbi_decode against a brute-force search; the datasets on small archives in
the real formats (tools/oracle/text_archives.py) against what real Paddle 2.6.2 read from the
same archives (tests/python/data/text_datasets_expected.json, tools/oracle/make_text_expected.py);
missing files; a fuzz pass over corrupted archives."""
import itertools
import json
import os
import sys

import numpy as np
import pytest

import paddle
from paddle.text import (Conll05st, Imdb, Imikolov, Movielens, UCIHousing, ViterbiDecoder,
                         WMT14, WMT16, viterbi_decode)
from paddle.text.datasets import _common

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tools', 'oracle'))
import text_archives  # noqa: E402

with open(os.path.join(HERE, 'data', 'text_datasets_expected.json')) as f:
    EXP = json.load(f)


# ---------------- viterbi ----------------
def brute_force(pot, trans, length, bos):
    n = pot.shape[1]
    best, best_path = -np.inf, None
    for path in itertools.product(range(n), repeat=length):
        s = sum(pot[t, path[t]] for t in range(length))
        s += sum(trans[path[t - 1], path[t]] for t in range(1, length))
        if bos:
            s += trans[n - 1, path[0]] + trans[n - 2, path[-1]]
        if s > best + 1e-12:
            best, best_path = s, path
    return best, best_path


@pytest.mark.parametrize("bos", [True, False])
@pytest.mark.parametrize("dtype", ['float32', 'float64'])
def test_viterbi_brute_force(bos, dtype):
    rng = np.random.default_rng(1 if bos else 2)
    B, L, N = 5, 5, 4
    pot = rng.standard_normal((B, L, N))
    trans = rng.standard_normal((N, N))
    lengths = np.array([5, 3, 1, 4, 2])
    scores, paths = viterbi_decode(paddle.to_tensor(pot.astype(dtype)),
                                   paddle.to_tensor(trans.astype(dtype)),
                                   paddle.to_tensor(lengths), include_bos_eos_tag=bos)
    assert paths.shape == [B, 5] and paths.dtype == paddle.int64
    assert scores.dtype == paddle.to_tensor(pot.astype(dtype)).dtype
    tol = 1e-4 if dtype == 'float32' else 1e-10
    for b in range(B):
        s, p = brute_force(pot[b], trans, lengths[b], bos)
        assert scores.numpy()[b] == pytest.approx(s, abs=tol)
        np.testing.assert_array_equal(paths.numpy()[b, :lengths[b]], p)
        assert np.all(paths.numpy()[b, lengths[b]:] == 0)
    dec = ViterbiDecoder(paddle.to_tensor(trans.astype(dtype)), include_bos_eos_tag=bos)
    s2, p2 = dec(paddle.to_tensor(pot.astype(dtype)), paddle.to_tensor(lengths))
    np.testing.assert_array_equal(p2.numpy(), paths.numpy())
    # the path width is max(lengths)
    _, p3 = viterbi_decode(paddle.to_tensor(pot), paddle.to_tensor(trans),
                           paddle.to_tensor(np.array([2, 3, 1, 1, 2])), bos)
    assert p3.shape == [B, 3]


def test_viterbi_errors():
    pot = paddle.rand([2, 3, 4])
    with pytest.raises(ValueError):
        viterbi_decode(pot, paddle.rand([3, 3]), paddle.to_tensor([3, 3]))
    with pytest.raises(ValueError):
        viterbi_decode(pot, paddle.rand([4, 4]), paddle.to_tensor([4, 3]))
    with pytest.raises(ValueError):
        viterbi_decode(paddle.rand([2, 4]), paddle.rand([4, 4]), paddle.to_tensor([1, 1]))
    with pytest.raises(TypeError):
        viterbi_decode(pot, paddle.rand([4, 4]), paddle.to_tensor([1.0, 1.0]))


# ---------------- datasets ----------------
@pytest.fixture(scope='module')
def arch(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('text_archives'))
    text_archives.build(root)
    return root


@pytest.fixture()
def data_home(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, 'DATA_HOME', str(tmp_path / 'home'))
    return tmp_path / 'home'


def items(ds, k=None):
    return [[np.asarray(x).tolist() for x in (ds[i] if k is None else ds[i][:k])]
            for i in range(len(ds))]


def close(a, b):
    np.testing.assert_equal(len(a), len(b))
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_allclose(np.asarray(u, dtype=float), np.asarray(v, dtype=float),
                                       rtol=1e-6)


@pytest.mark.parametrize("mode", ['train', 'test'])
def test_uci_imdb_imikolov(arch, mode):
    j = lambda n: os.path.join(arch, n)  # noqa: E731
    uci = UCIHousing(j('housing.data'), mode)
    close(items(uci), EXP['uci_' + mode])
    assert uci[0][0].dtype == np.float32 and uci[0][0].shape == (13,)
    assert items(Imdb(j('aclImdb_v1.tar.gz'), mode, cutoff=2)) == EXP['imdb_' + mode]
    assert items(Imikolov(j('simple-examples.tgz'), 'NGRAM', 3, mode, min_word_freq=2)) == \
        EXP['imik_ngram_' + mode]
    assert items(Imikolov(j('simple-examples.tgz'), 'SEQ', 5, mode, min_word_freq=2)) == \
        EXP['imik_seq_' + mode]


def test_movielens(arch):
    seen = 0
    for mode in ('train', 'test'):
        ml = Movielens(os.path.join(arch, 'ml-1m.zip'), mode, test_ratio=0.3, rand_seed=1)
        got = [[np.asarray(x).tolist() for x in ml[i][:5]] + [ml[i][-1].tolist()]
               for i in range(len(ml))]
        assert got == EXP['movielens_' + mode]
        inv_cat = {v: k for k, v in ml.categories_dict.items()}
        inv_title = {v: k for k, v in ml.movie_title_dict.items()}
        for i in range(len(ml)):
            movie = ml.movie_info[int(ml[i][4][0])]
            assert [inv_cat[c] for c in ml[i][5]] == movie.categories
            assert [inv_title[w] for w in ml[i][6]] == [w.lower() for w in movie.title.split()]
        seen += len(ml)
    assert seen == 27


def test_wmt(arch, data_home):
    for mode in ('train', 'test', 'gen'):
        w = WMT14(os.path.join(arch, 'wmt14.tgz'), mode, dict_size=6)
        assert items(w) == EXP['wmt14_' + mode]
    src, trg = w.get_dict(reverse=True)
    assert src[3] == 'le' and trg[4] == 'cat'
    for mode in ('train', 'test', 'val'):
        for lang in ('en', 'de'):
            w = WMT16(os.path.join(arch, 'wmt16.tar.gz'), mode, 8, 7, lang)
            assert items(w) == EXP[f'wmt16_{mode}_{lang}']
    assert os.path.exists(data_home / 'wmt16' / 'en_8.dict')
    assert list(w.get_dict('de'))[:3] == ['<s>', '<e>', '<unk>']


def test_conll05(arch):
    j = lambda n: os.path.join(arch, n)  # noqa: E731
    c = Conll05st(j('conll05st-tests.tar.gz'), j('wordDict.txt'), j('verbDict.txt'),
                  j('targetDict.txt'), j('emb'))
    e = EXP['conll']
    assert c.sentences == e['sentences'] and c.predicates == e['predicates']
    assert c.labels == e['labels']
    assert items(c, 8) == e['items']
    wd, vd, ld = c.get_dict()
    assert sorted(ld.values()) == list(range(len(ld))) and ld['O'] == len(ld) - 1
    for i in range(len(c)):
        assert c[i][8].tolist() == [ld[t] for t in c.labels[i]]
    assert c.get_embedding() == j('emb')


def test_missing_files(tmp_path, data_home):
    with pytest.raises(RuntimeError, match="housing.data"):
        UCIHousing()
    with pytest.raises(RuntimeError, match="aclImdb_v1.tar.gz"):
        Imdb(mode='test')
    with pytest.raises(RuntimeError, match="simple-examples.tgz"):
        Imikolov(data_type='SEQ')
    with pytest.raises(RuntimeError, match="ml-1m.zip"):
        Movielens()
    with pytest.raises(RuntimeError, match="wmt14.tgz"):
        WMT14(dict_size=10)
    with pytest.raises(RuntimeError, match="wmt16.tar.gz"):
        WMT16(src_dict_size=10, trg_dict_size=10)
    with pytest.raises(RuntimeError, match="conll05st-tests.tar.gz"):
        Conll05st()
    with pytest.raises(AssertionError, match="downloading automatically is disabled"):
        UCIHousing(download=False)
    with pytest.raises(FileNotFoundError, match="nope.data"):
        UCIHousing(str(tmp_path / 'nope.data'))
    with pytest.raises(AssertionError):
        UCIHousing(mode='valid')


def test_fuzz_corrupted_archives(arch, tmp_path, data_home):
    """Truncated / byte-flipped archives: a Python exception or a dataset, never a crash."""
    rng = np.random.default_rng(0)
    makers = {
        'aclImdb_v1.tar.gz': lambda p: Imdb(p, cutoff=0),
        'simple-examples.tgz': lambda p: Imikolov(p, 'NGRAM', 2, min_word_freq=0),
        'ml-1m.zip': lambda p: Movielens(p),
        'wmt14.tgz': lambda p: WMT14(p, dict_size=5),
        'wmt16.tar.gz': lambda p: WMT16(p, src_dict_size=5, trg_dict_size=5),
        'housing.data': lambda p: UCIHousing(p),
    }
    for name, make in makers.items():
        raw = open(os.path.join(arch, name), 'rb').read()
        for k in range(12):
            b = bytearray(raw)
            if k % 3 == 0:
                b = b[:rng.integers(0, len(b))]
            else:
                for _ in range(1 + k):
                    b[rng.integers(0, len(b))] = rng.integers(0, 256)
            p = tmp_path / f'{k}_{name}'
            p.write_bytes(bytes(b))
            try:
                ds = make(str(p))
                for i in range(min(len(ds), 3)):
                    ds[i]
            except Exception:  # noqa: BLE001 - any clean Python error is the expected outcome
                pass


def test_viterbi_static_mode():
    rng = np.random.default_rng(4)
    pot = rng.standard_normal((3, 4, 5)).astype('float32')
    trans = rng.standard_normal((5, 5)).astype('float32')
    lens = np.array([4, 2, 3])
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            p = paddle.static.data('p', [3, 4, 5], 'float32')
            t = paddle.static.data('t', [5, 5], 'float32')
            ln = paddle.static.data('ln', [3], 'int64')
            s, path = viterbi_decode(p, t, ln, include_bos_eos_tag=False)
        assert 'viterbi_decode' in [op.type for op in main.global_block().ops]
        out = paddle.static.Executor().run(main, feed={'p': pot, 't': trans, 'ln': lens},
                                           fetch_list=[s, path])
    finally:
        paddle.disable_static()
    for b in range(3):
        sc, pb = brute_force(pot[b].astype(np.float64), trans.astype(np.float64), lens[b], False)
        assert out[0][b] == pytest.approx(sc, abs=1e-4)
        np.testing.assert_array_equal(out[1][b, :lens[b]], pb)
