"""Attention layers (Paddle 2.3's paddle.nn transformer family): MultiHeadAttention with its
Cache / StaticCache for incremental decoding, TransformerEncoderLayer / TransformerEncoder,
TransformerDecoderLayer / TransformerDecoder and Transformer. Masks are bool/int (True keeps a
position) or float (added to the attention scores), broadcast to [batch, heads, q_len, k_len]."""
import collections
import copy
import os

import numpy as np

from ... import _C
from ...framework.dtype import get_default_dtype
from ...framework.param_attr import ParamAttr
from ...tensor import creation as _cr
from ...tensor import linalg as _la
from ...tensor import manipulation as _mp
from ...tensor import math as _m
from ...tensor.softmax_ops import softmax as _softmax
from ...tensor.to_tensor import to_tensor as _to_tensor
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm
from .rnn import _dropout

_ops = _C._C_ops
Tensor = _C.Tensor

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


def _activation(name):
    from .. import functional as F
    fn = getattr(F, name, None)
    if fn is None:
        raise ValueError(f"activation {name!r} is not available in paddle.nn.functional")
    return fn


def _convert_param_attr_to_list(param_attr, n):
    """One attr per sublayer: a list/tuple gives them (a 1-element one is shared), a bool
    switches all on/off, anything else is copied (a name gets the suffix _i)."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) == 1:
            param_attr = list(param_attr) * n
        if len(param_attr) != n:
            raise ValueError(f"expected {n} parameter attributes, received {len(param_attr)}")
        return [(ParamAttr._to_attr(None) if a else False) if isinstance(a, bool) else ParamAttr._to_attr(a)
                for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if getattr(attr, "name", None):
            a.name = f"{attr.name}_{i}"
        out.append(a)
    return out


def _convert_attention_mask(attn_mask, dtype):
    """bool/int masks (nonzero: attend) -> additive float masks (0 or -1e9); float masks as is."""
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, Tensor):
        raise TypeError(f"attn_mask should be a Tensor, received {type(attn_mask).__name__}")
    name = dtype.name if hasattr(dtype, "name") else str(dtype)
    if attn_mask.dtype.name in ("bool", "int8", "int16", "int32", "int64", "uint8"):
        return (_m.cast(attn_mask, name) - 1.0) * 1e9
    if attn_mask.dtype.name != name:
        return _m.cast(attn_mask, name)
    return attn_mask


# ---------------------------------------------------------------- attention
class MultiHeadAttention(Layer):
    """Multi-head scaled dot-product attention (Paddle 2.3). forward(query, key=None, value=None,
    attn_mask=None, cache=None) -> out, or a tuple (out[, weights][, new cache])."""
    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        if not isinstance(embed_dim, int) or embed_dim <= 0:
            raise ValueError(f"embed_dim must be a positive integer, received {embed_dim!r}")
        if not isinstance(num_heads, int) or num_heads <= 0:
            raise ValueError(f"num_heads must be a positive integer, received {num_heads!r}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise ValueError(f"embed_dim must be divisible by num_heads, received {embed_dim} and {num_heads}")
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        """[B, L, E] -> [B, heads, L, head_dim]."""
        # 0: keep batch and length (unknown in a program with variable shapes), as Paddle does
        return _mp.transpose(_mp.reshape(x, [0, 0, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def _prepare_qkv(self, query, key, value, cache=None):
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _mp.concat([cache.k, k], axis=2)
            v = _mp.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return (q, k, v) if cache is None else (q, k, v, cache)

    def compute_kv(self, key, value):
        """Projected keys and values, [B, heads, L, head_dim] each."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002  (Paddle's argument name)
        """StaticCache: keys/values projected from key/value once (cross attention). Cache with
        value None: empty [B, heads, 0, head_dim] keys/values that grow by one step per call;
        Cache with a value: Cache(key, value) as given."""
        if type == MultiHeadAttention.StaticCache:
            k, v = self.compute_kv(key, value if value is not None else key)
            return self.StaticCache(k, v)
        if type != MultiHeadAttention.Cache:
            raise ValueError("gen_cache: type should be MultiHeadAttention.Cache or MultiHeadAttention.StaticCache")
        if value is None:
            from ...tensor import static_shape as _ss
            shape = [_ss.dim(key, 0), self.num_heads, 0, self.head_dim]
            return self.Cache(_cr.zeros(shape, dtype=key.dtype), _cr.zeros(shape, dtype=key.dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        for nm, t, d in (("query", query, self.embed_dim), ("key", key, self.kdim), ("value", value, self.vdim)):
            if not isinstance(t, Tensor) or len(t.shape) != 3 or t.shape[-1] != d:
                raise ValueError(f"MultiHeadAttention: {nm} should be a [batch, length, {d}] Tensor, received "
                                 f"{getattr(t, 'shape', type(t).__name__)}")
        if cache is None:
            fused = _fused_attention(self, query, key, value, attn_mask)
            if fused is not None:
                return fused
            q, k, v = self._prepare_qkv(query, key, value, cache)
        else:
            q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = _la.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = _softmax(product)
        if self.dropout:
            weights = _dropout(weights, self.dropout, self.training)
        out = _la.matmul(weights, v)
        out = _mp.transpose(out, [0, 2, 1, 3])
        out = _mp.reshape(out, [0, 0, self.embed_dim])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


_FUSED = os.environ.get("PADDLE_C_FUSED_ATTENTION", "1") != "0"


def _fused_attention(mha, query, key, value, attn_mask):
    """The attention core as one op (attention_core: strided per-head GEMMs on the projections,
    softmax, dropout and the output in its [B, T, E] layout without reshape/transpose copies; a
    fused backward) in dygraph for float32/float64/bfloat16 without a cache (under
    auto_cast(dtype='bfloat16') q, k, v and the mask are cast to bfloat16 first, as Paddle's matmul
    ops would see them); None where it does not apply (static programs and jit tracing keep
    Paddle's op sequence; other dtypes, e.g. float16; masks that do not broadcast as
    [1|B, 1|heads, Tq, Tk]).
    PADDLE_C_FUSED_ATTENTION=0 turns it off."""
    if not _FUSED:
        return None
    from ...static.framework import in_dynamic_mode
    from ...jit.program_translator import _tracing
    if not in_dynamic_mode() or _tracing():
        return None
    dt = query.dtype.name
    if dt not in ("float32", "float64", "bfloat16"):
        return None
    q, k, v = mha.q_proj(query), mha.k_proj(key), mha.v_proj(value)
    if dt != "float64" and q.place.is_cpu_place():
        # under auto_cast(dtype='bfloat16') Paddle's QK^T and PV matmuls run in bfloat16 (at O1 the
        # projections' bias add gives float32; at O2 a float32 input gives bfloat16 projections):
        # the fused core then does too (the CPU kernel; the GPU one is float32/float64)
        from ...amp.auto_cast import _matmul_low_dtype
        if _matmul_low_dtype() == "bfloat16":
            dt = "bfloat16"
            q, k, v = (t if t.dtype.name == dt else _m.cast(t, dt) for t in (q, k, v))
    if q.dtype.name != dt or k.dtype.name != dt or v.dtype.name != dt:
        return None
    mask = None
    if attn_mask is not None:
        mask = _convert_attention_mask(attn_mask, q.dtype)
        ms = list(mask.shape)
        if len(ms) > 4 or mask.dtype.name != dt:
            return None
        ms = [1] * (4 - len(ms)) + ms
        B, Tq, Tk, H = q.shape[0], q.shape[1], k.shape[1], mha.num_heads
        if ms[0] not in (1, B) or ms[1] not in (1, H) or ms[2] not in (1, Tq) or ms[3] not in (1, Tk):
            return None
        if len(mask.shape) != 4:
            mask = _mp.reshape(mask, ms)
        if ms[2] != Tq or ms[3] != Tk:  # e.g. a padding mask [B, 1, 1, Tk]: rows made explicit
            mask = _mp.expand(mask, [ms[0], ms[1], Tq, Tk])
    p = float(mha.dropout) if (mha.dropout and mha.training) else 0.0
    out, probs, keep = _ops.attention_core(q, k, v, mha.num_heads, mha.head_dim ** -0.5, p, 0, mask)
    out = mha.out_proj(out)
    if not mha.need_weights:
        return out
    if p == 0.0:
        return out, probs
    # the dropout op's arithmetic: kept / (T)(1.0f - p)
    kf = float(np.float32(1.0) - np.float32(p))
    weights = _ops.divide(probs * _m.cast(keep, dt), _ops.full_like(probs, kf, dt))
    return out, weights


# ---------------------------------------------------------------- encoder
def _layer_config(loc):
    cfg = dict(loc)
    cfg.pop("self", None)
    cfg.pop("__class__", None)
    return cfg


class TransformerEncoderLayer(Layer):
    """Self attention then a feed-forward block, each with residual, dropout and LayerNorm
    (post-norm, or pre-norm with normalize_before). forward(src, src_mask=None, cache=None)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None):
        self._config = _layer_config(locals())
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 2)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """num_layers copies of encoder_layer (the first is the given one; the others are built from
    its constructor arguments, so they have their own parameters) and an optional final norm."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, src_mask=src_mask)
            else:
                output, new_cache = mod(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


# ---------------------------------------------------------------- decoder
class TransformerDecoderLayer(Layer):
    """Self attention, cross attention over the encoder memory, feed-forward; each with
    residual, dropout and LayerNorm. forward(tgt, memory, tgt_mask=None, memory_mask=None,
    cache=None); cache is (Cache, StaticCache) from gen_cache(memory)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None):
        self._config = _layer_config(locals())
        super().__init__()
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 3)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        incremental_cache = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static_cache = self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache)
        return incremental_cache, static_cache


class TransformerDecoder(Layer):
    """num_layers decoder layers (copies built from decoder_layer's arguments) and an optional
    final norm. forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, mod in enumerate(self.layers):
            if cache is None:
                output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        if do_zip:
            cache = list(zip(*cache))
        return cache


def _split_attr(attr):
    """Transformer's weight_attr/bias_attr: (encoder attrs, decoder attrs)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return [attr[0]], [attr[0]]
        if len(attr) == 2:
            return list(attr), [attr[0], attr[0], attr[-1]]
        if len(attr) == 3:
            return [attr[0], attr[-1]], list(attr)
        raise ValueError(f"length of weight_attr/bias_attr should be 1, 2 or 3, received {len(attr)}")
    return attr, attr


class Transformer(Layer):
    """Encoder-decoder Transformer (Paddle 2.3). forward(src, tgt, src_mask=None, tgt_mask=None,
    memory_mask=None) -> [batch, tgt_len, d_model]."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        enc_w, dec_w = _split_attr(weight_attr)
        enc_b, dec_b = _split_attr(bias_attr)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, enc_w, enc_b)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, dec_w, dec_b)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] float mask: 0 on and below the diagonal, -inf above."""
        if isinstance(length, Tensor):
            length = int(length.numpy().reshape(-1)[0])
        m = np.triu(np.full((length, length), -np.inf), 1)
        return _to_tensor(m, dtype=get_default_dtype())
