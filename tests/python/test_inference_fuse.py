"""The fusion passes of paddle.inference (csrc/graph/pd_pass_fuse.c) and the fused ops they write
(ops/infer_fused.yaml): conv_bias_mkldnn_fuse_pass + conv_activation_mkldnn_fuse_pass ->
fused_conv2d, fc_fuse_pass -> fc, elementwise_act_onednn_fuse_pass -> fused_elementwise_add.
Each: the ops after the pass (from the SwitchIrDebug dumps), the fused program's outputs equal the
unfused program's (IR off) and a numpy reference, and DeletePass turns the pass off. The fixture
models with every pass on against real Paddle's outputs are tests/python/test_inference.py's.
Also the separable max-pooling path (csrc/kernels/cpu/pool.c) against a direct numpy loop."""
import os

import numpy as np
import pytest

import paddle
import paddle.inference as pi
import paddle.nn.functional as F

FUSE_PASSES = ["conv_bias_mkldnn_fuse_pass", "conv_elementwise_add_mkldnn_fuse_pass",
               "conv_activation_mkldnn_fuse_pass", "conv_to_fused_pass", "fc_fuse_pass",
               "elementwise_act_onednn_fuse_pass"]


def _op_types(path):
    prog = paddle.static.Program.parse_from_string(open(path, "rb").read())
    return [op.type for op in prog.global_block().ops]


def _save(prefix, build, shape, holder=None):
    """holder: names of parameters the builder stored -> their initial values (numpy) after the call"""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", shape, "float32")
            y = build(x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        for k, v in (holder or {}).items():
            holder[k] = np.array(paddle.static.global_scope().find_var(v).get_tensor())
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()


def _run(prefix, xv, tmp, ir=True, delete=()):
    """outputs and the op types after every pass (dump name -> types)"""
    dbg = os.path.join(tmp, f"dbg_{int(ir)}_{'_'.join(delete)}")
    os.environ["PADDLE_C_IR_DEBUG_DIR"] = dbg
    try:
        if os.path.exists(prefix + ".pdiparams"):
            cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        else:  # no weights: no .pdiparams (as Paddle writes it)
            cfg = pi.Config()
            cfg.set_prog_file(prefix + ".pdmodel")
        cfg.switch_ir_optim(ir)
        cfg.switch_ir_debug(True)
        for p in delete:
            cfg.delete_pass(p)
        out = pi.create_predictor(cfg).run([xv])[0]
    finally:
        del os.environ["PADDLE_C_IR_DEBUG_DIR"]
    dumps = sorted(f for f in os.listdir(dbg) if f.endswith(".pdmodel")) if os.path.isdir(dbg) else []
    return out, {f[3:-len(".pdmodel")]: _op_types(os.path.join(dbg, f)) for f in dumps}


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(float(np.abs(want).max()), 1.0))


def _np_conv(x, w, b, pad, groups=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i:i + oh, j:j + ow]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    return y + b.reshape(1, -1, 1, 1)


