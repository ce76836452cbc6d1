"""paddle.sparse: COO/CSR tensors against their dense equivalents (numpy), round trips,
gradients (dense-reference autograd and finite differences) and bad input."""
import numpy as np
import pytest

import paddle
import paddle.sparse as sp

RNG = np.random.default_rng(7)


def rand_sparse(shape, density=0.3, dtype="float32", rng=RNG):
    d = rng.standard_normal(shape).astype(dtype)
    d[rng.random(shape) > density] = 0
    return d


def coo_of(d, sparse_dim=None, stop_gradient=True):
    x = paddle.to_tensor(d).to_sparse_coo(sparse_dim or d.ndim)
    x.stop_gradient = stop_gradient
    return x


def csr_of(d, stop_gradient=True):
    x = paddle.to_tensor(d).to_sparse_csr()
    x.stop_gradient = stop_gradient
    return x


# ---------------- creation, attributes, conversions ----------------
def test_coo_creation_attributes_and_to_dense():
    i = [[0, 1, 1, 0], [2, 0, 1, 2]]
    x = sp.sparse_coo_tensor(i, [1.0, 2.0, 3.0, 4.0], [2, 3])
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr()
    assert x.shape == [2, 3] and x.dtype == paddle.float32 and x.nnz() == 4 and x.stop_gradient
    assert x.sparse_dim() == 2 and x.dense_dim() == 0
    np.testing.assert_array_equal(x.indices().numpy(), i)  # kept as given until coalesce
    ref = np.zeros((2, 3), np.float32)
    np.add.at(ref, tuple(np.array(i)), [1, 2, 3, 4])
    np.testing.assert_array_equal(x.to_dense().numpy(), ref)
    s = repr(x)
    assert "indices=" in s and "values=" in s and "shape=[2, 3]" in s
    # shape inferred from the indices (+ dense dims of values)
    y = sp.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]])
    assert y.shape == [3, 2] and y.sparse_dim() == 1 and y.dense_dim() == 1
    np.testing.assert_array_equal(y.to_dense().numpy(), [[1, 2], [0, 0], [3, 4]])
    assert sp.sparse_coo_tensor([[0, 1]], [1, 2]).dtype == paddle.int64
    assert sp.sparse_coo_tensor([[0, 1]], [1, 2], dtype="float64").dtype == paddle.float64


def test_csr_creation_and_to_dense():
    x = sp.sparse_csr_tensor([0, 2, 3], [1, 3, 2], [1.0, 2.0, 3.0], [2, 4])
    assert x.is_sparse_csr() and not x.is_sparse_coo() and x.nnz() == 3
    np.testing.assert_array_equal(x.crows().numpy(), [0, 2, 3])
    np.testing.assert_array_equal(x.cols().numpy(), [1, 3, 2])
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 1, 0, 2], [0, 0, 3, 0]])
    assert "crows=" in repr(x)
    # batched [B, M, N]: each block of crows restarts at 0
    b = sp.sparse_csr_tensor([0, 1, 1, 0, 1, 2], [0, 1, 0], [1.0, 2.0, 3.0], [2, 2, 2])
    np.testing.assert_array_equal(b.to_dense().numpy(), [[[1, 0], [0, 0]], [[0, 2], [3, 0]]])


def test_dense_methods_and_names():
    d = paddle.to_tensor([[1.0, 0, 2], [0, 3, 0]])
    assert not d.is_sparse() and not d.is_sparse_coo() and not d.is_sparse_csr()
    for name in ["ReLU", "sparse_coo_tensor", "sparse_csr_tensor"]:
        assert hasattr(sp, name)
    assert sp.functional.relu is sp.nn.functional.relu
    assert sp.layer.ReLU is sp.ReLU is sp.nn.ReLU


