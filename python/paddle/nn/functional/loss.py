"""Loss functions of paddle.nn.functional (Paddle 2.3 signatures and semantics). cross_entropy and
softmax_with_cross_entropy run the fused C op cross_entropy_with_softmax (stable log-softmax,
ignore_index, one-pass backward); class weights, reductions and the rest compose existing ops.
ctc_loss runs the C op warpctc (alpha-beta in log space); hsigmoid_loss gathers the weight rows
of each sample's tree path (paths built on the host) and composes ops, so autograd is free.
mean/sum reductions reduce every dim: shape [1] at the default API level (Paddle 2.3), 0-D with
FLAGS_set_to_1d off (Paddle 2.6), by the C scalar rule."""
import math

import numpy as np

from ..._C import _C_ops as _ops


def _p():
    import paddle
    return paddle


from ...tensor import static_shape as _ss  # noqa: E402


def _check_reduction(op, reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"[{op}] the value of 'reduction' should be one of {', '.join(map(repr, allowed))}, "
                         f"but received {reduction!r}")


def _total(x):
    return _p().sum(x)


def _mean(x):
    return _p().mean(x)


def _reduced(x, reduction):
    if reduction == "mean":
        return _mean(x)
    if reduction == "sum":
        return _total(x)
    return x


def _differ(a, b):
    """Two dims that certainly differ (a program's unknown dims, -1, may be anything)."""
    return a != b and a >= 0 and b >= 0


def _shapes_differ(a, b):
    return len(a) != len(b) or any(_differ(x, y) for x, y in zip(a, b))


def _same_shape(op, a, b, an="input", bn="label"):
    if _shapes_differ(a.shape, b.shape):
        raise ValueError(f"[{op}] expected {an} and {bn} to have the same shape, received {a.shape} and {b.shape}")


def _scalar_like(v, x):
    from ...tensor.to_tensor import scalar_shape
    return _p().full(scalar_shape(), v, dtype=x.dtype)


