"""Micro-batches in the predictor (csrc/api/pd_infer_mbatch.c): a program that computes every
sample on its own runs a batch larger than the chunk size as consecutive chunks and joins the
fetched values along dim 0. Each network runs chunked (PADDLE_C_INFER_MICROBATCH=k), whole
(=0) and with IR optimisation off (the plain executor, which never chunks); the three must agree.
Programs that mix samples (a mean over the batch, a concat along dim 0, a reshape that folds the
batch) must be left whole: chunking them would change the answer, which these tests would see.
PADDLE_C_INFER_LAYOUT=trace prints the decisions ([mbatch] lines)."""
import os

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn as nn
import paddle.nn.functional as F
from fixture_util import fc, needs_fixtures
from test_inference import run as _run  # feed, run, fetch every output through the handles
from test_inference_layout import _save  # the static-program saver with non-trivial BN statistics


def _predictor(prog, params, mb, ir=True, monkeypatch=None):
    cfg = pi.Config(prog, params)
    cfg.switch_ir_optim(ir)
    cfg.enable_mkldnn()
    cfg.enable_memory_optim()
    old = os.environ.get("PADDLE_C_INFER_MICROBATCH")
    if mb is None:
        os.environ.pop("PADDLE_C_INFER_MICROBATCH", None)
    else:
        os.environ["PADDLE_C_INFER_MICROBATCH"] = str(mb)
    try:
        return pi.create_predictor(cfg)  # the chunk size is decided here
    finally:
        if old is None:
            os.environ.pop("PADDLE_C_INFER_MICROBATCH", None)
        else:
            os.environ["PADDLE_C_INFER_MICROBATCH"] = old


def _agree(got, want, what, tol=2e-5):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, what
        scale = max(float(np.abs(w).max()), 1.0) if w.size else 1.0
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, err_msg=what)


def _saved_traced(tmp_path, capfd, monkeypatch, make, shape, mb):
    """saves make's network, then creates a predictor with chunk size mb under the trace;
    returns (prog, params, predictor, the trace's lines)"""
    prefix = str(tmp_path / "m")
    _save(prefix, make, shape)
    prog, params = prefix + ".pdmodel", prefix + ".pdiparams"
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    capfd.readouterr()
    p = _predictor(prog, params, mb)
    return prog, params, p, capfd.readouterr().err


def _traced_run(p, xv, capfd, monkeypatch):
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    capfd.readouterr()
    got = _run(p, xv)
    err = capfd.readouterr().err
    monkeypatch.delenv("PADDLE_C_INFER_LAYOUT")
    return got, err


class _Net(nn.Layer):
    """ten convolutions: conv-bn-hardswish stem, squeeze-excitation (global pool, two 1x1
    convolutions, hardsigmoid, channel multiply), depthwise + pointwise with a residual add,
    two branches joined by a channel concat, a nearest upsample, a transpose and reshape that keep
    the sample axis, flatten, fc, softmax; fetches the logits and a convolution output"""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2D(3, 16, 3, stride=2, padding=1, bias_attr=False)
        self.bn = nn.BatchNorm2D(16)
        self.s1 = nn.Conv2D(16, 8, 1)
        self.s2 = nn.Conv2D(8, 16, 1)
        self.dw = nn.Conv2D(16, 16, 3, padding=1, groups=16)
        self.pw = nn.Conv2D(16, 16, 1)
        self.b1 = nn.Conv2D(16, 8, 1)
        self.b2 = nn.Conv2D(16, 16, 3, padding=1)
        self.up = nn.Conv2D(24, 24, 1)
        self.down = nn.Conv2D(24, 24, 3, stride=2, padding=1)
        self.fc = nn.Linear(24 * 4, 10)

    def forward(self, x):
        x = F.hardswish(self.bn(self.stem(x)))
        s = F.hardsigmoid(self.s2(F.relu(self.s1(F.adaptive_avg_pool2d(x, 1)))))
        x = x * s
        x = x + self.pw(F.relu(self.dw(x)))
        y = paddle.concat([self.b1(x), self.b2(x)], axis=1)
        feat = self.up(y)
        z = F.interpolate(F.max_pool2d(feat, 2, 2), scale_factor=2, mode="nearest")
        z = F.relu(self.down(z))
        z = F.adaptive_avg_pool2d(z, 2)
        z = paddle.transpose(z, [0, 2, 3, 1])
        z = paddle.reshape(z, [-1, 24 * 4])
        return [F.softmax(self.fc(z), axis=-1), feat]


