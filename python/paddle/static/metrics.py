"""paddle.static.accuracy and paddle.static.auc (Paddle 2.3's static metric layers). accuracy is
a composition of paddle ops (it works eagerly too); auc appends the C auc op (ops/metric.yaml)
twice, over persistable int64 bucket statistics the startup program zeroes: a sliding-window
batch AUC and a global AUC, as Paddle does."""
from .. import _C
from .framework import _init_in_startup, _in_static, default_main_program

Tensor = _C.Tensor


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-k accuracy of a batch: float32 [1] correct / total (Paddle's accuracy op). correct and
    total, when given, receive the int32 counts."""
    import paddle
    if not isinstance(input, Tensor) or not isinstance(label, Tensor):
        raise TypeError("accuracy: input and label must be Tensors (Variables in static mode)")
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"accuracy: label must be int32 or int64, received {label.dtype.name}")
    _, idx = paddle.topk(input, k=k)
    lab = label if label.ndim == idx.ndim else paddle.unsqueeze(label, -1)
    hit = paddle.any(paddle.equal(idx, paddle.cast(lab, idx.dtype)), axis=-1)
    num_correct = paddle.sum(paddle.cast(hit, "int32"))
    num_total = paddle.cast(paddle.slice(_C._C_ops.shape(hit), [0], [0], [1]), "int32")
    acc = paddle.divide(paddle.cast(num_correct, "float32"), paddle.cast(num_total, "float32"))
    for dst, src in ((correct, num_correct), (total, num_total)):
        if dst is not None:
            dst._copy_(paddle.cast(src, dst.dtype) if dst.dtype != src.dtype else src)
    return acc


def _stat_var(name, shape):
    """A persistable int64 variable of the main program, zeroed by the startup program."""
    from ..nn.initializer import Constant
    gb = default_main_program().global_block()
    d = gb.desc.var(name)
    d.set_shape(list(shape))
    d.set_dtype("int64")
    d.set_persistable(True)
    d.set_stop_gradient(True)
    _init_in_startup(name, shape, "int64", Constant(0))
    return d._tensor()


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1, ins_tag_weight=None):
    """Area under the ROC curve of input's positive-class probabilities (its last column) against
    label, accumulated over the batches a program runs. Returns (auc_out, batch_auc_out,
    [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]); the AUCs are float64 [1]."""
    from .. import _C_ops
    from ..utils import unique_name
    if not _in_static():
        raise RuntimeError("paddle.static.auc builds static-program ops: call paddle.enable_static() first "
                           "(paddle.metric.Auc is the dynamic-mode metric)")
    if curve not in ("ROC", "PR"):
        raise ValueError(f"auc: curve must be 'ROC' or 'PR', received {curve!r}")
    if input.dtype.name not in ("float32", "float64"):
        raise TypeError(f"auc: input must be float32 or float64, received {input.dtype.name}")
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"auc: label must be int32 or int64, received {label.dtype.name}")
    nt, slide = int(num_thresholds), int(slide_steps)
    if nt < 1:
        raise ValueError(f"auc: num_thresholds must be >= 1, received {nt}")
    if slide < 0:
        raise ValueError(f"auc: slide_steps must be >= 0, received {slide}")
    blen = (1 + slide) * (nt + 1) + 1
    batch_pos = _stat_var(unique_name.generate("auc_batch_stat_pos"), [blen])
    batch_neg = _stat_var(unique_name.generate("auc_batch_stat_neg"), [blen])
    stat_pos = _stat_var(unique_name.generate("auc_stat_pos"), [1, nt + 1])
    stat_neg = _stat_var(unique_name.generate("auc_stat_neg"), [1, nt + 1])
    batch_auc = _C_ops.auc(input, label, batch_pos, batch_neg, ins_tag_weight, curve, nt, slide)
    global_auc = _C_ops.auc(input, label, stat_pos, stat_neg, ins_tag_weight, curve, nt, 0)
    return global_auc, batch_auc, [batch_pos, batch_neg, stat_pos, stat_neg]