@pytest.mark.parametrize("shape,sd", [((5, 7), 2), ((4, 3, 5), 3), ((4, 3, 5), 2), ((6, 4), 1)])
def test_round_trips_dense_coo_csr(shape, sd):
    d = rand_sparse(shape)
    x = coo_of(d, sd)
    assert x.sparse_dim() == sd
    np.testing.assert_array_equal(x.to_dense().numpy(), d)
    nz = np.argwhere(np.abs(d).reshape(d.shape[:sd] + (-1,)).sum(-1) != 0).T
    np.testing.assert_array_equal(x.indices().numpy(), nz)
    if len(shape) in (2, 3):
        c = paddle.to_tensor(d).to_sparse_csr()
        np.testing.assert_array_equal(c.to_dense().numpy(), d)
        back = c.to_sparse_coo()
        np.testing.assert_array_equal(back.to_dense().numpy(), d)
        np.testing.assert_array_equal(x.to_sparse_csr().to_dense().numpy(), d)
        if sd == len(shape):
            np.testing.assert_array_equal(back.indices().numpy(), x.indices().numpy())
            rows = np.argwhere(d.reshape(-1, shape[-1]) != 0)[:, 0]
            ref_crows = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=d.reshape(-1, shape[-1]).shape[0]))])
            if len(shape) == 2:
                np.testing.assert_array_equal(c.crows().numpy(), ref_crows)
    if sd < len(shape):
        np.testing.assert_array_equal(x.to_sparse_coo(len(shape)).to_dense().numpy(), d)


