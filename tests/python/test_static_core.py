"""The static-graph core: recording paddle ops into a Program, the Executor (feeds, fetches,
scopes, plan cache, passes, memory plan) and append_backward against eager autograd."""
import numpy as np
import pytest

import paddle
from paddle import _C


@pytest.fixture
def static_mode():
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        yield main, startup
    paddle.disable_static()


def _mlp(x, lab):
    h = paddle.nn.functional.relu(paddle.nn.Linear(8, 16)(x))
    y = paddle.nn.Linear(16, 3)(h)
    return y, paddle.nn.functional.cross_entropy(y, lab)


def test_mode_switch():
    assert paddle.in_dynamic_mode()
    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode()
        x = paddle.static.data("x", [None, 3], "float32")
        assert isinstance(x, paddle.static.Variable) and isinstance(x, paddle.Tensor)
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()
    assert isinstance(paddle.ones([2]).numpy(), np.ndarray)


def test_recording_names_shapes_and_text(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 4], "float32")
    lin = paddle.nn.Linear(4, 3)
    y = paddle.nn.functional.relu(lin(x))
    assert x.shape == (-1, 4) and y.shape == (-1, 3)
    assert y.dtype == paddle.float32 and not y.stop_gradient and x.stop_gradient
    assert lin.weight.name == "linear_0.w_0" and lin.weight.persistable
    types = [op.type for op in main.global_block().ops]
    assert types == ["matmul_v2", "elementwise_add", "relu"]
    add = main.global_block().ops[1]
    assert add.input("X") == [main.global_block().ops[0].output("Out")[0]] and add.attr("axis") == -1
    text = str(main)
    assert "{ // block 0" in text and "persist trainable param linear_0.w_0" in text
    assert "matmul_v2(inputs={X=['x'], Y=['linear_0.w_0']}" in text
    # the startup program initializes the parameters
    st = [op.type for op in startup.global_block().ops]
    assert "assign" in st and startup.global_block().has_var("linear_0.w_0")


def test_unknown_dims_propagate(static_mode):
    x = paddle.static.data("x", [None, 3, None, None], "float32")
    conv = paddle.nn.Conv2D(3, 8, 3, stride=2, padding=1)
    y = conv(x)
    assert y.shape == (-1, 8, -1, -1)
    z = paddle.flatten(paddle.nn.functional.adaptive_avg_pool2d(y, 1), 1)
    assert z.shape == (-1, 8)


def test_executor_runs_and_matches_numpy(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 4], "float32")
    lin = paddle.nn.Linear(4, 3)
    y = lin(x) * 2.0 + 1.0
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    xv = np.random.default_rng(0).random((5, 4), dtype=np.float32)
    out, = exe.run(main, feed={"x": xv}, fetch_list=[y])
    scope = paddle.static.global_scope()
    w = np.array(scope.find_var(lin.weight.name).get_tensor())
    b = np.array(scope.find_var(lin.bias.name).get_tensor())
    # float64 reference; atol: (x @ w + b) * 2 + 1 cancels to values near 0, where float32's
    # rounding of the O(1) intermediates (~6e-8) is not small relative to the result
    want = (xv.astype(np.float64) @ w.astype(np.float64) + b) * 2.0 + 1.0
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    # by name, and with return_numpy=False
    out2, = exe.run(main, feed={"x": xv}, fetch_list=[y.name], return_numpy=False)
    np.testing.assert_array_equal(np.array(out2), out)


def test_feed_and_fetch_errors(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 4], "float32")
    y = x * 2.0
    exe = paddle.static.Executor()
    exe.run(startup)
    with pytest.raises(ValueError, match=r"variable x has dtype float64.*expects float32"):
        exe.run(main, feed={"x": np.ones((2, 4))}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"variable x has shape \[2, 5\].*\[-1, 4\]"):
        exe.run(main, feed={"x": np.ones((2, 5), "float32")}, fetch_list=[y])
    with pytest.raises(RuntimeError, match="no variable named nope"):
        exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=["nope"])
    with pytest.raises(RuntimeError, match="x has no value|neither fed"):
        exe.run(main, feed={}, fetch_list=[y])


