"""The differential harness against the committed answers of real PaddlePaddle 2.6.2
(tests/conformance/expected/, recorded by `harness.py record` and tools/oracle/zero_d_apis.py),
at both API levels: FLAGS_set_to_1d off (Paddle 2.6: shapes equal the oracle's, 0-D included)
and on (the default, Paddle 2.3: [1] where 2.6 gives 0-D). Every case must agree, be both an
error, or be a documented difference (known.py, with its reason); docs/compatibility.md must be
current."""
import json
import os
import sys

import numpy as np
import pytest

import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402


@pytest.fixture(scope="module")
def evaluated():
    return harness.evaluate_levels()


@pytest.mark.parametrize("family", sorted(harness.FAMILIES))
def test_case_ids_are_unique_and_recorded(family):
    ids = [c["id"] for c in harness.FAMILIES[family]()]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)[:10]
    assert set(ids) <= set(harness.load_expected(family)), "re-record: harness.py record " + family


@pytest.mark.parametrize("level", sorted(harness.LEVELS))
@pytest.mark.parametrize("family", sorted(harness.FAMILIES))
def test_family_agrees_or_is_documented(evaluated, family, level):
    rows = evaluated[level][family]
    differ = [(c["id"], why) for c, verdict, why in rows if verdict == "differ"]
    assert not differ, f"{len(differ)} undocumented differences at the Paddle {level} level, e.g. {differ[:10]}"
    agree = sum(1 for _, verdict, _ in rows if verdict == "agree")
    assert agree >= len(rows) // 4  # the harness compares something


def test_scalar_family_agrees(evaluated):
    """Every case of the 0-D APIs that Paddle-C implements agrees at both levels (shape, dtype,
    values), except slogdet's documented [2, 1] and matrix_rank's int64 at the Paddle 2.3 level."""
    for level in harness.LEVELS:
        skip = ("slogdet", "dot|2d", "matrix_rank", "quantile") if level == "2.3" else ("quantile",)
        bad = [(c["id"], v, why) for c, v, why in evaluated[level]["scalar"]
               if v != "agree" and c["id"] not in skip]
        assert not bad, (level, bad)
        assert sum(v == "agree" for _, v, _ in evaluated[level]["scalar"]) >= 76


def test_zero_d_list_matches_the_oracle():
    """expected/zero_d_apis.json is the list of 0-D cases of expected/scalar.json, and each of them
    is [1] at the default level and 0-D with the flag off."""
    with open(os.path.join(harness.EXPECTED, "zero_d_apis.json")) as f:
        zero = json.load(f)["zero_d"]
    exp = harness.load_expected("scalar")
    assert sorted(k for k, r in exp.items() if harness._is_0d(r)) == zero
    assert len(zero) >= 60
    cases = {c["id"]: c for c in harness.scalar_cases()}
    old = paddle.get_flags("FLAGS_set_to_1d")["FLAGS_set_to_1d"]
    for level, want in (("2.6", []), ("2.3", [1])):
        paddle.set_flags({"FLAGS_set_to_1d": harness.LEVELS[level]})
        try:
            for cid in ("sum", "mean", "x[0]|1d", "to_tensor|float", "mse_loss", "accuracy", "dot"):
                assert cid in zero
                r = harness.run_case(cases[cid])
                assert r["shape"] == want, (level, cid, r)
        finally:
            paddle.set_flags({"FLAGS_set_to_1d": old})


def test_compatibility_page_is_current(evaluated):
    with open(os.path.join(harness.ROOT, "docs", "compatibility.md")) as f:
        assert f.read() == harness.report_markdown(evaluated), \
            "docs/compatibility.md is stale: run tests/conformance/harness.py report"


