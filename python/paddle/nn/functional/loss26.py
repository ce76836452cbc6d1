"""The losses Paddle added to paddle.nn.functional in 2.4-2.6 (issue 23): soft_margin_loss,
multi_label_soft_margin_loss, multi_margin_loss, poisson_nll_loss, gaussian_nll_loss,
cosine_embedding_loss, triplet_margin_loss, triplet_margin_with_distance_loss and rnnt_loss.
Paddle 2.6's signatures, defaults, formulas and error classes (ValueError); each composes
existing ops, so autograd comes free (rnnt_loss runs its lattice recursions on the host and
returns its gradient through one PyLayer). mean/sum follow the scalar rule of the two API levels."""
import math

import numpy as np

from .loss import _check_reduction, _reduced, _shapes_differ


def _p():
    import paddle
    return paddle


_FLOAT = ("float32", "float64")


def _dt(x):
    return str(x.dtype).replace("paddle.", "")


def _in_program(*ts):
    """Any of ts a variable of a static program (its values are unknown while it is built)."""
    from ... import _C
    return any(_C._is_variable(t) for t in ts)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input)) (computed as softplus, stable for large |input|)."""
    paddle = _p()
    _check_reduction("soft_margin_loss", reduction)
    if _shapes_differ(input.shape, label.shape):
        raise ValueError(f"[soft_margin_loss] input's shape must equal to label's shape, received "
                         f"{input.shape} and {label.shape}")
    label = paddle.cast(label, input.dtype)
    return _reduced(paddle.nn.functional.softplus(-label * input), reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-(label log sigmoid(x) + (1 - label) log sigmoid(-x)) * weight, averaged over the last
    axis (one loss per sample), then reduced."""
    paddle = _p()
    F = paddle.nn.functional
    _check_reduction("multi_label_soft_margin_loss", reduction)
    if _shapes_differ(input.shape, label.shape):
        raise ValueError(f"[multi_label_soft_margin_loss] the input and label should have the same shape, "
                         f"but received {input.shape} != {label.shape}")
    loss = -(label * F.log_sigmoid(input) + (1 - label) * F.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduced(loss.mean(axis=-1), reduction)


def multi_margin_loss(input, label, p: int = 1, margin: float = 1.0, weight=None, reduction="mean", name=None):
    """Per sample i: sum over j != y of max(0, w[y] (margin - x[y] + x[j]))^p / C (Paddle's documented
    formula: the class weight sits inside the hinge), input [N, C], label [N]: one loss per sample
    (Paddle 2.6.2 broadcasts its weighted form to [N, N], a bug we do not copy)."""
    paddle = _p()
    _check_reduction("multi_margin_loss", reduction)
    if input.ndim != 2:
        raise ValueError(f"[multi_margin_loss] expected input of shape [N, C], received {input.shape}")
    if label.ndim == 0 or (input.shape[0] >= 0 and label.shape[0] >= 0 and input.shape[0] != label.shape[0]):
        raise ValueError(f"[multi_margin_loss] the label's shape[0] should be equal to input's shape[0], but "
                         f"received input's shape[0] {input.shape[0]} and label's shape[0] "
                         f"{label.shape[0] if label.ndim else None}")
    C = input.shape[1]
    label = paddle.reshape(label, [-1, 1])
    if label.dtype not in (paddle.int32, paddle.int64):
        raise TypeError(f"[multi_margin_loss] label must be int32 or int64, received {label.dtype}")
    picked = paddle.index_sample(input, label)
    hinge = margin - picked + input
    if weight is not None:
        if weight.ndim != 1 or (weight.shape[0] >= 0 and C >= 0 and weight.shape[0] != C):
            raise ValueError(f"[multi_margin_loss] the weight's shape[0] should be equal to input's shape[1], "
                             f"but received weight's shape {weight.shape} and input's shape[1] {C}")
        hinge = paddle.reshape(paddle.gather(weight, paddle.reshape(label, [-1]), axis=0), [-1, 1]) * hinge
    # the documented sum over j != label: the label's own column is masked out
    others = 1 - paddle.nn.functional.one_hot(paddle.reshape(label, [-1]), C).astype(input.dtype)
    loss = paddle.mean(paddle.pow(paddle.clip(hinge, min=0.0), p) * others, axis=1)
    return _reduced(loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
    """exp(input) - label input (log_input) or input - label log(input + epsilon); full adds
    Stirling's term label log(label) - label + 0.5 log(2 pi label) where label > 1."""
    paddle = _p()
    if epsilon <= 0:
        raise ValueError(f"[poisson_nll_loss] the value of `epsilon` should be positive, but received {epsilon}")
    _check_reduction("poisson_nll_loss", reduction)
    if _shapes_differ(input.shape, label.shape):
        raise ValueError(f"[poisson_nll_loss] input's shape must equal to label's shape, received "
                         f"{input.shape} and {label.shape}")
    label = paddle.cast(label, input.dtype)
    if log_input:
        loss = paddle.exp(input) - label * input
    else:
        loss = input - label * paddle.log(input + epsilon)
    if full:
        big = label > 1
        safe = paddle.where(big, label, paddle.full_like(label, 2.0))
        stirling = safe * paddle.log(safe) - safe + 0.5 * paddle.log(2 * math.pi * safe)
        loss = loss + paddle.where(big, stirling, paddle.zeros_like(stirling))
    return _reduced(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean", name=None):
    """0.5 (log(max(variance, epsilon)) + (input - label)^2 / max(variance, epsilon)) (+ 0.5 log 2 pi
    when full). variance has input's shape, or input's shape with the last dim 1 or dropped
    (one variance per sample). Gradients flow to input, label and variance (the clamp is
    a straight-through: Paddle 2.6 clamps under no_grad and gives variance no gradient)."""
    paddle = _p()
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = paddle.unsqueeze(variance, -1)
        elif not (list(input.shape[:-1]) == list(variance.shape[:-1]) and variance.ndim and variance.shape[-1] == 1):
            raise ValueError(f"[gaussian_nll_loss] variance is of incorrect shape {variance.shape} for input "
                             f"{input.shape}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    for what, t in (("input", input), ("label", label), ("variance", variance)):
        if _dt(t) not in _FLOAT:
            raise ValueError(f"[gaussian_nll_loss] the data type of {what} must be 'float32' or 'float64', "
                             f"received {_dt(t)}")
    if not _in_program(variance) and bool(paddle.any(variance < 0)):
        raise ValueError("[gaussian_nll_loss] variance has negative entry/entries")
    clamped = paddle.clip(variance, min=epsilon)
    if not variance.stop_gradient and not _in_program(variance):
        clamped = variance + (clamped - variance).detach()
    loss = 0.5 * (paddle.log(clamped) + paddle.square(input - label) / clamped)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(x1, x2) where label == 1, max(0, cos(x1, x2) - margin) where label == -1
    (cos with 1e-11 added to each squared norm, as Paddle)."""
    paddle = _p()
    _check_reduction("cosine_embedding_loss", reduction)
    if label.ndim != 1:
        raise ValueError("[cosine_embedding_loss] 1D target tensor expected, multi-target not supported")
    if _shapes_differ(input1.shape, input2.shape):
        raise ValueError(f"[cosine_embedding_loss] the shape of input1 {input1.shape} should be equal to "
                         f"input2's {input2.shape}")
    if input1.ndim > 2:
        raise ValueError("[cosine_embedding_loss] 1D target tensor expects 1D or 2D input tensors, received "
                         f"{input1.ndim}-D")
    if _dt(input1) not in _FLOAT:
        raise ValueError("[cosine_embedding_loss] the data type of input must be 'float32' or 'float64'")
    if _dt(label) not in ("int32", "int64") + _FLOAT:
        raise ValueError("[cosine_embedding_loss] the data type of label must be 'int32', 'int64', "
                         "'float32' or 'float64'")
    dot = (input1 * input2).sum(axis=-1)
    m1 = paddle.square(input1).sum(axis=-1) + 10e-12
    m2 = paddle.square(input2).sum(axis=-1) + 10e-12
    cos = dot / paddle.sqrt(m1 * m2)
    zeros = paddle.zeros_like(cos)
    out = paddle.where(label == 1, 1 - cos, zeros) + paddle.where(label == -1, paddle.clip(cos - margin, min=0),
                                                                  zeros)
    return _reduced(out, reduction)


def _triplet_check(op, input, positive, negative, margin, reduction):
    _check_reduction(op, reduction)
    if margin < 0:
        raise ValueError(f"[{op}] the margin between positive samples and negative samples should be greater "
                         f"than 0, received {margin}")
    if _shapes_differ(input.shape, positive.shape) or _shapes_differ(input.shape, negative.shape):
        raise ValueError(f"[{op}] input's shape must equal to positive's shape and negative's shape, received "
                         f"{input.shape}, {positive.shape} and {negative.shape}")


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False, reduction="mean",
                        name=None):
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-norm distance (swap: d(a, n) becomes
    min(d(a, n), d(p, n)))."""
    paddle = _p()
    _triplet_check("triplet_margin_loss", input, positive, negative, margin, reduction)
    dist = paddle.nn.functional.pairwise_distance
    dp = dist(input, positive, p, epsilon)
    dn = dist(input, negative, p, epsilon)
    if swap:
        dn = paddle.minimum(dn, dist(positive, negative, p, epsilon))
    return _reduced(paddle.clip(dp - dn + margin, min=0.0), reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean", name=None):
    """triplet_margin_loss with any distance function (default: the pairwise 2-norm); the distances
    must be positive (ValueError otherwise, as Paddle)."""
    paddle = _p()
    op = "triplet_margin_with_distance_loss"
    _triplet_check(op, input, positive, negative, margin, reduction)
    if distance_function is None:
        distance_function = paddle.nn.PairwiseDistance(2)
    dp = distance_function(input, positive)
    dn = distance_function(input, negative)
    if swap:
        dn = paddle.minimum(dn, distance_function(positive, negative))
    if not _in_program(dp, dn) and (not bool(paddle.all(dp > 0)) or not bool(paddle.all(dn > 0))):
        raise ValueError(f"[{op}] the positive distance or negative distance should be greater than 0; check "
                         f"the distance function")
    return _reduced(paddle.clip(dp - dn + margin, min=0.0), reduction)


# ------------------------------------------------------------------ RNN-T
def _lse(a, b):
    m = np.maximum(a, b)
    with np.errstate(invalid="ignore"):
        out = m + np.log(np.exp(a - m) + np.exp(b - m))
    return np.where(np.isneginf(m), -np.inf, out)


def _rnnt_one(lp, y, T, U, blank, lam):
    """-log P(y | x) and its gradient for one sequence: lp [T, U + 1, D] log probabilities, as
    Warp-Transducer's CPU path (no softmax inside); FastEmit scales the label emissions'
    gradient by 1 + lam. alpha and beta run along anti-diagonals (t + u = k), vectorized."""
    blank_lp = lp[:T, :U + 1, blank]
    emit_lp = np.take_along_axis(lp[:T, :U], np.asarray(y[:U], dtype=np.int64)[None, :, None], axis=2)[..., 0] \
        if U else np.zeros((T, 0))
    a = np.full((T, U + 1), -np.inf)
    b = np.full((T, U + 1), -np.inf)
    a[0, 0] = 0.0
    for k in range(1, T + U):
        t = np.arange(max(0, k - U), min(T - 1, k) + 1)
        u = k - t
        v = np.full(t.shape, -np.inf)
        m = t > 0
        v[m] = a[t[m] - 1, u[m]] + blank_lp[t[m] - 1, u[m]]
        m = u > 0
        v[m] = _lse(v[m], a[t[m], u[m] - 1] + emit_lp[t[m], u[m] - 1])
        a[t, u] = v
    b[T - 1, U] = blank_lp[T - 1, U]
    for k in range(T + U - 2, -1, -1):
        t = np.arange(max(0, k - U), min(T - 1, k) + 1)
        u = k - t
        v = np.full(t.shape, -np.inf)
        m = t < T - 1
        v[m] = b[t[m] + 1, u[m]] + blank_lp[t[m], u[m]]
        m = u < U
        v[m] = _lse(v[m], b[t[m], u[m] + 1] + emit_lp[t[m], u[m]])
        b[t, u] = v
    ll = b[0, 0]
    g = np.zeros_like(lp)
    gb = np.zeros((T, U + 1))
    gb[:T - 1] = -np.exp(a[:T - 1] + blank_lp[:T - 1] + b[1:] - ll)
    gb[T - 1, U] = -np.exp(a[T - 1, U] + blank_lp[T - 1, U] - ll)
    g[:T, :U + 1, blank] = gb
    if U:
        ge = -(1.0 + lam) * np.exp(a[:, :U] + emit_lp + b[:, 1:] - ll)
        tt, uu = np.meshgrid(np.arange(T), np.arange(U), indexing="ij")
        np.add.at(g, (tt, uu, np.broadcast_to(np.asarray(y[:U], dtype=np.int64), (T, U))), ge)
    return -ll, g


def _rnnt_layer():
    from ...autograd import PyLayer

    class _RNNT(PyLayer):
        @staticmethod
        def forward(ctx, input, label, input_lengths, label_lengths, blank, lam):
            paddle = _p()
            x = input.numpy()
            lab, il, ll = label.numpy(), input_lengths.numpy(), label_lengths.numpy()
            B = x.shape[0]
            loss, grad = np.zeros(B, x.dtype), np.zeros_like(x)
            for i in range(B):
                T, U = int(il[i]), int(ll[i])
                if not (0 < T <= x.shape[1] and 0 <= U < x.shape[2] and U <= lab.shape[1]):
                    raise ValueError(f"[rnnt_loss] sample {i}: input length {T} and label length {U} must satisfy "
                                     f"0 < input length <= {x.shape[1]} and label length <= "
                                     f"{min(x.shape[2] - 1, lab.shape[1])}")
                if np.any((lab[i, :U] < 0) | (lab[i, :U] >= x.shape[3])):
                    raise ValueError(f"[rnnt_loss] sample {i}: labels must lie in [0, {x.shape[3]})")
                loss[i], g = _rnnt_one(x[i].astype(np.float64), lab[i], T, U, blank, lam)
                grad[i, :g.shape[0], :g.shape[1]] = g
            ctx.grad = paddle.to_tensor(grad)
            return paddle.to_tensor(loss)

        @staticmethod
        def backward(ctx, dloss):
            return ctx.grad * _p().reshape(dloss, [-1, 1, 1, 1]), None, None, None

    return _RNNT


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001, reduction="mean",
              name=None):
    """RNN-T loss (Warp-Transducer's CPU semantics): input [B, Tmax, Umax + 1, D] log probabilities
    (used as given, no softmax inside), label [B, Umax] int32, lengths [B]. Per sequence -log of
    the sum over alignments; FastEmit (fastemit_lambda) scales the gradient of label emissions
    by 1 + lambda (the loss value is unchanged). 'mean' divides the sum by B."""
    paddle = _p()
    _check_reduction("rnnt_loss", reduction)
    for n, t in (("input", input), ("label", label), ("input_lengths", input_lengths),
                 ("label_lengths", label_lengths)):
        if not isinstance(t, paddle.Tensor):
            raise TypeError(f"[rnnt_loss] expected {n} to be a paddle.Tensor, received {type(t).__name__}")
    if input.ndim != 4 or label.ndim != 2:
        raise ValueError(f"[rnnt_loss] expected input [B, Tmax, Umax, D] and label [B, Umax - 1], received "
                         f"{input.shape} and {label.shape}")
    if _dt(input) not in _FLOAT:
        raise TypeError(f"[rnnt_loss] input must be float32 or float64, received {_dt(input)}")
    if _in_program(input, label, input_lengths, label_lengths):
        raise NotImplementedError("[rnnt_loss] runs in dynamic mode only in Paddle-C (its lattice runs on the "
                                  "host); call it outside paddle.enable_static()")
    if not 0 <= blank < input.shape[3]:
        raise ValueError(f"[rnnt_loss] blank {blank} must be in [0, {input.shape[3]})")
    loss = _rnnt_layer().apply(input, label, input_lengths, label_lengths, int(blank), float(fastemit_lambda))
    if reduction == "mean":
        return paddle.sum(loss) / float(input.shape[0])
    return _reduced(loss, reduction)


__all__ = ["soft_margin_loss", "multi_label_soft_margin_loss", "multi_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "rnnt_loss"]
