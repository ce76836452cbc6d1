"""Imikolov: the PTB language-model corpus (simple-examples.tgz, ./simple-examples/data/ptb.*.txt)."""
import collections
import tarfile

import numpy as np

from paddle.io import Dataset

from ._common import locate, malformed_is_value_error

URL = 'https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz'
MD5 = '30177ea32e27c525793142b6bf2c8e2d'


def _sort_key(item):
    w, c = item
    # words are bytes, the marks '<s>' / '<e>' str (as in Paddle); order str before bytes on ties
    return (-c, isinstance(w, bytes), w)


class Imikolov(Dataset):
    r"""N-grams (data_type 'NGRAM', ``window_size`` ids each) or (source, target) sequences
    ('SEQ') of word ids. The vocabulary: words of ptb.train.txt + ptb.valid.txt (plus '<s>' and
    '<e>' once per line) seen more than ``min_word_freq`` times, by decreasing count, then
    '<unk>'. mode 'train' reads ptb.train.txt, 'test' ptb.test.txt.

    Args:
        data_file (str): path of simple-examples.tgz.
        data_type (str): 'NGRAM' or 'SEQ'.
        window_size (int): n-gram length / maximum source length (-1: no limit for SEQ).
        mode (str): 'train' or 'test'.
        min_word_freq (int): default 50.
        download (bool): see UCIHousing.
    """

    @malformed_is_value_error('Imikolov')
    def __init__(self, data_file=None, data_type='NGRAM', window_size=-1, mode='train',
                 min_word_freq=50, download=True):
        assert data_type.upper() in ['NGRAM', 'SEQ'], \
            f"data type should be 'NGRAM', 'SEQ', but got {data_type}"
        self.data_type = data_type.upper()
        assert mode.lower() in ['train', 'test'], f"mode should be 'train', 'test', but got {mode}"
        self.mode = mode.lower()
        self.window_size = window_size
        self.min_word_freq = min_word_freq
        self.data_file = locate(data_file, URL, MD5, 'imikolov', download, dataset='Imikolov')
        self.word_idx = self._build_work_dict(min_word_freq)
        self._load_anno()

    def word_count(self, f, word_freq=None):
        if word_freq is None:
            word_freq = collections.defaultdict(int)
        for line in f:
            for w in line.strip().split():
                word_freq[w] += 1
            word_freq['<s>'] += 1
            word_freq['<e>'] += 1
        return word_freq

    @staticmethod
    def _member(tf, name):
        try:
            return tf.extractfile(name)
        except KeyError:
            raise ValueError(f"Imikolov: the archive has no member '{name}'") from None

    def _build_work_dict(self, cutoff):
        with tarfile.open(self.data_file) as tf:
            freq = self.word_count(self._member(tf, './simple-examples/data/ptb.valid.txt'),
                                   self.word_count(self._member(tf, './simple-examples/data/ptb.train.txt')))
        freq.pop('<unk>', None)  # the str mark only: PTB's b'<unk>' stays a word (as in Paddle)
        kept = sorted(((w, c) for w, c in freq.items() if c > self.min_word_freq), key=_sort_key)
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx['<unk>'] = len(kept)
        return word_idx

    def _load_anno(self):
        self.data = []
        unk = self.word_idx['<unk>']
        with tarfile.open(self.data_file) as tf:
            f = self._member(tf, f'./simple-examples/data/ptb.{self.mode}.txt')
            for line in f:
                if self.data_type == 'NGRAM':
                    assert self.window_size > -1, 'Invalid gram length'
                    words = ['<s>'] + line.strip().split() + ['<e>']
                    if len(words) >= self.window_size:
                        ids = [self.word_idx.get(w, unk) for w in words]
                        for i in range(self.window_size, len(ids) + 1):
                            self.data.append(tuple(ids[i - self.window_size:i]))
                else:
                    ids = [self.word_idx.get(w, unk) for w in line.strip().split()]
                    src = [self.word_idx.get('<s>', unk)] + ids
                    trg = ids + [self.word_idx.get('<e>', unk)]
                    if self.window_size > 0 and len(src) > self.window_size:
                        continue
                    self.data.append((src, trg))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