ACTS = {  # activation, numpy reference, the fuse_activation name it becomes
    "relu": (F.relu, lambda v: np.maximum(v, 0), "relu"),
    "relu6": (F.relu6, lambda v: np.clip(v, 0, 6), "clip"),  # our relu6 records clip(0, 6)
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.1), lambda v: np.where(v > 0, v, 0.1 * v), "leaky_relu"),
    "hardswish": (F.hardswish, lambda v: v * np.clip(v + 3, 0, 6) / 6, "hard_swish"),
    "swish": (F.swish, lambda v: v / (1 + np.exp(-v)), "swish"),
    "sigmoid": (F.sigmoid, lambda v: 1 / (1 + np.exp(-v)), "sigmoid"),
    "hardsigmoid": (F.hardsigmoid, lambda v: np.clip(v / 6 + 0.5, 0, 1), "hard_sigmoid"),
    "tanh": (paddle.tanh, np.tanh, "tanh"),
}


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("kind", ["conv", "depthwise", "pointwise"])
def test_conv_bias_act_fuses_into_fused_conv2d(tmp_path, act, kind):
    fn, ref, fused_name = ACTS[act]
    cin, cout, k, groups = {"conv": (3, 8, 3, 1), "depthwise": (8, 8, 3, 8), "pointwise": (8, 16, 1, 1)}[kind]
    pad = k // 2
    holder = {}

    def build(x):
        conv = paddle.nn.Conv2D(cin, cout, k, padding=pad, groups=groups)
        holder["w"], holder["b"] = conv.weight.name, conv.bias.name
        return fn(conv(x))

    prefix = str(tmp_path / "m")
    _save(prefix, build, [None, cin, 9, 10], holder)
    xv = np.random.default_rng(0).standard_normal([2, cin, 9, 10]).astype("float32") * 2
    got, dumps = _run(prefix, xv, str(tmp_path))
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    _close(got, off)
    w, b = holder["w"], holder["b"]
    _close(got, ref(_np_conv(xv, w, b, pad, groups)), 1e-4)
    after_bias = dumps["conv_bias_mkldnn_fuse_pass"]
    after_act = dumps["conv_activation_mkldnn_fuse_pass"]
    assert "fused_conv2d" in after_bias and "elementwise_add" not in after_bias, after_bias
    assert after_act.count("fused_conv2d") == 1 and not {"conv2d", "depthwise_conv2d", "elementwise_add"} & set(after_act)
    act_ops = set(dumps["origin"]) - set(after_act) - {"conv2d", "depthwise_conv2d", "elementwise_add", "scale", "reshape2"}
    assert len(act_ops) == 1, (dumps["origin"], after_act)
    dbg = os.path.join(str(tmp_path), "dbg_1_")
    name = next(f for f in os.listdir(dbg) if f.endswith("conv_activation_mkldnn_fuse_pass.pdmodel"))
    prog = paddle.static.Program.parse_from_string(open(os.path.join(dbg, name), "rb").read())
    op = next(o for o in prog.global_block().ops if o.type == "fused_conv2d")
    assert op.attr("fuse_activation") == fused_name
    # DeletePass: the activation stays a separate op, the outputs do not change
    got2, dumps2 = _run(prefix, xv, str(tmp_path), delete=("conv_activation_mkldnn_fuse_pass",))
    assert "conv_activation_mkldnn_fuse_pass" not in dumps2
    last = list(dumps2.values())[-1]
    assert "fused_conv2d" in last and act_ops <= set(last), last
    _close(got2, off)


def test_conv_bias_pass_deleted_keeps_conv2d(tmp_path):
    prefix = str(tmp_path / "m")
    _save(prefix, lambda x: F.relu(paddle.nn.Conv2D(3, 4, 3)(x)), [None, 3, 6, 6])
    xv = np.random.default_rng(1).standard_normal([1, 3, 6, 6]).astype("float32")
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    got, dumps = _run(prefix, xv, str(tmp_path), delete=("conv_bias_mkldnn_fuse_pass", "conv_to_fused_pass"))
    last = list(dumps.values())[-1]
    # the convolution keeps its separate bias add (which then takes the relu)
    assert "conv_bias_mkldnn_fuse_pass" not in dumps
    assert "conv2d" in last and "fused_conv2d" not in last and "fused_elementwise_add" in last, last
    _close(got, off)
    # conv_to_fused_pass alone: the bare convolution becomes a fused_conv2d without Bias
    got, dumps = _run(prefix, xv, str(tmp_path), delete=("conv_bias_mkldnn_fuse_pass",))
    last = list(dumps.values())[-1]
    assert "conv2d" not in last and "fused_conv2d" in last and "fused_elementwise_add" in last, last
    _close(got, off)


@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("rank", [2, 3])
def test_fc_fuse_pass(tmp_path, relu, rank):
    holder = {}

    def build(x):
        lin = paddle.nn.Linear(16, 12)
        holder["w"], holder["b"] = lin.weight.name, lin.bias.name
        y = lin(x)
        return F.relu(y) if relu else y

    prefix = str(tmp_path / "m")
    shape = [None, 16] if rank == 2 else [None, 5, 16]
    _save(prefix, build, shape, holder)
    xv = np.random.default_rng(2).standard_normal([3, 16] if rank == 2 else [3, 5, 16]).astype("float32")
    got, dumps = _run(prefix, xv, str(tmp_path))
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    _close(got, off)
    w, b = holder["w"], holder["b"]
    want = xv.astype(np.float64) @ w + b
    _close(got, np.maximum(want, 0) if relu else want, 1e-5)
    after = dumps["fc_fuse_pass"]
    assert after.count("fc") == 1 and not {"matmul_v2", "elementwise_add", "relu"} & set(after), after
    got2, dumps2 = _run(prefix, xv, str(tmp_path), delete=("fc_fuse_pass",))
    last = list(dumps2.values())[-1]
    assert "fc" not in last and "matmul_v2" in last, last
    _close(got2, off)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("k,n", [(2048, 1000), (1027, 257), (130, 2049)])
