"""paddle.tensor.math / paddle.tensor.logic against numpy: values, broadcasting, Paddle's dtype
rules (int / int -> float32, comparisons -> bool, atan2 of ints -> float64, abs of complex ->
real), error types (ValueError on mismatched dtypes/shapes, TypeError on unsupported dtypes),
in-place variants and the large (multi-threaded) path."""
import numpy as np
import pytest

import paddle
from paddle import _C
from paddle.tensor import logic as L
from paddle.tensor import math as M

rng = np.random.default_rng(0)


def T(a, dtype=None):
    return _C.from_buffer(np.ascontiguousarray(np.asarray(a, dtype=dtype)))


def N(t):
    return np.asarray(t)


def rand(shape, dtype="float32", low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


BINARY = [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("maximum", np.maximum), ("minimum", np.minimum), ("fmax", np.fmax), ("fmin", np.fmin),
]


@pytest.mark.parametrize("name,ref", BINARY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_binary_broadcast(name, ref, dtype):
    x, y = rand([3, 1, 5], dtype, -9, 9), rand([4, 1], dtype, -9, 9)
    out = getattr(M, name)(T(x), T(y))
    assert out.dtype.name == dtype
    np.testing.assert_allclose(N(out), ref(x, y), rtol=1e-6)


def test_divide_int_is_float32():
    x, y = np.array([7, -7, 3], "int64"), np.array([2, 2, 4], "int64")
    out = M.divide(T(x), T(y))
    assert out.dtype.name == "float32"
    np.testing.assert_allclose(N(out), x / y, rtol=1e-6)
    out = M.divide(T(x.astype("float64")), T(y.astype("float64")))
    assert out.dtype.name == "float64"


def test_floor_divide_and_remainder():
    x = np.arange(-9, 10, dtype="int64").reshape(1, -1)
    y = np.array([[-4], [-3], [-1], [2], [5]], "int64")
    np.testing.assert_array_equal(N(M.floor_divide(T(x), T(y))), np.floor_divide(x, y))
    for f in (M.remainder, M.mod, M.floor_mod):
        np.testing.assert_array_equal(N(f(T(x), T(y))), np.remainder(x, y))
    xf, yf = rand([5, 6], "float64", -9, 9), np.array([-2.5, 0.75, 3.0, -1.0, 2.0, 7.0])
    np.testing.assert_allclose(N(M.remainder(T(xf), T(yf))), np.remainder(xf, yf), rtol=1e-12)
    np.testing.assert_allclose(N(M.floor_divide(T(xf), T(yf))), np.floor(xf / yf))
    imin = np.array([np.iinfo(np.int64).min], "int64")
    np.testing.assert_array_equal(N(M.floor_divide(T(imin), T([-1], "int64"))), imin)


def test_integer_division_by_zero_is_an_error():
    with pytest.raises(ValueError):
        M.floor_divide(T([1, 2], "int32"), T([1, 0], "int32"))
    with pytest.raises(ValueError):
        M.remainder(T([1, 2], "int64"), T([0, 1], "int64"))


def test_pow():
    x = T([1, 2, 3], "int64")
    for i in range(10):
        out = M.pow(x, i)
        assert out.dtype.name == "int64"
        np.testing.assert_array_equal(N(out), np.array([1, 2, 3]) ** i)
    xf = rand([4, 5], "float32", 0.5, 2)
    np.testing.assert_allclose(N(M.pow(T(xf), 2.5)), xf ** 2.5, rtol=1e-5)
    yf = rand([5], "float32", -2, 2)
    np.testing.assert_allclose(N(M.pow(T(xf), T(yf))), xf ** yf, rtol=1e-5)
    xi, yi = np.array([[2, -3, 5]], "int32"), np.array([[0], [3], [7]], "int32")
    np.testing.assert_array_equal(N(M.pow(T(xi), T(yi))), xi ** yi)


def test_maximum_nan_rules():
    x = np.array([np.nan, 1.0, np.nan, -2.0], "float32")
    y = np.array([1.0, np.nan, np.nan, 3.0], "float32")
    for name, ref in [("maximum", np.maximum), ("minimum", np.minimum), ("fmax", np.fmax),
                      ("fmin", np.fmin)]:
        np.testing.assert_array_equal(N(getattr(M, name)(T(x), T(y))), ref(x, y))


def test_atan2_dtypes():
    x, y = np.array([1, -2, 0, 3], "int32"), np.array([2, 2, 0, -1], "int32")
    out = M.atan2(T(x), T(y))
    assert out.dtype.name == "float64"
    np.testing.assert_allclose(N(out), np.arctan2(x.astype(float), y.astype(float)), rtol=1e-12)
    xf = rand([3, 4], "float32")
    out = M.atan2(T(xf), T(xf[0]))
    assert out.dtype.name == "float32"
    np.testing.assert_allclose(N(out), np.arctan2(xf, xf[0]), rtol=1e-5, atol=1e-6)


UNARY = [
    ("exp", np.exp, -2, 2), ("expm1", np.expm1, -2, 2), ("log", np.log, 0.1, 3),
    ("log2", np.log2, 0.1, 3), ("log10", np.log10, 0.1, 3), ("log1p", np.log1p, -0.5, 3),
    ("sqrt", np.sqrt, 0, 4), ("rsqrt", lambda a: 1 / np.sqrt(a), 0.1, 4),
    ("square", np.square, -3, 3), ("sign", np.sign, -3, 3), ("floor", np.floor, -5, 5),
    ("ceil", np.ceil, -5, 5), ("trunc", np.trunc, -5, 5), ("reciprocal", np.reciprocal, 0.5, 3),
    ("sin", np.sin, -4, 4), ("cos", np.cos, -4, 4), ("tan", np.tan, -1.2, 1.2),
    ("asin", np.arcsin, -1, 1), ("acos", np.arccos, -1, 1), ("atan", np.arctan, -5, 5),
    ("sinh", np.sinh, -3, 3), ("cosh", np.cosh, -3, 3), ("tanh", np.tanh, -3, 3),
    ("asinh", np.arcsinh, -3, 3), ("acosh", np.arccosh, 1, 4), ("atanh", np.arctanh, -0.99, 0.99),
    ("abs", np.abs, -3, 3), ("neg", np.negative, -3, 3),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a)), -6, 6),
]


