"""default_collate_fn (stacks samples field by field into numpy batches; nested lists, tuples
and dicts keep their structure) and default_convert_fn (converts without stacking)."""
import numbers

import numpy as np

from .. import _C


def _to_numpy(x):
    if isinstance(x, _C.Tensor):
        return x.numpy()
    return x


def _stack(arrays, path):
    shapes = [tuple(a.shape) for a in arrays]
    if any(sh != shapes[0] for sh in shapes):
        seen = sorted(set(shapes), key=shapes.index)
        first = {sh: shapes.index(sh) for sh in seen}
        listed = ", ".join(f"{list(sh)} (sample {first[sh]})" for sh in seen[:6])
        raise ValueError(f"collate: field {path} has samples of different shapes: {listed}; make the "
                         "samples the same shape (pad or resize) or pass a collate_fn")
    return np.stack(arrays, axis=0)


def _field(path, key):
    return f"{path}[{key!r}]"


def default_collate_fn(batch, _path="sample"):
    if not batch:
        raise ValueError("collate: empty batch")
    s = batch[0]
    if isinstance(s, (np.ndarray, _C.Tensor)):
        return _stack([_to_numpy(b) for b in batch], _path)
    if isinstance(s, bool) or isinstance(s, np.bool_):
        return np.array(batch, dtype=np.bool_)
    if isinstance(s, numbers.Integral):
        return np.array(batch, dtype=np.int64)
    if isinstance(s, numbers.Number):
        return np.array(batch, dtype=np.float32 if isinstance(s, float) else None)
    if isinstance(s, (str, bytes)):
        return list(batch)
    if isinstance(s, dict):
        return {k: default_collate_fn([b[k] for b in batch], _field(_path, k)) for k in s}
    if isinstance(s, (list, tuple)):
        n = len(s)
        if any(len(b) != n for b in batch):
            raise ValueError(f"collate: every sample must have the same number of fields ({_path}: "
                             f"{sorted(set(len(b) for b in batch))})")
        return [default_collate_fn([b[i] for b in batch], _field(_path, i)) for i in range(n)]
    raise TypeError(f"collate: cannot batch samples of type {type(s).__name__}; pass a collate_fn")


def default_convert_fn(batch):
    if isinstance(batch, (list, tuple)):
        return [default_convert_fn(b) for b in batch]
    if isinstance(batch, dict):
        return {k: default_convert_fn(v) for k, v in batch.items()}
    return _to_numpy(batch)


__all__ = ["default_collate_fn", "default_convert_fn"]
