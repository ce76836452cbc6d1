"""Python API of the reduction family (paddle.tensor.math_reduce, stat, linalg, search_reduce,
softmax_ops) against numpy: Paddle 2.3 shapes (a full reduction is [1]), keepdim, negative
axes, dtype rules, non-contiguous inputs and error types."""
import numpy as np
import pytest

from paddle import _C
from paddle.tensor import linalg as L
from paddle.tensor import math_reduce as M
from paddle.tensor import search_reduce as SR
from paddle.tensor import softmax_ops as SM
from paddle.tensor import stat as S

rng = np.random.default_rng(0)


def T(a):
    return _C.from_buffer(np.ascontiguousarray(a))


def N(t):
    return np.asarray(t)


X = rng.standard_normal((3, 4, 5)).astype(np.float32)


@pytest.mark.parametrize("axis", [None, 0, -1, [0, 2], (1, -1), [], [0, 1, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_mean_shapes(axis, keepdim):
    npax = None if axis is None or axis == [] else (tuple(axis) if isinstance(axis, (list, tuple)) else axis)
    ref = np.sum(X, axis=npax, keepdims=keepdim)
    ref = ref.reshape([1]) if ref.ndim == 0 else ref
    got = N(M.sum(T(X), axis=axis, keepdim=keepdim))
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(N(S.mean(T(X), axis=axis, keepdim=keepdim)),
                               np.mean(X, axis=npax, keepdims=keepdim).reshape(ref.shape), rtol=1e-5, atol=1e-6)


def test_sum_dtype_rules():
    assert M.sum(T(np.ones((2, 3), np.int32))).dtype.name == "int64"
    assert M.sum(T(np.ones((2, 3), bool))).dtype.name == "int64"
    assert M.sum(T(np.ones((2, 3), np.int16))).dtype.name == "int16"
    assert M.sum(T(np.ones((2, 3), np.float16))).dtype.name == "float16"
    r = M.sum(T(np.ones((2, 3), np.int32)), dtype="float64")
    assert r.dtype.name == "float64" and N(r).tolist() == [6.0]
    assert N(M.sum(T(np.array([[True, False], [True, True]])), axis=1)).tolist() == [1, 2]


def test_scattered_axes():
    # reduced axes that are not one block: the kernel reduces a permuted copy
    a = rng.standard_normal((2, 3, 4, 5, 6)).astype(np.float64)
    for ax in ([0, 2], [1, 3], [0, 2, 4], [-1, 1]):
        np.testing.assert_allclose(N(M.sum(T(a), axis=ax)), a.sum(tuple(ax)))
        np.testing.assert_allclose(N(M.max(T(a), axis=ax, keepdim=True)), a.max(tuple(ax), keepdims=True))
        np.testing.assert_allclose(N(S.var(T(a), axis=ax)), a.var(tuple(ax), ddof=1))


def test_large_sums_accuracy_and_parallel():
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    for ax in (0, 1, None):
        ref = a.astype(np.float64).sum(axis=ax)
        got = N(M.sum(T(a), axis=ax)).astype(np.float64)
        np.testing.assert_allclose(got.reshape(np.shape(ref) or [1]), np.reshape(ref, got.shape), rtol=1e-4, atol=2e-3)
    b = rng.standard_normal((3, 100000)).astype(np.float32)
    np.testing.assert_allclose(N(M.max(T(b), axis=1)), b.max(1))
    np.testing.assert_allclose(N(M.sum(T(b), axis=1)), b.astype(np.float64).sum(1), rtol=1e-4, atol=1e-2)


@pytest.mark.parametrize("fn,ref", [(M.max, np.max), (M.min, np.min), (M.amax, np.amax),
                                    (M.amin, np.amin), (M.prod, np.prod)])
def test_max_min_prod(fn, ref):
    np.testing.assert_allclose(N(fn(T(X), axis=[0, -1])), ref(X, axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(N(fn(T(X))), [ref(X)], rtol=1e-4)
    xi = rng.integers(-5, 5, (4, 6)).astype(np.int64)
    assert N(fn(T(xi), axis=1, keepdim=True)).tolist() == ref(xi, axis=1, keepdims=True).tolist()


def test_max_nan_propagates():
    a = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]], np.float32)
    got = N(M.max(T(a), axis=1))
    assert np.isnan(got[0]) and got[1] == 3.0


def test_all_any():
    b = rng.random((3, 4)) > 0.5
    assert N(M.all(T(b), axis=1)).tolist() == b.all(1).tolist()
    assert N(M.any(T(b), axis=0, keepdim=True)).tolist() == b.any(0, keepdims=True).tolist()
    assert N(M.all(T(b))).shape == (1,)
    assert M.any(T(b)).dtype.name == "bool"


def test_logsumexp_stable():
    a = np.array([[1000.0, 1000.0], [-1000.0, -1000.0]], np.float32)
    np.testing.assert_allclose(N(M.logsumexp(T(a), axis=1)), [1000 + np.log(2), -1000 + np.log(2)], rtol=1e-6)
    np.testing.assert_allclose(N(M.logsumexp(T(X))), [np.log(np.exp(X.astype(np.float64)).sum())], rtol=1e-5)


def test_std_var():
    np.testing.assert_allclose(N(S.std(T(X), axis=1)), X.std(1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(N(S.var(T(X), axis=[0, 2], unbiased=False, keepdim=True)),
                               X.var((0, 2), keepdims=True), rtol=1e-5)
    assert N(S.var(T(X))).shape == (1,)
    with pytest.raises(TypeError):
        S.mean(T(np.ones(3, np.int32)))


def test_numel():
    assert N(S.numel(T(X))).tolist() == [60]


def test_argmax_argmin():
    a = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    assert N(SR.argmax(T(a))).tolist() == [int(a.argmax())]
    assert N(SR.argmax(T(a), axis=-1)).tolist() == a.argmax(-1).tolist()
    assert N(SR.argmin(T(a), axis=1, keepdim=True)).tolist() == a.argmin(1)[:, None].tolist()
    assert SR.argmax(T(a), axis=0, dtype="int32").dtype.name == "int32"
    with pytest.raises(TypeError):
        SR.argmax(T(a), dtype="float32")
    with pytest.raises(TypeError):
        SR.argmax(T(a), axis=[0])


def test_cumsum_cumprod():
    np.testing.assert_allclose(N(M.cumsum(T(X), axis=1)), np.cumsum(X, axis=1), rtol=1e-5, atol=1e-5)
    assert N(M.cumsum(T(X))).shape == (60,)
    xi = rng.integers(-3, 3, (3, 4)).astype(np.int32)
    assert N(M.cumsum(T(xi), axis=-1)).tolist() == np.cumsum(xi, -1).tolist()
    np.testing.assert_allclose(N(M.cumprod(T(X), dim=-1)), np.cumprod(X, -1), rtol=1e-5, atol=1e-6)


def test_norm():
    a = rng.standard_normal((3, 4)).astype(np.float64)
    np.testing.assert_allclose(N(L.norm(T(a))), [np.linalg.norm(a)])
    np.testing.assert_allclose(N(L.norm(T(a), p=2, axis=1)), np.linalg.norm(a, axis=1))
    np.testing.assert_allclose(N(L.norm(T(a), p=np.inf, axis=-1)), np.abs(a).max(-1))
    np.testing.assert_allclose(N(L.norm(T(a), p=-np.inf, axis=0)), np.abs(a).min(0))
    np.testing.assert_allclose(N(L.norm(T(a), p=0, axis=1)), (a != 0).sum(1))
    np.testing.assert_allclose(N(L.norm(T(a), p=3, axis=0, keepdim=True)),
                               (np.abs(a) ** 3).sum(0, keepdims=True) ** (1 / 3))
    np.testing.assert_allclose(N(L.norm(T(a), p=1.5)), [(np.abs(a) ** 1.5).sum() ** (1 / 1.5)])
    np.testing.assert_allclose(N(L.norm(T(a), p="fro", axis=[0, 1])), [np.linalg.norm(a)])
    np.testing.assert_allclose(N(L.norm(T(a), p=np.inf, axis=[0, 1])), [np.abs(a).max()])
    with pytest.raises(ValueError):
        L.norm(T(a), p="nuc")
    with pytest.raises(ValueError):
        L.norm(T(a), p=0, axis=[0, 1])


def test_matmul_shapes_and_values():
    cases = [((3, 4), (4, 5)), ((4,), (4,)), ((2, 3, 4), (4,)), ((4,), (2, 4, 5)),
             ((2, 1, 3, 4), (5, 4, 6)), ((1, 4), (4, 1))]
    for xs, ys in cases:
        a = rng.standard_normal(xs).astype(np.float32)
        b = rng.standard_normal(ys).astype(np.float32)
        ref = a @ b
        ref = ref.reshape([1]) if np.ndim(ref) == 0 else ref
        got = N(L.matmul(T(a), T(b)))
        assert got.shape == ref.shape, (xs, ys)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    a = rng.standard_normal((2, 4, 3))
    b = rng.standard_normal((2, 5, 4))
    np.testing.assert_allclose(N(L.matmul(T(a), T(b), transpose_x=True, transpose_y=True)),
                               np.swapaxes(a, 1, 2) @ np.swapaxes(b, 1, 2))
    c = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    np.testing.assert_allclose(N(L.matmul(T(c), T(c))), c @ c, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        L.matmul(T(np.ones((3, 4), np.float32)), T(np.ones((5, 6), np.float32)))
    ia, ib = np.arange(12, dtype=np.int32).reshape(3, 4) - 5, np.arange(24, dtype=np.int32).reshape(4, 6) * 7
    r = L.matmul(T(ia), T(ib))  # Paddle 2.6.2 has integer matmul: exact, in the input dtype
    assert N(r).dtype == np.int32
    np.testing.assert_array_equal(N(r), ia @ ib)


def test_matmul_large_batched_fold():
    a = rng.standard_normal((4, 64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 16)).astype(np.float32)
    np.testing.assert_allclose(N(L.matmul(T(a), T(b))), a @ b, rtol=1e-4, atol=1e-4)
    bb = rng.standard_normal((4, 32, 16)).astype(np.float32)
    np.testing.assert_allclose(N(L.bmm(T(a), T(bb))), a @ bb, rtol=1e-4, atol=1e-4)


def test_mm_bmm_errors():
    with pytest.raises(ValueError):
        L.bmm(T(np.ones((3, 4), np.float32)), T(np.ones((4, 3), np.float32)))
    with pytest.raises(ValueError):
        L.bmm(T(np.ones((2, 3, 4), np.float32)), T(np.ones((3, 4, 3), np.float32)))
    np.testing.assert_allclose(N(L.mm(T(np.eye(3)), T(np.ones((3, 2))))), np.ones((3, 2)))


def test_dot():
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    got = N(L.dot(T(a), T(b)))
    assert got.shape == (1,)
    np.testing.assert_allclose(got, [a @ b])
    A, B = rng.integers(-3, 3, (3, 4)), rng.integers(-3, 3, (3, 4))
    assert N(L.dot(T(A), T(B))).tolist() == (A * B).sum(1, keepdims=True).tolist()
    with pytest.raises(ValueError):
        L.dot(T(np.ones(3)), T(np.ones(4)))


def test_softmax():
    a = rng.standard_normal((3, 4, 5)).astype(np.float32) * 50
    for ax in (-1, 0, 1):
        e = np.exp(a - a.max(ax, keepdims=True))
        np.testing.assert_allclose(N(SM.softmax(T(a), axis=ax)), e / e.sum(ax, keepdims=True), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(N(SM.log_softmax(T(a), axis=ax)),
                                   a - a.max(ax, keepdims=True) - np.log(e.sum(ax, keepdims=True)), rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="InvalidArgument"):  # Paddle's class for an axis out of range
        SM.softmax(T(a), axis=3)


def test_errors():
    with pytest.raises(ValueError, match="InvalidArgument"):  # Paddle's class for an axis out of range
        M.sum(T(X), axis=3)
    with pytest.raises(ValueError, match="InvalidArgument"):
        M.max(T(X), axis=[-4])
    with pytest.raises(TypeError):
        M.sum(T(X), axis="a")
    with pytest.raises(TypeError):
        S.mean(T(np.ones(3, np.int64)))
    with pytest.raises(TypeError):
        M.logsumexp(T(np.ones(3, np.int64)))
    with pytest.raises(ValueError):
        M.max(T(np.ones((0, 3), np.float32)), axis=0)


def test_module_tables():
    for mod in (M, S, L, SR, SM):
        assert isinstance(mod.__all__, list) and isinstance(mod._TENSOR_METHODS, list)
        for n in mod.__all__:
            assert callable(getattr(mod, n))
