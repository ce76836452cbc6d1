"""paddle.static.nn control flow (cond, while_loop, case, switch_case): forward values against
Python references, gradients (paddle.static.gradients through conditional_block / while) against
central finite differences of the same program run with perturbed feeds and parameters, nested
control flow, Paddle's exceptions, and the plain-Python behaviour in dynamic mode."""
import numpy as np
import pytest

import paddle
from paddle.static import nn as snn


@pytest.fixture
def static():
    paddle.enable_static()
    yield
    paddle.disable_static()


class Prog:
    """A program built by build(), which returns (loss, wrt, fetch); runs in its own scope."""

    def __init__(self, build, grads=True):
        self.main, self.start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(self.main, self.start):
            self.loss, self.wrt, self.fetch = build()
            self.grads = paddle.static.gradients([self.loss], self.wrt) if grads else []
        self.scope = paddle.static.Scope()
        self.exe = paddle.static.Executor()
        with paddle.static.scope_guard(self.scope):
            self.exe.run(self.start)

    def run(self, feed, fetch=None):
        with paddle.static.scope_guard(self.scope):
            return self.exe.run(self.main, feed=feed, fetch_list=fetch if fetch is not None else
                                [self.loss] + list(self.fetch) + [g for g in self.grads if g is not None])

    def param(self, name):
        return np.array(self.scope.find_var(name).get_tensor())

    def set_param(self, name, value):
        self.scope.find_var(name).get_tensor().set(np.ascontiguousarray(value))

    def numeric_grad(self, feed, var, eps=1e-6):
        """d loss / d var by central differences (var: a fed variable or a parameter)."""
        fed = var.name in feed
        base = np.array(feed[var.name] if fed else self.param(var.name), dtype=np.float64)
        g = np.zeros_like(base)
        for k in range(base.size):
            vals = []
            for sign in (1, -1):
                v = base.copy()
                v.reshape(-1)[k] += sign * eps
                f = dict(feed)
                if fed:
                    f[var.name] = v
                else:
                    self.set_param(var.name, v)
                vals.append(float(np.sum(self.run(f, [self.loss])[0])))
            g.reshape(-1)[k] = (vals[0] - vals[1]) / (2 * eps)
        if not fed:
            self.set_param(var.name, base)
        return g

    def check_grads(self, feed, rtol=1e-5, atol=1e-7):
        res = self.run(feed, [self.loss] + [g for g in self.grads])
        for var, g in zip(self.wrt, res[1:]):
            np.testing.assert_allclose(g, self.numeric_grad(feed, var), rtol=rtol, atol=atol,
                                       err_msg=f"gradient of {var.name}")
        return res


def data(name, shape, dtype="float64", grad=True):
    v = paddle.static.data(name, shape, dtype)
    v.stop_gradient = not grad
    return v


def param(shape, seed=0):
    rng = np.random.default_rng(seed)
    init = paddle.nn.initializer.Assign(rng.uniform(-1, 1, shape))
    return paddle.static.create_parameter(shape, "float64", default_initializer=init)


def op_types(program):
    return [[op.type for op in b.ops] for b in program.blocks]


RNG = np.random.default_rng(7)
X3 = RNG.uniform(0.2, 0.9, [2, 3])


# ---------------------------------------------------------------------------------- cond
def test_cond_forward_and_grads(static):
    def build():
        x = data("x", [2, 3])
        p = data("p", [1], "bool", grad=False)
        w = param([3, 3])
        out = snn.cond(p, lambda: paddle.tanh(paddle.matmul(x, w)) * 2.0, lambda: x * x + w[0])
        return paddle.sum(out * out), [x, w], [out]

    pr = Prog(build)
    types = op_types(pr.main)
    assert types[0].count("conditional_block") == 2 and "select_input" in types[0]
    assert types[0].count("conditional_block_grad") == 2 and "select_output" in types[0]
    w = pr.param(pr.wrt[1].name)
    for pv, ref in [(True, np.tanh(X3 @ w) * 2.0), (False, X3 * X3 + w[0])]:
        feed = {"x": X3, "p": np.array([pv])}
        res = pr.check_grads(feed)
        out = pr.run(feed)[1]
        np.testing.assert_allclose(out, ref, rtol=1e-12)
        np.testing.assert_allclose(res[0], np.sum(ref * ref), rtol=1e-12)


