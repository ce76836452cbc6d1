"""paddle.jit.to_static: a table of converted control-flow cases (tests/python/jit_cases.py) run as
dygraph and through the AST conversion must agree; training through to_static gives dygraph's
losses and gradients (through converted if/while too, BatchNorm statistics included); the program
cache retraces on new input signatures only; errors name the user's line; StaticFunction's API
(.code, .main_program, .concrete_program, rollback), not_to_static, ProgramTranslator,
set_code_level / set_verbosity; TracedLayer; the paddle.fluid names of seed E21."""
import copy
import inspect
import os
import sys

import numpy as np
import pytest

import paddle
from paddle.jit import to_static
from paddle.static import InputSpec

sys.path.insert(0, os.path.dirname(__file__))
import jit_cases as C  # noqa: E402


def _np(v):
    return v.numpy() if isinstance(v, paddle.Tensor) else np.asarray(v)


def _flat(v):
    if v is None:
        return [None]
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out += _flat(x)
        return out
    return [v]


def assert_same(a, b, rtol=1e-6, atol=1e-6):
    fa, fb = _flat(a), _flat(b)
    assert len(fa) == len(fb), (a, b)
    for x, y in zip(fa, fb):
        if x is None or y is None:
            assert x is None and y is None
            continue
        np.testing.assert_allclose(_np(x), _np(y), rtol=rtol, atol=atol)


ONES = np.ones([3], "float32")
M43 = np.arange(12, dtype="float32").reshape(4, 3)
CASES = [
    ("while_tensor", C.while_tensor, [ONES], {}),
    ("while_python_counter", C.while_python_counter, [ONES], {}),
    ("while_tensor_python_counter", C.while_tensor_python_counter, [ONES], {}),
    ("if_true", C.if_else, [ONES], {}),
    ("if_false", C.if_else, [-ONES], {}),
    ("elif_1", C.if_elif_else, [3 * ONES], {}),
    ("elif_2", C.if_elif_else, [ONES], {}),
    ("elif_3", C.if_elif_else, [-ONES], {}),
    ("if_one_branch_true", C.if_one_branch, [ONES], {}),
    ("if_one_branch_false", C.if_one_branch, [-ONES], {}),
    ("nested_if_in_while", C.nested_if_in_while, [ONES], {}),
    ("for_range_tensor", C.for_range_tensor, [M43], {}),
    ("for_range_start_step", C.for_range_start_step, [ONES], {}),
    ("for_range_python", C.for_range_python, [ONES], {}),
    ("for_over_tensor", C.for_over_tensor, [M43], {}),
    ("for_enumerate_tensor", C.for_enumerate_tensor, [M43], {}),
    ("for_zip_tensors", C.for_zip_tensors, [M43], {}),
    ("for_list_of_tensors", C.for_list_of_tensors, [ONES], {}),
    ("for_enumerate_list", C.for_enumerate_list, [ONES], {}),
    ("break_in_while", C.break_in_while, [ONES], {}),
    ("continue_in_while", C.continue_in_while, [ONES[:1]], {}),
    ("break_continue_for_tensor_range", C.break_continue_for_tensor_range, [ONES], {}),
    ("break_python_for_tensor_cond", C.break_python_for_tensor_cond, [ONES], {}),
    ("for_else", C.for_else, [ONES], {}),
    ("return_in_if_true", C.return_in_if, [ONES], {}),
    ("return_in_if_false", C.return_in_if, [-ONES], {}),
    ("return_in_while_early", C.return_in_while, [ONES], {}),
    ("return_in_while_late", C.return_in_while, [ONES * 0.1 - 9], {}),
    ("return_structure_tuple", C.return_different_structure, [ONES], {}),
    ("return_structure_single", C.return_different_structure, [-ONES], {}),
    ("return_none_path_value", C.return_none_on_a_path, [ONES], {}),
    ("return_none_path_none", C.return_none_on_a_path, [-ONES], {}),
    ("logical_ops_1", C.logical_ops, [ONES], {}),
    ("logical_ops_2", C.logical_ops, [-2 * ONES], {}),
    ("logical_ops_3", C.logical_ops, [5 * ONES], {}),
    ("chained_compare_in", C.chained_compare, [ONES], {}),
    ("chained_compare_out", C.chained_compare, [5 * ONES], {}),
    ("ifexp_true", C.ifexp, [ONES], {}),
    ("ifexp_false", C.ifexp, [-ONES], {}),
    ("shape_unknown", C.shape_unknown, [M43], {}),
    ("shape_op", C.shape_op, [M43], {}),
    ("len_tensor", C.len_tensor, [M43], {}),
    ("list_append_in_tensor_loop", C.list_append_in_tensor_loop, [M43], {}),
    ("list_append_concat", C.list_append_concat, [ONES], {}),
    ("list_append_in_if_true", C.list_append_in_if, [ONES], {}),
    ("list_append_in_if_false", C.list_append_in_if, [-ONES], {}),
    ("list_append_in_if_one_branch_true", C.list_append_in_if_one_branch, [ONES], {}),
    ("list_append_in_if_one_branch_false", C.list_append_in_if_one_branch, [-ONES], {}),
    ("list_append_uneven_in_if_true", C.list_append_uneven_in_if, [ONES], {}),
    ("list_append_uneven_in_if_false", C.list_append_uneven_in_if, [-ONES], {}),
    ("list_append_in_nested_if", C.list_append_in_nested_if, [ONES], {}),
    ("list_append_in_nested_if_false", C.list_append_in_nested_if, [-ONES], {}),
    ("index_with_loop_tensor", C.index_with_loop_tensor, [M43], {}),
    ("kwargs", C.kwargs_fn, [ONES], {"scale": 3.0, "shift": 1.0}),
    ("calls_user_function", C.calls_user_function, [ONES], {}),
    ("print_and_assert", C.print_and_assert, [ONES], {}),
    ("python_values_true", C.python_value_control_flow, [ONES], {"flag": True, "n": 2}),
    ("python_values_false", C.python_value_control_flow, [ONES], {"flag": False, "n": 4}),
]


