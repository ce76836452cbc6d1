"""Batches split across the threads in the predictor (csrc/api/pd_infer_predictor.c dp_run): where
the micro-batch analysis proves each sample is computed on its own, a batch of N >= 2 samples on
nth >= 2 threads runs as nth parts at once, one thread each (part 0 on the predictor, the others on
clones made on first use), and the outputs are joined along dim 0. Each network runs at 2 threads
split (default) and whole (PADDLE_C_INFER_DP=0, read per run) and with IR optimisation off (the
plain executor, which never splits); all must agree. Programs that mix samples (a mean over the
batch) must stay whole: splitting them would change the answer, which these tests would see.
PADDLE_C_INFER_LAYOUT=trace prints "[dp] N samples in n parts" per split run, and "[wstore] B bytes, T
taken" after each run: the filters' reorders and transforms in the model's store, one copy for every
plan, clone and part, and how many times a plan took a stored copy instead of making its own
(conv_dnnl.h pd_conv_wstore; PADDLE_C_WSTORE=0 at load: each plan its own)."""
import re
import os

import numpy as np
import paddle.inference as pi
from fixture_util import fc, needs_fixtures
from test_inference import run as _run
from test_inference_layout import _save
from test_inference_mbatch import _agree, _MeanOverBatch, _Net, _runs_in_threads, _traced_run


def _threads(prog, params, n, ir=True):
    """a predictor on n threads (micro-batches by the auto rule)"""
    cfg = pi.Config(prog, params)
    cfg.switch_ir_optim(ir)
    cfg.enable_mkldnn()
    cfg.enable_memory_optim()
    cfg.set_cpu_math_library_num_threads(n)
    return pi.create_predictor(cfg)


def _saved(tmp_path, make, shape):
    """make's network saved under tmp_path: (program, params) paths"""
    prefix = str(tmp_path / "m")
    _save(prefix, make, shape)
    return prefix + ".pdmodel", prefix + ".pdiparams"


def _traced(p, xv, capfd, monkeypatch, dp=True):
    """a run under the trace: (outputs, stderr); dp False: with PADDLE_C_INFER_DP=0"""
    if not dp:
        monkeypatch.setenv("PADDLE_C_INFER_DP", "0")
    got, err = _traced_run(p, xv, capfd, monkeypatch)
    monkeypatch.delenv("PADDLE_C_INFER_DP", raising=False)
    return got, err


def test_split_agrees_with_whole_batches(tmp_path, capfd, monkeypatch):
    """the ten-convolution network (SE block, depthwise + residual, concat, resize, transpose +
    reshape keeping dim 0, fc, softmax; fetching the logits and a blocked convolution output) at 2
    threads: batches 10, 16, 3, 2 split in two (their micro-batches inside each part), 1 whole; the
    same predictor whole (PADDLE_C_INFER_DP=0) and IR off agree; each run twice the same where both
    runs took the same path"""
    prog, params = _saved(tmp_path, _Net, [None, 3, 16, 16])
    two = _threads(prog, params, 2)
    ir_off = _threads(prog, params, 2, ir=False)
    rng = np.random.default_rng(12)
    for n in (10, 16, 3, 2, 1, 10):
        xv = {"x": rng.standard_normal([n, 3, 16, 16]).astype("float32")}
        got, err = _traced(two, xv, capfd, monkeypatch)
        if n >= 2:
            assert f"[dp] {n} samples in 2 parts" in err, err
        else:
            assert "[dp]" not in err, err
        again, err2 = _traced(two, xv, capfd, monkeypatch)
        if ("[dp]" in err2) == ("[dp]" in err):  # the same path: the same bits
            for a, b in zip(got, again):
                assert a.tobytes() == b.tobytes()
        else:  # a size's fourth run may go whole (dp_want's measurement: 3 split, then 3 whole), and
            # where a kernel's choice depends on the batch (oneDNN's avx2 ones) the last bits differ
            _agree(got, again, f"split vs whole (measuring), n={n}")
        whole, err = _traced(two, xv, capfd, monkeypatch, dp=False)
        assert "[dp]" not in err, err
        _agree(got, _run(ir_off, xv), f"split vs IR off, n={n}")
        _agree(got, whole, f"split vs whole, n={n}")
        assert got[0].shape == (n, 10) and got[1].shape == (n, 24, 8, 8)


