"""paddle.nn extras against independent references: affine_grid / grid_sample (loop references in
tests/ops/ref_nnextra.py, identity warps), temporal_shift (a numpy loop), gather_tree (the
documented example), BeamSearchDecoder + dynamic_decode on a tiny GRU cell against a numpy beam
search, class_center_sample (its defining properties), sparse_attention (a loop over the CSR
entries), CTC loss (a brute-force sum over all alignments, Paddle's documented example values),
hsigmoid loss (a numpy walk of the tree multiplying branch probabilities), the Bilinear
initializer, gradients against central differences in float64, and argument errors."""
import itertools
import math
import os
import sys

import numpy as np
import pytest

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import ref_nnextra as R  # noqa: E402
from sweep_util import numeric_grad as num_grad  # noqa: E402

rng = np.random.default_rng(7)


def T(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)




# ------------------------------------------------------------------ affine_grid / grid_sample
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("shape", [[2, 3, 4, 5], [1, 1, 1, 3], [2, 1, 3, 2, 4]])
def test_affine_grid_matches_reference(align, shape):
    ns = len(shape) - 2
    theta = rng.uniform(-1, 1, (shape[0], ns, ns + 1))
    out = F.affine_grid(T(theta), shape, align_corners=align)
    assert out.shape == [shape[0]] + shape[2:] + [ns]
    np.testing.assert_allclose(out.numpy(), R.affine_grid(theta, shape, align), rtol=1e-12, atol=1e-12)
    # out_shape may be a Tensor, float32 theta keeps its dtype
    out32 = F.affine_grid(T(theta.astype("float32")), T(np.array(shape, dtype="int32")), align)
    assert out32.dtype == paddle.float32
    np.testing.assert_allclose(out32.numpy(), R.affine_grid(theta, shape, align), rtol=1e-5, atol=1e-6)


def test_affine_grid_documented_example():
    theta = T(np.array([[[-0.7, -0.4, 0.3], [0.6, 0.5, 1.5]]], dtype="float32"))
    y = F.affine_grid(theta, [1, 2, 3, 3], align_corners=False).numpy()
    # corner (h=0, w=0): x = y = -2/3 -> theta @ (-2/3, -2/3, 1)
    np.testing.assert_allclose(y[0, 0, 0], [-0.7 * -2 / 3 - 0.4 * -2 / 3 + 0.3, 0.6 * -2 / 3 + 0.5 * -2 / 3 + 1.5],
                               rtol=1e-6)
    np.testing.assert_allclose(y[0, 2, 2], [-0.7 * 2 / 3 - 0.4 * 2 / 3 + 0.3, 0.6 * 2 / 3 + 0.5 * 2 / 3 + 1.5],
                               rtol=1e-6)


def test_affine_grid_gradient():
    theta = rng.uniform(-1, 1, (2, 2, 3))
    w = rng.uniform(0.5, 1.5, (2, 3, 4, 2))
    t = T(theta, grad=True)
    (paddle.sum(F.affine_grid(t, [2, 1, 3, 4], align_corners=False) * T(w))).backward()
    ref = num_grad(lambda: float((R.affine_grid(theta, [2, 1, 3, 4], False) * w).sum()), theta)
    np.testing.assert_allclose(t.grad.numpy(), ref, rtol=1e-6, atol=1e-8)