def test_fc_batch1_rows_split(tmp_path, k, n, relu, threads, monkeypatch):
    """an fc at batch 1 whose weights pass 1 MB (ResNet-50's 2048 x 1000 head) runs as a vector
    times the matrix with the threads on contiguous ranges of the weight rows (matmul.c
    pd_gemv_rows_f32; K not a multiple of 4 or of the threads: the tails): against float64 numpy, and
    against the GEMM it replaces (PADDLE_C_FC_GEMV=0, read per call); batch 2 (the GEMM, or split
    across the threads into two batch-1 parts) likewise"""
    holder = {}

    def build(x):
        lin = paddle.nn.Linear(k, n)
        holder["w"], holder["b"] = lin.weight.name, lin.bias.name
        y = lin(x)
        return F.relu(y) if relu else y

    prefix = str(tmp_path / "m")
    _save(prefix, build, [None, k], holder)
    w, b = holder["w"], holder["b"]
    cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    cfg.set_cpu_math_library_num_threads(threads)
    p = pi.create_predictor(cfg)
    rng = np.random.default_rng(k + n)
    for batch in (1, 2):
        xv = rng.standard_normal([batch, k]).astype("float32")
        want = xv.astype(np.float64) @ w + b
        want = np.maximum(want, 0) if relu else want
        monkeypatch.delenv("PADDLE_C_FC_GEMV", raising=False)
        got = p.run([xv])[0].copy()
        monkeypatch.setenv("PADDLE_C_FC_GEMV", "0")
        ref = p.run([xv])[0].copy()
        _close(got, want, 1e-5)
        _close(ref, want, 1e-5)
        if batch == 1 and threads > 1:  # another order of the sums: not the GEMM's bits
            assert not np.array_equal(got, ref)


@pytest.mark.parametrize("act", ["relu", "hardswish", "sigmoid", "leaky_relu"])
def test_elementwise_act_fuse_pass(tmp_path, act):
    fn, ref, fused_name = ACTS[act]
    prefix = str(tmp_path / "m")

    with pytest.warns(UserWarning, match="no variable"):  # Paddle's warning: no weights
        _save(prefix, lambda x: fn(x + paddle.flip(x, [3])), [None, 4, 5, 6])
    xv = np.random.default_rng(3).standard_normal([2, 4, 5, 6]).astype("float32") * 3
    got, dumps = _run(prefix, xv, str(tmp_path))
    _close(got, ref(xv.astype(np.float64) + xv[..., ::-1]), 1e-5)
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    _close(got, off)
    after = dumps["elementwise_act_onednn_fuse_pass"]
    assert "fused_elementwise_add" in after and "elementwise_add" not in after, after
    got2, dumps2 = _run(prefix, xv, str(tmp_path), delete=("elementwise_act_onednn_fuse_pass",))
    assert "fused_elementwise_add" not in list(dumps2.values())[-1]
    _close(got2, off)


def test_broadcast_add_act_fuses(tmp_path):
    """an add whose second operand broadcasts (a [C, 1, 1] weight over [N, C, H, W])"""
    prefix = str(tmp_path / "m")

    def build(x):
        w = paddle.static.create_parameter([4, 1, 1], "float32",
                                           default_initializer=paddle.nn.initializer.Uniform(-1, 1))
        return F.relu(x + w)

    _save(prefix, build, [None, 4, 3, 5])
    xv = np.random.default_rng(4).standard_normal([2, 4, 3, 5]).astype("float32")
    got, dumps = _run(prefix, xv, str(tmp_path))
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    _close(got, off)
    assert "fused_elementwise_add" in list(dumps.values())[-1]


