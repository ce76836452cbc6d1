"""The real Paddle models of ../shared/fixtures/paddle_models, the inputs they are run on and
real Paddle Inference 2.6.2's outputs on them: the single source for the oracle script
(tools/oracle/make_fixture_expected.py, which writes tests/python/data/fixture_expected.npz and
fixture_expected_fetch.json) and every test running the fixtures (tests/python/test_static_fixtures.py,
the inference API's tests). Inputs are made with integer arithmetic only, so both sides build the
same bits without storing them; large outputs are kept as a fixed subsample plus their sums.
Pure numpy: imported by both our venv and the oracle's.

The function API (names are fixture models with weights, or programs_only/ programs):

    models()                   the models with weights       programs()  the programs without
    case_names(name)           its cases, e.g. ["n1", "n2", "n3"]
    inputs(name, case)         {feed name: float32 array}, made afresh on every call
    files(name)                (.pdmodel path, .pdiparams path or None)
    fetch_names(name)          the fetched variables, in Paddle Inference's output order
    expected(name, case)       per output: {"full": array} or its subsample
                               {"every", "k", "shape", "sum", "abssum"} (see keep())
    compare(name, case, outs)  [] when outs (arrays in fetch order) match Paddle's: shapes (so
                               detection counts) and integer outputs exactly, floats within TOL
                               of each output's scale; else one message per mismatch
    weights(persistables, variances)  made-up parameters for a program without weights
"""
import os

import numpy as np


def _find_fixtures():
    """$PADDLE_C_FIXTURES, else the first shared/fixtures/paddle_models above this file."""
    if os.environ.get("PADDLE_C_FIXTURES"):
        return os.environ["PADDLE_C_FIXTURES"]
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(6):
        cand = os.path.join(d, "shared", "fixtures", "paddle_models")
        if os.path.isdir(cand):
            return cand
        d = os.path.dirname(d)
    return "/nonexistent"


FIXTURES = _find_fixtures()
TOL = 1e-4       # allowed difference, relative to the largest |value| of each output
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "python",
                    "data")
MAX_KEPT = 6000  # outputs with more elements keep every k-th element (k = ceil(size / MAX_KEPT))