@pytest.mark.parametrize("name,fn,args,kwargs", CASES, ids=[c[0] for c in CASES])
def test_converted_control_flow_matches_dygraph(name, fn, args, kwargs):
    want = fn(*[paddle.to_tensor(a) for a in args], **kwargs)
    sf = to_static(fn)
    got = sf(*[paddle.to_tensor(a) for a in args], **kwargs)
    assert_same(got, want)
    assert "_jst." in sf.code


@pytest.mark.parametrize("fn", [C.list_append_in_if, C.list_append_uneven_in_if])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_list_appended_in_tensor_if_differentiates(fn, sign):
    """Gradients through a list both branches of a tensor `if` append to (merged as Paddle's
    tensor array) equal dygraph's."""
    xs = np.array([0.5, -0.25, 2.0], "float32") * sign
    grads = []
    for f in (fn, to_static(fn)):
        x = paddle.to_tensor(xs, stop_gradient=False)
        (f(x) * paddle.to_tensor(np.arange(1, 1 + f(x).shape[0], dtype="float32"))).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-6)


def _list_items_of_two_shapes(x):
    out = [x]
    if x.mean() > 0:
        out.append(paddle.ones([5]))
    return out[-1]


def _lists_of_two_lengths_not_tensors(x):
    out = [x, paddle.ones([5])]
    if x.mean() > 0:
        out.append(x * 2)
    return out[-1]


def test_list_appended_in_tensor_if_limits_are_clear():
    x = paddle.to_tensor(ONES)
    with pytest.raises(NotImplementedError, match="share one shape"):
        to_static(_list_items_of_two_shapes)(x)
    with pytest.raises(Exception, match="with 3 and 2 items"):
        to_static(_lists_of_two_lengths_not_tensors)(x)


def test_unknown_batch_dims_from_input_spec():
    sf = to_static(C.shape_unknown, input_spec=[InputSpec([None, 3], "float32")])
    for n in (2, 5):
        x = paddle.randn([n, 3])
        assert_same(sf(x), C.shape_unknown(x))
    assert len(sf.program_cache) == 1
    sf2 = to_static(C.for_over_tensor, input_spec=[InputSpec([None, 3], "float32")])
    x = paddle.to_tensor(M43)
    assert_same(sf2(x), C.for_over_tensor(x))


def test_layer_with_converted_control_flow_and_sublayers():
    paddle.seed(5)
    net = C.CFNet()
    x = paddle.randn([3, 4])
    want = net(x)
    snet = to_static(copy.deepcopy(net))
    assert_same(snet(x), want)
    text = snet.forward.code
    assert "convert_ifelse" in text and "convert_while_loop" in text


