"""numpy references of the sequence (LoD) ops (ops/sequence.yaml): a batch of sequences is an
array whose rows are the steps back to back plus offsets [n + 1]. Each function follows
Paddle's operator of the same name (empty sequences pool to pad_value; MAX's index is the
absolute row, -1 for an empty sequence)."""
import numpy as np


def _seqs(off):
    off = np.asarray(off).astype(np.int64).reshape(-1)
    return [(int(off[i]), int(off[i + 1])) for i in range(len(off) - 1)]


def pool(x, off, pooltype="AVERAGE", pad_value=0.0):
    s = _seqs(off)
    out = np.full((len(s),) + x.shape[1:], pad_value, dtype=np.float64)
    idx = np.zeros((len(s),) + x.shape[1:], dtype=np.int32)
    for i, (b, e) in enumerate(s):
        if b == e:
            if pooltype == "MAX":
                idx[i] = -1
            continue
        seg = x[b:e].astype(np.float64)
        if pooltype == "AVERAGE":
            out[i] = seg.mean(0)
        elif pooltype == "SUM":
            out[i] = seg.sum(0)
        elif pooltype == "SQRT":
            out[i] = seg.sum(0) / np.sqrt(e - b)
        elif pooltype == "MAX":
            out[i] = seg.max(0)
            idx[i] = seg.argmax(0) + b
        elif pooltype == "LAST":
            out[i] = seg[-1]
        elif pooltype == "FIRST":
            out[i] = seg[0]
    return out.astype(x.dtype), idx


def pool_grad(x, off, max_index, dout, pooltype="AVERAGE"):
    g = np.zeros(x.shape, dtype=np.float64)
    for i, (b, e) in enumerate(_seqs(off)):
        if b == e:
            continue
        n = e - b
        if pooltype == "AVERAGE":
            g[b:e] = dout[i] / n
        elif pooltype == "SUM":
            g[b:e] = dout[i]
        elif pooltype == "SQRT":
            g[b:e] = dout[i] / np.sqrt(n)
        elif pooltype == "LAST":
            g[e - 1] += dout[i]
        elif pooltype == "FIRST":
            g[b] += dout[i]
        elif pooltype == "MAX":
            gf, mf, df = g.reshape(len(g), -1), max_index[i].reshape(-1), dout[i].reshape(-1)
            for j in range(len(mf)):
                gf[mf[j], j] += df[j]
    return g.astype(dout.dtype)


def softmax(x, off):
    out = np.zeros(x.shape, dtype=np.float64)
    f, o = x.reshape(-1).astype(np.float64), out.reshape(-1)
    for b, e in _seqs(off):
        if b < e:
            z = np.exp(f[b:e] - f[b:e].max())
            o[b:e] = z / z.sum()
    return out.astype(x.dtype)


def softmax_grad(out, off, dout):
    y, d = out.reshape(-1).astype(np.float64), dout.reshape(-1).astype(np.float64)
    g = np.zeros_like(y)
    for b, e in _seqs(off):
        g[b:e] = y[b:e] * (d[b:e] - (y[b:e] * d[b:e]).sum())
    return g.reshape(out.shape).astype(out.dtype)


def context(x, off, length=3, start=-1):
    n, d = x.shape
    col = np.zeros((n, length * d), dtype=np.float64)
    for b, e in _seqs(off):
        for t in range(b, e):
            for j in range(length):
                src = t + start + j
                if b <= src < e:
                    col[t, j * d:(j + 1) * d] = x[src]
    return col.astype(x.dtype)


def context_grad(x, off, dout, length=3, start=-1):
    n, d = x.shape
    g = np.zeros((n, d), dtype=np.float64)
    for b, e in _seqs(off):
        for t in range(b, e):
            for j in range(length):
                src = t + start + j
                if b <= src < e:
                    g[src] += dout[t, j * d:(j + 1) * d]
    return g.astype(dout.dtype)


def conv(x, off, filt, length=3, start=-1):
    return (context(x, off, length, start).astype(np.float64) @ filt.astype(np.float64)).astype(x.dtype)


