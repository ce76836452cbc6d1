"""The CUDA backend's library as the build leaves it (docs/arch/cuda.md "CUDA runtime and build"),
checked without a GPU: where nvcc is found the build produced paddle/libs/libpaddle_c_cuda.so; it
exports pd_cuda_get_api and nothing else; it loads with no GPU and no CUDA runtime installed (the
runtime is linked statically) and its table answers: API version, and device_count() 0 (never an
error) on a machine without a GPU. The GPU checks are tests/cuda/rt_check.c (make cuda-check)."""
import ctypes
import os
import subprocess
import sys

import pytest

import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(os.path.dirname(os.path.abspath(paddle.__file__)), "libs", "libpaddle_c_cuda.so")
HAVE_GPU = os.path.exists("/dev/nvidiactl")


def _need_lib():
    if not os.path.exists(LIB):
        pytest.skip("libpaddle_c_cuda.so not built (no nvcc at build time)")


def test_built_where_nvcc_is_found():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import buildcfg
    finally:
        sys.path.pop(0)
    nvcc, why = buildcfg.nvcc_path()
    if nvcc is None:
        pytest.skip(why)
    assert os.path.exists(LIB), f"nvcc is at {nvcc} but the build left no {LIB}"


def test_exports_only_the_api_entry():
    _need_lib()
    out = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True, text=True, check=True).stdout
    names = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert names == ["pd_cuda_get_api"], names


def test_table_answers_without_a_gpu():
    _need_lib()
    lib = ctypes.CDLL(LIB)
    lib.pd_cuda_get_api.restype = ctypes.c_void_p
    api = lib.pd_cuda_get_api()
    assert api
    # pd_cuda_api: int version, int max_dims, const pd_cuda_runtime *rt, ...
    assert ctypes.c_int.from_address(api).value == 1          # PD_CUDA_API_VERSION
    assert ctypes.c_int.from_address(api + 4).value == 9      # PD_CUDA_MAX_DIMS
    rt = ctypes.c_void_p.from_address(api + 8).value
    assert rt
    slot = lambda i, proto: proto(ctypes.c_void_p.from_address(rt + 8 * i).value)  # noqa: E731
    device_count = slot(0, ctypes.CFUNCTYPE(ctypes.c_int))
    last_error = slot(29, ctypes.CFUNCTYPE(ctypes.c_char_p))
    last_error_code = slot(30, ctypes.CFUNCTYPE(ctypes.c_int))
    n = device_count()
    if HAVE_GPU:
        assert n >= 0
    else:
        assert n == 0
        alloc = slot(5, ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t))
        assert alloc(0, 1024) is None
        assert last_error_code() == 1  # PD_CU_ERR_NO_DEVICE
        assert b"invalid GPU ordinal 0 (0 GPUs visible)" in last_error()