def test_append_backward_equals_eager_bitwise(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 8], "float32")
    lab = paddle.static.data("lab", [None, 1], "int64")
    y, loss = _mlp(x, lab)
    pg = paddle.static.append_backward(loss)
    assert [p.name for p, g in pg] == ["linear_0.w_0", "linear_0.b_0", "linear_1.w_0", "linear_1.b_0"]
    assert all(g.name == p.name + "@GRAD" for p, g in pg)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(1)
    xv = rng.random((6, 8), dtype=np.float32)
    lv = rng.integers(0, 3, (6, 1)).astype("int64")
    res = exe.run(main, feed={"x": xv, "lab": lv}, fetch_list=[loss] + [g for _, g in pg])
    scope = paddle.static.global_scope()
    weights = [np.array(scope.find_var(p.name).get_tensor()) for p, _ in pg]
    paddle.disable_static()
    try:
        ws = [paddle.to_tensor(w, stop_gradient=False) for w in weights]
        h = paddle.nn.functional.relu(paddle.to_tensor(xv) @ ws[0] + ws[1])
        l_e = paddle.nn.functional.cross_entropy(h @ ws[2] + ws[3], paddle.to_tensor(lv))
        l_e.backward()
        assert np.array_equal(res[0], l_e.numpy())
        for r, w in zip(res[1:], ws):
            assert np.array_equal(r, w.grad.numpy())
    finally:
        paddle.enable_static()


def test_gradients_and_higher_order(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [3], "float64")
    x.stop_gradient = False
    y = paddle.sum(x * x * x)
    gx, = paddle.static.gradients([y], [x])
    ggx, = paddle.static.gradients([paddle.sum(gx)], [x])
    exe = paddle.static.Executor()
    xv = np.array([1.0, -2.0, 0.5])
    a, b = exe.run(main, feed={"x": xv}, fetch_list=[gx, ggx])
    np.testing.assert_allclose(a, 3 * xv ** 2)
    np.testing.assert_allclose(b, 6 * xv)


def test_clone_for_test_prunes_backward(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 8], "float32")
    lab = paddle.static.data("lab", [None, 1], "int64")
    y, loss = _mlp(x, lab)
    test_prog = main.clone(for_test=True)
    paddle.static.append_backward(loss)
    n_fwd = len(test_prog.global_block().ops)
    assert len(main.global_block().ops) > n_fwd
    pruned = main.clone(for_test=True)
    assert [o.type for o in pruned.global_block().ops] == [o.type for o in test_prog.global_block().ops]


def test_plan_cache_passes_and_memory_plan(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 8], "float32")
    lab = paddle.static.data("lab", [None, 1], "int64")
    y, loss = _mlp(x, lab)
    dead = paddle.exp(y)  # nobody fetches it: dead code
    pg = paddle.static.append_backward(loss)
    exe = paddle.static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(2)
    xv = rng.random((16, 8), dtype=np.float32)
    lv = rng.integers(0, 3, (16, 1)).astype("int64")
    fetch = [loss] + [g for _, g in pg]
    runs, allocs = [], []
    for _ in range(4):
        s0 = _C.alloc_stats()["n_alloc"]
        runs.append(exe.run(main, feed={"x": xv, "lab": lv}, fetch_list=fetch))
        allocs.append(_C.alloc_stats()["n_alloc"] - s0)
    for r in runs[1:]:
        for a, b in zip(runs[0], r):
            assert np.array_equal(a, b)
    # after the profiling run, a run allocates only the two feeds it copies in and the values it
    # hands out (each fetch is the caller's own, never a view of the workspace): every other
    # temporary lives in the plan's workspace
    assert allocs[2] == allocs[3] == 2 + len(fetch), allocs
    stats = [s for s in exe._core._plan_stats() if s["workspace_bytes"] > 0]
    assert stats and stats[0]["workspace_bytes"] > 0
    n_ops = len(main.global_block().ops)
    assert stats[0]["n_instr"] < n_ops  # the dead exp (and folded constants) are gone
    # a held fetch result is never overwritten by the next run
    held = exe.run(main, feed={"x": xv, "lab": lv}, fetch_list=fetch, return_numpy=False)
    before = [np.array(t) for t in held]
    exe.run(main, feed={"x": xv * 2, "lab": lv}, fetch_list=fetch)
    for t, b in zip(held, before):
        assert np.array_equal(np.array(t), b)
    # another batch size: a new profile, same results as an unplanned run
    o1 = exe.run(main, feed={"x": xv[:5], "lab": lv[:5]}, fetch_list=fetch)
    o2 = exe.run(main, feed={"x": xv[:5], "lab": lv[:5]}, fetch_list=fetch)
    o3 = exe.run(main, feed={"x": xv[:5], "lab": lv[:5]}, fetch_list=fetch)
    for a, b, c in zip(o1, o2, o3):
        assert np.array_equal(a, b) and np.array_equal(a, c)