def image(shape, seed):
    """float32 values in [-1, 1) from an integer hash of each element's index (exactly reproducible)."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64) + np.uint64(seed * 7919 + 1)
    h = (i * np.uint64(2654435761)) % np.uint64(4294967291)
    h = (h ^ (h >> np.uint64(13))) % np.uint64(256)
    return (h.astype(np.float32) / np.float32(128.0) - np.float32(1.0)).reshape(shape)


def _det_feeds(n, h, w, seed):
    return {"image": image([n, 3, h, w], seed), "im_shape": np.array([[h, w]] * n, "float32"),
            "scale_factor": np.ones([n, 2], "float32")}


# model dir, file stem, [(case name, feeds)]
MODELS = {
    "lite_simple_conv_bn_relu": ("model", [(f"n{n}", lambda n=n: {"image": image([n, 3, 224, 224], n)}) for n in (1, 2, 3)]),
    "ppocr_mobile_v2_cls": ("inference", [(f"n{n}", lambda n=n: {"x": image([n, 3, 32, 100], 10 + n)}) for n in (1, 2, 3)]),
    "paddleclas_mbv3_small_3cls": ("inference", [(f"n{n}", lambda n=n: {"x": image([n, 3, 224, 224], 20 + n)}) for n in (1, 2, 3)]),
    "ppocrv3_en_det": ("inference", [(nm, lambda s=s, k=k: {"x": image(s, 30 + k)})
                                     for k, (nm, s) in enumerate([("32x32", [1, 3, 32, 32]), ("64x96", [1, 3, 64, 96]),
                                                                  ("n2_96x64", [2, 3, 96, 64])])]),
    "blazeface_facedet": ("model", [(nm, lambda a=a: _det_feeds(*a))
                                    for nm, a in [("64x64", (1, 64, 64, 40)), ("96x128", (1, 96, 128, 41)),
                                                  ("n2_128x96", (2, 128, 96, 42))]]),
    "ppyolo_tiny_320": ("model", [(f"n{n}", lambda n=n: _det_feeds(n, 320, 320, 50 + n)) for n in (1, 2, 3)]),
}
# programs without weights: run with made-up weights (weights()) on these inputs
PROGRAMS_ONLY = {
    "ppocr_mobile_v2_rec_lstm": [(f"n{n}", lambda n=n: {"x": image([n, 3, 32, 100], 60 + n)}) for n in (1, 2, 3)],
    "ppocrv3_svtr_rec_custom": [(nm, lambda s=s, k=k: {"x": image(s, 70 + k)})
                                for k, (nm, s) in enumerate([("48x96", [1, 3, 48, 96]), ("48x160", [1, 3, 48, 160]),
                                                             ("n2_48x320", [2, 3, 48, 320])])],
}


def weights(persistables, variances):
    """Made-up parameters for a program without weights: persistables [(name, shape)]; the
    batch_norm variances (names) are positive."""
    import zlib
    out = {}
    for name, shape in persistables:
        w = image(shape, zlib.crc32(name.encode()) % 100003)
        out[name] = (np.float32(0.5) + np.float32(0.5) * np.abs(w)) if name in variances else w * np.float32(0.2)
    return out


def program_path(name):
    return os.path.join(FIXTURES, "programs_only", name + ".pdmodel")


def paths(model):
    stem = MODELS[model][0]
    d = os.path.join(FIXTURES, model)
    return os.path.join(d, stem + ".pdmodel"), os.path.join(d, stem + ".pdiparams")


def keep(a):
    """What is stored of an output: all of it, or every k-th element and the sums."""
    a = np.asarray(a)
    if a.size <= MAX_KEPT:
        return {"full": a}
    k = -(-a.size // MAX_KEPT)
    flat = a.reshape(-1)
    return {"every": flat[::k], "k": np.array(k), "shape": np.array(a.shape), "sum": np.array(flat.astype(np.float64).sum()),
            "abssum": np.array(np.abs(flat.astype(np.float64)).sum())}


# ------------------------------------------------------------------------------ function API
def models():
    """The fixture models with weights (.pdmodel + .pdiparams)."""
    return list(MODELS)


def programs():
    """The programs_only/ programs (no weights: run on weights())."""
    return list(PROGRAMS_ONLY)


def _cases(name):
    if name in MODELS:
        return MODELS[name][1]
    if name in PROGRAMS_ONLY:
        return PROGRAMS_ONLY[name]
    raise KeyError(f"no fixture model or program {name!r}")


def case_names(name):
    return [c for c, _ in _cases(name)]


def inputs(name, case):
    """The feeds of one case: {feed name: array}."""
    for c, make in _cases(name):
        if c == case:
            return make()
    raise KeyError(f"{name} has no case {case!r} (has {case_names(name)})")


def files(name):
    """(.pdmodel, .pdiparams) of a model with weights; (.pdmodel, None) for a program without."""
    if name in PROGRAMS_ONLY:
        return program_path(name), None
    _cases(name)
    return paths(name)


_loaded = {}


def _data(data_dir=None):
    d = data_dir or DATA
    if d not in _loaded:
        import json
        with open(os.path.join(d, "fixture_expected_fetch.json")) as f:
            meta = json.load(f)
        _loaded[d] = (np.load(os.path.join(d, "fixture_expected.npz")), meta["fetch"])
    return _loaded[d]


def fetch_names(name, data_dir=None):
    return list(_data(data_dir)[1][name])


def expected(name, case, data_dir=None):
    """Paddle's outputs of one case, in fetch order: each {"full": array}, or for outputs of more
    than MAX_KEPT elements {"every": every k-th element, "k", "shape", "sum", "abssum"}."""
    npz, fetch = _data(data_dir)
    if case not in case_names(name):
        raise KeyError(f"{name} has no case {case!r} (has {case_names(name)})")
    out = []
    for k in range(len(fetch[name])):
        pre = f"{name}|{case}|{k}|"
        if pre + "full" in npz.files:
            out.append({"full": npz[pre + "full"]})
        else:
            out.append({key: npz[pre + key] for key in ("every", "k", "shape", "sum", "abssum")})
    return out


def _max_rel(got, want):
    if not want.size:
        return 0.0
    return float(np.abs(got.astype(np.float64) - want).max()) / max(float(np.abs(want).max()), 1e-30)


def compare(name, case, outs, tol=TOL, data_dir=None):
    """Messages for every output of outs (fetch order) that differs from Paddle's; [] when all match."""
    want_all, fetch = expected(name, case, data_dir), fetch_names(name, data_dir)
    if len(outs) != len(want_all):
        return [f"{name} {case}: {len(outs)} outputs, Paddle has {len(want_all)} ({fetch})"]
    bad = []
    for k, (got, want) in enumerate(zip(outs, want_all)):
        what = f"{name} {case} output {k} ({fetch[k]})"
        got = np.asarray(got)
        if "full" in want:
            w = want["full"]
            if got.shape != w.shape:
                bad.append(f"{what}: shape {got.shape}, Paddle's {w.shape}")
                continue
        else:
            shape = tuple(int(v) for v in want["shape"])
            if got.shape != shape:
                bad.append(f"{what}: shape {got.shape}, Paddle's {shape}")
                continue
            w = want["every"]
            scale = max(float(np.abs(w).max()), 1e-30)
            total, want_total = float(got.astype(np.float64).sum()), float(want["sum"])
            if abs(total - want_total) > tol * abs(want_total) + tol * scale * got.size ** 0.5:
                bad.append(f"{what}: sum {total!r}, Paddle's {want_total!r}")
            got = got.reshape(-1)[::int(want["k"])]
        if w.dtype.kind in "iub":
            if not np.array_equal(got, w):
                bad.append(f"{what}: {np.count_nonzero(got != w)} of {w.size} values differ from Paddle's")
        else:
            err = _max_rel(got, w)
            if not err <= tol and "full" in want and w.ndim == 2 and got.shape == w.shape:
                # a detection list ([label, score, box] rows sorted by score): rows whose keys tie
                # within the tolerance may come in either order (two boxes scoring 0.04350473 vs
                # 0.04350472 here and 0.0435047 vs 0.0435046 in Paddle), so compare the rows in
                # one canonical order of tolerance-rounded values
                err = _max_rel(_canonical_rows(got, tol), _canonical_rows(w, tol))
            if not err <= tol:
                bad.append(f"{what}: max difference {err:.3g} of the output's scale (allowed {tol})")
    return bad


def _canonical_rows(a, tol):
    """The rows of a 2-D array sorted by their values rounded to 10 * tol of the array's scale."""
    a = np.asarray(a, dtype=np.float64)
    q = np.round(a / (10 * tol * max(float(np.abs(a).max()), 1e-30)))
    return a[np.lexsort(q.T[::-1])]