def test_fused_ops_keep_fetched_intermediates(tmp_path):
    """a conv output that is also fetched is not absorbed"""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3, 6, 6], "float32")
            c = paddle.nn.Conv2D(3, 4, 3)(x)
            y = F.relu(c)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        prefix = str(tmp_path / "m")
        paddle.static.save_inference_model(prefix, [x], [c, y], exe, program=main)
    finally:
        paddle.disable_static()
    xv = np.random.default_rng(5).standard_normal([2, 3, 6, 6]).astype("float32")
    outs = []
    for ir in (False, True):
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.switch_ir_optim(ir)
        outs.append(pi.create_predictor(cfg).run([xv]))
    for a, b in zip(*outs):
        _close(b, a)
    np.testing.assert_array_equal(outs[1][1], np.maximum(outs[1][0], 0))


# ------------------------------------------------------------------ separable max pooling
def _np_maxpool(x, k, s, p, ceil):
    n, c, h, w = x.shape
    def osz(i):
        return (i + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    oh, ow = osz(h), osz(w)
    y = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h), min(w0 + k, w)
            h0, w0 = max(h0, 0), max(w0, 0)
            win = x[:, :, h0:h1, w0:w1].reshape(n, c, -1)
            m = win.max(-1)
            y[:, :, i, j] = np.where(np.isnan(win).any(-1), np.nan, m)
    return y


@pytest.mark.parametrize("k,s,p,ceil", [(2, 2, 0, True), (2, 2, 0, False), (3, 2, 1, False), (5, 1, 2, False),
                                         (13, 1, 6, False), (3, 1, 1, True), (3, 3, 0, True)])
def test_max_pool_separable_matches_direct(k, s, p, ceil):
    rng = np.random.default_rng(k * 10 + s)
    xv = rng.standard_normal([2, 3, 17, 15]).astype("float32")
    xv[0, 1, 4, 7] = np.nan
    got = F.max_pool2d(paddle.to_tensor(xv), k, s, p, ceil_mode=ceil).numpy()
    want = _np_maxpool(xv, k, s, p, ceil)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_bfloat16_request_says_so_and_stays_float32(tmp_path, monkeypatch):
    """EnableMkldnnBfloat16 where the CPU lacks avx512_bf16/AMX-BF16 (cpuid; PADDLE_C_FAKE_NO_BF16
    plays such a CPU): a warning, Summary says why, and the predictor's outputs are the float32
    ones, bit for bit. (With the units: tests/python/test_bf16_conv.py.)"""
    monkeypatch.setenv("PADDLE_C_FAKE_NO_BF16", "1")
    prefix = str(tmp_path / "m")
    _save(prefix, lambda x: F.relu(paddle.nn.Conv2D(3, 4, 3)(x)), [None, 3, 6, 6])
    xv = np.random.default_rng(6).standard_normal([2, 3, 6, 6]).astype("float32")
    outs = []
    for bf16 in (False, True):
        cfg = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        if bf16:
            with pytest.warns(RuntimeWarning, match="AVX512_BF16"):
                cfg.enable_mkldnn_bfloat16()
            assert not cfg.mkldnn_bfloat16_enabled()
            line = next(ln for ln in cfg.summary().splitlines() if "mkldnn_bfloat16" in ln)
            assert "no avx512_bf16/AMX-BF16" in line, line
        outs.append(pi.create_predictor(cfg).run([xv])[0])
    assert outs[1].dtype == np.float32
    np.testing.assert_array_equal(outs[1], outs[0])


def _np_conv_transpose(x, w, s):
    """NCHW transposed convolution, no padding, groups 1, w [C, O, kh, kw] (float64)"""
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    y = np.zeros((n, o, (h - 1) * s + kh, (wd - 1) * s + kw))
    for i in range(kh):
        for j in range(kw):
            y[:, :, i:i + s * h:s, j:j + s * wd:s] += np.einsum("nchw,co->nohw", x, w[:, :, i, j])
    return y