def concat(xs, offs):
    s = [_seqs(o) for o in offs]
    rows, off = [], [0]
    for i in range(len(s[0])):
        for k, x in enumerate(xs):
            b, e = s[k][i]
            rows.append(x[b:e])
        off.append(off[-1] + sum(s[k][i][1] - s[k][i][0] for k in range(len(xs))))
    return np.concatenate(rows), np.array(off, dtype=np.int64)


def concat_grad(offs, dout):
    s = [_seqs(o) for o in offs]
    outs = [np.zeros((int(np.asarray(o)[-1]),) + dout.shape[1:], dtype=dout.dtype) for o in offs]
    r = 0
    for i in range(len(s[0])):
        for k in range(len(offs)):
            b, e = s[k][i]
            outs[k][b:e] = dout[r:r + e - b]
            r += e - b
    return outs


def slice_(x, off, offset, length):
    offset, length = np.asarray(offset).reshape(-1), np.asarray(length).reshape(-1)
    rows, o = [], [0]
    for i, (b, e) in enumerate(_seqs(off)):
        rows.append(x[b + offset[i]:b + offset[i] + length[i]])
        o.append(o[-1] + int(length[i]))
    return np.concatenate(rows), np.array(o, dtype=np.int64)


def slice_grad(x, off, offset, length, dout):
    offset, length = np.asarray(offset).reshape(-1), np.asarray(length).reshape(-1)
    g = np.zeros(x.shape, dtype=dout.dtype)
    r = 0
    for i, (b, e) in enumerate(_seqs(off)):
        g[b + offset[i]:b + offset[i] + length[i]] = dout[r:r + length[i]]
        r += int(length[i])
    return g


def expand(x, xoff, yoff):
    xs = _seqs(xoff) if xoff is not None else [(i, i + 1) for i in range(len(x))]
    rows, o = [], [0]
    for i, (b, e) in enumerate(_seqs(yoff)):
        for _ in range(e - b):
            rows.append(x[xs[i][0]:xs[i][1]])
            o.append(o[-1] + xs[i][1] - xs[i][0])
    out = np.concatenate(rows) if rows else np.zeros((0,) + x.shape[1:], x.dtype)
    return out, np.array(o if xoff is not None else [], dtype=np.int64)


def expand_grad(x, xoff, yoff, dout):
    xs = _seqs(xoff)
    g = np.zeros(x.shape, dtype=np.float64)
    r = 0
    for i, (b, e) in enumerate(_seqs(yoff)):
        n = xs[i][1] - xs[i][0]
        for _ in range(e - b):
            g[xs[i][0]:xs[i][1]] += dout[r:r + n]
            r += n
    return g.astype(dout.dtype)


def expand_as(x, yoff):
    s = _seqs(yoff)
    out = np.concatenate([np.repeat(x[i:i + 1], e - b, 0) for i, (b, e) in enumerate(s)])
    return out, np.asarray(yoff).astype(np.int64)


def pad(x, off, pad_value, maxlen=-1):
    s = _seqs(off)
    L = max([e - b for b, e in s] + [0])
    if maxlen > 0:
        L = maxlen
    out = np.empty((len(s), L) + x.shape[1:], dtype=x.dtype)
    out[...] = pad_value.reshape(x.shape[1:]) if pad_value.size > 1 else pad_value.reshape(())
    for i, (b, e) in enumerate(s):
        out[i, :e - b] = x[b:e]
    return out, np.array([e - b for b, e in s], dtype=np.int64)


def pad_grad(x, off, pad_value, dout):
    g = np.zeros(x.shape, dtype=np.float64)
    gp = np.zeros(pad_value.size, dtype=np.float64)
    for i, (b, e) in enumerate(_seqs(off)):
        g[b:e] = dout[i, :e - b]
        rest = dout[i, e - b:].reshape(-1, int(np.prod(x.shape[1:])))
        gp += rest.sum() if pad_value.size == 1 else rest.sum(0)
    return g.astype(dout.dtype), gp.reshape(pad_value.shape).astype(dout.dtype)


def unpad(x, length):
    length = np.asarray(length).reshape(-1)
    out = np.concatenate([x[i, :length[i]] for i in range(len(length))])
    return out, np.concatenate([[0], np.cumsum(length)]).astype(np.int64)


