"""paddle.nn recurrent layers against a numpy reference: the three cells, RNN/BiRNN wrappers,
multi-layer and bidirectional SimpleRNN/LSTM/GRU with initial states and sequence_length
masking, Paddle's parameter names/shapes/init range, and gradients vs finite differences."""
import numpy as np
import pytest

import paddle
import paddle.nn as nn


def sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def P(cell):
    return [getattr(cell, n).numpy().astype(np.float64) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]


def np_cell(mode, p, x, state):
    wih, whh, bih, bhh = p
    if mode == "LSTM":
        h, c = state
        g = x @ wih.T + bih + h @ whh.T + bhh
        i, f, gg, o = np.split(g, 4, axis=-1)
        c2 = sig(f) * c + sig(i) * np.tanh(gg)
        h2 = sig(o) * np.tanh(c2)
        return h2, (h2, c2)
    if mode == "GRU":
        h = state
        xr, xz, xc = np.split(x @ wih.T + bih, 3, axis=-1)
        hr, hz, hc = np.split(state @ whh.T + bhh, 3, axis=-1)
        r, z = sig(xr + hr), sig(xz + hz)
        c = np.tanh(xc + r * hc)
        h2 = (h - c) * z + c
        return h2, h2
    act = np.tanh if mode == "RNN_TANH" else (lambda v: np.maximum(v, 0))
    h2 = act(x @ wih.T + bih + state @ whh.T + bhh)
    return h2, h2


def np_run(mode, p, x, state, lens=None, reverse=False):
    """x [B, T, I] batch-major; returns outputs [B, T, H] (zero past lengths) and final state."""
    B, T = x.shape[:2]
    outs = [None] * T
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        y, new = np_cell(mode, p, x[:, t], state)
        if lens is not None:
            m = (t < np.asarray(lens))[:, None].astype(np.float64)
            if mode == "LSTM":
                new = tuple(n * m + o * (1 - m) for n, o in zip(new, state))
            else:
                new = new * m + state * (1 - m)
            y = y * m
        state = new
        outs[t] = y
    return np.stack(outs, axis=1), state


def np_multi(mode, net, x, init=None, lens=None):
    L, D, H = net.num_layers, net.num_directions, net.hidden_size
    B = x.shape[0]
    comps = 2 if mode == "LSTM" else 1
    if init is None:
        init = [np.zeros((L * D, B, H))] * comps
    finals = [[] for _ in range(comps)]
    for i in range(L):
        layer = net[i]
        cells = [layer.cell] if D == 1 else [layer.cell_fw, layer.cell_bw]
        outs = []
        for d, cell in enumerate(cells):
            k = i * D + d
            st = tuple(s[k] for s in init) if comps == 2 else init[0][k]
            o, f = np_run(mode, P(cell), x, st, lens, reverse=d == 1)
            outs.append(o)
            for ci in range(comps):
                finals[ci].append(f[ci] if comps == 2 else f)
        x = np.concatenate(outs, axis=-1)
    return x, [np.stack(f) for f in finals]


@pytest.fixture
def f64():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    yield
    paddle.set_default_dtype(old)


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("cls,gates", [(nn.SimpleRNNCell, 1), (nn.LSTMCell, 4), (nn.GRUCell, 3)])
def test_cell_parameters(cls, gates):
    cell = cls(5, 7)
    names = [n for n, _ in cell.named_parameters()]
    assert names == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert cell.weight_ih.shape == [gates * 7, 5]
    assert cell.weight_hh.shape == [gates * 7, 7]
    assert cell.bias_ih.shape == [gates * 7] and cell.bias_hh.shape == [gates * 7]
    bound = 1 / np.sqrt(7)
    for p in cell.parameters():
        v = p.numpy()
        assert v.min() >= -bound and v.max() <= bound
        assert v.size < 30 or v.std() > bound / 3  # uniform: std = bound / sqrt(3)


