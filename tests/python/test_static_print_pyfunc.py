"""paddle.static.Print and paddle.static.py_func: program ops that call back into Python while the
executor runs. Print's text against real Paddle's (tests/python/data/static_print_oracle.txt,
from tools/oracle/static_nn.py), first_n, the backward phase, LoD; py_func's forward, its
backward_func through paddle.static.gradients (skipped inputs, several outputs), errors, and the
program form (Paddle's print / py_func ops)."""
import os

import numpy as np
import pytest

import paddle
from paddle.static.executor import create_lod_tensor

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def _static():
    paddle.enable_static()
    yield
    paddle.disable_static()


def _program(build):
    from paddle.utils import unique_name
    main, start = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, start):
        res = build()
    return main, start, res


# ---------------------------------------------------------------------------------- Print
def test_print_matches_paddle_text(capsys):
    """The program of tools/oracle/static_nn.py (PRINT_PROGRAM): same lines, except the name of
    the temporary variable Paddle calls tmp_0."""
    def build():
        x = paddle.static.data("x", [-1, 3], "float32", lod_level=1)
        x.stop_gradient = False
        i = paddle.static.data("i", [4], "int64")
        y = paddle.static.Print(x, message="the x", summarize=4)
        z = paddle.static.Print(i, print_tensor_name=False, print_tensor_type=False, first_n=1)
        w = paddle.static.Print(y * 2.5, summarize=-1, print_tensor_layout=False, print_tensor_lod=False)
        return paddle.sum(w), z, w
    main, start, (loss, z, w) = _program(build)
    exe = paddle.static.Executor()
    exe.run(start)
    capsys.readouterr()
    for k in range(2):
        print("RUN", k, flush=True)
        t = create_lod_tensor(np.array([[0.5, -1.25, 3], [1e-8, 123456789.0, 7], [1, 2, 3]], "float32"), [[1, 2]])
        exe.run(main, feed={"x": t, "i": np.arange(4)}, fetch_list=[loss, z])
    got = capsys.readouterr().out
    with open(os.path.join(HERE, "data", "static_print_oracle.txt")) as f:
        want = f.read()
    tmp = [op.input("In")[0] for op in main.global_block().ops if op.type == "print"][2]
    assert got == want.replace("Variable: tmp_0", f"Variable: {tmp}")


def test_print_backward_phase_and_program(capsys):
    def build():
        x = paddle.static.data("x", [2, 2], "float64")
        x.stop_gradient = False
        y = paddle.static.Print(x * 3.0, summarize=2, print_phase="backward", message="grad")
        loss = paddle.sum(y * y)
        return x, y, loss, paddle.static.gradients([loss], [x])[0]
    main, start, (x, y, loss, g) = _program(build)
    types = [op.type for op in main.global_block().ops]
    assert types.count("print") == 2  # the forward op and its gradient's print
    fwd, bwd = [op for op in main.global_block().ops if op.type == "print"]
    assert fwd.attr("is_forward") is True and bwd.attr("is_forward") is False
    assert fwd.input_names == ["In"] and fwd.output_names == ["Out"] and fwd.attr("print_phase") == "BACKWARD"
    exe = paddle.static.Executor()
    xv = np.array([[1.0, 2.0], [3.0, 4.0]])
    capsys.readouterr()
    r = exe.run(main, feed={"x": xv}, fetch_list=[y, g])
    out = capsys.readouterr().out.splitlines()
    np.testing.assert_allclose(r[0], 3 * xv)
    np.testing.assert_allclose(r[1], 18 * xv)
    # only the backward print printed: the gradient of y, 2 * y
    assert out[0] == f"Variable: {bwd.input('In')[0]}" and out[1] == "  - message: grad"
    assert out[-1] == "  - data: [6 12]" and out[-2] == "  - dtype: float64"


def test_print_lod_levels_and_passthrough(capsys):
    main, start, y = _program(lambda: paddle.static.Print(paddle.static.data("x", [-1, 1], "int32", lod_level=2),
                                                          print_tensor_type=False, print_tensor_shape=False))
    exe = paddle.static.Executor()
    capsys.readouterr()
    t = create_lod_tensor(np.arange(5, dtype="int32").reshape(5, 1), [[2, 1], [1, 3, 1]])
    r = exe.run(main, feed={"x": t}, fetch_list=[y], return_numpy=False)[0]
    out = capsys.readouterr().out.splitlines()
    assert out == ["Variable: x", "  - lod: {{0, 2, 3}, {0, 1, 4, 5}}", "  - place: Place(cpu)", "  - layout: NCHW",
                   "  - data: [0 1 2 3 4]"]
    assert r.lod() == [[0, 2, 3], [0, 1, 4, 5]]  # Print passes its input on, LoD included
    with pytest.raises(ValueError, match="print_phase"):
        _program(lambda: paddle.static.Print(paddle.static.data("x", [1], "float32"), print_phase="sideways"))


