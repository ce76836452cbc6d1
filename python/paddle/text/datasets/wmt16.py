"""WMT16: the English-German Multi30k set (wmt16.tar.gz: wmt16/{train,test,val}, 'en<TAB>de'
lines). Vocabularies are built from wmt16/train and kept as
~/.cache/paddle/dataset/wmt16/<lang>_<size>.dict, as Paddle does."""
import os
import tarfile
from collections import defaultdict

import numpy as np

from paddle.io import Dataset

from . import _common
from ._common import locate, malformed_is_value_error

DATA_URL = 'http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz'
DATA_MD5 = '0c38be43600334966403524a40dcd81e'
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = '<s>', '<e>', '<unk>'


class WMT16(Dataset):
    r"""Items: (source ids with <s> ... <e>, <s> + target ids, target ids + <e>). Each
    vocabulary is '<s>', '<e>', '<unk>' then the most frequent words of wmt16/train's column of
    that language (ties in first-seen order), ``dict_size`` entries in all.

    Args:
        data_file (str): path of wmt16.tar.gz.
        mode (str): 'train', 'test' or 'val'.
        src_dict_size, trg_dict_size (int): > 0.
        lang (str): source language, 'en' or 'de'.
        download (bool): see UCIHousing.
    """

    @malformed_is_value_error('WMT16')
    def __init__(self, data_file=None, mode='train', src_dict_size=-1, trg_dict_size=-1,
                 lang='en', download=True):
        assert mode.lower() in ['train', 'test', 'val'], \
            f"mode should be 'train', 'test' or 'val', but got {mode}"
        self.mode = mode.lower()
        self.data_file = locate(data_file, DATA_URL, DATA_MD5, 'wmt16', download, dataset='WMT16')
        self.lang = lang
        assert src_dict_size > 0, 'dict_size should be set as positive number'
        assert trg_dict_size > 0, 'dict_size should be set as positive number'
        self.src_dict_size = min(src_dict_size, TOTAL_EN_WORDS if lang == 'en' else TOTAL_DE_WORDS)
        self.trg_dict_size = min(trg_dict_size, TOTAL_DE_WORDS if lang == 'en' else TOTAL_EN_WORDS)
        self.src_dict = self._load_dict(lang, src_dict_size)
        self.trg_dict = self._load_dict('de' if lang == 'en' else 'en', trg_dict_size)
        self.data = self._load_data()

    @staticmethod
    def _dict_path(lang, dict_size):
        return os.path.join(_common.DATA_HOME, 'wmt16', '%s_%d.dict' % (lang, dict_size))

    def _member(self, f, name):
        try:
            return f.extractfile(name)
        except KeyError:
            raise ValueError(f"WMT16: {self.data_file} has no member '{name}'") from None

    def _load_dict(self, lang, dict_size, reverse=False):
        path = self._dict_path(lang, dict_size)
        found = False
        if os.path.exists(path):
            with open(path, 'rb') as d:
                found = len(d.readlines()) == dict_size
        if not found:
            self._build_dict(path, dict_size, lang)
        out = {}
        with open(path, 'rb') as fdict:
            for idx, line in enumerate(fdict):
                if reverse:
                    out[idx] = line.strip().decode()
                else:
                    out[line.strip().decode()] = idx
        return out

    def _build_dict(self, dict_path, dict_size, lang):
        counts = defaultdict(int)
        with tarfile.open(self.data_file, mode='r') as f:
            for line in self._member(f, 'wmt16/train'):
                parts = line.decode().strip().split('\t')
                if len(parts) != 2:
                    continue
                # the column of self.lang, whichever dictionary is built (Paddle's behaviour)
                sen = parts[0] if self.lang == 'en' else parts[1]
                for w in sen.split():
                    counts[w] += 1
        os.makedirs(os.path.dirname(dict_path), exist_ok=True)
        with open(dict_path, 'wb') as fout:
            fout.write(f'{START_MARK}\n{END_MARK}\n{UNK_MARK}\n'.encode())
            for idx, (word, _) in enumerate(sorted(counts.items(), key=lambda x: x[1],
                                                   reverse=True)):
                if idx + 3 == dict_size:
                    break
                fout.write(word.encode() + b'\n')

    def _load_data(self):
        start_id = self.src_dict[START_MARK]
        end_id = self.src_dict[END_MARK]
        unk_id = self.src_dict[UNK_MARK]
        src_col = 0 if self.lang == 'en' else 1
        trg_col = 1 - src_col
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file, mode='r') as f:
            for line in self._member(f, f'wmt16/{self.mode}'):
                parts = line.decode().strip().split('\t')
                if len(parts) != 2:
                    continue
                src = [start_id] + [self.src_dict.get(w, unk_id) for w in parts[src_col].split()] \
                    + [end_id]
                trg = [self.trg_dict.get(w, unk_id) for w in parts[trg_col].split()]
                self.src_ids.append(src)
                self.trg_ids.append([start_id] + trg)
                self.trg_ids_next.append(trg + [end_id])

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        size = self.src_dict_size if lang == self.lang else self.trg_dict_size
        path = self._dict_path(lang, size)
        assert os.path.exists(path), "Word dictionary does not exist. "
        return self._load_dict(lang, size, reverse)
