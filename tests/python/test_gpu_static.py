"""Static programs and Paddle Inference on a GPU (issue 22): paddle.static.Executor(CUDAPlace(0)) and
Executor() after set_device('gpu') train the seed MLP with the losses of the CPU run; startup programs
initialise on the device and the scope's parameters stay there; control flow (cond, while_loop) and
LoD feeds run on device values; save_inference_model after GPU training; a jit.save'd model and the
real fixture models of ../shared/fixtures/paddle_models served by paddle.inference with
enable_use_gpu give the CPU predictor's outputs (and real Paddle Inference's, for the fixtures); the
C API (tests/c/infer_check.c with INFER_CHECK_GPU) likewise. Skipped where no GPU is found; CI runs
it on the host-only stand-in GPU (tests/python/test_cuda_mock.py); test_gpu_presence_answers runs
everywhere."""
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import paddle
import paddle.inference as pi
from paddle import _C

from fixture_util import fc, needs_fixtures
from paddle.static.executor import create_lod_tensor

HAS_GPU = _C.cuda_device_count() > 0
gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(autouse=True)
def _static_cpu_default():
    paddle.enable_static()
    yield
    paddle.disable_static()
    paddle.set_device("cpu")


def test_gpu_presence_answers():
    if HAS_GPU:
        assert paddle.static.cuda_places()[0] == paddle.CUDAPlace(0)
        assert paddle.static.Executor(paddle.CUDAPlace(0)).place == paddle.CUDAPlace(0)
        return
    with pytest.raises(ValueError, match="GPU"):
        paddle.static.Executor(paddle.CUDAPlace(0))
    assert paddle.static.cuda_places() == []
    c = pi.Config()
    with pytest.warns(RuntimeWarning, match="no CUDA GPU"):
        c.enable_use_gpu(100, 0)
    assert not c.use_gpu() and c.gpu_device_id() == 0 and c.memory_pool_init_size_mb() == 0


def _mlp_program(seed=3):
    """The seed MLP (fc 8 -> 16 relu -> 4, softmax cross entropy, Adam) as a static program."""
    paddle.seed(seed)
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 8], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        h = paddle.nn.functional.relu(paddle.static.nn.fc(x, 16))
        logits = paddle.static.nn.fc(h, 4)
        loss = paddle.nn.functional.cross_entropy(logits, y).mean()
        paddle.optimizer.Adam(0.01).minimize(loss)
    main._test_logits = logits
    return main, start, loss


def _train(place, steps=5, after_set_device=False):
    main, start, loss = _mlp_program()
    scope = paddle.static.Scope()
    if after_set_device:
        paddle.set_device("gpu")
        exe = paddle.static.Executor()
    else:
        exe = paddle.static.Executor(place)
    rng = np.random.default_rng(0)
    losses = []
    with paddle.static.scope_guard(scope):
        exe.run(start)
        params = [p.name for p in main.global_block().all_parameters()]
        start_places = {scope._get(n).place for n in params}
        xb = rng.standard_normal((16, 8)).astype("float32")  # one batch: the loss must fall
        yb = rng.integers(0, 4, (16, 1)).astype("int64")
        for _ in range(steps):
            out, = exe.run(main, feed={"x": xb, "y": yb}, fetch_list=[loss])
            assert isinstance(out, np.ndarray)
            losses.append(float(np.asarray(out).reshape(-1)[0]))
        final = [np.array(scope._get(n)) for n in params]  # names differ between builds: in order
        end_places = {scope._get(n).place for n in params}
    return losses, final, start_places, end_places


@gpu
@pytest.mark.parametrize("how", ["CUDAPlace", "set_device"])
def test_static_mlp_training_on_gpu_matches_cpu(how):
    lc, pc, sc, ec = _train(paddle.CPUPlace())
    lg, pg, sg, eg = _train(paddle.CUDAPlace(0), after_set_device=how == "set_device")
    assert sc == ec == {paddle.CPUPlace()}
    assert sg == eg == {paddle.CUDAPlace(0)}  # startup initialised on the device, updates stay there
    np.testing.assert_allclose(lg, lc, rtol=1e-5, atol=1e-6)
    assert lg[-1] < lg[0]
    assert len(pg) == len(pc) == 4
    for g, c in zip(pg, pc):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)