@pytest.mark.parametrize("name,ref,low,high", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary(name, ref, low, high, dtype):
    x = rand([4, 6], dtype, low, high)
    out = getattr(M, name)(T(x))
    assert out.dtype.name == dtype and list(out.shape) == [4, 6]
    tol = 2e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(N(out), ref(x), rtol=tol, atol=tol)


def test_erf_erfinv_round():
    import math
    x = rand([50], "float64", -3, 3)
    np.testing.assert_allclose(N(M.erf(T(x))), [math.erf(v) for v in x], rtol=1e-14)
    y = np.concatenate([rand([200], "float64", -1, 1), [0.0, 0.999999, -0.999999999]])
    np.testing.assert_allclose(N(M.erf(M.erfinv(T(y)))), y, rtol=1e-13, atol=1e-15)
    e = N(M.erfinv(T([1.0, -1.0, 2.0], "float64")))
    assert e[0] == np.inf and e[1] == -np.inf and np.isnan(e[2])
    r = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49, -0.51], "float32")
    np.testing.assert_array_equal(N(M.round(T(r))), [1, 2, 3, -1, -3, 0, -1])


def test_int_unary():
    x = np.array([-3, 0, 5, -128, 127], "int8")
    np.testing.assert_array_equal(N(M.abs(T(x))), np.abs(x))
    np.testing.assert_array_equal(N(M.neg(T(x))), -x)
    np.testing.assert_array_equal(N(M.sign(T(x))), np.sign(x))
    np.testing.assert_array_equal(N(M.square(T(x.astype("int64")))), x.astype("int64") ** 2)


def test_complex():
    z = (rand([3, 4], "float64") + 1j * rand([3, 4], "float64")).astype("complex64")
    out = M.abs(T(z))
    assert out.dtype.name == "float32"
    np.testing.assert_allclose(N(out), np.abs(z), rtol=1e-6)
    for name, ref in [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("sin", np.sin),
                      ("cos", np.cos), ("tanh", np.tanh), ("square", np.square),
                      ("reciprocal", np.reciprocal)]:
        out = getattr(M, name)(T(z))
        assert out.dtype.name == "complex64"
        np.testing.assert_allclose(N(out), ref(z), rtol=2e-5, atol=2e-6)


def test_isnan_isinf_isfinite():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, 1.5], "float32")
    for name, ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)]:
        out = getattr(M, name)(T(x))
        assert out.dtype.name == "bool"
        np.testing.assert_array_equal(N(out), ref(x))
        np.testing.assert_array_equal(N(getattr(M, name)(T([1, 2], "int64"))), ref(np.array([1, 2])))