def unpad_grad(x, length, dout):
    length = np.asarray(length).reshape(-1)
    g = np.zeros(x.shape, dtype=dout.dtype)
    r = 0
    for i, n in enumerate(length):
        g[i, :n] = dout[r:r + n]
        r += int(n)
    return g


def reshape(x, off, new_dim):
    d = x.shape[1]
    return x.reshape(-1, new_dim), (np.asarray(off) * d // new_dim).astype(np.int64)


def scatter(x, ids, updates, off):
    out = x.astype(np.float64).copy()
    ids, u = np.asarray(ids).reshape(-1), updates.reshape(-1)
    for i, (b, e) in enumerate(_seqs(off)):
        for j in range(b, e):
            out[i, ids[j]] += u[j]
    return out.astype(x.dtype)


def scatter_grad(ids, off, dout):
    flat = np.asarray(ids).reshape(-1)
    g = np.zeros(flat.shape, dtype=dout.dtype)
    for i, (b, e) in enumerate(_seqs(off)):
        for j in range(b, e):
            g[j] = dout[i, flat[j]]
    return g.reshape(np.asarray(ids).shape)


def enumerate_(x, off, win_size, pad_value=0):
    f = np.asarray(x).reshape(-1)
    out = np.full((len(f), win_size), pad_value, dtype=f.dtype)
    for b, e in _seqs(off):
        for t in range(b, e):
            for j in range(win_size):
                if t + j < e:
                    out[t, j] = f[t + j]
    return out


def reverse(x, off):
    out = x.copy()
    for b, e in _seqs(off):
        out[b:e] = x[b:e][::-1]
    return out


def _row_seqs(x, off):
    if off is not None:
        return x, _seqs(off)
    b, t = x.shape[0], x.shape[1]
    return x.reshape(b * t, -1), [(i * t, (i + 1) * t) for i in range(b)]


def row_conv(x, off, filt):
    x2, s = _row_seqs(x, off)
    out = np.zeros(x2.shape, dtype=np.float64)
    for b, e in s:
        for t in range(b, e):
            for j in range(len(filt)):
                if t + j < e:
                    out[t] += x2[t + j] * filt[j]
    return out.reshape(x.shape).astype(x.dtype)


def row_conv_grad(x, off, filt, dout):
    x2, s = _row_seqs(x, off)
    d2 = dout.reshape(x2.shape)
    gx, gf = np.zeros(x2.shape), np.zeros(filt.shape)
    for b, e in s:
        for t in range(b, e):
            for j in range(len(filt)):
                if t + j < e:
                    gx[t + j] += d2[t] * filt[j]
                    gf[j] += d2[t] * x2[t + j]
    return gx.reshape(x.shape).astype(x.dtype), gf.astype(x.dtype)


def _viterbi(x, w):
    t_, d = x.shape
    if t_ == 0:
        return np.zeros(0, np.int64)
    alpha = w[0] + x[0]
    track = np.zeros((t_, d), np.int64)
    for t in range(1, t_):
        sc = alpha[:, None] + w[2:]
        track[t] = sc.argmax(0)
        alpha = sc.max(0) + x[t]
    path = np.zeros(t_, np.int64)
    path[-1] = int((alpha + w[1]).argmax())
    for t in range(t_ - 1, 0, -1):
        path[t - 1] = track[t, path[t]]
    return path


def crf_decoding(emission, transition, off=None, label=None, length=None):
    x, w = emission.astype(np.float64), transition.astype(np.float64)
    if length is not None:
        b, t = x.shape[:2]
        out = np.zeros((b, t), np.int64)
        for i, n in enumerate(np.asarray(length).reshape(-1)):
            out[i, :n] = _viterbi(x[i, :n], w)
            if label is not None:
                out[i, :n] = out[i, :n] == np.asarray(label)[i, :n]
        return out
    out = np.zeros((len(x), 1), np.int64)
    for b, e in _seqs(off):
        out[b:e, 0] = _viterbi(x[b:e], w)
    if label is not None:
        out = (out == np.asarray(label).reshape(-1, 1)).astype(np.int64)
    return out
