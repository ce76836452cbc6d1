"""The eager autograd surface (issue 3): backward and accumulation, clear_grad, stop_gradient
rules, grad modes, paddle.grad options, hooks, retain_graph and in-place errors, PyLayer,
paddle.incubate.autograd, and a 1000-step loop whose allocator statistics stay flat."""
import gc
import os

import numpy as np
import pytest

import paddle
from paddle import _C
from paddle.autograd import PyLayer


def leaf(v, dtype="float64"):
    return paddle.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=False)


def test_backward_accumulates_and_clear_grad():
    x = leaf([1.0, 2.0, 3.0])
    assert x.grad is None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 4, 6])
    (x * 3).sum().backward()  # gradients accumulate (Paddle 2.0 behaviour)
    np.testing.assert_allclose(x.grad.numpy(), [5, 7, 9])
    g = x.grad
    assert x.grad is g  # one Python object per C tensor
    x.clear_grad()  # set_to_zero=True by default
    np.testing.assert_allclose(x.grad.numpy(), [0, 0, 0])
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None
    np.testing.assert_allclose(x.gradient() if x.grad is not None else [0], [0])


def test_stop_gradient_rules():
    a = paddle.to_tensor([1.0, 2.0])
    assert a.stop_gradient  # to_tensor default
    b = leaf([3.0, 4.0], "float32")
    c = a * b
    assert not c.stop_gradient and not c.is_leaf and b.is_leaf
    assert (a * a).stop_gradient
    i = paddle.to_tensor([1, 2])
    assert (b > 3.5).stop_gradient  # ops without a gradient (compare, argmax) cut the graph
    assert paddle.argmax(b).stop_gradient
    # ops with a gradient keep integer outputs in the graph, as Paddle 2.6.2 does
    assert not paddle.cast(b, "int64").stop_gradient
    d = c.detach()
    assert d.stop_gradient and d.is_leaf
    assert (i + 1).stop_gradient