# ------------------------------------------------------------------ cross entropy
def _hard_label(op, input, label, axis):
    """label as [.., 1 at axis, ..] int64; returns (label, squeezed) where squeezed tells that the
    caller passed label without the class axis."""
    ax = axis if axis >= 0 else input.ndim + axis
    if not 0 <= ax < input.ndim:
        raise ValueError(f"[{op}] axis {axis} out of range for {input.ndim}-D input")
    squeezed = False
    if label.ndim == input.ndim - 1:
        label = _ops.unsqueeze(label, [ax])
        squeezed = True
    if label.ndim != input.ndim or _differ(label.shape[ax], 1) or any(
            _differ(label.shape[i], input.shape[i]) for i in range(input.ndim) if i != ax):
        raise ValueError(f"[{op}] expected label of shape {input.shape[:ax] + input.shape[ax + 1:]} or with 1 "
                         f"at axis {ax}, received {label.shape} for input {input.shape}")
    if label.dtype.name not in ("int64", "int32"):
        label = _ops.cast(label, _p().int64)
    return label, squeezed, ax


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """Softmax along axis and cross entropy against label (hard: class index with 1 at axis, or
    soft: probabilities of logits' shape). Returns loss (and softmax when return_softmax)."""
    op = "softmax_with_cross_entropy"
    if soft_label:
        _same_shape(op, logits, label, "logits", "label")
        ax = axis if axis >= 0 else logits.ndim + axis
    else:
        label, _, ax = _hard_label(op, logits, label, axis)
    sm, loss = _ops.cross_entropy_with_softmax(logits, label, bool(soft_label), int(ignore_index), ax)
    return (loss, sm) if return_softmax else loss


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                  use_softmax=True, label_smoothing=0.0, name=None):
    """Softmax cross entropy (Paddle 2.3 semantics): per-sample losses weighted by weight[label]
    (soft labels: label @ weight); 'mean' divides by the summed weights (no weight: by the sample
    count, the non-ignored count when ignore_index != -100). label_smoothing (later Paddle) turns
    hard labels into (1 - eps) one-hot + eps / C soft labels."""
    op = "cross_entropy"
    paddle = _p()
    _check_reduction(op, reduction)
    if input.ndim < 1:
        raise ValueError(f"[{op}] expected input with at least 1 dim")
    ax = axis if axis >= 0 else input.ndim + axis
    if not 0 <= ax < input.ndim:
        raise ValueError(f"[{op}] axis {axis} out of range for {input.ndim}-D input")
    C = input.shape[ax]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != C):
        raise ValueError(f"[{op}] expected weight of shape [{C}] (one per class), received {weight.shape}")
    squeezed = False
    mask = None
    if not soft_label:
        label, squeezed, _ = _hard_label(op, input, label, axis)
        if label_smoothing:
            mask = _ops.cast(label != ignore_index, input.dtype)
            shape = [1] * input.ndim
            shape[ax] = C
            ar = _ops.reshape(paddle.arange(C, dtype=label.dtype), shape)
            onehot = _ops.cast(_ops.equal(ar, label), input.dtype)
            hard_label, label = label, _ops.scale(onehot, 1.0 - label_smoothing, label_smoothing / C, True)
            soft_label = True
            squeezed = False  # Paddle 2.6: the soft-label path's [N, 1] losses, whatever the label's rank
    else:
        _same_shape(op, input, label)
        if label_smoothing:
            label = _ops.scale(label, 1.0 - label_smoothing, label_smoothing / C, True)
    if not 0.0 <= float(label_smoothing) <= 1.0:
        raise ValueError(f"[{op}] label_smoothing must be in [0, 1], received {label_smoothing}")
    if use_softmax:
        _, out = _ops.cross_entropy_with_softmax(input, label, bool(soft_label), int(ignore_index), ax)
    else:
        logp = _ops.log(input)
        if soft_label:
            out = _ops.neg(_ops.sum(_ops.multiply(label, logp), [ax], True))
        else:
            valid = _ops.cast(label != ignore_index, label.dtype)
            safe = _ops.multiply(label, valid)
            out = _ops.neg(_ops.multiply(_ops.take_along_axis(logp, safe, ax), _ops.cast(valid, input.dtype)))
    if mask is not None:
        out = _ops.multiply(out, mask)
    wg = None
    if weight is not None:
        if soft_label:
            shape = [1] * input.ndim
            shape[ax] = C
            wg = _ops.sum(_ops.multiply(label, _ops.reshape(weight, shape)), [ax], True)
            if mask is not None:
                wg = _ops.multiply(wg, mask)
        else:
            valid = _ops.cast(label != ignore_index, label.dtype)
            safe = _ops.multiply(label, valid)
            wg = _ss.reshape_to(_ops.gather(weight, _ops.reshape(safe, [-1]), 0), _ss.dims(label))
            wg = _ops.multiply(wg, _ops.cast(valid, wg.dtype))
        out = _ops.multiply(out, wg)
    if reduction == "sum":
        return _total(out)
    if reduction == "mean":
        if mask is not None or (not soft_label and ignore_index != -100):
            m = mask if mask is not None else _ops.cast(label != ignore_index, out.dtype)
            den = _total(m if wg is None else wg)
            return _total(out) / (den + _ops.cast(den == 0.0, den.dtype))
        if wg is not None:
            den = _total(wg)
            return _total(out) / (den + _ops.cast(den == 0.0, den.dtype))
        return _mean(out)
    if squeezed:
        out = _ops.squeeze(out, [ax])
    return out


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """-weight[label] * input[label] over [N, C] or [N, C, d1, ...] log-probabilities; 'mean'
    divides by the summed weights of the non-ignored samples."""
    op = "nll_loss"
    _check_reduction(op, reduction)
    if input.ndim < 2:
        raise ValueError(f"[{op}] expected input of at least 2 dims [N, C, ...], received {input.shape}")
    C = input.shape[1]
    if label.ndim != input.ndim - 1 or _differ(label.shape[0], input.shape[0]) or \
            _shapes_differ(label.shape[1:], input.shape[2:]):
        raise ValueError(f"[{op}] expected label of shape {[input.shape[0]] + list(input.shape[2:])}, received {label.shape}")
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != C):
        raise ValueError(f"[{op}] expected weight of shape [{C}], received {weight.shape}")
    label = _ops.cast(label, _p().int64) if label.dtype.name != "int64" else label
    valid = _ops.cast(label != ignore_index, label.dtype)
    safe = _ops.multiply(label, valid)
    picked = _ops.squeeze(_ops.take_along_axis(input, _ops.unsqueeze(safe, [1]), 1), [1])
    w = _ops.cast(valid, input.dtype)
    if weight is not None:
        w = _ops.multiply(_ss.reshape_to(_ops.gather(weight, _ops.reshape(safe, [-1]), 0), _ss.dims(label)), w)
    out = _ops.neg(_ops.multiply(picked, w))
    if reduction == "sum":
        return _total(out)
    if reduction == "mean":
        den = _total(w)
        return _total(out) / (den + _ops.cast(den == 0.0, den.dtype))
    return out


