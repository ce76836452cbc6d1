"""The differential harness (issue 23): generated cases over Paddle's public functions, run the
same way in Paddle-C and in real PaddlePaddle 2.6.2. This module imports only numpy and paddle,
so it runs in either environment:

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/repo/tests/conformance/harness.py record
        (real Paddle: writes tests/conformance/expected/<family>.json)
    PYTHONPATH=/path/to/repo/python python3 /path/to/repo/tests/conformance/harness.py report
        (ours against the expected files: writes docs/compatibility.md)

tests/conformance/test_conformance.py compares ours with the committed expected files (CI has no
real Paddle). A family is a function returning cases; add one to FAMILIES to extend the harness.
A case is {"id", "api", "args": [input specs], "kwargs"}; an input spec is a tensor
{"shape", "dtype", "seed"[, "low", "high"]}, or {"py": value} for a Python number. The families
of tools/oracle/api_cases.py (unary, manipulation, search, creation, functional, linalg) add
input specs and case options (see there). Every family compares exception classes: a case where
both raise agrees when ours is Paddle's class or a subclass of it."""
import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPECTED = os.path.join(HERE, "expected")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
INTS = {"uint8", "int8", "int16", "int32", "int64"}
FLOATS = {"float16", "bfloat16", "float32", "float64"}
COMPLEX = {"complex64", "complex128"}
# relative tolerance by result dtype
RTOL = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-5, "float64": 1e-10, "complex64": 2e-5,
        "complex128": 1e-10}


# ---------------------------------------------------------------- case families
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "maximum",
          "minimum", "fmax", "fmin", "equal", "not_equal", "less_than", "greater_equal",
          "logical_and", "bitwise_and"]
# ops whose second input should stay away from zero
NONZERO_Y = {"divide", "floor_divide", "remainder"}
OPERATORS = {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "//": "__floordiv__",
             "%": "__mod__", "**": "__pow__", "<": "__lt__", "==": "__eq__"}


def _tensor(shape, dtype, seed, low=None, high=None):
    return {"shape": list(shape), "dtype": dtype, "seed": seed, "low": low, "high": high}


def binary_cases():
    """Tensor-tensor over every dtype pair (x [2, 3] with y [3]: broadcasting), for the paddle
    functions and the operators, and tensor-scalar with int, float and bool numbers."""
    cases = []
    for op in BINARY:
        for a in DTYPES:
            for b in DTYPES:
                low = 1 if op in NONZERO_Y else None
                cases.append({"id": f"{op}|{a}|{b}", "api": f"paddle.{op}",
                              "args": [_tensor([2, 3], a, 1), _tensor([3], b, 2, low=low)], "kwargs": {}})
    for sym, meth in OPERATORS.items():
        for a in DTYPES:
            for b in DTYPES:
                low = 1 if sym in ("/", "//", "%") else None
                cases.append({"id": f"x{sym}y|{a}|{b}", "api": f"Tensor.{meth}",
                              "args": [_tensor([2, 3], a, 3), _tensor([3], b, 4, low=low)], "kwargs": {}})
            for name, v in (("int", 2), ("float", 1.5), ("bool", True)):
                cases.append({"id": f"x{sym}{name}|{a}", "api": f"Tensor.{meth}",
                              "args": [_tensor([2, 3], a, 5), {"py": v}], "kwargs": {}})
    return cases


REDUCTIONS = ["sum", "mean", "prod", "max", "min", "amax", "amin", "all", "any", "logsumexp", "std",
              "var", "argmax", "argmin", "nansum", "count_nonzero"]


def reduction_cases():
    """Reductions over every dtype, axis None / 0 / -1 / [0, 2], keepdim False / True."""
    cases = []
    for op in REDUCTIONS:
        for dt in DTYPES:
            for axis in (None, 0, -1, [0, 2]):
                for keep in (False, True):
                    if op in ("argmax", "argmin") and isinstance(axis, list):
                        continue
                    cases.append({"id": f"{op}|{dt}|{axis}|{keep}", "api": f"paddle.{op}",
                                  "args": [_tensor([2, 3, 4], dt, 7)],
                                  "kwargs": {"axis": axis, "keepdim": keep}})
    return cases