def test_gradients_into_integer_tensors():
    # Paddle 2.6.2: every output of an op with a gradient stays in the graph whatever its dtype,
    # and gradients reach integer tensors in their own dtype (values printed by Paddle 2.6.2)
    def ileaf(v, dtype="int64"):
        return paddle.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=False)

    x = ileaf([1, 2, 3])
    s = x.sum()
    assert not s.stop_gradient and s.dtype == paddle.int64
    s.backward()
    assert x.grad.dtype == paddle.int64 and x.grad.numpy().tolist() == [1, 1, 1]
    b = paddle.to_tensor([True, False], stop_gradient=False)
    assert not b.sum().stop_gradient and b.sum().dtype == paddle.int64
    a = ileaf([3, 1, 0, 5])
    paddle.pow(a, 2).sum().backward()
    assert a.grad.numpy().tolist() == [6, 2, 0, 10]
    a = ileaf([3, 1, 0, 5])
    a[1:3].sum().backward()
    assert a.grad.numpy().tolist() == [0, 1, 1, 0]
    # a float gradient reaching an int tensor is cast (truncated) to its dtype
    a, w = ileaf([3, 1, 0, 5]), leaf([0.5, 1.5, 2.0, 1.0], "float32")
    (a.astype("float32") * w).sum().backward()
    assert a.grad.dtype == paddle.int64 and a.grad.numpy().tolist() == [0, 1, 2, 1]
    assert w.grad.numpy().tolist() == [3.0, 1.0, 0.0, 5.0]
    a = ileaf([1, 2, 3], "int32")
    (paddle.cast(a * 2, "float64") * 2).sum().backward()
    assert a.grad.dtype == paddle.int32 and a.grad.numpy().tolist() == [4, 4, 4]
    a = ileaf([1, 2, 3, 4], "int32")  # the unused part of a split gets zeros
    paddle.split(a, 2)[0].sum().backward()
    assert a.grad.numpy().tolist() == [1, 1, 0, 0]
    a = ileaf([[1, 0, 3], [2, 2, -3]])  # exact in int64 (Paddle 2.6.2's int prod_grad is wrong)
    paddle.prod(a, axis=1).sum().backward()
    assert a.grad.dtype == paddle.int64 and a.grad.numpy().tolist() == [[0, 3, 0], [-6, -6, 4]]
    # through a cast to int and back: the cast passes the gradient on
    f = leaf([1.0, 2.0, 3.0], "float32")
    (f.astype("int64") * 3).sum().backward()
    assert f.grad.numpy().tolist() == [3.0, 3.0, 3.0]
    f = leaf([1.0, 2.0, 3.0], "float32")
    (f.astype("int64").astype("float32") * f).sum().backward()
    assert f.grad.numpy().tolist() == [2.0, 4.0, 6.0]
    # indices keep stop_gradient=False (they have a gradient node) ...
    f = leaf([3.0, 1.0, 2.0], "float32")
    v, i = paddle.topk(f, 2)
    assert not v.stop_gradient and not i.stop_gradient and not paddle.argsort(f).stop_gradient
    (paddle.gather(f, i) * v).sum().backward()
    assert f.grad.numpy().tolist() == [6.0, 0.0, 4.0]
    # ... but an integer tensor used only as an index gets no gradient
    f, w = leaf([0.2, 1.7], "float32"), leaf([1.0, 2.0, 3.0], "float32")
    paddle.gather(w, f.astype("int64")).sum().backward()
    assert f.grad is None and w.grad.numpy().tolist() == [1.0, 1.0, 0.0]
    # ops without a gradient cut the graph for any dtype
    x = ileaf([3, 1, 2])
    assert (x // 2).stop_gradient and (x > 1).stop_gradient and paddle.argmax(x).stop_gradient
    # in place on an integer non-leaf: the filled positions get no gradient
    x = paddle.zeros([3, 3], "int32")
    x.stop_gradient = False
    y = x * 2
    y.retain_grads()
    paddle.Tensor.fill_diagonal_(y, 1).sum().backward()
    off = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    assert y.grad.numpy().tolist() == off and x.grad.numpy().tolist() == (np.array(off) * 2).tolist()
    # overwritten by a constant: still in the graph, the earlier history gets zeros (Paddle 2.6.2)
    for dt in ("float32", "int64"):
        for fill in (lambda t: t.zero_(), lambda t: t.fill_(5)):
            x = paddle.to_tensor([3, 1, 2], dtype=dt, stop_gradient=False)
            y = x * 2
            fill(y)
            assert not y.stop_gradient
            y.sum().backward()
            assert x.grad.dtype == x.dtype and x.grad.numpy().tolist() == [0, 0, 0]


def test_to_tensor_of_a_tensor_is_a_new_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    c = paddle.to_tensor(y)  # Paddle: a detached copy, a leaf
    assert c.stop_gradient and c.is_leaf
    c.stop_gradient = False
    (c * 3).sum().backward()
    assert c.grad.numpy().tolist() == [3.0, 3.0] and x.grad is None
    d = paddle.to_tensor(x, dtype="float32", stop_gradient=False)
    assert d.is_leaf and not d.stop_gradient and d.dtype == paddle.float32


def test_no_grad_and_modes():
    x = leaf([1.0, 2.0])
    with paddle.no_grad():
        y = x * 2
    assert y.stop_gradient
    assert paddle.is_grad_enabled()

    @paddle.no_grad()
    def f(t):
        return t * 2

    assert f(x).stop_gradient
    paddle.set_grad_enabled(False)
    try:
        assert not paddle.is_grad_enabled()
        assert (x * 2).stop_gradient
        with paddle.enable_grad():
            assert not (x * 2).stop_gradient
    finally:
        paddle.set_grad_enabled(True)
    with paddle.set_grad_enabled(False):
        assert (x * 2).stop_gradient
    assert paddle.is_grad_enabled()


def test_backward_with_grad_tensor_and_non_scalar():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.backward(paddle.to_tensor([1.0, 0.5, 0.0], dtype="float64"))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 0.0])
    x2 = leaf([1.0, 2.0])
    (x2 * 3).backward()  # non-scalar without grad_tensor: ones
    np.testing.assert_allclose(x2.grad.numpy(), [3, 3])
    with pytest.raises(ValueError):
        (x2 * 3).backward(paddle.to_tensor([1.0, 2.0, 3.0], dtype="float64"))
    with pytest.raises(RuntimeError):
        paddle.to_tensor([1.0]).backward()  # nothing to differentiate


def test_autograd_backward_multiple_roots():
    x = leaf([1.0, 2.0])
    a, b = x * 2, x * x
    paddle.autograd.backward([a.sum(), b.sum()])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 6.0])


def test_paddle_grad_options():
    x = leaf([1.0, 2.0])
    y = leaf([3.0, 4.0])
    z = x * y
    gx, = paddle.grad([z.sum()], [x], retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), [3, 4])
    assert x.grad is None  # paddle.grad does not accumulate
    unused = leaf([5.0])
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad([z.sum()], [unused], retain_graph=True)
    r = paddle.grad([z.sum()], [x, unused], allow_unused=True, retain_graph=True)
    assert r[1] is None
    gx2, = paddle.grad([z], [x], grad_outputs=[paddle.to_tensor([2.0, 1.0], dtype="float64")],
                       retain_graph=True)
    np.testing.assert_allclose(gx2.numpy(), [6, 4])
    # no_grad_vars: y treated as constant
    w = x * y * y
    gx3, = paddle.grad([w.sum()], [x], no_grad_vars=[y])
    np.testing.assert_allclose(gx3.numpy(), [9, 16])
    # gradient w.r.t. an intermediate tensor
    m = x * 2
    n = (m * m).sum()
    gm, = paddle.grad([n], [m])
    np.testing.assert_allclose(gm.numpy(), 2 * m.numpy())


