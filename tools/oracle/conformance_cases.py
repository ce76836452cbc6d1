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


CASES = {"promotion": promotion, "rnn_keys": rnn_keys, "text_lstm": text_lstm, "device": device}


def run_all(names=None):
    return {k: f() for k, f in CASES.items() if names is None or k in names}


if __name__ == "__main__":
    json.dump(run_all(sys.argv[1:] or None), sys.stdout, indent=None, sort_keys=True)
    sys.stdout.write("\n")
