"""paddle.onnx.export: each model exported at several opsets, checked by onnx.checker and run in
onnxruntime against our eager outputs (the reference: the same layer run eagerly here)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from paddle.static import InputSpec

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
M = paddle.vision.models


def _calibrate(model, x):
    """Random weights give near-zero activations deep in the zoo's models (BatchNorm at its
    initial statistics leaves the shrinking scale alone): set every BatchNorm's running
    statistics from its input on x, with random affine parameters, so each layer sees O(1)
    values and the comparison means something."""
    rng = np.random.RandomState(7)
    hooks = []

    def pre(layer, inputs):
        v = inputs[0].numpy()
        axes = tuple(i for i in range(v.ndim) if i != 1)
        c = v.shape[1]
        layer._mean.set_value(v.mean(axis=axes).astype("float32"))
        layer._variance.set_value((v.var(axis=axes) + 0.05).astype("float32"))
        layer.weight.set_value(rng.uniform(0.5, 1.5, c).astype("float32"))
        layer.bias.set_value(rng.uniform(-0.2, 0.3, c).astype("float32"))

    for sub in model.sublayers(include_self=True):
        if isinstance(sub, paddle.nn.layer.norm._BatchNormBase):
            hooks.append(sub.register_forward_pre_hook(pre))
    model.eval()
    with paddle.no_grad():
        model(paddle.to_tensor(x))
    for h in hooks:
        h.remove()


def _session(path):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def _eager(model, xs):
    with paddle.no_grad():
        out = model(*[paddle.to_tensor(x) for x in xs])
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.numpy() for o in outs]


def _check(model, xs, specs, opsets, tmp_path, tol=1e-5, extra_inputs=()):
    """Exports at each opset; checker + onnxruntime vs eager, |diff| <= tol * max(1, |ref|max).
    extra_inputs: more input tuples (other batch sizes) for a model exported with None dims."""
    model.eval()
    cases = [xs] + list(extra_inputs)
    refs = [_eager(model, c) for c in cases]
    for r in refs:
        assert max(float(np.abs(o).max()) for o in r) > 1e-3  # a comparison of real values
    for opset in opsets:
        path = str(tmp_path / f"m{opset}")
        paddle.onnx.export(model, path, input_spec=specs, opset_version=opset)
        proto = onnx.load(path + ".onnx")
        onnx.checker.check_model(proto)
        assert proto.opset_import[0].version == opset
        sess = _session(path + ".onnx")
        names = [i.name for i in sess.get_inputs()]
        assert names == [s.name for s in specs]
        for case, ref in zip(cases, refs):
            got = sess.run(None, dict(zip(names, case)))
            assert len(got) == len(ref)
            for g, r in zip(got, ref):
                assert g.shape == r.shape and g.dtype == r.dtype, (opset, g.shape, r.shape, g.dtype, r.dtype)
                if r.dtype == np.bool_:
                    assert (g == r).all(), f"opset {opset}: boolean outputs differ"
                    continue
                scale = max(1.0, float(np.abs(r).max()))
                err = float(np.abs(g.astype(np.float64) - r).max())
                assert err <= tol * scale, f"opset {opset}: max |onnx - eager| = {err} (scale {scale})"
    return proto


# The issue asks onnxruntime within 1e-5 of our outputs. LeNet, MobileNetV1/V3, VGG-16, the MLP,
# the RNNs and the Transformer meet it (of the output scale, max(1, |out|max)). ResNet-18/50 and
# MobileNetV2 do not, and cannot: with random weights and calibrated BatchNorms, their float32
# outputs differ from the exact (float64) result by 1e-5 to 1e-3 of the scale in both runtimes
# (two float32 programs summing in different orders; the error grows through the depth, no single
# layer jumps). _float64_argument shows this for each of them: the same model exported in float64
# and run by an independent executor (onnx's reference evaluator) equals our float64 run to
# <= 1e-7 (the graph is exact; that residue is float32-stored attributes such as epsilon), and in
# float32 onnxruntime is no further from the float64 result than twice our own distance (or
# 1e-5 of the scale). Measured of the scale (ours / onnxruntime vs float64): resnet18 1.3e-5 /
# 4.8e-6, mobilenet_v2 2.2e-5 / 2.4e-5, resnet50 7.3e-4 / 5.6e-4. Their direct comparison below uses DEEP_TOL, 5x the largest float32 noise
# measured (resnet18 1.2e-5, mobilenet_v2 4.4e-5 of the scale between the two runtimes).
DEEP_TOL = 2e-4
DEEP = {"resnet18", "mobilenet_v2"}


def _float64_argument(model, x, tmp_path, opset=15):
    """(opset 15: onnx's reference BatchNormalization before 14 always runs in training mode)"""
    from onnx.reference import ReferenceEvaluator
    model.eval()
    ours32 = _eager(model, [x])[0].astype(np.float64)
    paddle.onnx.export(model, str(tmp_path / "f32"), input_spec=[InputSpec(list(x.shape), "float32", "x")],
                       opset_version=opset)
    ort32 = _session(str(tmp_path / "f32.onnx")).run(None, {"x": x})[0].astype(np.float64)
    model.to(dtype="float64")
    try:
        ref64 = _eager(model, [x.astype("float64")])[0]
        paddle.onnx.export(model, str(tmp_path / "f64"), input_spec=[InputSpec(list(x.shape), "float64", "x")],
                           opset_version=opset)
    finally:
        model.to(dtype="float32")
    got64 = ReferenceEvaluator(str(tmp_path / "f64.onnx")).run(None, {"x": x.astype("float64")})[0]
    scale = max(1.0, float(np.abs(ref64).max()))
    assert got64.dtype == np.float64 and np.abs(got64 - ref64).max() <= 1e-7 * scale
    e_ours, e_ort = np.abs(ours32 - ref64).max(), np.abs(ort32 - ref64).max()
    # an error the export added would put onnxruntime further from the exact result than we are
    assert e_ort <= max(1e-5 * scale, 2 * e_ours), (e_ours, e_ort, scale)
    return e_ours / scale, e_ort / scale


def _img(shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape).astype("float32")


# ------------------------------------------------------------------ the vision zoo
def test_lenet_all_opsets(tmp_path):
    paddle.seed(1)
    m = M.LeNet()
    x = _img([2, 1, 28, 28])
    proto = _check(m, [x], [InputSpec([None, 1, 28, 28], "float32", "x")], [9, 10, 11, 12, 13, 14, 15, 16, 17],
                   tmp_path, extra_inputs=[[_img([5, 1, 28, 28], 1)]])
    d0 = proto.graph.input[0].type.tensor_type.shape.dim[0]
    assert d0.dim_param and not d0.HasField("dim_value")  # None -> a symbolic ONNX dim
    assert proto.graph.input[0].type.tensor_type.shape.dim[2].dim_value == 28
    kinds = {n.op_type for n in proto.graph.node}
    assert {"Conv", "MaxPool", "MatMul", "Relu"} <= kinds


@pytest.mark.parametrize("name,opsets", [("resnet18", [9, 13]), ("mobilenet_v1", [9, 15]),
                                         ("mobilenet_v2", [9, 11, 13]), ("mobilenet_v3_small", [9, 13, 14]),
                                         ("mobilenet_v3_large", [14])])
def test_vision_zoo(name, opsets, tmp_path):
    paddle.seed(2)
    m = getattr(M, name)()
    x = _img([1, 3, 64, 64])
    _calibrate(m, x)
    # batch, height and width all dynamic (the zoo's heads pool globally): another shape runs too
    tol = DEEP_TOL if name in DEEP else 1e-5
    proto = _check(m, [x], [InputSpec([None, 3, None, None], "float32", "image")], opsets[-1:], tmp_path,
                   tol=tol, extra_inputs=[[_img([2, 3, 48, 80], 3)]])
    if len(opsets) > 1:
        _check(m, [x], [InputSpec([1, 3, 64, 64], "float32", "image")], opsets[:-1], tmp_path, tol=tol)
    if name in DEEP:
        e_ours, e_ort = _float64_argument(m, x, tmp_path)
        assert e_ours < 1e-4 and e_ort < 1e-4
    kinds = {n.op_type for n in proto.graph.node}
    if name.startswith("mobilenet_v3"):
        assert ("HardSwish" in kinds) == (opsets[-1] >= 14)
    if name == "mobilenet_v2":
        assert "Clip" in kinds


def test_resnet50(tmp_path):
    # 50 calibrated float32 layers amplify rounding: ours and onnxruntime each differ from the
    # float64 result by ~7e-4 of the scale (5.9); _float64_argument shows the export is exact
    paddle.seed(3)
    m = M.resnet50()
    x = _img([1, 3, 64, 64])
    _calibrate(m, x)
    e_ours, e_ort = _float64_argument(m, x, tmp_path, opset=15)
    assert e_ours < 3e-3 and e_ort < 3e-3
    onnx.checker.check_model(onnx.load(str(tmp_path / "f32.onnx")))


def test_vgg16_features_adaptive_pool(tmp_path):
    # VGG-16 without its classifier (whose 120M weights make a 500 MB file): the 13 convolutions
    # and AdaptiveAvgPool2D((7, 7)) over a 2x2 map (windows of unequal size, not a plain pool)
    paddle.seed(4)
    m = M.vgg16(num_classes=0)
    x = _img([1, 3, 64, 64])
    proto = _check(m, [x], [InputSpec([None, 3, 64, 64], "float32", "x")], [9, 13], tmp_path)
    assert sum(n.op_type == "Conv" for n in proto.graph.node) == 13


@pytest.mark.skipif(os.environ.get("PADDLE_C_ONNX_FULL") != "1",
                    reason="full VGG-16 (a 550 MB ONNX file, ~30 s here); PADDLE_C_ONNX_FULL=1 runs it")
def test_vgg16_full(tmp_path):
    paddle.seed(4)
    m = M.vgg16()
    _check(m, [_img([1, 3, 64, 64])], [InputSpec([1, 3, 64, 64], "float32", "x")], [11], tmp_path)


# ------------------------------------------------------------------ seed MLP, RNNs, Transformer
def test_seed_mlp(tmp_path):
    # examples/seeds/e01_mnist_hapi_fit.py's network
    paddle.seed(5)
    mnist = paddle.nn.Sequential(
        paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
        paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
    x = np.random.RandomState(0).uniform(0, 1, [4, 1, 28, 28]).astype("float32")
    _check(mnist, [x], [InputSpec([None, 1, 28, 28], "float32", "x")], [9, 11, 13, 15], tmp_path,
           extra_inputs=[[x[:1]], [np.concatenate([x, x])]])


class _LSTMNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = paddle.nn.LSTM(8, 16, num_layers=2, direction="bidirect")
        self.fc = paddle.nn.Linear(32, 3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.fc(y), h, c


def test_lstm(tmp_path):
    paddle.seed(6)
    m = _LSTMNet()
    x = _img([3, 5, 8])
    proto = _check(m, [x], [InputSpec([None, 5, 8], "float32", "x")], [9, 14], tmp_path,
                   extra_inputs=[[_img([1, 5, 8], 1)]])
    assert sum(n.op_type == "LSTM" for n in proto.graph.node) == 4


class _RNNs(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.gru = paddle.nn.GRU(4, 6, time_major=True)
        self.rnn = paddle.nn.SimpleRNN(6, 5, activation="relu", direction="bidirect", time_major=True)

    def forward(self, x):
        y, h = self.gru(x)
        z, h2 = self.rnn(y)
        return z, h


def test_gru_simple_rnn(tmp_path):
    paddle.seed(7)
    m = _RNNs()
    _check(m, [_img([6, 2, 4])], [InputSpec([6, None, 4], "float32", "x")], [11], tmp_path)


class _Encoder(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        layer = paddle.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, activation="gelu")
        self.enc = paddle.nn.TransformerEncoder(layer, 2, norm=paddle.nn.LayerNorm(16))

    def forward(self, x):
        return self.enc(x)


def test_transformer_encoder(tmp_path):
    paddle.seed(8)
    m = _Encoder()
    x = _img([2, 5, 16])
    proto = _check(m, [x], [InputSpec([None, None, 16], "float32", "src")], [9, 13, 17], tmp_path,
                   extra_inputs=[[_img([3, 7, 16], 1)]])
    assert any(n.op_type == "LayerNormalization" for n in proto.graph.node)  # opset 17, the last


# ------------------------------------------------------------------ single ops with opset differences
class _Ops(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 4, 3, padding="SAME")
        self.prelu = paddle.nn.PReLU(4)

    def forward(self, x):
        y = self.prelu(self.conv(x))
        a = F.softmax(y, axis=1)                       # not the last axis: transposes before opset 13
        b = F.interpolate(y, scale_factor=2, mode="nearest")
        b = F.adaptive_max_pool2d(b, [3, 5])           # unequal windows: slices + ReduceMax
        c = paddle.clip(y, -0.5, 0.7) + F.hardsigmoid(y) + F.silu(y) + F.leaky_relu(y, 0.1)
        d = F.avg_pool2d(y, 3, stride=2, ceil_mode=True)
        e = paddle.mean(y, axis=[2, 3], keepdim=True) + paddle.sum(y, axis=1, keepdim=True)
        f = paddle.concat([paddle.unsqueeze(y[:, 1], 1), paddle.squeeze(y[:, :1], 1).unsqueeze(1)], axis=1)
        g = paddle.stack(paddle.split(y, 2, axis=1), axis=0).sum(0)
        return a, b, c, d, e + f.sum(1, keepdim=True), g.transpose([0, 2, 3, 1])


@pytest.mark.parametrize("opset", [9, 11, 13])
def test_op_mix(opset, tmp_path):
    paddle.seed(9)
    _check(_Ops(), [_img([2, 3, 7, 9])], [InputSpec([2, 3, 7, 9], "float32", "x")], [opset], tmp_path)


class _Resize(paddle.nn.Layer):
    def forward(self, x):
        a = F.interpolate(x, size=[9, 13], mode="bilinear", align_corners=False)
        b = F.interpolate(x, size=[10, 6], mode="bilinear", align_corners=True)
        c = F.interpolate(x, scale_factor=1.5, mode="nearest")
        return a, b, c


def test_resize_opset11(tmp_path):
    _check(_Resize(), [_img([1, 2, 5, 4])], [InputSpec([None, 2, 5, 4], "float32", "x")], [11, 13], tmp_path)
    with pytest.raises(NotImplementedError, match="opset_version >= 11"):
        paddle.onnx.export(_Resize(), str(tmp_path / "r9"), input_spec=[InputSpec([1, 2, 5, 4], "float32", "x")],
                           opset_version=9)


# ------------------------------------------------------------------ errors and the API
class _Unsupported(paddle.nn.Layer):
    def forward(self, x):
        return paddle.trace(x) + paddle.argsort(x, axis=1).astype("float32") + F.relu(x)


def test_unsupported_ops_listed_in_one_error(tmp_path):
    with pytest.raises(NotImplementedError) as ei:
        paddle.onnx.export(_Unsupported(), str(tmp_path / "u"), input_spec=[InputSpec([3, 3], "float32", "x")])
    msg = str(ei.value)
    assert "diagonal" in msg and "argsort" in msg and "relu" not in msg
    assert not os.path.exists(str(tmp_path / "u.onnx"))


class _IfElse(paddle.nn.Layer):
    """to_static's if / else on tensors: two variables merged, a nested if in one branch"""
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(4, 4)

    def forward(self, x):
        if paddle.mean(x) > 0:
            y = self.lin(x) * 2
            z = x + 1
            if paddle.max(x) > 1.0:
                z = z * 3
            else:
                z = z - 3
        else:
            y = x - 1
            z = F.relu(-x)
        return y + z, z


@pytest.mark.parametrize("opset", [9, 13, 15])
def test_if_else_becomes_onnx_if(opset, tmp_path):
    paddle.seed(5)
    m = _IfElse()
    m.eval()
    rng = np.random.RandomState(0)
    cases = [[(rng.rand(3, 4) + 0.1).astype("float32")], [(rng.rand(3, 4) * 0.5 + 0.05).astype("float32")],
             [-(rng.rand(2, 4) + 0.1).astype("float32")]]  # both branches, both nested branches
    proto = _check(m, cases[0], [InputSpec([None, 4], "float32", "x")], [opset], tmp_path, extra_inputs=cases[1:])
    ifs = [n for n in proto.graph.node if n.op_type == "If"]
    assert len(ifs) == 1 and len(ifs[0].output) == 2  # one If for the two merged variables
    then_g = [a.g for a in ifs[0].attribute if a.name == "then_branch"][0]
    assert any(n.op_type == "If" for n in then_g.node)  # the nested one inside the branch


class _Loop(paddle.nn.Layer):
    def forward(self, x):
        i = paddle.zeros([1], "int64")
        while i < 3:
            x = x + 1
            i = i + 1
        return x


def test_while_loop_says_so(tmp_path):
    with pytest.raises(NotImplementedError) as ei:
        paddle.onnx.export(_Loop(), str(tmp_path / "f"), input_spec=[InputSpec([2, 4], "float32", "x")],
                           opset_version=13)
    msg = str(ei.value)
    assert "while" in msg and "loops" in msg and "ONNX Loop" in msg
    assert not os.path.exists(str(tmp_path / "f.onnx"))


def test_ops_needing_a_later_opset_listed_in_one_error(tmp_path):
    with pytest.raises(NotImplementedError) as ei:
        paddle.onnx.export(_Math(), str(tmp_path / "m"), input_spec=_MATH_SPECS, opset_version=9)
    msg = str(ei.value)
    for t in ("cumsum", "top_k_v2", "flip", "elementwise_mod", "isinf_v2", "isfinite_v2"):
        assert t in msg
    assert "opset_version >= 10" in msg and "opset_version >= 11" in msg
    assert not os.path.exists(str(tmp_path / "m.onnx"))


def test_arguments(tmp_path):
    lin = paddle.nn.Linear(4, 2)
    spec = [InputSpec([None, 4], "float32", "x")]
    with pytest.raises(ValueError, match="opset_version"):
        paddle.onnx.export(lin, str(tmp_path / "a"), input_spec=spec, opset_version=8)
    with pytest.raises(TypeError):
        paddle.onnx.export(lin, 3, input_spec=spec)
    with pytest.raises(ValueError, match="not supported"):
        paddle.onnx.export(lin, str(tmp_path / "a"), input_spec=spec, bogus=1)
    # an example Tensor as input_spec; a nested directory is created; training mode is restored
    lin.train()
    x = paddle.rand([3, 4])
    paddle.onnx.export(lin, str(tmp_path / "sub" / "lin"), input_spec=[x])
    assert lin.training
    sess = _session(str(tmp_path / "sub" / "lin.onnx"))
    got = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0]
    np.testing.assert_allclose(got, lin(x).numpy(), rtol=1e-5, atol=1e-6)


def test_to_static_forward_and_output_spec(tmp_path):
    class Two(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 3)

        @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "inp")])
        def forward(self, x):
            y = self.fc(x)
            return y, paddle.tanh(y) * 2.0 + 1.0

    m = Two()
    paddle.onnx.export(m, str(tmp_path / "two"))  # input_spec from the decorator
    sess = _session(str(tmp_path / "two.onnx"))
    x = _img([2, 3])
    got = sess.run(None, {"inp": x})
    ref = [t.numpy() for t in m(paddle.to_tensor(x))]
    assert len(got) == 2
    for gv, rv in zip(got, ref):
        np.testing.assert_allclose(gv, rv, rtol=1e-5, atol=1e-6)