def test_higher_order_numerically():
    x = leaf([0.3, -0.7, 1.1])

    def f(t):
        return (paddle.tanh(t) * paddle.exp(t) * t).sum()

    g1, = paddle.grad([f(x)], [x], create_graph=True)
    g2, = paddle.grad([g1.sum()], [x], create_graph=True)
    g3, = paddle.grad([g2.sum()], [x])
    xs = x.numpy()

    def fn(v):
        return np.tanh(v) * np.exp(v) * v

    eps = 1e-4
    d1 = (fn(xs + eps) - fn(xs - eps)) / (2 * eps)
    d2 = (fn(xs + eps) - 2 * fn(xs) + fn(xs - eps)) / eps ** 2
    d3 = (fn(xs + 2 * eps) - 2 * fn(xs + eps) + 2 * fn(xs - eps) - fn(xs - 2 * eps)) / (2 * eps ** 3)
    np.testing.assert_allclose(g1.numpy(), d1, rtol=1e-6)
    np.testing.assert_allclose(g2.numpy(), d2, rtol=1e-4)
    np.testing.assert_allclose(g3.numpy(), d3, rtol=1e-2)


def test_hooks_replace_and_remove():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.numpy().copy()))
    y = x * 3
    hy = y.register_hook(lambda g: g * 10)  # replaces the gradient flowing on
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [30, 30])
    np.testing.assert_allclose(seen[0], [30, 30])
    assert h.remove() and hy.remove()
    x.clear_gradient(False)
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3, 3])
    assert len(seen) == 1
    with pytest.raises(RuntimeError):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)


def test_hook_exception_propagates():
    x = leaf([1.0])

    def bad(g):
        raise KeyError("boom")

    x.register_hook(bad)
    with pytest.raises(KeyError):
        (x * 2).sum().backward()


def test_retain_graph_and_freed_graph_error():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4, 8])
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


def test_inplace_modification_of_saved_tensor_is_detected():
    x = leaf([1.0, 2.0])
    a = x * 2
    b = a * a  # saves a
    a.add_(paddle.to_tensor([1.0, 1.0], dtype="float64"))
    with pytest.raises(RuntimeError, match=r"\[multiply\].*inplace"):
        b.sum().backward()
    with pytest.raises(RuntimeError, match="leaf"):
        x.add_(x)


def test_inplace_op_gradient_flows():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([2.0, 4.0]))


def test_pylayer_forward_backward_and_double_backward():
    class Cube(PyLayer):
        @staticmethod
        def forward(ctx, x, scale=1.0):
            ctx.scale = scale
            ctx.save_for_backward(x)
            return x * x * x * scale

        @staticmethod
        def backward(ctx, dy):
            x, = ctx.saved_tensor()
            return dy * 3 * x * x * ctx.scale

    x = leaf([1.0, 2.0])
    y = Cube.apply(x, scale=2.0)
    assert not y.stop_gradient
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6, 24])
    g, = paddle.grad([Cube.apply(x).sum()], [x], create_graph=True)
    g2, = paddle.grad([g.sum()], [x])
    np.testing.assert_allclose(g2.numpy(), [6, 12])
    with paddle.no_grad():
        assert Cube.apply(x).stop_gradient