def test_logit():
    x = rand([10], "float64", 0.01, 0.99)
    np.testing.assert_allclose(N(M.logit(T(x))), np.log(x / (1 - x)), rtol=1e-12)
    c = np.clip(x, 0.1, 0.9)
    np.testing.assert_allclose(N(M.logit(T(x), eps=0.1)), np.log(c / (1 - c)), rtol=1e-12)
    assert np.isnan(N(M.logit(T([1.5, -0.5], "float32")))).all()


def test_clip_and_scale():
    x = rand([3, 5], "float32", -5, 5)
    np.testing.assert_array_equal(N(M.clip(T(x), -1.0, 2.0)), np.clip(x, -1.0, 2.0))
    np.testing.assert_array_equal(N(M.clip(T(x), min=0.5)), np.maximum(x, np.float32(0.5)))
    np.testing.assert_array_equal(N(M.clip(T(x), max=0.5)), np.minimum(x, np.float32(0.5)))
    xi = np.arange(-5, 6, dtype="int64")
    np.testing.assert_array_equal(N(M.clip(T(xi), -2, 3)), np.clip(xi, -2, 3))
    np.testing.assert_array_equal(N(M.clip(T(xi))), xi)
    np.testing.assert_array_equal(N(M.clip(T(xi), T([-1], "int64"), T([1], "int64"))),
                                  np.clip(xi, -1, 1))
    with pytest.raises(ValueError):
        M.clip(T(x), 2.0, 1.0)
    np.testing.assert_allclose(N(M.scale(T(x), 2.0, 1.0)), x * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(N(M.scale(T(x), 2.0, 1.0, bias_after_scale=False)), (x + 1) * 2,
                               rtol=1e-6)
    np.testing.assert_allclose(N(M.scale(T(x), 0.5, act="tanh")), np.tanh(x * 0.5), rtol=1e-6)
    np.testing.assert_array_equal(N(M.scale(T(xi), 3, 2)), xi * 3 + 2)


def test_cast():
    x = rand([2, 3], "float32", -5, 5)
    for dt in ["float64", "int32", "int64", "bool", "float16", "uint8"]:
        out = M.cast(T(x), dt)
        assert out.dtype.name == dt
        if dt != "uint8":
            np.testing.assert_array_equal(N(out), x.astype(dt))
    out = M.cast(T(x), "bfloat16")
    assert out.dtype.name == "bfloat16"
    np.testing.assert_allclose(N(M.cast(out, np.float32)), x, rtol=1e-2)
    with pytest.raises(TypeError):
        M.cast(T(x), "notadtype")


def test_inplace_variants():
    x0 = rand([3, 4], "float32", 0.5, 2)
    for name, ref in [("exp_", np.exp), ("sqrt_", np.sqrt), ("rsqrt_", lambda a: 1 / np.sqrt(a)),
                      ("tanh_", np.tanh), ("ceil_", np.ceil), ("floor_", np.floor),
                      ("reciprocal_", np.reciprocal)]:
        x = T(x0)
        ptr = x._data_ptr
        r = getattr(M, name)(x)
        assert r is x and x._data_ptr == ptr
        np.testing.assert_allclose(N(x), ref(x0), rtol=1e-6)
    x = T(x0)
    assert M.add_(x, T(x0[0])) is x
    np.testing.assert_allclose(N(x), x0 + x0[0], rtol=1e-6)
    M.subtract_(x, T(x0))
    np.testing.assert_allclose(N(x), np.broadcast_to(x0[0], x0.shape), rtol=1e-6)
    M.clip_(x, 0.7, 1.2)
    M.scale_(x, 2.0, 1.0)
    np.testing.assert_allclose(N(x), np.clip(np.broadcast_to(x0[0], x0.shape), 0.7, 1.2) * 2 + 1,
                               rtol=1e-6)
    with pytest.raises(ValueError):
        M.add_(T(x0[0]), T(x0))  # result would be bigger than x


@pytest.mark.parametrize("name,ref", [
    ("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
    ("less_equal", np.less_equal), ("greater_than", np.greater),
    ("greater_equal", np.greater_equal)])
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float32", "float64"])
def test_compare(name, ref, dtype):
    x = rng.integers(-2, 3, size=[3, 1, 4]).astype(dtype)
    y = rng.integers(-2, 3, size=[5, 1]).astype(dtype)
    out = getattr(L, name)(T(x), T(y))
    assert out.dtype.name == "bool" and list(out.shape) == [3, 5, 4]
    np.testing.assert_array_equal(N(out), ref(x, y))


def test_logical_and_bitwise():
    x, y = rng.integers(-2, 3, size=[4, 5]), rng.integers(-2, 3, size=[5])
    for name, ref in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                      ("logical_xor", np.logical_xor)]:
        for dt in ["bool", "int32", "float32"]:
            out = getattr(L, name)(T(x.astype(dt)), T(y.astype(dt)))
            assert out.dtype.name == "bool"
            np.testing.assert_array_equal(N(out), ref(x.astype(dt), y.astype(dt)))
    np.testing.assert_array_equal(N(L.logical_not(T(x, "float32"))), np.logical_not(x))
    for name, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                      ("bitwise_xor", np.bitwise_xor)]:
        for dt in ["bool", "uint8", "int16", "int64"]:
            np.testing.assert_array_equal(N(getattr(L, name)(T(x.astype(dt)), T(y.astype(dt)))),
                                          ref(x.astype(dt), y.astype(dt)))
    np.testing.assert_array_equal(N(L.bitwise_not(T(x, "int32"))), ~x.astype("int32"))
    np.testing.assert_array_equal(N(L.bitwise_not(T(x > 0))), ~(x > 0))
    out = T(np.zeros([4, 5], bool))
    assert L.logical_and(T(x, "int32"), T(y, "int32"), out=out) is out
    np.testing.assert_array_equal(N(out), np.logical_and(x, y))


