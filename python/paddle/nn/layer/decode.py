"""Decoding (Paddle 2.3's paddle.nn.BeamSearchDecoder and paddle.nn.dynamic_decode) over
existing ops, in eager mode: the decoder base class, beam search (cell states tiled to
[batch * beam, ...], log-softmax scores, finished beams forced onto the end token, top-k over
beam x vocab, gather of states by parent beam, gather_tree backtracking in finalize) and the
dynamic decoding loop (stops when every entry is finished or after max_step_num + 1 steps)."""
import collections

import numpy as np

__all__ = ["BeamSearchDecoder", "dynamic_decode"]


def _p():
    import paddle
    return paddle


# ---- nested structures (lists, tuples, namedtuples, dicts) ----
def _is_seq(x):
    return isinstance(x, (list, tuple, dict))


def _flatten(s):
    if isinstance(s, dict):
        return [v for k in sorted(s) for v in _flatten(s[k])]
    if isinstance(s, (list, tuple)):
        return [v for e in s for v in _flatten(e)]
    return [s]


def _map_structure(fn, *ss):
    s0 = ss[0]
    if isinstance(s0, dict):
        return type(s0)((k, _map_structure(fn, *[s[k] for s in ss])) for k in s0)
    if isinstance(s0, tuple) and hasattr(s0, "_fields"):  # namedtuple
        return type(s0)(*[_map_structure(fn, *es) for es in zip(*ss)])
    if isinstance(s0, (list, tuple)):
        return type(s0)(_map_structure(fn, *es) for es in zip(*ss))
    return fn(*ss)