def test_mixing_samples_stays_whole(tmp_path, capfd, monkeypatch):
    """a mean over the batch: the analysis refuses, so 2 threads run the batch whole (split, each
    part's mean would be its own and the answer would differ from IR off)"""
    prog, params = _saved(tmp_path, _MeanOverBatch, [None, 3, 4, 4])
    xv = {"x": np.random.default_rng(13).standard_normal([10, 3, 4, 4]).astype("float32")}
    got, err = _traced(_threads(prog, params, 2), xv, capfd, monkeypatch)
    assert "[dp]" not in err, err
    _agree(got, _run(_threads(prog, params, 2, ir=False), xv), "vs IR off")


def test_clones_in_threads(tmp_path):
    """two clones at 2 threads in two Python threads, batches of 6: one holds the pool and splits,
    the other runs beside it; both as the whole-batch predictor, three runs each"""
    prog, params = _saved(tmp_path, _Net, [None, 3, 16, 16])
    base = _threads(prog, params, 2)
    clones = [base.clone(), base.clone()]
    ref = _threads(prog, params, 1, ir=False)
    rng = np.random.default_rng(14)
    xs = [{"x": rng.standard_normal([6, 3, 16, 16]).astype("float32")} for _ in clones]
    res = _runs_in_threads(clones, xs, 3)
    for i, x in enumerate(xs):
        want = _run(ref, x)
        for got in res[i]:
            _agree(got, want, f"clone {i} vs IR off")


@needs_fixtures
def test_detection_model_split(capfd, monkeypatch):
    """ppyolo_tiny at 2 threads, batch 5 (parts of 3 and 2): multiclass_nms3's Out holds each
    image's rows in image order and NmsRoisNum one count per image, so the parts join along dim 0"""
    prog, params = fc.paths("ppyolo_tiny_320")
    feeds = fc._det_feeds(5, 320, 320, 9)
    rng = np.random.default_rng(4)
    feeds["image"] = (feeds["image"] + rng.uniform(-0.5, 0.5, feeds["image"].shape)).astype("float32")
    p = _threads(prog, params, 2)
    got, err = _traced(p, feeds, capfd, monkeypatch)
    assert "[dp] 5 samples in 2 parts" in err, err
    whole, _ = _traced(p, feeds, capfd, monkeypatch, dp=False)
    names = p.get_output_names()
    counts = [a for n, a in zip(names, got) if a.ndim == 1][0]
    assert counts.shape == (5,) and counts.sum() == [a for a in got if a.ndim == 2][0].shape[0]
    assert (counts > 0).all()
    _agree(got, whole, "ppyolo split vs whole", tol=1e-4)


def test_split_or_whole_is_measured(tmp_path, capfd, monkeypatch):
    """per batch size the predictor measures: its first 3 runs split, the next 3 whole, then it keeps
    one choice (the faster; which one depends on the machine, so not asserted) for every later run of
    that size, with the same bits each run; another batch size is measured on its own; every run
    agrees with IR off"""
    prog, params = _saved(tmp_path, _Net, [None, 3, 16, 16])
    p = _threads(prog, params, 2)
    ir_off = _threads(prog, params, 2, ir=False)
    rng = np.random.default_rng(15)
    xs = {n: {"x": rng.standard_normal([n, 3, 16, 16]).astype("float32")} for n in (6, 4)}
    want = {n: _run(ir_off, x) for n, x in xs.items()}
    seen = {6: [], 4: []}
    outs = {6: [], 4: []}
    for n in (6, 6, 6, 4, 6, 6, 6, 4, 4, 6, 6, 6, 4, 4, 4, 4):
        got, err = _traced(p, xs[n], capfd, monkeypatch)
        seen[n].append(f"[dp] {n} samples in 2 parts" in err)
        outs[n].append(got)
        _agree(got, want[n], f"n={n}")
    for n in (6, 4):  # after the measuring runs: one choice, the same bits every run
        for a, b in zip(outs[n][6], outs[n][-1]):
            assert a.tobytes() == b.tobytes()
    assert seen[6][:6] == [True] * 3 + [False] * 3, seen[6]
    assert len(set(seen[6][6:])) == 1, seen[6]
    assert seen[4][:6] == [True] * 3 + [False] * 3, seen[4]
    assert len(set(seen[4][6:])) == 1, seen[4]


