"""The real Paddle models of ../shared/fixtures/paddle_models run through our executor like
Paddle: every model with weights loads (paddle.static.load_inference_model) and runs on 3 input
shapes within 1e-4 (relative to each output's scale; counts exactly) of real Paddle Inference
2.6.2's outputs (tests/python/data/fixture_expected.npz, tools/oracle/make_fixture_expected.py,
inputs from tools/oracle/fixture_cases.py); the programs without weights (programs_only/) use
no op the executor lacks and match real Paddle on made-up weights."""
import importlib.util
import json
import os

import numpy as np
import pytest

import paddle
from paddle import _C

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("fixture_cases", os.path.join(REPO, "tools", "oracle", "fixture_cases.py"))
fc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fc)
EXPECTED = np.load(os.path.join(HERE, "data", "fixture_expected.npz"))
with open(os.path.join(HERE, "data", "fixture_expected_fetch.json")) as f:
    FETCH = json.load(f)["fetch"]
needs_fixtures = pytest.mark.skipif(not os.path.isdir(fc.FIXTURES), reason="../shared/fixtures/paddle_models not present")
TOL = 1e-4


@pytest.fixture
def static():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _compare(model, cname, outs):
    assert len(outs) == len(FETCH[model])
    for k, got in enumerate(outs):
        pre, what = f"{model}|{cname}|{k}|", f"{model} {cname} output {k} ({FETCH[model][k]})"
        got = np.asarray(got)
        if pre + "full" in EXPECTED.files:
            want = EXPECTED[pre + "full"]
            assert got.shape == want.shape, f"{what}: shape {got.shape} vs Paddle's {want.shape}"
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


FIX_CASES = [pytest.param(m, c, make, id=f"{m}-{c}") for m, (_, cases) in fc.MODELS.items() for c, make in cases]


@needs_fixtures
@pytest.mark.parametrize("model,cname,make", FIX_CASES)
def test_fixture_model_matches_paddle_inference(static, model, cname, make):
    prefix = fc.paths(model)[0][:-len(".pdmodel")]
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        assert [v.name if hasattr(v, "name") else v for v in fetches] == FETCH[model]
        missing = _C._unsupported_ops(prog.desc)
        assert not missing, f"{model}: the executor lacks {sorted(missing)}"
        outs = exe.run(prog, feed=make(), fetch_list=fetches)
    _compare(model, cname, outs)


def _program(name):
    with open(fc.program_path(name), "rb") as f:
        return paddle.static.Program.parse_from_string(f.read())


@needs_fixtures
@pytest.mark.parametrize("name", sorted(fc.PROGRAMS_ONLY))
def test_programs_only_use_no_missing_op(static, name):
    """The exact list of op types the executor lacks for each program without weights: none."""
    missing = sorted(_C._unsupported_ops(_program(name).desc))
    assert missing == [], f"{name}: ops Paddle-C lacks: {missing}"


PO_CASES = [pytest.param(m, c, make, id=f"{m}-{c}") for m, cases in fc.PROGRAMS_ONLY.items() for c, make in cases]


@needs_fixtures
@pytest.mark.parametrize("name,cname,make", PO_CASES)
def test_programs_only_match_paddle_on_made_up_weights(static, name, cname, make):
    prog = _program(name)
    blk = prog.global_block()
    pers = [(v.name, list(v.shape)) for v in blk.vars.values() if v.persistable and v.name not in ("feed", "fetch")]
    variances = {op.input("Variance")[0] for op in blk.ops if op.type == "batch_norm"}
    fetch = [op.input("X")[0] for op in blk.ops if op.type == "fetch"]
    assert fetch == FETCH[name]
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        for n, a in fc.weights(pers, variances).items():
            scope.var(n).get_tensor().set(a, paddle.CPUPlace())
        outs = paddle.static.Executor(paddle.CPUPlace()).run(prog, feed=make(), fetch_list=fetch)
    _compare(name, cname, outs)
