"""Samplers (paddle.io): SequenceSampler, RandomSampler (replacement, num_samples, generator),
WeightedRandomSampler, SubsetRandomSampler, BatchSampler, DistributedBatchSampler. Random
draws come from paddle's generator (paddle.seed makes them reproducible)."""
import math
import os

import numpy as np


def _perm(n):
    from ..tensor.random import randperm
    return randperm(n).numpy().tolist() if n > 0 else []


class Sampler:
    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequenceSampler(Sampler):
    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("RandomSampler: replacement must be a bool")
        if num_samples is not None and not replacement:
            raise ValueError("RandomSampler: num_samples can only be given with replacement=True")
        if self.num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples must be positive, received {self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is not None:
            for _ in range(self.num_samples):
                yield next(self.generator)
            return
        if self.replacement:
            from ..tensor.random import randint
            yield from randint(0, n, [self.num_samples]).numpy().tolist()
        else:
            yield from _perm(n)

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices must not be empty")
        self.indices = list(indices)

    def __iter__(self):
        for i in _perm(len(self.indices)):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True):
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
        if w.ndim != 1 or (w < 0).any() or w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: weights must be a 1-D list of non-negative numbers with a positive sum")
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("WeightedRandomSampler: num_samples must be a positive int")
        if not replacement and num_samples > int((w > 0).sum()):
            raise ValueError("WeightedRandomSampler: num_samples exceeds the positive weights without replacement")
        self.weights, self.num_samples, self.replacement = w, num_samples, replacement

    def __iter__(self):
        from ..tensor.random import multinomial
        from ..tensor.to_tensor import to_tensor
        idx = multinomial(to_tensor(self.weights), self.num_samples, self.replacement)
        return iter(idx.numpy().reshape(-1).tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups indices (from a sampler, or from the dataset with shuffle) into batches."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give exactly one of dataset and sampler")
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size must be a positive int, received {batch_size!r}")
        if sampler is not None and shuffle:
            raise ValueError("BatchSampler: shuffle must be False when a sampler is given")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        self.sampler, self.batch_size, self.drop_last, self.shuffle = sampler, batch_size, drop_last, shuffle

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """Each of num_replicas ranks gets its own slice of the (padded) index list."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("DistributedBatchSampler: batch_size must be a positive int")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.nranks = num_replicas if num_replicas is not None else int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
        self.local_rank = rank if rank is not None else int(os.environ.get("PADDLE_TRAINER_ID", "0"))
        if not 0 <= self.local_rank < self.nranks:
            raise ValueError(f"DistributedBatchSampler: rank {self.local_rank} out of range for {self.nranks} replicas")
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def __iter__(self):
        n = len(self.dataset)
        idx = list(range(n))
        if self.shuffle:
            rs = np.random.RandomState(self.epoch)
            rs.shuffle(idx)
            self.epoch += 1
        idx += idx[: self.total_size - len(idx)]
        mine = idx[self.local_rank * self.num_samples:(self.local_rank + 1) * self.num_samples]
        batch = []
        for i in mine:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def set_epoch(self, epoch):
        self.epoch = epoch


__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "WeightedRandomSampler",
           "SubsetRandomSampler", "BatchSampler", "DistributedBatchSampler"]