def test_coalesce_sorts_and_sums_duplicates():
    n, shape = 200, (6, 5)
    idx = np.stack([RNG.integers(0, s, n) for s in shape])
    vals = RNG.standard_normal(n).astype(np.float64)
    x = sp.sparse_coo_tensor(idx, vals, shape)
    c = sp.coalesce(x)
    ref = np.zeros(shape)
    np.add.at(ref, tuple(idx), vals)
    ci = c.indices().numpy()
    lin = np.ravel_multi_index(tuple(ci), shape)
    assert np.all(np.diff(lin) > 0)  # sorted, unique
    np.testing.assert_array_equal(lin, np.unique(np.ravel_multi_index(tuple(idx), shape)))
    np.testing.assert_allclose(c.values().numpy(), ref[tuple(ci)], rtol=1e-12)
    np.testing.assert_allclose(c.to_dense().numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(x.to_dense().numpy(), ref, rtol=1e-12)
    assert c.coalesce() is c
    # COO with dense dims: rows of values are summed
    x2 = sp.sparse_coo_tensor([[2, 0, 2]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [3, 2]).coalesce()
    np.testing.assert_array_equal(x2.indices().numpy(), [[0, 2]])
    np.testing.assert_array_equal(x2.values().numpy(), [[3, 4], [6, 8]])


# ---------------- math ----------------
UNARY = [("sqrt", np.sqrt, True), ("sin", np.sin, False), ("tan", np.tan, False),
         ("asin", np.arcsin, "unit"), ("atan", np.arctan, False), ("sinh", np.sinh, False),
         ("tanh", np.tanh, False), ("asinh", np.arcsinh, False), ("atanh", np.arctanh, "unit"),
         ("square", np.square, False), ("log1p", np.log1p, True), ("abs", np.abs, False),
         ("neg", np.negative, False), ("expm1", np.expm1, False), ("deg2rad", np.deg2rad, False),
         ("rad2deg", np.rad2deg, False)]


@pytest.mark.parametrize("name,ref,domain", UNARY)
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_unary_matches_dense(name, ref, domain, layout):
    d = rand_sparse((5, 6))
    if domain is True:
        d = np.abs(d)
    elif domain == "unit":
        d = np.tanh(d) * 0.9
    x = coo_of(d) if layout == "coo" else csr_of(d)
    out = getattr(sp, name)(x)
    assert out.is_sparse_coo() == (layout == "coo")
    np.testing.assert_allclose(out.to_dense().numpy(), ref(d), rtol=1e-5, atol=1e-6)


def test_relu_family_pow_cast_isnan():
    d = rand_sparse((4, 5), 0.6)
    x = coo_of(d)
    for f in (sp.nn.functional.relu, sp.functional.relu, sp.ReLU(), sp.layer.ReLU()):
        np.testing.assert_array_equal(f(x).to_dense().numpy(), np.maximum(d, 0))
    np.testing.assert_allclose(sp.nn.functional.relu6(coo_of(d * 10)).to_dense().numpy(),
                               np.clip(d * 10, 0, 6), rtol=1e-6)
    np.testing.assert_allclose(sp.nn.LeakyReLU(0.2)(x).to_dense().numpy(), np.where(d > 0, d, 0.2 * d),
                               rtol=1e-6)
    np.testing.assert_allclose(sp.pow(x, 3).to_dense().numpy(), d ** 3, rtol=1e-5)
    c = sp.cast(x, "int32", "float64")
    assert c.indices().dtype == paddle.int32 and c.dtype == paddle.float64
    np.testing.assert_array_equal(sp.isnan(x).to_dense().numpy(), np.zeros(d.shape, bool))


def test_softmax_over_stored_entries():
    d = rand_sparse((4, 6), 0.5)
    d[1] = 0  # an empty row stays empty
    out = sp.nn.functional.softmax(csr_of(d)).to_dense().numpy()
    for r in range(4):
        nz = d[r] != 0
        if nz.any():
            e = np.exp(d[r][nz] - d[r][nz].max())
            np.testing.assert_allclose(out[r][nz], e / e.sum(), rtol=1e-5)
        assert np.all(out[r][~nz] == 0)


@pytest.mark.parametrize("op,ref", [("add", np.add), ("subtract", np.subtract),
                                    ("multiply", np.multiply), ("divide", np.divide)])
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_binary_same_pattern(op, ref, layout):
    d = rand_sparse((5, 4), 0.5)
    e = d.copy()
    e[d != 0] = RNG.standard_normal(int((d != 0).sum())).astype(np.float32) + 3
    conv = coo_of if layout == "coo" else csr_of
    out = getattr(sp, op)(conv(d), conv(e))
    mask = d != 0
    got = out.to_dense().numpy()
    np.testing.assert_allclose(got[mask], ref(d[mask], e[mask]), rtol=1e-6)
    assert out.nnz() == mask.sum()


@pytest.mark.parametrize("op,ref", [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply)])
@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_binary_different_patterns(op, ref, layout):
    d, e = rand_sparse((6, 5), 0.4), rand_sparse((6, 5), 0.4)
    conv = coo_of if layout == "coo" else csr_of
    out = getattr(sp, op)(conv(d), conv(e))
    assert out.is_sparse_csr() == (layout == "csr")
    np.testing.assert_allclose(out.to_dense().numpy(), ref(d, e), rtol=1e-6)
    assert out.nnz() == ((d != 0) | (e != 0)).sum()  # the union of both patterns


def test_operators_and_scalars():
    d = rand_sparse((4, 4), 0.5)
    x = coo_of(d)
    np.testing.assert_allclose((x + x).to_dense().numpy(), 2 * d, rtol=1e-6)
    np.testing.assert_allclose((x * 3.0).to_dense().numpy(), 3 * d, rtol=1e-6)
    np.testing.assert_allclose((x / 2.0).to_dense().numpy(), d / 2, rtol=1e-6)
    np.testing.assert_allclose((-x).to_dense().numpy(), -d, rtol=1e-6)
    y = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose((x @ paddle.to_tensor(y)).numpy(), d @ y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("n", [3, 64, 75])
def test_matmul_matches_dense(dtype, layout, n):
    d = rand_sparse((40, 30), 0.2, dtype)
    d[5] = 0  # an empty row
    y = RNG.standard_normal((30, n)).astype(dtype)
    x = coo_of(d) if layout == "coo" else csr_of(d)
    out = sp.matmul(x, paddle.to_tensor(y))
    assert isinstance(out, paddle.Tensor) and out.shape == [40, n]
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out.numpy(), d @ y, rtol=tol, atol=tol)


def test_matmul_uncoalesced_coo_mv_addmm():
    x = sp.sparse_coo_tensor([[1, 0, 1], [2, 1, 2]], [1.0, 2.0, 3.0], [2, 3])
    y = RNG.standard_normal((3, 4)).astype(np.float32)
    dense = np.array([[0, 2, 0], [0, 0, 4]], np.float32)
    np.testing.assert_allclose(sp.matmul(x, paddle.to_tensor(y)).numpy(), dense @ y, rtol=1e-6)
    v = RNG.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(sp.mv(x, paddle.to_tensor(v)).numpy(), dense @ v, rtol=1e-6)
    inp = RNG.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(sp.addmm(paddle.to_tensor(inp), x, paddle.to_tensor(y), 0.5, 2.0).numpy(),
                               0.5 * inp + 2 * dense @ y, rtol=1e-5)


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("k", [5, 16, 37])
def test_masked_matmul_matches_dense(layout, k):
    m = rand_sparse((7, 9), 0.3, "float64")
    a, b = RNG.standard_normal((7, k)), RNG.standard_normal((k, 9))
    mask = coo_of(m) if layout == "coo" else csr_of(m)
    out = sp.masked_matmul(paddle.to_tensor(a), paddle.to_tensor(b), mask)
    assert out.is_sparse_coo() == (layout == "coo") and out.nnz() == (m != 0).sum()
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(m != 0, a @ b, 0), rtol=1e-12)