def test_chunked_runs_agree_with_whole_batches(tmp_path, capfd, monkeypatch):
    prog, params, chunked, _ = _saved_traced(tmp_path, capfd, monkeypatch, _Net, [None, 3, 16, 16], 4)
    whole = _predictor(prog, params, 0)
    auto = _predictor(prog, params, None)
    err = capfd.readouterr().err
    assert "[mbatch] auto: 4" in err and "whole batches only" not in err, err
    monkeypatch.delenv("PADDLE_C_INFER_LAYOUT")
    ir_off = _predictor(prog, params, 4, ir=False)
    rng = np.random.default_rng(1)
    for n, h, w in ((10, 16, 16), (4, 16, 16), (16, 16, 16), (1, 16, 16), (10, 16, 16)):
        xv = {"x": rng.standard_normal([n, 3, h, w]).astype("float32")}
        want = _run(ir_off, xv)
        got, err = _traced_run(chunked, xv, capfd, monkeypatch)
        assert "not joinable" not in err, err
        if n > 4:  # 10 -> 4 + 3 + 3, 16 -> 4 x 4
            last = "[mbatch] chunk 2: 3 of 10" if n == 10 else "[mbatch] chunk 3: 4 of 16"
            assert last in err, err
        else:
            assert "[mbatch] chunk" not in err, err
        assert _run(chunked, xv)[0].tobytes() == got[0].tobytes()  # the second run (memory plan) the same
        _agree(got, want, f"chunked vs IR off, n={n}")
        _agree(got, _run(whole, xv), f"chunked vs whole, n={n}")
        _agree(_run(auto, xv), want, f"auto vs IR off, n={n}")
        assert got[0].shape == (n, 10) and got[1].shape == (n, 24, h // 2, w // 2)


class _MeanOverBatch(nn.Layer):
    def __init__(self):
        super().__init__()
        self.convs = nn.LayerList([nn.Conv2D(8 if i else 3, 8, 3, padding=1) for i in range(8)])

    def forward(self, x):
        for c in self.convs:
            x = F.relu(c(x))
        return x - paddle.mean(x, axis=0, keepdim=True)


class _ConcatBatch(_MeanOverBatch):
    def forward(self, x):
        for c in self.convs:
            x = F.relu(c(x))
        y = paddle.concat([x, x * 2.0], axis=0)
        return paddle.flip(y, [0])


class _FoldBatch(_MeanOverBatch):
    def forward(self, x):
        for c in self.convs:
            x = F.relu(c(x))
        # [N, 8, 4, 4] -> [N / 2, 256]: two samples per row
        return F.softmax(paddle.reshape(x, [-1, 256]), axis=-1)


@pytest.mark.parametrize("make,op", [(_MeanOverBatch, "reduce_mean"), (_ConcatBatch, "concat"),
                                     (_FoldBatch, "reshape2")])
def test_programs_mixing_samples_run_whole(tmp_path, capfd, monkeypatch, make, op):
    prog, params, p, err = _saved_traced(tmp_path, capfd, monkeypatch, make, [None, 3, 4, 4], 2)
    assert f"[mbatch] whole batches only: {op}" in err, err
    xv = {"x": np.random.default_rng(2).standard_normal([10, 3, 4, 4]).astype("float32")}
    got = _run(p, xv)
    assert "[mbatch] chunk" not in capfd.readouterr().err
    monkeypatch.delenv("PADDLE_C_INFER_LAYOUT")
    _agree(got, _run(_predictor(prog, params, 2, ir=False), xv), "vs IR off")


@needs_fixtures
def test_detection_model_in_chunks(capfd, monkeypatch):
    """ppyolo_tiny: yolo_box + multiclass_nms3; Out holds each image's rows in image order and
    NmsRoisNum one count per image, so the chunks' values join along dim 0"""
    prog, params = fc.paths("ppyolo_tiny_320")
    feeds = fc._det_feeds(5, 320, 320, 9)
    rng = np.random.default_rng(4)
    feeds["image"] = (feeds["image"] + rng.uniform(-0.5, 0.5, feeds["image"].shape)).astype("float32")
    monkeypatch.setenv("PADDLE_C_INFER_LAYOUT", "trace")
    chunked = _predictor(prog, params, 2)
    capfd.readouterr()
    got = _run(chunked, feeds)
    err = capfd.readouterr().err
    assert "[mbatch] chunk 2: 1 of 5" in err and "not joinable" not in err, err
    monkeypatch.delenv("PADDLE_C_INFER_LAYOUT")
    want = _run(_predictor(prog, params, 0), feeds)
    names = chunked.get_output_names()
    counts = [a for n, a in zip(names, got) if a.ndim == 1][0]
    assert counts.shape == (5,) and counts.sum() == [a for a in got if a.ndim == 2][0].shape[0]
    assert (counts > 0).all()
    _agree(got, want, "ppyolo chunked vs whole", tol=1e-4)


class _HeavyTail(nn.Layer):
    """eight convolutions on large activations (16 channels at 32x32 down to 8x8), then a tail of
    8 MB of weights (fc 1024 -> 2100, fc 2100 -> 10) and a softmax: the front runs in chunks, the
    tail once on the whole batch"""

    def __init__(self):
        super().__init__()
        self.convs = nn.LayerList([nn.Conv2D(3 if i == 0 else 16, 16, 3, stride=2 if i in (3, 6) else 1, padding=1)
                                   for i in range(8)])
        self.bn = nn.BatchNorm2D(16)
        self.fc1 = nn.Linear(16 * 8 * 8, 2100)
        self.fc2 = nn.Linear(2100, 10)

    def forward(self, x):
        for i, c in enumerate(self.convs):
            x = F.relu(c(x))
            if i == 4:
                x = self.bn(x)
        y = F.relu(self.fc1(paddle.flatten(x, 1)))
        return F.softmax(self.fc2(y), axis=-1)


def test_split_front_in_chunks_tail_whole(tmp_path, capfd, monkeypatch):
    prog, params, split, err = _saved_traced(tmp_path, capfd, monkeypatch, _HeavyTail, [None, 3, 32, 32], 4)
    assert ": split" in err, err
    monkeypatch.setenv("PADDLE_C_INFER_MICROBATCH_SPLIT", "0")
    unsplit = _predictor(prog, params, 4)
    err = capfd.readouterr().err
    assert "tail from" not in err, err
    monkeypatch.delenv("PADDLE_C_INFER_MICROBATCH_SPLIT")
    monkeypatch.delenv("PADDLE_C_INFER_LAYOUT")
    _check_split(split, unsplit, _predictor(prog, params, 4, ir=False), (10, 16, 3, 10), 6, capfd, monkeypatch)


def _check_split(split, other, ir_off, batches, seed, capfd, monkeypatch):
    """runs split on [n, 3, 32, 32] batches: front chunks and a whole-batch tail in the trace where
    n > 4, nothing chunked below; a second run identical; outputs as other's and IR off's"""
    rng = np.random.default_rng(seed)
    for n in batches:
        xv = {"x": rng.standard_normal([n, 3, 32, 32]).astype("float32")}
        want = _run(ir_off, xv)
        got, err = _traced_run(split, xv, capfd, monkeypatch)
        if n > 4:
            assert f"[mbatch] tail: {n}" in err and "[mbatch] chunk 1:" in err, err
        else:
            assert "[mbatch]" not in err, err
        assert _run(split, xv)[0].tobytes() == got[0].tobytes()
        _agree(got, want, f"split vs IR off, n={n}")
        _agree(got, _run(other, xv), f"split vs unsplit / whole, n={n}")
        assert got[0].shape == (n, 10)


def test_split_clones_in_threads(tmp_path):
    """clones analyse and split on their own (their own front and tail executors): two threads,
    batches of 10, each as the whole-batch predictor"""
    prefix = str(tmp_path / "m")
    _save(prefix, _HeavyTail, [None, 3, 32, 32])
    prog, params = prefix + ".pdmodel", prefix + ".pdiparams"
    base = _predictor(prog, params, 4)
    clones = [base.clone(), base.clone()]
    whole = _predictor(prog, params, 0)
    rng = np.random.default_rng(8)
    xs = [{"x": rng.standard_normal([10, 3, 32, 32]).astype("float32")} for _ in clones]
    res = _runs_in_threads(clones, xs, 3)
    for i, x in enumerate(xs):
        _agree(res[i][-1], _run(whole, x), f"clone {i} vs whole")


def _runs_in_threads(preds, xs, times):
    """predictor i run on xs[i] `times` times in Python thread i, all threads at once: each thread's
    outputs, run by run"""
    import threading
    res = [[] for _ in preds]

    def work(i):
        for _ in range(times):
            res[i].append(_run(preds[i], xs[i]))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(preds))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return res