# ---------------------------------------------------------------------------------- training
def _train_pair(make, x, y=None, steps=3, opt=paddle.optimizer.Adam):
    paddle.seed(11)
    a = make()
    b = make()
    b.set_state_dict(a.state_dict())
    sb = to_static(b)
    oa = opt(parameters=a.parameters(), learning_rate=0.01)
    ob = opt(parameters=sb.parameters(), learning_rate=0.01)
    for _ in range(steps):
        la = a(x).pow(2).mean()
        lb = sb(x).pow(2).mean()
        la.backward()
        lb.backward()
        np.testing.assert_allclose(float(lb), float(la), rtol=1e-6, atol=1e-6)
        for p, q in zip(a.parameters(), sb.parameters()):
            assert (p.grad is None) == (q.grad is None), p.name
            if p.grad is not None:
                np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-6, atol=1e-6)
        oa.step()
        ob.step()
        oa.clear_grad()
        ob.clear_grad()
    for p, q in zip(a.state_dict().values(), sb.state_dict().values()):
        np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-6, atol=1e-6)
    return a, sb


class _MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = paddle.nn.Linear(8, 16), paddle.nn.Linear(16, 4)

    def forward(self, x):
        return self.l2(paddle.nn.functional.relu(self.l1(x)))


class _BN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1, self.bn, self.l2 = paddle.nn.Linear(8, 16), paddle.nn.BatchNorm1D(16), paddle.nn.Linear(16, 4)

    def forward(self, x):
        return self.l2(paddle.nn.functional.relu(self.bn(self.l1(x))))


class _CNN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv, self.bn, self.fc = paddle.nn.Conv2D(3, 4, 3, padding=1), paddle.nn.BatchNorm2D(4), \
            paddle.nn.Linear(64, 5)

    def forward(self, x):
        h = paddle.nn.functional.max_pool2d(paddle.nn.functional.relu(self.bn(self.conv(x))), 2)
        return self.fc(paddle.flatten(h, 1))


class _LSTM(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb, self.lstm, self.fc = paddle.nn.Embedding(50, 8), paddle.nn.LSTM(8, 12), paddle.nn.Linear(12, 2)

    def forward(self, ids):
        out, _ = self.lstm(self.emb(ids))
        return self.fc(paddle.mean(out, 1))


def test_training_mlp_matches_dygraph():
    _train_pair(_MLP, paddle.randn([5, 8]))


def test_training_batchnorm_statistics_match():
    a, b = _train_pair(_BN, paddle.randn([6, 8]))
    np.testing.assert_allclose(b.bn._mean.numpy(), a.bn._mean.numpy(), rtol=1e-6, atol=1e-6)


def test_training_cnn_and_lstm_match():
    # SGD: the conv bias before BatchNorm has a gradient of pure rounding noise (~1e-8) that Adam
    # would normalise into a full-size step, so its sign alone would decide the comparison
    _train_pair(_CNN, paddle.randn([2, 3, 8, 8]), steps=2, opt=paddle.optimizer.SGD)
    _train_pair(_LSTM, paddle.randint(0, 50, [3, 7]), steps=2)


def test_training_through_converted_control_flow():
    _train_pair(C.CFNet, paddle.randn([3, 4]))


def test_training_steps_hold_no_memory():
    """A to_static training step leaves nothing behind: its autograd node never holds the outputs
    it is the grad_fn of (a cycle through C references that no garbage collector can see leaked
    every step's saved activations, ~200 KB per seed-MLP step), with or without backward."""
    from paddle import _C
    net = to_static(_MLP())
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
    x = paddle.randn([32, 8])

    def step(backward):
        loss = net(x).mean()
        if backward:
            loss.backward()
            opt.step()
            opt.clear_grad()

    for backward in (True, False):
        for _ in range(3):
            step(backward)
        before = _C.alloc_stats()["in_use_bytes"]
        for _ in range(20):
            step(backward)
        assert _C.alloc_stats()["in_use_bytes"] == before, backward


def test_gradient_to_inputs_through_while():
    x1 = paddle.to_tensor(ONES * 0.3, stop_gradient=False)
    x2 = paddle.to_tensor(ONES * 0.3, stop_gradient=False)
    C.while_tensor(x1).sum().backward()
    to_static(C.while_tensor)(x2).sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy(), rtol=1e-6)


def test_parameters_are_shared_with_the_program():
    net = _MLP()
    snet = to_static(copy.deepcopy(net))
    x = paddle.randn([2, 8])
    snet(x)
    with paddle.no_grad():
        for p in snet.parameters():
            p.set_value(p.numpy() * 0.5)   # an in-place update, as optimizers do
    for p, q in zip(net.parameters(), snet.parameters()):
        p.set_value(q.numpy())
    assert_same(snet(x), net(x))


