"""Helpers of the bfloat16 tests (test_bf16_conv.py, test_bf16_norm_pool.py)."""
import numpy as np


def bf16_round(a):
    """float32 -> the nearest bfloat16 (round to nearest even), as float32 values."""
    b = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32)


def close(got, want, what, tol=2e-2):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: {got.shape} vs {want.shape}"
    scale = max(float(np.abs(want).max()), 1e-30)
    err = float(np.abs(got - want).max()) / scale
    assert err <= tol, f"{what}: max difference {err:.3g} of the scale {scale:.3g} (allowed {tol})"


def f32(t):
    return t.astype("float32").numpy()