def test_no_bias_and_state_shape():
    cell = nn.LSTMCell(3, 4, bias_ih_attr=False, bias_hh_attr=False)
    assert cell.bias_ih is None and cell.bias_hh is None
    assert cell.state_shape == ((4,), (4,))
    assert nn.GRUCell(3, 4).state_shape == (4,)
    x = paddle.rand([2, 3])
    h, (h2, c) = cell(x)
    p = [cell.weight_ih.numpy(), cell.weight_hh.numpy(), 0.0, 0.0]
    ref, _ = np_cell("LSTM", p, x.numpy().astype(np.float64), (np.zeros((2, 4)), np.zeros((2, 4))))
    np.testing.assert_allclose(h.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_rnn_state_dict_names():
    # Paddle's flat names first, then the per-cell names, sharing the parameters
    net = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    keys = list(net.state_dict().keys())
    assert keys[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert keys[16:20] == ["0.cell_fw.weight_ih", "0.cell_fw.weight_hh", "0.cell_fw.bias_ih", "0.cell_fw.bias_hh"]
    assert "1.cell_bw.bias_hh" in keys and "bias_hh_l1_reverse" in keys and len(keys) == 32
    assert len(net.parameters()) == 16
    assert net[1].cell_fw.weight_ih.shape == [16, 8]
    keys = list(nn.GRU(3, 4).state_dict().keys())
    assert keys == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                    "0.cell.weight_ih", "0.cell.weight_hh", "0.cell.bias_ih", "0.cell.bias_hh"]


def test_bad_arguments():
    with pytest.raises(ValueError):
        nn.LSTM(3, 4, direction="sideways")
    with pytest.raises(ValueError):
        nn.SimpleRNN(3, 4, activation="sigmoid")
    with pytest.raises(ValueError):
        nn.SimpleRNNCell(3, 4, activation="gelu")
    with pytest.raises(ValueError):
        nn.GRU(0, 4)
    net = nn.GRU(3, 4)
    with pytest.raises(ValueError):
        net(paddle.rand([2, 5, 6]))
    with pytest.raises(ValueError):
        net(paddle.rand([2, 5, 3]), paddle.zeros([2, 2, 4]))
    with pytest.raises(ValueError):
        paddle._C._C_ops.lstm_cell_fused(paddle.rand([2, 7]), paddle.rand([2, 2]))


# ------------------------------------------------------------------ cells
@pytest.mark.parametrize("mode,cls", [("RNN_TANH", nn.SimpleRNNCell), ("LSTM", nn.LSTMCell), ("GRU", nn.GRUCell)])
def test_cells_vs_numpy(mode, cls, f64):
    cell = cls(3, 5)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3))
    h0 = rng.normal(size=(4, 5))
    if mode == "LSTM":
        c0 = rng.normal(size=(4, 5))
        y, (h, c) = cell(paddle.to_tensor(x), (paddle.to_tensor(h0), paddle.to_tensor(c0)))
        ry, (rh, rc) = np_cell(mode, P(cell), x, (h0, c0))
        np.testing.assert_allclose(c.numpy(), rc, rtol=1e-10, atol=1e-12)
    else:
        y, h = cell(paddle.to_tensor(x), paddle.to_tensor(h0))
        ry, rh = np_cell(mode, P(cell), x, h0)
    np.testing.assert_allclose(y.numpy(), ry, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-10, atol=1e-12)


def test_simple_rnn_cell_relu_default_state():
    cell = nn.SimpleRNNCell(3, 4, activation="relu")
    x = paddle.rand([2, 3])
    y, h = cell(x)
    ry, _ = np_cell("RNN_RELU", P(cell), x.numpy().astype(np.float64), np.zeros((2, 4)))
    np.testing.assert_allclose(y.numpy(), ry, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ wrappers
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("time_major", [False, True])
def test_rnn_wrapper(reverse, time_major, f64):
    cell = nn.GRUCell(3, 4)
    rnn = nn.RNN(cell, is_reverse=reverse, time_major=time_major)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, 3))
    h0 = rng.normal(size=(2, 4))
    xin = np.swapaxes(x, 0, 1) if time_major else x
    out, h = rnn(paddle.to_tensor(xin), paddle.to_tensor(h0))
    ro, rh = np_run("GRU", P(cell), x, h0, reverse=reverse)
    got = np.swapaxes(out.numpy(), 0, 1) if time_major else out.numpy()
    np.testing.assert_allclose(got, ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-10, atol=1e-12)


def test_rnn_wrapper_custom_cell(f64):
    class MyCell(nn.RNNCellBase):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([3, 3], dtype="float64")

        def forward(self, x, h):
            h2 = paddle.tanh(paddle.matmul(x, self.w) + h)
            return h2 * 2.0, h2

        @property
        def state_shape(self):
            return (3,)

    cell = MyCell()
    x = np.random.default_rng(2).normal(size=(2, 4, 3))
    out, h = nn.RNN(cell)(paddle.to_tensor(x))
    w = cell.w.numpy()
    hh = np.zeros((2, 3))
    outs = []
    for t in range(4):
        hh = np.tanh(x[:, t] @ w + hh)
        outs.append(hh * 2)
    np.testing.assert_allclose(out.numpy(), np.stack(outs, 1), rtol=1e-10)
    np.testing.assert_allclose(h.numpy(), hh, rtol=1e-10)


