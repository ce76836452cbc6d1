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


# ------------------------------------------------------------------ Paddle's program form
import os  # noqa: E402
import runpy  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "python", "data", "attr_dyn_forms")
SCRIPT = os.path.join(ROOT, "tools", "oracle", "attr_dyn_forms.py")
ORACLE_PY = os.environ.get("PADDLE_ORACLE_PY", "/work/oracle/bin/python")
FORMS = runpy.run_path(SCRIPT, run_name="attr_dyn_forms")
EXPECTED = dict(np.load(os.path.join(DATA, "expected.npz")))
SKIP = ("feed", "fetch", "scale", "fill_constant", "elementwise_add")


def _target(prog):
    ops = [op for op in prog.global_block().ops if op.type not in SKIP]
    assert len(ops) == 1, [op.type for op in ops]
    return ops[0]


def _form(op):  # type, input slots in use, attributes given as VAR (type 13)
    return (op.type, sorted(k for k in op.input_names if op.input(k)),
            sorted(k for k in op.attr_names if op.desc.attr_type(k) == 13))


@pytest.mark.parametrize("case", sorted(FORMS["FEEDS"]))
def test_paddle_files_load_and_run(static, case):
    """Programs saved by real Paddle 2.6.2 (committed with the script that made them) run here,
    in the executor and in the inference predictor, with Paddle's outputs."""
    exe = paddle.static.Executor()
    prog, feeds, fetch = paddle.static.load_inference_model(os.path.join(DATA, case), exe)
    feed = {k: FORMS["FEEDS"][case][k] for k in feeds}
    got, = exe.run(prog, feed=feed, fetch_list=fetch)
    assert got.dtype == EXPECTED[case].dtype
    np.testing.assert_array_equal(got, EXPECTED[case])
    from paddle import inference as pi
    cfg = pi.Config()
    cfg.set_prog_file(os.path.join(DATA, case + ".pdmodel"))  # no parameters in these programs
    pred = pi.create_predictor(cfg)
    for k in pred.get_input_names():
        pred.get_input_handle(k).copy_from_cpu(feed[k])
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_array_equal(out, EXPECTED[case])


def test_our_saved_programs_are_in_paddles_form(static, tmp_path):
    """save_inference_model writes each case as Paddle does: the same op type, input slots and
    VAR attributes as Paddle's file; and the saved program runs here with Paddle's outputs."""
    FORMS["make"](str(tmp_path))
    exe = paddle.static.Executor()
    ours = dict(np.load(str(tmp_path / "expected.npz")))
    for case in FORMS["FEEDS"]:
        np.testing.assert_array_equal(ours[case], EXPECTED[case])
        mine, _, _ = paddle.static.load_inference_model(str(tmp_path / case), exe)
        theirs, _, _ = paddle.static.load_inference_model(os.path.join(DATA, case), exe)
        assert _form(_target(mine)) == _form(_target(theirs)), case
    assert _form(_target(paddle.static.load_inference_model(str(tmp_path / "cumsum"), exe)[0])) == \
        ("cumsum", ["X"], ["axis"])
    assert _form(_target(paddle.static.load_inference_model(str(tmp_path / "gather"), exe)[0])) == \
        ("gather", ["Axis", "Index", "X"], [])


def test_older_attr_dyn_files_still_load(static):
    """old_attr_dyn.pdmodel: written by Paddle-C before (op type attr_dyn, cumsum and gather with a
    fed axis a)."""
    exe = paddle.static.Executor()
    prog, feeds, fetch = paddle.static.load_inference_model(os.path.join(DATA, "old_attr_dyn"), exe)
    assert [op.type for op in prog.global_block().ops if op.type not in SKIP] == ["attr_dyn", "attr_dyn"]
    idx = np.array([3, 1])
    for av in (0, 1):
        y, z = exe.run(prog, feed={"x": XV, "a": np.array([av]), "i": idx[:2] % 3}, fetch_list=fetch)
        np.testing.assert_array_equal(y, np.cumsum(XV, av))
        np.testing.assert_array_equal(z, np.take(XV, idx[:2] % 3, axis=av))


def test_jit_save_writes_paddles_form(tmp_path):
    """paddle.jit.save of a to_static function with a tensor axis: Paddle's form (cumsum with a VAR
    axis, gather with Axis); it loads back here (paddle.jit.load) with numpy's results."""
    def f(x, a, i):
        return paddle.cumsum(x, a), paddle.gather(x, i, a)
    spec = [paddle.static.InputSpec([3, 4], "float32", "x"), paddle.static.InputSpec([1], "int64", "a"),
            paddle.static.InputSpec([2], "int64", "i")]
    path = str(tmp_path / "jitf")
    paddle.jit.save(paddle.jit.to_static(f, input_spec=spec), path)
    paddle.enable_static()
    try:
        prog, feeds, fetch = paddle.static.load_inference_model(path, paddle.static.Executor())
        forms = sorted(_form(op) for op in prog.global_block().ops if op.type not in SKIP)
    finally:
        paddle.disable_static()
    assert forms == [("cumsum", ["X"], ["axis"]), ("gather", ["Axis", "Index", "X"], [])], forms
    loaded = paddle.jit.load(path)
    y, z = loaded(paddle.to_tensor(XV), paddle.to_tensor([0]), paddle.to_tensor([2, 1]))
    np.testing.assert_array_equal(y.numpy(), np.cumsum(XV, 0))
    np.testing.assert_array_equal(z.numpy(), np.take(XV, [2, 1], axis=0))


