"""LoD tensors through programs and the sequence layers (paddle.static.nn.sequence_*, row_conv):
each against the numpy references of tests/ops/ref_sequence.py over LoD feeds, the output LoD
the executor gives them, gradients from paddle.static.gradients against central differences, how
LoD flows through ordinary ops (shared when the rows are kept), multi-level LoD, the program form
(Paddle's op types and slots) and the errors for inputs without a LoD."""
import os
import sys

import numpy as np
import pytest

import paddle
from paddle.static.executor import LoDTensor, create_lod_tensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ops"))
import ref_sequence as R  # noqa: E402

nn = paddle.static.nn


@pytest.fixture(autouse=True)
def _static():
    paddle.enable_static()
    yield
    paddle.disable_static()


def _offsets(lens):
    return np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)


def _feed(v):
    return create_lod_tensor(v[0], v[1]) if isinstance(v, tuple) else v


def _program(build):
    from paddle.utils import unique_name
    main, start = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, start):
        res = build()
    return main, start, res


def run(build, feeds):
    """-> [(array, lod)] of build()'s outputs."""
    main, start, outs = _program(build)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor()
        exe.run(start)
        r = exe.run(main, feed={k: _feed(v) for k, v in feeds.items()}, fetch_list=outs, return_numpy=False)
    return [(np.array(t), t.lod()) for t in r]


def grad_check(build, feeds, wrt, eps=1e-6, rtol=1e-5, atol=1e-7):
    """d sum(out * w) / d feeds[wrt] (float64 data) against central differences."""
    def fn():
        ins, out = build()
        loss = paddle.sum(out * paddle.cos(out))  # a nonlinear weighting that needs no known shape
        return loss, paddle.static.gradients([loss], [ins[wrt]])[0]
    main, start, (loss, g) = _program(fn)
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor()
        exe.run(start)
        gv = exe.run(main, feed={k: _feed(v) for k, v in feeds.items()}, fetch_list=[g])[0]
        data = feeds[wrt][0] if isinstance(feeds[wrt], tuple) else feeds[wrt]
        num = np.zeros(data.shape)
        flat = data.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            vals = []
            for d in (eps, -eps):
                flat[i] = old + d
                vals.append(float(np.sum(exe.run(main, feed={k: _feed(v) for k, v in feeds.items()}, fetch_list=[loss])[0])))
            flat[i] = old
            num.reshape(-1)[i] = (vals[0] - vals[1]) / (2 * eps)
    np.testing.assert_allclose(gv, num, rtol=rtol, atol=atol)


def _lod_data(name, width, dtype="float64", level=1):
    x = paddle.static.data(name, [-1, width] if width else [-1], dtype, lod_level=level)
    if dtype.startswith("float"):
        x.stop_gradient = False
    return x


RNG = np.random.RandomState(2024)
LENS = [2, 0, 3, 1]
X = RNG.uniform(-1, 1, (6, 3))


# ---------------------------------------------------------------------------------- each op
@pytest.mark.parametrize("pool", ["average", "sum", "sqrt", "max", "last", "first"])
def test_sequence_pool(pool):
    xv = RNG.permutation(18).reshape(6, 3).astype("float64") / 5.0  # distinct values: MAX is differentiable

    def build():
        x = _lod_data("x", 3)
        return {"x": x}, nn.sequence_pool(x, pool, pad_value=-0.5)
    (out, lod), = run(lambda: build()[1], {"x": (xv, [LENS])})
    np.testing.assert_allclose(out, R.pool(xv, _offsets(LENS), pool.upper(), -0.5)[0])
    assert lod == []
    grad_check(build, {"x": (xv, [LENS])}, "x")


def test_sequence_first_last_step():
    def build():
        x = _lod_data("x", 3)
        return [nn.sequence_first_step(x), nn.sequence_last_step(x)]
    (f, _), (last, _) = run(build, {"x": (X, [LENS])})
    np.testing.assert_allclose(f, R.pool(X, _offsets(LENS), "FIRST")[0])
    np.testing.assert_allclose(last, R.pool(X, _offsets(LENS), "LAST")[0])


def test_sequence_softmax():
    xv = RNG.uniform(-2, 2, (6, 1))

    def build():
        x = _lod_data("x", 1)
        return {"x": x}, nn.sequence_softmax(x)
    (out, lod), = run(lambda: build()[1], {"x": (xv, [LENS])})
    np.testing.assert_allclose(out, R.softmax(xv, _offsets(LENS)), rtol=1e-12)
    assert lod == [list(_offsets(LENS))]
    grad_check(build, {"x": (xv, [LENS])}, "x")