def test_birnn_with_lengths(f64):
    fw, bw = nn.LSTMCell(3, 4), nn.LSTMCell(3, 4)
    birnn = nn.BiRNN(fw, bw)
    x = np.random.default_rng(3).normal(size=(3, 6, 3))
    lens = [6, 2, 4]
    out, (sfw, sbw) = birnn(paddle.to_tensor(x), sequence_length=paddle.to_tensor(lens, dtype="int64"))
    z = (np.zeros((3, 4)), np.zeros((3, 4)))
    ofw, ffw = np_run("LSTM", P(fw), x, z, lens)
    obw, fbw = np_run("LSTM", P(bw), x, z, lens, reverse=True)
    np.testing.assert_allclose(out.numpy(), np.concatenate([ofw, obw], -1), rtol=1e-10, atol=1e-12)
    for got, ref in zip(list(sfw) + list(sbw), list(ffw) + list(fbw)):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-12)
    assert out.shape == [3, 6, 8]


# ------------------------------------------------------------------ multi-layer networks
@pytest.mark.parametrize("mode", ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"])
@pytest.mark.parametrize("direction", ["forward", "bidirect", "bidirectional"])
def test_networks_vs_numpy(mode, direction, f64):
    kw = dict(num_layers=2, direction=direction)
    if mode == "LSTM":
        net = nn.LSTM(3, 4, **kw)
    elif mode == "GRU":
        net = nn.GRU(3, 4, **kw)
    else:
        net = nn.SimpleRNN(3, 4, activation="tanh" if mode == "RNN_TANH" else "relu", **kw)
    D = 2 if direction != "forward" else 1
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 5, 3))
    comps = 2 if mode == "LSTM" else 1
    init = [rng.normal(size=(2 * D, 3, 4)) for _ in range(comps)]
    lens = [5, 1, 3]
    pin = tuple(paddle.to_tensor(s) for s in init) if comps == 2 else paddle.to_tensor(init[0])
    out, st = net(paddle.to_tensor(x), pin, paddle.to_tensor(lens))
    ro, rst = np_multi(mode, net, x, init, lens)
    assert out.shape == [3, 5, 4 * D]
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-9, atol=1e-11)
    sts = list(st) if comps == 2 else [st]
    for g, r in zip(sts, rst):
        assert g.shape == [2 * D, 3, 4]
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-9, atol=1e-11)
    # outputs past a sequence's length are zero
    assert np.all(out.numpy()[1, 1:] == 0) and np.all(out.numpy()[2, 3:] == 0)


def test_time_major_and_default_states():
    net = nn.LSTM(3, 4, time_major=True)
    x = paddle.rand([5, 2, 3])
    out, (h, c) = net(x)
    assert out.shape == [5, 2, 4] and h.shape == [1, 2, 4] and c.shape == [1, 2, 4]
    ro, (rh, rc) = np_multi("LSTM", net, np.swapaxes(x.numpy().astype(np.float64), 0, 1))
    np.testing.assert_allclose(np.swapaxes(out.numpy(), 0, 1), ro, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out.numpy()[-1], h.numpy()[0], rtol=1e-6)