@gpu
def test_scope_values_set_on_the_host_move_to_the_gpu():
    main, start, loss = _mlp_program()
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CUDAPlace(0))
    assert exe.place == paddle.CUDAPlace(0)
    xb = np.ones((2, 8), "float32")
    yb = np.zeros((2, 1), "int64")
    with paddle.static.scope_guard(scope):
        exe.run(start)
        w = main.global_block().all_parameters()[0].name
        new = np.full(scope._get(w).shape, 0.01, "float32")
        scope.find_var(w).get_tensor().set(new, paddle.CPUPlace())  # a host value in the scope
        assert scope._get(w).place == paddle.CPUPlace()
        exe.run(main, feed={"x": xb, "y": yb}, fetch_list=[loss])
        assert scope._get(w).place == paddle.CUDAPlace(0)
        # one Adam step from 0.01 moves every entry by at most the learning rate
        assert np.abs(np.array(scope._get(w)) - 0.01).max() <= 0.01 + 1e-6
        # a CPU executor on the same scope takes the values back to the host and computes the same loss
        want, = exe.run(main.clone(for_test=True), feed={"x": xb, "y": yb}, fetch_list=[loss.name])
        cpu = paddle.static.Executor(paddle.CPUPlace())
        got, = cpu.run(main.clone(for_test=True), feed={"x": xb, "y": yb}, fetch_list=[loss.name])
        assert scope._get(w).place == paddle.CPUPlace()
        np.testing.assert_allclose(got, want, rtol=1e-6)


@gpu
def test_control_flow_and_lod_on_the_gpu():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3], "float32")
        s = paddle.sum(x)
        out = paddle.static.nn.cond(s > 0, lambda: x * 2.0, lambda: x - 1.0)
        i = paddle.full([1], 0, "int64")
        acc = paddle.zeros([3], "float32")
        _, acc = paddle.static.nn.while_loop(lambda i, a: i < 4, lambda i, a: [i + 1, a + x], [i, acc])
        seq = paddle.static.data("seq", [None, 2], "float32", lod_level=1)
        pooled = paddle.static.nn.sequence_pool(seq, "sum")
        filled = paddle.full(paddle.shape(seq), 2.0)  # a shape computed on the device, read by the host
    a = np.array([1.0, -2.0, 4.0], "float32")
    b = np.array([-1.0, -2.0, 0.5], "float32")
    rows = np.arange(10, dtype="float32").reshape(5, 2)
    lod = create_lod_tensor(rows, [[2, 3]], paddle.CPUPlace())
    res = {}
    for place in (paddle.CPUPlace(), paddle.CUDAPlace(0)):
        exe = paddle.static.Executor(place)
        exe.run(start)
        res[str(place)] = [exe.run(main, feed={"x": v, "seq": lod}, fetch_list=[out, acc, pooled, filled]) for v in (a, b)]
    for (o, ac, p, f), v in zip(res["CUDAPlace(0)"], (a, b)):
        np.testing.assert_allclose(o, v * 2.0 if v.sum() > 0 else v - 1.0)
        np.testing.assert_allclose(ac, 4 * v)
        np.testing.assert_allclose(p, np.stack([rows[:2].sum(0), rows[2:].sum(0)]))
        np.testing.assert_array_equal(f, np.full((5, 2), 2.0, "float32"))
    for g, c in zip(res["CUDAPlace(0)"], res["CPUPlace"]):
        for u, w in zip(g, c):
            np.testing.assert_array_equal(u, w)


