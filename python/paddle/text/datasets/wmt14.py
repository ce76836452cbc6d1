"""WMT14: the shrunk English-French set (wmt14.tgz holding src.dict, trg.dict and
{train,test,gen}/{train,test,gen} files of 'source<TAB>target' lines)."""
import tarfile

import numpy as np

from paddle.io import Dataset

from ._common import locate, malformed_is_value_error

URL_TRAIN = 'http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz'
MD5_TRAIN = '0791583d57d5beb693b9414c5b36798c'
START, END, UNK = '<s>', '<e>', '<unk>'
UNK_IDX = 2


class WMT14(Dataset):
    r"""Items: (source ids with <s> ... <e>, <s> + target ids, target ids + <e>); the first
    ``dict_size`` lines of src.dict / trg.dict are the vocabularies; pairs longer than 80 ids are
    skipped.

    Args:
        data_file (str): path of wmt14.tgz.
        mode (str): 'train', 'test' or 'gen'.
        dict_size (int): > 0.
        download (bool): see UCIHousing.
    """

    @malformed_is_value_error('WMT14')
    def __init__(self, data_file=None, mode='train', dict_size=-1, download=True):
        assert mode.lower() in ['train', 'test', 'gen'], \
            f"mode should be 'train', 'test' or 'gen', but got {mode}"
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL_TRAIN, MD5_TRAIN, 'wmt14', download,
                                dataset='WMT14')
        assert dict_size > 0, 'dict_size should be set as positive number'
        self.dict_size = dict_size
        self._load_data()

    def _load_data(self):
        def to_dict(fd, size):
            out = {}
            for i, line in enumerate(fd):
                if i >= size:
                    break
                out[line.strip().decode()] = i
            return out

        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file, mode='r') as f:
            members = f.getmembers()

            def one(suffix):
                names = [m.name for m in members if m.name.endswith(suffix)]
                if len(names) != 1:
                    raise ValueError(f"WMT14: expected one '{suffix}' in {self.data_file}, "
                                     f"found {len(names)}")
                return f.extractfile(names[0])

            self.src_dict = to_dict(one('src.dict'), self.dict_size)
            self.trg_dict = to_dict(one('trg.dict'), self.dict_size)
            for mark in (START, END):
                if mark not in self.trg_dict:
                    raise ValueError(f"WMT14: '{mark}' is not among the first {self.dict_size} "
                                     "lines of trg.dict")
            suffix = f'{self.mode}/{self.mode}'
            for m in members:
                if not m.name.endswith(suffix):
                    continue
                for line in f.extractfile(m):
                    parts = line.decode().strip().split('\t')
                    if len(parts) != 2:
                        continue
                    src = [self.src_dict.get(w, UNK_IDX) for w in [START] + parts[0].split() + [END]]
                    trg = [self.trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
                    if len(src) > 80 or len(trg) > 80:
                        continue
                    self.src_ids.append(src)
                    self.trg_ids.append([self.trg_dict[START]] + trg)
                    self.trg_ids_next.append(trg + [self.trg_dict[END]])

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        src, trg = self.src_dict, self.trg_dict
        if reverse:
            src = {v: k for k, v in src.items()}
            trg = {v: k for k, v in trg.items()}
        return src, trg