def test_dropout_between_layers():
    paddle.seed(5)
    net = nn.GRU(3, 8, num_layers=2, dropout=0.5)
    x = paddle.rand([2, 4, 3])
    net.eval()
    a, _ = net(x)
    b, _ = net(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    ro, _ = np_multi("GRU", net, x.numpy().astype(np.float64))
    np.testing.assert_allclose(a.numpy(), ro, rtol=1e-4, atol=1e-5)
    net.train()
    c, _ = net(x)
    assert not np.allclose(c.numpy(), a.numpy())


# ------------------------------------------------------------------ gradients
def _numeric(f, arr, eps=1e-6):
    g = np.zeros_like(arr)
    flat, gf = arr.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = f()
        flat[i] = old - eps
        fm = f()
        flat[i] = old
        gf[i] = (fp - fm) / (2 * eps)
    return g


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
def test_gradients_vs_finite_differences(mode, f64):
    cls = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN_TANH": nn.SimpleRNN}[mode]
    net = cls(2, 3, num_layers=1, direction="bidirect")
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 4, 2))
    lens = [4, 2]
    wo = rng.uniform(0.5, 1.5, size=(2, 4, 6))
    wh = rng.uniform(0.5, 1.5, size=(2, 2, 3))
    xt = paddle.to_tensor(x, stop_gradient=False)
    out, st = net(xt, sequence_length=paddle.to_tensor(lens))
    h = st[0] if mode == "LSTM" else st
    loss = (out * paddle.to_tensor(wo)).sum() + (h * paddle.to_tensor(wh)).sum()
    cell = net[0].cell_fw
    params = [cell.weight_ih, cell.weight_hh, cell.bias_hh, net[0].cell_bw.weight_hh]
    grads = paddle.grad([loss], [xt] + params)
    arrays = [x] + [P(cell)[0], P(cell)[1], P(cell)[3], P(net[0].cell_bw)[1]]

    def f():
        pf, pb = P(cell), P(net[0].cell_bw)
        pf[0], pf[1], pf[3], pb[1] = arrays[1], arrays[2], arrays[3], arrays[4]
        z = (np.zeros((2, 3)), np.zeros((2, 3))) if mode == "LSTM" else np.zeros((2, 3))
        of, sf = np_run(mode, pf, arrays[0], z, lens)
        ob, sb = np_run(mode, pb, arrays[0], z, lens, reverse=True)
        hf, hb = (sf[0], sb[0]) if mode == "LSTM" else (sf, sb)
        return float((np.concatenate([of, ob], -1) * wo).sum() + (np.stack([hf, hb]) * wh).sum())

    for g, a in zip(grads, arrays):
        np.testing.assert_allclose(g.numpy(), _numeric(f, a), rtol=1e-6, atol=1e-7)


def test_backward_accumulates_into_parameters():
    net = nn.LSTM(3, 4, num_layers=2)
    out, (h, c) = net(paddle.rand([2, 5, 3]))
    (out.sum() + c.sum()).backward()
    for p in net.parameters():
        assert p.grad is not None and p.grad.shape == p.shape
        assert np.abs(p.grad.numpy()).sum() > 0


def test_lstm_fused_refuses_create_graph():
    cell = nn.LSTMCell(2, 2)
    x = paddle.rand([1, 2])
    x.stop_gradient = False
    h, _ = cell(x)
    with pytest.raises(NotImplementedError, match="create_graph"):
        paddle.grad([h.sum()], [x], create_graph=True)


@pytest.mark.parametrize("direction,time_major", [("forward", False), ("bidirect", True)])
def test_lstm_sequence_node_gradients(direction, time_major, f64):
    """The whole-sequence LSTM op vs finite differences, for inputs, initial states and every
    weight; and the same values with sequence_length set to the full lengths."""
    net = nn.LSTM(2, 3, direction=direction, time_major=time_major)
    D = 2 if direction == "bidirect" else 1
    rng = np.random.default_rng(9)
    x = rng.normal(size=(3, 2, 2)) if time_major else rng.normal(size=(2, 3, 2))
    h0, c0 = rng.normal(size=(D, 2, 3)), rng.normal(size=(D, 2, 3))
    wo = rng.uniform(0.5, 1.5, size=(3, 2, 3 * D) if time_major else (2, 3, 3 * D))
    wh, wc = rng.uniform(0.5, 1.5, size=(D, 2, 3)), rng.uniform(0.5, 1.5, size=(D, 2, 3))
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (x, h0, c0)]
    out, (h, c) = net(ts[0], (ts[1], ts[2]))
    loss = (out * paddle.to_tensor(wo)).sum() + (h * paddle.to_tensor(wh)).sum() + (c * paddle.to_tensor(wc)).sum()
    cell = net[0].cell if D == 1 else net[0].cell_bw
    params = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh]
    grads = paddle.grad([loss], ts + params, retain_graph=True)
    arrays = [x, h0, c0] + P(cell)
    names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]

    def f():
        saved = P(cell)
        with paddle.no_grad():
            for n, a in zip(names, arrays[3:]):
                getattr(cell, n).set_value(a)
        xb = np.swapaxes(arrays[0], 0, 1) if time_major else arrays[0]
        ro, (rh, rc) = np_multi("LSTM", net, xb, [arrays[1], arrays[2]])
        with paddle.no_grad():
            for n, a in zip(names, saved):
                getattr(cell, n).set_value(a)
        ro = np.swapaxes(ro, 0, 1) if time_major else ro
        return float((ro * wo).sum() + (rh * wh).sum() + (rc * wc).sum())

    for g, a in zip(grads, arrays):
        np.testing.assert_allclose(g.numpy(), _numeric(f, a), rtol=1e-6, atol=1e-7)
    # same values with explicit full lengths
    out2, (h2, c2) = net(ts[0], (ts[1], ts[2]), sequence_length=paddle.to_tensor([3, 3]))
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-12, atol=1e-13)
    loss2 = (out2 * paddle.to_tensor(wo)).sum() + (h2 * paddle.to_tensor(wh)).sum() + (c2 * paddle.to_tensor(wc)).sum()
    for g, g2 in zip(grads, paddle.grad([loss2], ts + params)):
        np.testing.assert_allclose(g2.numpy(), g.numpy(), rtol=1e-9, atol=1e-11)


