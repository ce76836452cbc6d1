"""Paddle Inference through Paddle-C: paddle.inference (Python) and the C API (tests/c/infer_check.c,
compiled here against libpaddle_inference_c.so alone) on the real models of
../shared/fixtures/paddle_models, 3 input shapes each, IR optimisation on and off, within 1e-4 of
real Paddle Inference 2.6.2's outputs (tests/python/data/fixture_expected.npz, made by
tools/oracle/make_fixture_expected.py on the inputs of tools/oracle/fixture_cases.py); clones
in threads; bad input and a bounded fuzz of the loaders and the API's inputs; the switches."""
import json
import os
import subprocess
import sys
import tempfile
import threading

import numpy as np
import pytest

import paddle
import paddle.inference as pi
from paddle import _C

from fixture_util import fc, needs_fixtures

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXPECTED = np.load(os.path.join(HERE, "data", "fixture_expected.npz"))
with open(os.path.join(HERE, "data", "fixture_expected_fetch.json")) as f:
    FETCH = json.load(f)["fetch"]
TOL = 1e-4


def _tied_rows_aligned(got, want, name):
    """multiclass_nms3's rows [label, score, x1, y1, x2, y2] come sorted by score: two detections
    whose scores agree within the tolerance may come in either order (float noise of 1e-7 in a
    score swaps them). got's rows permuted, among neighbours of one label whose scores tie within
    TOL, to the order of want's; nothing else changes."""
    if not name.startswith("multiclass_nms") or got.ndim != 2 or got.shape[1] != 6 or got.shape != want.shape:
        return got
    tol = TOL * max(float(np.abs(want[:, 1]).max()), 1e-30)
    out, free = got.copy(), set(range(len(got)))
    for i in range(len(want)):
        cands = [j for j in range(max(0, i - 4), min(len(got), i + 5))
                 if j in free and got[j, 0] == want[i, 0] and abs(float(got[j, 1]) - float(want[i, 1])) <= tol]
        if not cands:
            return got
        j = min(cands, key=lambda j: float(np.abs(got[j].astype(np.float64) - want[i]).max()))
        free.discard(j)
        out[i] = got[j]
    return out


def compare(model, cname, outs):
    """outs: the outputs in fetch order, against Paddle Inference 2.6.2's (counts exactly)."""
    assert len(outs) == len(FETCH[model])
    for k, got in enumerate(outs):
        pre, what = f"{model}|{cname}|{k}|", f"{model} {cname} output {k} ({FETCH[model][k]})"
        got = np.asarray(got)
        if pre + "full" in EXPECTED.files:
            want = EXPECTED[pre + "full"]
            assert got.shape == want.shape, f"{what}: shape {got.shape} vs Paddle's {want.shape}"
            got = _tied_rows_aligned(got, want, FETCH[model][k])
        else:
            assert list(got.shape) == list(EXPECTED[pre + "shape"]), f"{what}: shape {got.shape}"
            scale = max(float(np.abs(EXPECTED[pre + "every"]).max()), 1e-30)
            np.testing.assert_allclose(got.astype(np.float64).sum(), float(EXPECTED[pre + "sum"]),
                                       rtol=TOL, atol=TOL * scale * got.size ** 0.5, err_msg=what)
            want = EXPECTED[pre + "every"]
            got = got.reshape(-1)[::int(EXPECTED[pre + "k"])]
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(got, want, err_msg=what)
        elif want.size:
            err = float(np.abs(got.astype(np.float64) - want).max()) / max(float(np.abs(want).max()), 1e-30)
            assert err <= TOL, f"{what}: max difference {err:.3g} of the output's scale (allowed {TOL})"


CASES = [(m, c, make) for m, (_, cases) in fc.MODELS.items() for c, make in cases]
FIX_CASES = [pytest.param(m, c, make, ir, id=f"{m}-{c}-ir{int(ir)}") for m, c, make in CASES for ir in (True, False)]