def test_no_grad_and_eval_calls():
    net = _BN()
    snet = to_static(net)
    x = paddle.randn([4, 8])
    with paddle.no_grad():
        y = snet(x)
    assert y.stop_gradient
    snet.eval()
    mean_before = net.bn._mean.numpy().copy()
    snet(x)
    np.testing.assert_array_equal(net.bn._mean.numpy(), mean_before)


# ---------------------------------------------------------------------------------- program cache
def test_program_cache_and_retracing():
    calls = []

    def f(x, scale=1.0):
        calls.append(1)
        return x * scale
    sf = to_static(f)
    sf(paddle.ones([2, 3]))
    sf(paddle.ones([2, 3]) * 2)
    assert len(sf.program_cache) == 1 and len(calls) == 1
    sf(paddle.ones([4, 3]))                    # new shape
    sf(paddle.ones([2, 3], "float64"))         # new dtype
    sf(paddle.ones([2, 3]), scale=3.0)         # new Python argument
    assert len(sf.program_cache) == 4 and len(calls) == 4
    np.testing.assert_allclose(sf(paddle.ones([2, 3]), scale=3.0).numpy(), 3 * np.ones([2, 3]))
    assert len(calls) == 4


def test_train_and_eval_are_different_programs():
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.Dropout(0.5))
    snet = to_static(net)
    x = paddle.ones([8, 4])
    snet.train()
    snet(x)
    snet.eval()
    y = snet(x)
    assert len(snet.forward.program_cache) == 2
    assert_same(y, net[0](x))


def test_input_spec_names_feed_variables():
    sf = to_static(C.kwargs_fn, input_spec=[InputSpec([None, 3], "float32", name="img")])
    cp = sf.get_concrete_program(InputSpec([None, 3], "float32", name="img"), scale=2.0)[0]
    assert [v.name for v in cp.inputs] == ["img"]
    assert cp.inputs[0].shape == (-1, 3)


# ---------------------------------------------------------------------------------- errors
def test_error_points_at_user_line():
    sf = to_static(C.raises_at_known_line)
    with pytest.raises(ValueError) as e:
        sf(paddle.ones([2, 2]))
    src, start = inspect.getsourcelines(C.raises_at_known_line)
    line = start + next(i for i, s in enumerate(src) if "ERROR LINE" in s)
    msg = str(e.value)
    assert "In transformed code" in msg
    assert f'File "{inspect.getsourcefile(C.raises_at_known_line)}", line {line}' in msg
    assert "paddle.reshape(y, [7, 7])" in msg
    tb_lines = [(f.filename, f.lineno) for f in __import__("traceback").extract_tb(e.value.__traceback__)]
    assert (inspect.getsourcefile(C.raises_at_known_line), line) in tb_lines


def test_undefined_variable_is_named():
    def f(x):
        if x.mean() > 0:
            y = x
        return y + 1 if False else y
    sf = to_static(f)
    out = sf(paddle.ones([2]))   # y from the one branch that sets it
    np.testing.assert_allclose(out.numpy(), [1, 1])


# ---------------------------------------------------------------------------------- API
def test_static_function_api():
    sf = to_static(C.if_else, input_spec=[InputSpec([None, 3], "float32", "x")])
    assert isinstance(sf, paddle.jit.StaticFunction)
    assert "convert_ifelse" in sf.code and "def if_else(x):" in sf.code
    prog = sf.main_program
    assert isinstance(prog, paddle.static.Program)
    types = [op.type for op in prog.global_block().ops]
    assert "conditional_block" in types and "select_input" in types
    cp = sf.concrete_program
    assert [v.name for v in cp.inputs] == ["x"] and len(cp.outputs) == 1
    assert sf.dygraph_function is C.if_else


def test_rollback_and_decorated_methods():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 3)

        @to_static
        def forward(self, x):
            return self.fc(x)

    net = Net()
    x = paddle.ones([2, 3])
    y = net(x)
    assert isinstance(net.forward, paddle.jit.StaticFunction)
    fn = net.forward.rollback()
    assert not isinstance(net.forward, paddle.jit.StaticFunction)
    assert_same(fn(x), y)
    assert_same(net(x), y)
    net2 = to_static(_MLP())
    dy = net2.forward.rollback()
    assert not isinstance(net2.forward, paddle.jit.StaticFunction)
    assert dy.__name__ == "forward"