@gpu
def test_ops_that_update_their_inputs_on_the_gpu():
    """batch_norm's running statistics and auc's accumulators are written into inputs by ops that
    are not in-place ops: on the GPU (a kernel, or the host fallback copying them back) they must
    advance as on the CPU, run after run."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 3, 4, 4], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        y = paddle.static.nn.batch_norm(x, momentum=0.8)
        prob = paddle.nn.functional.softmax(paddle.static.nn.fc(paddle.flatten(y, 1), 2))
        auc, batch_auc, _ = paddle.static.auc(prob, label)
    bn = [op for op in main.global_block().ops if op.type == "batch_norm"][0]
    stats = bn.input("Mean") + bn.input("Variance")
    rng = np.random.default_rng(5)
    feeds = [{"x": rng.standard_normal((6, 3, 4, 4)).astype("float32") * 2 + 1,
              "label": rng.integers(0, 2, (6, 1)).astype("int64")} for _ in range(3)]
    res = {}
    for place in (paddle.CPUPlace(), paddle.CUDAPlace(0)):
        paddle.seed(0)
        scope = paddle.static.Scope()
        exe = paddle.static.Executor(place)
        with paddle.static.scope_guard(scope):
            exe.run(start)
            outs = [exe.run(main, feed=f, fetch_list=[auc, batch_auc]) for f in feeds]
            res[str(place)] = outs, [np.array(scope._get(n)) for n in stats]
    (oc, sc), (og, sg) = res["CPUPlace"], res["CUDAPlace(0)"]
    for c, g in zip(sc, sg):
        assert np.abs(c).max() > 0.05  # the statistics moved from their initial values
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(og, dtype="float64"), np.array(oc, dtype="float64"), rtol=1e-6)
    assert len({float(np.asarray(o[0]).reshape(-1)[0]) for o in og}) > 1  # the global auc accumulates


@gpu
def test_check_finite_and_unscale_writes_its_gradients_on_the_gpu():
    """The GradScaler's (and static AMP's) unscaling divides a Tensor[] of gradients in place."""
    paddle.disable_static()
    from paddle import _C_ops
    g = [paddle.to_tensor([2.0, 4.0], place="gpu"), paddle.to_tensor([8.0], place="gpu")]
    found = _C_ops.check_finite_and_unscale_(g, paddle.to_tensor([2.0], place="gpu"))
    assert not bool(found.numpy()[0])
    np.testing.assert_array_equal(g[0].numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(g[1].numpy(), [4.0])


def _predict(cfg, feeds):
    """Outputs of a new predictor on feeds (copy_from_cpu / run / copy_to_cpu, by Predictor.run)."""
    p = pi.create_predictor(cfg)
    return p.run([feeds[n] for n in p.get_input_names()])


@gpu
def test_static_training_on_gpu_then_save_and_serve(tmp_path):
    main, start, loss = _mlp_program()
    exe = paddle.static.Executor(paddle.CUDAPlace(0))
    scope = paddle.static.Scope()
    xb = np.random.default_rng(1).standard_normal((4, 8)).astype("float32")
    with paddle.static.scope_guard(scope):
        exe.run(start)
        exe.run(main, feed={"x": xb, "y": np.zeros((4, 1), "int64")}, fetch_list=[loss])
        x = main.global_block().var("x")
        logits = main._test_logits
        prefix = str(tmp_path / "mlp")
        paddle.static.save_inference_model(prefix, [x], [logits], exe, program=main)
        want, = exe.run(main.clone(for_test=True), feed={"x": xb}, fetch_list=[logits.name])
        # the parameters the file holds are the trained ones (read back from the GPU scope)
        w = main.global_block().all_parameters()[0].name
        assert scope._get(w).place == paddle.CUDAPlace(0)
    for use_gpu in (False, True):
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        if use_gpu:
            cfg.enable_use_gpu(100, 0)
        got, = _predict(cfg, {"x": xb})
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@gpu
def test_jit_saved_model_through_paddle_inference_on_gpu(tmp_path):
    paddle.disable_static()
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(3, 8, 3, padding=1), paddle.nn.BatchNorm2D(8), paddle.nn.ReLU(),
                               paddle.nn.MaxPool2D(2), paddle.nn.Flatten(), paddle.nn.Linear(8 * 4 * 4, 10),
                               paddle.nn.Softmax())
    net.eval()
    prefix = str(tmp_path / "net")
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 3, 8, 8], "float32", "x")])
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    outs = {}
    for use_gpu in (False, True):
        for ir in (True, False):
            cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
            cfg.switch_ir_optim(ir)
            if use_gpu:
                before = dict(_C.gpu_fallback_counts())
                cfg.enable_use_gpu(256, 0)
                assert cfg.use_gpu() and cfg.gpu_device_id() == 0 and cfg.memory_pool_init_size_mb() == 256
                assert "use_gpu" in cfg.summary() and "true" in cfg.summary()
                assert 0.0 < cfg.fraction_of_gpu_memory_for_pool() < 1.0
            else:
                cfg.disable_gpu()
            held = paddle.device.cuda.memory_allocated(0)
            pred = pi.create_predictor(cfg)
            # a GPU predictor's weights live on the device from its creation on; a CPU one allocates none
            assert (paddle.device.cuda.memory_allocated(0) > held) == use_gpu
            del pred
            outs[use_gpu, ir] = _predict(cfg, {"x": x})[0]
            np.testing.assert_allclose(outs[use_gpu, ir], want, rtol=1e-5, atol=1e-6)
    after = _C.gpu_fallback_counts()
    # no fused CPU-only op (fused_conv2d, fc, fused_elementwise_add) ever ran on the GPU predictor
    for op in ("fused_conv2d", "fc", "fused_elementwise_add"):
        assert after.get(op, 0) == before.get(op, 0), op
    np.testing.assert_allclose(outs[True, True], outs[False, True], rtol=1e-5, atol=1e-6)
    # TryShrinkMemory of a GPU predictor gives the device cache back too
    cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.enable_use_gpu(100, 0)
    pred = pi.create_predictor(cfg)
    pred.run([x])
    paddle.disable_static()
    tmp = paddle.zeros([4 << 20], "float32").cuda()  # 16 MiB: its own chunk, cached once freed
    del tmp
    held = paddle.device.cuda.memory_reserved(0)
    assert pred.try_shrink_memory() >= 16 << 20
    assert paddle.device.cuda.memory_reserved(0) <= held - (16 << 20)


@gpu
def test_to_static_training_and_jit_load_on_the_gpu(tmp_path):
    """paddle.jit programs run through the executor where the layer's parameters are: to_static
    training on the GPU gives the CPU's losses and keeps the parameters there; jit.load after
    set_device('gpu') puts the loaded parameters on the GPU."""
    paddle.disable_static()
    losses, places = {}, set()
    x = np.random.default_rng(2).standard_normal((3, 4)).astype("float32")
    for dev in ("cpu", "gpu"):
        paddle.set_device(dev)
        paddle.seed(0)
        net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
        st = paddle.jit.to_static(net)
        opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
        losses[dev] = []
        for _ in range(3):
            loss = st(paddle.to_tensor(x)).pow(2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses[dev].append(float(loss))
        places.add((dev, net[0].weight.place.is_gpu_place()))
    assert places == {("cpu", False), ("gpu", True)}
    np.testing.assert_allclose(losses["gpu"], losses["cpu"], rtol=1e-5)
    assert losses["gpu"][-1] < losses["gpu"][0]
    want = net(paddle.to_tensor(x)).numpy()
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    loaded = paddle.jit.load(str(tmp_path / "m"))
    assert all(p.place == paddle.CUDAPlace(0) for p in loaded.parameters())
    got = loaded(paddle.to_tensor(x))
    assert got.place == paddle.CUDAPlace(0)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@gpu
def test_gpu_precisions_other_than_float32_are_not_implemented():
    c = pi.Config()
    with pytest.raises(NotImplementedError, match="Float32 only"):
        c.enable_use_gpu(100, 0, pi.PrecisionType.Half)
    with pytest.raises(NotImplementedError, match="Float32 only"):
        c.enable_use_gpu(100, 0, pi.PrecisionType.Bfloat16)
    assert not c.use_gpu()
    with pytest.raises(ValueError, match="not a GPU"):
        c.enable_use_gpu(100, 1000)
    c.enable_use_gpu(100, 0)
    c.enable_cudnn()
    assert c.use_gpu() and c.cudnn_enabled()
    c.disable_gpu()
    assert not c.use_gpu() and not c.cudnn_enabled()
    with pytest.raises(ValueError, match="does not exist"):
        paddle.static.Executor(paddle.CUDAPlace(1000))
    assert paddle.static.cuda_places() == [paddle.CUDAPlace(i) for i in range(_C.cuda_device_count())]


def _fixture_cases():
    return [pytest.param(m, fc.case_names(m)[0], id=m) for m in fc.models()]


@gpu
@needs_fixtures
@pytest.mark.parametrize("model,case", _fixture_cases())
def test_fixture_models_on_gpu(model, case):
    """Each real model on the GPU predictor: Paddle Inference 2.6.2's outputs (fixture_cases.compare)
    and the CPU predictor's."""
    def cfg(use_gpu):
        c = pi.Config(*fc.files(model))
        if use_gpu:
            c.enable_use_gpu(100, 0)
        else:
            c.disable_gpu()
        return c
    g = _predict(cfg(True), fc.inputs(model, case))
    assert fc.compare(model, case, g) == []
    c = _predict(cfg(False), fc.inputs(model, case))
    for u, w in zip(g, c):
        assert u.shape == w.shape and u.dtype == w.dtype
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(u, w)
        elif w.size:
            assert float(np.abs(u.astype(np.float64) - w).max()) <= 1e-4 * max(float(np.abs(w).max()), 1e-30)