def test_onnx_imported_lazily():
    code = ("import sys, paddle; print('onnx' in sys.modules)\n"
            "sys.modules['onnx'] = None\n"
            "try:\n"
            "    paddle.onnx.export(paddle.nn.Linear(2, 2), '/nonexistent/x', input_spec=[paddle.rand([1, 2])])\n"
            "except ImportError as e:\n"
            "    print('ImportError', e)\n")
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "False", out.stdout + out.stderr
    assert lines[1].startswith("ImportError") and "pip install onnx" in lines[1]


class _F64(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return F.hardsigmoid(y) + F.hardswish(y) + F.relu6(y) + F.softmax(y, -1)


@pytest.mark.parametrize("opset", [9, 14])
def test_float64(opset, tmp_path):
    # onnxruntime has no float64 Clip before 12, HardSigmoid or HardSwish: Max/Min and Mul/Add forms
    paddle.seed(10)
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        m = _F64()
    finally:
        paddle.set_default_dtype(old)
    x = np.random.RandomState(0).standard_normal([3, 4]) * 4
    _check(m, [x], [InputSpec([None, 4], "float64", "x")], [opset], tmp_path, tol=1e-8)


# ------------------------------------------------------------------ more layers, one op family each
nn = paddle.nn


class _Emb(nn.Layer):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, x):
        return self.e(x).mean(axis=1)


