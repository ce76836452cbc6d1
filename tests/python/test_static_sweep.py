"""The static sweep: every case of the generated op sweep (tests/ops/generated_cases.py, every op x
dtype) recorded in static mode from paddle.static.data inputs (unknown batch dim where the op
allows), run by the Executor and compared bit for bit with the eager result (same kernels); then
the public Python functions over a table of representative calls (static_api_cases.py)."""
import os
import sys

import numpy as np
import pytest

import paddle
from paddle import _C

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
sys.path.insert(0, os.path.dirname(__file__))
from generated_cases import CASES  # noqa: E402
from sweep_util import to_numpy  # noqa: E402
from test_op_sweep import _build_args  # noqa: E402
from static_api_cases import API_CASES as _TENSOR_CASES  # noqa: E402
from static_sweep_nn_cases import NN_CASES  # noqa: E402

API_CASES = _TENSOR_CASES + NN_CASES

# ops whose result cannot be compared bit for bit, each with the reason
NOT_BITWISE = {
    "empty": "uninitialised memory: only dtype and shape are compared",
    "empty_like": "uninitialised memory: only dtype and shape are compared",
}
# ops that cannot exist in a program, each with the reason
SKIP_OPS = {}

PARAMS = []
for i, c in enumerate(CASES):
    for dt in c["dtypes"]:
        marks = []
        if c["op"] in SKIP_OPS:
            marks.append(pytest.mark.skip(reason=SKIP_OPS[c["op"]]))
        PARAMS.append(pytest.param(c, dt, id=f"{c['op']}-{i}-{dt}", marks=marks))


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(-1) if a.size else a.reshape(-1).view(np.uint8)


