"""UCIHousing: the Boston housing table (housing.data, 14 whitespace-separated columns)."""
import numpy as np

import paddle
from paddle.io import Dataset

from ._common import locate, malformed_is_value_error

URL = 'http://paddlemodels.bj.bcebos.com/uci_housing/housing.data'
MD5 = 'd4accdce7a25600298819f8e28e8d593'
feature_names = ['CRIM', 'ZN', 'INDUS', 'CHAS', 'NOX', 'RM', 'AGE', 'DIS', 'RAD', 'TAX',
                 'PTRATIO', 'B', 'LSTAT']


class UCIHousing(Dataset):
    r"""Features normalized as (x - mean) / (max - min) over the whole file; the first 80% of
    rows are 'train', the rest 'test'. Items: (13 features, [price]) in the default dtype.

    Args:
        data_file (str): path of housing.data.
        mode (str): 'train' or 'test'.
        download (bool): Paddle downloads when data_file is None; here the file must be in
            Paddle's cache (~/.cache/paddle/dataset/uci_housing/housing.data).
    """

    @malformed_is_value_error('UCIHousing')
    def __init__(self, data_file=None, mode='train', download=True):
        assert mode.lower() in ['train', 'test'], \
            f"mode should be 'train' or 'test', but got {mode}"
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL, MD5, 'uci_housing', download, dataset='UCIHousing')
        self._load_data()
        self.dtype = paddle.get_default_dtype()

    def _load_data(self, feature_num=14, ratio=0.8):
        data = np.fromfile(self.data_file, sep=' ')
        if data.size % feature_num:
            raise ValueError(f"UCIHousing: {self.data_file} holds {data.size} numbers, not a "
                             f"multiple of {feature_num} columns")
        data = data.reshape(data.shape[0] // feature_num, feature_num)
        mx, mn, avg = data.max(axis=0), data.min(axis=0), data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - avg[i]) / (mx[i] - mn[i])
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == 'train' else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)