@pytest.mark.parametrize("k,s,bias,groups", [(2, 2, True, 1), (3, 2, False, 1), (2, 2, True, 2)])
def test_conv_transpose_bn_fuse_pass(tmp_path, k, s, bias, groups):
    """conv_transpose_eltwiseadd_bn_fuse_pass: conv2d_transpose [-> bias add] -> batch_norm -> relu
    becomes conv2d_transpose with scaled filters -> one add of the folded bias (fused with the relu):
    no batch_norm left; outputs as numpy (float64, the batch_norm applied as written), IR off and
    the pass deleted. groups 2: not folded (the batch_norm stays)"""
    prefix = str(tmp_path / "m")
    names = {}

    def build(x):
        conv = paddle.nn.Conv2DTranspose(4, 6, k, stride=s, groups=groups, bias_attr=None if bias else False)
        bn = paddle.nn.BatchNorm2D(6)
        names.update(w=conv.weight.name, b=conv.bias.name if bias else None, g=bn.weight.name, be=bn.bias.name,
                     m=bn._mean.name, v=bn._variance.name)
        return F.relu(bn(conv(x)))

    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 4, 5, 7], "float32")
            y = build(x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        scope, rng, vals = paddle.static.global_scope(), np.random.default_rng(5), {}
        for key, name in names.items():
            if name is None:
                continue
            t = scope.find_var(name).get_tensor()
            a = np.array(t)
            a = rng.uniform(0.5, 1.5, a.shape) if key == "v" else rng.uniform(-1, 1, a.shape)
            t.set(a.astype("float32"), paddle.CPUPlace())
            vals[key] = a.astype("float32").astype(np.float64)
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    xv = np.random.default_rng(6).standard_normal([3, 4, 5, 7]).astype("float32")
    got, dumps = _run(prefix, xv, str(tmp_path))
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    _close(got, off)
    after = dumps["conv_transpose_eltwiseadd_bn_fuse_pass"]
    if groups == 1:
        ref = _np_conv_transpose(xv.astype(np.float64), vals["w"], s)
        if bias:
            ref += vals["b"][None, :, None, None]
        ref = (ref - vals["m"][None, :, None, None]) / np.sqrt(vals["v"][None, :, None, None] + 1e-5)
        ref = np.maximum(ref * vals["g"][None, :, None, None] + vals["be"][None, :, None, None], 0)
        _close(got, ref, 1e-5)
        assert "batch_norm" not in after and after.count("elementwise_add") == 1, after
        assert "batch_norm" not in list(dumps.values())[-1] and "fused_elementwise_add" in list(dumps.values())[-1]
    else:
        assert "batch_norm" in after, after
    got2, dumps2 = _run(prefix, xv, str(tmp_path), delete=("conv_transpose_eltwiseadd_bn_fuse_pass",))
    assert "batch_norm" in list(dumps2.values())[-1]
    _close(got2, off)


@pytest.mark.parametrize("order", ["y+y*s", "y*s+y", "s*y+y", "big"])
def test_se_residual_fold_pass(tmp_path, order):
    """se_residual_fold_pass: y + y * s with s a [N, C, 1, 1] squeeze-excitation scale becomes
    y * (s + 1) (a scale op on s, one multiply over y), in each operand order; outputs as numpy
    (float64), IR off and the pass deleted. "big": s as large as y (y + y * sigmoid(y)): left alone"""
    prefix = str(tmp_path / "m")
    holder = {}

    def build(x):
        conv = paddle.nn.Conv2D(3, 8, 3, padding=1)
        holder.update(w=conv.weight.name, b=conv.bias.name)
        y = conv(x)
        s = F.sigmoid(F.adaptive_avg_pool2d(y, 1)) if order != "big" else F.sigmoid(y)
        if order == "y+y*s" or order == "big":
            return y + y * s
        return y * s + y if order == "y*s+y" else s * y + y

    _save(prefix, build, [None, 3, 6, 5], holder)
    holder = {k: v.astype(np.float64) for k, v in holder.items()}
    xv = np.random.default_rng(8).standard_normal([2, 3, 6, 5]).astype("float32")
    got, dumps = _run(prefix, xv, str(tmp_path))
    y = _np_conv(xv.astype(np.float64), holder["w"], holder["b"], 1)
    s = 1 / (1 + np.exp(-(y.mean(axis=(2, 3), keepdims=True) if order != "big" else y)))
    _close(got, y + y * s, 1e-5)
    off, _ = _run(prefix, xv, str(tmp_path), ir=False)
    _close(got, off)
    before, after = dumps["conv_bn_fuse_pass"], dumps["se_residual_fold_pass"]  # the pass before it, this one
    if order == "big":
        assert after == before, after
    else:
        assert after.count("elementwise_add") == before.count("elementwise_add") - 1, (before, after)
        assert after.count("elementwise_mul") == 1 and after.count("scale") == before.count("scale") + 1, after
    got2, dumps2 = _run(prefix, xv, str(tmp_path), delete=("se_residual_fold_pass",))
    assert "scale" not in list(dumps2.values())[-1]
    _close(got2, off)
