"""default_collate_fn (stacks samples field by field into numpy batches; nested lists, tuples
and dicts keep their structure) and default_convert_fn (converts without stacking)."""
import numbers

import numpy as np

from .. import _C


def _to_numpy(x):
    if isinstance(x, _C.Tensor):
        return x.numpy()
    return x


def default_collate_fn(batch):
    if not batch:
        raise ValueError("collate: empty batch")
    s = batch[0]
    if isinstance(s, (np.ndarray, _C.Tensor)):
        return np.stack([_to_numpy(b) for b in batch], axis=0)
    if isinstance(s, bool) or isinstance(s, np.bool_):
        return np.array(batch, dtype=np.bool_)
    if isinstance(s, numbers.Integral):
        return np.array(batch, dtype=np.int64)
    if isinstance(s, numbers.Number):
        return np.array(batch, dtype=np.float32 if isinstance(s, float) else None)
    if isinstance(s, (str, bytes)):
        return list(batch)
    if isinstance(s, dict):
        return {k: default_collate_fn([b[k] for b in batch]) for k in s}
    if isinstance(s, (list, tuple)):
        n = len(s)
        if any(len(b) != n for b in batch):
            raise ValueError("collate: every sample must have the same number of fields")
        return [default_collate_fn([b[i] for b in batch]) for i in range(n)]
    raise TypeError(f"collate: cannot batch samples of type {type(s).__name__}; pass a collate_fn")


def default_convert_fn(batch):
    if isinstance(batch, (list, tuple)):
        return [default_convert_fn(b) for b in batch]
    if isinstance(batch, dict):
        return {k: default_convert_fn(v) for k, v in batch.items()}
    return _to_numpy(batch)


__all__ = ["default_collate_fn", "default_convert_fn"]