# ------------------------------------------------------------------ regression losses
def mse_loss(input, label, reduction="mean", name=None):
    _check_reduction("mse_loss", reduction)
    _same_shape("mse_loss", input, label)
    return _reduced(_ops.square(_ops.subtract(input, label)), reduction)


def square_error_cost(input, label):
    """(input - label)^2 elementwise."""
    return _ops.square(_ops.subtract(input, label))


def l1_loss(input, label, reduction="mean", name=None):
    _check_reduction("l1_loss", reduction)
    _same_shape("l1_loss", input, label)
    return _reduced(_ops.abs(_ops.subtract(input, label)), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):
    """0.5 z^2 if |z| < delta else delta (|z| - 0.5 delta), z = input - label (Paddle's form)."""
    _check_reduction("smooth_l1_loss", reduction)
    _same_shape("smooth_l1_loss", input, label)
    delta = float(delta)
    if delta <= 0:
        raise ValueError(f"[smooth_l1_loss] delta must be positive, received {delta}")
    z = _ops.abs(_ops.subtract(input, label))
    c = _ops.clip(z, 0.0, delta)  # min(|z|, delta): 0.5 c^2 + delta (|z| - c)
    out = _ops.add(_ops.scale(_ops.square(c), 0.5, 0.0, True), _ops.scale(_ops.subtract(z, c), delta, 0.0, True))
    return _reduced(out, reduction)


def log_loss(input, label, epsilon=0.0001, name=None):
    """-label log(input + eps) - (1 - label) log(1 - input + eps), evaluated as (1 - input) + eps:
    1 + eps rounded first would lose eps's low digits (float32: log(1e-4) off by 1.7e-5 at input 1)."""
    a = _ops.multiply(label, _ops.log(_ops.scale(input, 1.0, epsilon, True)))
    one_m = _ops.scale(input, -1.0, 1.0, True)
    b = _ops.multiply(_ops.scale(label, -1.0, 1.0, True), _ops.log(_ops.scale(one_m, 1.0, epsilon, True)))
    return _ops.neg(_ops.add(a, b))


