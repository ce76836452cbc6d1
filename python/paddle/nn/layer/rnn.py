"""Recurrent layers (Paddle 2.3's paddle.nn rnn family): the cells SimpleRNNCell, LSTMCell and
GRUCell, the RNN / BiRNN wrappers that run any cell over time, and the multi-layer SimpleRNN,
LSTM and GRU. For the built-in cells (float32/float64) the whole sequence of one layer and
direction is one C op (lstm_seq / gru_seq / simple_rnn_seq: recurrence, sequence_length masking
and the fused backward in C). Other cells run step by step: cells split into _project (the input
projection of every time step in one GEMM) and _step (one GEMM on the hidden state plus
elementwise work; LSTM's is the fused C op lstm_cell_fused)."""
import math

import numpy as np

from ... import _C
from ...framework.dtype import get_default_dtype
from ...tensor import creation as _cr
from ...tensor import linalg as _la
from ...tensor import manipulation as _mp
from ...tensor import math as _m
from ...tensor import static_shape as _ss
from ...tensor.to_tensor import to_tensor as _to_tensor
from .. import initializer as I
from .container import LayerList
from .layers import Layer

_ops = _C._C_ops
Tensor = _C.Tensor

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN",
           "LSTM", "GRU"]


def _dropout(x, p, training):
    """Dropout with Paddle's default 'upscale_in_train' mode (the shared dropout op)."""
    if not training or p == 0.0:
        return x
    from .. import functional as F
    return F.dropout(x, p, training=True)


def _check_size(name, v):
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"{name} should be a positive integer, received {v!r}")
    return int(v)


def _map(fn, s):
    """Applies fn to every tensor of a nested tuple/list structure."""
    if isinstance(s, (list, tuple)):
        return type(s)(_map(fn, e) for e in s) if isinstance(s, tuple) else [_map(fn, e) for e in s]
    return fn(s)


def _map2(fn, a, b):
    if isinstance(a, (list, tuple)):
        return tuple(_map2(fn, x, y) for x, y in zip(a, b))
    return fn(a, b)


class RNNCellBase(Layer):
    """Base of the recurrent cells: initial states from a batch reference."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with init_value, shaped [batch] + state_shape (batch from batch_ref)."""
        ref = batch_ref
        while isinstance(ref, (list, tuple)):
            ref = ref[0]
        batch = _ss.dim(ref, batch_dim_idx)  # an int, or a program's run-time dim
        shape = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = ref.dtype

        def is_shape(s):
            return isinstance(s, (list, tuple)) and all(isinstance(e, (int, np.integer)) for e in s)

        def make(s):
            return _cr.full([batch] + [int(d) for d in s if d != -1], init_value, dtype=dtype)

        def walk(s):
            if is_shape(s):
                return make(s)
            return tuple(walk(e) for e in s)
        return walk(shape)

    @property
    def state_shape(self):
        raise NotImplementedError("please add implementation for `state_shape` in the used cell")

    @property
    def state_dtype(self):
        raise NotImplementedError("please add implementation for `state_dtype` in the used cell")

    # Built-in cells: forward(x, states) == _step(_project(x), states)
    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs)
        return self._step(self._project(inputs), states)


def _make_params(cell, gates, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                 bias_hh_attr):
    std = 1.0 / math.sqrt(hidden_size)
    init = I.Uniform(-std, std)
    dt = get_default_dtype()  # as Paddle's layers: parameters take the global default dtype
    cell.weight_ih = cell.create_parameter((gates * hidden_size, input_size), weight_ih_attr, dtype=dt,
                                           default_initializer=init)
    cell.weight_hh = cell.create_parameter((gates * hidden_size, hidden_size), weight_hh_attr, dtype=dt,
                                           default_initializer=init)
    cell.bias_ih = cell.create_parameter((gates * hidden_size,), bias_ih_attr, is_bias=True, dtype=dt,
                                         default_initializer=init)
    cell.bias_hh = cell.create_parameter((gates * hidden_size,), bias_hh_attr, is_bias=True, dtype=dt,
                                         default_initializer=init)
    if cell.weight_ih is None or cell.weight_hh is None:
        raise ValueError(f"{type(cell).__name__}: weight_ih_attr and weight_hh_attr cannot be False")