def assert_bitwise(got, want, what=""):
    """got/want numpy arrays: same dtype, shape and bytes (NaN payloads included)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != eager {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != eager {want.shape}"
    if not np.array_equal(_bits(got), _bits(want)):
        bad = np.flatnonzero(_bits(got) != _bits(want))[:8] // max(got.itemsize, 1)
        raise AssertionError(f"{what}: not bit-identical at flat elements {bad.tolist()}: static "
                             f"{got.reshape(-1)[bad]} eager {want.reshape(-1)[bad]}")


def _unknown_variants(shapes):
    """Shape variants to try for the inputs, most unknown first: dim 0 unknown for every input
    whose dim 0 is the first input's (a batch), then only those of the first input's rank; then
    dim 0 unknown for one input at a time; then every dim known."""
    known = [None if s is None else list(s) for s in shapes]
    first = next((s for s in shapes if s is not None and len(s) >= 1), None)
    out = []
    if first is not None:
        out.append([list(s) if s is None or not s or s[0] != first[0] else [-1] + list(s[1:]) for s in shapes])
        v = [list(s) if s is None or len(s) != len(first) or s[0] != first[0] else [-1] + list(s[1:])
             for s in shapes]
        if v not in out:
            out.append(v)
    for i, s in enumerate(shapes):
        if s is not None and len(s) >= 1:
            v = [list(x) for x in known]
            v[i] = [-1] + list(s[1:])
            if v not in out:
                out.append(v)
    out.append(known)
    return out


def _flat_inputs(case, args):
    """[(position, list index or None, eager tensor)] of every tensor argument."""
    out = []
    for pos, (name, ty) in enumerate(zip(case["args"], case["arg_types"])):
        if pos >= len(args) or name not in case["inputs"]:
            continue
        if ty == "Tensor[]":
            for j, t in enumerate(args[pos]):
                out.append((pos, j, t))
        else:
            out.append((pos, None, args[pos]))
    return out


def _record(case, args, flat, shapes, fn):
    main, startup = paddle.static.Program(), paddle.static.Program()
    sargs = list(args)
    lists = {}
    feeds = {}
    with paddle.static.program_guard(main, startup):
        for k, ((pos, j, t), shp) in enumerate(zip(flat, shapes)):
            name = f"in{k}"
            v = paddle.static.data(name, shp, t.dtype)
            feeds[name] = t
            if j is None:
                sargs[pos] = v
            else:
                lists.setdefault(pos, list(args[pos]))[j] = v
        for pos, lst in lists.items():
            sargs[pos] = lst
        out = fn(*sargs)
    return main, startup, out, feeds


def _outs(o):
    return list(o) if isinstance(o, (list, tuple)) else [o]


def run_static(fn, case, args, seed=None):
    """Records fn(*args) with Variables for the tensors of args (unknown dims where it builds) and
    runs it; returns (list of numpy outputs, list of output Variables, shapes used)."""
    flat = _flat_inputs(case, args)
    feeds_np = {}
    err = None
    for shapes in _unknown_variants([list(t.shape) for _, _, t in flat]):
        try:
            main, startup, out, feeds = _record(case, args, flat, shapes, fn)
        except Exception as e:  # noqa: BLE001 - try fewer unknown dims
            err = e
            continue
        break
    else:
        raise err
    for k, t in feeds.items():
        feeds_np[k] = t
    exe = paddle.static.Executor()
    exe.run(startup)
    outs = _outs(out)
    if seed is not None:
        paddle.seed(seed)
    res = exe.run(main, feed=feeds_np, fetch_list=[o for o in outs if o is not None])
    return res, outs, shapes, main  # the caller keeps main alive: its Variables need it


def _eager_np(t):
    a = to_numpy(t)
    if t.dtype.name == "bfloat16":  # compare bits
        a = np.array(memoryview(t)) if t.ndim else a
    return a


def _snapshot(args):
    """Copies of the tensor args (in-place ops change their inputs)."""
    def cp(t):
        return _C.from_buffer(np.array(memoryview(t))) if t.ndim else paddle.assign(t)
    out = []
    for a in args:
        if isinstance(a, _C.Tensor):
            out.append(cp(a))
        elif isinstance(a, list) and a and isinstance(a[0], _C.Tensor):
            out.append([cp(t) for t in a])
        else:
            out.append(a)
    return out


@pytest.mark.parametrize("case,dt", PARAMS)
def test_op_static_equals_eager(case, dt):
    rng = np.random.default_rng(1234)
    _, args = _build_args(case, dt, rng)
    fn = getattr(_C._C_ops, case["op"])
    sargs = _snapshot(args)
    seed = 2024
    paddle.seed(seed)
    eager = _outs(fn(*args))
    paddle.enable_static()
    try:
        res, souts, shapes, _main = run_static(fn, case, sargs, seed=seed)
    finally:
        paddle.disable_static()
    eager = [e for e in eager if e is not None]
    assert len(res) == len(eager)
    for k, (r, e, v) in enumerate(zip(res, eager, [o for o in souts if o is not None])):
        # the recorded shape agrees with eager wherever it is known
        assert len(v.shape) == e.ndim, f"out {k}: recorded rank {len(v.shape)} != eager {e.ndim}"
        for a, b in zip(v.shape, e.shape):
            assert a == -1 or a == b, f"out {k}: recorded shape {v.shape} vs eager {e.shape}"
        assert v.dtype == e.dtype, f"out {k}: recorded dtype {v.dtype} != eager {e.dtype}"
        en = _eager_np(e)
        if case["op"] in NOT_BITWISE:
            assert r.shape == en.shape and r.dtype == en.dtype
            continue
        assert_bitwise(r, en, f"{case['op']} out {k} (input shapes {shapes})")



# ---------------------------------------------------------------- gradients of every grad case
# gradients that cannot be built into a program, each with the reason
GRAD_SKIP = {
    "put_along_axis_mul_pairs": "its derivative w.r.t. values depends on how often the indices repeat a "
                                "position (read from the data): NotImplementedError in a program",
}
GRAD_PARAMS = [pytest.param(c, dt, id=f"{c['op']}-{i}-{dt}",
                            marks=[pytest.mark.skip(reason=GRAD_SKIP[c["op"]])] if c["op"] in GRAD_SKIP else [])
               for i, c in enumerate(CASES) if c["grad"] for dt in ("float32", "float64") if dt in c["dtypes"]]


def _diff_positions(flat):
    return [k for k, (_, _, t) in enumerate(flat) if t.dtype.name in ("float32", "float64")]


@pytest.mark.parametrize("case,dt", GRAD_PARAMS)
def test_op_static_gradients_equal_eager(case, dt):
    """paddle.static.gradients of sum(w * op(inputs)) (the same backward rules replayed into
    the program) against eager paddle.grad: bit for bit, unknown dim 0 where the op allows."""
    rng = np.random.default_rng(99)
    _, args = _build_args(case, dt, rng)
    fn = getattr(_C._C_ops, case["op"])
    sargs = _snapshot(args)
    flat = _flat_inputs(case, args)
    diff = _diff_positions(flat)
    for k in diff:
        flat[k][2].stop_gradient = False
    paddle.seed(11)
    outs = [o for o in _outs(fn(*args)) if o is not None]
    wr = np.random.default_rng(5)
    weights = [wr.uniform(0.5, 1.5, size=o.shape).astype(o.dtype.name) if not o.stop_gradient else None
               for o in outs]
    want = paddle.grad([_loss_of(outs, weights)], [flat[k][2] for k in diff], allow_unused=True)
    sflat = _flat_inputs(case, sargs)
    paddle.enable_static()
    try:
        err = None
        for shapes in _unknown_variants([list(t.shape) for _, _, t in sflat]):
            try:
                main, startup, out, feeds = _record(case, sargs, sflat, shapes, _grad_fn(fn, diff, weights))
                break
            except Exception as e:  # noqa: BLE001 - fewer unknown dims
                err = e
        else:
            raise err
        exe = paddle.static.Executor()
        paddle.seed(11)
        gvars, wfeeds = out
        feeds.update(wfeeds)
        got = exe.run(main, feed=feeds, fetch_list=[g for g in gvars if g is not None])
    finally:
        paddle.disable_static()
    want = [w for w, g in zip(want, gvars) if g is not None]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert w is not None, f"grad {k}: static has a gradient, eager none"
        assert_bitwise(g, w.numpy(), f"{case['op']} grad {k} (input shapes {shapes})")


def _grad_fn(fn, diff, weights):
    """fn's static twin: records fn, then the gradients of sum(w * out) w.r.t. the float inputs
    (the weights fed with the outputs' recorded shapes)."""
    def run(*sargs):
        flat_vars = []
        for a in sargs:
            if isinstance(a, list):
                flat_vars += [t for t in a if isinstance(t, _C.Tensor)]
            elif isinstance(a, _C.Tensor):
                flat_vars.append(a)
        vs = [flat_vars[k] for k in diff]
        for v in vs:
            v.stop_gradient = False
        outs = [o for o in _outs(fn(*sargs)) if o is not None]
        ws, wfeeds = [], {}
        for k, (o, w) in enumerate(zip(outs, weights)):
            if w is None or o.stop_gradient:
                ws.append(None)
                continue
            ws.append(paddle.static.data(f"w{k}", list(o.shape), str(w.dtype)))
            wfeeds[f"w{k}"] = w
        return paddle.static.gradients([_loss_of(outs, ws)], vs), wfeeds
    return run


# ---------------------------------------------------------------- the public Python functions
def _np_out(t):
    """numpy of an eager output (bfloat16 as its bits, like the executor's fetch)."""
    return np.array(memoryview(t)) if t.ndim else to_numpy(t)


def _flatten_outs(o):
    if isinstance(o, (list, tuple)):
        out = []
        for v in o:
            out += _flatten_outs(v)
        return out
    return [o] if isinstance(o, _C.Tensor) else []


def _loss_of(outs, weights):
    loss = None
    for o, w in zip(outs, weights):
        if w is None:
            continue
        term = paddle.sum(o * (w if isinstance(w, _C.Tensor) else paddle.to_tensor(w)))
        loss = term if loss is None else loss + term
    return loss


def _layer_params(layer):
    return [p for p in layer.parameters() if not p.stop_gradient] if layer is not None else []


def _api_eager(case):
    # eager MultiHeadAttention runs the fused attention_core op (equal to within float tolerance:
    # tests/python/test_transformer_fastpaths.py); programs record Paddle's op sequence, which
    # eager runs bit for bit with the fused path off
    from paddle.nn.layer import transformer
    old = transformer._FUSED
    transformer._FUSED = False
    try:
        return _api_eager_run(case)
    finally:
        transformer._FUSED = old


def _api_eager_run(case):
    ts = [paddle.to_tensor(a) for a in case["inputs"]]
    if case.get("grad"):
        for t in ts:
            if t.dtype.name in ("float32", "float64"):
                t.stop_gradient = False
    layer, state = None, None
    fn = case["fn"]
    if case.get("layer"):
        paddle.seed(100)
        layer = fn = case["layer"]()
        state = {k: v.numpy() for k, v in layer.state_dict().items()}
    if case.get("seed") is not None:
        paddle.seed(case["seed"])
    outs = _flatten_outs(fn(*ts))
    grads = None
    weights = None
    if case.get("grad"):
        wr = np.random.default_rng(3)
        weights = [wr.uniform(0.5, 1.5, size=o.shape).astype(o.dtype.name)
                   if o.dtype.name in ("float32", "float64") and not o.stop_gradient else None for o in outs]
        diff = [t for t in ts if not t.stop_gradient] + _layer_params(layer)
        gs = paddle.grad([_loss_of(outs, weights)], diff, allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return [_np_out(o) for o in outs], grads, weights, state


def _api_static(case, weights, shapes, state=None):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = {}
    layer = None
    with paddle.static.program_guard(main, startup):
        vs = []
        for k, (a, shp) in enumerate(zip(case["inputs"], shapes)):
            v = paddle.static.data(f"in{k}", shp, str(a.dtype) if a.dtype != np.bool_ else "bool")
            if case.get("grad") and a.dtype in (np.float32, np.float64):
                v.stop_gradient = False
            feeds[f"in{k}"] = a
            vs.append(v)
        fn = case["fn"]
        if case.get("layer"):
            layer = fn = case["layer"]()
        outs = _flatten_outs(fn(*vs))
        fetch = list(outs)
        if case.get("grad"):
            diff = [v for v in vs if not v.stop_gradient] + _layer_params(layer)
            # the loss weights are fed, with the outputs' recorded shapes (unknown dims included)
            ws = []
            for k, (o, w) in enumerate(zip(outs, weights)):
                if w is None:
                    ws.append(None)
                    continue
                ws.append(paddle.static.data(f"w{k}", list(o.shape), str(w.dtype)))
                feeds[f"w{k}"] = w
            gs = paddle.static.gradients([_loss_of(outs, ws)], diff)
            fetch += [g for g in gs if g is not None]
    for o in outs:
        assert _C._is_variable(o), f"{case['id']}: an output is not a program Variable (computed eagerly?)"
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        if layer is not None:  # the eager layer's values
            sd = layer.state_dict()
            assert sorted(sd) == sorted(state), (sorted(sd), sorted(state))
            for k, v in sd.items():
                v.set_value(state[k])
        if case.get("seed") is not None:
            paddle.seed(case["seed"])
        res = exe.run(main, feed=feeds, fetch_list=fetch)
    return res[:len(outs)], res[len(outs):], outs, main


@pytest.mark.parametrize("case", API_CASES, ids=[c["id"] for c in API_CASES])
def test_api_static_equals_eager(case):
    if case.get("skip"):
        pytest.skip(case["skip"])
    want, want_g, weights, state = _api_eager(case)
    shapes_known = [list(a.shape) for a in case["inputs"]]
    variants = [shapes_known] if case.get("known") else _unknown_variants(shapes_known)
    paddle.enable_static()
    try:
        err = None
        for shapes in variants:
            try:
                got, got_g, outs, _main = _api_static(case, weights, shapes, state)
                break
            except Exception as e:  # noqa: BLE001 - the next variant has fewer unknown dims
                err = e
                if os.environ.get("STATIC_SWEEP_VERBOSE"):
                    print(f"VARIANT {case['id']} {shapes}: {type(e).__name__}: {str(e)[:300]}")
        else:
            raise err
    finally:
        paddle.disable_static()
    assert len(got) == len(want), f"{len(got)} outputs, eager gave {len(want)}"
    for k, (g, w, v) in enumerate(zip(got, want, outs)):
        for a, b in zip(v.shape, w.shape):
            assert a == -1 or a == b, f"out {k}: recorded shape {v.shape} vs eager {w.shape}"
        assert_bitwise(g, w, f"{case['id']} out {k} (input shapes {shapes})")
    if want_g is not None:
        want_g = [g for g in want_g if g is not None]
        assert len(got_g) == len(want_g)
        for k, (g, w) in enumerate(zip(got_g, want_g)):
            assert_bitwise(g, w, f"{case['id']} grad {k} (input shapes {shapes})")
