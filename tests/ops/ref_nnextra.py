"""numpy references for the nn extra ops (ops/nn_extra.yaml) written from Paddle's documented
semantics with plain loops: grid_sample (per output point, per corner), CTC loss (the forward
recursion in probability space, not log space) and gather_tree. Used by the sweep cases
(ref: "__import__('ref_nnextra').grid_sample(...)") and tests/python/test_nn_extra.py."""
import itertools
import math

import numpy as np

from sweep_util import numeric_grad


def _unnormalize(v, n, align):
    return (v + 1) / 2 * (n - 1) if align else ((v + 1) * n - 1) / 2


def _reflect(s, lo, hi):
    """Reflects s into [lo, hi] by repeated mirroring at the two bounds."""
    if hi <= lo:
        return lo
    span = hi - lo
    s = abs(s - lo)
    k = math.floor(s / span)
    r = s - k * span
    return lo + (span - r if k % 2 else r)


def _coord(v, n, align, pad):
    s = _unnormalize(float(v), n, align)
    if pad == "border":
        s = min(max(s, 0.0), n - 1.0)
    elif pad == "reflection":
        if align:
            s = _reflect(s, 0.0, n - 1.0)
        else:
            s = _reflect(s, -0.5, n - 0.5)
            s = min(max(s, 0.0), n - 1.0)
    return s


def _round_half_away(s):
    return math.floor(s + 0.5) if s >= 0 else -math.floor(-s + 0.5)


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True):
    """x [N, C, *in] (2 or 3 spatial dims), grid [N, *out, ns] with grid[..., 0] for the last dim."""
    x = np.asarray(x, dtype=np.float64)
    grid = np.asarray(grid, dtype=np.float64)
    N, C = x.shape[:2]
    ins = x.shape[2:]
    ns = len(ins)
    outs = grid.shape[1:-1]
    out = np.zeros((N, C) + tuple(outs))
    for n in range(N):
        for p in itertools.product(*[range(o) for o in outs]):
            g = grid[(n,) + p]
            s = [_coord(g[ns - 1 - d], ins[d], align_corners, padding_mode) for d in range(ns)]
            if mode == "nearest":
                idx = [_round_half_away(v) for v in s]
                if all(0 <= i < ins[d] for d, i in enumerate(idx)):
                    out[(n, slice(None)) + p] = x[(n, slice(None)) + tuple(idx)]
                continue
            acc = np.zeros(C)
            base = [math.floor(v) for v in s]
            for corner in itertools.product((0, 1), repeat=ns):
                idx = [b + c for b, c in zip(base, corner)]
                w = 1.0
                for d in range(ns):
                    f = s[d] - base[d]
                    w *= f if corner[d] else 1 - f
                if all(0 <= i < ins[d] for d, i in enumerate(idx)):
                    acc += w * x[(n, slice(None)) + tuple(idx)]
            out[(n, slice(None)) + p] = acc
    return out


def affine_grid(theta, out_shape, align_corners=True):
    """theta [N, 2, 3] -> grid [N, H, W, 2] (or [N, 3, 4] -> [N, D, H, W, 3])."""
    theta = np.asarray(theta, dtype=np.float64)
    sp = list(out_shape[2:])

    def lin(n):
        v = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
        return v if align_corners else v * (n - 1) / n

    axes = [lin(n) for n in sp]
    mesh = np.meshgrid(*axes, indexing="ij")  # spatial dims in tensor order
    pts = [m.reshape(-1) for m in mesh[::-1]] + [np.ones(int(np.prod(sp)))]  # x (last dim) first
    base = np.stack(pts, axis=1)  # [P, ns + 1]
    out = np.einsum("pk,njk->npj", base, theta)
    return out.reshape([theta.shape[0]] + sp + [len(sp)])


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ctc_loss_one(logits, label, blank):
    """-log p(label | logits) for one sequence: logits [T, C] unnormalised, forward recursion over
    the blank-extended label in probability space. 0 when no alignment exists (warp-ctc)."""
    prob = _softmax(np.asarray(logits, dtype=np.float64))
    T = prob.shape[0]
    ext = [blank]
    for v in label:
        ext += [int(v), blank]
    S = len(ext)
    if T == 0:
        return 0.0
    a = np.zeros(S)
    a[0] = prob[0, ext[0]]
    if S > 1:
        a[1] = prob[0, ext[1]]
    for t in range(1, T):
        b = np.zeros(S)
        for s in range(S):
            v = a[s] + (a[s - 1] if s >= 1 else 0.0)
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                v += a[s - 2]
            b[s] = v * prob[t, ext[s]]
        a = b
    p = a[S - 1] + (a[S - 2] if S > 1 else 0.0)
    return -math.log(p) if p > 0 else 0.0


def warpctc(logits, label, logits_length, labels_length, blank=0):
    """logits [Tmax, B, C], label [B, Lmax] -> loss [B, 1]."""
    B = logits.shape[1]
    out = np.zeros((B, 1))
    for b in range(B):
        T, L = int(logits_length[b]), int(labels_length[b])
        out[b, 0] = ctc_loss_one(logits[:T, b], label[b, :L], blank)
    return out


def ctc_brute_force(logits, label, blank):
    """-log of the sum over every length-T path that collapses (merge repeats, drop blanks) to label."""
    prob = _softmax(np.asarray(logits, dtype=np.float64))
    T, C = prob.shape
    target = [int(v) for v in label]
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        col, prev = [], None
        for k in path:
            if k != prev and k != blank:
                col.append(k)
            prev = k
        if col == target:
            total += float(np.prod([prob[t, k] for t, k in enumerate(path)]))
    return -math.log(total) if total > 0 else 0.0


def gather_tree(ids, parents):
    ids = np.asarray(ids)
    parents = np.asarray(parents)
    T, B, W = ids.shape
    out = np.zeros_like(ids)
    for b in range(B):
        for k in range(W):
            out[T - 1, b, k] = ids[T - 1, b, k]
            p = parents[T - 1, b, k]
            for t in range(T - 2, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return out




def grid_sample_grad(x, grid, dout, mode="bilinear", padding_mode="zeros", align_corners=True):
    """(dx, dgrid) of sum(dout * grid_sample(x, grid)) by central differences of the loop reference."""
    x = np.array(x, dtype=np.float64)
    grid = np.array(grid, dtype=np.float64)

    def f():
        return float((np.asarray(dout, dtype=np.float64) * grid_sample(x, grid, mode, padding_mode, align_corners)).sum())
    return numeric_grad(f, x), numeric_grad(f, grid)


def warpctc_grad(logits, label, logits_length, labels_length, dloss, blank=0, norm_by_times=False):
    """d (sum_b dloss[b] * loss_b) / d logits by central differences of the probability-space
    recursion; with norm_by_times each sequence's rows are divided by its length (Paddle scales
    the gradient only)."""
    logits = np.array(logits, dtype=np.float64)
    dl = np.asarray(dloss, dtype=np.float64).reshape(-1)
    g = np.zeros(logits.shape)
    for b in range(logits.shape[1]):
        T, L = int(logits_length[b]), int(labels_length[b])
        seq = logits[:T, b].copy()
        gb = numeric_grad(lambda: ctc_loss_one(seq, label[b, :L], blank), seq) * dl[b]
        g[:T, b] = gb / T if norm_by_times and T > 0 else gb
    return g