def test_affine_grid_errors():
    theta = T(np.zeros((2, 2, 3), dtype="float32"))
    with pytest.raises(ValueError, match="affine_grid"):
        F.affine_grid(np.zeros((2, 2, 3)), [2, 1, 3, 3])
    with pytest.raises(ValueError, match="affine_grid"):
        F.affine_grid(theta, [2, 1, 3])
    with pytest.raises(ValueError, match="affine_grid"):
        F.affine_grid(theta, [3, 1, 3, 3])
    with pytest.raises(ValueError, match="affine_grid"):
        F.affine_grid(theta, [2, 1, 2, 3, 3])
    with pytest.raises(ValueError, match="affine_grid"):
        F.affine_grid(theta, "2133")


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_matches_reference(mode, pad, align):
    x = rng.standard_normal((2, 3, 5, 4))
    grid = rng.uniform(-1.8, 1.8, (2, 3, 6, 2))
    out = F.grid_sample(T(x), T(grid), mode=mode, padding_mode=pad, align_corners=align)
    np.testing.assert_allclose(out.numpy(), R.grid_sample(x, grid, mode, pad, align), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("align", [True, False])
def test_identity_warp_reproduces_the_input(align):
    x = rng.standard_normal((2, 3, 5, 6)).astype("float32")
    theta = np.tile(np.array([[[1.0, 0, 0], [0, 1.0, 0]]], dtype="float32"), (2, 1, 1))
    grid = F.affine_grid(T(theta), [2, 3, 5, 6], align_corners=align)
    for mode in ("bilinear", "nearest"):
        y = F.grid_sample(T(x), grid, mode=mode, align_corners=align)
        np.testing.assert_allclose(y.numpy(), x, rtol=1e-5, atol=1e-5)
    # a horizontal flip (x -> -x) mirrors the width axis
    flip = np.tile(np.array([[[-1.0, 0, 0], [0, 1.0, 0]]], dtype="float32"), (2, 1, 1))
    y = F.grid_sample(T(x), F.affine_grid(T(flip), [2, 3, 5, 6], align_corners=align), align_corners=align)
    np.testing.assert_allclose(y.numpy(), x[..., ::-1], rtol=1e-5, atol=1e-5)


def test_grid_sample_gradients_through_affine_grid():
    """d/dx and d/dtheta of a spatial-transformer block against central differences."""
    x = rng.standard_normal((1, 2, 4, 5))
    theta = np.array([[[0.9, 0.2, 0.1], [-0.15, 0.8, -0.05]]])
    w = rng.uniform(0.5, 1.5, (1, 2, 3, 3))
    xt, tt = T(x, grad=True), T(theta, grad=True)
    y = F.grid_sample(xt, F.affine_grid(tt, [1, 2, 3, 3], align_corners=False), padding_mode="border",
                      align_corners=False)
    paddle.sum(y * T(w)).backward()

    def f():
        g = R.affine_grid(theta, [1, 2, 3, 3], False)
        return float((R.grid_sample(x, g, "bilinear", "border", False) * w).sum())
    np.testing.assert_allclose(xt.grad.numpy(), num_grad(f, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tt.grad.numpy(), num_grad(f, theta), rtol=1e-5, atol=1e-7)


def test_grid_sample_errors():
    x = T(np.zeros((1, 2, 3, 3), dtype="float32"))
    g = T(np.zeros((1, 2, 2, 2), dtype="float32"))
    with pytest.raises(ValueError, match="grid sample"):
        F.grid_sample(x, g, mode="bicubic")
    with pytest.raises(ValueError, match="padding mode"):
        F.grid_sample(x, g, padding_mode="wrap")
    with pytest.raises(ValueError, match="align corners"):
        F.grid_sample(x, g, align_corners=1)
    with pytest.raises(ValueError, match="grid_sample"):
        F.grid_sample(x, T(np.zeros((1, 2, 2, 3), dtype="float32")))
    with pytest.raises(ValueError, match="grid_sample"):
        F.grid_sample(x, T(np.zeros((2, 2, 2, 2), dtype="float32")))
    with pytest.raises(ValueError, match="grid_sample"):
        F.grid_sample(x, T(np.zeros((1, 2, 2, 2), dtype="float64")))
    with pytest.raises(TypeError, match="grid_sample"):
        F.grid_sample(x, np.zeros((1, 2, 2, 2)))


def test_grid_sample_far_outside_points():
    x = T(rng.standard_normal((1, 2, 3, 4)))
    g = T(np.array([[[[1e30, 0.0], [-1e30, 0.0]], [[np.inf, 0.5], [0.0, -np.inf]]]]))
    np.testing.assert_array_equal(F.grid_sample(x, g).numpy(), 0.0)
    # border padding clamps them onto the edge pixels
    y = F.grid_sample(x, g, padding_mode="border").numpy()
    xs = x.numpy()
    np.testing.assert_allclose(y[0, :, 0, 0], xs[0, :, 1, 3])
    np.testing.assert_allclose(y[0, :, 0, 1], xs[0, :, 1, 0])


def test_grid_sample_create_graph_is_refused():
    x = T(rng.standard_normal((1, 1, 3, 3)), grad=True)
    g = T(rng.uniform(-1, 1, (1, 2, 2, 2)), grad=True)
    y = paddle.sum(F.grid_sample(x, g))
    with pytest.raises(NotImplementedError, match="grid_sample"):
        paddle.grad([y], [g], create_graph=True)


# ------------------------------------------------------------------ temporal_shift
def temporal_shift_ref(x, seg_num, ratio, fmt):
    if fmt == "NHWC":
        return np.moveaxis(temporal_shift_ref(np.moveaxis(x, 3, 1), seg_num, ratio, "NCHW"), 1, 3)
    nt, c, h, w = x.shape
    c1, c2 = int(np.float32(c) * np.float32(ratio)), int(np.float32(2 * c) * np.float32(ratio))
    out = np.zeros_like(x)
    for i in range(nt):
        n, t = divmod(i, seg_num)
        for ch in range(c):
            src = t - 1 if ch < c1 else (t + 1 if ch < c2 else t)
            if 0 <= src < seg_num:
                out[i, ch] = x[n * seg_num + src, ch]
    return out


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("seg,ratio,c", [(3, 0.25, 8), (2, 0.2, 5), (1, 0.25, 4), (4, 0.4, 3)])
def test_temporal_shift(fmt, seg, ratio, c):
    shape = (2 * seg, c, 3, 2) if fmt == "NCHW" else (2 * seg, 3, 2, c)
    x = rng.standard_normal(shape)
    out = F.temporal_shift(T(x), seg, ratio, data_format=fmt)
    np.testing.assert_array_equal(out.numpy(), temporal_shift_ref(x, seg, ratio, fmt))
    xt = T(x, grad=True)
    w = rng.uniform(0.5, 1.5, shape)
    paddle.sum(F.temporal_shift(xt, seg, ratio, data_format=fmt) * T(w)).backward()
    ref = num_grad(lambda: float((temporal_shift_ref(x, seg, ratio, fmt) * w).sum()), x)
    np.testing.assert_allclose(xt.grad.numpy(), ref, rtol=1e-6, atol=1e-8)


def test_temporal_shift_errors():
    x = T(np.zeros((6, 4, 2, 2), dtype="float32"))
    with pytest.raises(ValueError, match="data_format"):
        F.temporal_shift(x, 3, data_format="NCDHW")
    with pytest.raises(ValueError, match="divisible"):
        F.temporal_shift(x, 4)
    with pytest.raises(ValueError, match="shift_ratio"):
        F.temporal_shift(x, 3, shift_ratio=0.5)
    with pytest.raises(ValueError, match="4-D"):
        F.temporal_shift(T(np.zeros((6, 4, 2), dtype="float32")), 3)


# ------------------------------------------------------------------ gather_tree
def test_gather_tree_documented_example_and_reference():
    ids = T(np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], dtype="int64"))
    parents = T(np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], dtype="int64"))
    assert F.gather_tree(ids, parents).numpy().tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]
    ids = rng.integers(0, 20, (6, 3, 4)).astype("int32")
    par = rng.integers(0, 4, (6, 3, 4)).astype("int32")
    out = F.gather_tree(T(ids), T(par))
    assert out.dtype == paddle.int32
    np.testing.assert_array_equal(out.numpy(), R.gather_tree(ids, par))