def config(model, ir=True, threads=1):
    cfg = pi.Config(*fc.paths(model))
    cfg.disable_gpu()
    cfg.switch_ir_optim(ir)
    cfg.set_cpu_math_library_num_threads(threads)
    return cfg


def run(pred, feeds):
    for n in pred.get_input_names():
        h = pred.get_input_handle(n)
        h.reshape(list(feeds[n].shape))
        h.copy_from_cpu(feeds[n])
    pred.run()
    return [pred.get_output_handle(n).copy_to_cpu() for n in pred.get_output_names()]


# ------------------------------------------------------------------------------------ names
def test_the_12_names_and_paddles_codes():
    for n in ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor", "create_predictor", "get_version",
              "get_trt_compile_version", "get_trt_runtime_version", "get_num_bytes_of_data_type", "PredictorPool"]:
        assert hasattr(pi, n), n
    # Paddle 2.6.2's values (read from the real package)
    assert {k: int(v) for k, v in pi.DataType.__members__.items()} == {
        'FLOAT64': 7, 'FLOAT32': 0, 'FLOAT16': 5, 'INT64': 1, 'INT32': 2, 'UINT8': 3, 'INT8': 4, 'BOOL': 6}
    assert {k: int(v) for k, v in pi.PlaceType.__members__.items()} == {'UNK': -1, 'CPU': 0, 'GPU': 1, 'XPU': 2,
                                                                         'CUSTOM': 4}
    assert {k: int(v) for k, v in pi.PrecisionType.__members__.items()} == {'Float32': 0, 'Int8': 1, 'Half': 2,
                                                                             'Bfloat16': 3}
    assert pi.get_trt_compile_version() == (0, 0, 0) and pi.get_trt_runtime_version() == (0, 0, 0)
    assert [pi.get_num_bytes_of_data_type(t) for t in (pi.DataType.FLOAT32, pi.DataType.INT64, pi.DataType.UINT8,
                                                       pi.DataType.FLOAT16)] == [4, 8, 1, 2]
    assert pi.get_version().startswith("version: ")


def test_config_defaults_are_paddles():
    c = pi.Config()
    assert c.ir_optim() is True
    assert c.specify_input_name() is False
    assert c.cpu_math_library_num_threads() == 1
    assert c.use_feed_fetch_ops_enabled() is False
    assert c.mkldnn_enabled() is True
    assert c.glog_info_disabled() is False
    assert c.use_gpu() is False
    assert c.memory_optim_enabled() is False
    c.enable_memory_optim()
    assert c.memory_optim_enabled() is True
    assert "ir_optim" in c.summary()


# ----------------------------------------------------------------------- the fixture models
@needs_fixtures
@pytest.mark.parametrize("model,cname,make,ir", FIX_CASES)
def test_fixture_model_python(model, cname, make, ir):
    pred = pi.create_predictor(config(model, ir))
    assert pred.get_output_names() == FETCH[model]
    compare(model, cname, run(pred, make()))


@needs_fixtures
@pytest.mark.parametrize("model", list(fc.MODELS))
def test_fixture_model_memory_optim_and_repeated_runs(model):
    """The memory plan on: the same outputs on every run, shapes changing between runs, and an output
    copied out before the next run keeps its values."""
    cfg = config(model)
    cfg.enable_memory_optim()
    pred = pi.create_predictor(cfg)
    cases = fc.MODELS[model][1]
    first = None
    for rep in range(2):
        for cname, make in cases:
            outs = run(pred, make())
            compare(model, cname, outs)
            if first is None:
                first = outs
    compare(model, cases[0][0], first)


@needs_fixtures
def test_programs_only_report_their_missing_ops():
    for name in fc.PROGRAMS_ONLY:
        path = os.path.join(fc.FIXTURES, "programs_only", name + ".pdmodel")
        with open(path, "rb") as f:
            missing = sorted(_C._unsupported_ops(paddle.static.Program.parse_from_string(f.read()).desc))
        cfg = pi.Config()
        cfg.set_prog_file(path)
        with pytest.raises(Exception) as e:
            pi.create_predictor(cfg)
        msg = str(e.value)
        if missing:
            assert "does not support" in msg and all(m in msg for m in missing), msg
        else:  # every op is there: what stops it is the absent weights
            assert "parameters" in msg and "does not support" not in msg, msg


