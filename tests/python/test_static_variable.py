"""The Variable API of static programs: indexing and slicing (every index of test_indexing.py, with
the first dim unknown and known) and x[idx] = v, the operators, .shape with -1, dtype, name,
persistable, stop_gradient, astype, repr/print, to_tensor/assign constants, creation with
run-time shapes (paddle.shape), no_grad, random ops; each compared with eager bit for bit."""
import numpy as np
import pytest

import paddle
from paddle import _C
from test_indexing import INDICES, SET_CASES, A


def run(build, feeds, unknown=True):
    """Builds build(*vars) in a fresh program (vars from paddle.static.data of feeds; dim 0 unknown
    when `unknown` for the inputs of the first one's rank) and returns (fetched numpy results,
    recorded output Variables, program)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            nd = feeds[0].ndim if feeds else 0
            vs = [paddle.static.data(f"x{i}", [-1 if unknown and k == 0 and a.ndim == nd else s
                                               for k, s in enumerate(a.shape)],
                                     str(a.dtype)) for i, a in enumerate(feeds)]
            outs = build(*vs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        exe = paddle.static.Executor()
        exe.run(startup)
        res = exe.run(main, feed={f"x{i}": a for i, a in enumerate(feeds)}, fetch_list=outs)
        return res, outs, main
    finally:
        paddle.disable_static()


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    assert got.tobytes() == want.tobytes()


# ---------------------------------------------------------------- indexing
@pytest.mark.parametrize("unknown", [True, False], ids=["dim0_unknown", "known"])
@pytest.mark.parametrize("idx", INDICES, ids=[repr(i) for i in INDICES])
def test_getitem(idx, unknown):
    want = paddle.to_tensor(A)[idx].numpy()
    if unknown and isinstance(idx, (list, np.ndarray)) or (isinstance(idx, tuple) and unknown and any(
            isinstance(i, (list, np.ndarray)) for i in idx)):
        pass  # advanced indices wrap negatives at run time on an unknown dim: same result
    res, outs, _ = run(lambda x: x[idx], [A], unknown)
    same(res[0], want)
    v = outs[0]
    assert len(v.shape) == want.ndim
    assert all(a == -1 or a == b for a, b in zip(v.shape, want.shape))


def test_getitem_tensor_indices_and_masks():
    ix = np.array([2, 0], "int64")
    res, _, _ = run(lambda x, i: x[i], [A, ix])
    same(res[0], A[ix])
    res, _, _ = run(lambda x, i: x[:, i], [A, np.array([3, -1, 0], "int64")], unknown=True)
    same(res[0], paddle.to_tensor(A)[:, paddle.to_tensor(np.array([3, -1, 0]))].numpy())
    m = A[:, :, 0] > 40
    res, _, _ = run(lambda x, mm: x[mm], [A, m])
    same(res[0], A[m])
    res, _, _ = run(lambda x: x[x > 50], [A])
    same(res[0], A[A > 50])


@pytest.mark.parametrize("unknown", [True, False], ids=["dim0_unknown", "known"])
@pytest.mark.parametrize("idx,val", SET_CASES, ids=[repr(c[0]) for c in SET_CASES])
def test_setitem(idx, val, unknown):
    x = paddle.to_tensor(A.copy())
    x[idx] = val
    want = x.numpy()
    adv = any(isinstance(i, (list, np.ndarray)) for i in (idx if isinstance(idx, tuple) else (idx,)))
    if adv and unknown:
        with pytest.raises(NotImplementedError):
            run(lambda v: _set(v, idx, val), [A], unknown)
        return

    res, outs, main = run(lambda v: _set(v, idx, val), [A], unknown)
    same(res[0], want)


def _set(v, idx, val):
    y = paddle.assign(v)
    y[idx] = val
    return y


def test_setitem_writes_the_variable_and_gradients():
    """x[1:3] = v records one slice_scatter writing x's variable; gradients flow to x (zero in
    the region) and to v (summed over the broadcast), as eager."""
    a, vv = np.arange(12, dtype="float32").reshape(4, 3), np.array([5.0, 6.0, 7.0], "float32")
    xe, ve = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(vv, stop_gradient=False)
    y2 = xe * 2  # eager refuses setitem on a tensor in the graph: the same value out of place
    ye = paddle.concat([y2[:1], paddle.expand(ve * 3, [2, 3]), y2[3:]])
    ge = paddle.grad([(ye * ye).sum()], [xe, ve])
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 3], "float32")
            v = paddle.static.data("v", [3], "float32")
            x.stop_gradient = v.stop_gradient = False
            y = x * 2
            name = y.name
            y[1:3] = v * 3
            assert y.name == name and not y.stop_gradient
            types = [op.type for op in main.global_block().ops]
            assert types[-1] == "slice_scatter" and main.global_block().ops[-1].output("out") == [name]
            gs = paddle.static.gradients([(y * y).sum()], [x, v])
        res = paddle.static.Executor().run(main, feed={"x": a, "v": vv}, fetch_list=[y] + gs)
    finally:
        paddle.disable_static()
    same(res[0], ye.numpy())
    same(res[1], ge[0].numpy())
    same(res[2], ge[1].numpy())


def test_static_setitem_function():
    """paddle.static.setitem (Paddle 2.6): a new variable, the input unchanged."""
    res, _, _ = run(lambda x: (paddle.static.setitem(x, (slice(None), 0), 9.0), x), [A])
    want = A.copy()
    want[:, 0] = 9.0
    same(res[0], want)
    same(res[1], A)


# ---------------------------------------------------------------- Variable attributes
def test_variable_attributes_and_repr():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3, 4], "float32")
            assert isinstance(x, paddle.Tensor) and isinstance(x, paddle.static.Variable)
            assert x.shape == (-1, 3, 4) and isinstance(x.shape, tuple)
            assert x.dtype == paddle.float32 and x.name == "x" and x.ndim == 3
            assert not x.persistable and x.stop_gradient
            assert repr(x) == "var x : LOD_TENSOR.shape(-1, 3, 4).dtype(float32).stop_gradient(True)"
            assert str(x) == repr(x)
            lin = paddle.nn.Linear(4, 2)
            assert repr(lin.weight) == ("persist trainable param linear_0.w_0 : LOD_TENSOR.shape(4, 2)"
                                        ".dtype(float32).stop_gradient(False)") or \
                repr(lin.weight).startswith("persist trainable param linear_")
            assert lin.weight.persistable and not lin.weight.stop_gradient
            y = lin(x)
            assert y.shape == (-1, 3, 2) and not y.stop_gradient and not y.persistable
            z = y.astype("int32")
            assert z.dtype == paddle.int32 and z.shape == (-1, 3, 2) and z.stop_gradient
            z2 = x.astype(paddle.float64)
            assert z2.dtype == paddle.float64
            y.stop_gradient = True
            assert y.stop_gradient
            y.persistable = True
            assert y.persistable
            y.name = "renamed"
            assert y.name == "renamed" and main.global_block().has_var("renamed")
            s = paddle.shape(x)
            assert s.shape == (3,) and s.dtype == paddle.int32 and main.global_block().ops[-1].type == "shape"
            n = x.numel()
            assert n.dtype == paddle.int64
            assert x.size == -12 or x.size < 0  # an unknown dim
            with pytest.raises(TypeError):
                bool(x)
            with pytest.raises(TypeError):
                x.numpy()
            assert len(x[0].shape) == 2 and x[0].shape == (3, 4)
            assert x[:, 1].shape == (-1, 4) and x[..., 1:3].shape == (-1, 3, 2)
            assert x[1:100].shape == (-1, 3, 4)
            print(x)  # printing a Variable works
    finally:
        paddle.disable_static()


def test_operators():
    a, b = np.random.default_rng(0).uniform(0.5, 2, (4, 5)).astype("float32"), \
        np.random.default_rng(1).uniform(0.5, 2, (5,)).astype("float32")
    ops = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
           lambda x, y: x ** y, lambda x, y: x // y, lambda x, y: x % y, lambda x, y: x @ paddle.reshape(y, [5, 1]),
           lambda x, y: -x, lambda x, y: 2.0 - x, lambda x, y: 3 / x, lambda x, y: x ** 2, lambda x, y: 2 ** x,
           lambda x, y: x < y, lambda x, y: x <= 1.0, lambda x, y: x == y, lambda x, y: x != y,
           lambda x, y: x > y, lambda x, y: x >= y, lambda x, y: abs(x - 1), lambda x, y: x.T,
           lambda x, y: (x > 1) & (y < 1), lambda x, y: (x > 1) | (y < 1), lambda x, y: ~(x > 1)]
    for k, f in enumerate(ops):
        want = f(paddle.to_tensor(a), paddle.to_tensor(b)).numpy()
        res, outs, _ = run(f, [a, b])
        same(res[0], want)
        assert outs[0].shape[0] in (-1, want.shape[0]), k


# ---------------------------------------------------------------- creation, constants, modes
def test_to_tensor_and_assign_record_constants():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            t = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
            assert _C._is_variable(t) and t.shape == (2, 2) and t.stop_gradient
            assert main.global_block().ops[-1].type == "assign_value"
            u = paddle.assign(np.arange(3))
            assert _C._is_variable(u)
            w = paddle.to_tensor(t)  # a Variable: copied by an op
            assert _C._is_variable(w) and w.name != t.name
        res = paddle.static.Executor().run(main, fetch_list=[t, u, w])
    finally:
        paddle.disable_static()
    same(res[0], np.array([[1.0, 2.0], [3.0, 4.0]], "float32"))
    same(res[2], res[0])


def test_creation_with_runtime_shapes():
    a = np.ones((3, 4), "float32")
    res, outs, _ = run(lambda x: (paddle.zeros([paddle.shape(x)[0], 2]), paddle.full_like(x, 2.0),
                                  paddle.ones([x.shape[1], paddle.shape(x)[0]], "int64"),
                                  paddle.zeros_like(x), paddle.empty_like(x).shape and paddle.ones_like(x),
                                  paddle.reshape(x, [paddle.shape(x)[0], 2, 2])), [a])
    same(res[0], np.zeros((3, 2), "float32"))
    same(res[1], np.full((3, 4), 2.0, "float32"))
    same(res[2], np.ones((4, 3), "int64"))
    same(res[3], np.zeros((3, 4), "float32"))
    same(res[4], np.ones((3, 4), "float32"))
    same(res[5], np.ones((3, 2, 2), "float32"))
    assert outs[0].shape == (-1, 2) and outs[2].shape == (4, -1) and outs[5].shape == (-1, 2, 2)


def test_arange_with_program_values():
    """arange whose bounds are program values (position ids of a variable-length input)."""
    a = np.ones((2, 7), "float32")
    res, outs, _ = run(lambda x: (paddle.arange(paddle.shape(x)[1]),
                                  paddle.arange(1, paddle.shape(x)[1], 2, dtype="int32"),
                                  paddle.arange(paddle.shape(x)[1], 0, -3),
                                  paddle.arange(0.5, paddle.cast(paddle.shape(x)[1], "float32"), 0.25)), [a])
    same(res[0], paddle.arange(7).numpy())
    same(res[1], paddle.arange(1, 7, 2, dtype="int32").numpy())
    same(res[2], paddle.arange(7, 0, -3).numpy())
    np.testing.assert_allclose(res[3], paddle.arange(0.5, 7.0, 0.25).numpy(), rtol=0, atol=1e-6)
    assert outs[0].shape == (-1,)


def test_no_grad_in_static_mode():
    """Outputs under paddle.no_grad get stop_gradient=True and no gradient flows through them
    (append_backward/gradients skip stop_gradient variables, as Paddle's do); paddle.grad on
    Variables appends gradient ops; backward() and hooks on a Variable raise."""
    a = np.arange(6, dtype="float32").reshape(2, 3)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 3], "float32")
            x.stop_gradient = False
            with paddle.no_grad():
                y = x * 2
            z = x * 3
            assert y.stop_gradient and not z.stop_gradient
            loss = (y * x).sum()
            g, = paddle.grad([loss], [x])
            d = (x * 2).detach()
            g2, = paddle.static.gradients([(d * x).sum()], [x])
            with pytest.raises(RuntimeError):
                loss.backward()
            with pytest.raises(RuntimeError):
                paddle.autograd.backward([loss])
            with pytest.raises(NotImplementedError):
                x.register_hook(lambda t: t)
        res = paddle.static.Executor().run(main, feed={"x": a}, fetch_list=[g, g2])
    finally:
        paddle.disable_static()
    same(res[0], 2 * a)
    same(res[1], 2 * a)


def test_random_ops_match_eager_with_the_same_seed():
    fns = [lambda: paddle.rand([3, 4]), lambda: paddle.randn([2, 5], "float64"), lambda: paddle.randint(0, 9, [4]),
           lambda: paddle.nn.functional.dropout(paddle.ones([4, 6]), 0.5)]
    for f in fns:
        paddle.seed(7)
        want = f().numpy()
        paddle.enable_static()
        try:
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                out = f()
            paddle.seed(7)
            res = paddle.static.Executor().run(main, fetch_list=[out])
        finally:
            paddle.disable_static()
        same(res[0], want)