def test_gather_tree_errors():
    ids = T(np.zeros((3, 1, 2), dtype="int64"))
    with pytest.raises(ValueError, match="gather_tree"):
        F.gather_tree(ids, T(np.full((3, 1, 2), 2, dtype="int64")))
    with pytest.raises(ValueError, match="gather_tree"):
        F.gather_tree(ids, T(np.zeros((3, 1, 3), dtype="int64")))
    with pytest.raises(ValueError, match="gather_tree"):
        F.gather_tree(ids, T(np.zeros((3, 1, 2), dtype="int32")))
    with pytest.raises(TypeError, match="gather_tree"):
        F.gather_tree(T(np.zeros((3, 1, 2), dtype="float32")), T(np.zeros((3, 1, 2), dtype="float32")))


# ------------------------------------------------------------------ beam search
def _sig(v):
    return 1 / (1 + np.exp(-v))


def _gru_np(x, h, cell):
    """Paddle's GRUCell: gates (r, z, c); h' = (h - c) * z + c."""
    xg = x @ cell.weight_ih.numpy().T + cell.bias_ih.numpy()
    hg = h @ cell.weight_hh.numpy().T + cell.bias_hh.numpy()
    xr, xz, xc = np.split(xg, 3, axis=-1)
    hr, hz, hc = np.split(hg, 3, axis=-1)
    r, z = _sig(xr + hr), _sig(xz + hz)
    c = np.tanh(xc + r * hc)
    return (h - c) * z + c


def beam_search_np(emb, cell, lin_w, lin_b, h0, start, end, beam, max_step_num, kinf=1e9):
    """Plain beam search per batch entry: finished beams only extend with the end token (score +0),
    every step keeps the beam_size best (beam, token) continuations, then backtracks parents."""
    B = h0.shape[0]
    V = lin_w.shape[1]
    results = []
    for b in range(B):
        h = np.repeat(h0[b:b + 1], beam, axis=0)
        lp = np.array([0.0] + [-kinf] * (beam - 1))
        fin = np.zeros(beam, dtype=bool)
        lens = np.zeros(beam, dtype=np.int64)
        tok = np.full(beam, start)
        toks, pars, scores = [], [], []
        results.append((h, lp, fin, lens, tok, toks, pars, scores))
    step = 0
    while True:
        for b in range(B):
            h, lp, fin, lens, tok, toks, pars, scores = results[b]
            hn = _gru_np(emb[tok], h, cell)
            logits = hn @ lin_w + lin_b
            m = logits.max(-1, keepdims=True)
            slp = logits - m - np.log(np.exp(logits - m).sum(-1, keepdims=True))
            for k in range(beam):
                if fin[k]:
                    slp[k] = -kinf
                    slp[k, end] = 0.0
            total = (lp[:, None] + slp).reshape(-1)
            top = np.argsort(-total, kind="stable")[:beam]
            parent, token = top // V, top % V
            nfin = fin[parent]
            lens = lens[parent] + (~nfin)
            fin = nfin | (token == end)
            toks.append(token)
            pars.append(parent)
            scores.append(total[top])
            results[b] = (hn[parent], total[top], fin, lens, token, toks, pars, scores)
        step += 1
        if all(r[2].all() for r in results) or step > max_step_num:
            break
    ids = np.stack([np.stack(r[5]) for r in results], axis=1)  # [T, B, beam]
    par = np.stack([np.stack(r[6]) for r in results], axis=1)
    sc = np.stack([np.stack(r[7]) for r in results], axis=1)
    return R.gather_tree(ids, par), sc, np.stack([r[3] for r in results])