# ------------------------------------------------------------------------------------ threads
@needs_fixtures
def test_clones_share_weights_and_agree_in_threads():
    model = "ppocr_mobile_v2_cls"
    pred = pi.create_predictor(config(model))
    feeds = fc.MODELS[model][1][1][1]()
    want = run(pred, feeds)
    clones = [pred.clone() for _ in range(4)]
    del pred  # the clones keep the weights alive
    results = [None] * len(clones)

    def work(i):
        for _ in range(3):
            results[i] = run(clones[i], feeds)

    th = [threading.Thread(target=work, args=(i,)) for i in range(len(clones))]
    for t in th:
        t.start()
    for t in th:
        t.join()
    for r in results:
        for a, b in zip(r, want):
            np.testing.assert_array_equal(a, b)
    compare(model, fc.MODELS[model][1][1][0], want)


@needs_fixtures
def test_predictor_pool():
    model = "lite_simple_conv_bn_relu"
    pool = pi.PredictorPool(config(model), 3)
    cname, make = fc.MODELS[model][1][0]
    outs = [run(pool.retrive(i), make()) for i in range(3)]
    for o in outs:
        compare(model, cname, o)
    with pytest.raises(IndexError):
        pool.retrive(3)


# ---------------------------------------------------------------------------------- bad input
@needs_fixtures
def test_bad_input_raises_with_a_message(tmp_path):
    prog, params = fc.paths("ppocr_mobile_v2_cls")
    with pytest.raises(Exception, match="cannot open|does not exist"):
        pi.create_predictor(pi.Config(str(tmp_path / "none.pdmodel"), params))
    bad = tmp_path / "bad.pdmodel"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\x0f garbage")
    with pytest.raises(Exception, match="not a valid program"):
        pi.create_predictor(pi.Config(str(bad), params))
    other = fc.paths("lite_simple_conv_bn_relu")[1]
    with pytest.raises(Exception, match="do(es)? not belong to this program"):
        pi.create_predictor(pi.Config(prog, other))
    pred = pi.create_predictor(pi.Config(prog, params))
    with pytest.raises(Exception, match="has no data"):
        pred.run()
    with pytest.raises(Exception, match="no input named"):
        pred.get_input_handle("nope")
    h = pred.get_input_handle("x")
    h.reshape([1, 4, 32, 100])  # declared [-1, 3, -1, -1] without need_check_feed: refused by the run
    h.copy_from_cpu(np.zeros([1, 4, 32, 100], "float32"))
    with pytest.raises(Exception, match="conv2d|channel"):
        pred.run()
    with pytest.raises(Exception, match="float32 in the program"):
        h.copy_from_cpu(np.zeros([1, 3, 32, 100], "int64"))
    with pytest.raises(TypeError):
        h.copy_from_cpu(np.zeros([1, 3, 32, 100], "complex64"))


# --------------------------------------------------------------------------------- switches
@needs_fixtures
def test_ir_debug_dumps_after_each_pass_and_delete_pass(tmp_path, monkeypatch):
    model = "lite_simple_conv_bn_relu"
    cfg = config(model)
    passes = cfg.pass_builder().all_passes()
    assert passes and len(set(passes)) == len(passes)
    cfg.delete_pass(passes[-1])
    assert cfg.pass_builder().all_passes() == passes[:-1]
    cfg.delete_pass("no_such_pass")  # as Paddle's: deleting what is not there changes nothing
    assert cfg.pass_builder().all_passes() == passes[:-1]
    monkeypatch.setenv("PADDLE_C_IR_DEBUG_DIR", str(tmp_path / "dbg"))
    cfg.switch_ir_debug(True)
    pred = pi.create_predictor(cfg)
    files = sorted(os.listdir(tmp_path / "dbg"))
    assert files[0] == "00_origin.pdmodel"
    stems = [f[3:-len(".pdmodel")] for f in files if f.endswith(".pdmodel")][1:]
    assert stems == passes[:-1]
    for f in files:
        if f.endswith(".pdmodel"):  # each dump is a program we (and Paddle) can read
            paddle.static.Program.parse_from_string((tmp_path / "dbg" / f).read_bytes())
    cname, make = fc.MODELS[model][1][0]
    compare(model, cname, run(pred, make()))


