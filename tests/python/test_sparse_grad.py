"""Row-sparse gradients (Paddle's SelectedRows) from Embedding(sparse=True) / F.embedding(sparse=True):
how .grad reads them (densified, duplicates summed, accumulated over backward passes), clear_grad,
tied weights, paddle.grad, and the optimizers that consume them row by row (SGD, Adam with
lazy_mode True/False, AdamW) against numpy re-implementations of Paddle's sparse update rules;
weight decay and gradient clipping on sparse gradients as Paddle applies them."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from paddle import optimizer as O
from paddle.regularizer import L2Decay

V, D = 10, 4
# id batches with repeats; rows 0, 2, 5, 6, 8, 9 are never looked up, row 7 only at step 1
BATCHES = [np.array([[1, 3, 1], [7, 3, 1]]), np.array([[4, 4, 1], [3, 3, 3]]),
           np.array([[1, 4, 3], [1, 1, 4]])]


def _w0(seed=0, dtype="float64"):
    return np.random.default_rng(seed).uniform(-1, 1, (V, D)).astype(dtype)


def _coef(ids, seed):
    rng = np.random.default_rng(100 + seed)
    return rng.uniform(-1, 1, ids.shape + (D,)), rng.uniform(0.5, 1.5, ids.shape + (D,))


def _loss(out, c, d):
    # sum(c out + 0.5 d out^2): d loss / d out = c + d out
    c, d = (paddle.to_tensor(a.astype(out.dtype.name)) for a in (c, d))
    return paddle.sum(out * c + 0.5 * d * out * out)


def _grad_np(w, ids, c, d):
    g = np.zeros_like(w)
    np.add.at(g, ids.reshape(-1), (c + d * w[ids]).reshape(-1, D))
    return g


def _touched(ids):
    return np.unique(ids)


def _emb(w, sparse=True, dtype="float64"):
    prev = paddle.get_default_dtype()
    paddle.set_default_dtype(dtype)  # the layer's weight dtype
    try:
        e = paddle.nn.Embedding(V, D, sparse=sparse)
    finally:
        paddle.set_default_dtype(prev)
    e.weight.set_value(w.astype(dtype))
    return e


def _train(make_opt, sparse, steps=BATCHES, w=None, dtype="float64", extra=None):
    w = _w0(dtype=dtype) if w is None else w
    e = _emb(w, sparse, dtype)
    params = [e.weight] + ([extra] if extra is not None else [])
    opt = make_opt(params)
    traj = []
    for k, ids in enumerate(steps):
        c, d = _coef(ids, k)
        loss = _loss(e(paddle.to_tensor(ids)), c, d)
        if extra is not None:
            loss = loss + paddle.sum(extra * extra) * 0.5
        loss.backward()
        opt.step()
        opt.clear_grad()
        traj.append(e.weight.numpy().copy())
    return traj, opt, e


# ------------------------------------------------------------------ .grad and the engine
def test_grad_reads_dense_with_duplicates_summed():
    w = _w0()
    e = _emb(w)
    ids = BATCHES[0]
    c, d = _coef(ids, 0)
    _loss(e(paddle.to_tensor(ids)), c, d).backward()
    rows, vals = e.weight._grad_value()
    g = _grad_np(w, ids, c, d)
    np.testing.assert_array_equal(rows.numpy(), [1, 3, 7])  # merged: sorted, unique
    np.testing.assert_allclose(vals.numpy(), g[[1, 3, 7]], rtol=1e-12)
    got = e.weight.grad
    assert isinstance(got, paddle.Tensor) and got.shape == [V, D]
    np.testing.assert_allclose(got.numpy(), g, rtol=1e-12)
    assert e.weight.grad is got  # one tensor until the next backward


def test_grad_accumulates_over_two_backward_passes():
    w = _w0()
    e = _emb(w)
    total = np.zeros_like(w)
    for k in (0, 1):
        ids = BATCHES[k]
        c, d = _coef(ids, k)
        _loss(e(paddle.to_tensor(ids)), c, d).backward()
        total += _grad_np(w, ids, c, d)
    rows, vals = e.weight._grad_value()
    np.testing.assert_array_equal(rows.numpy(), [1, 3, 4, 7])
    np.testing.assert_allclose(e.weight.grad.numpy(), total, rtol=1e-12)


def test_retain_graph_backward_twice_and_read_in_between():
    w = _w0()
    e = _emb(w)
    ids = BATCHES[1]
    c, d = _coef(ids, 1)
    loss = _loss(e(paddle.to_tensor(ids)), c, d)
    loss.backward(retain_graph=True)
    g = _grad_np(w, ids, c, d)
    np.testing.assert_allclose(e.weight.grad.numpy(), g, rtol=1e-12)  # densified by the read
    loss.backward()
    np.testing.assert_allclose(e.weight.grad.numpy(), 2 * g, rtol=1e-12)
    rows, vals = e.weight._grad_value()  # still row-sparse for the optimizers
    np.testing.assert_array_equal(rows.numpy(), [1, 3, 4])
    np.testing.assert_allclose(vals.numpy(), 2 * g[[1, 3, 4]], rtol=1e-12)


def test_padding_idx_rows_get_no_gradient():
    w = _w0()
    e = paddle.nn.Embedding(V, D, padding_idx=3, sparse=True)
    ids = BATCHES[0]
    out = e(paddle.to_tensor(ids))
    paddle.sum(out * 2.0).backward()
    rows, _ = e.weight._grad_value()
    np.testing.assert_array_equal(rows.numpy(), [1, 7])
    ref = np.zeros_like(w)
    for i in ids.reshape(-1):
        if i != 3:
            ref[i] += 2.0
    np.testing.assert_allclose(e.weight.grad.numpy(), ref)


def test_clear_grad_set_to_zero_and_drop():
    w = _w0()
    e = _emb(w)
    ids = BATCHES[0]
    c, d = _coef(ids, 0)
    _loss(e(paddle.to_tensor(ids)), c, d).backward()
    e.weight.clear_grad()
    np.testing.assert_array_equal(e.weight.grad.numpy(), np.zeros((V, D)))
    rows, vals = e.weight._grad_value()
    assert rows.shape == [0] and vals.shape == [0, D]
    ids2 = BATCHES[1]
    c2, d2 = _coef(ids2, 1)
    _loss(e(paddle.to_tensor(ids2)), c2, d2).backward()  # only the new gradient
    np.testing.assert_allclose(e.weight.grad.numpy(), _grad_np(w, ids2, c2, d2), rtol=1e-12)
    e.weight.clear_grad(set_to_zero=False)
    assert e.weight.grad is None and e.weight._grad_value() is None


def _tied_loss(w_param, ids, emb_first):
    # the embedding table doubles as the output projection (tied weights)
    h_ids = paddle.to_tensor(ids)
    x = paddle.to_tensor(np.random.default_rng(5).uniform(-1, 1, (3, D)))
    if emb_first:
        h = F.embedding(h_ids, w_param, sparse=True)
        logits = paddle.matmul(x, w_param, transpose_y=True)
    else:
        logits = paddle.matmul(x, w_param, transpose_y=True)
        h = F.embedding(h_ids, w_param, sparse=True)
    return paddle.sum(h * h) + paddle.sum(logits * logits)


@pytest.mark.parametrize("emb_first", [True, False])
def test_tied_weights_fall_back_to_dense(emb_first):
    w = _w0()
    p = paddle.to_tensor(w)
    p.stop_gradient = False
    ids = BATCHES[0]
    _tied_loss(p, ids, emb_first).backward()
    x = np.random.default_rng(5).uniform(-1, 1, (3, D))
    ref = _grad_np(w, ids, np.zeros(ids.shape + (D,)), 2 * np.ones(ids.shape + (D,)))
    ref += 2 * (x @ w.T).T @ x
    np.testing.assert_allclose(p.grad.numpy(), ref, rtol=1e-12)
    assert not isinstance(p._grad_value(), tuple)  # dense: every row may move


def test_sparse_then_dense_backward_passes_sum():
    w = _w0()
    p = paddle.to_tensor(w)
    p.stop_gradient = False
    ids = BATCHES[2]
    paddle.sum(F.embedding(paddle.to_tensor(ids), p, sparse=True) * 3.0).backward()
    paddle.sum(p * p).backward()
    ref = 2 * w
    np.add.at(ref, ids.reshape(-1), 3.0)
    np.testing.assert_allclose(p.grad.numpy(), ref, rtol=1e-12)
    paddle.sum(F.embedding(paddle.to_tensor(ids), p, sparse=True)).backward()  # dense + sparse
    np.add.at(ref, ids.reshape(-1), 1.0)
    np.testing.assert_allclose(p.grad.numpy(), ref, rtol=1e-12)


def test_paddle_grad_returns_dense():
    w = _w0()
    p = paddle.to_tensor(w)
    p.stop_gradient = False
    ids = BATCHES[1]
    c, d = _coef(ids, 1)
    (g,) = paddle.grad(_loss(F.embedding(paddle.to_tensor(ids), p, sparse=True), c, d), [p])
    assert isinstance(g, paddle.Tensor) and g.shape == [V, D]
    np.testing.assert_allclose(g.numpy(), _grad_np(w, ids, c, d), rtol=1e-12)
    assert p.grad is None
    # create_graph: the dense rule, differentiable again
    out = F.embedding(paddle.to_tensor(ids), p, sparse=True)
    (g2,) = paddle.grad(paddle.sum(out * out), [p], create_graph=True)
    (gg,) = paddle.grad(paddle.sum(g2 * g2), [p])
    cnt = np.zeros(V)
    np.add.at(cnt, ids.reshape(-1), 1.0)
    np.testing.assert_allclose(gg.numpy(), 8 * cnt[:, None] ** 2 * w, rtol=1e-12)


def test_non_leaf_weight_and_hooks_get_dense_gradients():
    w = _w0()
    p = paddle.to_tensor(w)
    p.stop_gradient = False
    ids = BATCHES[0]
    paddle.sum(F.embedding(paddle.to_tensor(ids), p * 2.0, sparse=True)).backward()
    ref = np.zeros_like(w)
    np.add.at(ref, ids.reshape(-1), 2.0)
    np.testing.assert_allclose(p.grad.numpy(), ref)
    seen = []
    q = paddle.to_tensor(w)
    q.stop_gradient = False
    q.register_hook(lambda g: seen.append(g.numpy().copy()))
    paddle.sum(F.embedding(paddle.to_tensor(ids), q, sparse=True)).backward()
    np.testing.assert_allclose(seen[0], ref / 2)
    np.testing.assert_allclose(q.grad.numpy(), ref / 2)


def test_writing_to_the_read_grad_makes_it_dense():
    w = _w0()
    e = _emb(w)
    ids = BATCHES[0]
    paddle.sum(e(paddle.to_tensor(ids))).backward()
    g = e.weight.grad
    g.set_value(np.full((V, D), 0.5))
    assert not isinstance(e.weight._grad_value(), tuple)
    np.testing.assert_array_equal(e.weight._grad_value().numpy(), np.full((V, D), 0.5))


# ------------------------------------------------------------------ numpy references (Paddle's rules)
def _np_sgd(w, grads, lr, l2=0.0):
    w = w.copy()
    traj = []
    for g, rows in grads:
        if l2:  # Paddle: grad + l2 * param is dense (its sum op), so every row decays
            w = w - lr * (g + l2 * w)
        else:  # sgd over the SelectedRows: touched rows only
            w[rows] -= lr * g[rows]
        traj.append(w.copy())
    return traj


def _replay(np_step, w0):
    """Runs np_step(w, [(g, rows)]) one step at a time with the gradients of the current w."""
    w, traj = w0.copy(), []
    state = {}
    for k, ids in enumerate(BATCHES):
        c, d = _coef(ids, k)
        w = np_step(w, (_grad_np(w, ids, c, d), _touched(ids)), state)
        traj.append(w.copy())
    return traj


def _sgd_step(lr, l2=0.0):
    def step(w, gr, state):
        return _np_sgd(w, [gr], lr, l2)[-1]
    return step


def _adam_step(lr, lazy, coeff=0.0):
    def step(w, gr, state):
        b1, b2, eps = 0.9, 0.999, 1e-8
        m1 = state.setdefault("m1", np.zeros_like(w))
        m2 = state.setdefault("m2", np.zeros_like(w))
        t = state["t"] = state.get("t", 0) + 1
        b1p, b2p = b1 ** t, b2 ** t
        g, rows = gr
        w = w * (1 - lr * coeff)
        sel = rows if lazy else np.arange(w.shape[0])
        lrt = lr * np.sqrt(1 - b2p) / (1 - b1p)
        m1[sel] = b1 * m1[sel] + (1 - b1) * g[sel]
        m2[sel] = b2 * m2[sel] + (1 - b2) * g[sel] ** 2
        w = w.copy()
        w[sel] -= lrt * m1[sel] / (np.sqrt(m2[sel]) + eps * np.sqrt(1 - b2p))
        return w
    return step


# ------------------------------------------------------------------ SGD
def test_sgd_sparse_trajectory_touches_only_looked_up_rows():
    w0 = _w0()
    traj, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps), True)
    ref = _replay(_sgd_step(0.1), w0)
    for a, b in zip(traj, ref):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    never = [0, 2, 5, 6, 8, 9]
    np.testing.assert_array_equal(traj[-1][never], w0[never])
    np.testing.assert_array_equal(traj[-1][7], traj[0][7])  # row 7: step 1 only


def test_sgd_sparse_equals_dense_without_weight_decay():
    sp, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps), True)
    de, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps), False)
    for a, b in zip(sp, de):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def test_sgd_sparse_with_weight_decay_decays_every_row_as_paddle():
    # Paddle adds the regulariser's dense term to the SelectedRows gradient (sum op -> dense)
    w0 = _w0()
    traj, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps, weight_decay=0.05), True)
    ref = _replay(_sgd_step(0.1, l2=0.05), w0)
    for a, b in zip(traj, ref):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(traj[0][0], w0[0] * (1 - 0.1 * 0.05), rtol=1e-12)
    de, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps, weight_decay=L2Decay(0.05)), False)
    for a, b in zip(traj, de):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_sgd_sparse_float32():
    w0 = _w0(dtype="float32")
    traj, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps), True, dtype="float32")
    ref = _replay(_sgd_step(0.1), w0.astype("float64"))
    np.testing.assert_allclose(traj[-1], ref[-1], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ Adam
def test_adam_lazy_mode_trajectory_vs_numpy():
    w0 = _w0()
    traj, opt, e = _train(lambda ps: O.Adam(0.05, parameters=ps, lazy_mode=True), True)
    ref = _replay(_adam_step(0.05, lazy=True), w0)
    for a, b in zip(traj, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    never = [0, 2, 5, 6, 8, 9]
    np.testing.assert_array_equal(traj[-1][never], w0[never])
    np.testing.assert_array_equal(traj[-1][7], traj[0][7])  # untouched after step 1: frozen
    m1 = opt._get_accumulator("moment1", e.weight).numpy()
    assert np.all(m1[never] == 0) and np.all(m1[[1, 3, 4, 7]] != 0)
    np.testing.assert_allclose(opt._get_accumulator("beta1_pow_acc", e.weight).numpy(), [0.9 ** 4])


def test_adam_not_lazy_sparse_equals_dense_and_numpy():
    w0 = _w0()
    sp, _, _ = _train(lambda ps: O.Adam(0.05, parameters=ps, lazy_mode=False), True)
    de, _, _ = _train(lambda ps: O.Adam(0.05, parameters=ps, lazy_mode=False), False)
    ref = _replay(_adam_step(0.05, lazy=False), w0)
    for a, b, r in zip(sp, de, ref):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(a, r, rtol=1e-10, atol=1e-12)
    assert np.any(sp[-1][7] != sp[0][7])  # moments of rows without gradient still move them


def test_adam_lazy_with_weight_decay_is_dense_as_paddle():
    sp, _, _ = _train(lambda ps: O.Adam(0.05, parameters=ps, lazy_mode=True, weight_decay=0.01), True)
    de, _, _ = _train(lambda ps: O.Adam(0.05, parameters=ps, lazy_mode=True, weight_decay=0.01), False)
    for a, b in zip(sp, de):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert np.any(sp[-1][0] != _w0()[0])


def test_adamw_lazy_decays_every_row_then_updates_touched_rows():
    w0 = _w0()
    traj, _, _ = _train(lambda ps: O.AdamW(0.05, parameters=ps, lazy_mode=True, weight_decay=0.1), True)
    ref = _replay(_adam_step(0.05, lazy=True, coeff=0.1), w0)
    for a, b in zip(traj, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_adam_lazy_float32_and_state_dict_resume():
    mk = lambda ps: O.Adam(0.05, parameters=ps, lazy_mode=True)  # noqa: E731
    full, opt, e = _train(mk, True, dtype="float32")
    ref = _replay(_adam_step(0.05, lazy=True), _w0())
    np.testing.assert_allclose(full[-1], ref[-1], rtol=1e-4, atol=1e-5)
    # two steps, save, resume for the third: the same result
    part, opt2, e2 = _train(mk, True, steps=BATCHES[:2], dtype="float32")
    state = opt2.state_dict()
    e3 = _emb(part[-1], True, "float32")
    opt3 = O.Adam(0.05, parameters=[e3.weight], lazy_mode=True)
    # accumulators are named after the parameter
    opt3.set_state_dict({k.replace(e2.weight.name, e3.weight.name): v for k, v in state.items()})
    ids = BATCHES[2]
    c, d = _coef(ids, 2)
    _loss(e3(paddle.to_tensor(ids)), c, d).backward()
    opt3.step()
    np.testing.assert_array_equal(e3.weight.numpy(), full[-1])


def test_step_after_clear_grad_leaves_everything():
    # Paddle's sparse adam returns early on a gradient with no rows (beta powers stay too)
    e = _emb(_w0())
    opt = O.Adam(0.05, parameters=e.parameters(), lazy_mode=False)
    paddle.sum(e(paddle.to_tensor(BATCHES[0]))).backward()
    opt.step()
    opt.clear_grad()
    before = e.weight.numpy().copy()
    opt.step()
    np.testing.assert_array_equal(e.weight.numpy(), before)
    np.testing.assert_allclose(opt._get_accumulator("beta1_pow_acc", e.weight).numpy(), [0.81])


@pytest.mark.parametrize("make", [
    lambda ps: O.Momentum(0.05, 0.9, parameters=ps),
    lambda ps: O.Adagrad(0.05, parameters=ps),
    lambda ps: O.RMSProp(0.05, parameters=ps),
    lambda ps: O.Adamax(0.05, parameters=ps),
    lambda ps: O.Lamb(0.05, parameters=ps),
])
def test_other_optimizers_densify(make):
    sp, _, _ = _train(make, True)
    de, _, _ = _train(make, False)
    for a, b in zip(sp, de):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-14)


def test_minimize_returns_the_row_sparse_pair():
    e = _emb(_w0())
    opt = O.SGD(0.1, parameters=e.parameters())
    ids = BATCHES[0]
    c, d = _coef(ids, 0)
    loss = _loss(e(paddle.to_tensor(ids)), c, d)
    loss.backward()
    _, pg = opt.minimize(loss)
    (p, g), = pg
    np.testing.assert_allclose(g.to_dense().numpy(), _grad_np(_w0(), ids, c, d), rtol=1e-12)


# ------------------------------------------------------------------ clipping
def _clip_run(clip, sparse):
    b = paddle.to_tensor(np.linspace(-2, 3, 5))  # a dense parameter next to the embedding
    b.stop_gradient = False
    traj, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps, grad_clip=clip), sparse, extra=b)
    return traj, b.numpy()


def test_clip_by_global_norm_with_sparse_grads():
    w0 = _w0()
    clip = paddle.nn.ClipGradByGlobalNorm(1.5)
    traj, bnp = _clip_run(clip, True)
    # numpy: the norm over the merged gradient plus the dense one, every gradient scaled
    w, b = w0.copy(), np.linspace(-2, 3, 5)
    for k, ids in enumerate(BATCHES):
        c, d = _coef(ids, k)
        g, gb = _grad_np(w, ids, c, d), b.copy()
        norm = np.sqrt((g ** 2).sum() + (gb ** 2).sum())
        s = 1.5 / max(norm, 1.5)
        w, b = w - 0.1 * s * g, b - 0.1 * s * gb
        np.testing.assert_allclose(traj[k], w, rtol=1e-12)
    np.testing.assert_allclose(bnp, b, rtol=1e-12)
    de, _ = _clip_run(paddle.nn.ClipGradByGlobalNorm(1.5), False)
    np.testing.assert_allclose(traj[-1], de[-1], rtol=1e-12)


def test_clip_by_norm_with_sparse_grads():
    traj, _ = _clip_run(paddle.nn.ClipGradByNorm(0.7), True)
    w = _w0()
    for k, ids in enumerate(BATCHES):
        c, d = _coef(ids, k)
        g = _grad_np(w, ids, c, d)
        n = np.sqrt((g ** 2).sum())
        w = w - 0.1 * (g * 0.7 / n if n > 0.7 else g)
        np.testing.assert_allclose(traj[k], w, rtol=1e-12)


def test_clip_by_value_clips_merged_rows_only():
    # Paddle's clip on SelectedRows merges the rows and clips their values; absent rows stay 0
    # (with min > 0 a dense gradient would move them)
    traj, _ = _clip_run(paddle.nn.ClipGradByValue(max=0.8, min=0.1), True)
    w = _w0()
    for k, ids in enumerate(BATCHES):
        c, d = _coef(ids, k)
        g = _grad_np(w, ids, c, d)
        rows = _touched(ids)
        w = w.copy()
        w[rows] -= 0.1 * np.clip(g[rows], 0.1, 0.8)
        np.testing.assert_allclose(traj[k], w, rtol=1e-12)
    np.testing.assert_array_equal(traj[-1][[0, 2]], _w0()[[0, 2]])


def test_user_clipper_receives_dense_gradients():
    class Halve(paddle.nn.ClipGradByValue):
        _sparse_aware = False

        def _dygraph_clip(self, params_grads):
            for _, g in params_grads:
                assert isinstance(g, paddle.Tensor) and g.shape == [V, D]
            return [(p, g * 0.5) for p, g in params_grads]

    traj, _, _ = _train(lambda ps: O.SGD(0.1, parameters=ps, grad_clip=Halve(1.0)), True)
    ref = _replay(_sgd_step(0.05), _w0())
    np.testing.assert_allclose(traj[-1], ref[-1], rtol=1e-12)


# ------------------------------------------------------------------ the ops' argument checks
def test_sparse_ops_reject_bad_input():
    ops = paddle._C_ops
    p = paddle.zeros([4, 3])
    rows = paddle.to_tensor([1, 5], dtype="int64")
    vals = paddle.ones([2, 3])
    with pytest.raises(IndexError, match="sgd_sparse_"):
        ops.sgd_sparse_(p, rows, vals, 0.1)
    with pytest.raises(ValueError, match="sgd_sparse_"):
        ops.sgd_sparse_(p, paddle.to_tensor([1], dtype="int64"), vals, 0.1)
    with pytest.raises(TypeError, match="adam_sparse_"):
        z = paddle.zeros([4, 3])
        ops.adam_sparse_(p, paddle.to_tensor([1.0, 2.0]), vals, z, z, paddle.ones([1]), paddle.ones([1]), 0.1)
    with pytest.raises(IndexError, match="merge_selected_rows"):
        ops.merge_selected_rows(rows, vals, 4)
    with pytest.raises(IndexError, match="embedding"):
        paddle.sum(F.embedding(paddle.to_tensor([7]), p, sparse=True)).backward()
    np.testing.assert_array_equal(p.numpy(), np.zeros((4, 3)))


def test_sgd_and_adam_run_the_row_sparse_kernels(monkeypatch):
    import paddle.optimizer.adam as adam_mod
    import paddle.optimizer.sgd as sgd_mod
    calls = []
    for mod, name in ((sgd_mod, "sgd_sparse_"), (sgd_mod, "sgd_"), (adam_mod, "adam_sparse_"),
                      (adam_mod, "adam_")):
        real = getattr(mod._C_ops, name)
        monkeypatch.setattr(mod._C_ops, name,
                            lambda *a, _r=real, _n=name: (calls.append(_n), _r(*a))[1])
    _train(lambda ps: O.SGD(0.1, parameters=ps), True)
    _train(lambda ps: O.Adam(0.1, parameters=ps, lazy_mode=True), True)
    assert calls == ["sgd_sparse_"] * 3 + ["adam_sparse_"] * 3
    calls.clear()
    _train(lambda ps: O.SGD(0.1, parameters=ps, weight_decay=0.1), True)
    assert calls == ["sgd_"] * 3