@pytest.mark.parametrize("end_bias", [0.3, -2.0])
def test_beam_search_decoder_against_numpy(end_bias):
    """end_bias > 0: beams finish at different steps; < 0: decoding runs to max_step_num."""
    paddle.seed(3)
    V, E, H, B, beam = 7, 4, 5, 2, 3
    emb = nn.Embedding(V, E)
    out_layer = nn.Linear(H, V)
    with paddle.no_grad():
        b = out_layer.bias.numpy()
        b[1] += end_bias
        out_layer.bias.set_value(b)
    cell = nn.GRUCell(E, H)
    dec = nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=beam, embedding_fn=emb,
                               output_fn=out_layer)
    h0 = rng.standard_normal((B, H)).astype("float32")
    outputs, states, lengths = nn.dynamic_decode(dec, inits=T(h0), max_step_num=6, return_length=True)
    ref_ids, ref_scores, ref_lens = beam_search_np(emb.weight.numpy(), cell, out_layer.weight.numpy(),
                                                   out_layer.bias.numpy(), h0, 0, 1, beam, 6)
    assert outputs.shape == [B, ref_ids.shape[0], beam]  # batch major
    np.testing.assert_array_equal(outputs.numpy(), np.transpose(ref_ids, (1, 0, 2)))
    np.testing.assert_array_equal(lengths.numpy(), ref_lens)
    np.testing.assert_allclose(states.log_probs.numpy(), ref_scores[-1], rtol=1e-4, atol=1e-4)
    # time major output
    out_tm, _ = nn.dynamic_decode(dec, inits=T(h0), max_step_num=6, output_time_major=True)
    np.testing.assert_array_equal(out_tm.numpy(), ref_ids)


def test_beam_search_documented_example_runs():
    trg_embeder = nn.Embedding(100, 32)
    output_layer = nn.Linear(32, 32)
    decoder_cell = nn.GRUCell(input_size=32, hidden_size=32)
    decoder = nn.BeamSearchDecoder(decoder_cell, start_token=0, end_token=1, beam_size=4,
                                   embedding_fn=trg_embeder, output_fn=output_layer)
    encoder_output = paddle.ones((4, 8, 32), dtype=paddle.get_default_dtype())
    outputs = nn.dynamic_decode(decoder=decoder, inits=decoder_cell.get_initial_states(encoder_output),
                                max_step_num=10)
    ids, states = outputs
    assert ids.shape[0] == 4 and ids.shape[2] == 4 and 1 <= ids.shape[1] <= 11
    assert states.finished.shape == [4, 4] and states.lengths.dtype == paddle.int64
    tiled = nn.BeamSearchDecoder.tile_beam_merge_with_batch(T(np.arange(6).reshape(2, 3)), 2)
    assert tiled.numpy().tolist() == [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]]


class _ScheduleDecoder:
    """A non-beam decoder: entry i reports finished from step done_at[i]; its state counts steps."""

    def __init__(self, done_at):
        self.done_at = done_at
        self.tracks_own_finished = False

    def initialize(self, inits):
        n = len(self.done_at)
        return T(np.zeros(n, dtype="float32")), T(np.zeros((n, 2), dtype="float32")), T(np.zeros(n, dtype=bool))

    def step(self, time, inputs, states, **kw):
        t = int(time.numpy()[0])
        fin = T(np.array([t >= d for d in self.done_at]))
        return T(np.full(len(self.done_at), float(t), dtype="float32")), states + 1.0, inputs, fin


def test_dynamic_decode_generic_decoder():
    dec = _ScheduleDecoder([1, 3])
    out, st, lens = nn.dynamic_decode(dec, impute_finished=True, return_length=True)
    # stops once both are finished (after step 3): four steps, batch major [2, 4]
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 2, 3], [0, 1, 2, 3]])
    # impute_finished: a finished entry keeps its state (frozen from the step it finished)
    np.testing.assert_array_equal(st.numpy()[:, 0], [1, 3])
    np.testing.assert_array_equal(lens.numpy(), [1, 3])
    out, st = nn.dynamic_decode(_ScheduleDecoder([9, 9]), max_step_num=2)
    assert out.shape == [2, 3]
    np.testing.assert_array_equal(st.numpy()[:, 0], [3, 3])