def test_transpose():
    d = rand_sparse((3, 4, 5), 0.4)
    for perm in ([2, 0, 1], [0, 2, 1], [1, 0, 2]):
        out = sp.transpose(coo_of(d), perm)
        assert out.shape == list(np.transpose(d, perm).shape)
        np.testing.assert_array_equal(out.to_dense().numpy(), np.transpose(d, perm))
        lin = np.ravel_multi_index(tuple(out.indices().numpy()), out.shape)
        assert np.all(np.diff(lin) > 0)
    d2 = rand_sparse((4, 6))
    np.testing.assert_array_equal(sp.transpose(csr_of(d2), [1, 0]).to_dense().numpy(), d2.T)
    np.testing.assert_array_equal(sp.transpose(csr_of(d), [0, 2, 1]).to_dense().numpy(),
                                  np.transpose(d, [0, 2, 1]))
    # COO with a dense dim: permuting the sparse dims
    np.testing.assert_array_equal(sp.transpose(coo_of(d, 2), [1, 0, 2]).to_dense().numpy(),
                                  np.transpose(d, [1, 0, 2]))


def test_sum():
    d = rand_sparse((4, 5, 3), 0.4, "float64")
    x = coo_of(d)
    s = sp.sum(x)
    assert s.is_sparse_coo() and s.shape == [1]
    np.testing.assert_allclose(s.to_dense().numpy(), [d.sum()], rtol=1e-12)
    assert sp.sum(x, keepdim=True).shape == [1, 1, 1]
    for axis in (0, 1, 2, -1, [0, 2]):
        for keep in (False, True):
            out = sp.sum(x, axis=axis, keepdim=keep)
            np.testing.assert_allclose(out.to_dense().numpy(), d.sum(axis=tuple(np.atleast_1d(axis)), keepdims=keep),
                                       rtol=1e-12, atol=1e-12)
    # dense dims of a COO tensor
    xd = coo_of(d, 1)
    np.testing.assert_allclose(sp.sum(xd, axis=2).to_dense().numpy(), d.sum(2), rtol=1e-12)
    np.testing.assert_allclose(sp.sum(xd, axis=0).to_dense().numpy(), d.sum(0), rtol=1e-12)
    assert sp.sum(x, dtype="float32").dtype == paddle.float32
    d2 = rand_sparse((5, 4), 0.5, "float64")
    c = csr_of(d2)
    r = sp.sum(c, axis=-1)
    assert r.is_sparse_csr() and r.shape == [5, 1]
    np.testing.assert_allclose(r.to_dense().numpy(), d2.sum(1, keepdims=True), rtol=1e-12)
    assert sp.sum(c).shape == [1, 1]
    np.testing.assert_allclose(sp.sum(c).values().numpy(), [d2.sum()], rtol=1e-12)
    with pytest.raises(NotImplementedError):
        sp.sum(c, axis=0)


