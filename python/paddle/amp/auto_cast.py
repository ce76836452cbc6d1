"""paddle.amp.auto_cast and paddle.amp.decorate. auto_cast hands the C op runner (csrc/ops/amp.c)
this thread's level, low dtype and one class byte per op (white / black / gray, built from
Paddle 2.3's op lists plus the custom lists); the runner then casts each op's float inputs
(through the cast op, so autograd records the casts). Unlike Paddle 2.3, which warns and turns
AMP off on CPU, mixed precision really runs here (float16 and bfloat16).
decorate(level='O2') casts the models' parameters to the low dtype (norm layers keep float32,
as Paddle does), turns on float32 master weights in the optimizers, and save_dtype makes
state_dict() return that dtype."""
import threading

from .. import _C
from ..framework.dtype import convert_dtype

__all__ = ["auto_cast", "decorate"]

# Paddle 2.3's lists (python/paddle/fluid/dygraph/amp/auto_cast.py), by Paddle op name.
WHITE_LIST = {"conv2d", "matmul", "matmul_v2", "mul"}
BLACK_LIST = {
    "exp", "square", "log", "mean", "sum", "cos_sim", "softmax", "softmax_with_cross_entropy",
    "sigmoid_cross_entropy_with_logits", "c_softmax_with_cross_entropy", "cross_entropy",
    "cross_entropy2", "reduce_sum", "linear_interp_v2", "nearest_interp_v2",
    "bilinear_interp_v2", "bicubic_interp_v2", "trilinear_interp_v2",
}
PURE_FP16_WHITE_LIST = set()
# O2 float16: Paddle's pure-fp16 black list, plus the O1 black list: Paddle 2.3 runs those ops
# with float16 kernels that compute in float32 inside; without such kernels here, float32 is the
# numerically equivalent choice (only their output dtype differs from Paddle's).
PURE_FP16_BLACK_LIST = {"lookup_table", "lookup_table_v2", "scatter", "scatter_grad"} | BLACK_LIST
BF16_WHITE_LIST = {"conv2d", "matmul_v2"}
BF16_BLACK_LIST = set()

# Paddle op names -> the op names of this engine's op table (others are looked up as they are).
_OP_ALIASES = {
    "matmul_v2": "matmul", "mul": "matmul", "depthwise_conv2d": "conv2d",
    "softmax_with_cross_entropy": "cross_entropy_with_softmax",
    "c_softmax_with_cross_entropy": "cross_entropy_with_softmax",
    "reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
    "reduce_prod": "prod", "reduce_all": "all", "reduce_any": "any",
    "elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
    "elementwise_div": "divide", "elementwise_pow": "elementwise_pow",
    "elementwise_max": "maximum", "elementwise_min": "minimum", "elementwise_mod": "remainder",
    "elementwise_floordiv": "floor_divide",
    "lookup_table": "embedding", "lookup_table_v2": "embedding",
    "linear_interp_v2": "interp", "nearest_interp_v2": "interp", "bilinear_interp_v2": "interp",
    "bicubic_interp_v2": "interp", "trilinear_interp_v2": "interp",
    "fill_any_like": "full", "fill_constant": "full", "transpose2": "transpose",
    "reshape2": "reshape", "squeeze2": "squeeze", "unsqueeze2": "unsqueeze",
    "flatten_contiguous_range": "flatten", "top_k_v2": "topk", "arg_max": "argmax",
    "arg_min": "argmin", "pool2d": "pool2d", "pool3d": "pool3d", "dropout": "dropout",
}
# Only the input X decides and is cast; statistics stay float32 (Paddle's rule for these ops).
_X_ONLY = ("batch_norm", "layer_norm")
_GRAY, _WHITE, _BLACK, _X_ONLY_BIT = 0, 1, 2, 4
_LEVELS = {"O0": 0, "O1": 1, "O2": 2}

_op_ids = None
_tls = threading.local()


def _ids():
    global _op_ids
    if _op_ids is None:
        _op_ids = _C._op_ids()
    return _op_ids


def _op_id(name):
    ids = _ids()
    return ids.get(_OP_ALIASES.get(name, name))


def _class_bytes(white, black):
    ids = _ids()
    cls = bytearray(len(ids))
    for name in _X_ONLY:
        cls[ids[name]] |= _X_ONLY_BIT
    for name in white:
        i = _op_id(name)
        if i is not None:
            cls[i] = (cls[i] & _X_ONLY_BIT) | _WHITE
    for name in black:
        i = _op_id(name)
        if i is not None:
            cls[i] = (cls[i] & _X_ONLY_BIT) | _BLACK
    return bytes(cls)


def _default_lists(level, dtype):
    if dtype == "float16":
        if level == "O2":
            return set(PURE_FP16_WHITE_LIST), set(PURE_FP16_BLACK_LIST)
        return set(WHITE_LIST), set(BLACK_LIST)
    return set(BF16_WHITE_LIST), set(BF16_BLACK_LIST)


