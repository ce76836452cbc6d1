"""numpy references of the whole-sequence recurrence ops of ops/rnn.yaml (lstm_seq, gru_seq,
simple_rnn_seq and their *_grad ops), written step by step in float64 from the textbook
formulas: Paddle's gate orders (LSTM i, f, g, o; GRU r, z, c with W_hc h + b_hc inside the
reset product), steps at or past seq_len[b] keep the state and give zero outputs. x / out follow
time_major; the reserve outputs (gates, cells, hc) are always time-major [T, B, F]."""
import numpy as np


def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def _setup(x, seq_len, reverse, time_major):
    xb = np.swapaxes(x, 0, 1) if time_major else x  # [B, T, I]
    B, T = xb.shape[:2]
    lens = np.full(B, T) if seq_len is None else np.asarray(seq_len).reshape(-1)
    order = list(range(T - 1, -1, -1)) if reverse else list(range(T))
    return xb.astype(np.float64), B, T, lens, order


def _back(a, time_major, dtype):
    """[B, T, F] -> the op's layout and dtype."""
    return (np.swapaxes(a, 0, 1) if time_major else a).astype(dtype)


def _lay(a, time_major):
    """the op's layout -> [B, T, F] float64 (None stays None)."""
    if a is None:
        return None
    return (np.swapaxes(a, 0, 1) if time_major else a).astype(np.float64)


def _b(v, n):
    return np.zeros(n) if v is None else v.astype(np.float64)


def lstm_seq(x, h0, c0, w_ih, w_hh, b_ih=None, b_hh=None, seq_len=None, reverse=False, time_major=False):
    xb, B, T, lens, order = _setup(x, seq_len, reverse, time_major)
    H = h0.shape[1]
    h, c = h0.astype(np.float64), c0.astype(np.float64)
    out, gates, cells = np.zeros((B, T, H)), np.zeros((B, T, 4 * H)), np.zeros((B, T, H))
    for t in order:
        pre = xb[:, t] @ w_ih.T + _b(b_ih, 4 * H) + h @ w_hh.T + _b(b_hh, 4 * H)
        i, f, g, o = _sig(pre[:, :H]), _sig(pre[:, H:2 * H]), np.tanh(pre[:, 2 * H:3 * H]), _sig(pre[:, 3 * H:])
        c2 = f * c + i * g
        h2 = o * np.tanh(c2)
        m = (t < lens)[:, None]
        h, c = np.where(m, h2, h), np.where(m, c2, c)
        out[:, t] = np.where(m, h2, 0)
        gates[:, t] = np.where(m, np.concatenate([i, f, g, o], 1), 0)
        cells[:, t] = c
    dt = x.dtype
    return (_back(out, time_major, dt), h.astype(dt), c.astype(dt), _back(gates, time_major, dt), _back(cells, time_major, dt))


def _hprev(out, h0, lens, order):
    """h before each step (processing order): the previous step's output where that step was
    valid, else h0 (a sequence's state stays h0 until its first valid step)."""
    hp = np.zeros_like(out)
    for s, t in enumerate(order):
        if s == 0:
            hp[:, t] = h0
        else:
            tp = order[s - 1]
            hp[:, t] = np.where((tp < lens)[:, None], out[:, tp], h0)
    return hp


def lstm_seq_grad(x, h0, c0, w_ih, w_hh, seq_len, out, gates, cells, dout, dh_n, dc_n, dgates, dcells,
                  reverse=False, time_major=False):
    xb, B, T, lens, order = _setup(x, seq_len, reverse, time_major)
    H = h0.shape[1]
    out, gates, cells = _lay(out, time_major), _lay(gates, time_major), _lay(cells, time_major)
    dout, dgates, dcells = _lay(dout, time_major), _lay(dgates, time_major), _lay(dcells, time_major)
    dh = np.zeros((B, H)) if dh_n is None else dh_n.astype(np.float64)
    dc = np.zeros((B, H)) if dc_n is None else dc_n.astype(np.float64)
    dz = np.zeros((B, T, 4 * H))
    for s in range(T - 1, -1, -1):
        t = order[s]
        cp = c0.astype(np.float64) if s == 0 else cells[:, order[s - 1]]
        m = (t < lens)[:, None]
        if dcells is not None:
            dc = dc + dcells[:, t]
        dht = dh + (dout[:, t] if dout is not None else 0)
        i, f, g, o = (gates[:, t, k * H:(k + 1) * H] for k in range(4))
        tc = np.tanh(cells[:, t])
        dct = dc + dht * o * (1 - tc * tc)
        ext = dgates[:, t] if dgates is not None else np.zeros((B, 4 * H))
        da = [dct * g + ext[:, :H], dct * cp + ext[:, H:2 * H], dct * i + ext[:, 2 * H:3 * H],
              dht * tc + ext[:, 3 * H:]]
        z = np.concatenate([da[0] * i * (1 - i), da[1] * f * (1 - f), da[2] * (1 - g * g), da[3] * o * (1 - o)], 1)
        z = np.where(m, z, 0)
        dz[:, t] = z
        dc = np.where(m, dct * f, dc)
        dh = np.where(m, z @ w_hh, dh)
    hp = _hprev(out, h0.astype(np.float64), lens, order)
    zf = dz.reshape(B * T, 4 * H)
    dt = x.dtype
    dx = _back(dz @ w_ih, time_major, dt)
    return (dx, dh.astype(dt), dc.astype(dt), (zf.T @ xb.reshape(B * T, -1)).astype(dt),
            (zf.T @ hp.reshape(B * T, H)).astype(dt), zf.sum(0).astype(dt))