# ---------------------------------------------------------------------------------- py_func
def test_py_func_forward_and_backward():
    calls = []

    def fwd(a, b):
        calls.append((np.array(a).shape, np.array(b).shape))
        return np.tanh(np.array(a)) * np.array(b), np.array(a) + 1.0

    def bwd(a, b, y, z, dy, dz):  # x, out and the out gradients (nothing skipped)
        a, b, dy, dz = (np.array(v) for v in (a, b, dy, dz))
        return dy * b * (1 - np.tanh(a) ** 2) + dz, dy * np.tanh(a)

    def build():
        block = paddle.static.default_main_program().current_block()
        a = paddle.static.data("a", [2, 3], "float64")
        b = paddle.static.data("b", [2, 3], "float64")
        a.stop_gradient = b.stop_gradient = False
        y = block.create_var(name="y", shape=[2, 3], dtype="float64")
        z = block.create_var(name="z", shape=[2, 3], dtype="float64")
        paddle.static.py_func(fwd, [a, b], [y, z], backward_func=bwd)
        loss = paddle.sum(y * y) + paddle.sum(z * 3.0)
        return y, z, paddle.static.gradients([loss], [a, b])
    main, start, (y, z, (ga, gb)) = _program(build)
    ops = [op for op in main.global_block().ops if op.type == "py_func"]
    assert len(ops) == 2 and ops[0].input_names == ["X"] and ops[0].output_names == ["Out"]
    assert ops[0].attr("backward_callable_id") == ops[1].attr("forward_callable_id")
    assert ops[1].attr("backward_callable_id") == -1
    rng = np.random.RandomState(0)
    av, bv = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))
    exe = paddle.static.Executor()
    r = exe.run(main, feed={"a": av, "b": bv}, fetch_list=[y, z, ga, gb])
    yv = np.tanh(av) * bv
    np.testing.assert_allclose(r[0], yv)
    np.testing.assert_allclose(r[1], av + 1)
    np.testing.assert_allclose(r[2], 2 * yv * bv * (1 - np.tanh(av) ** 2) + 3.0)
    np.testing.assert_allclose(r[3], 2 * yv * np.tanh(av))
    assert calls and calls[0] == ((2, 3), (2, 3))


def test_py_func_skip_vars_none_gradients_and_lod():
    seen = {}

    def fwd(x):
        seen["lod"] = x.lod()
        return np.exp(np.array(x))

    def bwd(y, dy):  # x skipped: only the output and its gradient
        seen["bwd"] = len((y, dy))
        return np.array(y) * np.array(dy)

    def build():
        block = paddle.static.default_main_program().current_block()
        x = paddle.static.data("x", [-1, 2], "float32", lod_level=1)
        x.stop_gradient = False
        y = block.create_var(name="y", shape=[-1, 2], dtype="float32")
        out = paddle.static.py_func(fwd, x, y, backward_func=bwd, skip_vars_in_backward_input=[x])
        assert out is y
        return y, paddle.static.gradients([paddle.sum(y)], [x])[0]
    main, start, (y, g) = _program(build)
    op = [op for op in main.global_block().ops if op.type == "py_func"][0]
    assert op.attr("backward_skip_vars") == ["x"]
    exe = paddle.static.Executor()
    xv = np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]], "float32")
    r = exe.run(main, feed={"x": create_lod_tensor(xv, [[1, 2]])}, fetch_list=[y, g])
    np.testing.assert_allclose(r[0], np.exp(xv), rtol=1e-6)
    np.testing.assert_allclose(r[1], np.exp(xv), rtol=1e-6)
    assert seen == {"lod": [[0, 1, 3]], "bwd": 2}


def test_py_func_without_backward_and_errors():
    def build(fn):
        def b():
            block = paddle.static.default_main_program().current_block()
            x = paddle.static.data("x", [3], "float32")
            y = block.create_var(name="y", shape=[3], dtype="float32")
            paddle.static.py_func(fn, x, y)
            return y
        return _program(b)

    def boom(v):
        raise KeyError("boom")
    exe = paddle.static.Executor()
    xv = np.arange(3, dtype="float32")
    main, _, y = build(lambda v: np.array(v) * 2)
    np.testing.assert_allclose(exe.run(main, feed={"x": xv}, fetch_list=[y])[0], 2 * xv)
    main, _, y = build(boom)
    with pytest.raises(Exception, match="py_func.*KeyError.*boom"):
        exe.run(main, feed={"x": xv}, fetch_list=[y])
    with pytest.raises(TypeError):
        _program(lambda: paddle.static.py_func(None, paddle.static.data("x", [1], "float32"), None))
    with pytest.raises(ValueError, match="not found in forward inputs and outputs"):
        def b2():
            x = paddle.static.data("x", [1], "float32")
            o = paddle.static.default_main_program().current_block().create_var(name="o", shape=[1], dtype="float32")
            paddle.static.py_func(lambda v: v, x, o, backward_func=lambda *a: a[0],
                                  skip_vars_in_backward_input=paddle.static.data("other", [1], "float32"))
        _program(b2)
    assert callable(paddle.static.py_func.registered_func(0)) and paddle.static.py_func.registered_func_num() > 0


def test_py_func_with_no_outputs_runs_for_its_effect():
    hits = []

    def build():
        x = paddle.static.data("x", [2], "float32")
        paddle.static.py_func(lambda v: hits.append(np.array(v).sum()), x, None)
        return paddle.scale(x, 2.0)
    main, start, y = _program(build)
    paddle.static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    assert hits == [2.0]
