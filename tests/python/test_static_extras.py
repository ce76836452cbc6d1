"""paddle.static.accuracy / auc / ExponentialMovingAverage / WeightNormParamAttr against numpy
references: accuracy's top-k ratio and counts, auc's bucketed ROC area (global and sliding
window), EMA's update / bias-corrected apply / restore, weight normalization's w = g v / |v|."""
import numpy as np
import pytest

import paddle


@pytest.fixture
def static():
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.program_guard(main, startup), paddle.static.scope_guard(scope):
        yield main, startup, scope
    paddle.disable_static()


def _val(scope, name):
    return np.array(scope.find_var(name).get_tensor())


def test_accuracy(static):
    main, startup, scope = static
    x = paddle.static.data("x", [None, 5], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    correct = paddle.static.create_global_var([1], 0, "int32", persistable=True)
    total = paddle.static.create_global_var([1], 0, "int32", persistable=True)
    a1 = paddle.static.accuracy(x, y)
    a2 = paddle.static.accuracy(x, y, k=2, correct=correct, total=total)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.RandomState(0)
    X = rng.rand(13, 5).astype("float32")
    Y = rng.randint(0, 5, (13, 1)).astype("int64")
    r1, r2, c, t = exe.run(main, feed={"x": X, "y": Y}, fetch_list=[a1, a2, correct, total])
    top = np.argsort(-X, axis=1)
    hit1 = (top[:, :1] == Y).any(1).sum()
    hit2 = (top[:, :2] == Y).any(1).sum()
    assert r1.dtype == np.float32 and r1.shape == (1,)
    np.testing.assert_array_equal(r1, np.float32(hit1) / np.float32(13))
    np.testing.assert_array_equal(r2, np.float32(hit2) / np.float32(13))
    assert c[0] == hit2 and t[0] == 13 and c.dtype == np.int32


def test_accuracy_dynamic():
    x = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    y = paddle.to_tensor([[1], [1], [1]])
    np.testing.assert_allclose(paddle.static.accuracy(x, y).numpy(), [2 / 3], rtol=1e-6)


def _np_auc(pos, neg):
    auc = tp = tn = 0.0
    for i in range(len(pos) - 1, -1, -1):
        pp, pn = tp, tn
        tp += pos[i]
        tn += neg[i]
        auc += abs(tn - pn) * (tp + pp) / 2.0
    return auc / tp / tn if tp > 0 and tn > 0 else auc


def _buckets(p, y, nt):
    pos, neg = np.zeros(nt + 1), np.zeros(nt + 1)
    b = (p.astype("float32") * np.float32(nt)).astype(np.uint32)
    for k, lab in zip(b, y):
        if lab > 0:
            pos[k] += 1
        elif lab == 0:
            neg[k] += 1
    return pos, neg


def test_auc_global_and_sliding(static):
    main, startup, scope = static
    nt, slide = 200, 2
    p = paddle.static.data("p", [None, 2], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    auc, batch_auc, stats = paddle.static.auc(p, y, num_thresholds=nt, slide_steps=slide)
    assert [tuple(s.shape) for s in stats] == [((1 + slide) * (nt + 1) + 1,)] * 2 + [(1, nt + 1)] * 2
    assert all(s.persistable for s in stats)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.RandomState(3)
    tot_pos, tot_neg, window = np.zeros(nt + 1), np.zeros(nt + 1), []
    for step in range(4):
        Y = rng.randint(0, 2, (32, 1)).astype("int64")
        q = np.clip(rng.rand(32) * 0.6 + 0.4 * Y[:, 0], 0, 1).astype("float32")
        P = np.stack([1 - q, q], 1).astype("float32")
        g, b = exe.run(main, feed={"p": P, "y": Y}, fetch_list=[auc, batch_auc])
        pos, neg = _buckets(P[:, 1], Y[:, 0], nt)
        tot_pos += pos
        tot_neg += neg
        window = (window + [(pos, neg)])[-slide:]
        assert g.dtype == np.float64 and g.shape == (1,)
        np.testing.assert_allclose(g[0], _np_auc(tot_pos, tot_neg), rtol=1e-12)
        np.testing.assert_allclose(b[0], _np_auc(sum(w[0] for w in window), sum(w[1] for w in window)), rtol=1e-12)
    np.testing.assert_array_equal(_val(scope, stats[2].name)[0], tot_pos)
    # a perfectly separated set has AUC 1
    assert 0.5 < g[0] <= 1.0


def test_auc_rejects_probabilities_out_of_range(static):
    main, startup, _ = static
    p = paddle.static.data("p", [None, 1], "float32")
    y = paddle.static.data("y", [None, 1], "int64")
    auc, _, _ = paddle.static.auc(p, y, num_thresholds=10)
    exe = paddle.static.Executor()
    exe.run(startup)
    with pytest.raises(ValueError, match="auc"):
        exe.run(main, feed={"p": np.array([[1.5]], "float32"), "y": np.array([[1]], "int64")}, fetch_list=[auc])


def test_exponential_moving_average(static):
    main, startup, scope = static
    x = paddle.static.data("x", [None, 3], "float32")
    lin = paddle.nn.Linear(3, 2)
    loss = paddle.mean(lin(x) ** 2)
    paddle.optimizer.SGD(0.1).minimize(loss)
    decay = 0.8
    ema = paddle.static.ExponentialMovingAverage(decay)
    ema.update()
    exe = paddle.static.Executor()
    exe.run(startup)
    names = [lin.weight.name, lin.bias.name]
    emas = {n: np.zeros_like(_val(scope, n)) for n in names}
    rng = np.random.RandomState(0)
    steps = 5
    for _ in range(steps):
        exe.run(main, feed={"x": rng.rand(4, 3).astype("float32")})
        for n in names:
            p = _val(scope, n)
            emas[n] = emas[n] * np.float32(decay) + p * (np.float32(1) - np.float32(decay))
    for n in names:
        np.testing.assert_allclose(_val(scope, n + "_ema_0"), emas[n], rtol=1e-6, atol=1e-7)
    before = {n: _val(scope, n) for n in names}
    with ema.apply(exe):
        for n in names:
            corrected = emas[n] / (1 - np.float32(decay) ** steps)
            np.testing.assert_allclose(_val(scope, n), corrected, rtol=1e-5, atol=1e-6)
    for n in names:
        np.testing.assert_array_equal(_val(scope, n), before[n])
    # the update ops are optimizer ops: a test clone has none of them
    test = main.clone(for_test=True)
    assert not any(n.endswith("_ema_0") for op in test.global_block().ops for n in op.output_arg_names)


def test_ema_needs_static_mode():
    with pytest.raises(RuntimeError):
        paddle.static.ExponentialMovingAverage(0.9)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_weight_norm_param_attr(static, dim):
    main, startup, scope = static
    x = paddle.static.data("x", [None, 4], "float32")
    lin = paddle.nn.Linear(4, 3, weight_attr=paddle.static.WeightNormParamAttr(dim=dim, name="wn"))
    out = lin(x)
    loss = paddle.mean(out ** 2)
    names = [p.name for p in main.all_parameters()]
    assert "wn_g" in names and "wn_v" in names
    assert list(main.global_block().var("wn_g").shape) == ([1, 1] if dim is None else [4 if dim == 0 else 1, 3 if dim == 1 else 1])
    paddle.optimizer.SGD(0.5).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(startup)
    v, g = _val(scope, "wn_v"), _val(scope, "wn_g")
    axes = None if dim is None else tuple(a for a in range(2) if a != dim)
    norm = np.sqrt((v.astype("float64") ** 2).sum(axis=axes, keepdims=dim is not None))
    np.testing.assert_allclose(g.reshape(-1), np.asarray(norm).reshape(-1), rtol=1e-5)  # g starts at |v|
    X = np.random.RandomState(1).rand(5, 4).astype("float32")
    o0, = exe.run(main, feed={"x": X}, fetch_list=[out])
    # the forward used w = g v / |v| (= v at the start) and the zero initial bias
    np.testing.assert_allclose(o0, X @ v, rtol=1e-4, atol=1e-5)
    v1, g1 = _val(scope, "wn_v"), _val(scope, "wn_g")
    assert not np.array_equal(g1, g) and not np.array_equal(v1, v)  # both are trained
    o1, = exe.run(main.clone(for_test=True), feed={"x": X}, fetch_list=[out])
    n1 = np.sqrt((v1.astype("float64") ** 2).sum(axis=axes, keepdims=dim is not None))
    w1 = v1 * (g1.reshape(np.shape(n1)) / n1) if dim is not None else v1 * (g1.reshape(-1)[0] / n1)
    np.testing.assert_allclose(o1, X @ w1 + _val(scope, lin.bias.name), rtol=1e-4, atol=1e-5)


def test_weight_norm_param_attr_dynamic_mode_refused():
    with pytest.raises(NotImplementedError):
        paddle.nn.Linear(2, 2, weight_attr=paddle.static.WeightNormParamAttr())