def test_reshape():
    d = rand_sparse((4, 6), 0.4)
    np.testing.assert_array_equal(sp.reshape(coo_of(d), [3, -1, 2]).to_dense().numpy(), d.reshape(3, 4, 2))
    np.testing.assert_array_equal(sp.reshape(csr_of(d), [8, 3]).to_dense().numpy(), d.reshape(8, 3))


# ---------------- gradients ----------------
def _dense_from_values(x, v):
    """The dense matrix of x's pattern with values v, built with dense differentiable ops."""
    c = x.to_sparse_coo()
    z = paddle.zeros(x.shape, dtype=v.dtype)
    return paddle.scatter_nd_add(z, paddle.transpose(c.indices(), [1, 0]), v)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_matmul_gradients_match_dense_reference(layout):
    d = rand_sparse((12, 9), 0.3, "float64")
    y0 = RNG.standard_normal((9, 5))
    g0 = RNG.standard_normal((12, 5))
    x = coo_of(d, stop_gradient=False) if layout == "coo" else csr_of(d, stop_gradient=False)
    y = paddle.to_tensor(y0, stop_gradient=False)
    (sp.matmul(x, y) * paddle.to_tensor(g0)).sum().backward()
    assert x.grad is not None and x.grad.is_sparse_coo() == (layout == "coo")
    # d/dvalues = (G Y^T) at the pattern; d/dY = A^T G
    c = x.to_sparse_coo()
    rows, cols = c.indices().numpy()
    np.testing.assert_allclose(x.grad.values().numpy(), (g0 @ y0.T)[rows, cols], rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), d.T @ g0, rtol=1e-12)


def test_second_order_through_spmm_and_sddmm():
    d = rand_sparse((8, 6), 0.4, "float64")
    x = csr_of(d, stop_gradient=False)
    y = paddle.to_tensor(RNG.standard_normal((6, 4)), stop_gradient=False)
    gy, = paddle.grad((sp.matmul(x, y) ** 2).sum(), [y], create_graph=True)
    gv, = paddle.grad((gy ** 2).sum(), [x.values()])
    # the same with a dense matrix built from the same values
    v = paddle.to_tensor(x.values().numpy(), stop_gradient=False)
    a = _dense_from_values(x, v)
    y2 = paddle.to_tensor(y.numpy(), stop_gradient=False)
    gy2, = paddle.grad((paddle.matmul(a, y2) ** 2).sum(), [y2], create_graph=True)
    gv2, = paddle.grad((gy2 ** 2).sum(), [v])
    np.testing.assert_allclose(gy.numpy(), gy2.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gv.numpy(), gv2.numpy(), rtol=1e-10)


