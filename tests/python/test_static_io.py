"""paddle.static's model files against real PaddlePaddle:

- every .pdmodel fixture (../shared/fixtures/paddle_models, programs_only/ too) parses to the
  blocks, variables and ops Paddle 2.6.2 reads (tests/python/data/static_fixture_summary.json, made
  by tools/oracle/static_fixture_summary.py), and writes back as Paddle's exact bytes;
- every .pdiparams fixture loads: all bytes accounted for, dtypes and dims equal to the VarDescs;
- save_inference_model -> load_inference_model -> Executor.run reproduces the program's outputs
  (MLP and CNN made of paddle.nn layers), also through bytes in memory and the 1.x layouts;
- models real Paddle saved (tests/python/data/static_io, made by tools/oracle/make_static_models.py)
  load and run here; models saved here load and run in real Paddle (the oracle runs in a
  subprocess when /work/oracle or $PADDLE_ORACLE_PYTHON is there);
- paddle.static.save/load, load_program_state, set_program_state, LoD in tensor streams, errors."""
import glob
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import paddle
from paddle import _C

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
OWN = os.path.join(DATA, "static_io")
SUMMARY = os.path.join(DATA, "static_fixture_summary.json")


def _find_fixtures():
    d = HERE
    for _ in range(6):
        cand = os.path.join(d, "shared", "fixtures", "paddle_models")
        if os.path.isdir(cand):
            return cand
        d = os.path.dirname(d)
    return os.environ.get("PADDLE_C_FIXTURES", "/nonexistent")


FIX = _find_fixtures()
needs_fixtures = pytest.mark.skipif(not os.path.isdir(FIX), reason="../shared/fixtures/paddle_models not present")
ORACLE = os.environ.get("PADDLE_ORACLE_PYTHON", "/work/oracle/bin/python")
needs_oracle = pytest.mark.skipif(not os.access(ORACLE, os.X_OK),
                                  reason=f"real PaddlePaddle (the oracle) not installed at {ORACLE}")

VT = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5, "float64": 6, "uint8": 20,
      "int8": 21, "bfloat16": 22, "complex64": 23, "complex128": 24}
MODELS = sorted(json.load(open(SUMMARY))["models"]) if os.path.exists(SUMMARY) else []
# from ../shared/fixtures/paddle_models/MANIFEST.md: persistable tensors and their total elements
PARAMS = {"blazeface_facedet/model": (198, 119616), "lite_simple_conv_bn_relu/model": (5, 992),
          "paddleclas_mbv3_small_3cls/inference": (214, 393069), "ppocr_mobile_v2_cls/inference": (213, 133628),
          "ppocrv3_en_det/inference": (288, 592625), "ppyolo_tiny_320/model": (358, 1024344)}


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope), paddle.utils.unique_name.guard():
        yield scope
    paddle.disable_static()


# ---------------------------------------------------------------------------------- canonical records
def _canon(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":"), allow_nan=True)


def _digest(o):
    return hashlib.sha1(_canon(o).encode()).hexdigest()[:12]


def _var_record(d):
    t = d.type()
    rec = {"name": d.name(), "type": t, "persistable": bool(d.persistable()),
           "need_check_feed": bool(d.need_check_feed()), "is_parameter": bool(d.is_parameter()),
           "stop_gradient": bool(d.stop_gradient()), "dtype": None, "shape": None, "lod_level": None}
    if t in (7, 8, 13):
        rec["dtype"] = VT[d.dtype().name]
        rec["shape"] = list(d.shape())
        if t != 8:
            rec["lod_level"] = d.lod_level()
    return rec


def _attr_value(od, n, t):
    v = od.attr(n)
    if t in (4, 12):
        return [float(x) for x in v]
    if t in (1, 15):
        return float(v)
    if t == 6:
        return bool(v)
    if t == 7:
        return [bool(x) for x in v]
    if t in (16, 17):
        return repr(v)
    return v


