"""numpy references for the convolution, pooling and normalization ops (ops/conv.yaml, pool.yaml,
norm.yaml): plain loops over kernel offsets, NCHW with 1-3 spatial dims; NHWC by transposition.
Used by the sweep cases (ref: "__import__('ref_conv').conv(...)") and tests/python/test_nn_conv.py."""
import itertools

import numpy as np


def _pads(p, nsp):
    p = list(p)
    if len(p) == 0:
        return [(0, 0)] * nsp
    if len(p) == 1:
        p = p * nsp
    if len(p) == nsp:
        return [(v, v) for v in p]
    return [(p[2 * i], p[2 * i + 1]) for i in range(nsp)]


def _l(v, nsp, d):
    v = list(v) if v is not None else []
    if len(v) == 0:
        return [d] * nsp
    return v * nsp if len(v) == 1 else v


def _cl(x, fmt):
    return fmt in ("NHWC", "NLC", "NDHWC")


def _to_first(x):
    return np.moveaxis(x, -1, 1)


def _to_last(x):
    return np.moveaxis(x, 1, -1)


def _same(ins, k, s):
    pads = []
    for i, kk, ss in zip(ins, k, s):
        o = (i + ss - 1) // ss
        t = max((o - 1) * ss + kk - i, 0)
        pads.append((t // 2, t - t // 2))
    return pads


def conv(x, w, strides=(1,), paddings=(0,), algo="EXPLICIT", groups=1, dilations=(1,), fmt="NCHW"):
    if _cl(x, fmt):
        return _to_last(conv(_to_first(x), w, strides, paddings, algo, groups, dilations, "NCHW"))
    nsp = x.ndim - 2
    s, d = _l(strides, nsp, 1), _l(dilations, nsp, 1)
    k = w.shape[2:]
    p = _pads(paddings, nsp)
    if algo == "VALID":
        p = [(0, 0)] * nsp
    elif algo == "SAME":
        p, d = _same(x.shape[2:], k, s), [1] * nsp
    xp = np.pad(x, [(0, 0), (0, 0)] + p)
    N, C = x.shape[:2]
    O = w.shape[0]
    out_sp = [(xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(nsp)]
    y = np.zeros([N, O] + out_sp, dtype=np.float64)
    Cg, Og = C // groups, O // groups
    for g in range(groups):
        xs = xp[:, g * Cg:(g + 1) * Cg]
        ws = w[g * Og:(g + 1) * Og]
        for off in itertools.product(*[range(kk) for kk in k]):
            sl = tuple(slice(off[i] * d[i], off[i] * d[i] + (out_sp[i] - 1) * s[i] + 1, s[i]) for i in range(nsp))
            patch = xs[(slice(None), slice(None)) + sl]
            wk = ws[(slice(None), slice(None)) + tuple(off)]
            y[:, g * Og:(g + 1) * Og] += np.einsum("nc...,oc->no...", patch, wk)
    return y.astype(x.dtype)


def conv_bias(x, w, strides=(1,), paddings=(0,), algo="EXPLICIT", groups=1, dilations=(1,), fmt="NCHW",
              bias=None):
    """conv with the op's optional per-output-channel bias (channel axis 1, or last for NHWC)."""
    y = conv(x, w, strides, paddings, algo, groups, dilations, fmt)
    if bias is None:
        return y
    shp = [1] * y.ndim
    shp[-1 if _cl(x, fmt) else 1] = -1
    return (y + bias.reshape(shp)).astype(x.dtype)


def conv_transpose(x, w, strides=(1,), paddings=(0,), output_padding=(), output_size=(), algo="EXPLICIT",
                   groups=1, dilations=(1,), fmt="NCHW"):
    if _cl(x, fmt):
        return _to_last(conv_transpose(_to_first(x), w, strides, paddings, output_padding, output_size, algo,
                                       groups, dilations, "NCHW"))
    nsp = x.ndim - 2
    s, d = _l(strides, nsp, 1), _l(dilations, nsp, 1)
    k = w.shape[2:]
    p = _pads(paddings, nsp)
    if algo == "VALID":
        p = [(0, 0)] * nsp
    elif algo == "SAME":
        p, d = _same(x.shape[2:], k, s), [1] * nsp
    op = _l(output_padding, nsp, 0)
    base = [(x.shape[2 + i] - 1) * s[i] - p[i][0] - p[i][1] + d[i] * (k[i] - 1) + 1 for i in range(nsp)]
    osz = list(output_size) if output_size else [b + o for b, o in zip(base, op)]
    N, O = x.shape[:2]
    C = w.shape[1] * groups
    full = [osz[i] + p[i][0] + p[i][1] + s[i] + d[i] * k[i] for i in range(nsp)]
    y = np.zeros([N, C] + full, dtype=np.float64)
    Og, Cg = O // groups, C // groups
    for g in range(groups):
        xs = x[:, g * Og:(g + 1) * Og]
        ws = w[g * Og:(g + 1) * Og]
        for off in itertools.product(*[range(kk) for kk in k]):
            sl = tuple(slice(off[i] * d[i], off[i] * d[i] + (x.shape[2 + i] - 1) * s[i] + 1, s[i]) for i in range(nsp))
            wk = ws[(slice(None), slice(None)) + tuple(off)]
            y[(slice(None), slice(g * Cg, (g + 1) * Cg)) + sl] += np.einsum("no...,oc->nc...", xs, wk)
    crop = tuple(slice(p[i][0], p[i][0] + osz[i]) for i in range(nsp))
    return y[(slice(None), slice(None)) + crop].astype(x.dtype)


def conv_grad_filter(x, dy, filter_shape, strides=(1,), paddings=(0,), algo="EXPLICIT", groups=1,
                     dilations=(1,), fmt="NCHW"):
    """sum over (n, out) of x patches times dy: the filter gradient of conv."""
    if _cl(x, fmt):
        x, dy = _to_first(x), _to_first(dy)
    nsp = x.ndim - 2
    s, d = _l(strides, nsp, 1), _l(dilations, nsp, 1)
    k = filter_shape[2:]
    p = _pads(paddings, nsp)
    if algo == "VALID":
        p = [(0, 0)] * nsp
    elif algo == "SAME":
        p, d = _same(x.shape[2:], k, s), [1] * nsp
    xp = np.pad(x, [(0, 0), (0, 0)] + p)
    out_sp = dy.shape[2:]
    C, O = x.shape[1], dy.shape[1]
    Cg, Og = C // groups, O // groups
    dw = np.zeros(filter_shape, dtype=np.float64)
    for g in range(groups):
        xs = xp[:, g * Cg:(g + 1) * Cg]
        for off in itertools.product(*[range(kk) for kk in k]):
            sl = tuple(slice(off[i] * d[i], off[i] * d[i] + (out_sp[i] - 1) * s[i] + 1, s[i]) for i in range(nsp))
            patch = xs[(slice(None), slice(None)) + sl]
            ax = [0] + list(range(2, 2 + nsp))
            dw[(slice(g * Og, (g + 1) * Og), slice(None)) + tuple(off)] = np.tensordot(
                dy[:, g * Og:(g + 1) * Og], patch, axes=(ax, ax))
    return dw.astype(x.dtype)


def pool(x, kernel_size, strides=(1,), paddings=(0,), ceil_mode=False, exclusive=True, fmt="NCHW",
         ptype="max", global_pooling=False, adaptive=False, algo="EXPLICIT", return_mask=False):
    """Paddle's pool2d/pool3d on NCHW (NHWC transposed); return_mask: also the flat argmax."""
    if _cl(x, fmt):
        r = pool(_to_first(x), kernel_size, strides, paddings, ceil_mode, exclusive, "NCHW", ptype,
                 global_pooling, adaptive, algo, return_mask)
        return tuple(_to_last(t) for t in r) if return_mask else _to_last(r)
    nsp = x.ndim - 2
    ins = list(x.shape[2:])
    k, s, p = _l(kernel_size, nsp, 1), _l(strides, nsp, 1), _pads(paddings, nsp)
    if global_pooling:
        k, s, p, adaptive = ins, [1] * nsp, [(0, 0)] * nsp, False
    if algo == "VALID":
        p = [(0, 0)] * nsp
    elif algo == "SAME" and not adaptive:
        p = _same(ins, k, s)
    if adaptive:
        outs = list(k)
    else:
        outs = [((i + a + b - kk + (ss - 1 if ceil_mode else 0)) // ss) + 1 for i, kk, ss, (a, b) in zip(ins, k, s, p)]
    N, C = x.shape[:2]
    y = np.zeros([N, C] + outs, dtype=x.dtype)
    m = np.zeros([N, C] + outs, dtype=np.int32)
    for o in itertools.product(*[range(v) for v in outs]):
        sl, cnt = [], 1
        for i in range(nsp):
            if adaptive:
                lo, hi = o[i] * ins[i] // outs[i], -(-(o[i] + 1) * ins[i] // outs[i])
                ext = hi - lo
            else:
                st = o[i] * s[i] - p[i][0]
                en = min(st + k[i], ins[i] + p[i][1])
                ext = en - st
                lo, hi = max(st, 0), min(en, ins[i])
            sl.append(slice(lo, hi))
            cnt *= ext if not (exclusive or adaptive) else hi - lo
        win = x[(slice(None), slice(None)) + tuple(sl)].reshape(N, C, -1)
        idx = (slice(None), slice(None)) + tuple(o)
        if ptype == "max":
            a = win.argmax(-1)
            y[idx] = win.max(-1)
            coords = np.unravel_index(a, [q.stop - q.start for q in sl])
            flat = np.zeros_like(a)
            for i in range(nsp):
                flat = flat * ins[i] + coords[i] + sl[i].start
            m[idx] = flat
        else:
            y[idx] = win.sum(-1) / cnt
    return (y, m) if return_mask else y


def pool_grad(x, dout, *attrs):
    """Vector-Jacobian product of pool() (max: to the first argmax; avg: spread)."""
    ptype = attrs[5] if len(attrs) > 5 else "max"
    fmt = attrs[4] if len(attrs) > 4 else "NCHW"
    if ptype == "max":
        _, m = pool(x, *attrs, return_mask=True)
        return unpool(dout, m, x.shape[2:] if not _cl(x, fmt) else x.shape[1:-1], fmt, True)
    eps = np.zeros_like(x)
    g = np.zeros_like(x)
    flat, gf = eps.reshape(-1), g.reshape(-1)
    for i in range(flat.size):  # avg pooling is linear: the exact transpose column by column
        flat[i] = 1
        gf[i] = (pool(eps, *attrs) * dout).sum()
        flat[i] = 0
    return g


def unpool(x, idx, output_size, fmt="NCHW", accumulate=False):
    if _cl(x, fmt):
        return _to_last(unpool(_to_first(x), _to_first(idx), output_size, "NCHW", accumulate))
    N, C = x.shape[:2]
    y = np.zeros([N, C, int(np.prod(output_size))], dtype=x.dtype)
    xf, jf = x.reshape(N, C, -1), idx.reshape(N, C, -1)
    for n in range(N):
        for c in range(C):
            if accumulate:
                np.add.at(y[n, c], jf[n, c], xf[n, c])
            else:
                y[n, c, jf[n, c]] = xf[n, c]
    return y.reshape([N, C] + list(output_size))


def pool_gather(x, idx, fmt="NCHW"):
    if _cl(x, fmt):
        return _to_last(pool_gather(_to_first(x), _to_first(idx)))
    N, C = x.shape[:2]
    return np.take_along_axis(x.reshape(N, C, -1), idx.reshape(N, C, -1), -1).reshape(idx.shape)


def batch_norm(x, mean, var, scale=None, bias=None, is_test=False, momentum=0.9, eps=1e-5, fmt="NCHW",
               use_global_stats=False):
    """(out, saved_mean, saved_invstd) of Paddle's batch_norm (running stats not returned)."""
    cl = _cl(x, fmt) and x.ndim > 2
    xf = _to_first(x) if cl else x
    axes = tuple(i for i in range(xf.ndim) if i != 1)
    if is_test or use_global_stats:
        m, v = mean, var
    else:
        m, v = xf.mean(axes), xf.var(axes)
    shp = [1, -1] + [1] * (xf.ndim - 2)
    inv = 1 / np.sqrt(v + eps)
    y = (xf - m.reshape(shp)) * inv.reshape(shp)
    if scale is not None:
        y = y * scale.reshape(shp)
    if bias is not None:
        y = y + bias.reshape(shp)
    return (_to_last(y) if cl else y).astype(x.dtype), m.astype(x.dtype), inv.astype(x.dtype)


def layer_norm(x, scale=None, bias=None, eps=1e-5, axis=1):
    R = int(np.prod(x.shape[:axis]))
    xf = x.reshape(R, -1)
    m, v = xf.mean(1), xf.var(1)
    y = (xf - m[:, None]) / np.sqrt(v[:, None] + eps)
    if scale is not None:
        y = y * scale.reshape(1, -1)
    if bias is not None:
        y = y + bias.reshape(1, -1)
    return y.reshape(x.shape).astype(x.dtype), m.astype(x.dtype), v.astype(x.dtype)