def test_beam_search_decoder_errors():
    cell = nn.GRUCell(2, 2)
    with pytest.raises(ValueError, match="beam_size"):
        nn.BeamSearchDecoder(cell, 0, 1, 0)
    with pytest.raises(TypeError, match="dynamic_decode"):
        nn.dynamic_decode(object())
    dec = nn.BeamSearchDecoder(cell, 0, 5, 2, embedding_fn=nn.Embedding(3, 2))
    with pytest.raises(ValueError, match="end_token"):
        nn.dynamic_decode(dec, inits=T(np.zeros((1, 2), dtype="float32")), max_step_num=2)


# ------------------------------------------------------------------ class_center_sample
def test_class_center_sample_properties():
    paddle.seed(5)
    label = np.array([11, 3, 3, 7, 19, 0, 7], dtype="int64")
    remapped, sampled = F.class_center_sample(T(label), 20, 9)
    r, s = remapped.numpy(), sampled.numpy()
    assert remapped.dtype == paddle.int64 and sampled.dtype == paddle.int64
    pos = sorted(set(label.tolist()))
    assert s[:len(pos)].tolist() == pos  # positives first, ascending
    assert len(s) == 9 and len(set(s.tolist())) == 9 and s.min() >= 0 and s.max() < 20
    np.testing.assert_array_equal(s[r], label)  # each label maps to its own centre
    # more positives than num_samples: all positives are kept
    r2, s2 = F.class_center_sample(T(label.astype("int32")), 20, 2)
    assert s2.numpy().tolist() == pos and r2.dtype == paddle.int32
    # negatives vary with the generator and are uniform-ish over the non-positive classes
    counts = np.zeros(20)
    for _ in range(300):
        counts[F.class_center_sample(T(label), 20, 9)[1].numpy()[len(pos):]] += 1
    assert counts[pos].sum() == 0
    neg = [c for c in range(20) if c not in pos]
    assert counts[neg].min() > 0.5 * counts[neg].mean()


def test_class_center_sample_errors():
    lab = T(np.array([1, 2], dtype="int64"))
    with pytest.raises(ValueError, match="num_samples"):
        F.class_center_sample(lab, 4, 5)
    with pytest.raises(ValueError, match="label_dims"):
        F.class_center_sample(T(np.array([[1, 2]], dtype="int64")), 4, 2)
    with pytest.raises(ValueError, match="label values"):
        F.class_center_sample(T(np.array([1, 4], dtype="int64")), 4, 2)
    with pytest.raises(TypeError, match="class_center_sample"):
        F.class_center_sample(T(np.array([1.0, 2.0], dtype="float32")), 4, 2)
    with pytest.raises(ValueError, match="group"):
        F.class_center_sample(lab, 4, 2, group="g")


# ------------------------------------------------------------------ sparse_attention
def sparse_attention_ref(q, k, v, off, cols, kp=None, am=None):
    B, H, M, D = q.shape
    out = np.zeros_like(q)
    for b, h, i in itertools.product(range(B), range(H), range(M)):
        js = [j for j in cols[b, h, off[b, h, i]:off[b, h, i + 1]]
              if (kp is None or kp[b, j] != 0) and (am is None or am[i, j] != 0)]
        if not js:
            continue
        s = np.array([q[b, h, i] @ k[b, h, j] / math.sqrt(D) for j in js])
        p = np.exp(s - s.max())
        p /= p.sum()
        out[b, h, i] = sum(pj * v[b, h, j] for pj, j in zip(p, js))
    return out


def _random_csr(B, H, M):
    off = np.zeros((B, H, M + 1), dtype="int32")
    cols_list = []
    for b, h in itertools.product(range(B), range(H)):
        row_cols = [sorted(rng.choice(M, size=rng.integers(0, M + 1), replace=False).tolist()) for _ in range(M)]
        off[b, h, 1:] = np.cumsum([len(c) for c in row_cols])
        cols_list.append(sum(row_cols, []))
    nnz = max(len(c) for c in cols_list)
    cols = np.zeros((B, H, nnz), dtype="int32")
    for i, (b, h) in enumerate(itertools.product(range(B), range(H))):
        cols[b, h, :len(cols_list[i])] = cols_list[i]
    return off, cols


@pytest.mark.parametrize("masks", [False, True])
def test_sparse_attention_forward_and_gradients(masks):
    B, H, M, D = 2, 2, 4, 3
    q, k, v = (rng.standard_normal((B, H, M, D)) for _ in range(3))
    off, cols = _random_csr(B, H, M)
    kp = (rng.random((B, M)) > 0.3).astype("float64") if masks else None
    am = (rng.random((M, M)) > 0.3).astype("float64") if masks else None
    qt, kt, vt = T(q, True), T(k, True), T(v, True)
    out = F.sparse_attention(qt, kt, vt, T(off), T(cols), None if kp is None else T(kp),
                             None if am is None else T(am))
    np.testing.assert_allclose(out.numpy(), sparse_attention_ref(q, k, v, off, cols, kp, am), rtol=1e-10, atol=1e-12)
    w = rng.uniform(0.5, 1.5, out.shape)
    paddle.sum(out * T(w)).backward()
    for t, a in ((qt, q), (kt, k), (vt, v)):
        ref = num_grad(lambda: float((sparse_attention_ref(q, k, v, off, cols, kp, am) * w).sum()), a)
        np.testing.assert_allclose(t.grad.numpy(), ref, rtol=1e-5, atol=1e-7)