def _op_record(od, hidden=()):
    return {"type": od.type(), "inputs": {n: od.input(n) for n in od.input_names()},
            "outputs": {n: od.output(n) for n in od.output_names()},
            "attrs": {n: [od.attr_type(n), _attr_value(od, n, od.attr_type(n))] for n in od.attr_names()
                      if n not in hidden}}


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------------------------- fixtures
@needs_fixtures
@pytest.mark.parametrize("rel", MODELS)
def test_fixture_parses_as_paddle_reads_it(rel):
    exp = json.load(open(SUMMARY))["models"][rel]
    p = _C.program_desc_parse(_read(os.path.join(FIX, rel)))
    assert p._version() == (exp["version"] or 0)
    assert p.get_op_version_map() == exp["op_version_map"]
    assert p.num_blocks() == len(exp["blocks"])
    for bi, eb in enumerate(exp["blocks"]):
        bd = p.block(bi)
        assert (bd.id, bd.parent, bd.forward_block_idx) == (eb["idx"], eb["parent"], eb["forward_block_idx"])
        vars_ = sorted((_var_record(d) for d in bd.all_vars()), key=lambda r: r["name"])
        ops = [_op_record(bd.op(i), exp["hidden_attrs"].get(bd.op(i).type(), ())) for i in range(bd.op_size())]
        if isinstance(eb["vars"], list):  # stored in full
            assert vars_ == eb["vars"]
            assert ops == eb["ops"]
            continue
        assert {r["name"]: _digest(r) for r in vars_} == eb["vars"]
        assert len(ops) == len(eb["ops"])
        for i, (o, e) in enumerate(zip(ops, eb["ops"])):
            assert _digest(o) == e, f"op {i} differs from Paddle's reading: {_canon(o)[:2000]}"


@needs_fixtures
@pytest.mark.parametrize("rel", MODELS)
def test_fixture_writes_back_paddles_bytes(rel):
    raw = _read(os.path.join(FIX, rel))
    once = _C.program_desc_parse(raw).serialize_to_string()
    twice = _C.program_desc_parse(once).serialize_to_string()
    assert once == twice
    assert once == raw  # every optional field the file had, in the file's order


@needs_fixtures
@pytest.mark.parametrize("prefix", sorted(PARAMS))
def test_fixture_params_load(prefix, static_mode):
    exe = paddle.static.Executor()
    prog, feeds, fetches = paddle.static.load_inference_model(os.path.join(FIX, prefix), exe)
    assert feeds and fetches
    persist = [v for v in prog.list_vars() if v.persistable and v.type not in (9, 10)]
    n, numel = PARAMS[prefix]
    assert len(persist) == n
    total = 0
    for v in persist:
        t = static_mode._get(v.name)
        assert t is not None, v.name
        assert t.dtype == v.dtype and list(t.shape) == list(v.shape), v.name
        total += int(np.prod(t.shape))
    assert total == numel
    # the same walk by hand: every byte accounted for, in sorted-name order
    raw = _read(os.path.join(FIX, prefix) + ".pdiparams")
    ts = _C.tensor_stream_load(raw, prefix)
    names = sorted(v.name for v in persist)
    assert len(ts) == len(names)
    assert all(np.array_equal(np.asarray(t), np.asarray(static_mode._get(nm))) for t, nm in zip(ts, names))
    # and written back from the scope, the same bytes
    items = [static_mode._get(nm) for nm in names]
    assert _C.tensor_stream_dump(items) == raw


def _run_all_ops(exe, prog, feed, fetch, what):
    """exe.run of a program real Paddle wrote, after checking the executor has every op it uses."""
    missing = _C._unsupported_ops(prog.desc)
    assert not missing, f"{what}: the executor lacks op(s) {', '.join(sorted(missing))}"
    return exe.run(prog, feed=feed, fetch_list=fetch)


# ---------------------------------------------------------------------------------- our models
def _mlp():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        label = paddle.static.data("label", [None, 1], "int64")
        h = paddle.nn.functional.relu(paddle.nn.Linear(4, 8)(x))
        y = paddle.nn.functional.softmax(paddle.nn.Linear(8, 3)(h))
        loss = paddle.nn.functional.cross_entropy(y, label)  # not needed by the fetch: pruned
        side = paddle.nn.Linear(4, 2)(x)                     # an unused head: pruned with its weights
    return main, startup, x, y, (loss, side)


def _cnn():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("img", [None, 3, 8, 8], "float32")
        h = paddle.nn.Conv2D(3, 4, 3, padding=1)(x)
        h = paddle.nn.functional.relu(paddle.nn.BatchNorm2D(4)(h))
        h = paddle.nn.functional.max_pool2d(h, 2)
        h = paddle.nn.functional.relu(paddle.nn.Conv2D(4, 6, 3, stride=2, padding="SAME")(h))
        h = paddle.nn.functional.avg_pool2d(h, 2, ceil_mode=True)
        y = paddle.nn.Linear(6, 5)(paddle.flatten(h, 1))
    return main, startup, x, y, ()


BUILDERS = {"mlp": (_mlp, (3, 4)), "cnn": (_cnn, (2, 3, 8, 8))}