def scalar_cases():
    """The APIs whose result is 0-D in Paddle 2.6 (tools/oracle/zero_d_apis.py)."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "oracle"))
    import zero_d_apis
    return zero_d_apis.cases()


def loss_cases():
    """The losses of Paddle 2.4-2.6 with gradients, Layer forms and error cases
    (tools/oracle/loss_cases.py)."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "oracle"))
    import loss_cases as lc
    return lc.cases()


FAMILIES = {"binary": binary_cases, "reduction": reduction_cases, "scalar": scalar_cases, "loss": loss_cases}


def _api_families():
    """unary, manipulation, search, creation, functional, linalg (tools/oracle/api_cases.py)."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "oracle"))
    import api_cases
    return api_cases.FAMILIES


FAMILIES.update(_api_families())


# ---------------------------------------------------------------- running a case
def _is_spec(v):
    return isinstance(v, tuple) or (isinstance(v, dict) and bool({"shape", "data", "list", "mat", "py"} & set(v)))


def _make_input(spec):
    import paddle
    if isinstance(spec, tuple):
        return tuple(_make_input(s) for s in spec)
    if "py" in spec:
        return spec["py"]
    if "list" in spec:
        return [_make_input(s) for s in spec["list"]]
    if "data" in spec:
        a = np.array(spec["data"], dtype="float64" if spec["dtype"] != "bool" else "bool")
        return paddle.to_tensor(a).astype(spec["dtype"])
    if "mat" in spec:  # a symmetric positive definite matrix
        m = np.random.RandomState(spec["seed"]).uniform(-1.0, 1.0, (spec["n"], spec["n"]))
        return paddle.to_tensor(m @ m.T + spec["n"] * np.eye(spec["n"])).astype(spec["dtype"])
    rng = np.random.RandomState(spec["seed"])
    dt, shape = spec["dtype"], spec["shape"]
    if spec.get("nc"):  # made with the axes reversed, then transposed back: a non-contiguous view
        t = _make_input(dict(spec, nc=False, shape=list(shape)[::-1]))
        return paddle.transpose(t, list(range(len(shape)))[::-1])
    if spec.get("distinct"):  # distinct values (sorting without ties)
        a = rng.permutation(int(np.prod(shape))).reshape(shape) - int(np.prod(shape)) // 2
        return paddle.to_tensor(a.astype("float64")).astype(dt)
    if dt == "bool":
        a = rng.rand(*shape) > 0.5
    elif dt in INTS:
        lo = spec["low"] if spec["low"] is not None else (0 if dt == "uint8" else -5)
        a = rng.randint(lo, 6 if spec.get("high") is None else spec["high"], size=shape)
        if spec["low"] is None and dt != "uint8":
            a[a == 0] = 3
    else:
        lo = spec["low"] if spec["low"] is not None else -2.0
        a = rng.uniform(lo, 2.0 if spec.get("high") is None else spec["high"], size=shape)
        if dt in COMPLEX:
            a = a + 1j * rng.uniform(-2.0, 2.0, size=shape)
        a = np.round(a * 4) / 4 + 0.125  # exactly representable in every float dtype
    t = paddle.to_tensor(a.astype("complex128" if dt in COMPLEX else "float64" if dt in FLOATS else a.dtype))
    return t.astype(dt)


def _resolve(api):
    import paddle
    if api.startswith("Tensor.") and not api.startswith("Tensor.__"):
        return getattr(paddle.Tensor, api.split(".", 1)[1])
    obj = paddle
    for part in api.split(".")[1:]:
        obj = getattr(paddle.Tensor if obj is paddle and part.startswith("__") else obj, part)
    return obj


def _encode(r):
    import paddle
    if isinstance(r, (tuple, list)):
        return [_encode(v) for v in r]
    if not isinstance(r, paddle.Tensor):
        return {"py": repr(r)}
    dt = str(r.dtype).replace("paddle.", "")
    a = r.astype("float32").numpy() if dt == "bfloat16" else r.numpy()
    a = np.asarray(a)
    if dt in COMPLEX:
        vals = [[_num(v.real), _num(v.imag)] for v in a.ravel()]
    else:
        vals = [_num(v) for v in a.astype("float64").ravel()]
    return {"dtype": dt, "shape": list(r.shape), "value": vals}


def _num(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def run_case(case):
    """What a case gives: an encoded result, or {"error": exception class name}. A case may name
    the arguments to differentiate ("grad": indices; the result is then [value, gradients...],
    None for an argument that gets no gradient, after backpropagating the result's sum), a Layer
    to construct first ("init": its keyword arguments; args go to forward), and tensor specs among
    its keyword arguments. "pre" / "after" (code run before the inputs are made / after the case,
also when it raised: global state), "gseed" (paddle.seed just before the call), "post" (an
expression of r and args whose value is compared instead of r: Python answers, statistics) and
"call" (an expression of args evaluated instead of calling api, which names the row),
"inplace": "same" (the result, the input after the call and whether the result is the input)."""
    try:
        import paddle
        if "pre" in case:
            exec(case["pre"], {"paddle": paddle, "np": np})
        args = [_make_input(s) for s in case["args"]]
        grad = case.get("grad") or []
        for i in grad:
            for t in (args[i] if isinstance(args[i], list) else [args[i]]):
                t.stop_gradient = False
        kwargs = {k: _make_input(v) if _is_spec(v) else v for k, v in case["kwargs"].items()}
        fn = None if "call" in case else _resolve(case["api"])
        if "init" in case:
            fn = fn(**case["init"])
            if case.get("eval"):
                fn.eval()
        if "gseed" in case:  # the global generator's seed, just before the call
            paddle.seed(case["gseed"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if "call" in case:  # an expression of args (and paddle) instead of calling api
                r = eval(case["call"], {"paddle": paddle, "np": np, "args": args})
            elif case["api"].startswith("Tensor."):
                r = getattr(args[0], case["api"].split(".", 1)[1])(*args[1:], **kwargs)
            else:
                r = fn(*args, **kwargs)
        if r is NotImplemented:
            return {"error": "TypeError"}
        if "pick" in case:
            r = r[case["pick"]]
        if grad:
            paddle.sum(r[0] if isinstance(r, (tuple, list)) else r).backward()
            return [_encode(r)] + [_encode_grad(args[i]) for i in grad]
        if "post" in case:  # what to compare: an expression of the result r and the inputs args
            return _encode(eval(case["post"], {"paddle": paddle, "np": np, "r": r, "args": args}))
        if case.get("inplace") == "same":  # also: the result is the input object itself
            return [_encode(r), _encode(args[0]), {"py": repr(r is args[0])}]
        if case.get("inplace"):
            return [_encode(r), _encode(args[0])]
        if case.get("view"):
            before = _encode(r)
            args[0].zero_()
            return [before, _encode(r)]
        return _encode(r)
    except Exception as e:  # noqa: BLE001  (the exception class is the answer)
        return {"error": type(e).__name__, "bases": [c.__name__ for c in type(e).__mro__[1:-2]]}
    finally:
        if "after" in case:  # restores global state (default dtype, flags)
            import paddle
            exec(case["after"], {"paddle": paddle, "np": np})


def _encode_grad(a):
    if isinstance(a, list):
        return [_encode_grad(t) for t in a]
    return _encode(a.grad) if a.grad is not None else {"py": "None"}


# ---------------------------------------------------------------- comparing
def _arr(vals):
    out = []
    for v in vals:
        if isinstance(v, list):
            out.append(complex(_f(v[0]), _f(v[1])))
        else:
            out.append(_f(v))
    return np.array(out)


def _f(v):
    return float(v) if not isinstance(v, str) else float(v.replace("nan", "nan"))


def compare(exp, got, set_to_1d=False):
    """'agree', 'agree_0d', 'both_error' (the caller compares the exception classes) or a short
    reason for the difference ("paddle raises X": Paddle raises where we answer; "we raise X":
    the other way round). At the Paddle 2.6
    API level (set_to_1d False) shapes must be equal; at the default level (Paddle 2.3 shapes) a
    0-D result of Paddle 2.6 must be [1] here ('agree_0d')."""
    if isinstance(exp, dict) and "error" in exp and not (isinstance(got, dict) and "error" in got):
        return "paddle raises " + exp["error"]
    if isinstance(got, dict) and "error" in got and not (isinstance(exp, dict) and "error" in exp):
        return "we raise " + got["error"]
    if isinstance(exp, list) or isinstance(got, list):
        if not (isinstance(exp, list) and isinstance(got, list) and len(exp) == len(got)):
            return "result structure"
        for e, g in zip(exp, got):
            c = compare(e, g, set_to_1d)
            if c not in ("agree", "agree_0d"):
                return c
        return "agree"
    if "error" in exp and "error" in got:
        return "both_error"
    if "error" in exp:
        return "paddle raises " + exp["error"]
    if "error" in got:
        return "we raise " + got["error"]
    if "py" in exp or "py" in got:
        return "agree" if exp == got else "python value"
    if exp["dtype"] != got["dtype"]:
        return f"dtype {exp['dtype']} vs ours {got['dtype']}"
    want = [1] if set_to_1d and exp["shape"] == [] else exp["shape"]
    zero_d = want != exp["shape"]
    if got["shape"] != want:
        return f"shape {want} vs ours {got['shape']}" + (" (Paddle 2.3 level)" if zero_d else "")
    e, g = _arr(exp["value"]), _arr(got["value"])
    rtol = RTOL.get(exp["dtype"], 0.0)
    if e.shape != g.shape or not np.allclose(e, g, rtol=rtol, atol=rtol, equal_nan=True):
        return "values"
    return "agree_0d" if zero_d else "agree"


# ---------------------------------------------------------------- record / report
def record(families=None):
    import paddle
    os.makedirs(EXPECTED, exist_ok=True)
    for fam, gen in FAMILIES.items():
        if families and fam not in families:
            continue
        out = {"paddle": paddle.__version__, "results": {c["id"]: run_case(c) for c in gen()}}
        with open(os.path.join(EXPECTED, fam + ".json"), "w") as f:
            json.dump(out, f, separators=(",", ":"), sort_keys=True)


def load_expected(fam):
    with open(os.path.join(EXPECTED, fam + ".json")) as f:
        return json.load(f)["results"]


LEVELS = {"2.6": False, "2.3": True}  # API level -> FLAGS_set_to_1d


def evaluate(families=None, level="2.6"):
    """{family: [(case, verdict, reason)]} with verdict agree / documented / not yet / differ (a case
    where both raise agrees when ours is Paddle's exception class or a subclass of it, reason
    "agree_error"; another class is a difference like any other),
    at one API level: "2.6" runs with FLAGS_set_to_1d off against real Paddle 2.6.2's shapes,
    "2.3" with the flag on (the default) and Paddle 2.3's [1] where 2.6 gives 0-D."""
    import paddle
    sys.path.insert(0, HERE)
    from known import classify  # noqa: E402  (the documented differences, with reasons)
    flag = LEVELS[level]
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    paddle.set_flags({"FLAGS_set_to_1d": flag})
    try:
        return _evaluate(families, flag, classify)
    finally:
        paddle.set_flags({"FLAGS_set_to_1d": old})


def _evaluate(families, flag, classify):
    res = {}
    for fam, gen in FAMILIES.items():
        if families and fam not in families:
            continue
        exp = load_expected(fam)
        rows = []
        for case in gen():
            got = run_case(case)
            c = compare(exp[case["id"]], got, flag)
            if c == "both_error":  # both raise: the same exception class (or a subclass) agrees
                c = "agree_error" if _same_error(exp[case["id"]], got) else \
                    f"error class: Paddle {exp[case['id']]['error']}, ours {got['error']}"
            if c in ("agree", "agree_0d", "agree_error"):
                rows.append((case, "agree", c))
            else:
                known = classify(case, exp[case["id"]], c, flag)
                if known is None:
                    rows.append((case, "differ", c))
                else:
                    rows.append((case, "documented" if known[0] == "deliberate" else "not yet", known[1]))
        res[fam] = rows
    return res


def _same_error(exp, got):
    """Ours raises Paddle's exception class or a subclass of it (KernelNotFoundError is a
    RuntimeError and a TypeError)."""
    return exp["error"] == got["error"] or exp["error"] in got.get("bases", ())


def report_markdown(by_level):
    """docs/compatibility.md from {level: evaluate(level=level)} for the two API levels."""
    res, res23 = by_level["2.6"], by_level["2.3"]
    lines = ["# Compatibility with PaddlePaddle 2.6.2", "",
             "Generated by `tests/conformance/harness.py report` from the differential harness: every "
             "case runs here and was recorded from real PaddlePaddle 2.6.2 (CPU) into "
             "tests/conformance/expected/. Each case runs at both API levels: with "
             "`FLAGS_set_to_1d=0` (Paddle 2.6 semantics) shapes must equal Paddle 2.6.2's exactly; "
             "with the default `FLAGS_set_to_1d=1` (Paddle 2.3 shapes) a 0-D result of Paddle 2.6 "
             "must be shape [1] here and everything else the same. agree: same dtype, shape and "
             "values, or both raise and ours is Paddle's exception class or a subclass of it (column "
             "'of which raise'); documented: a deliberate difference, reason below (an exception where "
             "the other answers, or another exception class, included); not yet: a known difference "
             "still to fix; differ: not looked at (the test fails on these). The "
             "first columns are the Paddle 2.6 level, the last the agree count at the Paddle 2.3 "
             "level. tests/conformance fails when this page is stale.", "",
             "| family | API | cases | agree | of which raise | documented | not yet | differ | agree (2.3 level) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    reasons = {}
    for level, r in (("2.6", res), ("2.3", res23)):
        for rows in r.values():
            for case, verdict, why in rows:
                if verdict in ("documented", "not yet", "differ"):
                    ids = reasons.setdefault((verdict, why), {})
                    ids.setdefault(case["id"], level)
    for fam, rows in res.items():
        apis = {}
        for (case, verdict, why26), (_, v23, _) in zip(rows, res23[fam]):
            a = apis.setdefault(case["api"], {"agree": 0, "documented": 0, "not yet": 0, "differ": 0,
                                              "raise": 0, "agree23": 0})
            a[verdict] += 1
            a["raise"] += why26 == "agree_error"
            a["agree23"] += v23 == "agree"
        for api, c in sorted(apis.items()):
            n = sum(v for k, v in c.items() if k not in ("agree23", "raise"))
            lines.append(f"| {fam} | {api} | {n} | {c['agree']} | {c['raise']} | {c['documented']} | "
                         f"{c['not yet']} | {c['differ']} | {c['agree23']} |")
    lines.append("")
    for level, r, flag in (("2.6", res, 0), ("2.3", res23, 1)):
        tot = {v: sum(1 for rows in r.values() for x in rows if x[1] == v)
               for v in ("agree", "documented", "not yet", "differ")}
        raised = sum(1 for rows in r.values() for x in rows if x[2] == "agree_error")
        lines.append(f"Paddle {level} level (FLAGS_set_to_1d={flag}): {sum(tot.values())} cases; "
                     f"{tot['agree']} agree ({raised} of them raise the same exception class), "
                     f"{tot['documented']} documented, {tot['not yet']} not yet, {tot['differ']} differ.")
        lines.append("")
    zero = [c["id"] for c, _, _ in res.get("scalar", []) if _is_0d(load_expected("scalar")[c["id"]])]
    if zero:
        lines += ["## The two API levels", "",
                  f"`FLAGS_set_to_1d` (environment variable, or `paddle.set_flags({{'FLAGS_set_to_1d': "
                  f"False}})`) picks the level. On (the default) keeps Paddle 2.3's shapes, so "
                  f"programs written for 2.3 print `loss: [0.31522682]`; off gives Paddle 2.6's 0-D "
                  f"tensors. One rule in the C shape inference (pd_scalar_dims in csrc/ops/pd_op.h) "
                  f"decides the shape of every result left with no dims. Of the {len(res['scalar'])} "
                  f"cases of the scalar family (tools/oracle/zero_d_apis.py), {len(zero)} are 0-D in "
                  f"Paddle 2.6.2 (tests/conformance/expected/zero_d_apis.json): "
                  + ", ".join(f"`{i}`" for i in zero) + ".", ""]
    lines += _suites_markdown()
    lines += _names26_markdown()
    lines += _checkpoints_markdown()
    lines += ["## Differences", ""]
    for (verdict, why), ids in sorted(reasons.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
        ids = list(ids)
        shown = ", ".join(f"`{i}`" for i in ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
        lines.append(f"- **{verdict}** ({len(ids)}): {why}. {shown}")
    return "\n".join(lines) + "\n"


def _suites_markdown():
    """The tally of Paddle's public API test suites run against Paddle-C (expected/paddle_suites.json,
    written by hand from those runs: the suites are not part of this repository)."""
    path = os.path.join(EXPECTED, "paddle_suites.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        data = json.load(f)
    lines = ["## Paddle's public API tests", "", data["note"], ""]
    for s in data["suites"]:
        lines.append(f"- **{s['name']}**: {s['files']} files, {s['items']} items; real Paddle 2.6.2 passes "
                     f"{s['oracle_pass']}; Paddle-C passes {s['pass']} of those ({s['pass_before']} before the "
                     f"fixes of issue 23 item 3).")
        if s["fixed"]:
            lines.append("  Fixed: " + "; ".join(s["fixed"]) + ".")
        for why, n in s["failing"]:
            lines.append(f"  - still failing ({n}): {why}")
    return lines + [""]


# names of real Paddle 2.6.2's `paddle` module that are modules, internals or devices of its own
# build, with the reason each is absent here
_NAMES26_INTERNAL = {
    "dataset": "module not built (1.x readers)",
    "quantization": "module not built", "decomposition": "PIR internals", "pir": "PIR internals",
    "ir_guard": "PIR internals", "IrGuard": "PIR internals", "common_ops_import": "internal",
    "core": "internal (paddle.base.core exists)", "cuda_env": "internal",
    "monkey_patch_math_tensor": "internal", "monkey_patch_program": "internal",
    "monkey_patch_value": "internal", "monkey_patch_variable": "internal", "paddle": "internal",
    "pir_utils": "internal (paddle.pir_utils.test_with_pir_api exists as a module)",
    "CustomPlace": "no custom devices", "IPUPlace": "no IPU devices",
}


def _names26_markdown():
    """Which public names of real Paddle 2.6.2's top-level module exist here (the list:
    expected/paddle26_names.json, tools/oracle/paddle26_names.py)."""
    path = os.path.join(EXPECTED, "paddle26_names.json")
    if not os.path.exists(path):
        return []
    import paddle
    with open(path) as f:
        names = json.load(f)["names"]
    missing = [n for n in names if not hasattr(paddle, n)]
    internal = [n for n in missing if n in _NAMES26_INTERNAL]
    api = [n for n in missing if n not in _NAMES26_INTERNAL]
    lines = ["## Paddle 2.6's top-level names", "",
             f"Of the {len(names)} public names of real Paddle 2.6.2's `paddle` module "
             f"(tests/conformance/expected/paddle26_names.json), {len(names) - len(missing)} exist here. "
             "The names Paddle added in 2.4-2.6 are in python/paddle/tensor/api26.py, paddle.geometric and "
             "paddle.version (tests/python/test_api26.py).", ""]
    lines.append("- API functions still absent (" + str(len(api)) + "): "
                 + (", ".join(f"`{n}`" for n in api) if api else "none") + ".")
    lines.append("- Modules, internals and devices of Paddle's own build (" + str(len(internal)) + "): "
                 + ", ".join(f"`{n}` ({_NAMES26_INTERNAL[n]})" for n in internal) + ".")
    lines.append("- Deliberate: `view(x, dtype)` (reinterpreting bytes) raises NotImplementedError; nanquantile "
                 "keeps the input's float dtype (Paddle 2.6.2 answers float64, as for quantile); geometric_ "
                 "follows Paddle 2.6.2's log(u) / log(1 - p), not rounded to integers.")
    return lines + [""]


def _checkpoints_markdown():
    """The checkpoint constructions (tools/oracle/checkpoint_cases.py, expected/checkpoints.json,
    checked by test_checkpoints.py, which fails where this summary would be wrong)."""
    path = os.path.join(EXPECTED, "checkpoints.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        data = json.load(f)
    names = sorted(data["cases"])
    keys_only = [n for n in names if "outputs" not in data["cases"][n]]
    cross = sorted(n for n, r in data["cross"].items()
                   if r["paddle_loads_ours"].get("agree") and r["ours_loads_paddles"].get("agree"))
    from known import CHECKPOINTS, CHECKPOINTS_LEVEL23  # noqa: E402
    lines = ["## Checkpoints", "",
             f"tests/conformance/test_checkpoints.py builds {len(names)} layer constructions "
            "(tools/oracle/checkpoint_cases.py: " + ", ".join(f"`{n}`" for n in names) + "). For each "
            + ("but the documented differences below, " if CHECKPOINTS else "")
            + "the ordered state_dict keys, shapes and dtypes equal real Paddle 2.6.2's "
            "(expected/checkpoints.json); with every entry set deterministically from its key and shape "
            "through set_state_dict, the outputs equal Paddle's at float32 tolerance, also after our "
            "paddle.save / paddle.load round trip"
            + (" (keys only: " + ", ".join(f"`{n}`" for n in keys_only) + ")" if keys_only else "") + ". "
            f"Exchanged with real Paddle both ways (it loads our .pdparams, we load its .pdparams, both "
            f"giving Paddle's outputs): " + ", ".join(f"`{n}`" for n in cross) + "."]
    if CHECKPOINTS:
        lines += ["", "Documented differences (other keys than Paddle 2.6.2's): "
                  + "; ".join(f"`{n}`: {why}" + ("" if loads else " (Paddle 2.6.2's checkpoints do not load)")
                              for n, (loads, why) in sorted(CHECKPOINTS.items())) + "."]
    if CHECKPOINTS_LEVEL23:
        lines += ["", "Built as the network of the API level in force (FLAGS_set_to_1d at construction; "
                  "tested at both levels): with `FLAGS_set_to_1d=0` keys and outputs equal Paddle 2.6.2's; "
                  "at the default Paddle 2.3 level they differ: "
                  + "; ".join(f"`{n}`: {why}" + ("" if loads else " (Paddle 2.6.2's checkpoints do not load "
                                                                   "at this level)")
                              for n, (loads, why) in sorted(CHECKPOINTS_LEVEL23.items())) + "."]
    return lines + [""]


def _is_0d(r):
    if isinstance(r, list):
        return any(_is_0d(v) for v in r)
    return r.get("shape") == []


def evaluate_levels(families=None):
    return {level: evaluate(families, level) for level in LEVELS}


def main(argv):
    cmd = argv[1] if len(argv) > 1 else "report"
    fams = argv[2:] or None
    if cmd == "record":
        record(fams)
    elif cmd == "report":
        text = report_markdown(evaluate_levels(fams))
        with open(os.path.join(ROOT, "docs", "compatibility.md"), "w") as f:
            f.write(text)
        print("\n".join(ln for ln in text.splitlines() if ln.startswith("Paddle 2.")))
    else:
        raise SystemExit(f"usage: {argv[0]} record|report [family ...]")


if __name__ == "__main__":
    main(sys.argv)