def test_sparse_attention_errors():
    q = T(np.zeros((1, 1, 3, 2), dtype="float32"))
    off = T(np.array([[[0, 1, 2, 3]]], dtype="int32"))
    cols = T(np.array([[[0, 1, 2]]], dtype="int32"))
    with pytest.raises(ValueError, match="sparse_csr_offset"):
        F.sparse_attention(q, q, q, T(np.array([[[0, 2, 1, 3]]], dtype="int32")), cols)
    with pytest.raises(ValueError, match="sparse_csr_columns"):
        F.sparse_attention(q, q, q, off, T(np.array([[[0, 1, 3]]], dtype="int32")))
    with pytest.raises(ValueError, match="sparse_csr_offset"):
        F.sparse_attention(q, q, q, T(np.array([[[0, 1, 2]]], dtype="int32")), cols)
    with pytest.raises(ValueError, match="query, key and value"):
        F.sparse_attention(q, T(np.zeros((1, 1, 3, 3), dtype="float32")), q, off, cols)
    with pytest.raises(ValueError, match="attn_mask"):
        F.sparse_attention(q, q, q, off, cols, attn_mask=T(np.ones((2, 2), dtype="float32")))


# ------------------------------------------------------------------ CTC loss
DOC_LOGITS = np.array([
    [[4.17021990e-01, 7.20324516e-01, 1.14374816e-04], [3.02332580e-01, 1.46755889e-01, 9.23385918e-02]],
    [[1.86260208e-01, 3.45560730e-01, 3.96767467e-01], [5.38816750e-01, 4.19194520e-01, 6.85219526e-01]],
    [[2.04452246e-01, 8.78117442e-01, 2.73875929e-02], [6.70467496e-01, 4.17304814e-01, 5.58689833e-01]],
    [[1.40386939e-01, 1.98101491e-01, 8.00744593e-01], [9.68261600e-01, 3.13424170e-01, 6.92322612e-01]],
    [[8.76389146e-01, 8.94606650e-01, 8.50442126e-02], [3.90547849e-02, 1.69830427e-01, 8.78142476e-01]]],
    dtype="float32")


def test_ctc_loss_documented_example():
    labels = T(np.array([[1, 2, 2], [1, 2, 2]], dtype="int32"))
    il, ll = T(np.array([5, 5], dtype="int64")), T(np.array([3, 3], dtype="int64"))
    loss = F.ctc_loss(T(DOC_LOGITS), labels, il, ll, blank=0, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [3.9179852, 2.9076521], rtol=1e-6)
    loss = F.ctc_loss(T(DOC_LOGITS), labels, il, ll, blank=0, reduction="mean")
    assert loss.shape == [1]
    np.testing.assert_allclose(loss.numpy(), [1.1376063], rtol=1e-6)


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_brute_force(blank):
    Tm, B, C = 5, 4, 4
    logits = rng.standard_normal((Tm, B, C))
    nonblank = [c for c in range(C) if c != blank]
    labels = np.array([[nonblank[0], nonblank[1], nonblank[1]], [nonblank[2], nonblank[2], 0],
                       [nonblank[1], 0, 0], [0, 0, 0]], dtype="int32")
    il = np.array([5, 4, 3, 2], dtype="int64")
    ll = np.array([3, 2, 1, 0], dtype="int64")
    loss = F.ctc_loss(T(logits), T(labels), T(il), T(ll), blank=blank, reduction="none").numpy()
    ref = [R.ctc_brute_force(logits[:il[b], b], labels[b, :ll[b]], blank) for b in range(B)]
    np.testing.assert_allclose(loss, ref, rtol=1e-10)
    s = F.ctc_loss(T(logits), T(labels), T(il), T(ll), blank=blank, reduction="sum").numpy()
    np.testing.assert_allclose(s, [sum(ref)], rtol=1e-10)
    # 'mean': each loss divided by its label length, then averaged (sequences with labels only)
    m = F.ctc_loss(T(logits[:, :3]), T(labels[:3]), T(il[:3]), T(ll[:3]), blank=blank, reduction="mean").numpy()
    np.testing.assert_allclose(m, [np.mean(np.array(ref[:3]) / ll[:3])], rtol=1e-10)


def test_ctc_loss_infeasible_sequence_gives_zero():
    logits = rng.standard_normal((2, 1, 3))
    loss = F.ctc_loss(T(logits), T(np.array([[1, 1]], dtype="int32")), T(np.array([2], dtype="int64")),
                      T(np.array([2], dtype="int64")), reduction="none")
    np.testing.assert_array_equal(loss.numpy(), [0.0])