def test_equal_all_isclose_allclose():
    a = np.array([1.0, 2.0, np.nan, np.inf], "float64")
    b = np.array([1.0, 2.0 + 1e-9, np.nan, np.inf], "float64")
    np.testing.assert_array_equal(N(L.isclose(T(a), T(b))), np.isclose(a, b))
    np.testing.assert_array_equal(N(L.isclose(T(a), T(b), equal_nan=True)),
                                  np.isclose(a, b, equal_nan=True))
    r = L.allclose(T(a), T(b))
    # shape [1] at Paddle 2.3's level (FLAGS_set_to_1d on), 0-D at 2.6's (what Paddle 2.6.2 gives)
    level23 = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    assert list(r.shape) == ([1] if level23 else []) and r.dtype.name == "bool" and not N(r).item()
    assert N(L.allclose(T(a), T(b), equal_nan=True)).item()
    assert N(L.equal_all(T([1, 2], "int64"), T([1, 2], "int64"))).item()
    assert not N(L.equal_all(T([1, 2], "int64"), T([1, 3], "int64"))).item()
    assert not N(L.equal_all(T([1, 2], "int64"), T([1, 2, 3], "int64"))).item()


def test_errors():
    f32, f64 = T(rand([3], "float32")), T(rand([3], "float64"))
    assert M.add(f32, f64).dtype == paddle.float64  # Paddle's type promotion (float pairs)
    with pytest.raises(ValueError):
        M.add(T([1], "int32"), T([1], "int64"))  # integer pairs do not promote
    with pytest.raises(ValueError):
        L.less_than(f32, f64)
    with pytest.raises(ValueError):
        M.multiply(T(rand([3], "float32")), T(rand([4], "float32")))
    with pytest.raises(ValueError):
        L.equal(T(rand([2, 3], "float32")), T(rand([2], "float32")))
    with pytest.raises(TypeError):  # no int kernel (Paddle: RuntimeError NotFound; ours is both)
        M.sin(T([1, 2], "int64"))
    with pytest.raises(TypeError):
        M.floor_divide(T([1j]), T([1j]))
    with pytest.raises(TypeError):
        L.bitwise_and(T([1.0]), T([1.0]))
    with pytest.raises(TypeError):
        L.less_than(T([1j]), T([1j]))
    with pytest.raises(TypeError):
        M.sqrt([1.0, 2.0])


def test_large_parallel_path():
    x = rand([513, 300], "float32", 0.1, 3)
    y = rand([300], "float32", 0.1, 3)
    np.testing.assert_allclose(N(M.log(T(x))), np.log(x), rtol=1e-6)
    np.testing.assert_allclose(N(M.maximum(T(x), T(y))), np.maximum(x, y))
    np.testing.assert_array_equal(N(L.less_than(T(x), T(y))), x < y)
    xi = rng.integers(-50, 50, size=[400, 300]).astype("int64")
    yi = rng.integers(1, 9, size=[300]).astype("int64")
    np.testing.assert_array_equal(N(M.remainder(T(xi), T(yi))), np.remainder(xi, yi))
    yi[7] = 0
    with pytest.raises(ValueError):
        M.floor_divide(T(xi), T(yi))