def gru_seq(x, h0, w_ih, w_hh, b_ih=None, b_hh=None, seq_len=None, reverse=False, time_major=False):
    xb, B, T, lens, order = _setup(x, seq_len, reverse, time_major)
    H = h0.shape[1]
    h = h0.astype(np.float64)
    out, gates, hcs = np.zeros((B, T, H)), np.zeros((B, T, 3 * H)), np.zeros((B, T, H))
    for t in order:
        xp = xb[:, t] @ w_ih.T + _b(b_ih, 3 * H)
        hg = h @ w_hh.T + _b(b_hh, 3 * H)
        r = _sig(xp[:, :H] + hg[:, :H])
        z = _sig(xp[:, H:2 * H] + hg[:, H:2 * H])
        c = np.tanh(xp[:, 2 * H:] + r * hg[:, 2 * H:])
        h2 = (h - c) * z + c
        m = (t < lens)[:, None]
        h = np.where(m, h2, h)
        out[:, t] = np.where(m, h2, 0)
        gates[:, t] = np.where(m, np.concatenate([r, z, c], 1), 0)
        hcs[:, t] = np.where(m, hg[:, 2 * H:], 0)
    dt = x.dtype
    return _back(out, time_major, dt), h.astype(dt), _back(gates, time_major, dt), _back(hcs, time_major, dt)


def gru_seq_grad(x, h0, w_ih, w_hh, seq_len, out, gates, hc, dout, dh_n, dgates, dhc, reverse=False,
                 time_major=False):
    xb, B, T, lens, order = _setup(x, seq_len, reverse, time_major)
    H = h0.shape[1]
    out, gates, hc = _lay(out, time_major), _lay(gates, time_major), _lay(hc, time_major)
    dout, dgates, dhc = _lay(dout, time_major), _lay(dgates, time_major), _lay(dhc, time_major)
    hp = _hprev(out, h0.astype(np.float64), lens, order)
    dh = np.zeros((B, H)) if dh_n is None else dh_n.astype(np.float64)
    dxp, dhg = np.zeros((B, T, 3 * H)), np.zeros((B, T, 3 * H))
    for s in range(T - 1, -1, -1):
        t = order[s]
        m = (t < lens)[:, None]
        dht = dh + (dout[:, t] if dout is not None else 0)
        r, z, c = (gates[:, t, k * H:(k + 1) * H] for k in range(3))
        ext = dgates[:, t] if dgates is not None else np.zeros((B, 3 * H))
        ehc = dhc[:, t] if dhc is not None else 0
        dz_ = dht * (hp[:, t] - c) + ext[:, H:2 * H]
        dcc = (dht * (1 - z) + ext[:, 2 * H:]) * (1 - c * c)
        dr = (dcc * hc[:, t] + ext[:, :H]) * r * (1 - r)
        dzz = dz_ * z * (1 - z)
        a = np.where(m, np.concatenate([dr, dzz, dcc], 1), 0)
        g = np.where(m, np.concatenate([dr, dzz, dcc * r + ehc], 1), 0)
        dxp[:, t], dhg[:, t] = a, g
        dh = np.where(m, dht * z + g @ w_hh, dh)
    af, gf = dxp.reshape(B * T, 3 * H), dhg.reshape(B * T, 3 * H)
    dt = x.dtype
    return (_back(dxp @ w_ih, time_major, dt), dh.astype(dt), (af.T @ xb.reshape(B * T, -1)).astype(dt),
            (gf.T @ hp.reshape(B * T, H)).astype(dt), af.sum(0).astype(dt), gf.sum(0).astype(dt))


def simple_rnn_seq(x, h0, w_ih, w_hh, b_ih=None, b_hh=None, seq_len=None, activation="tanh", reverse=False,
                   time_major=False):
    xb, B, T, lens, order = _setup(x, seq_len, reverse, time_major)
    H = h0.shape[1]
    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    h = h0.astype(np.float64)
    out = np.zeros((B, T, H))
    for t in order:
        h2 = act(xb[:, t] @ w_ih.T + _b(b_ih, H) + h @ w_hh.T + _b(b_hh, H))
        m = (t < lens)[:, None]
        h = np.where(m, h2, h)
        out[:, t] = np.where(m, h2, 0)
    return _back(out, time_major, x.dtype), h.astype(x.dtype)


def simple_rnn_seq_grad(x, h0, w_ih, w_hh, seq_len, out, dout, dh_n, activation="tanh", reverse=False,
                        time_major=False):
    xb, B, T, lens, order = _setup(x, seq_len, reverse, time_major)
    H = h0.shape[1]
    out, dout = _lay(out, time_major), _lay(dout, time_major)
    hp = _hprev(out, h0.astype(np.float64), lens, order)
    dh = np.zeros((B, H)) if dh_n is None else dh_n.astype(np.float64)
    dz = np.zeros((B, T, H))
    for s in range(T - 1, -1, -1):
        t = order[s]
        m = (t < lens)[:, None]
        dht = dh + (dout[:, t] if dout is not None else 0)
        y = out[:, t]
        d = dht * ((1 - y * y) if activation == "tanh" else (y > 0))
        d = np.where(m, d, 0)
        dz[:, t] = d
        dh = np.where(m, d @ w_hh, dh)
    zf = dz.reshape(B * T, H)
    dt = x.dtype
    return (_back(dz @ w_ih, time_major, dt), dh.astype(dt), (zf.T @ xb.reshape(B * T, -1)).astype(dt),
            (zf.T @ hp.reshape(B * T, H)).astype(dt), zf.sum(0).astype(dt))