def test_bfloat16_says_whether_the_cpu_has_it():
    c = pi.Config()
    flags = open("/proc/cpuinfo").read()
    has = ("avx512_bf16" in flags or "amx_bf16" in flags) and os.environ.get("PADDLE_C_BF16_UNITS") != "0"
    if has:  # the convolutions run in bfloat16 (tests/python/test_bf16_conv.py)
        c.enable_mkldnn_bfloat16()
        assert c.mkldnn_bfloat16_enabled()
    else:
        with pytest.warns(RuntimeWarning, match="avx512_bf16|AMX|PADDLE_C_BF16_UNITS=0"):
            c.enable_mkldnn_bfloat16()
        assert not c.mkldnn_bfloat16_enabled()


def test_gpu_and_tensorrt_are_absent():
    c = pi.Config()
    if _C.cuda_device_count() == 0:  # with a GPU, tests/python/test_gpu_static.py runs on it
        with pytest.warns(RuntimeWarning):
            c.enable_use_gpu(100, 0)
        assert not c.use_gpu()
    with pytest.warns(RuntimeWarning):
        c.enable_tensorrt_engine()
    assert not c.tensorrt_engine_enabled()


# ------------------------------------------------------------------------------ the C API
def _lib():
    inc, lib = paddle.sysconfig.get_include(), paddle.sysconfig.get_lib()
    assert os.path.exists(os.path.join(inc, "pd_inference_api.h")), "build first (setup.py build_ext)"
    assert os.path.exists(os.path.join(lib, "libpaddle_inference_c.so"))
    return inc, lib


@pytest.fixture(scope="module")
def infer_check(tmp_path_factory):
    inc, lib = _lib()
    exe = str(tmp_path_factory.mktemp("capi") / "infer_check")
    subprocess.run(["cc", "-std=c11", "-O1", "-Wall", "-Werror", "-D_GNU_SOURCE", "-I" + inc,
                    os.path.join(REPO, "tests", "c", "infer_check.c"), "-o", exe, "-L" + lib,
                    "-Wl,-rpath," + lib, "-lpaddle_inference_c", "-lpthread"], check=True)
    return exe


def test_c_library_links_without_python(infer_check):
    ldd = subprocess.run(["ldd", infer_check], capture_output=True, text=True, check=True).stdout
    assert "libpaddle_inference_c.so" in ldd and "libpython" not in ldd, ldd
    lib = os.path.join(paddle.sysconfig.get_lib(), "libpaddle_inference_c.so")
    assert "libpython" not in subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    syms = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = [ln.split()[-1] for ln in syms.splitlines() if " T " in ln]
    assert "PD_PredictorRun" in names and all(n.startswith("PD_") for n in names), [n for n in names
                                                                                      if not n.startswith("PD_")][:5]
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(paddle.sysconfig.get_lib(), "pkgconfig"))
    pc = subprocess.run(["pkg-config", "--cflags", "--libs", "paddle_inference_c"], capture_output=True, text=True,
                        env=env, check=True).stdout.split()
    assert "-lpaddle_inference_c" in pc
    inc = [a[2:] for a in pc if a.startswith("-I")]
    assert inc and os.path.samefile(inc[0], paddle.sysconfig.get_include())


def _c_inputs(d, feeds):
    args = []
    for n, a in feeds.items():
        p = os.path.join(d, n + ".in")
        np.ascontiguousarray(a).tofile(p)
        args.append(f"{n}={p}:{a.dtype}:{','.join(str(s) for s in a.shape)}")
    return args


