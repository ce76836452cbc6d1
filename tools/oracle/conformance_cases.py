"""Behaviour cases of issue 23 (conformance with real PaddlePaddle) run on both sides: each
function returns plain JSON data; tools/oracle/conformance_cases.json holds real Paddle 2.6.2's
answers (CPU build), which tests/python/test_conformance_fixes.py compares ours with. Not part of
the test suite's imports (the project never imports real Paddle):

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/repo/tools/oracle/conformance_cases.py \
        > /path/to/repo/tools/oracle/conformance_cases.json
    PYTHONPATH=/path/to/repo/python python3 /path/to/repo/tools/oracle/conformance_cases.py

PADDLE_C_FIXTURES (or ../shared/fixtures next to the repository) locates the paddle_models
fixtures; cases that need one report None without it.
"""
import json
import os
import sys
import warnings

import numpy as np

import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
FLOATS = ["bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
INTS = ["bool", "uint8", "int8", "int16", "int32", "int64"]


def fixtures_dir():
    cands = [os.environ.get("PADDLE_C_FIXTURES", "")]
    root = os.path.dirname(os.path.dirname(HERE))
    for up in (1, 2, 3):
        base = root
        for _ in range(up):
            base = os.path.dirname(base)
        cands.append(os.path.join(base, "shared", "fixtures"))
    for c in cands:
        if c and os.path.isdir(os.path.join(c, "paddle_models")):
            return os.path.join(c, "paddle_models")
    return None


def _t(values, dtype):
    if dtype == "bool":
        return paddle.to_tensor(np.asarray(values) != 0)
    return paddle.to_tensor(np.asarray(values, dtype="float64")).astype(dtype)


def _dt(t):
    return str(t.dtype).replace("paddle.", "")


def _try(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
        if _dt(r).startswith("complex"):
            v = np.asarray(r.astype("complex128").numpy()).round(6)
            return {"dtype": _dt(r), "value": [[float(e.real), float(e.imag)] for e in v.ravel()]}
        return {"dtype": _dt(r), "value": np.asarray(r.astype("float64").numpy()).round(6).ravel().tolist()}
    except Exception as e:  # noqa: BLE001 (the oracle's answer is the exception class)
        return {"error": type(e).__name__}


def promotion():
    """Tensor-tensor add/subtract/multiply/divide over float and complex dtype pairs (API and
    operator), and true division of integer/bool tensors."""
    out = {}
    ops = {"add": (paddle.add, lambda a, b: a + b), "subtract": (paddle.subtract, lambda a, b: a - b),
           "multiply": (paddle.multiply, lambda a, b: a * b), "divide": (paddle.divide, lambda a, b: a / b)}
    for name, (api, opr) in ops.items():
        for a in FLOATS:
            for b in FLOATS:
                x, y = _t([1.5, -2.0], a), _t([0.5, 4.0], b)
                out[f"{name}|{a}|{b}|api"] = _try(lambda: api(x, y))
                out[f"{name}|{a}|{b}|op"] = _try(lambda: opr(x, y))
    for a in INTS:
        x, y = _t([3, 1], a), _t([2, 1], a)
        out[f"truediv|{a}|op"] = _try(lambda: x / y)
        out[f"truediv|{a}|scalar"] = _try(lambda: x / 2)
    return out


def rnn_keys():
    """state_dict keys of the recurrent layers, every direction, 1 and 2 layers."""
    out = {}
    for cls in ("LSTM", "GRU", "SimpleRNN"):
        for direction in ("forward", "bidirect"):
            for layers in (1, 2):
                m = getattr(paddle.nn, cls)(3, 4, num_layers=layers, direction=direction)
                sd = m.state_dict()
                shared = sd["weight_ih_l0"] is sd["0.cell.weight_ih" if direction == "forward"
                                                   else "0.cell_fw.weight_ih"]
                out[f"{cls}|{direction}|{layers}"] = {"keys": list(sd.keys()), "shared": bool(shared),
                                                      "n_parameters": len(m.parameters())}
    return out


class TextLSTM(paddle.nn.Layer):
    """The layer layout of ../shared/fixtures/paddle_models/pdparams_only/text_lstm_pickle4.pdparams
    (Embedding(4411, 128), fc1, LSTM(128, 128), fc2 over 150 steps)."""

    def __init__(self):
        super().__init__()
        self.embedding = paddle.nn.Embedding(4411, 128)
        self.fc1 = paddle.nn.Linear(128, 128)
        self.lstm = paddle.nn.LSTM(128, 128)
        self.fc2 = paddle.nn.Linear(19200, 2)

    def forward(self, ids):
        h = paddle.tanh(self.fc1(self.embedding(ids)))
        out, (hn, cn) = self.lstm(h)
        return self.fc2(paddle.reshape(out, [out.shape[0], -1])), hn, cn


def text_lstm():
    fix = fixtures_dir()
    if fix is None:
        return None
    sd = paddle.load(os.path.join(fix, "pdparams_only", "text_lstm_pickle4.pdparams"))
    m = TextLSTM()
    missing, unexpected = m.set_state_dict(sd)
    m.eval()
    ids = paddle.to_tensor(np.random.RandomState(5).randint(0, 4411, (3, 150)).astype("int64"))
    logits, hn, cn = m(ids)
    return {"missing": list(missing), "unexpected": list(unexpected),
            "logits": logits.numpy().astype("float64").tolist(),
            "hn": hn.numpy()[0, :, :8].astype("float64").tolist(),
            "cn": cn.numpy()[0, :, :8].astype("float64").tolist()}


def _answer(fn):
    """What a call gives: a plain value, the type name of another object, or the exception type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__}
    if r is None or isinstance(r, (bool, int, float, str)):
        return {"value": r}
    if isinstance(r, (list, tuple)) and all(isinstance(v, (bool, int, float, str)) for v in r):
        return {"value": list(r)}
    return {"type": type(r).__name__}


def device():
    """paddle.device and paddle.device.cuda as Paddle's CPU build answers."""
    import paddle.device as D
    import paddle.device.cuda as C

    def guard(g):
        with g:
            pass
        return None

    calls = {
        "all": lambda: sorted(D.__all__), "cuda.all": lambda: sorted(C.__all__),
        "get_device": D.get_device, "set_device_cpu": lambda: str(D.set_device("cpu")),
        "get_device_after": D.get_device, "set_device_CPU": lambda: str(D.set_device("CPU")),
        "set_device_gpu": lambda: D.set_device("gpu"), "set_device_gpu0": lambda: D.set_device("gpu:0"),
        "set_device_xpu": lambda: D.set_device("xpu:0"), "set_device_bad": lambda: D.set_device("tpu"),
        "set_device_int": lambda: D.set_device(0), "get_device_end": D.get_device,
        "get_cudnn_version": D.get_cudnn_version,
        "is_compiled_with_xpu": D.is_compiled_with_xpu,
        "is_compiled_with_ipu": D.is_compiled_with_ipu, "is_compiled_with_cinn": D.is_compiled_with_cinn,
        "is_compiled_with_cuda": D.is_compiled_with_cuda, "is_compiled_with_rocm": D.is_compiled_with_rocm,
        "is_compiled_with_distribute": D.is_compiled_with_distribute,
        "is_compiled_with_custom_device": lambda: D.is_compiled_with_custom_device("npu"),
        "get_all_device_type": D.get_all_device_type, "get_all_custom_device_type": D.get_all_custom_device_type,
        "get_available_device": D.get_available_device,
        "get_available_custom_device": D.get_available_custom_device,
        "Stream": D.Stream, "Event": D.Event, "current_stream": D.current_stream,
        "set_stream": lambda: D.set_stream(None), "stream_guard": lambda: guard(D.stream_guard(None)),
        "synchronize": D.synchronize,
        "cuda.Stream": C.Stream, "cuda.Event": C.Event, "cuda.current_stream": C.current_stream,
        "cuda.synchronize": C.synchronize, "cuda.device_count": C.device_count,
        "cuda.empty_cache": C.empty_cache, "cuda.max_memory_allocated": C.max_memory_allocated,
        "cuda.max_memory_reserved": C.max_memory_reserved, "cuda.memory_allocated": C.memory_allocated,
        "cuda.memory_reserved": C.memory_reserved, "cuda.stream_guard": lambda: guard(C.stream_guard(None)),
        "cuda.get_device_properties": C.get_device_properties, "cuda.get_device_name": C.get_device_name,
        "cuda.get_device_capability": C.get_device_capability,
        "paddle.get_device": paddle.get_device, "paddle.is_compiled_with_cuda": paddle.is_compiled_with_cuda,
    }
    out = {k: _answer(f) for k, f in calls.items()}
    paddle.set_device("cpu")
    return out


def _val(fn):
    """A call's result as {"dtype", "shape", "value"} (lists of results too), or the exception type."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__}
    if isinstance(r, (list, tuple)):
        return [_val(lambda v=v: v) for v in r]
    a = np.asarray(r.numpy())
    if np.iscomplexobj(a):
        v = [[float(e.real), float(e.imag)] for e in a.ravel()]
    else:
        v = [None if np.isnan(e) else float(e) for e in a.astype("float64").ravel()]
    return {"dtype": _dt(r), "shape": list(r.shape), "value": v}


def _grad(fn, x):
    x = paddle.to_tensor(x, stop_gradient=False)
    fn(x).sum().backward()
    return x.grad


def results():
    """The wrong results and keyword/argument cases issue 23 lists from a public Paddle suite."""
    F = paddle.nn.functional
    rng = np.random.RandomState(11)
    a34, b45 = rng.rand(3, 4), rng.rand(4, 5)
    a234, b345, b534 = rng.rand(2, 3, 4), rng.rand(3, 4, 5), rng.rand(5, 3, 4)
    b54 = rng.rand(5, 4)
    m = rng.rand(4, 4)
    herm = (rng.rand(3, 3) + 1j * rng.rand(3, 3))
    herm = herm + herm.conj().T
    T = paddle.to_tensor
    calls = {
        "tensordot_list1": lambda: paddle.tensordot(T(a234), T(b534), axes=[1, 2]),
        "tensordot_list1_bad": lambda: paddle.tensordot(T(a234), T(b345), axes=[1, 2]),
        "tensordot_list2": lambda: paddle.tensordot(T(a234), T(b345), axes=[[1, 2], [0, 1]]),
        "tensordot_list_single": lambda: paddle.tensordot(T(a34), T(b54), axes=[[1]]),
        "tensordot_list_partial": lambda: paddle.tensordot(T(a234), T(b345), axes=[[1, 2], [0]]),
        "tensordot_int": lambda: paddle.tensordot(T(a34), T(b45), axes=1),
        "tensordot_tensor": lambda: paddle.tensordot(T(a234), T(b534), axes=T(np.array([1, 2]))),
        "tensordot_tensor2": lambda: paddle.tensordot(T(a234), T(b345), axes=T(np.array([[1, 2], [0, 1]]))),
        "cumprod_grad_zero": lambda: _grad(lambda x: paddle.cumprod(x, dim=0),
                                           np.array([2.0, 0.0, 3.0, 4.0])),
        "cumprod_grad_zeros2": lambda: _grad(lambda x: paddle.cumprod(x, dim=1),
                                             np.array([[1.0, 0.0, 0.0, 2.0], [0.5, 2.0, 0.0, 3.0]])),
        "relu6_grad": lambda: _grad(F.relu6, np.array([-1.0, 0.0, 3.0, 6.0, 7.0], "float32")),
        "relu_grad": lambda: _grad(F.relu, np.array([-1.0, 0.0, 3.0], "float32")),
        "hardtanh_grad": lambda: _grad(F.hardtanh, np.array([-2.0, -1.0, 0.0, 1.0, 2.0], "float32")),
        "trace_swapped": lambda: paddle.trace(T(a234), offset=1, axis1=2, axis2=1),
        "trace_neg": lambda: paddle.trace(T(a234), offset=-1, axis1=-1, axis2=0),
        "diagonal_swapped": lambda: paddle.diagonal(T(a234), offset=1, axis1=2, axis2=1),
        "median_nan": lambda: paddle.median(T(np.array([1.0, np.nan, 3.0, 2.0]))),
        "median_nan_axis": lambda: paddle.median(T(np.array([[1.0, np.nan, 3.0], [4.0, 2.0, 0.0]])), axis=1),
        "median_even": lambda: paddle.median(T(np.array([[1.0, 5.0, 3.0, 2.0]])), axis=1),
        "nanmedian": lambda: paddle.nanmedian(T(np.array([1.0, np.nan, 3.0, 2.0]))),
        "eigvals": lambda: paddle.linalg.eigvals(T(m)),
        "eigvals_c": lambda: paddle.linalg.eigvals(T(m + 1j * m.T)),
        "eigvalsh_c": lambda: paddle.linalg.eigvalsh(T(herm)),
        "eigvalsh_c_U": lambda: paddle.linalg.eigvalsh(T(herm), UPLO="U"),
        "pinv_c": lambda: paddle.linalg.pinv(T(a34 + 1j * a34[::-1])),
        "pinv_herm_c": lambda: paddle.linalg.pinv(T(herm), hermitian=True),
        "dropout_p_tensor_eval": lambda: F.dropout(T(a34), p=T(np.array([0.5])), training=False),
        "dropout_p_tensor_zero": lambda: F.dropout(T(a34), p=T(np.array([0.0]))),
        "dropout_p_tensor_one": lambda: F.dropout(T(a34), p=T(np.array([1.0]))),
        "dropout_axis_tensor": lambda: F.dropout(T(a34), p=1.0, axis=T(np.array([0]))),
        "dropout_p_tensor_eval_down": lambda: F.dropout(T(a34), p=T(np.array([0.25])), training=False,
                                                        mode="downscale_in_infer"),
        "fill_x": lambda: paddle.to_tensor([1.0, 2.0]).fill_(x=None, value=3.0) if False else
        paddle.Tensor.fill_(x=paddle.to_tensor([1.0, 2.0]), value=3.0),
        "zero_x": lambda: paddle.Tensor.zero_(x=paddle.to_tensor([1.0, 2.0])),
        "trunc_input": lambda: paddle.trunc(input=T(np.array([-1.5, 2.7]))),
        "numpy_false": lambda: T(np.array([1.0, 2.0])).numpy(False) * 0 + T(np.array([1.0, 2.0])),
        "hardtanh_min_gt_max": lambda: F.hardtanh(T(np.array([-2.0, 0.0, 2.0])), min=1.0, max=-1.0),
        "assign_other_shape": lambda: paddle.create_parameter(
            [2, 2], "float32", default_initializer=paddle.nn.initializer.Assign(np.arange(3.0))),
    }
    x4 = np.arange(24.0).reshape(1, 2, 3, 4)
    for dt in ("int32", "int64", "complex64", "float64"):
        for mode in ("constant", "reflect", "replicate", "circular"):
            calls[f"pad_{dt}_{mode}"] = lambda dt=dt, mode=mode: F.pad(T(x4).astype(dt), [1, 2, 2, 1], mode=mode)
    calls["pad_int32_value"] = lambda: F.pad(T(x4).astype("int32"), [1, 1, 1, 1, 1, 1, 1, 1], value=3)
    calls["Pad1D_int32"] = lambda: paddle.nn.Pad1D(1)(T(x4[0]).astype("int32"))
    calls["Pad2D_int64_reflect"] = lambda: paddle.nn.Pad2D([1, 1, 1, 1], mode="reflect")(T(x4).astype("int64"))
    calls["Pad3D_int32"] = lambda: paddle.nn.Pad3D(1)(T(x4[None]).astype("int32"))
    calls["pad_3d_nlc"] = lambda: F.pad(T(x4[0]), [1, 1], data_format="NLC")
    calls["pad_fewer"] = lambda: F.pad(T(x4), [1, 1])
    calls["Pad2D_fewer"] = lambda: paddle.nn.Pad2D([1, 1])(T(x4))
    return {k: _val(f) for k, f in calls.items()}


def accepted():
    """Arguments Paddle accepts (or refuses) at construction."""
    I = paddle.nn.initializer
    calls = {
        "ClipGradByValue_min_gt_max": lambda: paddle.nn.ClipGradByValue(min=1.0, max=-1.0).max,
        "ClipGradByNorm_negative": lambda: paddle.nn.ClipGradByNorm(clip_norm=-1.0).clip_norm,
        "ClipGradByGlobalNorm_zero": lambda: paddle.nn.ClipGradByGlobalNorm(clip_norm=0.0).clip_norm,
        "Normal_negative_std": lambda: type(I.Normal(mean=0.0, std=-1.0)).__name__,
        "TruncatedNormal_negative_std": lambda: type(I.TruncatedNormal(mean=0.0, std=-1.0)).__name__,
        "Hardtanh_min_gt_max": lambda: type(paddle.nn.Hardtanh(min=1.0, max=-1.0)).__name__,
        "nn_layer_MaxPool1D": lambda: paddle.nn.layer.MaxPool1D is paddle.nn.MaxPool1D,
        "nn_layer_Conv2D": lambda: paddle.nn.layer.Conv2D is paddle.nn.Conv2D,
        "nn_layer_LayerDict": lambda: paddle.nn.layer.LayerDict is paddle.nn.LayerDict,
    }
    return {k: _answer(f) for k, f in calls.items()}


CASES = {"accepted": accepted, "results": results, "promotion": promotion, "rnn_keys": rnn_keys, "text_lstm": text_lstm, "device": device}


def run_all(names=None):
    return {k: f() for k, f in CASES.items() if names is None or k in names}


if __name__ == "__main__":
    json.dump(run_all(sys.argv[1:] or None), sys.stdout, indent=None, sort_keys=True)
    sys.stdout.write("\n")