def test_cond_pred_from_data_and_structures(static):
    def build():
        x = data("x", [3])
        pred = paddle.mean(x) > 0.5
        a, (b, c) = snn.cond(pred, lambda: (x + 1.0, [x * 2.0, paddle.exp(x)]),
                             lambda: (x - 1.0, [x * 3.0, paddle.sin(x)]))
        return paddle.sum(a * b + c), [x], [a, b, c]

    pr = Prog(build)
    for xv in (np.array([0.9, 0.8, 0.7]), np.array([0.1, 0.2, 0.3])):
        feed = {"x": xv}
        res = pr.check_grads(feed)
        _, a, b, c = pr.run(feed, [pr.loss] + pr.fetch)
        hi = xv.mean() > 0.5
        np.testing.assert_allclose(a, xv + 1 if hi else xv - 1)
        np.testing.assert_allclose(b, xv * 2 if hi else xv * 3)
        np.testing.assert_allclose(c, np.exp(xv) if hi else np.sin(xv))
        np.testing.assert_allclose(res[0], np.sum(a * b + c))


def test_cond_nested(static):
    def build():
        x = data("x", [2, 3])
        p = data("p", [1], "bool", grad=False)
        q = data("q", [1], "bool", grad=False)
        w = param([3], seed=1)

        def outer_true():
            return snn.cond(q, lambda: paddle.sin(x * w), lambda: paddle.cos(x) * w)

        out = snn.cond(p, outer_true, lambda: x * w * w)
        return paddle.sum(out), [x, w], [out]

    pr = Prog(build)
    w = pr.param(pr.wrt[1].name)
    for pv in (True, False):
        for qv in (True, False):
            feed = {"x": X3, "p": np.array([pv]), "q": np.array([qv])}
            res = pr.check_grads(feed)
            ref = (np.sin(X3 * w) if qv else np.cos(X3) * w) if pv else X3 * w * w
            np.testing.assert_allclose(res[0], ref.sum(), rtol=1e-12)