def test_masked_matmul_gradients_finite_differences():
    m = rand_sparse((5, 6), 0.5, "float64")
    a0, b0 = RNG.standard_normal((5, 3)), RNG.standard_normal((3, 6))
    w = RNG.standard_normal(int((m != 0).sum()))
    mask = csr_of(m)

    def f(a, b):
        return float((sp.masked_matmul(paddle.to_tensor(a), paddle.to_tensor(b), mask).values().numpy() * w).sum())

    a = paddle.to_tensor(a0, stop_gradient=False)
    b = paddle.to_tensor(b0, stop_gradient=False)
    (sp.masked_matmul(a, b, mask).values() * paddle.to_tensor(w)).sum().backward()
    eps = 1e-6
    for arr, got in ((a0, a.grad.numpy()), (b0, b.grad.numpy())):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            p, q = arr.copy(), arr.copy()
            p[idx] += eps
            q[idx] -= eps
            num[idx] = (f(p, b0) - f(q, b0)) / (2 * eps) if arr is a0 else (f(a0, p) - f(a0, q)) / (2 * eps)
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_gradients_through_coalesce_unary_binary_to_dense():
    idx = [[0, 1, 0, 2], [1, 0, 1, 2]]
    v = paddle.to_tensor([1.0, 2.0, 3.0, 4.0], dtype="float64", stop_gradient=False)
    x = sp.sparse_coo_tensor(idx, v, [3, 3], stop_gradient=False)
    y = sp.sin(sp.coalesce(x))           # duplicates (0, 1) merge: sin(1 + 3)
    z = sp.multiply(y, y)
    w = paddle.to_tensor(RNG.standard_normal((3, 3)))
    (z.to_dense() * w).sum().backward()
    vals = x.values().numpy()
    s = {(0, 1): vals[0] + vals[2], (1, 0): vals[1], (2, 2): vals[3]}
    wn = w.numpy()
    ref = [2 * np.sin(s[(i, j)]) * np.cos(s[(i, j)]) * wn[i, j] for i, j in zip(*idx)]
    np.testing.assert_allclose(x.grad.values().numpy(), ref, rtol=1e-12)
    np.testing.assert_array_equal(x.grad.indices().numpy(), idx)
    # dense -> sparse conversion keeps the graph to the dense input
    dn = paddle.to_tensor(rand_sparse((4, 4), 0.5, "float64"), stop_gradient=False)
    sp.sum(sp.square(dn.to_sparse_csr())).values().sum().backward()
    np.testing.assert_allclose(dn.grad.numpy(), 2 * dn.numpy(), rtol=1e-12)


def test_relu_layer_gradient_and_stop_gradient_flag():
    d = rand_sparse((4, 4), 0.6)
    x = coo_of(d, stop_gradient=False)
    assert not x.stop_gradient
    out = sp.ReLU()(x)
    assert not out.stop_gradient
    out.to_dense().sum().backward()
    np.testing.assert_array_equal(x.grad.values().numpy(), (x.values().numpy() > 0).astype(np.float32))


# ---------------- bad input ----------------
def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="indices"):
        sp.sparse_coo_tensor([[0, 5]], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="indices"):
        sp.sparse_coo_tensor([[0, -1]], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="same number of non-zero"):
        sp.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], [3])
    with pytest.raises(ValueError):
        sp.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3, 3])  # values have no dense dim
    with pytest.raises(ValueError, match="crows"):
        sp.sparse_csr_tensor([0, 1, 3], [0, 1, 2], [1.0, 2.0, 3.0], [3, 3])  # wrong crows length
    with pytest.raises(ValueError, match="non-decreasing"):
        sp.sparse_csr_tensor([0, 2, 1], [0, 1], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError, match="column"):
        sp.sparse_csr_tensor([0, 1, 2], [0, 5], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError):
        sp.sparse_csr_tensor([0, 1, 3], [0, 1], [1.0, 2.0], [2, 2])  # crows count 3, cols 2
    with pytest.raises(ValueError):
        sp.sparse_csr_tensor([1, 1, 2], [0, 1], [1.0, 2.0], [2, 2])  # crows not starting at 0
    x = csr_of(rand_sparse((4, 3)))
    with pytest.raises(ValueError, match="inner"):
        sp.matmul(x, paddle.ones([4, 2]))
    with pytest.raises(ValueError):
        sp.matmul(x, paddle.ones([3, 2], dtype="float64"))
    with pytest.raises(ValueError):
        sp.masked_matmul(paddle.ones([4, 2]), paddle.ones([2, 5]), x)
    with pytest.raises(ValueError):
        sp.matmul(x, paddle.ones([2, 3, 2]))
    with pytest.raises(ValueError):
        sp.matmul(paddle.ones([2, 2, 2, 2]).to_sparse_coo(4), paddle.ones([2, 2]))
    with pytest.raises(ValueError, match="shape"):
        sp.add(x, csr_of(rand_sparse((4, 4))))
    with pytest.raises(ValueError, match="layout"):
        sp.add(x, x.to_sparse_coo())
    with pytest.raises(NotImplementedError):
        sp.add(x, paddle.ones([4, 3]))
    with pytest.raises(NotImplementedError):
        sp.matmul(x, x)
    with pytest.raises(ValueError):
        paddle.ones([2, 3]).to_sparse_coo(3)
    with pytest.raises(ValueError):
        paddle.ones([2, 3, 4, 5]).to_sparse_csr()
    with pytest.raises(ValueError):
        sp.transpose(x, [0, 0])
    with pytest.raises(NotImplementedError, match="to_dense"):
        x.numpy()