@pytest.mark.parametrize("norm_by_times", [False, True])
def test_ctc_loss_gradient(norm_by_times):
    Tm, B, C = 5, 3, 4
    logits = rng.standard_normal((Tm, B, C))
    labels = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]], dtype="int32")
    il, ll = np.array([5, 4, 3], dtype="int64"), np.array([3, 2, 1], dtype="int64")
    lt = T(logits, grad=True)
    loss = nn.CTCLoss(blank=0, reduction="mean")(lt, T(labels), T(il), T(ll), norm_by_times=norm_by_times)
    loss.backward()

    def f():
        return np.mean([R.ctc_loss_one(logits[:il[b], b], labels[b, :ll[b]], 0) / ll[b] for b in range(B)])
    ref = num_grad(f, logits)
    if norm_by_times:  # Paddle scales the gradient (not the loss) by 1 / input length
        ref = ref / il[None, :, None]
    np.testing.assert_allclose(lt.grad.numpy(), ref, rtol=1e-6, atol=1e-9)


def test_ctc_loss_errors():
    logits = T(np.zeros((3, 2, 4), dtype="float32"))
    lab = T(np.array([[1, 2], [1, 1]], dtype="int32"))
    il, ll = T(np.array([3, 3], dtype="int64")), T(np.array([2, 2], dtype="int64"))
    with pytest.raises(ValueError, match="reduction"):
        F.ctc_loss(logits, lab, il, ll, reduction="avg")
    with pytest.raises(ValueError, match="labels in"):
        F.ctc_loss(logits, T(np.array([[1, 4], [1, 1]], dtype="int32")), il, ll)
    with pytest.raises(ValueError, match="input_lengths"):
        F.ctc_loss(logits, lab, T(np.array([4, 3], dtype="int64")), ll)
    with pytest.raises(ValueError, match="label_lengths"):
        F.ctc_loss(logits, lab, il, T(np.array([3, 2], dtype="int64")))
    with pytest.raises(ValueError, match="blank"):
        F.ctc_loss(logits, lab, il, ll, blank=4)
    with pytest.raises(ValueError, match="warpctc"):
        F.ctc_loss(T(np.zeros((3, 4), dtype="float32")), lab, il, ll)
    with pytest.raises(TypeError, match="warpctc"):
        F.ctc_loss(logits, T(np.array([[1, 2], [1, 1]], dtype="float32")), il, ll)
    with pytest.raises(ValueError, match="reduction"):
        nn.CTCLoss(reduction="x")


# ------------------------------------------------------------------ hsigmoid loss
def hsigmoid_ref(x, label, num_classes, w, b=None, table=None, code=None):
    """-log of the product of branch probabilities along each sample's path (sigmoid(pre) for a
    1-branch, 1 - sigmoid(pre) for a 0-branch), plus log 2 for every code slot past the path."""
    N = x.shape[0]
    out = np.zeros((N, 1))
    for i in range(N):
        steps = []
        if table is None:
            node = int(label[i]) + num_classes  # heap numbering, root = 1
            while node > 1:
                steps.append((node // 2 - 1, node % 2))
                node //= 2
            L = (num_classes - 1).bit_length()
        else:
            for j in range(table.shape[1]):
                if table[i, j] < 0:
                    break
                steps.append((int(table[i, j]), int(code[i, j] != 0)))
            L = table.shape[1]
        prob = 1.0
        for node, bit in steps:
            pre = float(np.clip(w[node] @ x[i] + (0.0 if b is None else b.reshape(-1)[node]), -40, 40))
            p = 1 / (1 + math.exp(-pre))
            prob *= p if bit else 1 - p
        out[i, 0] = -math.log(prob) + (L - len(steps)) * math.log(2.0)
    return out


@pytest.mark.parametrize("num_classes", [2, 5, 8, 13])
def test_hsigmoid_default_tree(num_classes):
    N, D = 6, 4
    x = rng.standard_normal((N, D))
    label = rng.integers(0, num_classes, N)
    w = rng.standard_normal((num_classes - 1, D)) * 0.5
    b = rng.standard_normal((num_classes - 1, 1)) * 0.5
    xt, wt, bt = T(x, True), T(w, True), T(b, True)
    out = F.hsigmoid_loss(xt, T(label), num_classes, wt, bt)
    assert out.shape == [N, 1]
    np.testing.assert_allclose(out.numpy(), hsigmoid_ref(x, label, num_classes, w, b), rtol=1e-10)
    np.testing.assert_allclose(F.hsigmoid_loss(T(x), T(label.reshape(-1, 1)), num_classes, T(w)).numpy(),
                               hsigmoid_ref(x, label, num_classes, w), rtol=1e-10)
    gw = rng.uniform(0.5, 1.5, (N, 1))
    paddle.sum(out * T(gw)).backward()
    for t, a in ((xt, x), (wt, w), (bt, b)):
        ref = num_grad(lambda: float((hsigmoid_ref(x, label, num_classes, w, b) * gw).sum()), a)
        np.testing.assert_allclose(t.grad.numpy(), ref, rtol=1e-6, atol=1e-8)


def test_hsigmoid_custom_tree_and_layer():
    N, D, C = 4, 3, 6
    x = rng.standard_normal((N, D))
    table = np.array([[0, 2, 5, -1], [0, 1, -1, -1], [0, 2, 4, 3], [0, 1, 3, -1]], dtype="int64")
    code = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 1, 1]], dtype="int64")
    label = np.array([0, 1, 2, 3], dtype="int64")
    layer = nn.HSigmoidLoss(D, C, is_custom=True)
    assert layer.weight.shape == [C, D] and layer.bias.shape == [C, 1]
    np.testing.assert_array_equal(layer.bias.numpy(), 0)
    layer.weight.set_value(rng.standard_normal((C, D)).astype("float32"))
    layer.bias.set_value(rng.standard_normal((C, 1)).astype("float32"))
    out = layer(T(x.astype("float32")), T(label), T(table), T(code))
    ref = hsigmoid_ref(x.astype("float32"), label, C, layer.weight.numpy(), layer.bias.numpy(), table, code)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)
    default = nn.HSigmoidLoss(D, C)
    assert default.weight.shape == [C - 1, D]
    out = default(T(x.astype("float32")), T(label))
    ref = hsigmoid_ref(x.astype("float32"), label, C, default.weight.numpy(), default.bias.numpy())
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)