def test_memory_plan_held_fetch_vs_earlier_temporaries(static_mode):
    """A fetched value produced late in the run: temporaries produced (and dead) before it must not
    share its workspace bytes either, or the next run overwrites a fetch the caller still holds.
    Temporaries stay planned: a steady-state run allocates only its feed."""
    main, startup = static_mode
    x = paddle.static.data("x", [64], "float32")
    t = paddle.exp(x * 2.0)          # temporaries of y's size, dead before y exists
    u = paddle.tanh(t + 1.0)
    y = paddle.sqrt(paddle.abs(u) + 3.0)
    exe = paddle.static.Executor()
    exe.run(startup)
    xv = np.linspace(-1, 1, 64).astype("float32")
    ref = lambda a: np.sqrt(np.abs(np.tanh(np.exp(a * 2.0) + 1.0)) + 3.0)
    for _ in range(3):  # profile, plan, steady state
        exe.run(main, feed={"x": xv}, fetch_list=[y])
    held, = exe.run(main, feed={"x": xv}, fetch_list=[y], return_numpy=False)
    s0 = _C.alloc_stats()["n_alloc"]
    again, = exe.run(main, feed={"x": xv * -3.0}, fetch_list=[y])
    assert _C.alloc_stats()["n_alloc"] - s0 <= 2  # the feed (and the fetch if it cannot reuse its held bytes)
    np.testing.assert_allclose(np.array(held), ref(xv), rtol=1e-6)
    np.testing.assert_allclose(again, ref(xv * -3.0), rtol=1e-6)
    stats = [s for s in exe._core._plan_stats() if s["workspace_bytes"] > 0]
    assert stats  # the temporaries are planned


def test_scope_and_scope_guard(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [2], "float32")
    w = paddle.static.create_parameter([2], "float32", name="w",
                                       default_initializer=paddle.nn.initializer.Constant(3.0))
    y = x * w
    exe = paddle.static.Executor()
    s1, s2 = paddle.static.Scope(), paddle.static.Scope()
    with paddle.static.scope_guard(s1):
        exe.run(startup)
        np.testing.assert_array_equal(np.array(s1.find_var("w").get_tensor()), [3.0, 3.0])
    assert s2.find_var("w") is None
    s2.var("w").get_tensor().set(np.array([5.0, 6.0], "float32"), paddle.CPUPlace())
    out, = exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y], scope=s2)
    np.testing.assert_array_equal(out, [5.0, 6.0])


def test_variable_value_access_raises(static_mode):
    x = paddle.static.data("x", [2], "float32")
    with pytest.raises(TypeError):
        x.numpy()
    with pytest.raises(TypeError):
        bool(x > 0)
    with pytest.raises(TypeError):
        np.asarray(x)


def test_unsupported_ops_listed_together():
    prog = paddle.static.Program()
    b = prog.global_block()
    for t in ("no_such_op_a", "no_such_op_b"):
        b.append_op(type=t, inputs={}, outputs={}, attrs={})
    exe = paddle.static.Executor()
    with pytest.raises(NotImplementedError, match="2 op types.*no_such_op_a, no_such_op_b"):
        exe.run(prog)