# ------------------------------------------------------------------ binary / probabilistic
def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-weight (label log(p) + (1 - label) log(1 - p)); the logs are clamped at -100 as in Paddle."""
    op = "binary_cross_entropy"
    _check_reduction(op, reduction)
    _same_shape(op, input, label)
    lp = _ops.clip(_ops.log(input), -100.0, math.inf)
    lq = _ops.clip(_ops.log(_ops.scale(input, -1.0, 1.0, True)), -100.0, math.inf)
    out = _ops.neg(_ops.add(_ops.multiply(label, lp), _ops.multiply(_ops.scale(label, -1.0, 1.0, True), lq)))
    if weight is not None:
        out = _ops.multiply(out, weight)
    return _reduced(out, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean", pos_weight=None, name=None):
    """Stable sigmoid + BCE: (1 - l) x + (1 + (pw - 1) l) softplus(-x)."""
    op = "binary_cross_entropy_with_logits"
    _check_reduction(op, reduction)
    _same_shape(op, logit, label, "logit", "label")
    sp = _ops.softplus(_ops.neg(logit), 1.0, math.inf)  # log(1 + exp(-x)), stable
    if pos_weight is not None:
        coef = _ops.add(_ops.multiply(_ops.scale(pos_weight, 1.0, -1.0, True), label), _scalar_like(1.0, logit))
        sp = _ops.multiply(sp, coef)
    out = _ops.add(_ops.multiply(_ops.scale(label, -1.0, 1.0, True), logit), sp)
    if weight is not None:
        out = _ops.multiply(out, weight)
    return _reduced(out, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum", name=None):
    """Focal loss: bce_with_logits * (1 - p_t)^gamma * alpha_t, divided by normalizer."""
    op = "sigmoid_focal_loss"
    _check_reduction(op, reduction)
    _same_shape(op, logit, label, "logit", "label")
    if normalizer is not None and (normalizer.ndim != 1 or normalizer.shape[0] != 1):
        raise ValueError(f"[{op}] expected normalizer of shape [1], received {normalizer.shape}")
    p = _ops.sigmoid(logit)
    ce = binary_cross_entropy_with_logits(logit, label, reduction="none")
    one_m_l = _ops.scale(label, -1.0, 1.0, True)
    p_t = _ops.add(_ops.multiply(p, label), _ops.multiply(_ops.scale(p, -1.0, 1.0, True), one_m_l))
    out = _ops.multiply(ce, _ops.pow(_ops.scale(p_t, -1.0, 1.0, True), float(gamma)))
    if alpha is not None and alpha >= 0:
        a_t = _ops.add(_ops.scale(label, alpha, 0.0, True), _ops.scale(one_m_l, 1.0 - alpha, 0.0, True))
        out = _ops.multiply(out, a_t)
    if normalizer is not None:
        out = _ops.divide(out, normalizer)
    return _reduced(out, reduction)


def kl_div(input, label, reduction="mean", name=None):
    """label * (log(label) - input) (0 where label <= 0); 'batchmean' divides the sum by N."""
    op = "kl_div"
    _check_reduction(op, reduction, ("none", "mean", "sum", "batchmean"))
    _same_shape(op, input, label)
    pos = label > 0.0
    safe = _ops.where(pos, label, _p().ones_like(label))
    out = _ops.where(pos, _ops.multiply(label, _ops.subtract(_ops.log(safe), input)), _p().zeros_like(input))
    if reduction == "batchmean":
        n = input.shape[0] if input.ndim else 1
        if n < 0:  # a program's unknown batch: its size when the program runs
            return _total(out) / _ops.cast(_ss.dim_of(input, 0), out.dtype)
        return _total(out) / float(n)
    return _reduced(out, reduction)


# ------------------------------------------------------------------ margin / embedding losses
def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label (input - other) + margin)."""
    _check_reduction("margin_ranking_loss", reduction)
    d = _ops.multiply(_ops.neg(label), _ops.subtract(input, other))
    return _reduced(_ops.relu(_ops.scale(d, 1.0, float(margin), True)), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label == 1, max(0, margin - input) where label == -1."""
    _check_reduction("hinge_embedding_loss", reduction)
    _same_shape("hinge_embedding_loss", input, label)
    neg = _ops.relu(_ops.scale(input, -1.0, float(margin), True))
    zeros = _p().zeros_like(input)
    out = _ops.add(_ops.where(label == 1.0, input, zeros), _ops.where(label == -1.0, neg, zeros))
    return _reduced(out, reduction)


def dice_loss(input, label, epsilon=0.00001, name=None):
    """1 - 2 |X n Y| / (|X| + |Y|) per sample, averaged: input [N, ..., C] probabilities, label
    [N, ..., 1] class indices."""
    paddle = _p()
    if input.ndim < 2 or label.ndim != input.ndim or _differ(label.shape[-1], 1) or \
            _shapes_differ(label.shape[:-1], input.shape[:-1]):
        raise ValueError(f"[dice_loss] expected label of shape {list(input.shape[:-1]) + [1]}, received {label.shape}")
    C = input.shape[-1]
    onehot = _ops.cast(_ops.equal(paddle.arange(C, dtype=label.dtype), label), input.dtype)
    dims = list(range(1, input.ndim))
    inse = _ops.sum(_ops.multiply(input, onehot), dims, False)
    den = _ops.add(_ops.sum(input, dims, False), _ops.sum(onehot, dims, False))
    dice = _ops.scale(_ops.divide(_ops.scale(inse, 2.0, 0.0, True), _ops.scale(den, 1.0, float(epsilon), True)),
                      -1.0, 1.0, True)
    return _mean(dice)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss (Paddle's formulation): soft-label softmax CE over anchor @ positive^T with
    same-label targets, plus 0.25 * l2_reg * the mean squared norms."""
    paddle = _p()
    if _shapes_differ(anchor.shape, positive.shape) or anchor.ndim != 2:
        raise ValueError(f"[npair_loss] expected anchor and positive of the same [N, D] shape, received {anchor.shape} and {positive.shape}")
    lab = paddle.reshape(labels, [-1, 1])
    lab = paddle.cast(_ops.equal(lab, paddle.reshape(lab, [1, -1])), anchor.dtype)
    lab = lab / paddle.sum(lab, axis=1, keepdim=True)
    l2 = paddle.mean(paddle.sum(paddle.square(anchor), axis=1)) + paddle.mean(paddle.sum(paddle.square(positive), axis=1))
    l2 = l2 * (0.25 * l2_reg)
    sim = paddle.matmul(anchor, positive, transpose_y=True)
    ce = softmax_with_cross_entropy(sim, lab, soft_label=True)
    return l2 + paddle.mean(paddle.sum(lab * ce, axis=0))


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, group=None,
                         return_softmax=False, reduction="mean"):
    """ArcFace-style margin softmax CE (single process): the target cosine becomes
    cos(margin1 * acos(x) + margin2) - margin3, all logits are scaled, then softmax CE."""
    paddle = _p()
    if reduction is None:
        reduction = "none"
    _check_reduction("margin_cross_entropy", reduction)
    if group is not None and group is not False:
        raise NotImplementedError("[margin_cross_entropy] model-parallel groups are not supported (single process only)")
    if label.ndim == logits.ndim - 1:
        label = paddle.unsqueeze(label, -1)
    C = logits.shape[-1]
    onehot = _ops.cast(_ops.equal(paddle.arange(C, dtype=label.dtype), label), logits.dtype)
    theta = _ops.acos(_ops.clip(logits, -1.0, 1.0))
    target = _ops.scale(_ops.cos(_ops.scale(theta, float(margin1), float(margin2), True)), 1.0, -float(margin3), True)
    adj = _ops.add(_ops.multiply(onehot, target), _ops.multiply(_ops.scale(onehot, -1.0, 1.0, True), logits))
    loss, sm = softmax_with_cross_entropy(_ops.scale(adj, float(scale), 0.0, True), label, return_softmax=True)
    loss = _reduced(loss, reduction)
    return (loss, sm) if return_softmax else loss


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean", norm_by_times=False):
    """CTC loss through the C op warpctc: log_probs [max_logit_length, batch_size, num_classes + 1]
    are unnormalised logits (softmax is applied inside, as warp-ctc does), labels [batch_size,
    max_label_length] padded int32, lengths int64 [batch_size]. 'mean' divides each loss by its
    label length, then averages; norm_by_times scales the gradient (not the loss) by 1 / length.
    A sequence too short for its labels gives loss 0 (warp-ctc)."""
    _check_reduction("ctc_loss", reduction)
    for n, t in (("log_probs", log_probs), ("labels", labels), ("input_lengths", input_lengths),
                 ("label_lengths", label_lengths)):
        if not isinstance(t, _p().Tensor):
            raise TypeError(f"[ctc_loss] expected {n} to be a paddle.Tensor, received {type(t).__name__}")
    loss = _ops.warpctc(log_probs, labels, input_lengths, label_lengths, int(blank), bool(norm_by_times))
    loss = _ops.squeeze(loss, [-1])
    if reduction == "mean":
        return _mean(_ops.divide(loss, _ops.cast(label_lengths, loss.dtype)))
    if reduction == "sum":
        return _total(loss)
    return loss