def _as_names(v, what):
    if v is None:
        return set()
    if isinstance(v, str) or not isinstance(v, (set, list, tuple, frozenset)):
        raise TypeError(f"auto_cast: {what} must be a set, list or tuple of op names, received "
                        f"{type(v).__name__}")
    return set(v)


def _update_list(custom_white_list, custom_black_list, level, dtype):
    """Paddle's rule: a custom white name leaves the black list, a custom black name leaves the
    white list; a name on both custom lists is a ValueError."""
    white, black = _default_lists(level, dtype)
    cw = _as_names(custom_white_list, "custom_white_list")
    cb = _as_names(custom_black_list, "custom_black_list")
    if cw & cb:
        raise ValueError("Custom white list overlap custom black list")
    for name in cw:
        black.discard(name)
        white.add(name)
    for name in cb:
        white.discard(name)
        black.add(name)
    return white, black


def _current():
    state = getattr(_tls, "state", None)
    return state if state is not None else (0, convert_dtype("float16")._code, b"")


def _apply(state):
    _tls.state = state
    _C._amp_set(*state)


def _amp_level():
    """This thread's auto_cast level name ('O0' when off)."""
    return ("O0", "O1", "O2")[_current()[0]]


class _Suspended:
    """Runs framework-internal ops (loss scaling, parameter casts) without auto_cast."""

    def __enter__(self):
        self._prev = _current()
        if self._prev[0]:
            _apply((0, self._prev[1], b""))
        return self

    def __exit__(self, *exc):
        if self._prev[0]:
            _apply(self._prev)
        return False


_BF16_CODE = [convert_dtype("bfloat16")._code]


def _matmul_low_dtype():
    """'bfloat16' while this thread's auto_cast(dtype='bfloat16') runs matmul in bfloat16 (white at
    O1, not black at O2), else None. MultiHeadAttention's fused core (one op for Paddle's matmul,
    softmax, dropout, matmul sequence) then takes bfloat16 q, k, v as Paddle's matmul ops would."""
    level, code, cls = _current()
    if not level or code != _BF16_CODE[0]:
        return None
    i = _op_id("matmul")
    c = cls[i] & 3 if i is not None and i < len(cls) else _GRAY
    return "bfloat16" if c == _WHITE or (level == 2 and c != _BLACK) else None
_bf16_noted = []


def _bf16_fallback_note():
    """Once per process, where the CPU has no bfloat16 units (avx512_bf16 / AMX): says what runs.
    bfloat16 ops run the float32 kernels on bfloat16-rounded inputs and round their outputs (the
    numerics of a bf16 unit accumulating in float32, as oneDNN computes bf16 without the units),
    so results are bfloat16's, but there is no speed-up over float32 (docs/arch/autograd_training.md, "CNN
    training speed and memory")."""
    if _bf16_noted:
        return
    _bf16_noted.append(True)
    if not _C.isa_info()["bf16_units"]:
        import warnings
        warnings.warn("auto_cast(dtype='bfloat16'): this CPU has no bfloat16 units (avx512_bf16 / AMX); "
                      "bfloat16 ops fall back to float32 kernels on bfloat16-rounded inputs and outputs "
                      "(bfloat16 results, no speed-up over float32)", UserWarning, stacklevel=3)


class auto_cast:  # noqa: N801  (Paddle's name; a context manager and a decorator)
    """with paddle.amp.auto_cast(): ops in the block run in mixed precision.

    enable: turn AMP on (False: the block runs in float32, as level 'O0').
    custom_white_list / custom_black_list: op names (Paddle's, e.g. 'elementwise_add', or this
    engine's, e.g. 'add') moved onto the white (low precision) or black (float32) list.
    level: 'O1' (white-list ops in low precision, black-list ops in float32, others in the
    widest dtype of their inputs) or 'O2' (every op except the black list in low precision).
    dtype: 'float16' or 'bfloat16'."""

    def __init__(self, enable=True, custom_white_list=None, custom_black_list=None, level="O1",
                 dtype="float16"):
        if not isinstance(level, str) or level.upper() not in _LEVELS:
            raise ValueError("level should be O0, O1 or O2. O0 represents fp32 train mode, O1 "
                             "represents AMP train mode, O2 represents pure fp16/bf16 train mode.")
        if not isinstance(dtype, str) or dtype.lower() not in ("float16", "bfloat16"):
            raise ValueError("dtype should be 'float16' or 'bfloat16'.")
        level, dtype = level.upper(), dtype.lower()
        white, black = _update_list(custom_white_list, custom_black_list, level, dtype)
        self._level = _LEVELS[level] if enable else 0
        self._code = convert_dtype(dtype)._code
        self._cls = _class_bytes(white, black) if self._level else b""
        self._white, self._black = white, black
        self._prev = []

    def __enter__(self):
        if self._level and self._code == _BF16_CODE[0]:
            _bf16_fallback_note()
        self._prev.append(_current())
        _apply((self._level, self._code, self._cls))
        return self

    def __exit__(self, *exc):
        _apply(self._prev.pop())
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


