"""Helpers of the generated op sweep: numpy inputs per dtype, Tensor <-> numpy through the
buffer protocol, tolerances per dtype, and central finite differences (also used by the
references and tests that check gradients by hand)."""
import numpy as np

from paddle import _C

TOL = {
    "float16": (2e-2, 2e-2), "bfloat16": (3e-2, 3e-2), "float32": (1e-5, 1e-5),
    "float64": (1e-10, 1e-10), "complex64": (1e-5, 1e-5), "complex128": (1e-10, 1e-10),
}


def bf16_bits(a):
    """float32 array -> uint16 bfloat16 bits (truncation; the reference uses the same values)."""
    return (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def make_array(spec, dtype, rng, low=-2.0, high=2.0):
    """spec: a shape list, or a dict {shape, dtype?, low?, high?, value?, unique?}."""
    if isinstance(spec, dict):
        if "value" in spec:
            a = np.array(spec["value"])
            dt = spec.get("dtype", dtype if dtype != "bfloat16" else "float32")
            return a.astype("float32" if dt == "bfloat16" else dt), spec.get("dtype", dtype)
        shape = spec["shape"]
        dt = spec.get("dtype", dtype)
        low = spec.get("low", low)
        high = spec.get("high", high)
        if spec.get("permutation"):
            n = int(np.prod(shape))
            return rng.permutation(n).reshape(shape).astype("float32" if dt == "bfloat16" else dt), dt
    else:
        shape, dt = spec, dtype
    if dt == "bool":
        return rng.random(shape) > 0.5, dt
    if dt in ("uint8", "int8", "int16", "int32", "int64"):
        lo, hi = int(np.floor(low)), int(np.ceil(high))
        if dt == "uint8":
            lo = max(lo, 0)
        if hi <= lo:
            hi = lo + 1
        return rng.integers(lo, hi + 1, size=shape).astype(dt), dt
    if dt in ("complex64", "complex128"):
        re = rng.uniform(low, high, size=shape)
        im = rng.uniform(low, high, size=shape)
        return (re + 1j * im).astype(dt), dt
    a = rng.uniform(low, high, size=shape)
    if dt == "bfloat16":
        return bf16_values(bf16_bits(a.astype(np.float32))), dt
    return a.astype(dt), dt


def to_tensor(a, dt):
    if dt == "bfloat16":
        return _C.from_buffer(bf16_bits(a))
    return _C.from_buffer(np.ascontiguousarray(a))


def to_numpy(t):
    a = np.array(memoryview(t)) if t.ndim else np.array(t._item_at(0)).astype(
        {"bfloat16": "float32"}.get(t.dtype.name, t.dtype.name))
    if t.ndim and t.dtype.name == "bfloat16":
        a = bf16_values(a)
    return a


def numeric_grad(f, a, eps=1e-6):
    """Central differences of the scalar f() w.r.t. every element of the float array a, which is
    perturbed in place (and restored)."""
    g = np.zeros(a.shape)
    flat, gflat = a.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = f()
        flat[i] = old - eps
        fm = f()
        flat[i] = old
        gflat[i] = (fp - fm) / (2 * eps)
    return g