def _proj(x, w, *biases):
    """x W^T plus the biases, summed first so the big output is touched once (and their
    gradient is one column sum)."""
    y = _la.matmul(x, w, transpose_y=True)
    bs = [b for b in biases if b is not None]
    if bs:
        b = bs[0]
        for e in bs[1:]:
            b = b + e
        y = _ops.add(y, b)  # the op (not the operator): auto_cast promotes float16 + float32
    return y


class SimpleRNNCell(RNNCellBase):
    """h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh), act in {'tanh', 'relu'}."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        hidden_size = _check_size("hidden_size", hidden_size)
        input_size = _check_size("input_size", input_size)
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get {activation}")
        _make_params(self, 1, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.activation = activation
        self._activation_fn = _m.tanh if activation == "tanh" else _ops.relu

    def _project(self, x):
        return _proj(x, self.weight_ih, self.bias_ih, self.bias_hh)

    def _step(self, xp, states):
        h = self._activation_fn(xp + _la.matmul(states, self.weight_hh, transpose_y=True))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.activation != "tanh":
            s += ", activation={activation}"
        return s.format(**self.__dict__)


class LSTMCell(RNNCellBase):
    """Paddle's LSTM cell: gates (i, f, g, o) = W_ih x + b_ih + W_hh h + b_hh; c = f*c + i*tanh(g),
    h = o*tanh(c). Returns (h, (h, c))."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        hidden_size = _check_size("hidden_size", hidden_size)
        input_size = _check_size("input_size", input_size)
        _make_params(self, 4, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.input_size = input_size
        self.hidden_size = hidden_size

    def _project(self, x):
        return _proj(x, self.weight_ih, self.bias_ih, self.bias_hh)

    def _step(self, xp, states):
        h_prev, c_prev = states
        gates = _ops.add(xp, _la.matmul(h_prev, self.weight_hh, transpose_y=True))
        if gates.dtype.name in ("float32", "float64") or _amp_level() != "O0":
            h, c = _ops.lstm_cell_fused(gates, c_prev)
        else:  # no fused kernel for 16-bit floats: the same formula from elementwise ops
            gi, gf, gg, go = _mp.split(gates, 4, axis=-1)
            c = _m.sigmoid(gf) * c_prev + _m.sigmoid(gi) * _m.tanh(gg)
            h = _m.sigmoid(go) * _m.tanh(c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        return "{input_size}, {hidden_size}".format(**self.__dict__)


class GRUCell(RNNCellBase):
    """Paddle's GRU cell: r, z from (x_r + h_r), (x_z + h_z); c = tanh(x_c + r * h_c);
    h = (h_prev - c) * z + c, where x_* and h_* include their own biases. Returns (h, h)."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        hidden_size = _check_size("hidden_size", hidden_size)
        input_size = _check_size("input_size", input_size)
        _make_params(self, 3, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.input_size = input_size
        self.hidden_size = hidden_size

    def _project(self, x):
        return _proj(x, self.weight_ih, self.bias_ih)

    def _step(self, xp, states):
        h_prev = states
        hg = _proj(h_prev, self.weight_hh, self.bias_hh)
        x_r, x_z, x_c = _mp.split(xp, 3, axis=-1)
        h_r, h_z, h_c = _mp.split(hg, 3, axis=-1)
        r = _m.sigmoid(x_r + h_r)
        z = _m.sigmoid(x_z + h_z)
        c = _m.tanh(x_c + r * h_c)
        h = (h_prev - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return "{input_size}, {hidden_size}".format(**self.__dict__)


def _fast_cell(cell):
    """True when the cell is a built-in one whose forward is the _project/_step pair."""
    f = type(cell).forward
    return f is RNNCellBase.forward and hasattr(cell, "_project")


def _step_masks(sequence_length, time_steps, dtype):
    """Per-step float masks [B, 1] (1 while t < length), or None."""
    if sequence_length is None:
        return None
    if isinstance(sequence_length, Tensor) and _C._is_variable(sequence_length):
        # a program: the masks are ops over the lengths (t < length, per batch entry)
        lens = _mp.reshape(sequence_length, [-1])
        from ...framework.dtype import convert_dtype
        out = []
        for t in range(time_steps):
            tt = _C._C_ops.full([1], t, lens.dtype)
            out.append(_mp.unsqueeze(_C._C_ops.cast(_C._C_ops.less_than(tt, lens), convert_dtype(dtype)), [-1]))
        return out
    lens = sequence_length.numpy() if isinstance(sequence_length, Tensor) else np.asarray(sequence_length)
    lens = lens.reshape(-1)
    m = (np.arange(time_steps)[:, None] < lens[None, :]).astype(dtype)  # [T, B]
    return [_to_tensor(m[t][:, None], dtype=dtype) for t in range(time_steps)]


def _seq_kind(cell):
    """'LSTM' / 'GRU' / 'RNN' when cell is a built-in cell whose whole sequence one C op can run
    (lstm_seq / gru_seq / simple_rnn_seq), else None (user cells keep the step-by-step path)."""
    t = type(cell)
    if t.forward is not RNNCellBase.forward:
        return None
    for base, kind in ((LSTMCell, "LSTM"), (GRUCell, "GRU"), (SimpleRNNCell, "RNN")):
        if isinstance(cell, base):
            return kind if t._project is base._project and t._step is base._step else None
    return None


def _lengths(sequence_length, batch):
    """sequence_length as an int32/int64 [B] Tensor (or None)."""
    if sequence_length is None:
        return None
    if isinstance(sequence_length, Tensor) and sequence_length.dtype.name in ("int32", "int64"):
        lens = sequence_length
    else:
        v = sequence_length.numpy() if isinstance(sequence_length, Tensor) else np.asarray(sequence_length)
        lens = _to_tensor(np.asarray(v).astype("int64"))
    if lens.ndim != 1:
        lens = _mp.reshape(lens, [-1])
    if lens.shape[0] != batch and lens.shape[0] >= 0 and batch >= 0:
        raise ValueError(f"RNN: sequence_length should hold one length per batch entry ({batch}), "
                         f"received shape {sequence_length.shape if isinstance(sequence_length, Tensor) else lens.shape}")
    return lens


def _run_seq(kind, cell, inputs, states, sequence_length, time_major, is_reverse):
    """The whole recurrence of a built-in cell as one C op (forward and fused backward in C)."""
    lens = _lengths(sequence_length, inputs.shape[1 if time_major else 0])
    rev, tm = bool(is_reverse), bool(time_major)
    if kind == "LSTM":
        h0, c0 = states
        out, h, c, _, _ = _ops.lstm_seq(inputs, h0, c0, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh,
                                        lens, rev, tm)
        return out, (h, c)
    if kind == "GRU":
        out, h, _, _ = _ops.gru_seq(inputs, states, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh, lens,
                                    rev, tm)
        return out, h
    out, h = _ops.simple_rnn_seq(inputs, states, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh, lens,
                                 cell.activation, rev, tm)
    return out, h


def _amp_level():
    from ...amp.auto_cast import _amp_level as level
    return level()


def _run_rnn(cell, inputs, initial_states, sequence_length, time_major, is_reverse, **kwargs):
    """Runs cell over the time axis of inputs; returns (outputs, final_states). Steps past a
    sequence's length keep the previous state and give zero outputs."""
    if not isinstance(inputs, Tensor):
        raise TypeError(f"RNN: inputs should be a Tensor, received {type(inputs).__name__}")
    if len(inputs.shape) < 2:
        raise ValueError(f"RNN: inputs should be at least 2-D [batch, time, ...], received shape {inputs.shape}")
    t_axis, b_axis = (0, 1) if time_major else (1, 0)
    T = inputs.shape[t_axis]
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs, batch_dim_idx=b_axis)
    # under auto_cast the steps run op by op, so each op is cast (and recorded) on its own
    kind = None if kwargs or _amp_level() != "O0" else _seq_kind(cell)
    if kind and len(inputs.shape) == 3 and inputs.dtype.name in ("float32", "float64"):
        return _run_seq(kind, cell, inputs, initial_states, sequence_length, time_major, is_reverse)
    if T < 0:
        raise ValueError("RNN: a program input with an unknown number of time steps needs the built-in "
                         "cells (one op over the whole sequence); a user-defined cell unrolls over a known "
                         "number of steps")
    masks = _step_masks(sequence_length, T, inputs.dtype.name)
    fast = _fast_cell(cell) and not kwargs
    xs = _mp.unbind(cell._project(inputs) if fast else inputs, axis=t_axis)
    states = initial_states
    outs = [None] * T
    order = range(T - 1, -1, -1) if is_reverse else range(T)
    for t in order:
        if fast:
            y, new_states = cell._step(xs[t], states)
        else:
            y, new_states = cell(xs[t], states, **kwargs)
        if masks is not None:
            m = masks[t]
            new_states = _map2(lambda n, o: n * m + o * (1.0 - m), new_states, states)
            y = _map(lambda v: v * m, y)
        states = new_states
        outs[t] = y
    if isinstance(outs[0], (list, tuple)):
        outputs = tuple(_mp.stack([o[k] for o in outs], axis=t_axis) for k in range(len(outs[0])))
    else:
        outputs = _mp.stack(outs, axis=t_axis)
    return outputs, states


class RNN(Layer):
    """Runs a cell over a sequence: forward(inputs, initial_states=None, sequence_length=None)
    -> (outputs [batch, time, ...] (or time-major), final_states)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError(f"RNN: cell should be a Layer, received {type(cell).__name__}")
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _run_rnn(self.cell, inputs, initial_states, sequence_length, self.time_major, self.is_reverse,
                        **kwargs)


class BiRNN(Layer):
    """A forward and a backward RNN over the same input; outputs concatenated on the last axis,
    final_states = (states_fw, states_bw)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError("input size of forward cell({}) does not equals that of backward cell({})".format(
                cell_fw.input_size, cell_bw.input_size))
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)):
            if len(initial_states) != 2:
                raise ValueError("length of initial_states should be 2 when it is a list/tuple")
            st_fw, st_bw = initial_states
        else:
            st_fw = st_bw = None
        out_fw, s_fw = _run_rnn(self.cell_fw, inputs, st_fw, sequence_length, self.time_major, False, **kwargs)
        out_bw, s_bw = _run_rnn(self.cell_bw, inputs, st_bw, sequence_length, self.time_major, True, **kwargs)
        if isinstance(out_fw, tuple):
            outputs = tuple(_mp.concat([a, b], axis=-1) for a, b in zip(out_fw, out_bw))
        else:
            outputs = _mp.concat([out_fw, out_bw], axis=-1)
        return outputs, (s_fw, s_bw)