def test_hsigmoid_errors():
    x = T(np.zeros((2, 3), dtype="float32"))
    w = T(np.zeros((3, 3), dtype="float32"))
    with pytest.raises(ValueError, match="label values"):
        F.hsigmoid_loss(x, T(np.array([0, 4], dtype="int64")), 4, w)
    with pytest.raises(ValueError, match="weight"):
        F.hsigmoid_loss(x, T(np.array([0, 1], dtype="int64")), 4, T(np.zeros((3, 2), dtype="float32")))
    with pytest.raises(ValueError, match="together"):
        F.hsigmoid_loss(x, T(np.array([0, 1], dtype="int64")), 4, w, path_table=T(np.zeros((2, 2), dtype="int64")))
    with pytest.raises(ValueError, match="num_classes"):
        nn.HSigmoidLoss(3, 1)
    with pytest.raises(ValueError, match="uses node"):
        F.hsigmoid_loss(x, T(np.array([0, 1], dtype="int64")), 8, w)


# ------------------------------------------------------------------ Bilinear initializer
def test_bilinear_initializer():
    w = paddle.create_parameter([2, 1, 4, 4], "float32", default_initializer=nn.initializer.Bilinear())
    K = 4
    f = math.ceil(K / 2)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    ref = np.zeros(2 * 1 * K * K)
    for i in range(ref.size):  # Paddle's formula, y with true division as Paddle computes it
        x, y = i % K, (i / K) % K
        ref[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    np.testing.assert_allclose(w.numpy().reshape(-1), ref, rtol=1e-6)
    with pytest.raises(ValueError, match="Bilinear"):
        paddle.create_parameter([2, 1, 3, 4], "float32", default_initializer=nn.initializer.Bilinear())


# ------------------------------------------------------------------ conv padding_mode
@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")])
def test_conv_padding_modes(mode, np_mode):
    import ref_conv
    x = rng.standard_normal((2, 3, 5, 6))
    conv = nn.Conv2D(3, 4, 3, padding=2, padding_mode=mode)
    conv.weight.set_value(rng.standard_normal((4, 3, 3, 3)).astype("float32"))
    xp = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode=np_mode)
    ref = ref_conv.conv(xp, conv.weight.numpy().astype("float64")) + conv.bias.numpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(conv(T(x.astype("float32"))).numpy(), ref, rtol=1e-4, atol=1e-4)
    c1 = nn.Conv1D(3, 2, 3, padding=1, padding_mode=mode, data_format="NLC")
    x1 = rng.standard_normal((2, 7, 3))
    xp1 = np.pad(np.moveaxis(x1, 2, 1), ((0, 0), (0, 0), (1, 1)), mode=np_mode)
    ref1 = ref_conv.conv(xp1, c1.weight.numpy().astype("float64")) + c1.bias.numpy().reshape(1, -1, 1)
    np.testing.assert_allclose(c1(T(x1.astype("float32"))).numpy(), np.moveaxis(ref1, 1, 2), rtol=1e-4, atol=1e-4)


def test_conv_padding_mode_errors():
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2D(3, 4, 3, padding_mode="mirror")
    with pytest.raises(TypeError, match="padding must be int"):
        nn.Conv2D(3, 4, 3, padding=[1, 1], padding_mode="reflect")