class _Misc(nn.Layer):
    def forward(self, x):
        a = paddle.transpose(paddle.reshape(x, [-1, 6]), [1, 0])
        c = paddle.max(x, axis=1) + paddle.min(x, axis=1) - paddle.prod(x, axis=1)
        d = paddle.expand(x[:, :1], [2, 3])
        e = paddle.where(x > 0, x, -x) + paddle.pow(x, 2.0) + paddle.sqrt(paddle.abs(x)) + paddle.exp(x) * 0.1
        f = paddle.gather(x, paddle.to_tensor([2, 0]), axis=1)
        return (a.sum(), c, d + e, f, paddle.mean(x), paddle.rsqrt(paddle.abs(x) + 1), paddle.square(x),
                x.cast("int64"))


_LAYERS = {
    "conv1d_bn1d": (lambda: nn.Sequential(nn.Conv1D(3, 4, 3, padding=1), nn.BatchNorm1D(4), nn.ReLU()), [2, 3, 10]),
    "conv2d_transpose": (lambda: nn.Conv2DTranspose(3, 4, 3, stride=2, padding=1, output_padding=1), [2, 3, 5, 5]),
    "nhwc": (lambda: nn.Sequential(nn.Conv2D(3, 4, 3, data_format="NHWC"), nn.BatchNorm2D(4, data_format="NHWC"),
                                   nn.MaxPool2D(2, data_format="NHWC")), [2, 6, 6, 3]),
    "group_norm": (lambda: nn.GroupNorm(2, 4), [2, 4, 3, 3]),
    "instance_norm": (lambda: nn.InstanceNorm2D(4), [2, 4, 3, 3]),
    "pad_reflect": (lambda: nn.Pad2D([1, 2, 0, 1], mode="reflect"), [2, 3, 4, 4]),
    "avg_pool_inclusive": (lambda: nn.AvgPool2D(3, 2, padding=1, exclusive=False), [1, 2, 7, 7]),
    "max_pool_ceil": (lambda: nn.MaxPool2D(3, 2, ceil_mode=True), [1, 2, 8, 8]),
    "activations": (lambda: nn.Sequential(nn.ELU(), nn.SELU(), nn.Softplus(), nn.Mish(), nn.Tanh(), nn.Sigmoid(),
                                          nn.LogSoftmax(1), nn.Softsign()), [2, 5]),
    "gelu_tanh": (lambda: nn.GELU(approximate=True), [2, 5]),
    "dropout": (lambda: nn.Dropout(0.3), [2, 5]),
    "flatten_middle": (lambda: nn.Flatten(1, 2), [2, 3, 4, 5]),
    "conv_same_dilation": (lambda: nn.Conv2D(2, 2, 3, padding="SAME", stride=2, dilation=2, groups=2), [1, 2, 9, 8]),
    "embedding": (_Emb, None),
    "misc": (_Misc, [2, 3]),
}