def _put(scope, name, arr, lod=None):
    """scope's variable name := arr (with lod), through Paddle's scope.var(name).get_tensor().set:
    in static mode paddle.to_tensor records a program constant (a Variable), as in Paddle 2.x."""
    t = scope.var(name).get_tensor()
    t.set(np.asarray(arr), paddle.CPUPlace())
    if lod:
        t.set_lod(lod)


def _built(name, scope):
    build, shape = BUILDERS[name]
    main, startup, x, y, extra = build()
    exe = paddle.static.Executor()
    exe.run(startup)
    for v in main.list_vars():  # batch-norm statistics away from 0/1
        if v.persistable and "batch_norm" in v.name and v.name.endswith(("w_1", "w_2")):
            cur = np.asarray(scope._get(v.name))
            _put(scope, v.name, np.random.RandomState(1).uniform(0.5, 1.5, cur.shape).astype("float32"))
    xv = np.random.RandomState(0).uniform(-1, 1, shape).astype("float32")
    feed = {x.name: xv}
    if main.global_block().has_var("label"):
        feed["label"] = np.zeros((shape[0], 1), "int64")
    ref, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[y])
    return main, exe, x, y, xv, ref, extra


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_save_load_inference_model_runs(name, tmp_path, static_mode):
    main, exe, x, y, xv, ref, _ = _built(name, static_mode)
    prefix = str(tmp_path / "m" / name)
    paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    assert os.path.isfile(prefix + ".pdmodel") and os.path.isfile(prefix + ".pdiparams")
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        assert feeds == [x.name]
        assert [f.name for f in fetches] == ["save_infer_model/scale_0.tmp_0"]
        out, = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
    np.testing.assert_array_equal(out, ref)


def test_inference_program_structure(tmp_path, static_mode):
    main, exe, x, y, xv, ref, (loss, side) = _built("mlp", static_mode)
    prefix = str(tmp_path / "mlp")
    paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    p = _C.program_desc_parse(_read(prefix + ".pdmodel"))
    b = p.block(0)
    types = [b.op(i).type() for i in range(b.op_size())]
    assert types[0] == "feed" and types[-1] == "fetch" and types[-2] == "scale"
    assert "softmax_with_cross_entropy" not in types and "cross_entropy" not in types
    assert b.op(0).input("X") == ["feed"] and b.op(0).output("Out") == ["x"] and b.op(0).attr("col") == 0
    assert b.op(b.op_size() - 1).input("X") == ["save_infer_model/scale_0.tmp_0"]
    assert b.op(b.op_size() - 1).attr("col") == 0
    sc = b.op(b.op_size() - 2)
    assert (sc.attr("scale"), sc.attr("bias"), sc.attr("bias_after_scale")) == (1.0, 0.0, True)
    feed, fetch = b.find_var("feed"), b.find_var("fetch")
    assert (feed.type(), fetch.type()) == (9, 10) and feed.persistable() and fetch.persistable()
    names = {d.name() for d in b.all_vars()}
    assert "label" not in names and side.name not in names and loss.name not in names
    persist = sorted(d.name() for d in b.all_vars() if d.persistable() and d.type() == 7)
    assert persist == ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0"]  # linear_2 pruned
    assert not any(d.is_parameter() or d.stop_gradient() for d in b.all_vars())  # training info removed
    assert not any(d._pb_has() & (4 | 8) for d in b.all_vars())
    assert p._version() == 2003000
    assert p.get_feed_target_names() == ["x"] and p.get_fetch_target_names() == ["save_infer_model/scale_0.tmp_0"]
    # the parameters file: the persistables in sorted-name order, nothing else
    items = [static_mode._get(n) for n in persist]
    assert _read(prefix + ".pdiparams") == _C.tensor_stream_dump(items)
    # the original program got the scale op (as in Paddle), the fetch ops are only in the copy
    assert main.global_block().ops[-1].type == "scale"
    assert all(op.type != "fetch" for op in main.global_block().ops)


def test_memory_forms(static_mode):
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    prog_bytes = paddle.static.serialize_program([x], [y], program=main)
    params_bytes = paddle.static.serialize_persistables([x], [y], exe, program=main)
    assert isinstance(prog_bytes, bytes) and isinstance(params_bytes, bytes)
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog = paddle.static.deserialize_program(prog_bytes)
        paddle.static.deserialize_persistables(prog, params_bytes, exe)
        fetch = prog.global_block().var(prog.desc.get_fetch_target_names()[0])
        out, = exe.run(prog, feed={"x": xv}, fetch_list=[fetch])
        np.testing.assert_array_equal(out, ref)
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, feeds, fetches = paddle.static.load_inference_model(None, exe, model_filename=prog_bytes,
                                                                  params_filename=params_bytes)
        out, = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
        np.testing.assert_array_equal(out, ref)
    with pytest.raises(ValueError, match="params_filename cannot be None"):
        paddle.static.load_inference_model(None, exe, model_filename=prog_bytes)


