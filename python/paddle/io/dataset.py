"""Datasets (Paddle 2.3's paddle.io): map-style Dataset, IterableDataset, TensorDataset,
ComposeDataset (zips fields), ChainDataset (chains iterables), Subset and random_split."""
import bisect
import itertools


class Dataset:
    """Map-style dataset: implement __getitem__(idx) and __len__()."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


class IterableDataset(Dataset):
    """Stream-style dataset: implement __iter__()."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __getitem__(self, idx):
        raise RuntimeError("IterableDataset does not support indexing")

    def __len__(self):
        # TypeError (not RuntimeError) so list()/len() hints treat it as "no length"
        raise TypeError("IterableDataset has no length")


class TensorDataset(Dataset):
    """Samples are the i-th rows of each given tensor (all with the same first dim)."""

    def __init__(self, tensors):
        from .. import _C
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].shape[0]
        for t in tensors:
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"TensorDataset expects paddle.Tensor inputs, received {type(t).__name__}")
            if t.shape[0] != n:
                raise ValueError(f"TensorDataset: every tensor needs {n} rows, one has {t.shape[0]}")
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(t[idx] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ComposeDataset(Dataset):
    """Zips datasets of equal length: sample i is the concatenation of their fields."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset needs at least one dataset")
        n = len(self.datasets[0])
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ComposeDataset does not take IterableDataset")
            if len(d) != n:
                raise ValueError("ComposeDataset: all datasets must have the same length")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        out = []
        for d in self.datasets:
            s = d[idx]
            out.extend(s if isinstance(s, (list, tuple)) else [s])
        return tuple(out)


class ChainDataset(IterableDataset):
    """Iterates the given iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset only takes IterableDataset")

    def __iter__(self):
        return itertools.chain.from_iterable(self.datasets)


def _fetch(dataset, indices):
    """The samples of one batch: dataset._getitems(indices) where a dataset offers that batched
    fetch (it returns exactly [dataset[i] for i in indices]), else one __getitem__ per index."""
    getitems = getattr(dataset, "_getitems", None)
    if getitems is not None:
        return getitems(indices)
    return [dataset[i] for i in indices]


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def _getitems(self, indices):
        """The DataLoader's batched fetch, passed through to the underlying dataset's."""
        if type(self).__getitem__ is not Subset.__getitem__:
            return [self[i] for i in indices]
        return _fetch(self.dataset, [self.indices[i] for i in indices])

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Paddle 2.6: map-style datasets concatenated end to end (index i goes to the dataset whose
    cumulative size first exceeds i)."""

    @staticmethod
    def cumsum(sequence):
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, 'datasets should not be an empty iterable'
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), \
                "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[k][idx if k == 0 else idx - self.cumulative_sizes[k - 1]]


def random_split(dataset, lengths, generator=None):
    """Splits into non-overlapping random subsets of the given lengths."""
    if sum(lengths) != len(dataset):
        raise ValueError(f"random_split: the lengths sum to {sum(lengths)}, the dataset has {len(dataset)} samples")
    from ..tensor.random import randperm
    perm = randperm(len(dataset)).numpy().tolist()
    out, off = [], 0
    for n in lengths:
        out.append(Subset(dataset, perm[off:off + n]))
        off += n
    return out


__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "Subset", "random_split", "ConcatDataset"]
