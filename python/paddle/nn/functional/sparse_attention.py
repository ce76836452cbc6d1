"""paddle.nn.functional.sparse_attention (Paddle 2.3): attention restricted to a CSR sparsity
pattern. Computed densely: the pattern (and the optional key padding / attention masks, where a
zero value masks a position) becomes a boolean [B, H, M, M] mask on the host, the scaled scores
Q K^T / sqrt(D) outside it are excluded from the softmax, and the probabilities multiply V.
A composition of existing ops, so gradients reach query, key and value. Memory and time are
those of dense attention, O(M^2) per head; a row with no allowed position gives zeros (Paddle's
CUDA kernel leaves empty rows at zero and gives NaN for rows masked entirely)."""
import numpy as np

from ...framework.param import Tensor

__all__ = ["sparse_attention"]

_NEG = -1e30


def _csr_mask(offset, columns, m):
    off = offset.numpy().astype(np.int64)
    col = columns.numpy().astype(np.int64)
    B, H = off.shape[:2]
    mask = np.zeros((B, H, m, m), dtype=bool)
    nnz = col.shape[-1]
    for b in range(B):
        for h in range(H):
            o = off[b, h]
            if o[0] != 0 or np.any(np.diff(o) < 0) or o[-1] > nnz:
                raise ValueError("[sparse_attention] expected sparse_csr_offset to start at 0, be "
                                 f"non-decreasing and end at most at sparse_nnz={nnz}; received {o.tolist()} "
                                 f"for batch {b}, head {h}")
            c = col[b, h, :o[-1]]
            if c.size and (c.min() < 0 or c.max() >= m):
                raise ValueError(f"[sparse_attention] expected sparse_csr_columns in [0, {m}), received "
                                 f"values in [{c.min()}, {c.max()}]")
            rows = np.repeat(np.arange(m), np.diff(o))
            mask[b, h, rows, c] = True
    return mask


def sparse_attention(query, key, value, sparse_csr_offset, sparse_csr_columns, key_padding_mask=None,
                     attn_mask=None, name=None):
    """softmax(Q K^T / sqrt(D)) V over the positions of the CSR pattern. query, key, value:
    [batch_size, num_heads, seq_len, head_dim]; sparse_csr_offset [batch_size, num_heads,
    seq_len + 1] and sparse_csr_columns [batch_size, num_heads, sparse_nnz] (int32);
    key_padding_mask [batch_size, seq_len] and attn_mask [seq_len, seq_len]: 0 masks a position."""
    import paddle
    for n, t in (("query", query), ("key", key), ("value", value), ("sparse_csr_offset", sparse_csr_offset),
                 ("sparse_csr_columns", sparse_csr_columns)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[sparse_attention] expected {n} to be a paddle.Tensor, received {type(t).__name__}")
    if query.dtype.name not in ("float32", "float64"):
        raise TypeError(f"[sparse_attention] expected query of dtype float32 or float64, received {query.dtype.name}")
    if len(query.shape) != 4 or list(key.shape) != list(query.shape) or list(value.shape) != list(query.shape):
        raise ValueError("[sparse_attention] expected query, key and value of one shape [batch_size, num_heads, "
                         f"seq_len, head_dim], received {query.shape}, {key.shape}, {value.shape}")
    B, H, M, D = query.shape
    for n, t in (("sparse_csr_offset", sparse_csr_offset), ("sparse_csr_columns", sparse_csr_columns)):
        if t.dtype.name not in ("int32", "int64"):
            raise TypeError(f"[sparse_attention] expected {n} of dtype int32, received {t.dtype.name}")
    if list(sparse_csr_offset.shape) != [B, H, M + 1]:
        raise ValueError(f"[sparse_attention] expected sparse_csr_offset of shape {[B, H, M + 1]}, "
                         f"received {sparse_csr_offset.shape}")
    if len(sparse_csr_columns.shape) != 3 or list(sparse_csr_columns.shape[:2]) != [B, H]:
        raise ValueError(f"[sparse_attention] expected sparse_csr_columns of shape [{B}, {H}, sparse_nnz], "
                         f"received {sparse_csr_columns.shape}")
    mask = _csr_mask(sparse_csr_offset, sparse_csr_columns, M)
    if key_padding_mask is not None:
        if list(key_padding_mask.shape) != [B, M]:
            raise ValueError(f"[sparse_attention] expected key_padding_mask of shape {[B, M]}, "
                             f"received {key_padding_mask.shape}")
        mask &= (key_padding_mask.numpy() != 0)[:, None, None, :]
    if attn_mask is not None:
        if list(attn_mask.shape) != [M, M]:
            raise ValueError(f"[sparse_attention] expected attn_mask of shape {[M, M]}, received {attn_mask.shape}")
        mask &= (attn_mask.numpy() != 0)[None, None, :, :]
    dt = query.dtype.name
    keep = paddle.to_tensor(mask)
    scores = paddle.matmul(query, key, transpose_y=True) * (1.0 / float(np.sqrt(D)))
    scores = paddle.where(keep, scores, paddle.full([1], _NEG, dtype=dt))
    probs = paddle.nn.functional.softmax(scores, axis=-1) * paddle.to_tensor(mask.astype(dt))
    return paddle.matmul(probs, value)