# ------------------------------------------------------------------ whole-sequence C ops
def test_lstm_two_layer_bidirectional_vs_step_by_step_numpy(f64):
    """nn.LSTM (the lstm_seq op per layer and direction) against a step-by-step numpy LSTM: outputs,
    final states, and the gradients of every parameter, the input and both initial states
    (central differences of the numpy network), with sequence_length."""
    net = nn.LSTM(2, 3, num_layers=2, direction="bidirect")
    rng = np.random.default_rng(11)
    B, T = 3, 4
    x = rng.normal(size=(B, T, 2))
    h0, c0 = rng.normal(size=(4, B, 3)), rng.normal(size=(4, B, 3))
    lens = [4, 1, 3]
    wo = rng.uniform(0.5, 1.5, size=(B, T, 6))
    wh, wc = rng.uniform(0.5, 1.5, size=(4, B, 3)), rng.uniform(0.5, 1.5, size=(4, B, 3))
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (x, h0, c0)]
    out, (h, c) = net(ts[0], (ts[1], ts[2]), paddle.to_tensor(lens))
    ro, (rh, rc) = np_multi("LSTM", net, x, [h0, c0], lens)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), rc, rtol=1e-10, atol=1e-12)
    loss = (out * paddle.to_tensor(wo)).sum() + (h * paddle.to_tensor(wh)).sum() + (c * paddle.to_tensor(wc)).sum()
    params = list(net.parameters())
    assert len(params) == 16
    grads = paddle.grad([loss], ts + params)
    arrays = [x, h0, c0] + [p.numpy().copy() for p in params]

    def f():
        saved = [p.numpy().copy() for p in params]
        with paddle.no_grad():
            for p, a in zip(params, arrays[3:]):
                p.set_value(a)
        o, (hh, cc) = np_multi("LSTM", net, arrays[0], [arrays[1], arrays[2]], lens)
        with paddle.no_grad():
            for p, a in zip(params, saved):
                p.set_value(a)
        return float((o * wo).sum() + (hh * wh).sum() + (cc * wc).sum())

    for g, a in zip(grads, arrays):
        np.testing.assert_allclose(g.numpy(), _numeric(f, a), rtol=1e-6, atol=1e-7)