@pytest.mark.parametrize("family", ["unary", "functional"])
def test_low_precision_where_paddle_has_no_kernel(family):
    """Where Paddle 2.6.2's CPU build has no float16 / bfloat16 / int8 / int16 kernel (documented:
    Paddle-C computes it), Paddle-C's answer keeps the dtype (or answers Paddle's dtype for the
    wider type) and matches Paddle's float32 / int32 answer for the same input (the generated
    values are exact in each of these dtypes) within the dtype's tolerance."""
    exp = harness.load_expected(family)
    wider = {"float16": "float32", "bfloat16": "float32", "int8": "int32", "int16": "int32"}
    checked = []
    for case in harness.FAMILIES[family]():
        cid = case["id"]
        low = cid.rsplit("|", 1)[-1]
        ref = exp.get(cid.rsplit("|", 1)[0] + "|" + wider.get(low, "-"))
        if low not in wider or "error" not in exp[cid] or not isinstance(ref, dict) or "value" not in ref:
            continue
        got = harness.run_case(case)
        if isinstance(got, dict) and "error" in got:
            continue  # no kernel here either (both raise)
        assert got["dtype"] in (low, "bool", ref["dtype"]), (cid, got["dtype"])
        assert got["shape"] == ref["shape"], cid
        e, g = harness._arr(ref["value"]), harness._arr(got["value"])
        tol = harness.RTOL.get(low, harness.RTOL.get(ref["dtype"], 0.0))
        assert np.allclose(g, e, rtol=tol, atol=tol, equal_nan=True), (cid, np.max(np.abs(g - e)))
        checked.append(cid)
    assert len(checked) >= 40, checked


def test_documented_error_classes_hold(evaluated):
    """The documented error-class differences of the binary and reduction families are what
    known.py says: a mismatch of dtypes where Paddle 2.6.2 has no kernel for its key dtype (the
    second operand's, complex where one is complex: its recorded same-dtype case raises RuntimeError) and Paddle-C has one (computes it);
    std / var of int32 / int64 raise KernelNotFoundError here."""
    import known
    exp = harness.load_expected("binary")
    mism = [c for c, v, why in evaluated["2.6"]["binary"] if why == known.MISMATCH_NO_KERNEL]
    assert len(mism) >= 300
    for case in mism:
        op, a, b = case["id"].split("|")
        if "complex" in a + b:  # Paddle's key: complex wins
            b = "complex128" if "complex128" in (a, b) or "float64" in (a, b) else "complex64"
        assert exp[f"{op}|{b}|{b}"]["error"] == "RuntimeError", case["id"]
        same = dict(case, args=[dict(case["args"][0], dtype=b), dict(case["args"][1], dtype=b)])
        assert "error" not in harness.run_case(same), case["id"]
    stdint = [c["id"] for c, v, why in evaluated["2.6"]["reduction"] if why == known.STD_INT]
    assert len(stdint) == 32, stdint


def test_kernel_is_looked_up_before_the_arguments_are_checked():
    """Paddle's order (csrc/ops/runner.c paddle_kernel_key): the kernel of the key dtype first
    (y's for the elementwise ops), then the arguments. A dtype with no kernel is NotFound
    (KernelNotFoundError, a RuntimeError) even where the dtypes or shapes are wrong too."""
    x = paddle.to_tensor([[True, False, True]])
    f = paddle.to_tensor([1.5, 2.5, 3.5])
    with pytest.raises(RuntimeError, match="NotFound"):
        paddle.bitwise_and(x, f)  # no float32 bitwise_and: Paddle's RuntimeError too
    with pytest.raises(ValueError, match="same dtype"):
        paddle.bitwise_and(f.astype("int32"), x)  # both have kernels: the mismatch
    with pytest.raises(RuntimeError, match="NotFound"):
        paddle.bitwise_and(f, paddle.to_tensor([1.5, 2.5]))  # no kernel before the shapes
    with pytest.raises(ValueError):
        paddle.bitwise_and(x.astype("int32"), paddle.to_tensor([[1, 2]], dtype="int32"))  # shapes
    b = paddle.to_tensor([True, False, True])
    assert paddle.divide(b, b).dtype == paddle.float32  # true division: bool promotes, no kernel needed
    with pytest.raises(ValueError, match="same dtype"):
        paddle.divide(f, b)  # as Paddle 2.6.2 (it has a bool divide kernel)