def _hsigmoid_paths(lab, num_classes):
    """Paddle's default tree: class c is coded as c + num_classes; bit j (from the leaf) of the
    code is the branch taken at node (code >> (j + 1)) - 1. Returns node ids [N, L] (-1 past the
    path) and bits [N, L], L = bit length of num_classes - 1."""
    L = int(num_classes - 1).bit_length()
    code = lab.astype(np.int64) + num_classes
    j = np.arange(L)
    nodes = (code[:, None] >> (j[None, :] + 1)) - 1
    bits = (code[:, None] >> j[None, :]) & 1
    valid = nodes >= 0
    return np.where(valid, nodes, -1), np.where(valid, bits, 0)


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None, path_code=None,
                  is_sparse=False, name=None):
    """Hierarchical sigmoid loss: for each sample, a binary classifier per node on its class's
    path, pre = w[node] . x + b[node] clipped to [-40, 40], loss = sum over the path of
    log(1 + exp(pre)) - bit * pre. The default tree is Paddle's complete binary tree over
    num_classes leaves; path_table / path_code [N, L] give custom paths (node ids, -1 ends a
    path). As Paddle does, each of the L code positions past a path's end adds log(2).
    Returns [N, 1]. is_sparse only selects Paddle's sparse gradient format; gradients here are dense."""
    paddle = _p()
    for n, t in (("input", input), ("label", label), ("weight", weight)):
        if not isinstance(t, paddle.Tensor):
            raise TypeError(f"[hsigmoid_loss] expected {n} to be a paddle.Tensor, received {type(t).__name__}")
    if len(input.shape) != 2:
        raise ValueError(f"[hsigmoid_loss] expected input of shape [N, D], received {input.shape}")
    N, D = input.shape
    if len(weight.shape) != 2 or weight.shape[1] != D:
        raise ValueError(f"[hsigmoid_loss] expected weight of shape [num_nodes, {D}], received {weight.shape}")
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"[hsigmoid_loss] expected label of dtype int64, received {label.dtype.name}")
    lab = label.numpy().reshape(-1)
    if lab.size != N:
        raise ValueError(f"[hsigmoid_loss] expected label of shape [{N}] or [{N}, 1], received {label.shape}")
    custom = path_table is not None or path_code is not None
    if custom:
        if path_table is None or path_code is None:
            raise ValueError("[hsigmoid_loss] path_table and path_code must be given together")
        nodes = path_table.numpy().astype(np.int64)
        bits = path_code.numpy().astype(np.int64)
        if nodes.ndim != 2 or nodes.shape[0] != N or bits.shape != nodes.shape:
            raise ValueError(f"[hsigmoid_loss] expected path_table and path_code of shape [{N}, L], received "
                             f"{list(nodes.shape)} and {list(bits.shape)}")
        # a path ends at its first negative node id
        ended = np.cumsum(nodes < 0, axis=1) > 0
        nodes = np.where(ended, -1, nodes)
        bits = np.where(ended, 0, bits != 0)
    else:
        if int(num_classes) < 2:
            raise ValueError(f"[hsigmoid_loss] num_classes must not be less than 2 with the default tree, "
                             f"received {num_classes}")
        if lab.min() < 0 or lab.max() >= num_classes:
            raise ValueError(f"[hsigmoid_loss] expected label values in [0, {num_classes}), received values in "
                             f"[{lab.min()}, {lab.max()}]")
        nodes, bits = _hsigmoid_paths(lab, int(num_classes))
    num_nodes = weight.shape[0]
    if nodes.size and nodes.max() >= num_nodes:
        raise ValueError(f"[hsigmoid_loss] a path uses node {nodes.max()} but weight has {num_nodes} rows")
    valid = nodes >= 0
    dt = input.dtype.name
    idx = paddle.to_tensor(np.where(valid, nodes, 0))
    maskt = paddle.to_tensor(valid.astype(dt))
    w = _ops.embedding(idx, weight, -1)  # [N, L, D]
    pre = paddle.sum(w * paddle.unsqueeze(input, 1), axis=-1)  # [N, L]
    if bias is not None:
        if int(np.prod(bias.shape)) != num_nodes:
            raise ValueError(f"[hsigmoid_loss] expected bias with {num_nodes} values, received shape {bias.shape}")
        pre = pre + paddle.reshape(_ops.embedding(idx, paddle.reshape(bias, [num_nodes, 1]), -1), pre.shape)
    pre = paddle.clip(pre * maskt, -40.0, 40.0)
    softplus = paddle.log1p(paddle.exp(pre))
    code = paddle.to_tensor(bits.astype(dt))
    return paddle.sum(softplus - code * pre, axis=1, keepdim=True)


__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "square_error_cost",
           "l1_loss", "smooth_l1_loss", "log_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "sigmoid_focal_loss", "kl_div", "margin_ranking_loss", "hinge_embedding_loss", "dice_loss",
           "npair_loss", "margin_cross_entropy", "ctc_loss", "hsigmoid_loss"]