def _ref_rnn():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "ops", "ref_rnn.py")
    spec = importlib.util.spec_from_file_location("ref_rnn", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("split", ["", "units", "rows"])
@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_seq_ops_multithreaded_vs_numpy(kind, dtype, split, monkeypatch):
    """Sizes where the recurrence splits its hidden units across two threads (and one thread, for
    comparison): outputs and gradients of the op against the numpy references of
    tests/ops/ref_rnn.py (forward, then backpropagation through time). The LSTM's split by batch rows
    (PADDLE_C_RNN_SPLIT=rows; the rule takes it at this size) and by hidden units (=units) too."""
    if split:
        monkeypatch.setenv("PADDLE_C_RNN_SPLIT", split)
    ref = _ref_rnn()
    ops = paddle._C._C_ops
    G, H = {"lstm": (4, 96), "gru": (3, 96), "rnn": (1, 160)}[kind]
    B, T, I_ = 8, 5, 7
    rng = np.random.default_rng(12)
    x = rng.normal(size=(T, B, I_)) * 0.5
    h0, c0 = rng.normal(size=(B, H)) * 0.5, rng.normal(size=(B, H)) * 0.5
    w_ih, w_hh = rng.normal(size=(G * H, I_)) * 0.2, rng.normal(size=(G * H, H)) * 0.1
    b_ih, b_hh = rng.normal(size=G * H) * 0.1, rng.normal(size=G * H) * 0.1
    lens = np.array([5, 0, 3, 5, 1, 2, 4, 5])
    dout = rng.normal(size=(T, B, H))
    dh_n = rng.normal(size=(B, H))
    tol = dict(rtol=1e-9, atol=1e-10) if dtype == "float64" else dict(rtol=2e-3, atol=2e-4)
    old = paddle._C.get_num_threads()
    try:
        for nthreads in (2, 1):
            paddle._C.set_num_threads(nthreads)
            t = [paddle.to_tensor(a.astype(dtype), stop_gradient=False) for a in (x, h0, c0, w_ih, w_hh, b_ih, b_hh)]
            sl = paddle.to_tensor(lens)
            if kind == "lstm":
                res = ops.lstm_seq(t[0], t[1], t[2], t[3], t[4], t[5], t[6], sl, True, True)
                r_out = ref.lstm_seq(x, h0, c0, w_ih, w_hh, b_ih, b_hh, lens, True, True)
                r_g = ref.lstm_seq_grad(x, h0, c0, w_ih, w_hh, lens, r_out[0], r_out[3], r_out[4], dout, dh_n,
                                        None, None, None, True, True)
                ins, r_grads = [t[0], t[1], t[2], t[3], t[4], t[5], t[6]], list(r_g) + [r_g[5]]
            elif kind == "gru":
                res = ops.gru_seq(t[0], t[1], t[3], t[4], t[5], t[6], sl, True, True)
                r_out = ref.gru_seq(x, h0, w_ih, w_hh, b_ih, b_hh, lens, True, True)
                r_g = ref.gru_seq_grad(x, h0, w_ih, w_hh, lens, r_out[0], r_out[2], r_out[3], dout, dh_n, None,
                                       None, True, True)
                ins, r_grads = [t[0], t[1], t[3], t[4], t[5], t[6]], list(r_g)
            else:
                w_ih1, w_hh1 = t[3][:H], t[4][:H]
                res = ops.simple_rnn_seq(t[0], t[1], w_ih1, w_hh1, t[5][:H], t[6][:H], sl, "tanh", True, True)
                r_out = ref.simple_rnn_seq(x, h0, w_ih[:H], w_hh[:H], b_ih[:H], b_hh[:H], lens, "tanh", True, True)
                r_g = ref.simple_rnn_seq_grad(x, h0, w_ih[:H], w_hh[:H], lens, r_out[0], dout, dh_n, "tanh", True,
                                              True)
                ins, r_grads = [t[0], t[1], w_ih1, w_hh1], list(r_g[:4])
            for got, want in zip(res, r_out):
                np.testing.assert_allclose(got.numpy(), want, **tol)
            loss = (res[0] * paddle.to_tensor(dout.astype(dtype))).sum() + \
                (res[1] * paddle.to_tensor(dh_n.astype(dtype))).sum()
            grads = paddle.grad([loss], ins)
            for g, want in zip(grads, r_grads):
                np.testing.assert_allclose(g.numpy(), want, **tol)
    finally:
        paddle._C.set_num_threads(old)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("B,H", [(6, 43), (1, 40), (13, 72), (23, 96)])
def test_seq_ops_batch_major_zero_state_vector_tails(kind, B, H):
    """float32, batch-major x (rows of every buffer follow x's layout), zero initial states (the
    forward skips the first step's W_hh product) and H = 43 hidden units, so the AVX2 cells run
    4-vector blocks, a single vector and a scalar tail; other batch sizes and widths exercise the
    per-step GEMM's row blocks (1, 7 + 6, 12 + 11 rows) and its one- and two-panel tiles, full
    and partial: op outputs and gradients against the numpy references, in both directions."""
    ref = _ref_rnn()
    ops = paddle._C._C_ops
    G, T, I_ = (4 if kind == "lstm" else 3), 7, 5
    rng = np.random.default_rng(5)
    x = rng.normal(size=(B, T, I_))
    h0 = np.zeros((B, H))
    w_ih, w_hh = rng.normal(size=(G * H, I_)) * 0.3, rng.normal(size=(G * H, H)) * 0.2
    b_ih, b_hh = rng.normal(size=G * H) * 0.2, rng.normal(size=G * H) * 0.2
    lens = np.array([7, 3, 0, 5, 7, 1]) if B == 6 else rng.integers(0, T + 1, size=B)
    dout, dh_n = rng.normal(size=(B, T, H)), rng.normal(size=(B, H))
    for reverse in (False, True):
        t = [paddle.to_tensor(a.astype("float32"), stop_gradient=False) for a in (x, h0, h0, w_ih, w_hh, b_ih, b_hh)]
        sl = paddle.to_tensor(lens)
        if kind == "lstm":
            res = ops.lstm_seq(t[0], t[1], t[2], t[3], t[4], t[5], t[6], sl, reverse, False)
            r_out = ref.lstm_seq(x, h0, h0, w_ih, w_hh, b_ih, b_hh, lens, reverse, False)
            r_g = ref.lstm_seq_grad(x, h0, h0, w_ih, w_hh, lens, r_out[0], r_out[3], r_out[4], dout, dh_n, None,
                                    None, None, reverse, False)
            ins, r_grads = t, list(r_g) + [r_g[5]]
        else:
            res = ops.gru_seq(t[0], t[1], t[3], t[4], t[5], t[6], sl, reverse, False)
            r_out = ref.gru_seq(x, h0, w_ih, w_hh, b_ih, b_hh, lens, reverse, False)
            r_g = ref.gru_seq_grad(x, h0, w_ih, w_hh, lens, r_out[0], r_out[2], r_out[3], dout, dh_n, None, None,
                                   reverse, False)
            ins, r_grads = [t[0], t[1], t[3], t[4], t[5], t[6]], list(r_g)
        for got, want in zip(res, r_out):
            np.testing.assert_allclose(got.numpy(), want, rtol=2e-4, atol=2e-5)
        loss = (res[0] * paddle.to_tensor(dout.astype("float32"))).sum() + \
            (res[1] * paddle.to_tensor(dh_n.astype("float32"))).sum()
        for g, want in zip(paddle.grad([loss], ins), r_grads):
            np.testing.assert_allclose(g.numpy(), want, rtol=2e-3, atol=2e-4)


def test_seq_grad_without_initial_state_grads():
    """need_dh0=False (the initial states need no gradient) skips the last reverse step's
    product: dh0/dc0 come back empty and every other gradient is unchanged; through the layer, a
    zero initial state that needs no gradient gets none while the weights get theirs."""
    ops = paddle._C._C_ops
    rng = np.random.default_rng(3)
    B, T, I_, H = 4, 5, 3, 40
    f = lambda *s: paddle.to_tensor(rng.normal(size=s).astype("float32"))
    x, h0, c0, w_ih, w_hh = f(B, T, I_), f(B, H), f(B, H), f(4 * H, I_), f(4 * H, H)
    out, _, _, gates, cells = ops.lstm_seq(x, h0, c0, w_ih, w_hh)
    dout = f(B, T, H)
    full = ops.lstm_seq_grad(x, h0, c0, w_ih, w_hh, None, out, gates, cells, dout, None, None, None, None,
                             False, False, True, True)
    part = ops.lstm_seq_grad(x, h0, c0, w_ih, w_hh, None, out, gates, cells, dout, None, None, None, None,
                             False, False, True, False)
    assert part[1].shape == [0] and part[2].shape == [0] and full[1].shape == [B, H]
    for k in (0, 3, 4, 5):
        np.testing.assert_array_equal(part[k].numpy(), full[k].numpy())
    net = nn.LSTM(I_, H)
    h, c = paddle.zeros([1, B, H]), paddle.zeros([1, B, H])
    y, _ = net(x, (h, c))
    y.sum().backward()
    assert h.grad is None and net[0].cell.weight_hh.grad is not None
    assert np.abs(net[0].cell.weight_hh.grad.numpy()).sum() > 0


def test_seq_ops_nan_propagates():
    """A NaN in the input makes that sequence's outputs NaN from its step on (the vector cells'
    exp clamp keeps NaN), while the other sequences stay finite."""
    for cls in (nn.LSTM, nn.GRU):
        net = cls(4, 48)
        x = np.random.default_rng(0).normal(size=(3, 6, 4)).astype("float32")
        x[1, 2, 0] = np.nan
        y, _ = net(paddle.to_tensor(x))
        y = y.numpy()
        assert np.isfinite(y[[0, 2]]).all() and np.isfinite(y[1, :2]).all()
        assert np.isnan(y[1, 2:]).all()


def test_seq_ops_bad_input_and_double_backward():
    ops = paddle._C._C_ops
    x, h0, c0 = paddle.rand([2, 3, 4]), paddle.rand([2, 5]), paddle.rand([2, 5])
    w_ih, w_hh = paddle.rand([20, 4]), paddle.rand([20, 5])
    with pytest.raises(ValueError, match="lstm_seq"):
        ops.lstm_seq(x, h0, c0, paddle.rand([20, 3]), w_hh)
    with pytest.raises(ValueError, match="lstm_seq.*w_hh"):
        ops.lstm_seq(x, h0, c0, w_ih, paddle.rand([16, 5]))
    with pytest.raises(ValueError, match="gru_seq.*h0"):
        ops.gru_seq(x, paddle.rand([3, 5]), paddle.rand([15, 4]), paddle.rand([15, 5]))
    with pytest.raises(ValueError, match="seq_len"):
        ops.lstm_seq(x, h0, c0, w_ih, w_hh, None, None, paddle.to_tensor([1, 2, 3]))
    with pytest.raises(TypeError, match="seq_len"):
        ops.lstm_seq(x, h0, c0, w_ih, w_hh, None, None, paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="activation"):
        ops.simple_rnn_seq(x, h0, paddle.rand([5, 4]), paddle.rand([5, 5]), None, None, None, "sigmoid")
    with pytest.raises(ValueError, match="lstm_seq"):
        ops.lstm_seq(paddle.rand([2, 3]), h0, c0, w_ih, w_hh)
    net = nn.GRU(3, 4)
    xx = paddle.rand([2, 5, 3])
    xx.stop_gradient = False
    out, _ = net(xx)
    with pytest.raises(NotImplementedError, match="gru_seq.*create_graph"):
        paddle.grad([out.sum()], [xx], create_graph=True)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
def test_seq_path_matches_step_path(mode, f64):
    """The C whole-sequence op and the step-by-step Python path (a subclassed cell keeps it) give
    the same outputs and gradients, with lengths and in reverse."""
    base = {"LSTM": nn.LSTMCell, "GRU": nn.GRUCell, "RNN_TANH": nn.SimpleRNNCell}[mode]

    class Stepwise(base):  # overriding _step keeps the cell on the per-step path
        def _step(self, xp, states):
            return base._step(self, xp, states)

    rng = np.random.default_rng(13)
    fast, slow = base(3, 4), Stepwise(3, 4)
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        getattr(slow, name).set_value(getattr(fast, name).numpy())
    x = rng.normal(size=(3, 5, 3))
    lens = paddle.to_tensor([5, 2, 4])
    res = []
    for cell in (fast, slow):
        xt = paddle.to_tensor(x, stop_gradient=False)
        out, st = nn.RNN(cell, is_reverse=True)(xt, sequence_length=lens)
        hs = st[0] if mode == "LSTM" else st
        loss = (out * out).sum() + (hs * 3.0).sum()
        res.append([out.numpy()] + [g.numpy() for g in paddle.grad([loss], [xt] + list(cell.parameters()))])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("hidden", [96, 600])
def test_lstm_row_split_same_bits_as_unit_split(monkeypatch, hidden):
    """the LSTM recurrence split across two threads by batch rows and by hidden units: the same bits
    for outputs, final states and every gradient (each element is computed in the same order; the
    bias gradient summed over steps and rows in the units split's order), batch-first with
    sequence lengths and time-major, against one thread too. 600 units: each thread's 1200 columns
    of the bias gradient in two chunks (1024 + 176) of the row split's sum"""
    old = paddle._C.get_num_threads()
    try:
        for time_major in (False, True):
            paddle.seed(3)
            net = paddle.nn.LSTM(48, hidden, time_major=time_major)
            xs = np.random.default_rng(5).standard_normal((9, 12, 48) if not time_major else (12, 9, 48))
            lens = paddle.to_tensor(np.array([12, 3, 7, 12, 1, 9, 12, 5, 11]))
            res = {}
            for nt, split in ((2, "units"), (2, "rows"), (1, "units")):
                paddle._C.set_num_threads(nt)
                monkeypatch.setenv("PADDLE_C_RNN_SPLIT", split)
                x = paddle.to_tensor(xs.astype("float32"), stop_gradient=False)
                out, (h, c) = net(x, sequence_length=None if time_major else lens)
                loss = (out * out).sum() + 0.3 * h.sum() + 0.2 * c.sum()
                gs = paddle.grad([loss], [x] + list(net.parameters()))
                res[nt, split] = [out.numpy(), h.numpy(), c.numpy()] + [g.numpy() for g in gs]
            for a, b in zip(res[2, "units"], res[2, "rows"]):
                np.testing.assert_array_equal(a, b)
            for a, b in zip(res[1, "units"], res[2, "rows"]):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * max(float(np.abs(a).max()), 1.0))
    finally:
        paddle._C.set_num_threads(old)