def test_pylayer_mark_non_differentiable_and_errors():
    class Split(PyLayer):
        @staticmethod
        def forward(ctx, x):
            idx = paddle.argmax(x)
            y = x * 2
            ctx.mark_non_differentiable(idx)
            return y, idx

        @staticmethod
        def backward(ctx, dy, didx):
            assert didx is None  # non-differentiable outputs get no gradient
            return dy * 2

    x = leaf([1.0, 3.0])
    y, idx = Split.apply(x)
    assert idx.stop_gradient and not y.stop_gradient
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])

    class Wrong(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return dy, dy

    with pytest.raises(ValueError):
        Wrong.apply(leaf([1.0])).sum().backward()


def test_incubate_autograd():
    from paddle.incubate.autograd import Hessian, Jacobian, jvp, vjp

    def f(x, y):
        return x * y * y

    x = paddle.to_tensor([1.0, 2.0], dtype="float64")
    y = paddle.to_tensor([3.0, 4.0], dtype="float64")
    out, (gx, gy) = vjp(f, [x, y])
    np.testing.assert_allclose(out.numpy(), [9, 32])
    np.testing.assert_allclose(gx.numpy(), [9, 16])
    np.testing.assert_allclose(gy.numpy(), [6, 16])
    _, jv = jvp(f, [x, y], [paddle.to_tensor([1.0, 0.0], dtype="float64"),
                            paddle.to_tensor([0.0, 1.0], dtype="float64")])
    np.testing.assert_allclose(jv.numpy(), [9, 16])
    J = Jacobian(f, [x, y])
    assert J.shape == [2, 4]
    np.testing.assert_allclose(J[:].numpy(), [[9, 0, 6, 0], [0, 16, 0, 16]])
    np.testing.assert_allclose(J[1, :].numpy(), [0, 16, 0, 16])
    H = Hessian(lambda t: (t * t * t).sum(), x)
    np.testing.assert_allclose(H[:].numpy(), np.diag([6.0, 12.0]))
    Jb = Jacobian(lambda t: t * t, paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64"),
                  is_batched=True)
    assert Jb.shape == [2, 2, 2]
    np.testing.assert_allclose(Jb[:].numpy()[1], np.diag([6.0, 8.0]))
    assert x.stop_gradient  # the user's tensors are untouched


@pytest.mark.skipif(os.environ.get("PADDLE_C_ALLOC_PASSTHROUGH") == "1",
                    reason="the caching allocator is off (PADDLE_C_ALLOC_PASSTHROUGH=1, scripts/asan_suite.sh)")
def test_training_loop_memory_is_flat():
    rng = np.random.default_rng(0)
    w1 = paddle.to_tensor(rng.normal(size=(16, 32)) * 0.1, dtype="float32", stop_gradient=False)
    w2 = paddle.to_tensor(rng.normal(size=(32, 4)) * 0.1, dtype="float32", stop_gradient=False)
    xb = paddle.to_tensor(rng.normal(size=(8, 16)), dtype="float32")
    yb = paddle.to_tensor(rng.normal(size=(8, 4)), dtype="float32")

    def step():
        h = paddle.nn.functional.relu(paddle.matmul(xb, w1))
        loss = ((paddle.matmul(h, w2) - yb) ** 2).mean()
        loss.backward()
        with paddle.no_grad():
            for w in (w1, w2):
                w._copy_(w - 0.01 * w.grad)
                w.clear_grad()
        return loss.item()

    first = [step() for _ in range(20)]
    gc.collect()
    before = _C.alloc_stats()
    losses = [step() for _ in range(1000)]
    gc.collect()
    after = _C.alloc_stats()
    assert losses[-1] < first[0]
    assert after["in_use_bytes"] == before["in_use_bytes"]
    assert after["n_live_blocks"] == before["n_live_blocks"]
    assert after["n_os_alloc"] - before["n_os_alloc"] <= 2


def test_graph_freed_when_outputs_dropped():
    gc.collect()
    x = leaf(np.ones(1000))
    base = _C.alloc_stats()["in_use_bytes"]
    for _ in range(5):
        y = x
        for _ in range(200):
            y = y * 1.0001
        del y
    gc.collect()
    assert _C.alloc_stats()["in_use_bytes"] == base


def test_deep_chain_backward_and_release():
    x = leaf([1.0])
    y = x
    for _ in range(20000):  # deep graphs must not overflow the C stack
        y = y * 1.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0])
    del y


def test_clear_grad_then_backward_overwrites():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    g = x.grad
    x.clear_grad()
    (x * 5).sum().backward()  # the cleared (zero) gradient is overwritten, not added to
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])
    assert x.grad is g  # same tensor object is reused
    x.clear_grad()
    x.clear_grad()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_clear_grad_then_backward_unheld_and_viewed_grads():
    """After clear_grad(), a gradient nobody holds is replaced by the new one (no copy), one whose
    storage a view still shows is overwritten in place (the view sees the new values), and
    accumulation resumes from there."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(64, 32))
    x = leaf(a)
    for k in (1.0, 3.0, -2.0):
        x.clear_grad()
        (x * k).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.full(a.shape, k))
    (x * x).sum().backward()  # accumulates onto the last one
    np.testing.assert_allclose(x.grad.numpy(), -2.0 + 2 * a)
    row = x.grad[3]  # a view of the gradient's storage
    x.clear_grad()
    (x * 7.0).sum().backward()
    np.testing.assert_allclose(row.numpy(), np.full(32, 7.0))
    np.testing.assert_allclose(x.grad.numpy(), np.full(a.shape, 7.0))