def test_shrink_after_split(tmp_path):
    """clear_intermediate_tensor and try_shrink_memory between split runs (they free the clones'
    memory plans too) and between whole ones: they free memory, and the runs after them give the
    same bits"""
    prog, params = _saved(tmp_path, _Net, [None, 3, 16, 16])
    xv = {"x": np.random.default_rng(16).standard_normal([10, 3, 16, 16]).astype("float32")}
    freed = {}
    for dp in ("1", "0"):
        os.environ["PADDLE_C_INFER_DP"] = dp
        try:
            p = _threads(prog, params, 2)
            first = _run(p, xv)
            p.clear_intermediate_tensor()
            again = _run(p, xv)
            freed[dp] = p.try_shrink_memory()
            last = _run(p, xv)
        finally:
            os.environ.pop("PADDLE_C_INFER_DP", None)
        for a, b, c in zip(first, again, last):
            assert a.tobytes() == b.tobytes() == c.tobytes()
    # what try_shrink_memory reports after these runs comes from the caching allocator's cached blocks:
    # with PADDLE_C_ALLOC_PASSTHROUGH=1 (scripts/asan_suite.sh) it measured 0 after the split runs
    if os.environ.get("PADDLE_C_ALLOC_PASSTHROUGH") != "1":
        assert freed["1"] > 0 and freed["0"] > 0


def test_weight_store_one_copy(tmp_path, capfd, monkeypatch):
    """the filters' reorders / Winograd transforms are stored once per loaded model: a clone's run,
    another batch size's plan and a split batch's second part add nothing to the store after the
    first runs; every output bit-equal to a predictor that keeps its own copies per plan
    (PADDLE_C_WSTORE=0 at load), whole (PADDLE_C_INFER_DP=0) and split, and in clones on threads"""
    prog, params = _saved(tmp_path, _Net, [None, 3, 16, 16])
    monkeypatch.setenv("PADDLE_C_WSTORE", "0")
    own = _threads(prog, params, 2)
    monkeypatch.delenv("PADDLE_C_WSTORE")
    shared = _threads(prog, params, 2)
    rng = np.random.default_rng(21)
    xs = {n: {"x": rng.standard_normal([n, 3, 16, 16]).astype("float32")} for n in (1, 4, 6)}

    def stored(err, taken=False):
        b = [(int(v), int(t)) for v, t in re.findall(r"\[wstore\] (\d+) bytes, (\d+) taken", err)]
        assert b, err
        return b[-1] if taken else b[-1][0]

    got, err = _traced(shared, xs[1], capfd, monkeypatch, dp=False)
    first, taken0 = stored(err, taken=True)
    assert first > 0
    want, err = _traced(own, xs[1], capfd, monkeypatch, dp=False)
    assert "[wstore]" not in err
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    clone = shared.clone()
    got, err = _traced(clone, xs[1], capfd, monkeypatch, dp=False)
    assert stored(err, taken=True)[0] == first
    # the clone's plan took the stored copies (7 of the 10 convolutions keep one: the others need none)
    assert stored(err, taken=True)[1] >= taken0 + 5
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    for n in (4, 6, 4):
        for dp in (False, True):
            got, err = _traced(shared, xs[n], capfd, monkeypatch, dp=dp)
            want, _ = _traced(own, xs[n], capfd, monkeypatch, dp=dp)
            for a, b in zip(got, want):
                assert a.shape == b.shape
                if dp:  # split or whole by each predictor's own measurement: the last bits may differ
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(b).max())))
                else:
                    np.testing.assert_array_equal(a, b)
    after = stored(_traced(shared, xs[4], capfd, monkeypatch)[1])
    assert stored(_traced(shared, xs[6], capfd, monkeypatch)[1]) == after  # steady: nothing new per run
    monkeypatch.setenv("PADDLE_C_INFER_DP", "0")
    want = _run(own, xs[4])
    for runs in _runs_in_threads([shared.clone() for _ in range(3)], [xs[4]] * 3, 3):
        for got in runs:
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)
