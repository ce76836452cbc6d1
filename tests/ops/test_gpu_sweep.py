"""The op sweep on the GPU (issue 22): every case of tests/ops/generated_cases.py whose op has a GPU
kernel for the dtype runs twice, on the CPU and on the GPU (the tensor inputs moved there, once
contiguous and once as strided views), and the GPU result must match the CPU one: float32 within
1e-5 relative (cuBLAS's TF32 turned off for the comparison), float16 / bfloat16 within their
precision, float64 to 1e-10, integers and bools exactly. Random ops run after the same
paddle.seed on both sides and must agree bit for bit where the CPU kernel is deterministic for a
seed. Skipped where no GPU is found (CI)."""
import os

import numpy as np
import pytest

import paddle
from paddle import _C

from generated_cases import CASES
from sweep_util import to_numpy
from test_op_sweep import _build_args

GPU_KERNELS = _C.gpu_kernels() if _C.cuda_device_count() > 0 else {}
# PADDLE_C_GPU_SWEEP_ALL=1: every op x dtype, those without a GPU kernel through the host fallback
# (with the host-only mock library of tests/cuda/mock this checks the routing on a CPU machine)
SWEEP_ALL = os.environ.get("PADDLE_C_GPU_SWEEP_ALL") == "1" and _C.cuda_device_count() > 0
if SWEEP_ALL:
    from generated_cases import KERNEL_DTYPES
    GPU_KERNELS = {op: list(dts) for op, dts in KERNEL_DTYPES.items()}
pytestmark = pytest.mark.skipif(not GPU_KERNELS, reason="no CUDA GPU (or no GPU kernels in this build)")

GPU_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2), "float32": (1e-5, 1e-5),
           "float64": (1e-10, 1e-10)}

PARAMS = []
for i, c in enumerate(CASES):
    for dt in c["dtypes"]:
        if dt in GPU_KERNELS.get(c["op"], ()):
            # in-place ops (optimizer updates ...) and auc (its running statistics) take contiguous
            # state tensors, as on the CPU
            contig_only = c["op"].endswith("_") or c["op"] == "auc"
            for layout in ("contig",) if contig_only else ("contig", "strided"):
                PARAMS.append(pytest.param(c, dt, layout, id=f"{c['op']}-{i}-{dt}-{layout}"))


def _strided_copy(t):
    """t on the GPU as a non-contiguous view with the same values (every other element of a
    tensor twice as long in its last dim)."""
    if t.ndim == 0 or t.numel() == 0:
        return t._to_device(0)
    a = paddle.stack([t, t], axis=-1)._to_device(0)  # [..., n, 2]
    big_strides = a._strides
    return a._strided_view(list(t.shape), big_strides[:-1], 0)


def _to_gpu(v, layout):
    if isinstance(v, paddle.Tensor):
        return v._to_device(0) if layout == "contig" else _strided_copy(v)
    if isinstance(v, list) and v and all(isinstance(x, paddle.Tensor) for x in v):
        return [_to_gpu(x, layout) for x in v]
    return v


def _run(op, args, seed):
    paddle.seed(seed)
    out = getattr(_C._C_ops, op)(*args)
    return list(out) if isinstance(out, (list, tuple)) else [out]


@pytest.fixture(autouse=True)
def _exact_fp32():
    old = os.environ.get("FLAGS_allow_tf32_cublas")
    _C.cuda_set_allow_tf32(False)
    fallback = _C.set_gpu_fallback(SWEEP_ALL)  # only the GPU kernels, unless sweeping everything
    yield
    _C.set_gpu_fallback(fallback)
    _C.cuda_set_allow_tf32(old != "0")
    # a kernel fault leaves the CUDA context unusable: end this worker so the rest run in a fresh one
    try:
        paddle.device.cuda.synchronize()
    except Exception:  # noqa: BLE001
        os._exit(3)


@pytest.mark.parametrize("case,dt,layout", PARAMS)
def test_gpu_matches_cpu(case, dt, layout):
    rng = np.random.default_rng(1234)
    arrays, args = _build_args(case, dt, rng)
    gargs = [_to_gpu(a, layout) for a in args]  # before the CPU run: in-place ops write their input
    cpu = _run(case["op"], args, 7)
    creation = not any(isinstance(a, paddle.Tensor) or isinstance(a, list) and a and isinstance(a[0], paddle.Tensor)
                       for a in args)
    if creation:  # an op without tensor inputs runs on paddle.set_device's device
        paddle.set_device("gpu")
    try:
        gpu = _run(case["op"], gargs, 7)
    finally:
        paddle.set_device("cpu")
    assert len(gpu) == len(cpu)
    for c, g in zip(cpu, gpu):
        if c is None:
            assert g is None
            continue
        assert g.place.is_gpu_place(), f"{case['op']}: output on {g.place}"
        assert g.dtype == c.dtype and list(g.shape) == list(c.shape)
        if case["nondet"]:
            continue
        rtol, atol = GPU_TOL.get(c.dtype.name, (0, 0))  # by the output's dtype (atan2 of ints is float64)
        gc, cc = to_numpy(g.cpu()), to_numpy(c)
        if gc.dtype.kind in "biu" or rtol == 0:
            np.testing.assert_array_equal(gc, cc)
        else:
            scale = max(1.0, float(np.nanmax(np.abs(cc.astype(np.float64)))) if cc.size else 1.0)
            np.testing.assert_allclose(gc.astype(np.float64), cc.astype(np.float64), rtol=rtol,
                                       atol=atol * scale, equal_nan=True)
