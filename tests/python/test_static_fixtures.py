"""The real Paddle models of ../shared/fixtures/paddle_models run through our executor like
Paddle: every model with weights loads (paddle.static.load_inference_model) and runs on 3 input
shapes within 1e-4 (relative to each output's scale; counts exactly) of real Paddle Inference
2.6.2's outputs (tests/python/data/fixture_expected.npz, tools/oracle/make_fixture_expected.py,
inputs from tools/oracle/fixture_cases.py); the programs without weights (programs_only/) use
no op the executor lacks and match real Paddle on made-up weights."""
import numpy as np
import pytest

import paddle
from paddle import _C

from fixture_util import fc, needs_fixtures

TOL = 1e-4


@pytest.fixture
def static():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _compare(model, cname, outs):
    bad = fc.compare(model, cname, outs, TOL)
    assert not bad, "\n".join(bad)


FIX_CASES = [pytest.param(m, c, id=f"{m}-{c}") for m in fc.models() for c in fc.case_names(m)]


@needs_fixtures
@pytest.mark.parametrize("model,cname", FIX_CASES)
def test_fixture_model_matches_paddle_inference(static, model, cname):
    prefix = fc.files(model)[0][:-len(".pdmodel")]
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        assert [v.name if hasattr(v, "name") else v for v in fetches] == fc.fetch_names(model)
        missing = _C._unsupported_ops(prog.desc)
        assert not missing, f"{model}: the executor lacks {sorted(missing)}"
        outs = exe.run(prog, feed=fc.inputs(model, cname), fetch_list=fetches)
    _compare(model, cname, outs)


def _program(name):
    with open(fc.files(name)[0], "rb") as f:
        return paddle.static.Program.parse_from_string(f.read())


@needs_fixtures
@pytest.mark.parametrize("name", fc.programs())
def test_programs_only_use_no_missing_op(static, name):
    """The exact list of op types the executor lacks for each program without weights: none."""
    missing = sorted(_C._unsupported_ops(_program(name).desc))
    assert missing == [], f"{name}: ops Paddle-C lacks: {missing}"


PO_CASES = [pytest.param(m, c, id=f"{m}-{c}") for m in fc.programs() for c in fc.case_names(m)]


@needs_fixtures
@pytest.mark.parametrize("name,cname", PO_CASES)
def test_programs_only_match_paddle_on_made_up_weights(static, name, cname):
    prog = _program(name)
    blk = prog.global_block()
    pers = [(v.name, list(v.shape)) for v in blk.vars.values() if v.persistable and v.name not in ("feed", "fetch")]
    variances = {op.input("Variance")[0] for op in blk.ops if op.type == "batch_norm"}
    fetch = [op.input("X")[0] for op in blk.ops if op.type == "fetch"]
    assert fetch == fc.fetch_names(name)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        for n, a in fc.weights(pers, variances).items():
            scope.var(n).get_tensor().set(a, paddle.CPUPlace())
        outs = paddle.static.Executor(paddle.CPUPlace()).run(prog, feed=fc.inputs(name, cname), fetch_list=fetch)
    _compare(name, cname, outs)


def test_compare_catches_differences():
    """fc.compare (the comparison every fixture test uses) accepts Paddle's own outputs and
    rejects a wrong count, a changed integer, a float off by more than TOL of the scale, and a
    wrong sum of a subsampled output."""
    det = fc.expected("blazeface_facedet", "64x64")
    boxes, num = det[0]["full"], det[1]["full"]
    assert fc.compare("blazeface_facedet", "64x64", [boxes, num]) == []
    assert fc.compare("blazeface_facedet", "64x64", [boxes[:-1], num])        # one box fewer
    assert fc.compare("blazeface_facedet", "64x64", [boxes, num + 1])         # another count
    off = boxes.copy()
    off[3, 2] += 3 * TOL * float(abs(boxes).max())
    assert fc.compare("blazeface_facedet", "64x64", [off, num])
    near = boxes.copy()
    near[3, 2] += 0.5 * TOL * float(abs(boxes).max())
    assert fc.compare("blazeface_facedet", "64x64", [near, num]) == []
    big = fc.expected("lite_simple_conv_bn_relu", "n1")[0]
    assert "every" in big
    shape = tuple(int(v) for v in big["shape"])
    assert fc.compare("lite_simple_conv_bn_relu", "n1", [np.zeros(shape, "float32")])
    assert fc.compare("lite_simple_conv_bn_relu", "n1", [np.zeros((1, 2), "float32")])


@needs_fixtures
def test_programs_only_missing_ops_reported_together(static):
    """A real program using op types the executor lacks fails in one NotImplementedError that
    names all of them (here: two of the svtr program's types renamed to unknown ones)."""
    prog = _program("ppocrv3_svtr_rec_custom")
    for op in prog.global_block().ops:
        if op.type in ("swish", "layer_norm"):
            op.desc.set_type(op.type + "_not_an_op")
    assert sorted(_C._unsupported_ops(prog.desc)) == ["layer_norm_not_an_op", "swish_not_an_op"]
    fetch = [op.input("X")[0] for op in prog.global_block().ops if op.type == "fetch"]
    with pytest.raises(NotImplementedError, match="2 op types.*(layer_norm_not_an_op, swish_not_an_op|"
                                                   "swish_not_an_op, layer_norm_not_an_op)"):
        paddle.static.Executor(paddle.CPUPlace()).run(prog, feed=fc.inputs("ppocrv3_svtr_rec_custom", "48x96"),
                                                      fetch_list=fetch)


@needs_fixtures
@pytest.mark.parametrize("model", fc.models())
def test_one_loaded_model_runs_every_case_in_turn(static, model):
    """One loaded program and executor (plans cached per feed shapes) runs the cases one after
    another, last to first, each still matching Paddle."""
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feeds, fetches = paddle.static.load_inference_model(fc.files(model)[0][:-len(".pdmodel")], exe)
        for cname in reversed(fc.case_names(model)):
            _compare(model, cname, exe.run(prog, feed=fc.inputs(model, cname), fetch_list=fetches))
