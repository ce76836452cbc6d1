"""The CUDA backend's plumbing on a CPU machine: paddle._C loads the host-only stand-in of
libpaddle_c_cuda.so (tests/cuda/mock, `make cuda-mock-lib`: one fake GPU whose memory is host
memory and which has no kernels) through PADDLE_C_CUDA_LIB, so tests/python/test_cuda.py,
test_gpu_misc.py and test_gpu_static.py run for real: places, moves, set_device, memory statistics,
streams, errors, the host fallback of every op (its CPU kernel on host copies), seed-MLP training on
the "GPU" against the CPU, the static Executor on CUDAPlace and the GPU predictor (paddle.inference
and the C API with EnableUseGpu) against the CPU and real Paddle's outputs. The fake GPU's memory is
unreadable from the host outside the runtime's copies (MOCK_CUDA_STRICT), as a real GPU's is. What
it cannot check is the CUDA kernels themselves (tools/gpu/README.md)."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "build", "cuda", "mockrel", "libpaddle_c_cuda.so")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the stand-in library")
def test_gpu_suite_on_the_mock_gpu():
    r = subprocess.run(["make", "-s", "-C", ROOT, "cuda-mock-lib", f"PY={sys.executable}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # MOCK_CUDA_STRICT: the fake GPU's memory is PROT_NONE outside the runtime's copies, so host code
    # touching device memory (which a real GPU forbids) crashes here instead of passing
    env = dict(os.environ, PADDLE_C_CUDA_LIB=LIB, PYTHONPATH=os.path.join(ROOT, "python"), MOCK_CUDA_STRICT="1")
    env.pop("PADDLE_C_CUDA", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
                        os.path.join(ROOT, "tests", "python", "test_cuda.py"),
                        os.path.join(ROOT, "tests", "python", "test_gpu_misc.py"),
                        os.path.join(ROOT, "tests", "python", "test_gpu_static.py")],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    tail = r.stdout[-4000:] + r.stderr[-2000:]
    assert r.returncode == 0, tail
    # every test ran on the fake GPU (only the fixture models may be absent from a checkout)
    skips = [ln for ln in r.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert all("paddle_models not present" in ln for ln in skips), tail