def test_c_ops_check_their_indices():
    """The C ops reached directly with inconsistent parts raise, never crash."""
    C = paddle._C_ops
    i64 = lambda a: paddle.to_tensor(np.array(a, np.int64))  # noqa: E731
    v = paddle.ones([2])
    y = paddle.ones([3, 4])
    with pytest.raises(ValueError, match="column"):
        C.sparse_csr_mm(i64([0, 1, 2]), i64([0, 3]), v, y)
    with pytest.raises(ValueError, match="crows"):
        C.sparse_csr_mm(i64([0, 2, 1]), i64([0, 1]), v, y)
    with pytest.raises(ValueError):
        C.sparse_csr_mm(i64([0, 1, 5]), i64([0, 1]), v, y)
    with pytest.raises(ValueError):
        C.sparse_csr_mm(i64([0, 1, 2]), i64([0, 1]), paddle.ones([3]), y)
    with pytest.raises(ValueError):
        C.sparse_csr_mm_t(i64([0, 1, 2]), i64([0, 7]), v, paddle.ones([2, 4]), paddle.ones([3, 1]))
    with pytest.raises(ValueError):
        C.sparse_sddmm(i64([0, 1, 2]), i64([0, 9]), paddle.ones([2, 4]), paddle.ones([3, 4]))
    with pytest.raises(ValueError):
        C.sparse_coo_coalesce_index(i64([[0, 4]]), [3])
    with pytest.raises(ValueError):
        C.sparse_coo_coalesce_index(i64([[0, 1], [0, 1], [0, 0]]), [3, 3])
    with pytest.raises(ValueError):
        C.sparse_coo_to_csr_crows(i64([[1, 0], [0, 0]]), [2, 2])  # unsorted rows
    with pytest.raises(ValueError):
        C.sparse_csr_to_coo_index(i64([0, 1, 2]), i64([0, 1, 2]), [2, 2])


def test_static_mode_is_refused_clearly():
    paddle.enable_static()
    try:
        with pytest.raises(NotImplementedError, match="dynamic"):
            sp.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [2])
    finally:
        paddle.disable_static()


