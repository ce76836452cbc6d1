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
from static_api_cases import API_CASES  # noqa: E402

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
    """Shape variants to try for the inputs, most unknown first: dim 0 unknown for every input of
    the first input's rank and dim 0 (a batch); then dim 0 unknown for one input at a time; then
    every dim known."""
    known = [None if s is None else list(s) for s in shapes]
    first = next((s for s in shapes if s is not None and len(s) >= 1), None)
    out = []
    if first is not None:
        out.append([list(s) if s is None or len(s) != len(first) or s[0] != first[0] else [-1] + list(s[1:])
                    for s in shapes])
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
