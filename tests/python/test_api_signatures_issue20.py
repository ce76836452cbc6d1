"""Issue 20's APIs have real Paddle 2.6.2's parameter names, kinds and defaults (annotations
aside): tests/python/data/issue20_signatures.json was written by the oracle with
tools/oracle/make_issue20_signatures.py. Paddle-C's additions are listed (keyword-only or
trailing, so every call written for Paddle works)."""
import inspect
import json
import os

import paddle
import paddle.device
import paddle.device.cuda
import paddle.onnx
import paddle.profiler as P
import paddle.sysconfig
import paddle.utils
import paddle.utils.cpp_extension as CE
import paddle.utils.download as DL

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = json.load(open(os.path.join(HERE, "data", "issue20_signatures.json")))

# Paddle-C additions, appended after Paddle's parameters
EXTRA = {
    "profiler.Profiler.summary": [["chart_path", "KEYWORD_ONLY", "None"]],  # the bar-chart PNG
    "cpp_extension.load": [["extra_cflags", "POSITIONAL_OR_KEYWORD", "None"]],  # C sources' flags
}


def _default(v):
    if v is inspect.Parameter.empty:
        return "<required>"
    return repr(v)


def _sig(f):  # without self: Paddle's function and our class (stream_guard, IPUPlace) compare alike
    return [[p.name, p.kind.name, _default(p.default)] for p in inspect.signature(f).parameters.values()
            if p.name != "self"]


def _resolve(key):
    if key.endswith("__all__"):
        return None
    parts = key.split(".")
    roots = {"profiler": P, "sysconfig": paddle.sysconfig, "onnx": paddle.onnx, "cpp_extension": CE,
             "device": paddle.device}
    if key.startswith("utils.download."):
        obj, rest = DL, parts[2:]
    elif key.startswith("device.cuda."):
        obj, rest = paddle.device.cuda, parts[2:]
    elif parts[0] == "utils":
        obj, rest = paddle.utils, parts[1:]
    else:
        obj, rest = roots[parts[0]], parts[1:]
    for r in rest:
        obj = getattr(obj, r)
    if inspect.isclass(obj):
        obj = obj.__init__
    return obj


def test_signatures_match_paddle():
    bad = []
    for key, exp in EXPECTED.items():
        f = _resolve(key)
        if f is None:
            continue
        got = _sig(f)
        if got != exp + EXTRA.get(key, []):
            bad.append((key, exp, got))
    assert not bad, "\n".join(f"{k}:\n  paddle {e}\n  ours   {g}" for k, e, g in bad)


def test_namespaces_match_paddle():
    assert sorted(P.__all__) == EXPECTED["profiler.__all__"]
    assert sorted(paddle.device.__all__) == EXPECTED["device.__all__"]
    assert sorted(paddle.device.cuda.__all__) == EXPECTED["device.cuda.__all__"]
    assert len(EXPECTED["device.cuda.__all__"]) == 14


def test_sysconfig_paths_hold_the_real_header_and_library():
    import ctypes
    root = os.path.dirname(os.path.dirname(HERE))
    inc, lib = paddle.sysconfig.get_include(), paddle.sysconfig.get_lib()
    for h in ("pd_extension.h", "pd_inference_api.h"):  # the sources' headers, byte for byte
        assert open(os.path.join(inc, h), "rb").read() == open(os.path.join(root, "csrc", "api", h), "rb").read()
    so = ctypes.CDLL(os.path.join(lib, "libpaddle_inference_c.so"))
    assert hasattr(so, "PD_ConfigCreate") and hasattr(so, "PD_LoadCustomOpLibrary")