class Decoder:
    """Base of the decoders used by dynamic_decode: initialize(inits) -> (inputs, states,
    finished), step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs,
    finished), optional finalize(outputs, final_states, sequence_lengths)."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search around a cell: cell(inputs, states) -> (outputs, next_states); embedding_fn maps
    the chosen ids to the next inputs, output_fn maps cell outputs to vocabulary logits.
    Step outputs are OutputWrapper(scores, predicted_ids, parent_ids), each [batch, beam]."""

    OutputWrapper = collections.namedtuple("OutputWrapper", ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper", ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        if not isinstance(beam_size, (int, np.integer)) or isinstance(beam_size, bool) or beam_size <= 0:
            raise ValueError(f"[BeamSearchDecoder] beam_size must be a positive int, received {beam_size!r}")
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = int(start_token)
        self.end_token = int(end_token)
        self.beam_size = int(beam_size)

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...] with each entry repeated beam_size times."""
        paddle = _p()
        x = paddle.unsqueeze(x, [1])
        reps = [1] * len(x.shape)
        reps[1] = beam_size
        x = paddle.tile(x, reps)
        return paddle.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        return _p().reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return _p().reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        paddle = _p()
        x = paddle.unsqueeze(x, [1])
        reps = [1] * len(x.shape)
        reps[1] = self.beam_size
        return paddle.tile(x, reps)

    def _gather(self, x, indices):
        """x [batch, beam, ...] gathered along the beam axis by indices [batch, beam]."""
        paddle = _p()
        batch = indices.shape[0]
        pos = paddle.tile(paddle.unsqueeze(paddle.arange(0, batch, 1, dtype=indices.dtype), [1]),
                          [1, self.beam_size])
        coords = paddle.stack([pos, indices], axis=2)
        coords.stop_gradient = True
        return paddle.gather_nd(x, coords)

    def initialize(self, initial_cell_states):
        paddle = _p()
        self.kinf = 1e9
        state = _flatten(initial_cell_states)[0]
        self.batch_size = state.shape[0]
        dtype = paddle.get_default_dtype()
        init_cell_states = _map_structure(self._expand_to_beam_size, initial_cell_states)
        init_inputs = paddle.full([self.batch_size, self.beam_size], self.start_token, dtype="int64")
        row = np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)], dtype="float32")
        log_probs = paddle.tile(paddle.to_tensor(row), [self.batch_size, 1])
        if dtype == "float64":
            log_probs = paddle.cast(log_probs, "float64")
        init_finished = paddle.full([self.batch_size, self.beam_size], False, dtype="bool")
        init_lengths = paddle.zeros_like(init_inputs)
        if self.embedding_fn:
            init_inputs = self.embedding_fn(init_inputs)
        return init_inputs, self.StateWrapper(init_cell_states, log_probs, init_finished, init_lengths), init_finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        paddle = _p()
        self.vocab_size = logits.shape[-1]
        if not 0 <= self.end_token < self.vocab_size:
            raise ValueError(f"[BeamSearchDecoder] end_token {self.end_token} is outside the vocabulary "
                             f"of size {self.vocab_size}")
        noend = np.full([self.vocab_size], -self.kinf, dtype="float32")
        noend[self.end_token] = 0
        step_log_probs = paddle.log(paddle.nn.functional.softmax(logits))
        noend_t = paddle.to_tensor(noend.astype(step_log_probs.dtype.name))
        fin = paddle.unsqueeze(beam_state.finished, [2])
        # finished beams put all their probability on the end token
        step_log_probs = paddle.where(fin, paddle.zeros_like(step_log_probs) + noend_t, step_log_probs)
        log_probs = paddle.add(step_log_probs, paddle.unsqueeze(beam_state.log_probs, [2]))
        scores = paddle.reshape(log_probs, [-1, self.beam_size * self.vocab_size])
        topk_scores, topk_indices = paddle.topk(scores, k=self.beam_size)
        vocab = paddle.full([1], self.vocab_size, dtype=topk_indices.dtype)
        beam_indices = paddle.floor_divide(topk_indices, vocab)
        token_indices = paddle.remainder(topk_indices, vocab)
        next_log_probs = paddle.take_along_axis(scores, topk_indices, 1)
        next_cell_states = _map_structure(lambda x: self._gather(x, beam_indices), next_cell_states)
        next_finished = paddle.take_along_axis(beam_state.finished, beam_indices, 1)
        next_lengths = paddle.take_along_axis(beam_state.lengths, beam_indices, 1)
        next_lengths = next_lengths + paddle.cast(paddle.logical_not(next_finished), next_lengths.dtype)
        end = paddle.full([1], self.end_token, dtype=token_indices.dtype)
        next_finished = paddle.logical_or(next_finished, paddle.equal(token_indices, end))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = _map_structure(self._merge_batch_beams, inputs)
        cell_states = _map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = _map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        out, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = out.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return out, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Backtracks the beams: predicted ids [time, batch, beam] via gather_tree."""
        predicted_ids = _p().nn.functional.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return predicted_ids, final_states

    @property
    def tracks_own_finished(self):
        return True


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Runs decoder.step until every entry is finished (or max_step_num + 1 steps ran), stacks the
    step outputs along time, calls decoder.finalize when implemented and returns (outputs,
    final_states[, sequence_lengths]); outputs are batch major unless output_time_major."""
    paddle = _p()
    if not isinstance(decoder, Decoder) and not all(hasattr(decoder, a) for a in ("initialize", "step")):
        raise TypeError(f"[dynamic_decode] expected a Decoder, received {type(decoder).__name__}")
    if max_step_num is not None and (not isinstance(max_step_num, (int, np.integer)) or max_step_num < 0):
        raise ValueError(f"[dynamic_decode] max_step_num must be a non-negative int, received {max_step_num!r}")

    def maybe_copy(state, new_state, finished):
        # keep the old state where the entry is finished
        mask = finished
        while len(mask.shape) < len(state.shape):
            mask = paddle.unsqueeze(mask, [-1])
        return paddle.where(mask, state, new_state)

    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = paddle.cast(paddle.zeros_like(finished), "int64")
    tracks = getattr(decoder, "tracks_own_finished", False)
    step_outputs_list = []
    step = 0
    while not bool(paddle.all(finished).item()):
        time = paddle.full([1], step, dtype="int64")
        outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        if not tracks:
            next_finished = paddle.logical_or(next_finished, finished)
            next_sequence_lengths = sequence_lengths + paddle.cast(paddle.logical_not(next_finished), "int64")
            if impute_finished:
                next_states = _map_structure(lambda x, y: maybe_copy(x, y, next_finished), states, next_states)
        else:
            next_sequence_lengths = getattr(next_states, "lengths", sequence_lengths)
        step_outputs_list.append(outputs)
        inputs, states, finished, sequence_lengths = next_inputs, next_states, next_finished, next_sequence_lengths
        step += 1
        if max_step_num is not None and step > max_step_num:
            break
    if not step_outputs_list:
        raise ValueError("[dynamic_decode] every entry was finished before the first step: nothing to decode")
    final_outputs = _map_structure(lambda *xs: paddle.stack(list(xs), axis=0), *step_outputs_list)
    final_states = states
    finalize = getattr(decoder, "finalize", None)
    if finalize is not None:
        try:
            final_outputs, final_states = finalize(final_outputs, final_states, sequence_lengths)
        except NotImplementedError:
            pass
    if not output_time_major:
        final_outputs = _map_structure(lambda x: paddle.transpose(x, [1, 0] + list(range(2, len(x.shape)))),
                                       final_outputs)
    return (final_outputs, final_states, sequence_lengths) if return_length else (final_outputs, final_states)
