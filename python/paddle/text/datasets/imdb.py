"""Imdb: the aclImdb_v1.tar.gz sentiment reviews (aclImdb/{train,test}/{pos,neg}/*.txt)."""
import collections
import re
import string
import tarfile

import numpy as np

from paddle.io import Dataset

from ._common import locate, malformed_is_value_error

URL = 'https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz'
MD5 = '7c2ac02c03563afcf9b574c7e56c153a'
_PUNCT = string.punctuation.encode('latin-1')


class Imdb(Dataset):
    r"""Reviews as word-id arrays (label 0 = pos, 1 = neg). The vocabulary holds the byte
    tokens (punctuation stripped, lower-cased) seen more than ``cutoff`` times in train + test,
    by decreasing frequency then bytes order, plus '<unk>' last.

    Args:
        data_file (str): path of aclImdb_v1.tar.gz.
        mode (str): 'train' or 'test'.
        cutoff (int): minimum count (exclusive). Default 150.
        download (bool): see UCIHousing.
    """

    @malformed_is_value_error('Imdb')
    def __init__(self, data_file=None, mode='train', cutoff=150, download=True):
        assert mode.lower() in ['train', 'test'], f"mode should be 'train', 'test', but got {mode}"
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL, MD5, 'imdb', download, dataset='Imdb')
        self.word_idx = self._build_work_dict(cutoff)
        self._load_anno()

    def _build_work_dict(self, cutoff):
        freq = collections.defaultdict(int)
        pattern = re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")
        for doc in self._tokenize(pattern):
            for w in doc:
                freq[w] += 1
        kept = sorted(((w, c) for w, c in freq.items() if c > cutoff), key=lambda x: (-x[1], x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        if not kept:
            raise ValueError(f"Imdb: no word of {self.data_file} occurs more than cutoff={cutoff} "
                             "times")
        word_idx['<unk>'] = len(kept)
        return word_idx

    def _tokenize(self, pattern):
        docs = []
        with tarfile.open(self.data_file) as tarf:
            for member in tarf:
                if pattern.match(member.name) and member.isfile():
                    raw = tarf.extractfile(member).read()
                    docs.append(raw.rstrip(b"\n\r").translate(None, _PUNCT).lower().split())
        return docs

    def _load_anno(self):
        unk = self.word_idx['<unk>']
        self.docs, self.labels = [], []
        for label, kind in ((0, 'pos'), (1, 'neg')):
            pattern = re.compile(r"aclImdb/{}/{}/.*\.txt$".format(self.mode, kind))
            for doc in self._tokenize(pattern):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self):
        return len(self.docs)