def test_save_to_file_load_from_file(tmp_path):
    p = str(tmp_path / "blob")
    paddle.static.save_to_file(p, b"abc\0")
    assert paddle.static.load_from_file(p) == b"abc\0"
    with pytest.raises(ValueError):
        paddle.static.save_to_file(p, "text")
    with pytest.raises(ValueError):
        paddle.static.load_from_file(str(tmp_path / "none"))


def test_normalize_program(static_mode):
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    norm = paddle.static.normalize_program(main, x, y)
    assert isinstance(norm, paddle.static.Program) and norm is not main
    assert norm.global_block().ops[0].type == "feed" and norm.global_block().ops[-1].type == "fetch"
    out, = exe.run(norm, feed={"x": xv}, fetch_list=[norm.global_block().var("save_infer_model/scale_0.tmp_0")])
    np.testing.assert_array_equal(out, ref)
    with pytest.raises(TypeError):
        paddle.static.normalize_program("main", x, y)
    with pytest.raises(TypeError):
        paddle.static.normalize_program(main, [1], y)


def test_legacy_directory_layouts(tmp_path, static_mode):
    from paddle.static import io as sio
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    prog = paddle.static.normalize_program(main, [x], [y])
    d = tmp_path / "model_dir"
    d.mkdir()
    (d / "__model__").write_bytes(prog._remove_training_info(False).desc.serialize_to_string())
    sio.save_vars(exe, str(d), main_program=prog, predicate=sio.is_persistable)
    assert sorted(os.listdir(d)) == ["__model__", "linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0"]
    fetch = "save_infer_model/scale_0.tmp_0"
    for kw in ({}, {"model_filename": None}, {"model_filename": "__model__", "params_filename": None}):
        with paddle.static.scope_guard(paddle.static.Scope()):
            p, feeds, fetches = paddle.static.load_inference_model(str(d), exe, **kw)
            assert feeds == ["x"] and fetches[0].name == fetch
            out, = exe.run(p, feed={"x": xv}, fetch_list=fetches)
            np.testing.assert_array_equal(out, ref)
    # combined parameter file (params_filename) next to the program file (model_filename)
    d2 = tmp_path / "combined"
    d2.mkdir()
    (d2 / "model").write_bytes(prog.desc.serialize_to_string())
    sio.save_vars(exe, str(d2), main_program=prog, predicate=sio.is_persistable, filename="params")
    with paddle.static.scope_guard(paddle.static.Scope()):
        p, feeds, fetches = paddle.static.load_inference_model(str(d2), exe, model_filename="model",
                                                               params_filename="params")
        out, = exe.run(p, feed={"x": xv}, fetch_list=fetches)
        np.testing.assert_array_equal(out, ref)
    with pytest.raises(ValueError, match="not supported"):
        paddle.static.load_inference_model(str(d2), exe, model_file="model")


def test_static_save_load_and_program_state(tmp_path, static_mode):
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    with paddle.static.program_guard(main, paddle.static.Program()):
        step = paddle.static.create_global_var([1], 7.0, "float32", persistable=True, name="global_step")
    _put(static_mode, "global_step", np.array([7.0], "float32"))
    prefix = str(tmp_path / "ckpt" / "model")
    paddle.static.save(main, prefix)
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        assert os.path.isfile(prefix + ext)
    params = pickle.load(open(prefix + ".pdparams", "rb"))
    assert sorted(params) == ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0", "linear_2.b_0",
                              "linear_2.w_0"]
    assert all(isinstance(v, np.ndarray) for v in params.values())
    assert list(pickle.load(open(prefix + ".pdopt", "rb"))) == [step.name]
    saved = {n: np.asarray(static_mode._get(n)).copy() for n in params}
    for n in params:  # clobber, then restore from the files
        _put(static_mode, n, np.zeros_like(saved[n]))
    _put(static_mode, "global_step", np.array([0.0], "float32"))
    paddle.static.load(main, prefix + ".pdparams", exe)
    for n in params:
        np.testing.assert_array_equal(np.asarray(static_mode._get(n)), saved[n])
    assert float(np.asarray(static_mode._get("global_step"))[0]) == 7.0
    out, = exe.run(main.clone(for_test=True), feed={"x": xv, "label": np.zeros((3, 1), "int64")}, fetch_list=[y])
    np.testing.assert_array_equal(out, ref)
    state = paddle.static.load_program_state(prefix)
    assert sorted(state) == sorted(list(params) + ["global_step"])
    for n in params:
        _put(static_mode, n, np.zeros_like(saved[n]))
    paddle.static.set_program_state(main, state)
    for n in params:
        np.testing.assert_array_equal(np.asarray(static_mode._get(n)), saved[n])
    bad = dict(state)
    bad["linear_0.w_0"] = np.zeros((2, 2), "float32")
    with pytest.raises(AssertionError, match="shape"):
        paddle.static.set_program_state(main, bad)
    with pytest.warns(UserWarning, match="not found in program"):
        paddle.static.set_program_state(main, {"nope": np.zeros(1, "float32")})
    # the .pdmodel is a program Paddle can read
    back = paddle.static.deserialize_program(_read(prefix + ".pdmodel"))
    assert back.global_block().var("linear_0.w_0").is_parameter
    with pytest.raises(ValueError, match="protocol"):
        paddle.static.save(main, prefix, protocol=5)