def test_cond_one_branch_and_none(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = data("x", [3])
        p = data("p", [1], "bool", grad=False)
        # both branches return None: nothing merged
        assert snn.cond(p, lambda: None, lambda: None) is None
        # only true_fn: the result is written in place through an assign when the branch runs
        y = paddle.zeros([3], "float64")

        def write():
            paddle.assign(x * 3.0, y)

        assert snn.cond(p, write) is None
    exe = paddle.static.Executor()
    for pv, ref in ((True, 3 * X3[0]), (False, np.zeros(3))):
        out = exe.run(main, feed={"x": X3[0], "p": np.array([pv])}, fetch_list=[y])[0]
        np.testing.assert_allclose(out, ref)


def test_cond_builtin_results(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        p = data("p", [1], "bool", grad=False)
        same = snn.cond(p, lambda: 3, lambda: 3)
        diff = snn.cond(p, lambda: 1, lambda: 2)
    assert same == 3
    exe = paddle.static.Executor()
    assert exe.run(main, feed={"p": np.array([True])}, fetch_list=[diff])[0].tolist() == [1]
    assert exe.run(main, feed={"p": np.array([False])}, fetch_list=[diff])[0].tolist() == [2]


# ---------------------------------------------------------------------------------- while_loop
def test_while_loop_sum(static):
    def build():
        x = data("x", [3])
        w = param([3], seed=2)
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 5, "int64")
        s = paddle.zeros([3], "float64")

        def body(i, s):
            return [i + 1, s + x * w * paddle.cast(i, "float64")]

        i, s = snn.while_loop(lambda i, s: i < n, body, [i, s])
        return paddle.sum(s * s), [x, w], [i, s]

    pr = Prog(build)
    types = op_types(pr.main)
    assert "while" in types[0] and "while_grad" in types[0]
    xv = X3[0]
    w = pr.param(pr.wrt[1].name)
    res = pr.check_grads({"x": xv})
    _, i, s = pr.run({"x": xv}, [pr.loss] + pr.fetch)
    assert i.tolist() == [5]
    np.testing.assert_allclose(s, xv * w * sum(range(5)))
    np.testing.assert_allclose(res[0], np.sum((xv * w * 10) ** 2))


def _recurrence(xv, w, n):
    h, acc = xv.copy(), np.zeros_like(xv)
    for _ in range(n):
        h = np.tanh(h * w + xv)
        acc = acc + h
    return h, acc


def test_while_loop_data_dependent_iterations(static):
    def build():
        x = data("x", [3])
        n = data("n", [1], "int64", grad=False)
        w = param([3], seed=3)
        i = paddle.full([1], 0, "int64")

        def body(i, h, acc):
            h = paddle.tanh(h * w + x)
            return [i + 1, h, acc + h]

        i, h, acc = snn.while_loop(lambda i, h, acc: i < n, body, [i, x * 1.0, paddle.zeros([3], "float64")])
        return paddle.sum(acc) + paddle.sum(h * h), [x, w], [i, h, acc]

    pr = Prog(build)
    w = pr.param(pr.wrt[1].name)
    for n in (0, 1, 3, 6):
        feed = {"x": X3[1], "n": np.array([n])}
        res = pr.check_grads(feed)
        _, i, h, acc = pr.run(feed, [pr.loss] + pr.fetch)
        rh, racc = _recurrence(X3[1], w, n)
        assert i.tolist() == [n]
        np.testing.assert_allclose(h, rh, rtol=1e-12)
        np.testing.assert_allclose(acc, racc, rtol=1e-12)
        np.testing.assert_allclose(res[0], racc.sum() + (rh * rh).sum(), rtol=1e-12)


def test_while_loop_until_value(static):
    """The number of iterations depends on the data: double until the sum exceeds a limit."""
    def build():
        x = data("x", [2])
        limit = paddle.full([1], 10.0, "float64")

        def body(v, k):
            return [v * 2.0 + 0.1 * v * v, k + 1]

        v, k = snn.while_loop(lambda v, k: paddle.sum(v) < limit, body, [x * 1.0, paddle.full([1], 0, "int32")])
        return paddle.sum(v * v), [x], [v, k]

    pr = Prog(build)
    for xv in (np.array([0.3, 0.4]), np.array([2.0, 3.0]), np.array([6.0, 5.0])):
        ref, k = xv.copy(), 0
        while ref.sum() < 10.0:
            ref, k = ref * 2.0 + 0.1 * ref * ref, k + 1
        res = pr.check_grads({"x": xv})
        _, v, kk = pr.run({"x": xv}, [pr.loss] + pr.fetch)
        assert kk.tolist() == [k]
        np.testing.assert_allclose(v, ref, rtol=1e-12)


def test_while_loop_swaps_and_invariant(static):
    """Loop variables that exchange values each step and an invariant used every iteration."""
    def build():
        a = data("a", [2])
        b = data("b", [2])
        c = data("c", [2])
        i = paddle.full([1], 0, "int64")
        i, a2, b2 = snn.while_loop(lambda i, a, b: i < 3, lambda i, a, b: [i + 1, b * c, a + c],
                                    [i, a * 1.0, b * 1.0])
        return paddle.sum(a2 * paddle.exp(b2)), [a, b, c], [a2, b2]

    pr = Prog(build)
    feed = {"a": np.array([0.3, -0.2]), "b": np.array([0.5, 0.1]), "c": np.array([1.1, 0.7])}
    pr.check_grads(feed)
    a, b, c = feed["a"], feed["b"], feed["c"]
    for _ in range(3):
        a, b = b * c, a + c
    _, a2, b2 = pr.run(feed, [pr.loss] + pr.fetch)
    np.testing.assert_allclose(a2, a)
    np.testing.assert_allclose(b2, b)


def test_cond_inside_while(static):
    def build():
        x = data("x", [3])
        w = param([3], seed=4)
        i = paddle.full([1], 0, "int64")
        two = paddle.full([1], 2, "int64")

        def body(i, h):
            even = paddle.equal(paddle.remainder(i, two), paddle.zeros([1], "int64"))
            h = snn.cond(even, lambda: paddle.sin(h * w), lambda: h * x + w)
            return [i + 1, h]

        i, h = snn.while_loop(lambda i, h: i < 5, body, [i, x * 1.0])
        return paddle.sum(h * h), [x, w], [h]

    pr = Prog(build)
    w = pr.param(pr.wrt[1].name)
    xv = X3[0]
    res = pr.check_grads({"x": xv})
    h = xv.copy()
    for k in range(5):
        h = np.sin(h * w) if k % 2 == 0 else h * xv + w
    np.testing.assert_allclose(res[0], (h * h).sum(), rtol=1e-12)


def test_while_inside_cond(static):
    def build():
        x = data("x", [3])
        p = data("p", [1], "bool", grad=False)
        w = param([3], seed=5)

        def looped():
            i = paddle.full([1], 0, "int64")
            _, h = snn.while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, paddle.tanh(h * w + x)], [i, x * 1.0])
            return h

        out = snn.cond(p, looped, lambda: x * w)
        return paddle.sum(out * out), [x, w], [out]

    pr = Prog(build)
    w = pr.param(pr.wrt[1].name)
    xv = X3[1]
    for pv in (True, False):
        res = pr.check_grads({"x": xv, "p": np.array([pv])})
        ref = _recurrence(xv, w, 3)[0] if pv else xv * w
        np.testing.assert_allclose(res[0], (ref * ref).sum(), rtol=1e-12)