class _Staged(nn.Layer):
    """a 32x32 stage of 12 channels (blocked with padding lanes: 12 of 16) of nine convolutions with
    residual adds, then a 16x16 and an 8x8 stage and a tail of 8.6 MB of weights (fc 1536 ->
    1400; with `light` fc 1536 -> 10 instead); with `front_out`, also fetches the 32x32 stage's
    output"""

    def __init__(self, front_out=False, light=False):
        super().__init__()
        self.front_out, self.light = front_out, light
        self.stem = nn.Conv2D(3, 12, 3, padding=1)
        self.blocks = nn.LayerList([nn.Conv2D(12, 12, 3 if i % 2 else 1, padding=i % 2) for i in range(8)])
        self.bn = nn.BatchNorm2D(12)  # folded into the stem
        self.d1 = nn.Conv2D(12, 24, 3, stride=2, padding=1)
        self.c1 = nn.Conv2D(24, 24, 3, padding=1)
        self.d2 = nn.Conv2D(24, 24, 3, stride=2, padding=1)
        self.fc = nn.Linear(24 * 8 * 8, 1400)
        self.fc2 = nn.Linear(1400, 10)
        self.fc3 = nn.Linear(24 * 8 * 8, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        for i in range(0, 8, 2):
            x = F.relu(x + self.blocks[i + 1](F.relu(self.blocks[i](x))))
        front = x
        x = F.relu(self.d1(x))
        x = F.relu(x + self.c1(x))
        x = F.relu(self.d2(x))
        x = paddle.flatten(x, 1)
        y = F.softmax(self.fc3(x) if self.light else self.fc2(F.relu(self.fc(x))), axis=-1)
        return [y, front] if self.front_out else y


def _staged_3mb(tmp_path, capfd, monkeypatch, make):
    """a _Staged network saved and traced with a 3 MB last-level cache (PADDLE_C_INFER_MICROBATCH_L3):
    (prog, params, traced predictor, its trace); the cache size and the layout trace unset after"""
    monkeypatch.setenv("PADDLE_C_INFER_MICROBATCH_L3", str(3 << 20))
    got = _saved_traced(tmp_path, capfd, monkeypatch, make, [None, 3, 32, 32], None)
    monkeypatch.delenv("PADDLE_C_INFER_MICROBATCH_L3")
    monkeypatch.delenv("PADDLE_C_INFER_LAYOUT")
    return got


def test_split_after_the_large_activations(tmp_path, capfd, monkeypatch):
    """with a 3 MB last-level cache (PADDLE_C_INFER_MICROBATCH_L3) the 32x32 stage's layers
    (~150 KB a sample) are the ones whose batch of 16 fills more than half of it: the cut lands
    right after that stage, at a convolution (not at the fc as with the real cache), and the tail
    is fed the joined blocked (padded) activation. Batches of 10, 7, 16, 3, 5 agree with whole batches and IR off."""
    prog, params, split, err = _staged_3mb(tmp_path, capfd, monkeypatch, _Staged)
    assert "(fused_conv2d) reads" in err and ": split" in err and "[mbatch] auto: 4" in err, err
    whole = _predictor(prog, params, 0)
    _check_split(split, whole, _predictor(prog, params, 4, ir=False), (10, 7, 16, 3, 5), 11, capfd, monkeypatch)


def test_split_feeds_a_front_value_on(tmp_path, capfd, monkeypatch):
    """the same network also fetching the 32x32 stage's output (through save_inference_model's
    final scale op, in the tail): that value is the one live across the cut, joined once and fed
    to the tail both to the next convolution (blocked) and to the scale (made plain there)"""
    prog, params, p, err = _staged_3mb(tmp_path, capfd, monkeypatch, lambda: _Staged(front_out=True))
    assert "(fused_conv2d) reads" in err and ": split" in err, err
    ir_off = _predictor(prog, params, 4, ir=False)
    for n in (9, 6):
        xv = {"x": np.random.default_rng(12 + n).standard_normal([n, 3, 32, 32]).astype("float32")}
        got, err = _traced_run(p, xv, capfd, monkeypatch)
        assert "[mbatch] chunk 2: 3 of 9" in err if n == 9 else "[mbatch] chunk 1: 3 of 6" in err, err
        assert f"[mbatch] tail: {n}" in err, err
        _agree(got, _run(ir_off, xv), f"split vs IR off, n={n}")
        assert got[1].shape == (n, 12, 32, 32)


def test_light_tail_not_split(tmp_path, capfd, monkeypatch):
    """the tail's weights under 8 MB (fc 1536 -> 10): re-reading them per chunk is cheap, so the
    rule keeps chunks throughout"""
    prog, params, p, err = _staged_3mb(tmp_path, capfd, monkeypatch, lambda: _Staged(light=True))
    assert ": not split" in err and "[mbatch] auto: 4" in err, err
    ir_off = _predictor(prog, params, 4, ir=False)
    xv = {"x": np.random.default_rng(13).standard_normal([9, 3, 32, 32]).astype("float32")}
    got, err = _traced_run(p, xv, capfd, monkeypatch)
    assert "[mbatch] chunk 2: 3 of 9" in err and "[mbatch] tail" not in err, err
    _agree(got, _run(ir_off, xv), "chunked vs IR off")