@needs_fixtures
@pytest.mark.parametrize("model,cname,make,ir", FIX_CASES)
def test_fixture_model_c_api(infer_check, tmp_path, model, cname, make, ir):
    prog, params = fc.paths(model)
    r = subprocess.run([infer_check, "run", prog, params, str(int(ir)), "1", str(tmp_path)] +
                       _c_inputs(str(tmp_path), make()), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    outs = []
    for i, line in enumerate(open(tmp_path / "outputs.txt").read().splitlines()):
        name, dt, shape = (line.split(" ") + [""])[:3]
        assert name == FETCH[model][i]
        dims = [int(s) for s in shape.split(",")] if shape else []
        outs.append(np.fromfile(tmp_path / f"{i}.bin", dtype=dt).reshape(dims))
    compare(model, cname, outs)


@needs_fixtures
def test_c_api_clones_in_threads(infer_check, tmp_path):
    model = "paddleclas_mbv3_small_3cls"
    prog, params = fc.paths(model)
    r = subprocess.run([infer_check, "threads", prog, params, "4"] + _c_inputs(str(tmp_path), fc.MODELS[model][1][1][1]()),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stdout.strip() == "identical", r.stdout + r.stderr


@needs_fixtures
def test_c_api_bad_input_gives_a_status(infer_check):
    prog, params = fc.paths("ppocr_mobile_v2_cls")
    r = subprocess.run([infer_check, "errors", prog, params], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "errors:" in r.stdout and int(r.stdout.split("errors:")[1].split()[0]) >= 25, r.stdout


@needs_fixtures
@pytest.mark.parametrize("model", ["lite_simple_conv_bn_relu", "blazeface_facedet"])
def test_c_api_fuzz_bounded(infer_check, model):
    """Mutated program/params bytes through PD_ConfigSetModelBuffer and random input shapes and
    dtypes: every outcome is a status (a crash or a message-less failure fails the test)."""
    prog, params = fc.paths(model)
    r = subprocess.run([infer_check, "fuzz", prog, params, "1", "60"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "fuzz:" in r.stdout


# ------------------------------------------------------------------------------------ passes
def _op_types(path):
    prog = paddle.static.Program.parse_from_string(open(path, "rb").read())
    return [op.type for op in prog.global_block().ops]


@needs_fixtures
@pytest.mark.parametrize("model", ["lite_simple_conv_bn_relu", "paddleclas_mbv3_small_3cls", "ppyolo_tiny_320"])
def test_conv_bn_fuse_pass_folds_and_keeps_outputs(model, tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_C_IR_DEBUG_DIR", str(tmp_path))
    cfg = config(model)
    cfg.switch_ir_debug(True)
    pred = pi.create_predictor(cfg)
    dumps = sorted(os.listdir(tmp_path))
    before = _op_types(tmp_path / dumps[0])
    after = _op_types(tmp_path / next(f for f in dumps if f.endswith("conv_bn_fuse_pass.pdmodel")))
    n_bn = before.count("batch_norm")
    assert n_bn and after.count("batch_norm") < n_bn
    assert after.count("elementwise_add") - before.count("elementwise_add") == n_bn - after.count("batch_norm")
    for cname, make in fc.MODELS[model][1]:
        compare(model, cname, run(pred, make()))


@needs_fixtures
@pytest.mark.parametrize("model", ["ppocr_mobile_v2_cls", "blazeface_facedet"])
def test_each_pass_deleted_keeps_outputs(model):
    passes = pi.Config().pass_builder().all_passes()
    cname, make = fc.MODELS[model][1][1]
    for p in passes:
        cfg = config(model)
        cfg.delete_pass(p)
        compare(model, cname, run(pi.create_predictor(cfg), make()))


def _save_shape_model(prefix):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3, 4, 5], "float32")
            t = paddle.transpose(paddle.transpose(x, [0, 2, 3, 1]), [0, 3, 1, 2])  # undo each other
            t = paddle.transpose(t * 2.0, [0, 1, 2, 3])  # the identity
            r = paddle.reshape(paddle.reshape(t, [-1, 60]), [-1, 6, 10])  # the first is skipped
            y = paddle.nn.functional.relu(paddle.flatten(r, 1, 1))  # flatten of one axis: nothing
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        with pytest.warns(UserWarning, match="no variable"):  # Paddle's warning: no weights
            paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()


def test_shape_op_cancel_pass(tmp_path, monkeypatch):
    prefix = str(tmp_path / "m")
    _save_shape_model(prefix)
    xv = np.random.default_rng(0).standard_normal([2, 3, 4, 5]).astype("float32")
    want = np.maximum(xv * 2, 0).reshape(2, 6, 10)
    monkeypatch.setenv("PADDLE_C_IR_DEBUG_DIR", str(tmp_path / "dbg"))
    for ir in (False, True):
        cfg = pi.Config()
        cfg.set_prog_file(prefix + ".pdmodel")  # no weights: no .pdiparams (as Paddle writes it)
        cfg.switch_ir_optim(ir)
        cfg.switch_ir_debug(True)
        got = pi.create_predictor(cfg).run([xv])[0]
        np.testing.assert_array_equal(got, want)
    dumps = sorted(os.listdir(tmp_path / "dbg"))
    before = _op_types(tmp_path / "dbg" / dumps[0])
    after = _op_types(tmp_path / "dbg" / next(f for f in dumps if f.endswith("shape_op_cancel_pass.pdmodel")))
    assert before.count("transpose2") == 3 and before.count("reshape2") == 2, before
    assert "transpose2" not in after and after.count("reshape2") == 1 and "flatten_contiguous_range" not in after, after


@needs_fixtures
def test_share_external_data_and_io_infos():
    model = "ppocr_mobile_v2_cls"
    cname, make = fc.MODELS[model][1][2]
    pred = pi.create_predictor(config(model))
    feeds = make()
    assert pred.get_input_types() == {"x": pi.DataType.FLOAT32}
    assert pred.get_input_tensor_shape()["x"][1] == 3
    h = pred.get_input_handle("x")
    buf = np.ascontiguousarray(feeds["x"])
    h.share_external_data(buf)  # no copy: the run reads buf
    assert h.shape() == list(buf.shape) and h.name() == "x" and h.type() == pi.DataType.FLOAT32
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0])
    compare(model, cname, [out.copy_to_cpu()])
    assert out.lod() == []
    buf[:] = 0  # the next run sees the caller's new values
    pred.run()
    zero = pi.create_predictor(config(model)).run([np.zeros_like(buf)])[0]
    np.testing.assert_array_equal(out.copy_to_cpu(), zero)


def test_scale_fold_pass(tmp_path, monkeypatch):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3, 8, 8], "float32")
            conv = paddle.nn.Conv2D(3, 4, 3, bias_attr=False)
            h = paddle.scale(conv(x), 0.5)
            lin = paddle.nn.Linear(36 * 4, 5, bias_attr=False)
            y = paddle.scale(lin(paddle.flatten(h, 1)), -3.0)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        prefix = str(tmp_path / "m")
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    xv = np.random.default_rng(1).standard_normal([2, 3, 8, 8]).astype("float32")
    monkeypatch.setenv("PADDLE_C_IR_DEBUG_DIR", str(tmp_path / "dbg"))
    outs = []
    for ir in (False, True):
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.switch_ir_optim(ir)
        cfg.switch_ir_debug(True)
        outs.append(pi.create_predictor(cfg).run([xv])[0])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5 * np.abs(outs[0]).max())
    dumps = sorted(os.listdir(tmp_path / "dbg"))
    before = _op_types(tmp_path / "dbg" / dumps[0])
    after = _op_types(tmp_path / "dbg" / next(f for f in dumps if f.endswith("scale_fold_pass.pdmodel")))
    # save_inference_model's identity scale went earlier; both folded scales go here
    assert before.count("scale") == 3 and after.count("scale") == 0, (before, after)