@pytest.mark.parametrize("size,start", [(3, None), (2, 0), (4, -3)])
def test_sequence_conv(size, start):
    def build():
        x = _lod_data("x", 3)
        return {"x": x}, nn.sequence_conv(x, 2, filter_size=size, padding_start=start, bias_attr=False)
    main, st, out = _program(lambda: build()[1])
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(st)
        r = exe.run(main, feed={"x": create_lod_tensor(X, [LENS])}, fetch_list=[out], return_numpy=False)[0]
        w = np.array(scope.find_var("sequence_conv_0.w_0").get_tensor())
    s = -(size // 2) if start is None else start
    np.testing.assert_allclose(np.array(r), R.conv(X, _offsets(LENS), w, size, s), rtol=1e-12)
    assert r.lod() == [list(_offsets(LENS))]
    grad_check(build, {"x": (X.copy(), [LENS])}, "x")


def test_sequence_concat():
    yv = RNG.uniform(-1, 1, (5, 3))
    ylens = [1, 2, 0, 2]

    def build():
        x, y = _lod_data("x", 3), _lod_data("y", 3)
        return {"x": x, "y": y}, nn.sequence_concat([x, y])
    (out, lod), = run(lambda: build()[1], {"x": (X, [LENS]), "y": (yv, [ylens])})
    want, off = R.concat([X, yv], [_offsets(LENS), _offsets(ylens)])
    np.testing.assert_allclose(out, want)
    assert lod == [list(off)]
    for wrt in ("x", "y"):
        grad_check(build, {"x": (X.copy(), [LENS]), "y": (yv.copy(), [ylens])}, wrt)


def test_sequence_slice():
    def build():
        x = _lod_data("x", 3)
        off = paddle.assign(np.array([[1], [0], [0], [1]], "int64"))
        ln = paddle.assign(np.array([[1], [0], [2], [0]], "int64"))
        return {"x": x}, nn.sequence_slice(x, off, ln)
    (out, lod), = run(lambda: build()[1], {"x": (X, [LENS])})
    want, off = R.slice_(X, _offsets(LENS), [1, 0, 0, 1], [1, 0, 2, 0])
    np.testing.assert_allclose(out, want)
    assert lod == [list(off)]
    grad_check(build, {"x": (X.copy(), [LENS])}, "x")


def test_sequence_expand_with_and_without_x_lod():
    xv = RNG.uniform(-1, 1, (4, 2))

    def build_lod():
        x, y = _lod_data("x", 2), _lod_data("y", 1, level=2)
        return {"x": x}, nn.sequence_expand(x, y, ref_level=0)
    y_feed = (np.zeros((6, 1)), [[2, 3], [1, 1, 2, 1, 1]])
    (out, lod), = run(lambda: build_lod()[1], {"x": (xv, [[1, 3]]), "y": y_feed})
    want, off = R.expand(xv, _offsets([1, 3]), _offsets([2, 3]))
    np.testing.assert_allclose(out, want)
    assert lod == [list(off)]
    grad_check(build_lod, {"x": (xv.copy(), [[1, 3]]), "y": y_feed}, "x")

    def build_rows():
        x, y = paddle.static.data("x", [-1, 2], "float64"), _lod_data("y", 1)
        x.stop_gradient = False
        return {"x": x}, nn.sequence_expand(x, y)
    y1 = (np.zeros((5, 1)), [[2, 0, 3, 0]])
    (out, lod), = run(lambda: build_rows()[1], {"x": xv, "y": y1})
    np.testing.assert_allclose(out, R.expand(xv, None, _offsets([2, 0, 3, 0]))[0])
    assert lod == []  # x without a LoD: the result has none (Paddle)
    grad_check(build_rows, {"x": xv.copy(), "y": y1}, "x")


def test_sequence_expand_as():
    xv = RNG.uniform(-1, 1, (4, 2))

    def build():
        x, y = paddle.static.data("x", [-1, 2], "float64"), _lod_data("y", 1)
        x.stop_gradient = False
        return {"x": x}, nn.sequence_expand_as(x, y)
    y1 = (np.zeros((5, 1)), [[2, 0, 3, 0]])
    (out, lod), = run(lambda: build()[1], {"x": xv, "y": y1})
    want, off = R.expand_as(xv, _offsets([2, 0, 3, 0]))
    np.testing.assert_allclose(out, want)
    assert lod == [list(off)]
    grad_check(build, {"x": xv.copy(), "y": y1}, "x")


def test_sequence_pad_unpad():
    def build():
        x = _lod_data("x", 3)
        pv = paddle.static.data("pv", [3], "float64")
        out, length = nn.sequence_pad(x, pv, maxlen=4)
        return {"x": x}, out, length, nn.sequence_unpad(out, length)
    pv = np.array([0.25, -1.0, 2.0])
    (p, pl), (ln, _), (u, ul) = run(lambda: build()[1:], {"x": (X, [LENS]), "pv": pv})
    want, wl = R.pad(X, _offsets(LENS), np.array([0.25, -1.0, 2.0]), 4)
    np.testing.assert_allclose(p, want)
    np.testing.assert_array_equal(ln, wl)
    assert pl == []
    np.testing.assert_allclose(u, X)
    assert ul == [list(_offsets(LENS))]
    grad_check(lambda: build()[:2], {"x": (X.copy(), [LENS]), "pv": pv}, "x")


def test_sequence_unpad_gradient():
    pv = RNG.uniform(-1, 1, (3, 4, 2))

    def build():
        x = paddle.static.data("x", [3, 4, 2], "float64")
        x.stop_gradient = False
        ln = paddle.assign(np.array([2, 0, 4], "int64"))
        return {"x": x}, nn.sequence_unpad(x, ln)
    (u, lod), = run(lambda: build()[1], {"x": pv})
    np.testing.assert_allclose(u, R.unpad(pv, [2, 0, 4])[0])
    assert lod == [[0, 2, 2, 6]]
    grad_check(build, {"x": pv.copy()}, "x")


def test_sequence_reshape():
    xv = RNG.uniform(-1, 1, (5, 4))

    def build():
        x = _lod_data("x", 4)
        return {"x": x}, nn.sequence_reshape(x, 2)
    (out, lod), = run(lambda: build()[1], {"x": (xv, [[3, 0, 2]])})
    want, off = R.reshape(xv, _offsets([3, 0, 2]), 2)
    np.testing.assert_allclose(out, want)
    assert lod == [list(off)]
    grad_check(build, {"x": (xv.copy(), [[3, 0, 2]])}, "x")


def test_sequence_scatter():
    base = RNG.uniform(-1, 1, (3, 5))
    ids = np.array([[0], [4], [2], [1], [1], [3]], "int64")
    upd = RNG.uniform(-1, 1, (6, 1))

    def build():
        x = paddle.static.data("x", [3, 5], "float64")
        x.stop_gradient = False
        i = paddle.static.data("i", [-1, 1], "int64", lod_level=1)
        u = _lod_data("u", 1)
        return {"x": x, "u": u}, nn.sequence_scatter(x, i, u)
    feeds = {"x": base, "i": (ids, [[2, 1, 3]]), "u": (upd, [[2, 1, 3]])}
    (out, _), = run(lambda: build()[1], feeds)
    np.testing.assert_allclose(out, R.scatter(base, ids, upd, _offsets([2, 1, 3])))
    grad_check(build, feeds, "x")
    grad_check(build, {"x": base, "i": (ids, [[2, 1, 3]]), "u": (upd.copy(), [[2, 1, 3]])}, "u")


def test_sequence_enumerate():
    ids = np.array([[3], [1], [4], [1], [5]], "int64")
    (out, lod), = run(lambda: nn.sequence_enumerate(paddle.static.data("i", [-1, 1], "int64", lod_level=1), 3, 0),
                      {"i": (ids, [[2, 3]])})
    np.testing.assert_array_equal(out, R.enumerate_(ids, _offsets([2, 3]), 3, 0))
    assert lod == [[0, 2, 5]]


def test_sequence_reverse():
    def build():
        x = _lod_data("x", 3)
        return {"x": x}, nn.sequence_reverse(x)
    (out, lod), = run(lambda: build()[1], {"x": (X, [LENS])})
    np.testing.assert_allclose(out, R.reverse(X, _offsets(LENS)))
    assert lod == [list(_offsets(LENS))]
    grad_check(build, {"x": (X.copy(), [LENS])}, "x")


def test_row_conv_lod_and_padded():
    def build():
        x = _lod_data("x", 3)
        return {"x": x}, nn.row_conv(x, 2)
    main, st, out = _program(lambda: build()[1])
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(st)
        r = exe.run(main, feed={"x": create_lod_tensor(X, [LENS])}, fetch_list=[out], return_numpy=False)[0]
        w = np.array(scope.find_var("row_conv_0.w_0").get_tensor())
    np.testing.assert_allclose(np.array(r), R.row_conv(X, _offsets(LENS), w))
    assert r.lod() == [list(_offsets(LENS))]
    grad_check(build, {"x": (X.copy(), [LENS])}, "x")

    def build3():
        x = paddle.static.data("x", [-1, 4, 3], "float64")
        x.stop_gradient = False
        return {"x": x}, nn.row_conv(x, 1)
    grad_check(build3, {"x": RNG.uniform(-1, 1, (2, 4, 3))}, "x")


# ---------------------------------------------------------------------------------- LoD flow
def test_lod_flows_through_ordinary_ops_and_levels():
    xv = RNG.uniform(-1, 1, (6, 2))

    def build():
        x = _lod_data("x", 2, level=2)
        h = paddle.static.nn.fc(x, 3, activation="relu")  # rows kept: the LoD follows (ShareLoD)
        p1 = nn.sequence_pool(h, "sum")                   # last level pooled: the outer one remains
        p2 = nn.sequence_pool(p1, "max")
        r = paddle.reshape(h, [-1])                        # rows changed: no LoD
        return [h, p1, p2, r]
    (h, hl), (p1, l1), (p2, l2), (_, rl) = run(build, {"x": (xv, [[2, 1], [1, 3, 2]])})
    assert hl == [[0, 2, 3], [0, 1, 4, 6]]
    assert l1 == [[0, 2, 3]] and p1.shape == (3, 3)
    assert l2 == [] and p2.shape == (2, 3)
    assert rl == []
    np.testing.assert_allclose(p1, R.pool(h, [0, 1, 4, 6], "SUM")[0])
    np.testing.assert_allclose(p2, R.pool(p1, [0, 2, 3], "MAX")[0])


def test_program_form_and_fetch_types():
    main, _, out = _program(lambda: nn.sequence_pool(_lod_data("x", 3), "max"))
    op = [o for o in main.global_block().ops if o.type == "sequence_pool"][0]
    assert op.input_names == ["X"] and sorted(op.output_names) == ["MaxIndex", "Out"]
    assert op.attr("pooltype") == "MAX"
    main, _, out = _program(lambda: nn.sequence_expand(_lod_data("x", 3), _lod_data("y", 3, level=2), ref_level=1))
    op = [o for o in main.global_block().ops if o.type == "sequence_expand"][0]
    assert op.attr("ref_level") == 1 and op.input_names == ["X", "Y"]
    r = run(lambda: nn.sequence_softmax(_lod_data("x", 1)), {"x": (np.ones((3, 1)), [[1, 2]])})
    assert r[0][1] == [[0, 1, 3]]
    # LoDTensor fetches carry the LoD; numpy fetches just the data
    main, start, out = _program(lambda: nn.sequence_reverse(_lod_data("x", 1)))
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor()
        t = exe.run(main, feed={"x": create_lod_tensor(np.arange(3.0).reshape(3, 1), [[1, 2]])}, fetch_list=[out],
                    return_numpy=False)[0]
        a = exe.run(main, feed={"x": LoDTensor(np.arange(3.0).reshape(3, 1), [[0, 1, 3]])}, fetch_list=[out])[0]
    assert isinstance(t, LoDTensor) and t.recursive_sequence_lengths() == [[1, 2]]
    np.testing.assert_allclose(a.reshape(-1), [0, 2, 1])


def test_one_executor_many_lods():
    """Runs of one plan (memory plan profiled on the first feeds) with other LoDs of the same data."""
    def build():
        x = _lod_data("x", 3)
        pv = paddle.static.data("pv", [1], "float64")
        padded, _ = nn.sequence_pad(x, pv)
        return [nn.sequence_pool(nn.sequence_softmax(x[:, :1]) * x, "sum"), padded, nn.sequence_reverse(x)]
    main, start, outs = _program(build)
    exe = paddle.static.Executor()
    exe.run(start)
    for lens in ([2, 0, 3, 1], [6], [1, 1, 1, 1, 1, 1], [3, 3], [2, 0, 3, 1]):
        off = _offsets(lens)
        r = exe.run(main, feed={"x": create_lod_tensor(X, [lens]), "pv": np.zeros(1)}, fetch_list=outs,
                    return_numpy=False)
        sm = R.softmax(X[:, :1], off)
        np.testing.assert_allclose(np.array(r[0]), R.pool(sm * X, off, "SUM")[0])
        np.testing.assert_allclose(np.array(r[1]), R.pad(X, off, np.zeros(1))[0])
        np.testing.assert_allclose(np.array(r[2]), R.reverse(X, off))
        assert r[2].lod() == [list(off)]


def test_programs_in_paddles_form_run():
    """Ops appended as Paddle writes them (no offsets slots) read the LoD from the values."""
    yv = RNG.uniform(-1, 1, (5, 3))

    def build():
        block = paddle.static.default_main_program().current_block()
        x, y = _lod_data("x", 3), _lod_data("y", 3)
        cat = block.create_var(name="cat", shape=[-1, 3], dtype="float64")
        pooled = block.create_var(name="pooled", shape=[-1, 3], dtype="float64")
        idx = block.create_var(name="idx", shape=[-1, 3], dtype="int32")
        block.append_op(type="sequence_concat", inputs={"X": [x, y]}, outputs={"Out": [cat]})
        block.append_op(type="sequence_pool", inputs={"X": [cat]}, outputs={"Out": [pooled], "MaxIndex": [idx]},
                        attrs={"pooltype": "MAX", "is_test": False, "pad_value": 0.0})
        return [cat, pooled]
    (cat, lod), (pooled, _) = run(build, {"x": (X, [LENS]), "y": (yv, [[1, 2, 0, 2]])})
    want, off = R.concat([X, yv], [_offsets(LENS), _offsets([1, 2, 0, 2])])
    np.testing.assert_allclose(cat, want)
    assert lod == [list(off)]
    np.testing.assert_allclose(pooled, R.pool(want, off, "MAX")[0])


def test_input_without_lod_is_an_error():
    with pytest.raises(ValueError, match="carries no LoD"):
        run(lambda: nn.sequence_pool(paddle.static.data("x", [-1, 3], "float64"), "sum"), {"x": X})
    with pytest.raises(ValueError, match="ends at 5, expected 6"):
        run(lambda: nn.sequence_pool(_lod_data("x", 3), "sum"), {"x": LoDTensor(X, [[0, 2, 5]])})


def test_sequence_ops_eagerly_through_c_ops():
    """The same ops run eagerly with explicit offsets (the op table's form)."""
    paddle.disable_static()
    x = paddle.to_tensor(X)
    x.stop_gradient = False
    off = paddle.to_tensor(_offsets(LENS))
    out, _ = paddle._C_ops.sequence_pool(x, off, "SQRT", 0.0, False)
    np.testing.assert_allclose(out.numpy(), R.pool(X, _offsets(LENS), "SQRT")[0])
    paddle.sum(out * out).backward()
    want = R.pool_grad(X, _offsets(LENS), None, 2 * out.numpy(), "SQRT")
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_text_classifier_trains_with_append_backward():
    """embedding -> sequence_conv -> sequence_pool -> fc over LoD word ids, minimized by SGD
    (append_backward through every sequence op's rule)."""
    def build():
        words = paddle.static.data("words", [-1], "int64", lod_level=1)
        label = paddle.static.data("label", [-1, 1], "int64")
        emb = nn.embedding(words, [20, 8])
        conv = nn.sequence_conv(emb, 6, filter_size=3, act="tanh")
        pooled = nn.sequence_pool(conv, "max")
        last = nn.sequence_last_step(emb)
        logits = nn.fc([pooled, last], 2)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, label))
        paddle.optimizer.SGD(0.5).minimize(loss)
        return loss
    main, start, loss = _program(build)
    rng = np.random.RandomState(3)
    lens = [3, 5, 2, 4, 6, 1]
    words = rng.randint(0, 20, (sum(lens),)).astype("int64")
    label = np.array([[0], [1], [0], [1], [1], [0]], "int64")
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor()
        exe.run(start)
        losses = [float(np.sum(exe.run(main, feed={"words": create_lod_tensor(words, [lens]), "label": label},
                                        fetch_list=[loss])[0])) for _ in range(40)]
    assert losses[-1] < 0.5 * losses[0]
    types = {op.type for op in main.global_block().ops}
    assert {"sequence_conv", "sequence_pool", "sequence_pool_grad", "sequence_lod"} <= types
