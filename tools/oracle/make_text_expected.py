"""Runs real Paddle 2.6.2 (the oracle) on the archives of text_archives.py and writes
tests/python/data/text_datasets_expected.json: every item of UCIHousing, Imdb, Imikolov (NGRAM
and SEQ), WMT14 and WMT16 in every mode, Movielens' (user, movie id, rating) fields, and
Conll05st's sentences / predicates / BIO labels plus the hash-independent item arrays.
Usage (from an empty directory, no PYTHONPATH):
  HOME=$(mktemp -d) /work/oracle/bin/python tools/oracle/make_text_expected.py OUT.json
(HOME: WMT16 writes its dictionaries to ~/.cache/paddle/dataset/wmt16)."""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import text_archives  # noqa: E402

import paddle  # noqa: E402,F401
from paddle.text import (Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14,  # noqa: E402
                         WMT16)


def items(ds, k=None):
    return [[np.asarray(x).tolist() for x in (ds[i] if k is None else ds[i][:k])]
            for i in range(len(ds))]


def main(out):
    r = tempfile.mkdtemp()
    text_archives.build(r)
    os.makedirs(os.path.join(os.path.expanduser('~'), '.cache', 'paddle', 'dataset', 'wmt16'),
                exist_ok=True)
    j = lambda n: os.path.join(r, n)  # noqa: E731
    exp = {}
    for m in ('train', 'test'):
        exp['uci_' + m] = items(UCIHousing(j('housing.data'), m))
        exp['imdb_' + m] = items(Imdb(j('aclImdb_v1.tar.gz'), m, cutoff=2))
        exp['imik_ngram_' + m] = items(Imikolov(j('simple-examples.tgz'), 'NGRAM', 3, m, min_word_freq=2))
        exp['imik_seq_' + m] = items(Imikolov(j('simple-examples.tgz'), 'SEQ', 5, m, min_word_freq=2))
        ml = Movielens(j('ml-1m.zip'), m, test_ratio=0.3, rand_seed=1)
        exp['movielens_' + m] = [[np.asarray(x).tolist() for x in ml[i][:5]] + [ml[i][-1].tolist()]
                                 for i in range(len(ml))]
    for m in ('train', 'test', 'gen'):
        exp['wmt14_' + m] = items(WMT14(j('wmt14.tgz'), m, dict_size=6))
    for m in ('train', 'test', 'val'):
        for lang in ('en', 'de'):
            exp[f'wmt16_{m}_{lang}'] = items(WMT16(j('wmt16.tar.gz'), m, 8, 7, lang))
    c = Conll05st(j('conll05st-tests.tar.gz'), j('wordDict.txt'), j('verbDict.txt'),
                  j('targetDict.txt'), j('emb'))
    exp['conll'] = {'sentences': c.sentences, 'predicates': c.predicates, 'labels': c.labels,
                    'items': items(c, 8)}
    with open(out, 'w') as f:
        json.dump(exp, f, separators=(',', ':'))


if __name__ == '__main__':
    main(sys.argv[1])
