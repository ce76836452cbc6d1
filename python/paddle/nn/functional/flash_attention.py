"""paddle.nn.functional.flash_attention (Paddle 2.5+): scaled_dot_product_attention, the
module's flash_attention and sdp_kernel. Inputs are [batch, seq_len, num_heads, head_dim]; the
work is the C attention kernel behind nn.MultiHeadAttention (attention_core: QK^T, scale, mask,
softmax, dropout, PV, with its backward), which takes the heads as [batch, seq_len, heads * dim]:
the same memory, so no transpose is made. Real Paddle 2.6.2's CPU build runs only the unmasked,
non-causal case (causal raises "only supports GPU", a mask crashes it); here every case runs.
A bool attn_mask keeps True positions (as Paddle's MultiHeadAttention); a float one is added to
the scores. is_causal masks key j > query i (top-left aligned)."""
import contextlib

from ...framework.dtype import convert_dtype as _convert_dtype

__all__ = ["scaled_dot_product_attention", "sdp_kernel"]


def _p():
    import paddle
    return paddle


def _check4(t, name, op):
    p = _p()
    if not isinstance(t, p.Tensor):
        raise TypeError(f"[{op}] {name} must be a paddle.Tensor, received {type(t).__name__}")
    if t.ndim != 4:
        raise ValueError(f"[{op}] {name} must be 4-D [batch, seq_len, num_heads, head_dim], received shape {t.shape}")


def _attention(query, key, value, attn_mask, dropout_p, is_causal, training, op):
    p = _p()
    for t, n in ((query, "query"), (key, "key"), (value, "value")):
        _check4(t, n, op)
    B, Tq, H, D = query.shape
    Bk, Tk, Hk, Dk = key.shape
    if (Bk, Hk, Dk) != (B, H, D) or value.shape[0] != B or value.shape[1] != Tk or value.shape[2] != H:
        raise ValueError(f"[{op}] expected key [{B}, Tk, {H}, {D}] and value [{B}, Tk, {H}, Dv] for query "
                         f"{query.shape}, received key {key.shape} and value {value.shape}")
    if not (query.dtype == key.dtype == value.dtype):
        raise TypeError(f"[{op}] query, key and value must have one dtype, received {query.dtype}, {key.dtype}, "
                        f"{value.dtype}")
    dname = _convert_dtype(query.dtype).name
    if dname not in ("float32", "float64"):
        # float16 / bfloat16 (the GPU flash kernels' dtypes): computed in float32 and cast back
        out, probs = _attention(query.astype("float32"), key.astype("float32"), value.astype("float32"),
                                attn_mask if attn_mask is None or attn_mask.dtype == p.bool
                                else attn_mask.astype("float32"), dropout_p, is_causal, training, op)
        return out.astype(query.dtype), probs.astype(query.dtype)
    mask = None
    if attn_mask is not None:
        if attn_mask.dtype == p.bool:
            mask = p.where(attn_mask, p.zeros([], dname), p.full([], float("-inf"), dname))
        else:
            mask = attn_mask.astype(dname)
        if mask.ndim > 4:
            raise ValueError(f"[{op}] attn_mask must have at most 4 dims, received shape {attn_mask.shape}")
        ms = [1] * (4 - mask.ndim) + list(mask.shape)
        if ms[0] not in (1, B) or ms[1] not in (1, H) or ms[2] not in (1, Tq) or ms[3] not in (1, Tk):
            raise ValueError(f"[{op}] attn_mask of shape {attn_mask.shape} does not broadcast to the scores "
                             f"[{B}, {H}, {Tq}, {Tk}]")
        mask = mask.reshape(ms)
    if is_causal:
        causal = p.triu(p.full([Tq, Tk], float("-inf"), dname), 1).reshape([1, 1, Tq, Tk])
        mask = causal if mask is None else mask + causal
    if mask is not None and (mask.shape[2] != Tq or mask.shape[3] != Tk):
        mask = mask.expand([mask.shape[0], mask.shape[1], Tq, Tk])
    drop = float(dropout_p) if training else 0.0
    if not 0.0 <= drop < 1.0:
        raise ValueError(f"[{op}] dropout_p must be in [0, 1), received {dropout_p}")
    q = query.reshape([B, Tq, H * D])
    k = key.reshape([B, Tk, H * D])
    v = value.reshape([B, Tk, H * value.shape[3]])
    out, probs, _ = _p()._C_ops.attention_core(q, k, v, H, float(D) ** -0.5, drop, 0, mask)
    return out.reshape([B, Tq, H, value.shape[3]]), probs


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True,
                                 name=None):
    """softmax(Q K^T / sqrt(d) + mask) V per head, for [batch, seq_len, num_heads, head_dim]
    inputs (the result has value's head_dim)."""
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, training,
                      "scaled_dot_product_attention")[0]


def flash_attention(query, key, value, dropout=0.0, causal=False, return_softmax=False, *, fixed_seed_offset=None,
                    rng_name="", training=True, name=None):
    """(out, softmax or None): scaled dot-product attention; softmax ([batch, heads, seq_q,
    seq_k], before dropout) when return_softmax."""
    out, probs = _attention(query, key, value, None, dropout, causal, training, "flash_attention")
    return out, (probs if return_softmax else None)


@contextlib.contextmanager
def sdp_kernel(enable_math=False, enable_flash=True, enable_mem_efficient=True):
    """Chooses the attention backend on GPUs; this CPU build has one (the C attention kernel),
    used whatever is enabled."""
    yield
