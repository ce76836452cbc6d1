"""Writes tests/python/data/issue20_signatures.json: parameter names, kinds and defaults of the
issue-20 APIs (paddle.profiler, paddle.device(.cuda), sysconfig, utils, download, onnx.export,
cpp_extension) as real Paddle 2.6.2 declares them. Run with the oracle from an empty directory:
    cd $(mktemp -d) && /work/oracle/bin/python /path/to/tools/oracle/make_issue20_signatures.py OUT.json
tests/python/test_api_signatures_issue20.py compares ours against it (type annotations aside)."""
import inspect
import json
import sys

import paddle
import paddle.device
import paddle.device.cuda
import paddle.onnx
import paddle.profiler as P
import paddle.sysconfig
import paddle.utils
import paddle.utils.cpp_extension as CE
import paddle.utils.download as DL


def _default(v):
    if v is inspect.Parameter.empty:
        return "<required>"
    return repr(v)


def sig(f):  # methods and classes without self, so a function and a class compare alike
    return [[p.name, p.kind.name, _default(p.default)] for p in inspect.signature(f).parameters.values()
            if p.name != "self"]


TARGETS = {
    "profiler.Profiler": P.Profiler.__init__, "profiler.Profiler.start": P.Profiler.start,
    "profiler.Profiler.stop": P.Profiler.stop, "profiler.Profiler.step": P.Profiler.step,
    "profiler.Profiler.step_info": P.Profiler.step_info, "profiler.Profiler.export": P.Profiler.export,
    "profiler.Profiler.summary": P.Profiler.summary, "profiler.RecordEvent": P.RecordEvent.__init__,
    "profiler.RecordEvent.begin": P.RecordEvent.begin, "profiler.RecordEvent.end": P.RecordEvent.end,
    "profiler.make_scheduler": P.make_scheduler, "profiler.export_chrome_tracing": P.export_chrome_tracing,
    "profiler.export_protobuf": P.export_protobuf, "profiler.load_profiler_result": P.load_profiler_result,
    "sysconfig.get_include": paddle.sysconfig.get_include, "sysconfig.get_lib": paddle.sysconfig.get_lib,
    "utils.run_check": paddle.utils.run_check, "utils.deprecated": paddle.utils.deprecated,
    "utils.require_version": paddle.utils.require_version, "utils.try_import": paddle.utils.try_import,
    "utils.download.get_path_from_url": DL.get_path_from_url,
    "utils.download.get_weights_path_from_url": DL.get_weights_path_from_url,
    "onnx.export": paddle.onnx.export,
    "cpp_extension.load": CE.load, "cpp_extension.setup": CE.setup, "cpp_extension.CppExtension": CE.CppExtension,
    "cpp_extension.CUDAExtension": CE.CUDAExtension, "cpp_extension.get_build_directory": CE.get_build_directory,
}
for n in sorted(paddle.device.__all__):
    f = getattr(paddle.device, n)
    if n not in ("Stream", "Event"):  # pybind classes there: no Python signature
        TARGETS["device." + n] = f
TARGETS["device.Stream"] = paddle.device.Stream.__init__
TARGETS["device.Event"] = paddle.device.Event.__init__
for n in sorted(paddle.device.cuda.__all__):
    if n not in ("Stream", "Event"):
        TARGETS["device.cuda." + n] = getattr(paddle.device.cuda, n)

out = {k: sig(f) for k, f in sorted(TARGETS.items())}
out["profiler.__all__"] = sorted(P.__all__)
out["device.__all__"] = sorted(paddle.device.__all__)
out["device.cuda.__all__"] = sorted(paddle.device.cuda.__all__)
json.dump(out, open(sys.argv[1], "w"), indent=1, sort_keys=True)
