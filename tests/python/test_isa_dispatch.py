"""Run-time ISA dispatch (issue 21; docs/arch/core.md "One build for every x86-64 CPU with AVX2"):
the dispatch table points every dispatched function at the chosen level's copy, PADDLE_C_ISA
forces a level the CPU has and never one it lacks, the forced lower path computes what the
detected one does, the library outside the __avx512 copies holds no AVX-512 instruction, and a
CPU below the baseline gets an ImportError."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import paddle
from paddle import _C

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code, isa=None):
    env = dict(os.environ)
    env.pop("PADDLE_C_ISA", None)
    if isa is not None:
        env["PADDLE_C_ISA"] = isa
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(paddle.__file__))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r


def test_info_fields():
    info = _C.isa_info()
    assert info["levels"] == ["avx2", "avx512"]
    assert info["cpu_supports"] and info["cpu_supports"][0] == "avx2"  # import passed the v3 check
    assert info["detected"] == info["cpu_supports"][-1]
    assert info["active"] in info["cpu_supports"]
    if not os.environ.get("PADDLE_C_ISA"):
        assert info["active"] == info["detected"]
    assert info["dispatched_functions"] > 500
    assert info["onednn"] not in ("unknown", "") and info["openblas_core"]
    # oneDNN 3.2 from PyPI, bundled in paddle/libs (Debian's 2.6 is gone: docs/arch/core.md
    # "oneDNN 3.2 from PyPI, bundled")
    assert info["onednn_version"].split(".")[:2] == ["3", "2"], info["onednn_version"]
    # the features cpuid reports agree with the kernel's view in /proc/cpuinfo
    with open("/proc/cpuinfo") as f:
        flags = set(next(ln for ln in f if ln.startswith("flags")).split(":", 1)[1].split())
    ours = set(info["cpu_features"].split())
    for name in ("avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl"):
        assert (name in ours) == (name in flags), name
    assert ("avx512" in info["cpu_supports"]) == ({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= flags)


def test_table_points_at_active_level():
    info = _C.isa_info()
    slots = _C._isa_slots()
    assert len(slots) == info["dispatched_functions"]
    names = [s[0] for s in slots]
    assert len(set(names)) == len(names)
    for name in ("pd_gemm", "pd_kernel_softmax_f32", "pd_kernel_add_f32", "pd_cast_loop"):
        assert name in names
    for name, cur, *copies in slots:
        assert cur == f"{name}__{info['active']}", (name, cur)  # the dynamic linker's name for the target
        assert copies == [f"{name}__{lv}" for lv in info["levels"]]


def test_forced_levels():
    code = "import paddle; i = paddle._C.isa_info(); print(i['active'], i['requested'], i['note'] is not None)"
    r = _run(code, "avx2")
    assert r.stdout.split() == ["avx2", "avx2", "False"] and r.stderr == ""
    has512 = "avx512" in _C.isa_info()["cpu_supports"]
    r = _run(code, "avx512")
    if has512:
        assert r.stdout.split() == ["avx512", "avx512", "False"]
    else:  # never a level the CPU lacks: a warning and the detected level
        assert r.stdout.split() == ["avx2", "avx512", "True"]
        assert "PADDLE_C_ISA=avx512" in r.stderr and "lacks" in r.stderr
    r = _run(code, "sse9")
    assert r.stdout.split()[1:] == ["sse9", "True"] and "not a level" in r.stderr
    assert r.stdout.split()[0] == _C.isa_info()["detected"]
    r = _run(code, "auto")
    assert r.stdout.split() == [_C.isa_info()["detected"], "None", "False"]


_KERNELS = r"""
import numpy as np, paddle
import paddle.nn.functional as F
paddle.seed(3)
rng = np.random.RandomState(0)
x = paddle.to_tensor(rng.standard_normal((37, 301)).astype("float32"), stop_gradient=False)
w = paddle.to_tensor(rng.standard_normal((301, 67)).astype("float32"), stop_gradient=False)
ln = paddle.nn.LayerNorm(67)
h = ln(F.gelu(paddle.matmul(x, w)))
y = F.softmax(h, -1) * paddle.exp(paddle.tanh(h)) + paddle.sum(h * h, axis=0)
lstm = paddle.nn.LSTM(16, 24)
o, _ = lstm(paddle.to_tensor(rng.standard_normal((4, 9, 16)).astype("float32")))
loss = y.mean() + o.mean() + paddle.cast(paddle.cast(h, "bfloat16"), "float32").max()
loss.backward()
opt = paddle.optimizer.Adam(parameters=[w] + lstm.parameters())
opt.step()
np.save(OUT, np.concatenate([a.ravel() for a in (y.numpy(), o.numpy(), x.grad.numpy(), w.numpy())]))
"""


def test_forced_lower_path_matches_detected(tmp_path):
    outs = {}
    for isa in ("avx2", None):
        out = str(tmp_path / f"{isa}.npy")
        _run(f"OUT = {out!r}\n" + _KERNELS, isa)
        outs[isa] = np.load(out)
    assert np.all(np.isfinite(outs["avx2"]))
    # same algorithms, other vector widths: equal up to float32 summation order
    np.testing.assert_allclose(outs["avx2"], outs[None], rtol=2e-4, atol=2e-5)


@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) is not installed")
def test_no_avx512_outside_the_avx512_copies():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import check_isa
    finally:
        sys.path.pop(0)
    bad, n_insn, n512 = check_isa.scan(_C.__file__)
    assert bad == []
    assert n_insn > 100000 and n512 > 1000


def test_cpu_below_baseline_refused():
    from paddle import _isa_check
    assert _isa_check.missing_features({"sse2", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe",
                                        "xsave"}) == []
    assert _isa_check.missing_features({"sse2", "sse4_2", "avx", "xsave"}) == ["avx2", "fma", "f16c", "bmi1",
                                                                               "bmi2", "abm", "movbe"]
    code = ("import builtins, paddle._isa_check as c\n"
            "c._cpuinfo_flags = lambda: {'sse2', 'avx', 'xsave'}\n"
            "try:\n    c.check()\nexcept ImportError as e:\n    print('ImportError', e)\n")
    r = _run(code)
    assert r.stdout.startswith("ImportError") and "lacks: avx2, fma" in r.stdout


def test_bundled_onednn_and_one_openmp():
    """the loaded oneDNN is the copy bundled beside the package (paddle/libs/libdnnl.so.3), Debian's
    libdnnl.so.2 is not mapped, and oneDNN, OpenBLAS and our kernels share one libgomp"""
    with open("/proc/self/maps") as f:
        libs = {ln.split()[-1] for ln in f if ".so" in ln}
    dnnl = sorted(p for p in libs if "/libdnnl.so" in p)
    libs_dir = os.path.realpath(os.path.join(os.path.dirname(paddle.__file__), "libs"))
    assert len(dnnl) == 1 and os.path.dirname(os.path.realpath(dnnl[0])) == libs_dir, dnnl
    assert os.path.basename(dnnl[0]) == "libdnnl.so.3", dnnl
    gomp = sorted({os.path.realpath(p) for p in libs if "/libgomp" in p})
    assert len(gomp) == 1, gomp