# ---------------------------------------------------------------------------- decorate
class _StateDictHook:
    """Makes state_dict() hold floating tensors in save_dtype (the parameters keep theirs)."""

    def __init__(self, save_dtype):
        self._save_dtype = save_dtype

    def __call__(self, state_dict):
        for key, t in list(state_dict.items()):
            if isinstance(t, _C.Tensor) and t.dtype.name in _FLOATS and t.dtype.name != self._save_dtype:
                with _Suspended():
                    c = t.astype(self._save_dtype)
                c.name = getattr(t, "name", None)
                state_dict[key] = c


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _norm_layer_types():
    from ..nn import BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, LayerNorm, SyncBatchNorm
    return (BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, LayerNorm, SyncBatchNorm)


def _cast_layer_own(layer, dtype):
    """Casts the layer's own floating parameters and buffers (not its sublayers') in place:
    the Parameter objects stay the same, so optimizers that hold them see the new dtype."""
    from .. import no_grad
    with no_grad(), _Suspended():
        for t in list(layer._parameters.values()) + list(layer._buffers.values()):
            if t is not None and t.dtype.name in ("float32", "float64") and t.dtype.name != dtype:
                t._set_view_of(t.astype(dtype))
                if getattr(t, "grad", None) is not None:
                    t.clear_gradient(False)
    object.__setattr__(layer, "_dtype", dtype)


def _check_models(models):
    from ..nn import Layer
    for m in models:
        if not isinstance(m, Layer):
            raise RuntimeError("Current train mode is pure fp16, models should be paddle.nn.Layer, "
                               f"but receive {type(m)}.")


def _check_optimizers(optimizers):
    from ..optimizer.optimizer import Optimizer
    for o in optimizers:
        if not isinstance(o, Optimizer):
            raise RuntimeError("Current train mode is pure fp16, optimizers should be "
                               f"paddle.optimizer.Optimizer, but receive {type(o)}.")


def decorate(models, optimizers=None, level="O1", master_weight=None, save_dtype=None,
             dtype="float16"):
    """Prepares models (and optimizers) for pure low-precision training. level='O1' returns
    them unchanged; level='O2' casts every parameter to float16 (dtype='bfloat16': bfloat16)
    except those of BatchNorm*/LayerNorm/SyncBatchNorm layers, and
    makes the optimizers keep float32 master weights unless master_weight is False.
    save_dtype ('float16', 'bfloat16', 'float32', 'float64'): state_dict() returns that dtype.
    Returns what it was given: a model or a list, with the optimizer(s) when given."""
    from ..nn import Layer
    from ..optimizer.optimizer import Optimizer
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent AMP train mode, O2 represent "
                         "Pure fp16 train mode.")
    if not isinstance(dtype, str) or dtype.lower() not in ("float16", "bfloat16"):
        raise TypeError("dtype only support float16 or bfloat16.")
    dtype = dtype.lower()
    if level == "O1":
        return models if optimizers is None else (models, optimizers)
    if isinstance(models, Layer):
        models_list, models_is_list = [models], False
    elif isinstance(models, list):
        models_list, models_is_list = models, True
    else:
        raise TypeError("models must be either a single model or a list of models.")
    _check_models(models_list)
    # norm layers keep float32 parameters for bfloat16 too (Paddle casts them there): their
    # kernels here are float32 and update the running statistics in place
    norms = _norm_layer_types()
    for model in models_list:
        for layer in model.sublayers(include_self=True):
            layer._casted_by_pure_fp16 = True
            if layer._dtype == dtype or isinstance(layer, norms):
                continue
            _cast_layer_own(layer, dtype)
    opt_list, opt_is_list = None, False
    if optimizers is not None:
        if isinstance(optimizers, Optimizer):
            opt_list = [optimizers]
        elif isinstance(optimizers, list):
            opt_list, opt_is_list = optimizers, True
        else:
            raise TypeError("optimizers must be either a single optimizer or a list of optimizers.")
        _check_optimizers(opt_list)
        for opt in opt_list:
            if hasattr(opt, "_multi_precision"):
                opt._multi_precision = master_weight is not False
    if save_dtype is not None:
        if save_dtype not in _FLOATS:
            raise ValueError("save_dtype can only be float16 float32 or float64, but your input "
                             f"save_dtype is {save_dtype}.")
        for model in models_list:
            for layer in model.sublayers(include_self=True):
                layer.register_state_dict_hook(_StateDictHook(save_dtype))
    out_models = models_list if models_is_list else models_list[0]
    if opt_list is None:
        return out_models
    return out_models, (opt_list if opt_is_list else opt_list[0])