@gpu
@needs_fixtures
def test_c_api_on_gpu(tmp_path):
    """tests/c/infer_check.c (the C API alone) with INFER_CHECK_GPU=0: EnableUseGpu, UseGpu,
    GpuDeviceId, MemoryPoolInitSizeMb, CopyFromCpu into and CopyToCpu out of a GPU predictor:
    Paddle's outputs; then four clones in threads on the GPU give identical outputs."""
    inc, lib = paddle.sysconfig.get_include(), paddle.sysconfig.get_lib()
    if shutil.which("cc") is None or not os.path.exists(os.path.join(lib, "libpaddle_inference_c.so")):
        pytest.skip("no C compiler or no libpaddle_inference_c.so here (a GPU host running the bundle)")
    exe = str(tmp_path / "infer_check")
    subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Werror", "-D_GNU_SOURCE", "-I" + inc,
                    os.path.join(REPO, "tests", "c", "infer_check.c"), "-o", exe, "-L" + lib,
                    "-Wl,-rpath," + lib, "-lpaddle_inference_c", "-lpthread"], check=True)
    model = "paddleclas_mbv3_small_3cls"
    case = fc.case_names(model)[0]
    prog, params = fc.files(model)
    args = []
    for n, a in fc.inputs(model, case).items():
        p = str(tmp_path / (n + ".in"))
        np.ascontiguousarray(a).tofile(p)
        args.append(f"{n}={p}:{a.dtype}:{','.join(str(s) for s in a.shape)}")
    env = dict(os.environ, INFER_CHECK_GPU="0")
    r = subprocess.run([exe, "run", prog, params, "1", "1", str(tmp_path)] + args, capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    outs = []
    for i, line in enumerate(open(tmp_path / "outputs.txt").read().splitlines()):
        name, dt, shape = (line.split(" ") + [""])[:3]
        outs.append(np.fromfile(tmp_path / f"{i}.bin", dtype=dt).reshape([int(s) for s in shape.split(",")]))
    assert fc.compare(model, case, outs) == []
    r = subprocess.run([exe, "threads", prog, params, "4"] + args, capture_output=True, text=True, timeout=600,
                       env=env)
    assert r.returncode == 0 and r.stdout.strip() == "identical", r.stdout + r.stderr


warnings.filterwarnings("ignore", category=DeprecationWarning)