@pytest.mark.parametrize("name", sorted(_LAYERS))
def test_layers(name, tmp_path):
    paddle.seed(11)
    make, shape = _LAYERS[name]
    if shape is None:
        x = np.array([[0, 3, 5], [2, 0, 9]], dtype="int64")
    else:
        x = (np.random.RandomState(1).uniform(-1, 1, shape) + 0.2).astype("float32")
    _check(make(), [x], [InputSpec(list(x.shape), str(x.dtype), "x")], [9, 13], tmp_path)


class _SeqLen(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, direction="bidirect")
        self.gru = nn.GRU(8, 2, direction="bidirect")

    def forward(self, x, n):
        y, (h, c) = self.lstm(x, sequence_length=n)
        z, h2 = self.gru(y, sequence_length=n)
        return y, h, c, z, h2


def test_rnn_sequence_length(tmp_path):
    # padded steps: zero outputs, states from each sequence's last valid step (reverse direction
    # starts at each sequence's own end): ONNX's sequence_lens
    paddle.seed(12)
    x = _img([3, 5, 3])
    n = np.array([5, 2, 3], dtype="int64")
    _check(_SeqLen(), [x, n], [InputSpec([None, 5, 3], "float32", "x"), InputSpec([None], "int64", "n")], [11],
           tmp_path)