def test_while_inside_while(static):
    def build():
        x = data("x", [2])
        m = data("m", [1], "int64", grad=False)
        w = param([2], seed=6)
        i = paddle.full([1], 0, "int64")

        def outer(i, h):
            j = paddle.full([1], 0, "int64")
            _, h = snn.while_loop(lambda j, h: j < m, lambda j, h: [j + 1, paddle.sin(h * w) + x], [j, h])
            return [i + 1, h * 0.5 + x]

        i, h = snn.while_loop(lambda i, h: i < 3, outer, [i, x * 1.0])
        return paddle.sum(h * h), [x, w], [h]

    pr = Prog(build)
    w = pr.param(pr.wrt[1].name)
    xv = np.array([0.4, -0.3])
    for m in (0, 2):
        res = pr.check_grads({"x": xv, "m": np.array([m])})
        h = xv.copy()
        for _ in range(3):
            for _ in range(m):
                h = np.sin(h * w) + xv
            h = h * 0.5 + xv
        np.testing.assert_allclose(res[0], (h * h).sum(), rtol=1e-12)


def test_while_loop_forward_only_and_is_test(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        i = paddle.full([1], 0, "int64")
        ten = paddle.full([1], 10, "int64")
        i, ten = snn.while_loop(lambda i, ten: i < ten, lambda i, ten: [i + 1, ten], [i, ten], is_test=True)
    exe = paddle.static.Executor()
    assert exe.run(main, fetch_list=[i])[0].tolist() == [10]


def test_while_loop_is_test_has_no_gradient(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = data("x", [2])
        i = paddle.full([1], 0, "int64")
        _, h = snn.while_loop(lambda i, h: i < 2, lambda i, h: [i + 1, h * x], [i, x * 1.0], is_test=True)
        with pytest.raises(RuntimeError, match="is_test"):
            paddle.static.gradients([paddle.sum(h)], [x])


def test_append_backward_through_control_flow(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = data("x", [3], grad=False)
        w = param([3], seed=8)
        p = paddle.sum(x) > 1.0
        out = snn.cond(p, lambda: x * w * w, lambda: paddle.exp(w) * x)
        loss = paddle.sum(out)
        pg = paddle.static.append_backward(loss)
    assert [p_.name for p_, _ in pg] == [w.name]
    exe = paddle.static.Executor()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(start)
        wv = np.array(scope.find_var(w.name).get_tensor())
        for xv in (np.array([0.5, 0.6, 0.7]), np.array([0.1, 0.2, 0.3])):
            g = exe.run(main, feed={"x": xv}, fetch_list=[pg[0][1]])[0]
            ref = 2 * xv * wv if xv.sum() > 1.0 else np.exp(wv) * xv
            np.testing.assert_allclose(g, ref, rtol=1e-12)


def test_while_loop_with_increment(static):
    def build():
        x = data("x", [1])
        i = paddle.full([1], 0, "int64")

        def body(i, v):
            paddle.increment(i)  # Paddle's increment op, in place
            v = v * x
            return [i, paddle.increment(v, 0.5)]

        i, v = snn.while_loop(lambda i, v: i < 3, body, [i, x * 1.0])
        return paddle.sum(v), [x], [i, v]

    pr = Prog(build)
    assert pr.main.block(1).ops[0].type == "increment"
    xv = np.array([0.7])
    res = pr.check_grads({"x": xv})
    v = xv.copy()
    for _ in range(3):
        v = v * xv + 0.5
    _, i, vv = pr.run({"x": xv}, [pr.loss] + pr.fetch)
    assert i.tolist() == [3]
    np.testing.assert_allclose(vv, v)
    np.testing.assert_allclose(res[0], v.sum())


def test_tensor_array_ops_in_a_loop(static):
    """write_to_array / read_from_array / lod_array_length, as Paddle's programs use them."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = data("x", [2], grad=False)
        blk = main.current_block()
        arr = blk.create_var(name="arr", type=13, dtype="float64")
        i = paddle.full([1], 0, "int64")

        def body(i):
            sub = main.current_block()
            sub.append_op(type="write_to_array", inputs={"X": [x * paddle.cast(i, "float64")], "I": [i]},
                          outputs={"Out": [arr]})
            return [i + 1]

        (i,) = snn.while_loop(lambda i: i < 4, body, [i])
        n = blk.create_var(name="n", dtype="int64", shape=[1])
        blk.append_op(type="lod_array_length", inputs={"X": [arr]}, outputs={"Out": [n]})
        two = paddle.full([1], 2, "int64")
        third = blk.create_var(name="third", dtype="float64", shape=[2])
        blk.append_op(type="read_from_array", inputs={"X": [arr], "I": [two]}, outputs={"Out": [third]})
    exe = paddle.static.Executor()
    xv = np.array([1.5, -2.0])
    nn, t = exe.run(main, feed={"x": xv}, fetch_list=[n, third])
    assert nn.tolist() == [4]
    np.testing.assert_allclose(t, 2 * xv)


# ---------------------------------------------------------------------------------- case, switch_case
def test_case(static):
    def build():
        x = data("x", [2])
        k = data("k", [1], "float64", grad=False)
        out = snn.case([(k < 1.0, lambda: x * 2.0), (k < 2.0, lambda: paddle.exp(x))], default=lambda: x * x * x)
        return paddle.sum(out), [x], [out]

    pr = Prog(build)
    xv = np.array([0.3, 0.6])
    for kv, ref in ((0.5, 2 * xv), (1.5, np.exp(xv)), (2.5, xv ** 3)):
        res = pr.check_grads({"x": xv, "k": np.array([kv])})
        np.testing.assert_allclose(pr.run({"x": xv, "k": np.array([kv])})[1], ref, rtol=1e-12)
        np.testing.assert_allclose(res[0], ref.sum(), rtol=1e-12)


def test_case_without_default_uses_last(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        k = data("k", [1], "float64", grad=False)
        out = snn.case([(k < 1.0, lambda: paddle.full([1], 1.0)), (k < 2.0, lambda: paddle.full([1], 2.0))])
    exe = paddle.static.Executor()
    for kv, ref in ((0.5, 1.0), (1.5, 2.0), (7.0, 2.0)):
        assert exe.run(main, feed={"k": np.array([kv])}, fetch_list=[out])[0].tolist() == [ref]


@pytest.mark.parametrize("fns", ["list", "pairs", "dict"])
def test_switch_case(static, fns):
    def build():
        x = data("x", [2])
        idx = data("idx", [1], "int32", grad=False)
        f = [lambda: x + 1.0, lambda: x * x, lambda: paddle.sin(x)]
        branch = {"list": f, "pairs": [(0, f[0]), (1, f[1]), (2, f[2])], "dict": {0: f[0], 1: f[1], 2: f[2]}}[fns]
        out = snn.switch_case(idx, branch, default=lambda: x * 5.0)
        return paddle.sum(out), [x], [out]

    pr = Prog(build)
    xv = np.array([0.2, -0.7])
    refs = {0: xv + 1, 1: xv * xv, 2: np.sin(xv), 5: xv * 5, -1: xv * 5}
    for i, ref in refs.items():
        feed = {"x": xv, "idx": np.array([i], "int32")}
        res = pr.check_grads(feed)
        np.testing.assert_allclose(pr.run(feed)[1], ref, rtol=1e-12)
        np.testing.assert_allclose(res[0], ref.sum(), rtol=1e-12)


def test_switch_case_default_is_largest_key(static):
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        idx = data("idx", [1], "int64", grad=False)
        out = snn.switch_case(idx, {3: lambda: paddle.full([1], 3.0), 1: lambda: paddle.full([1], 1.0)})
    exe = paddle.static.Executor()
    for i, ref in ((1, 1.0), (3, 3.0), (0, 3.0), (9, 3.0)):
        assert exe.run(main, feed={"idx": np.array([i])}, fetch_list=[out])[0].tolist() == [ref]


# ---------------------------------------------------------------------------------- errors
def test_cond_errors(static):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = data("x", [3])
        p = data("p", [1], "bool", grad=False)
        with pytest.raises(TypeError, match="bool"):
            snn.cond(paddle.full([1], 1, "int32"), lambda: x, lambda: x)
        with pytest.raises(TypeError):
            snn.cond(True, lambda: x, lambda: x)
        with pytest.raises(TypeError, match="true_fn in cond must be callable"):
            snn.cond(p, x, lambda: x)
        with pytest.raises(TypeError, match="false_fn in cond must be callable"):
            snn.cond(p, lambda: x, 1)
        with pytest.raises(ValueError, match="true_fn returns non-None while false_fn returns None"):
            snn.cond(p, lambda: x, lambda: None)
        with pytest.raises(ValueError, match="true_fn returns None while false_fn returns non-None"):
            snn.cond(p, lambda: None, lambda: x)
        with pytest.raises(ValueError, match="Incompatible return values"):
            snn.cond(p, lambda: [x, x], lambda: [x, [x, x]])
        with pytest.raises(ValueError, match="2 vars, but false fn returns 3 vars"):
            snn.cond(p, lambda: [x, x], lambda: [x, x, x])
        with pytest.raises(TypeError, match="Unsupported return type"):
            snn.cond(p, lambda: "a", lambda: "b")


def test_cond_runtime_condition_numel(static):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        p = data("p", [-1], "bool", grad=False)
        out = snn.cond(p, lambda: paddle.full([1], 1.0), lambda: paddle.full([1], 0.0))
    with pytest.raises(ValueError, match="exactly one element"):
        paddle.static.Executor().run(main, feed={"p": np.array([True, False])}, fetch_list=[out])


def test_while_loop_errors(static):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        i = paddle.full([1], 0, "int64")
        with pytest.raises(TypeError, match="cond in while_loop should be callable"):
            snn.while_loop(1, lambda i: [i], [i])
        with pytest.raises(TypeError, match="body in while_loop should be callable"):
            snn.while_loop(lambda i: i < 3, None, [i])
        with pytest.raises(TypeError, match="loop_vars"):
            snn.while_loop(lambda i: i < 3, lambda i: [i], i)
        with pytest.raises(ValueError, match="should not be empty"):
            snn.while_loop(lambda: i < 3, lambda: [], [])
        with pytest.raises(TypeError, match="bool"):
            snn.while_loop(lambda i: i + 1, lambda i: [i + 1], [i])
        with pytest.raises(TypeError, match="shape"):
            snn.while_loop(lambda i: paddle.full([2], True, "bool"), lambda i: [i + 1], [i])
        with pytest.raises(ValueError, match="same arity"):
            snn.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1], [i, i])


def test_case_and_switch_case_errors(static):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = data("x", [1])
        p = x > 0.0
        with pytest.raises(TypeError):
            snn.case(p, lambda: x)
        with pytest.raises(TypeError, match="The elements' type"):
            snn.case([[p, lambda: x]])
        with pytest.raises(TypeError, match="tuple's size"):
            snn.case([(p, lambda: x, 1)])
        with pytest.raises(TypeError, match="pred's type"):
            snn.case([(True, lambda: x)])
        with pytest.raises(TypeError, match="must be callable"):
            snn.case([(p, x)])
        with pytest.raises(TypeError, match="default in Op\\(case\\) must be callable"):
            snn.case([(p, lambda: x)], default=1)
        idx = paddle.full([1], 0, "int64")
        with pytest.raises(TypeError, match="branch_index"):
            snn.switch_case(paddle.full([1], 0.0, "float32"), [lambda: x])
        with pytest.raises(TypeError):
            snn.switch_case(idx, lambda: x)
        with pytest.raises(TypeError, match="key's type"):
            snn.switch_case(idx, [(0.5, lambda: x)])
        with pytest.raises(ValueError, match="must be unique"):
            snn.switch_case(idx, [(1, lambda: x), (1, lambda: x)])
        with pytest.raises(TypeError, match="callable"):
            snn.switch_case(idx, [(1, x)])


# ---------------------------------------------------------------------------------- dynamic mode
def test_dynamic_cond_runs_one_branch():
    calls = []
    x = paddle.to_tensor([1.0, 2.0])

    def t():
        calls.append("t")
        return x * 2

    def f():
        calls.append("f")
        return x - 1

    np.testing.assert_allclose(snn.cond(paddle.to_tensor([True]), t, f).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(snn.cond(paddle.to_tensor([False]), t, f).numpy(), [0.0, 1.0])
    assert calls == ["t", "f"]
    assert snn.cond(paddle.to_tensor([False]), t) is None
    with pytest.raises(TypeError, match="true_fn in cond must be callable"):
        snn.cond(paddle.to_tensor([True]), 1)
    with pytest.raises(AssertionError):
        snn.cond(paddle.to_tensor([True, False]), t, f)


def test_dynamic_while_loop_and_gradient():
    x = paddle.to_tensor([0.5, -0.3], dtype="float64", stop_gradient=False)
    i = paddle.to_tensor([0], dtype="int64")
    s = paddle.zeros([2], dtype="float64")
    out = snn.while_loop(lambda i, s: i < 4, lambda i, s: [i + 1, s + x * paddle.cast(i, "float64")], [i, s])
    assert isinstance(out, list) and out[0].numpy().tolist() == [4]
    assert i.numpy().tolist() == [4]  # as in Paddle, the loop variables were updated in place
    np.testing.assert_allclose(out[1].numpy(), x.numpy() * 6)
    (g,) = paddle.grad([paddle.sum(out[1] * out[1])], [x])
    np.testing.assert_allclose(g.numpy(), 2 * 36 * x.numpy())
    i = paddle.to_tensor([0], dtype="int64")
    with pytest.raises(ValueError, match="same arity"):
        snn.while_loop(lambda i, s: i < 4, lambda i, s: [i + 1], [i, s])
    with pytest.raises(TypeError, match="shape"):
        snn.while_loop(lambda a: paddle.to_tensor([True, True]), lambda a: [a], [i])


def test_dynamic_case_and_switch_case():
    x = paddle.to_tensor([3.0])
    out = snn.case([(x < 1.0, lambda: x * 0), (x < 5.0, lambda: x * 10)], default=lambda: x)
    np.testing.assert_allclose(out.numpy(), [30.0])
    out = snn.switch_case(paddle.to_tensor([2]), {1: lambda: x + 1, 2: lambda: x + 2}, default=lambda: x)
    np.testing.assert_allclose(out.numpy(), [5.0])
    out = snn.switch_case(paddle.to_tensor([7], dtype="int32"), [lambda: x + 1, lambda: x + 2])
    np.testing.assert_allclose(out.numpy(), [5.0])


def test_second_gradients_call_after_control_flow(static):
    """A later gradients() replays the control-flow gradient ops: first-order gradients of other
    targets work; gradients of those gradients refuse with NotImplementedError."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = data("x", [2])
        p = data("p", [1], "bool", grad=False)
        out = snn.cond(p, lambda: x * x * x, lambda: paddle.exp(x))
        (g,) = paddle.static.gradients([paddle.sum(out)], [x])
        (g2,) = paddle.static.gradients([paddle.sum(x * 5.0)], [x])
        with pytest.raises(NotImplementedError, match="gradients of gradients through control flow"):
            paddle.static.gradients([paddle.sum(g)], [x])
    exe = paddle.static.Executor()
    xv = np.array([0.5, 2.0])
    r = exe.run(main, feed={"x": xv, "p": np.array([True])}, fetch_list=[g, g2])
    np.testing.assert_allclose(r[0], 3 * xv * xv)
    np.testing.assert_allclose(r[1], [5.0, 5.0])


def test_cond_branch_overwriting_an_outer_variable(static):
    """A branch that assigns to a variable of the parent: when it does not run, the variable's
    gradient passes through unchanged."""
    def build():
        x = data("x", [2])
        p = data("p", [1], "bool", grad=False)
        y = x * 1.0

        def overwrite():
            paddle.assign(paddle.sin(y) * 3.0, y)

        snn.cond(p, overwrite)
        return paddle.sum(y * y), [x], [y]

    pr = Prog(build)
    xv = np.array([0.3, -1.2])
    for pv in (True, False):
        res = pr.check_grads({"x": xv, "p": np.array([pv])})
        ref = np.sin(xv) * 3.0 if pv else xv
        np.testing.assert_allclose(res[0], (ref * ref).sum(), rtol=1e-12)


def test_dynamic_cond_gradient():
    x = paddle.to_tensor([0.5, 1.5], dtype="float64", stop_gradient=False)
    out = snn.cond(paddle.sum(x) > 1.0, lambda: x * x, lambda: paddle.exp(x))
    (g,) = paddle.grad([paddle.sum(out)], [x])
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())


def test_cond_overwriting_a_loop_variable_inside_while(static):
    def build():
        x = data("x", [2])
        i = paddle.full([1], 0, "int64")
        two = paddle.full([1], 2, "int64")

        def body(i, h):
            h = h * 1.0
            odd = paddle.equal(paddle.remainder(i, two), paddle.ones([1], "int64"))

            def overwrite():
                paddle.assign(paddle.sin(h) + x, h)

            snn.cond(odd, overwrite)
            return [i + 1, h * x]

        i, h = snn.while_loop(lambda i, h: i < 4, body, [i, x * 1.0])
        return paddle.sum(h), [x], [h]

    pr = Prog(build)
    xv = np.array([0.6, -0.4])
    res = pr.check_grads({"x": xv})
    h = xv.copy()
    for k in range(4):
        if k % 2 == 1:
            h = np.sin(h) + xv
        h = h * xv
    np.testing.assert_allclose(res[0], h.sum(), rtol=1e-12)


def test_composite_nesting(static):
    """A while holding a while and two conds (one overwriting a variable), then a switch_case."""
    def build():
        x = data("x", [3])
        p = data("p", [1], "bool", grad=False)
        i = paddle.full([1], 0, "int64")

        def body(i, h):
            j = paddle.full([1], 0, "int64")
            _, h = snn.while_loop(lambda j, h: j < 2, lambda j, h: [j + 1, paddle.sin(h) + x], [j, h])
            odd = paddle.equal(i % 2, paddle.ones([1], "int64"))
            h = h * 1.0

            def overwrite():
                paddle.assign(paddle.tanh(h) * x, h)

            snn.cond(odd, overwrite)
            return [i + 1, snn.cond(p, lambda: h * x, lambda: h + x)]

        _, h = snn.while_loop(lambda i, h: i < 3, body, [i, x * 1.0])
        out = snn.switch_case(paddle.full([1], 1, "int64"), [lambda: h, lambda: h * 2.0])
        return paddle.sum(out), [x], [out]

    pr = Prog(build)
    xv = np.array([0.1, 0.2, 0.3])
    for pv in (True, False):
        res = pr.check_grads({"x": xv, "p": np.array([pv])})
        h = xv.copy()
        for k in range(3):
            for _ in range(2):
                h = np.sin(h) + xv
            if k % 2 == 1:
                h = np.tanh(h) * xv
            h = h * xv if pv else h + xv
        np.testing.assert_allclose(res[0], (2 * h).sum(), rtol=1e-12)
