"""Input functionals (Paddle 2.3's nn.functional.input): one_hot and embedding (a row gather
whose backward scatter-adds rows, skipping padding_idx, or with sparse=True gives a row-sparse
gradient; the C op embedding)."""
from ... import _C
from ..._C import _C_ops as _ops
from ...framework.param import Tensor

__all__ = ["one_hot", "embedding"]


def one_hot(x, num_classes, name=None):
    """float32 one-hot of the int ids x: shape x.shape + [num_classes]."""
    import paddle
    if not isinstance(x, Tensor):
        raise TypeError(f"[one_hot] expected x to be a paddle.Tensor, received {type(x).__name__}")
    if x.dtype not in (paddle.int32, paddle.int64):
        raise TypeError(f"[one_hot] expected x to be int32 or int64, received {x.dtype}")
    num_classes = int(num_classes)
    if num_classes <= 0:
        raise ValueError(f"[one_hot] num_classes must be > 0, received {num_classes}")
    v = None if _C._is_variable(x) else x.numpy()  # a program's values are checked by nobody
    if v is not None and v.size and (v.min() < 0 or v.max() >= num_classes):
        raise ValueError(f"[one_hot] ids must be in [0, {num_classes}), received values in "
                         f"[{v.min()}, {v.max()}]")
    cls = paddle.arange(num_classes, dtype=x.dtype)
    return paddle.cast(paddle.equal(paddle.unsqueeze(x, -1), cls), "float32")


def _padding_idx(padding_idx, num):
    if padding_idx is None:
        return -1
    p = int(padding_idx)
    if not -num <= p < num:
        raise ValueError(f"[embedding] padding_idx must be in [{-num}, {num}), received {padding_idx}")
    return p + num if p < 0 else p


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """Rows of weight [num_embeddings, dim] picked by the int ids x; rows of padding_idx come
    out as zeros and get no gradient. sparse=True makes weight's gradient row-sparse (Paddle's
    SelectedRows: the looked-up rows and their gradients, kept as such on a leaf weight and
    consumed row by row by SGD / Adam; weight.grad densifies it on demand)."""
    if not isinstance(x, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("[embedding] expected x and weight to be paddle.Tensor")
    if len(weight.shape) != 2:
        raise ValueError(f"[embedding] expected a 2-D weight, received shape {weight.shape}")
    return _ops.embedding(x, weight, _padding_idx(padding_idx, weight.shape[0]), bool(sparse))