def test_static_load_from_variable_files(tmp_path, static_mode):
    from paddle.static import io as sio
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    d = str(tmp_path / "vars")
    sio.save_vars(exe, d, main_program=main, predicate=sio.is_persistable)
    saved = {n: np.asarray(static_mode._get(n)).copy() for n in os.listdir(d)}
    for n in saved:
        _put(static_mode, n, np.zeros_like(saved[n]))
    paddle.static.load(main, d, exe)
    for n in saved:
        np.testing.assert_array_equal(np.asarray(static_mode._get(n)), saved[n])
    state = paddle.static.load_program_state(d)
    assert sorted(state) == sorted(saved)
    with pytest.raises(ValueError, match="executor is required"):
        paddle.static.load(main, d)
    # one combined file with var_list
    params = [v for v in main.list_vars() if v.persistable]
    sio.save_vars(exe, d, main_program=main, vars=params, filename="all")
    st = paddle.static.load_program_state(os.path.join(d, "all"), var_list=params)
    assert sorted(st) == sorted(v.name for v in params)
    with pytest.raises(ValueError, match="var_list"):
        paddle.static.load_program_state(os.path.join(d, "all"))


def test_dygraph_mode_is_refused():
    paddle.disable_static()
    try:
        with pytest.raises(AssertionError, match="only supported in static graph mode"):
            paddle.static.load_inference_model("/tmp/nothing", None)
        with pytest.raises(AssertionError, match="static graph mode"):
            paddle.static.deserialize_program(b"")
    finally:
        paddle.enable_static()