class _Math(nn.Layer):
    def forward(self, x, y):
        return (paddle.cumsum(x, axis=1), paddle.argmax(x, axis=1), paddle.argmin(x, axis=-1, keepdim=True),
                paddle.bmm(y, y), paddle.tile(x, [2, 1]), paddle.topk(x, 2, axis=1)[0],
                paddle.topk(x, 2, axis=0, largest=False)[1], paddle.index_select(x, paddle.to_tensor([1, 0]), axis=1),
                paddle.norm(x, p=2, axis=1), paddle.norm(x, p=3, axis=0), paddle.logsumexp(x, axis=1),
                F.one_hot(paddle.to_tensor([1, 2]), 4), paddle.flip(x, [1]),
                paddle.remainder(x, paddle.to_tensor([0.7])),
                paddle.remainder(x.astype("int64"), paddle.to_tensor([-3], dtype="int64")),
                paddle.maximum(x, x * 2), F.normalize(x, axis=1), paddle.expand_as(x[:, :1], x),
                paddle.any(x > 0), paddle.all(x > 0, axis=1), paddle.isnan(x), paddle.isinf(x), paddle.isfinite(x),
                paddle.full_like(x, 3.0), paddle.zeros_like(x), paddle.arange(0, 5, 1), paddle.roll(x, 1, 1),
                paddle.roll(x, 2), paddle.log1p(paddle.abs(x)), paddle.expm1(x), F.sigmoid(x) * paddle.tan(x))