def test_random_garbage_indices_raise_or_work():
    """Random crows/cols/indices (often invalid) into every C index path: a ValueError or a result
    equal to the dense reference, never a crash."""
    rng = np.random.default_rng(3)
    for _ in range(80):
        m, n = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        nnz = int(rng.integers(0, 6))
        crows = np.sort(rng.integers(-1, nnz + 2, m + 1))
        if rng.random() < 0.5:
            crows[0], crows[-1] = 0, nnz
        cols = rng.integers(-1, n + 1, nnz)
        vals = rng.standard_normal(nnz)
        try:
            x = sp.sparse_csr_tensor(crows, cols, vals, [m, n])
        except ValueError:
            continue
        ref = np.zeros((m, n))
        rows = np.repeat(np.arange(m), np.diff(crows))
        np.add.at(ref, (rows, cols), vals)
        np.testing.assert_allclose(x.to_dense().numpy(), ref, rtol=1e-12)
        y = rng.standard_normal((n, 3))
        np.testing.assert_allclose(sp.matmul(x, paddle.to_tensor(y)).numpy(), ref @ y, rtol=1e-10, atol=1e-12)
    for _ in range(80):
        shape = [int(s) for s in rng.integers(1, 4, int(rng.integers(1, 4)))]
        nnz = int(rng.integers(0, 6))
        idx = rng.integers(-1, 4, (len(shape), nnz))
        try:
            x = sp.sparse_coo_tensor(idx, rng.standard_normal(nnz), shape)
        except ValueError:
            assert ((idx < 0) | (idx >= np.array(shape)[:, None])).any()
            continue
        ref = np.zeros(shape)
        np.add.at(ref, tuple(idx), x.values().numpy())
        np.testing.assert_allclose(sp.coalesce(x).to_dense().numpy(), ref, rtol=1e-12)
        if len(shape) in (2, 3):
            np.testing.assert_allclose(x.to_sparse_csr().to_dense().numpy(), ref, rtol=1e-12)


def test_softmax_gradient_finite_differences():
    d = rand_sparse((3, 5), 0.6, "float64")
    d[0, 0] = 0.5  # row 0 non-empty
    base = csr_of(d)
    w = RNG.standard_normal(base.nnz())

    def f(vals):
        x = sp.sparse_csr_tensor(base.crows(), base.cols(), vals, base.shape)
        return float((sp.nn.functional.softmax(x).values().numpy() * w).sum())

    v0 = base.values().numpy()
    x = sp.sparse_csr_tensor(base.crows(), base.cols(), v0, base.shape, stop_gradient=False)
    (sp.nn.Softmax()(x).values() * paddle.to_tensor(w)).sum().backward()
    eps = 1e-6
    num = np.array([(f(v0 + eps * np.eye(len(v0))[k]) - f(v0 - eps * np.eye(len(v0))[k])) / (2 * eps)
                    for k in range(len(v0))])
    np.testing.assert_allclose(x.grad.values().numpy(), num, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_batched_matmul_and_masked_matmul(layout):
    d = rand_sparse((3, 6, 5), 0.3, "float64")
    d[1] = 0  # an empty batch
    y0 = RNG.standard_normal((3, 5, 4))
    x = coo_of(d, stop_gradient=False) if layout == "coo" else csr_of(d, stop_gradient=False)
    y = paddle.to_tensor(y0, stop_gradient=False)
    out = sp.matmul(x, y)
    np.testing.assert_allclose(out.numpy(), d @ y0, rtol=1e-12, atol=1e-14)
    g0 = RNG.standard_normal((3, 6, 4))
    (out * paddle.to_tensor(g0)).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.transpose(d, [0, 2, 1]) @ g0, rtol=1e-12, atol=1e-14)
    gd = np.where(d != 0, g0 @ np.transpose(y0, [0, 2, 1]), 0)
    np.testing.assert_allclose(x.grad.to_dense().numpy(), gd, rtol=1e-12, atol=1e-14)
    a, b = RNG.standard_normal((3, 6, 2)), RNG.standard_normal((3, 2, 5))
    mask = coo_of(d) if layout == "coo" else csr_of(d)
    mm = sp.masked_matmul(paddle.to_tensor(a), paddle.to_tensor(b), mask)
    np.testing.assert_allclose(mm.to_dense().numpy(), np.where(d != 0, a @ b, 0), rtol=1e-12)