def test_load_errors(tmp_path, static_mode):
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    prefix = str(tmp_path / "mlp")
    paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    with pytest.raises(ValueError, match="no directory"):
        paddle.static.load_inference_model(str(tmp_path / "missing" / "m"), exe)
    with pytest.raises(ValueError, match="no file"):
        paddle.static.load_inference_model(str(tmp_path / "other"), exe)
    with pytest.raises(ValueError, match="path_prefix"):
        paddle.static.save_inference_model(str(tmp_path) + "/", [x], [y], exe, program=main)
    with pytest.raises(ValueError, match="feed_vars"):
        paddle.static.save_inference_model(prefix, [], [y], exe, program=main)
    params = _read(prefix + ".pdiparams")
    model = _read(prefix + ".pdmodel")
    for bad, what in ((params[:-3], "truncated"), (params + b"\0" * 8, "bytes are left"),
                      (params[:len(params) // 2], "truncated")):
        open(prefix + ".pdiparams", "wb").write(bad)
        with pytest.raises(ValueError):
            paddle.static.load_inference_model(prefix, exe)
    open(prefix + ".pdiparams", "wb").write(params)
    open(prefix + ".pdmodel", "wb").write(model[:len(model) // 2])
    with pytest.raises(ValueError, match="program_desc"):
        paddle.static.load_inference_model(prefix, exe)
    # a parameter file of another model: dims differ from the VarDescs
    p = _C.program_desc_parse(model)
    p.block(0).find_var("linear_0.w_0").set_shape([5, 8])
    open(prefix + ".pdmodel", "wb").write(p.serialize_to_string())
    with pytest.raises(ValueError, match="linear_0.w_0"):
        paddle.static.load_inference_model(prefix, exe)
    # a feed variable the fetches do not need
    with pytest.raises(ValueError, match="doesn't exist in pruned inference program"):
        paddle.static.save_inference_model(str(tmp_path / "m2"), [x, main.global_block().var("label")], [y], exe,
                                           program=main)


def test_lod_tensor_stream():
    raw = _read(os.path.join(OWN, "lod_tensor.bin"))  # written by real Paddle
    meta = json.load(open(os.path.join(OWN, "meta.json")))
    (t, lod), = _C.tensor_stream_load(raw, "lod_tensor.bin", with_lod=True)
    assert lod == meta["lod_tensor_lod"]
    np.testing.assert_array_equal(np.asarray(t), np.load(os.path.join(OWN, "expected.npz"))["lod_tensor"])
    assert _C.tensor_stream_dump([(t, lod)]) == raw
    assert _C.tensor_stream_load(raw, "x")[0].shape == [6, 2]  # the plain form skips the LoD
    with pytest.raises(ValueError, match="LoD level 1 ends at 5"):
        _C.tensor_stream_dump([(t, [[0, 2, 3], [0, 1, 4, 5]])])
    bad = bytearray(raw)
    bad[4 + 8 + 8 + 8] = 9  # first level's second offset (2 -> 9) runs past the next level
    with pytest.raises(ValueError, match="LoD"):
        _C.tensor_stream_load(bytes(bad), "bad")
    tensors, end = _C.tensor_stream_load(raw + raw, "two", count=1)
    assert len(tensors) == 1 and end == len(raw)


def test_lod_survives_save_and_load(tmp_path, static_mode):
    from paddle.static import io as sio
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        v = paddle.static.create_global_var([6, 2], 0.0, "float32", persistable=True, name="seq_state")
    arr = np.arange(12, dtype="float32").reshape(6, 2)
    _put(static_mode, "seq_state", arr, [[0, 2, 6]])
    sio.save_vars(None, str(tmp_path), main_program=main, vars=[v])
    sio.save_vars(None, str(tmp_path), main_program=main, vars=[v], filename="combined")
    for fn in (None, "combined"):
        with paddle.static.scope_guard(paddle.static.Scope()) :
            sio.load_vars(None, str(tmp_path), main_program=main, vars=[v], filename=fn)
            sc = paddle.static.global_scope()
            assert sc._core._get_lod("seq_state") == [[0, 2, 6]]
            np.testing.assert_array_equal(np.asarray(sc._get("seq_state")), arr)


def test_program_attribute_types_roundtrip():
    prog = paddle.static.Program()
    b = prog.global_block()
    b.create_var(name="a", shape=[2, -1], dtype="float64", lod_level=1)
    sub = prog._create_block()
    prog._rollback()
    op = b.append_op(type="custom_thing", inputs={"X": ["a"]}, outputs={"Out": ["a"]}, attrs={})
    d = op.desc
    d._set_attr("i", 3, 0)
    d._set_attr("f", 0.1, 1)
    d._set_attr("s", "text", 2)
    d._set_attr("ints", [1, -2], 3)
    d._set_attr("floats", [0.5, 0.1], 4)
    d._set_attr("strs", ["p", "q"], 5)
    d._set_attr("b", True, 6)
    d._set_attr("bools", [True, False], 7)
    d._set_attr("blk", sub.desc, 8)
    d._set_attr("l", 2 ** 40, 9)
    d._set_attr("blks", [sub.desc], 10)
    d._set_attr("longs", [2 ** 40, -1], 11)
    d._set_attr("f64s", [0.1, 1e300], 12)
    d._set_attr("var", "a", 13)
    d._set_attr("vars", ["a", "a"], 14)
    d._set_attr("f64", 0.1, 15)
    d._set_attr("sc", 2.5, 16)
    d.set_is_target(True)
    raw = prog.desc.serialize_to_string()
    p = _C.program_desc_parse(raw)
    assert p.serialize_to_string() == raw
    od = p.block(0).op(0)
    got = {n: (od.attr_type(n), od.attr(n)) for n in od.attr_names()}
    assert got["i"] == (0, 3) and got["f"] == (1, float(np.float32(0.1))) and got["s"] == (2, "text")
    assert got["ints"] == (3, [1, -2]) and got["strs"] == (5, ["p", "q"]) and got["b"] == (6, True)
    assert got["bools"] == (7, [True, False]) and got["blk"] == (8, 1) and got["l"] == (9, 2 ** 40)
    assert got["blks"] == (10, [1]) and got["longs"] == (11, [2 ** 40, -1]) and got["f64s"] == (12, [0.1, 1e300])
    assert got["var"] == (13, "a") and got["vars"] == (14, ["a", "a"]) and got["f64"] == (15, 0.1)
    assert got["sc"] == (16, 2.5)
    assert od.is_target()
    a = p.block(0).find_var("a")
    assert a.shape() == [2, -1] and a.dtype().name == "float64" and a.lod_level() == 1
    assert p.block(1).parent == 0
    # an INT attribute that does not fit int32 cannot be written
    d._set_attr("i", 2 ** 40, 0)
    with pytest.raises(ValueError, match="int32"):
        prog.desc.serialize_to_string()


# ---------------------------------------------------------------------------------- real Paddle's files
@pytest.mark.parametrize("name,path", [("mlp", "mlp/inference"), ("cnn", "cnn/inference"), ("mlp", "mlp_1x")])
def test_models_saved_by_paddle_run_here(name, path, static_mode):
    exp = np.load(os.path.join(OWN, "expected.npz"))
    exe = paddle.static.Executor()
    prog, feeds, fetches = paddle.static.load_inference_model(os.path.join(OWN, path), exe)
    assert feeds == json.load(open(os.path.join(OWN, "meta.json")))[name]["feed"]
    assert len(fetches) == 1 and fetches[0].name.startswith("save_infer_model/scale_0.tmp_")
    out, = _run_all_ops(exe, prog, {feeds[0]: exp[f"{name}_x"]}, fetches, f"{name} saved by Paddle 2.6.2")
    np.testing.assert_allclose(out, exp[f"{name}_y"], rtol=1e-5, atol=1e-5)


ORACLE_RUN = textwrap.dedent("""
    import json, sys, numpy as np, paddle
    from paddle.base.framework import OpProtoHolder
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())

    def bad_ops(prog):
        bad = []
        for op in prog.global_block().ops:
            if op.type in ("feed", "fetch"):
                continue
            why = []
            try:
                proto = OpProtoHolder.instance().get_op_proto(op.type)
                ins = {v.name for v in proto.inputs}
                outs = {v.name for v in proto.outputs}
                why += ["input " + n for n in op.desc.input_names() if n not in ins]
                why += ["output " + n for n in op.desc.output_names() if n not in outs]
                op.desc.check_attrs()
            except Exception as e:
                why.append(str(e).splitlines()[0][:120])
            if why and op.type not in [b[0] for b in bad]:
                bad.append((op.type, why))
        return bad

    res = {}
    for name, prefix, xfile in json.loads(sys.argv[1]):
        try:
            with paddle.static.scope_guard(paddle.static.Scope()):
                prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
                out, = exe.run(prog, feed={feeds[0]: np.load(xfile)}, fetch_list=fetches)
            np.save(prefix + ".oracle.npy", out)
            res[name] = "ok"
        except Exception as e:
            try:
                bad = bad_ops(prog)
            except Exception:
                bad = []
            res[name] = "%s: %s | BADOPS %s" % (type(e).__name__, str(e)[:500], json.dumps(bad))
    print("RESULT " + json.dumps(res))
""")


def _run_oracle(code, *args):
    """Runs code with real Paddle in a subprocess: from an empty directory, without our paddle on the path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "LD_PRELOAD", "PYTHONMALLOC")}
    env["PYTHONNOUSERSITE"] = "1"
    with tempfile.TemporaryDirectory(prefix="oracle_") as work:
        return subprocess.run([ORACLE, "-c", code, *args], cwd=work, capture_output=True, text=True, timeout=600,
                              env=env)


@pytest.fixture(scope="module")
def oracle_results(tmp_path_factory):
    """Our MLP and CNN, saved here, loaded and run by real Paddle in one subprocess."""
    if not os.access(ORACLE, os.X_OK):
        pytest.skip(f"real PaddlePaddle (the oracle) not installed at {ORACLE}")
    root = tmp_path_factory.mktemp("to_oracle")
    jobs, refs = [], {}
    paddle.enable_static()
    try:
        for name in ("mlp", "cnn"):
            scope = paddle.static.Scope()
            with paddle.static.scope_guard(scope), paddle.utils.unique_name.guard():
                main, exe, x, y, xv, ref, _ = _built(name, scope)
                prefix = str(root / name / "inference")
                paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
            np.save(str(root / f"{name}_x.npy"), xv)
            refs[name] = ref
            jobs.append([name, prefix, str(root / f"{name}_x.npy")])
    finally:
        paddle.disable_static()
    r = _run_oracle(ORACLE_RUN, json.dumps(jobs))
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, f"the oracle failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    res = json.loads(line[-1][7:])
    return {n: (res[n], refs[n], p + ".oracle.npy") for n, p, _ in jobs}


@needs_oracle
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_paddle_runs_models_saved_here(name, oracle_results):
    status, ref, out_file = oracle_results[name]
    if status != "ok":
        pytest.fail(f"real Paddle could not run the {name} saved here: {status[:2000]}")
    np.testing.assert_allclose(np.load(out_file), ref, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------- fixtures run like Paddle
def _fixture_feeds(prog, feeds, seed):
    rng = np.random.RandomState(seed)
    out = {}
    for n in feeds:
        shape = list(prog.global_block().var(n).shape)
        if n == "im_shape":
            out[n] = np.array([[64, 64]], "float32")
        elif n == "scale_factor":
            out[n] = np.array([[1, 1]], "float32")
        else:
            out[n] = rng.uniform(-1, 1, [1 if i == 0 and d < 0 else (64 if d < 0 else d)
                                         for i, d in enumerate(shape)]).astype("float32")
    return out


ORACLE_FIXTURES = textwrap.dedent("""
    import json, sys, numpy as np, paddle
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    res = {}
    for key, prefix, npz in json.loads(sys.argv[1]):
        try:
            with paddle.static.scope_guard(paddle.static.Scope()):
                prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
                data = np.load(npz)
                outs = exe.run(prog, feed={n: data[n] for n in feeds}, fetch_list=fetches)
            np.savez(npz[:-4] + ".oracle.npz", *outs)
            res[key] = "ok"
        except Exception as e:
            res[key] = "%s: %s" % (type(e).__name__, str(e)[:500])
    print("RESULT " + json.dumps(res))
""")


@pytest.fixture(scope="module")
def fixture_oracle_outputs(tmp_path_factory):
    """Real Paddle's outputs for every fixture with weights, on the inputs _fixture_feeds makes."""
    if not os.access(ORACLE, os.X_OK):
        pytest.skip(f"real PaddlePaddle (the oracle) not installed at {ORACLE}")
    if not os.path.isdir(FIX):
        pytest.skip("../shared/fixtures/paddle_models not present")
    root = tmp_path_factory.mktemp("fixture_runs")
    jobs = []
    paddle.enable_static()
    try:
        for i, prefix in enumerate(sorted(PARAMS)):
            with paddle.static.scope_guard(paddle.static.Scope()):
                prog, feeds, _ = paddle.static.load_inference_model(os.path.join(FIX, prefix), paddle.static.Executor())
            npz = str(root / f"in{i}.npz")
            np.savez(npz, **_fixture_feeds(prog, feeds, i))
            jobs.append([prefix, os.path.join(FIX, prefix), npz])
    finally:
        paddle.disable_static()
    r = _run_oracle(ORACLE_FIXTURES, json.dumps(jobs))
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, f"the oracle failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    res = json.loads(line[-1][7:])
    return {k: (res[k], npz) for k, _, npz in jobs}


@needs_oracle
@needs_fixtures
@pytest.mark.parametrize("prefix", sorted(PARAMS))
def test_fixture_runs_like_paddle(prefix, fixture_oracle_outputs, static_mode):
    status, npz = fixture_oracle_outputs[prefix]
    assert status == "ok", f"real Paddle could not run {prefix}: {status}"
    exe = paddle.static.Executor()
    prog, feeds, fetches = paddle.static.load_inference_model(os.path.join(FIX, prefix), exe)
    data = np.load(npz)
    outs = _run_all_ops(exe, prog, {n: data[n] for n in feeds}, fetches, prefix)
    want = np.load(npz[:-4] + ".oracle.npz")
    for k, got in enumerate(outs):
        exp = want[f"arr_{k}"]
        assert got.shape == exp.shape
        np.testing.assert_allclose(got, exp, rtol=1e-3, atol=1e-4 * max(1.0, float(np.abs(exp).max())))


ORACLE_STATE = textwrap.dedent("""
    import json, sys, numpy as np, paddle
    paddle.enable_static()
    prefix = sys.argv[1]
    state = paddle.static.load_program_state(prefix)
    np.savez(prefix + ".oracle_state.npz", **state)
    prog = paddle.static.Program.parse_from_string(open(prefix + ".pdmodel", "rb").read())
    params = sorted(p.name for p in prog.all_parameters())
    print("RESULT " + json.dumps({"params": params, "ops": [op.type for op in prog.global_block().ops]}))
""")


@needs_oracle
def test_paddle_reads_static_save_files(tmp_path, static_mode):
    main, exe, x, y, xv, ref, _ = _built("mlp", static_mode)
    prefix = str(tmp_path / "ckpt")
    paddle.static.save(main, prefix)
    r = _run_oracle(ORACLE_STATE, prefix)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert line, f"the oracle failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    res = json.loads(line[-1][7:])
    params = sorted(v.name for v in main.list_vars() if v.is_parameter)
    assert res["params"] == params
    assert res["ops"] == [op.type for op in main.global_block().ops]
    state = np.load(prefix + ".oracle_state.npz")
    assert sorted(state.files) == params
    for n in params:
        np.testing.assert_array_equal(state[n], np.asarray(static_mode._get(n)))