@pytest.mark.skipif(not os.path.exists(ORACLE_PY), reason="the Paddle 2.6.2 oracle venv is absent")
def test_real_paddle_runs_our_saved_programs(tmp_path):
    """Differential: real Paddle 2.6.2 (a subprocess from an empty directory) loads the programs
    Paddle-C saved and gives the same outputs."""
    paddle.enable_static()
    try:
        FORMS["make"](str(tmp_path / "ours"))
    finally:
        paddle.disable_static()

    def f(x, a, i):
        return paddle.cumsum(x, a), paddle.gather(x, i, a)
    spec = [paddle.static.InputSpec([3, 4], "float32", "x"), paddle.static.InputSpec([1], "int64", "a"),
            paddle.static.InputSpec([2], "int64", "i")]
    paddle.jit.save(paddle.jit.to_static(f, input_spec=spec), str(tmp_path / "ours" / "jit_cumsum_gather"))
    work = tempfile.mkdtemp()
    try:
        shutil.copy(SCRIPT, work)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        r = subprocess.run([ORACLE_PY, "attr_dyn_forms.py", "run", str(tmp_path / "ours"), str(tmp_path / "p.npz")],
                           cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    got = dict(np.load(str(tmp_path / "p.npz")))
    jf = FORMS["JIT_FEEDS"]["jit_cumsum_gather"]
    assert sorted(got) == sorted(list(FORMS["FEEDS"]) + ["jit_cumsum_gather:0", "jit_cumsum_gather:1"])
    np.testing.assert_array_equal(got.pop("jit_cumsum_gather:0"), np.cumsum(jf["x"], 0))
    np.testing.assert_array_equal(got.pop("jit_cumsum_gather:1"), np.take(jf["x"], jf["i"], axis=0))
    for case, v in got.items():
        np.testing.assert_array_equal(v, EXPECTED[case], err_msg=case)


def test_training_program_serialises_and_runs_back(static):
    """Program.serialize_to_string / parse_from_string of a program holding the Paddle form and
    its attr_dyn_grad ops: the parsed program computes the same gradients."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        a = paddle.static.data("a", [1], "int64")
        i = paddle.static.data("i", [3], "int64")
        loss = paddle.sum(paddle.cumsum(x, a) * paddle.to_tensor(WV)) + paddle.sum(paddle.gather(x, i, a) ** 2)
        gx, = paddle.static.gradients([loss], [x])
    back = paddle.static.Program.parse_from_string(main.desc.serialize_to_string())
    assert [op.type for op in back.global_block().ops] == [op.type for op in main.global_block().ops]
    exe = paddle.static.Executor()
    exe.run(start)
    for av in (0, 1):
        got, = exe.run(back, feed={"x": XV, "a": np.array([av]), "i": IV}, fetch_list=[gx.name])
        np.testing.assert_allclose(got, _cumsum_grad(WV, av) + _gather_sq_grad(XV, IV, av), rtol=1e-6, atol=1e-6)


def test_c_inference_api_runs_paddles_files(tmp_path):
    """The C inference API alone (tests/c/infer_check.c, no Python) reads Paddle's VAR attributes
    and gather's Axis input (the same program reader) and gives Paddle's outputs."""
    inc, lib = paddle.sysconfig.get_include(), paddle.sysconfig.get_lib()
    exe = str(tmp_path / "infer_check")
    subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Werror", "-D_GNU_SOURCE", "-I" + inc,
                    os.path.join(ROOT, "tests", "c", "infer_check.c"), "-o", exe, "-L" + lib,
                    "-Wl,-rpath," + lib, "-lpaddle_inference_c", "-lpthread"], check=True)
    paddle.enable_static()
    try:  # the feed order the program declares
        names = {c: paddle.static.load_inference_model(os.path.join(DATA, c), paddle.static.Executor())[1]
                 for c in FORMS["FEEDS"]}
    finally:
        paddle.disable_static()
    for case, feed in FORMS["FEEDS"].items():
        d = tmp_path / case
        d.mkdir()
        args = []
        for n in names[case]:
            a = np.ascontiguousarray(feed[n])
            a.tofile(str(d / (n + ".in")))
            args.append(f"{n}={d / (n + '.in')}:{a.dtype}:{','.join(str(s) for s in a.shape)}")
        r = subprocess.run([exe, "run", os.path.join(DATA, case + ".pdmodel"), "", "1", "1", str(d)] + args,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and r.stdout.strip() == "ok", case + r.stdout + r.stderr
        name, dt, shape = (open(d / "outputs.txt").read().splitlines()[0].split(" ") + [""])[:3]
        got = np.fromfile(str(d / "0.bin"), dtype=dt).reshape([int(s) for s in shape.split(",")] if shape else [])
        np.testing.assert_array_equal(got, EXPECTED[case], err_msg=case)
