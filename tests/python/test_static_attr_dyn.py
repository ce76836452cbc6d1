"""Attributes given as one-element program Variables (attr_dyn, ops/dyn.yaml): gradients through
them (attr_dyn_grad: the target's own backward with the values read when the program runs)
against numpy in static programs (gradients, append_backward + SGD minimize) and through
paddle.jit.to_static; Paddle's program form (a VAR attribute, gather's Axis input) is in
test_static_attr_dyn_form below."""
import numpy as np
import pytest

import paddle

XV = (np.arange(12).reshape(3, 4) * 0.37 % 1.3).astype("float32")
WV = np.linspace(-1.0, 2.0, 12).reshape(3, 4).astype("float32")
IV = np.array([2, 0, 2])


@pytest.fixture
def static():
    paddle.enable_static()
    yield
    paddle.disable_static()


def _cumsum_grad(w, ax):  # d sum(cumsum(x, ax) * w) / dx
    return np.flip(np.cumsum(np.flip(w, ax), ax), ax)


def _gather_sq_grad(x, idx, ax):  # d sum(take(x, idx, ax) ** 2) / dx
    g = np.zeros_like(x)
    z = np.take(x, idx, axis=ax)
    sl = [slice(None)] * x.ndim
    for k, i in enumerate(idx):
        sl[ax % x.ndim] = i
        src = [slice(None)] * x.ndim
        src[ax % x.ndim] = k
        g[tuple(sl)] += 2 * z[tuple(src)]
    return g


def test_gradients_of_cumsum_and_gather_read_the_axis_when_run(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        a = paddle.static.data("a", [1], "int64")
        i = paddle.static.data("i", [3], "int64")
        y = paddle.cumsum(x, a)
        assert list(y.shape) == [3, 4]  # cumsum's shape does not depend on the axis
        z = paddle.gather(x, i, a)
        loss = paddle.sum(y * paddle.to_tensor(WV)) + paddle.sum(z * z)
        gx, = paddle.static.gradients([loss], [x])
    types = [op.type for op in main.global_block().ops]
    assert types.count("attr_dyn_grad") == 2, types
    exe = paddle.static.Executor()
    exe.run(start)
    for av in (1, 0, -1, -2):  # one compiled program, the axis read on every run
        got, = exe.run(main, feed={"x": XV, "a": np.array([av]), "i": IV}, fetch_list=[gx])
        ref = _cumsum_grad(WV, av) + _gather_sq_grad(XV, IV, av)
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


def test_axis_tensor_of_other_dtypes_and_finite_differences(static):
    # a float32 axis (Paddle's Scalar input) and an exclusive / reverse cumsum: central differences
    xd = XV.astype("float64")
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3, 4], "float64")
        x.stop_gradient = False
        a = paddle.static.data("a", [1], "float32")
        y = paddle.cumsum(x * x, a)
        loss = paddle.sum(paddle.sin(y))
        gx, = paddle.static.gradients([loss], [x])
    exe = paddle.static.Executor()
    exe.run(start)

    def f(v, ax):
        return np.sin(np.cumsum(v * v, ax)).sum()
    for av in (0.0, 1.0):
        got, = exe.run(main, feed={"x": xd, "a": np.array([av], "float32")}, fetch_list=[gx])
        num = np.zeros_like(xd)
        for k in range(xd.size):
            e = np.zeros(xd.size)
            e[k] = 1e-6
            e = e.reshape(xd.shape)
            num.flat[k] = (f(xd + e, int(av)) - f(xd - e, int(av))) / 2e-6
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-7)


def test_sgd_minimize_one_step(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        w = paddle.static.create_parameter([3, 4], "float32",
                                           default_initializer=paddle.nn.initializer.Assign(XV))
        a = paddle.static.data("a", [1], "int32")
        i = paddle.static.data("i", [3], "int64")
        loss = paddle.sum(paddle.cumsum(w, a) * paddle.to_tensor(WV)) + paddle.sum(paddle.gather(w, i, a) ** 2)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(start)
    exe.run(main, feed={"a": np.array([0], "int32"), "i": IV}, fetch_list=[loss])
    got = np.array(paddle.static.global_scope().find_var(w.name).get_tensor())
    ref = XV - 0.1 * (_cumsum_grad(WV, 0) + _gather_sq_grad(XV, IV, 0))
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


def test_append_backward_of_a_nondiff_target_makes_no_gradient(static):
    # argmax's output is an int index: no node, no gradient op; the float path still gets one
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        a = paddle.static.data("a", [1], "int64")
        k = paddle.argmax(x, a)
        assert k.stop_gradient
        loss = paddle.sum(x * 2.0) + paddle.sum(paddle.cast(k, "float32"))
        gx, = paddle.static.gradients([loss], [x])
    assert "attr_dyn_grad" not in [op.type for op in main.global_block().ops]
    exe = paddle.static.Executor()
    exe.run(start)
    got, = exe.run(main, feed={"x": XV, "a": np.array([1])}, fetch_list=[gx])
    np.testing.assert_array_equal(got, np.full_like(XV, 2.0))


def test_to_static_training_with_a_tensor_axis():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([3, 4], default_initializer=paddle.nn.initializer.Assign(XV))

        def forward(self, a, i):
            return paddle.sum(paddle.cumsum(self.w, a) * paddle.to_tensor(WV)) + \
                paddle.sum(paddle.gather(self.w, i, a) ** 2)

    net = Net()
    snet = paddle.jit.to_static(net)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    for av in (1, 0):
        w0 = net.w.numpy().copy()
        loss = snet(paddle.to_tensor([av]), paddle.to_tensor(IV))
        loss.backward()
        np.testing.assert_allclose(net.w.grad.numpy(), _cumsum_grad(WV, av) + _gather_sq_grad(w0, IV, av),
                                   rtol=1e-5, atol=1e-5)
        opt.step()
        opt.clear_grad()


def test_eager_attr_dyn_gradient_and_higher_order_refused():
    from paddle import _C_ops
    x = paddle.to_tensor(XV.astype("float64"), stop_gradient=False)
    out = _C_ops.attr_dyn([x], [paddle.to_tensor([1])], "cumsum", [1], [0.0, 0.0, 1.0], [])
    out = out[0] if isinstance(out, (list, tuple)) else out
    g, = paddle.grad([paddle.sum(out * paddle.to_tensor(WV.astype("float64")))], [x])
    w = WV.astype("float64")
    np.testing.assert_allclose(g.numpy(), np.cumsum(w, 1), rtol=1e-12)  # reverse cumsum's vjp
    out = _C_ops.attr_dyn([x], [paddle.to_tensor([1])], "cumsum", [1], [0.0, 0.0, 0.0], [])
    out = out[0] if isinstance(out, (list, tuple)) else out
    with pytest.raises(NotImplementedError, match="higher-order"):
        paddle.grad([paddle.sum(out * out)], [x], create_graph=True)