def test_not_to_static_and_program_translator():
    seen = []

    @paddle.jit.not_to_static
    def plain(x):
        seen.append(type(x).__name__)
        return x + 1

    def f(x):
        return plain(x) * 2
    out = to_static(f)(paddle.ones([2]))
    np.testing.assert_allclose(out.numpy(), [4, 4])
    assert "convert_call" in to_static(f).code
    pt = paddle.jit.ProgramTranslator()
    assert pt is paddle.jit.ProgramTranslator.get_instance()
    pt.enable(False)
    try:
        calls = []

        def g(x):
            calls.append(paddle.in_dynamic_mode())
            return x * 3
        sg = to_static(g)
        np.testing.assert_allclose(sg(paddle.ones([2])).numpy(), [3, 3])
        assert calls == [True] and len(sg.program_cache) == 0
    finally:
        pt.enable(True)
    with pytest.raises(TypeError):
        pt.enable(1)
    code = pt.get_code(C.if_else)
    assert "convert_ifelse" in code


def test_set_code_level_and_verbosity(capsys):
    def f(x):
        if x.sum() > 0:
            x = x + 1
        return x
    paddle.jit.set_code_level(100, also_to_stdout=True)
    paddle.jit.set_verbosity(3, also_to_stdout=True)
    try:
        to_static(f)(paddle.ones([2]))
    finally:
        paddle.jit.set_code_level(-1)
        paddle.jit.set_verbosity(0)
    out = capsys.readouterr().out
    assert "convert_ifelse" in out and "def f(x):" in out
    assert "Dynamic-to-Static" in out


def test_static_mode_calls_inline_into_the_program():
    sf = to_static(C.if_else)
    main = paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [3], "float32")
            y = sf(x)
        exe = paddle.static.Executor()
        out = exe.run(main, feed={"x": ONES}, fetch_list=[y])[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out, ONES * 2)


# ---------------------------------------------------------------------------------- TracedLayer, fluid
def test_traced_layer():
    net = _MLP()
    x = paddle.randn([3, 8])
    out, traced = paddle.jit.TracedLayer.trace(net, inputs=[x])
    assert_same(out, net(x))
    res = traced([x])
    assert isinstance(res, list) and len(res) == 1 and isinstance(res[0], np.ndarray)
    np.testing.assert_allclose(res[0], net(x).numpy(), rtol=1e-6, atol=1e-6)
    assert isinstance(traced.program, paddle.static.Program)


def test_fluid_names_resolve_to_the_same_objects():
    import paddle.fluid as fluid
    from paddle.fluid.dygraph import Linear, TracedLayer, to_variable
    assert fluid.dygraph.Layer is paddle.nn.Layer
    assert TracedLayer is paddle.jit.TracedLayer
    assert fluid.dygraph.declarative is paddle.jit.to_static
    with fluid.dygraph.guard():
        fc = Linear(3, 4, act="relu")
        v = to_variable(np.ones([2, 3], "float32"))
        assert isinstance(v, paddle.Tensor) and v.stop_gradient
        y = fc(v)
        assert y.shape == [2, 4] and float(y.min()) >= 0
        assert paddle.in_dynamic_mode()


def test_assert_on_tensor_checks_at_run_time():
    def f(x):
        assert x.mean() > 0, "mean must be positive"
        i = paddle.zeros([1], "int64")
        while i < 3:
            assert x.sum() < 100
            x = x + 10
            i += 1
        return x
    sf = to_static(f, input_spec=[InputSpec([None], "float32")])
    np.testing.assert_allclose(sf(paddle.ones([2])).numpy(), [31, 31])
    with pytest.raises(AssertionError, match="mean must be positive"):
        sf(-paddle.ones([2]))
    with pytest.raises(AssertionError):
        sf(paddle.ones([4]) * 20)        # fails inside the while op
    assert len(sf.program_cache) == 1    # one program: the checks run when it runs


def test_print_of_a_variable_prints_at_run_time(capsys):
    """print(tensor) in converted code becomes paddle.static.Print: every run prints its values."""
    @to_static
    def f(x):
        y = x * 2.0
        print(y)
        return y + 1.0
    f(paddle.ones([2]))
    capsys.readouterr()
    f(paddle.full([2], 3.0))  # the cached program runs: no retrace
    out = capsys.readouterr().out
    assert "data: [6 6]" in out, out