class RNNBase(LayerList):
    """Multi-layer, optionally bidirectional recurrent network over one cell type; the layers are
    RNN / BiRNN sublayers '0', '1', ... (state_dict keys '0.cell.weight_ih', '0.cell_fw...')."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None):
        super().__init__()
        bidirectional_list = ["bidirectional", "bidirect"]
        input_size = _check_size("input_size", input_size)
        hidden_size = _check_size("hidden_size", hidden_size)
        num_layers = _check_size("num_layers", num_layers)
        if not 0.0 <= float(dropout) <= 1.0:
            raise ValueError(f"dropout should be in [0, 1], received {dropout}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.dropout = float(dropout)
        self.num_directions = 2 if direction in bidirectional_list else 1
        self.time_major = time_major
        self.num_layers = num_layers
        self.state_components = 2 if mode == "LSTM" else 1
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                  "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        if mode == "LSTM":
            rnn_cls = LSTMCell
        elif mode == "GRU":
            rnn_cls = GRUCell
        else:
            rnn_cls = SimpleRNNCell
            kwargs["activation"] = self.activation
        if direction == "forward":
            self.append(RNN(rnn_cls(input_size, hidden_size, **kwargs), False, time_major))
            for _ in range(1, num_layers):
                self.append(RNN(rnn_cls(hidden_size, hidden_size, **kwargs), False, time_major))
        elif direction in bidirectional_list:
            self.append(BiRNN(rnn_cls(input_size, hidden_size, **kwargs), rnn_cls(input_size, hidden_size, **kwargs),
                              time_major))
            for _ in range(1, num_layers):
                self.append(BiRNN(rnn_cls(2 * hidden_size, hidden_size, **kwargs),
                                  rnn_cls(2 * hidden_size, hidden_size, **kwargs), time_major))
        else:
            raise ValueError("direction should be forward or bidirect (or bidirectional), "
                             "received direction = {}".format(direction))
        self._register_flat_names()

    def _register_flat_names(self):
        """Paddle's flat parameter names (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, the
        backward direction with _reverse): the cells' own parameters registered again on this
        layer, so state_dict holds both names sharing storage (checkpoints from Paddle carry both)."""
        for i, rnn_layer in enumerate(self):
            for d, cell in enumerate(self._layer_cells(rnn_layer)):
                suffix = "_reverse" if d == 1 else ""
                for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    p = getattr(cell, n, None)
                    if p is not None:
                        self._parameters[f"{n}_l{i}{suffix}"] = p

    def _split_states(self, states):
        """[L*D, B, H] tensors -> per layer: state (D == 1) or (state_fw, state_bw)."""
        comps = list(states) if self.state_components > 1 else [states]
        for s in comps:
            if not isinstance(s, Tensor) or len(s.shape) != 3 or \
                    s.shape[0] != self.num_layers * self.num_directions or s.shape[2] != self.hidden_size:
                raise ValueError("initial_states should be shaped [num_layers * num_directions, batch_size, "
                                 f"hidden_size] = [{self.num_layers * self.num_directions}, B, {self.hidden_size}], "
                                 f"received {getattr(s, 'shape', type(s).__name__)}")
        per = [_mp.unbind(s, axis=0) for s in comps]
        out = []
        for i in range(self.num_layers):
            dirs = []
            for d in range(self.num_directions):
                k = i * self.num_directions + d
                dirs.append(tuple(p[k] for p in per) if self.state_components > 1 else per[0][k])
            out.append(tuple(dirs) if self.num_directions == 2 else dirs[0])
        return out

    def _concat_states(self, finals):
        flat = []
        for f in finals:
            flat.extend(f if self.num_directions == 2 else [f])
        if self.state_components == 1:
            return _mp.stack(flat, axis=0)
        return tuple(_mp.stack([s[k] for s in flat], axis=0) for k in range(self.state_components))

    def forward(self, inputs, initial_states=None, sequence_length=None):
        if _amp_level() != "O0" and self._float32_network(inputs):
            # Paddle runs the network as one `rnn` op, registered for float32 / float64 only (its GPU
            # kernel too), so its auto_cast never lowers it, at any level (Paddle 2.6.2 on the CPU
            # turns auto_cast off altogether): so here, auto_cast off for the whole network
            from ...amp.auto_cast import auto_cast
            with auto_cast(enable=False):
                return self.forward(inputs, initial_states, sequence_length)
        if not isinstance(inputs, Tensor) or len(inputs.shape) != 3:
            raise ValueError(f"{type(self).__name__}: inputs should be a 3-D Tensor, received "
                             f"{getattr(inputs, 'shape', type(inputs).__name__)}")
        if inputs.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: expected inputs with last dimension input_size="
                             f"{self.input_size}, received shape {inputs.shape}")
        batch = _ss.dim(inputs, 1 if self.time_major else 0)  # an int, or a program's run-time dim
        if initial_states is None:
            shape = [self.num_layers * self.num_directions, batch, self.hidden_size]
            zeros = [_cr.zeros(shape, dtype=inputs.dtype) for _ in range(self.state_components)]
            initial_states = tuple(zeros) if self.state_components > 1 else zeros[0]
        elif isinstance(initial_states, list):
            initial_states = tuple(initial_states)
        rec = self._paddle_rnn_op(inputs, initial_states, sequence_length)
        if rec is not None:
            return rec
        states = self._split_states(initial_states)
        finals = []
        for i, rnn_layer in enumerate(self):
            if i > 0:
                inputs = _dropout(inputs, self.dropout, self.training)
            outputs, final_state = rnn_layer(inputs, states[i], sequence_length)
            finals.append(final_state)
            inputs = outputs
        return outputs, self._concat_states(finals)

    def _float32_network(self, inputs):
        """float32 input and every layer a built-in cell with float32 weights (amp.decorate's O2 may
        have cast them): the network Paddle's rnn op would run in float32"""
        if not isinstance(inputs, Tensor) or inputs.dtype.name != "float32":
            return False
        for c in self._cells():
            if _seq_kind(c) is None or any(w is not None and w.dtype.name != "float32"
                                           for w in (c.weight_ih, c.weight_hh, c.bias_ih, c.bias_hh)):
                return False
        return True

    def _layer_cells(self, layer):
        """a layer's cells: forward, then backward"""
        return [layer.cell] if self.num_directions == 1 else [layer.cell_fw, layer.cell_bw]

    def _cells(self):
        """every (layer, direction)'s cell, in Paddle's WeightList order"""
        return [c for layer in self for c in self._layer_cells(layer)]

    def _paddle_rnn_op(self, inputs, initial_states, sequence_length):
        """Recording a program: the whole network as Paddle's `rnn` operator (what Paddle 2.6.2's
        static nn.LSTM/GRU/SimpleRNN write: a batch-major input transposed to time-major, PreState,
        WeightList = every (layer, direction)'s w_ih, w_hh, then their b_ih, b_hh; Out, State,
        Reserve, DropoutState), so real Paddle runs the saved program. Here the op converts back
        into lstm_seq / gru_seq / simple_rnn_seq per layer and direction (csrc/graph/compat_nn.c,
        pd_cv_load_rnn). None when not recording, or when the layers have no such form (user
        cells, missing biases, auto_cast): the per-layer ops are recorded then."""
        active = _C._static_active() if _C._is_variable(inputs) else None
        if active is None or inputs.dtype.name not in ("float32", "float64") or _amp_level() != "O0":
            return None
        from ...static.framework import _program_of
        prog = _program_of(active[0])
        if prog is None:
            return None
        cells = self._cells()
        if any(_seq_kind(c) is None or c.bias_ih is None or c.bias_hh is None for c in cells):
            return None
        comps = list(initial_states) if self.state_components > 1 else [initial_states]
        for st in comps:
            if not isinstance(st, Tensor) or len(st.shape) != 3 or \
                    st.shape[0] != self.num_layers * self.num_directions or st.shape[2] != self.hidden_size:
                return None  # _split_states raises the error
        comps = [st if _C._is_variable(st) else _to_tensor(st.numpy()) for st in comps]
        lens = None
        if sequence_length is not None:
            lens = _lengths(sequence_length, inputs.shape[1 if self.time_major else 0])
            if lens.dtype.name != "int32":
                lens = _ops.cast(lens, "int32")
        # the transpose right before the op: the converter then runs the recurrence on the
        # batch-major input itself (pd_cv_load_rnn), as eager mode does
        x = inputs if self.time_major else _mp.transpose(inputs, [1, 0, 2])
        ins = {"Input": [x], "PreState": comps,
               "WeightList": [w for c in cells for w in (c.weight_ih, c.weight_hh)] +
                             [b for c in cells for b in (c.bias_ih, c.bias_hh)]}
        if lens is not None:
            ins["SequenceLength"] = [lens]
        from ...utils import unique_name
        block = prog.block(active[1])
        base = unique_name.generate({"LSTM": "lstm", "GRU": "gru"}.get(self.mode, "simple_rnn"))
        T, N = x.shape[0], x.shape[1]
        out = block.create_var(name=f"{base}.tmp_0", shape=[T, N, self.num_directions * self.hidden_size],
                               dtype=x.dtype)
        states = [block.create_var(name=f"{base}.tmp_{k + 1}", dtype=x.dtype,
                                   shape=[self.num_layers * self.num_directions, N, self.hidden_size])
                  for k in range(self.state_components)]
        reserve = block.create_var(name=f"{base}.tmp_{self.state_components + 1}", dtype="uint8", shape=[],
                                   stop_gradient=True)
        dstate = block.create_var(name=f"{base}.dropout_state__non_persistable", dtype="uint8", shape=[],
                                  stop_gradient=True)
        block.append_op(type="rnn", inputs=ins,
                        outputs={"Out": [out], "State": states, "Reserve": [reserve], "DropoutState": [dstate]},
                        attrs={"dropout_prob": float(self.dropout), "is_bidirec": self.num_directions == 2,
                               "input_size": self.input_size, "hidden_size": self.hidden_size,
                               "num_layers": self.num_layers, "mode": self.mode, "seed": 0,
                               "is_test": not self.training})
        outputs = out if self.time_major else _mp.transpose(out, [1, 0, 2])
        return outputs, (tuple(states) if self.state_components > 1 else states[0])

    def extra_repr(self):
        main_str = "{input_size}, {hidden_size}"
        if self.num_layers != 1:
            main_str += ", num_layers={num_layers}"
        if self.time_major:
            main_str += ", time_major={time_major}"
        if self.dropout != 0:
            main_str += ", dropout={dropout}"
        return main_str.format(**self.__dict__)


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN (tanh or relu). forward(inputs, initial_states=None,
    sequence_length=None) -> (outputs, final_states [num_layers * num_directions, B, H])."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 activation="tanh", weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        if activation == "tanh":
            mode = "RNN_TANH"
        elif activation == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown activation '{}'".format(activation))
        object.__setattr__(self, "activation", activation)
        super().__init__(mode, input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)


class LSTM(RNNBase):
    """Multi-layer LSTM. forward(inputs, initial_states=None, sequence_length=None) ->
    (outputs, (h, c)), h and c shaped [num_layers * num_directions, B, H]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    """Multi-layer GRU. forward(inputs, initial_states=None, sequence_length=None) ->
    (outputs, final_states [num_layers * num_directions, B, H])."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)