_MATH_SPECS = [InputSpec([3, 4], "float32", "x"), InputSpec([2, 3, 3], "float32", "y")]


@pytest.mark.parametrize("opset", [11, 13])
def test_math_ops(opset, tmp_path):
    x = (np.random.RandomState(0).standard_normal([3, 4]) * 3).astype("float32")
    y = np.random.RandomState(1).uniform(0, 1, [2, 3, 3]).astype("float32")
    _check(_Math(), [x, y], _MATH_SPECS, [opset], tmp_path)


def test_function_and_errors_from_the_trace(tmp_path):
    # a to_static function (no Layer): its program has no parameters
    @paddle.jit.to_static(input_spec=[InputSpec([None, 3], "float32", "a"), InputSpec([3], "float32", "b")])
    def fn(a, b):
        return F.relu(a * b - 0.5) + paddle.exp(b)

    paddle.onnx.export(fn, str(tmp_path / "fn"), opset_version=12)
    sess = _session(str(tmp_path / "fn.onnx"))
    a, b = _img([4, 3]), _img([3], 1)
    got = sess.run(None, {"a": a, "b": b})[0]
    np.testing.assert_allclose(got, fn(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(), rtol=1e-6, atol=1e-6)
    # a Layer whose forward is plain and no input_spec: nothing says what the inputs are
    with pytest.raises(RuntimeError, match="input_spec"):
        paddle.onnx.export(paddle.nn.Linear(2, 2), str(tmp_path / "none"))
