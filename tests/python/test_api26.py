"""Paddle 2.4-2.6's added top-level functions (python/paddle/tensor/api26.py, ops/api26.yaml),
against numpy, the standard library and finite differences."""
import itertools
import math

import numpy as np
import pytest

import paddle


def t(a, **kw):
    return paddle.to_tensor(np.asarray(a), **kw)


# ------------------------------------------------------------------------------ in-place forms
UNARY = {"abs_": np.abs, "cos_": np.cos, "sin_": np.sin, "tan_": np.tan, "cosh_": np.cosh, "sinh_": np.sinh,
         "atan_": np.arctan, "asinh_": np.arcsinh, "expm1_": np.expm1, "log1p_": np.log1p, "neg_": np.negative,
         "square_": np.square, "trunc_": np.trunc, "erf_": np.vectorize(math.erf), "lgamma_": np.vectorize(math.lgamma)}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_inplace_unary_writes_into_x(name):
    a = np.array([0.3, 1.7, 2.2, 0.9], "float32")
    x = t(a)
    view = x[1:3]  # a view of x sees the write
    r = getattr(paddle, name)(x)
    assert r is x
    np.testing.assert_allclose(x.numpy(), UNARY[name](a.astype("float64")), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(view.numpy(), x.numpy()[1:3])
    y = t(a)
    assert getattr(y, name)() is y  # the Tensor method too
    np.testing.assert_allclose(y.numpy(), x.numpy())


def test_inplace_binary_and_others():
    a, b = np.array([5.0, -7.0, 9.0], "float64"), np.array([2.0, 3.0, -4.0], "float64")
    for name, ref in [("multiply_", a * b), ("divide_", a / b), ("pow_", a ** b), ("remainder_", np.remainder(a, b)),
                      ("floor_divide_", np.floor_divide(a, b)), ("hypot_", np.hypot(a, b))]:
        x = t(a)
        assert getattr(paddle, name)(x, t(b)) is x
        np.testing.assert_allclose(x.numpy(), ref, rtol=1e-12, err_msg=name)
    m = np.arange(9.0).reshape(3, 3)
    x = t(m)
    paddle.tril_(x, -1)
    np.testing.assert_array_equal(x.numpy(), np.tril(m, -1))
    x = t(m)
    paddle.cumsum_(x, axis=1)
    np.testing.assert_array_equal(x.numpy(), np.cumsum(m, 1))
    x = t(m)
    paddle.addmm_(x, t(m), t(m), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(x.numpy(), 0.5 * m + 2.0 * m @ m)
    x = t(m)
    paddle.where_(t(m > 4), x, t(np.zeros_like(m)))
    np.testing.assert_array_equal(x.numpy(), np.where(m > 4, m, 0))
    xi = t(np.array([12, 18], "int64"))
    paddle.gcd_(xi, t(np.array([8, 27], "int64")))
    assert xi.numpy().tolist() == [4, 9]


def test_inplace_comparisons_and_cast_rebind_x():
    x = t(np.array([1.0, 2.0, 3.0], "float32"))
    r = paddle.equal_(x, t(np.array([1.0, 0.0, 3.0], "float32")))
    assert r is x and x.dtype == paddle.bool and x.numpy().tolist() == [True, False, True]
    x = t(np.array([1.0, 2.0, 3.0], "float32"))
    paddle.less_than_(x, t(np.array([2.0, 2.0, 2.0], "float32")))
    assert x.numpy().tolist() == [True, False, False]
    x = t(np.array([1.5, -2.7], "float32"))
    assert paddle.cast_(x, "int32") is x and x.dtype == paddle.int32 and x.numpy().tolist() == [1, -2]
    x = t(np.arange(6.0).reshape(2, 3))
    assert paddle.t_(x) is x and x.shape == [3, 2]
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3).T)


def test_inplace_keeps_the_graph():
    xv = np.array([1.0, -2.0, 0.5], "float64")
    x = t(xv, stop_gradient=False)
    y = x * 2
    paddle.abs_(y)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.sign(xv))


def test_inplace_dtype_change_refused():
    x = t(np.array([1, 2], "int64"))
    with pytest.raises(TypeError, match="divide_"):
        paddle.divide_(x, t(np.array([2, 2], "int64")))


def test_random_inplace_fills():
    paddle.seed(7)
    x = paddle.zeros([20000], "float64")
    assert paddle.normal_(x, 2.0, 0.5) is x
    assert abs(float(x.mean()) - 2.0) < 0.02 and abs(float(x.std()) - 0.5) < 0.02
    c = paddle.cauchy_(paddle.zeros([20000], "float64"), loc=1.0, scale=2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.15  # loc + scale at q3
    p = 0.3
    g = paddle.geometric_(paddle.zeros([20000], "float64"), p).numpy()
    assert (g > 0).all() and abs(g.mean() - (-1.0 / math.log1p(-p))) < 0.06  # E = 1 / -log(1 - p)


# ------------------------------------------------------------------------------ cummax / cummin
def _cum_ref(a, axis, op):
    a = np.moveaxis(a, axis, -1)
    vals, idx = np.empty_like(a), np.zeros(a.shape, "int64")
    for pos in np.ndindex(a.shape[:-1]):
        line, best = a[pos], 0
        for k in range(line.shape[0]):
            if k and not np.isnan(line[best]) and (np.isnan(line[k]) or op(line[k], line[best])):
                best = k
            vals[pos + (k,)], idx[pos + (k,)] = line[best], best
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("fn,op", [(paddle.cummax, np.greater_equal), (paddle.cummin, np.less_equal)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_cummax_cummin_against_a_loop(fn, op, dtype):
    rs = np.random.RandomState(3)
    a = rs.randint(0, 5, (3, 4, 5)).astype(dtype)  # many ties: the later index wins
    for axis in (0, 1, -1):
        v, i = fn(t(a), axis=axis)
        rv, ri = _cum_ref(a, axis % 3, op)
        np.testing.assert_array_equal(v.numpy(), rv)
        np.testing.assert_array_equal(i.numpy(), ri)
        assert i.dtype == paddle.int64 and v.dtype == v.dtype
    v, i = fn(t(a))  # axis None: the flattened tensor
    rv, ri = _cum_ref(a.reshape(-1), 0, op)
    np.testing.assert_array_equal(v.numpy(), rv)
    np.testing.assert_array_equal(i.numpy(), ri)
    assert fn(t(a), axis=1, dtype="int32")[1].dtype == paddle.int32
    assert t(a).cummax(0)[0].shape == [3, 4, 5]


def test_cummax_nan_and_grad():
    v, i = paddle.cummax(t(np.array([1.0, 3.0, 3.0, np.nan, 2.0, 5.0])))
    assert np.isnan(v.numpy()[3:]).all() and i.numpy().tolist() == [0, 1, 2, 3, 3, 3]
    a = np.array([[1.0, 3.0], [2.0, 1.0]])
    x = t(a, stop_gradient=False)
    paddle.cummax(x, axis=0)[0].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 2.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="int32 or int64"):
        paddle.cummin(t(a), axis=0, dtype="float32")


# ------------------------------------------------------------------------------ Bessel functions
def _bessel_ref(nu, v, scaled):
    th = np.linspace(0, np.pi, 40001)
    s = np.sign(v)[..., None] if scaled else 0.0
    f = np.exp(v[..., None] * (np.cos(th) - s)) * np.cos(nu * th)
    return np.trapezoid(f, th, axis=-1) / np.pi


@pytest.mark.parametrize("name,nu,scaled", [("i0", 0, False), ("i0e", 0, True), ("i1", 1, False), ("i1e", 1, True)])
def test_bessel_values_and_grads(name, nu, scaled):
    v = np.array([0.0, 1e-3, 0.5, -1.0, 3.0, -7.5, 15.0, 29.9, 30.1, -45.0, 100.0])
    got = getattr(paddle, name)(t(v)).numpy()
    np.testing.assert_allclose(got, _bessel_ref(nu, v, scaled), rtol=1e-9, atol=1e-12)
    if name == "i0":
        np.testing.assert_allclose(got, np.i0(v), rtol=1e-12)
    got32 = getattr(paddle, name)(t(v.astype("float32"))).numpy()
    with np.errstate(over="ignore"):  # I0(100) overflows float32: inf, as the cast of the reference
        np.testing.assert_allclose(got32, _bessel_ref(nu, v, scaled).astype("float32"), rtol=2e-6)
    if scaled:  # no overflow where I itself overflows
        big = getattr(paddle, name)(t(np.array([800.0, -1e5]))).numpy()
        np.testing.assert_allclose(np.abs(big), 1 / np.sqrt(2 * np.pi * np.array([800.0, 1e5])), rtol=2e-3)
    xv = np.array([-2.5, -0.3, 0.0, 0.7, 4.0])
    x = t(xv, stop_gradient=False)
    getattr(paddle, name)(x).sum().backward()
    f = lambda z: _bessel_ref(nu, z, scaled)  # noqa: E731
    fd = (f(xv + 1e-5) - f(xv - 1e-5)) / 2e-5
    if scaled:  # the |x| kink of e^-|x| at 0: compare away from it
        np.testing.assert_allclose(x.grad.numpy()[[0, 1, 3, 4]], fd[[0, 1, 3, 4]], rtol=1e-5, atol=1e-7)
    else:
        np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-5, atol=1e-7)
    assert abs(getattr(paddle, name)(x)[2].item() - (1.0 if nu == 0 else 0.0)) < 1e-15


# ------------------------------------------------------------------------------ composites
def test_nan_to_num_take_frexp_ldexp_hypot():
    a = np.array([np.nan, np.inf, -np.inf, 1.5], "float32")
    np.testing.assert_array_equal(paddle.nan_to_num(t(a)).numpy(), np.nan_to_num(a))
    np.testing.assert_array_equal(paddle.nan_to_num(t(a), nan=2.0, posinf=9.0, neginf=-9.0).numpy(),
                                  np.nan_to_num(a, nan=2.0, posinf=9.0, neginf=-9.0))
    x = paddle.arange(6).reshape([2, 3])
    idx = t(np.array([-1, 7, 2], "int64"))
    assert paddle.take(x, idx, mode="clip").numpy().tolist() == [0, 5, 2]
    assert paddle.take(x, idx, mode="wrap").numpy().tolist() == np.take(np.arange(6), [-1, 7, 2], mode="wrap").tolist()
    assert paddle.take(x, t(np.array([[-1, 0]], "int64"))).numpy().tolist() == [[5, 0]]
    with pytest.raises(IndexError, match="take"):
        paddle.take(x, t(np.array([6], "int64")))
    v = np.array([8.0, 0.3, -5.0, 0.0, 1.0, 0.5, 1e-300, -3.999999], "float64")
    m, e = paddle.frexp(t(v))
    rm, re = np.frexp(v)
    np.testing.assert_array_equal(m.numpy(), rm)
    np.testing.assert_array_equal(e.numpy(), re)
    np.testing.assert_array_equal(paddle.ldexp(t(np.array([1, 2])), t(np.array([3, 1]))).numpy(), [8.0, 4.0])
    np.testing.assert_allclose(paddle.hypot(t(np.array([3.0, 5.0])), t(np.array([4.0, 12.0]))).numpy(), [5.0, 13.0])


def test_polar_vander_trapezoid():
    r, th = np.array([2.0, 1.0]), np.array([0.5, -2.0])
    np.testing.assert_allclose(paddle.polar(t(r), t(th)).numpy(), r * np.exp(1j * th))
    xv = np.array([1.0, -2.0, 0.0, 3.0])
    np.testing.assert_array_equal(paddle.vander(t(xv)).numpy(), np.vander(xv))
    np.testing.assert_array_equal(paddle.vander(t(xv), n=3, increasing=True).numpy(), np.vander(xv, 3, increasing=True))
    np.testing.assert_array_equal(paddle.vander(t(np.array([2, 3]))).numpy(), np.vander([2, 3]))
    x = t(xv, stop_gradient=False)
    paddle.vander(x, n=4).sum().backward()  # d/dx (x^3 + x^2 + x + 1), finite at 0
    np.testing.assert_allclose(x.grad.numpy(), 3 * xv ** 2 + 2 * xv + 1)
    y = np.random.RandomState(0).rand(3, 5)
    xs = np.cumsum(np.random.RandomState(1).rand(5))
    np.testing.assert_allclose(paddle.trapezoid(t(y)).numpy(), np.trapezoid(y))
    np.testing.assert_allclose(paddle.trapezoid(t(y), dx=0.5, axis=0).numpy(), np.trapezoid(y, dx=0.5, axis=0))
    np.testing.assert_allclose(paddle.trapezoid(t(y), x=t(xs)).numpy(), np.trapezoid(y, x=xs))
    ct = paddle.cumulative_trapezoid(t(y), x=t(xs)).numpy()
    np.testing.assert_allclose(ct, np.stack([np.trapezoid(y[:, :k + 1], x=xs[:k + 1]) for k in range(1, 5)], 1))


def test_index_fill_select_diagonal_scatter():
    a = np.arange(12.0).reshape(3, 4)
    ref = a.copy()
    ref[:, [0, 2]] = -1
    np.testing.assert_array_equal(paddle.index_fill(t(a), t(np.array([0, 2])), 1, -1.0).numpy(), ref)
    ref = a.copy()
    ref[[-1]] = 7
    np.testing.assert_array_equal(paddle.index_fill(t(a), t(np.array([-1])), 0, t(np.array(7.0))).numpy(), ref)
    x = t(a, stop_gradient=False)
    paddle.index_fill(x, t(np.array([1])), 0, 0.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(np.arange(3)[:, None] == 1, 0.0, 1.0) * np.ones((3, 4)))
    ref = a.copy()
    ref[:, 1] = [10, 20, 30]
    np.testing.assert_array_equal(paddle.select_scatter(t(a), t(np.array([10.0, 20.0, 30.0])), 1, 1).numpy(), ref)
    ref = np.zeros((3, 3))
    ref[[0, 1], [1, 2]] = 1
    np.testing.assert_array_equal(paddle.diagonal_scatter(t(np.zeros((3, 3))), t(np.ones(2)), 1).numpy(), ref)
    with pytest.raises(ValueError, match="select_scatter"):
        paddle.select_scatter(t(a), t(np.ones(4)), 1, 1)


def test_combinations_nanquantile_multigammaln():
    v = np.array([4, 5, 6, 7])
    for r, rep in ((2, False), (3, True), (1, False)):
        gen = itertools.combinations_with_replacement if rep else itertools.combinations
        np.testing.assert_array_equal(paddle.combinations(t(v), r=r, with_replacement=rep).numpy(),
                                      np.array([[v[i] for i in c] for c in gen(range(4), r)]))
    a = np.random.RandomState(2).rand(4, 7)
    a[0, [1, 3]] = np.nan
    a[2, :] = np.nan
    for q in (0.0, 0.3, 0.5, 1.0):
        np.testing.assert_allclose(paddle.nanquantile(t(a), q, axis=1).numpy(), np.nanquantile(a, q, axis=1))
    np.testing.assert_allclose(paddle.nanquantile(t(a), [0.25, 0.75], axis=0, keepdim=True).numpy(),
                               np.nanquantile(a, [0.25, 0.75], axis=0, keepdims=True))
    np.testing.assert_allclose(paddle.nanquantile(t(a), 0.4).numpy(), np.nanquantile(a, 0.4))
    xs = np.array([2.5, 3.0, 7.25])
    ref = [sum(math.lgamma(z - i / 2) for i in range(3)) + 3 * 2 / 4 * math.log(math.pi) for z in xs]
    np.testing.assert_allclose(paddle.multigammaln(t(xs), 3).numpy(), ref, rtol=1e-12)


def test_shape_functions_and_logspace():
    a = np.arange(24.0).reshape(4, 6)
    assert paddle.view(t(a), [6, 4]).shape == [6, 4] and paddle.view_as(t(a), t(np.zeros((2, 12)))).shape == [2, 12]
    with pytest.raises(NotImplementedError, match="view"):
        paddle.view(t(a), "int32")
    np.testing.assert_array_equal(paddle.unflatten(t(a), 1, [2, -1]).numpy(), a.reshape(4, 2, 3))
    parts = paddle.vsplit(t(a), 2)
    assert len(parts) == 2 and parts[1].numpy().tolist() == a[2:].tolist()
    assert paddle.atleast_1d(t(np.float32(1.0))).shape == [1]
    assert paddle.atleast_2d(t(np.float32(1.0))).shape == [1, 1]
    assert paddle.atleast_3d(t(np.ones((2, 3)))).shape == [2, 3, 1] and paddle.atleast_3d(t(np.ones(2))).shape == [1, 2, 1]
    assert [o.shape for o in paddle.atleast_2d(t(np.ones(2)), t(np.ones((2, 2))))] == [[1, 2], [2, 2]]
    np.testing.assert_allclose(paddle.logspace(0, 3, 4, base=2).numpy(), np.logspace(0, 3, 4, base=2))
    np.testing.assert_allclose(paddle.logspace(-1, 2, 5, dtype="float64").numpy(), np.logspace(-1, 2, 5), rtol=1e-12)
    assert paddle.logspace(1, 2, 3, dtype="int64").numpy().tolist() == [10, 31, 100]


def test_finfo_iinfo_and_build_queries():
    for d, nd in ((paddle.float32, "float32"), ("float64", "float64"), (paddle.float16, "float16")):
        fi, ref = paddle.finfo(d), np.finfo(nd)
        assert (fi.max, fi.min, fi.eps, fi.tiny, fi.bits, fi.dtype) == (float(ref.max), float(ref.min), float(ref.eps),
                                                                        float(ref.tiny), ref.bits, nd)
    bf = paddle.finfo(paddle.bfloat16)
    assert bf.eps == 2.0 ** -7 and bf.bits == 16 and bf.max == (2 - 2 ** -7) * 2.0 ** 127
    for d in ("int8", "int32", "int64", "uint8"):
        ii = paddle.iinfo(d)
        assert (ii.min, ii.max, ii.bits) == (np.iinfo(d).min, np.iinfo(d).max, np.iinfo(d).bits)
    with pytest.raises(ValueError):
        paddle.iinfo(paddle.float32)
    assert paddle.is_compiled_with_distribute() is True and paddle.get_cudnn_version() is None
    assert paddle.is_compiled_with_custom_device("npu") is False


def test_static_program_records_paddle_26_op_descs(tmp_path):
    """In a static program the new ops run and are written as Paddle 2.6.2 writes them (its
    ProgramDesc: types i0 / i0e / i1 / i1e / cummax / cummin, phi argument names x / out /
    indices, attrs axis and dtype as a VarType enum: INT64 = 3, INT32 = 2)."""
    a = np.random.RandomState(4).randn(3, 4).astype("float32")
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [3, 4], "float32")
            outs = [paddle.i0(x), paddle.i0e(x), paddle.i1(x), paddle.i1e(x), *paddle.cummax(x, axis=1),
                    *paddle.cummin(x, axis=0, dtype="int32")]
        exe = paddle.static.Executor()
        got = exe.run(main, feed={"x": a}, fetch_list=outs)
        descs = [(op.type, {k: op.input(k) for k in op.input_names}, sorted(op.output_names),
                  {k: op.attr(k) for k in op.attr_names if k in ("axis", "dtype")}) for op in main.global_block().ops]
        prefix = str(tmp_path / "m")
        paddle.static.save_inference_model(prefix, [x], outs, exe, program=main)
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        again = exe.run(prog, feed={feeds[0]: a}, fetch_list=fetches)
    finally:
        paddle.disable_static()
    eager = [paddle.i0(t(a)), paddle.i0e(t(a)), paddle.i1(t(a)), paddle.i1e(t(a)), *paddle.cummax(t(a), axis=1),
             *paddle.cummin(t(a), axis=0, dtype="int32")]
    for g, r, e in zip(got, again, eager):
        np.testing.assert_array_equal(g, e.numpy())
        np.testing.assert_array_equal(r, e.numpy())
    by_type = {d[0]: d for d in descs}
    for ty in ("i0", "i0e", "i1", "i1e"):
        assert by_type[ty][1] == {"x": ["x"]} and by_type[ty][2] == ["out"]
    assert by_type["cummax"][2] == ["indices", "out"] and by_type["cummax"][3] == {"axis": 1, "dtype": 3}
    assert by_type["cummin"][3] == {"axis": 0, "dtype": 2}


def _graph():
    rs = np.random.RandomState(9)
    x = rs.randn(5, 3)
    src = np.array([0, 1, 2, 3, 4, 0, 2], "int64")
    dst = np.array([1, 2, 1, 0, 1, 4, 4], "int64")
    y = rs.randn(7, 3)
    return x, y, src, dst


def _reduce_ref(msg, dst, n, op):
    out = np.zeros((n,) + msg.shape[1:])
    for d in range(n):
        m = msg[dst == d]
        if len(m):
            out[d] = {"sum": m.sum(0), "mean": m.mean(0), "max": m.max(0), "min": m.min(0)}[op]
    return out


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
def test_geometric_message_passing(reduce_op, message_op):
    x, y, src, dst = _graph()
    comb = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[message_op]
    got = paddle.geometric.send_ue_recv(t(x), t(y), t(src), t(dst), message_op, reduce_op).numpy()
    np.testing.assert_allclose(got, _reduce_ref(comb(x[src], y), dst, 5, reduce_op), rtol=1e-12)
    got = paddle.geometric.send_u_recv(t(x), t(src), t(dst), reduce_op, out_size=6).numpy()
    np.testing.assert_allclose(got, _reduce_ref(x[src], dst, 6, reduce_op), rtol=1e-12)
    got = paddle.geometric.send_uv(t(x), t(x * 2), t(src), t(dst), message_op).numpy()
    np.testing.assert_allclose(got, comb(x[src], 2 * x[dst]), rtol=1e-12)


def test_geometric_grads_segments_and_version():
    x, y, src, dst = _graph()
    xt, yt = t(x, stop_gradient=False), t(y, stop_gradient=False)
    paddle.geometric.send_ue_recv(xt, yt, t(src), t(dst), "mul", "sum").sum().backward()
    gx = np.zeros_like(x)
    np.add.at(gx, src, y)
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-12)
    np.testing.assert_allclose(yt.grad.numpy(), x[src], rtol=1e-12)
    seg = np.array([0, 0, 1, 1, 1], "int64")
    np.testing.assert_allclose(paddle.geometric.segment_mean(t(x), t(seg)).numpy(),
                               np.stack([x[:2].mean(0), x[2:].mean(0)]))
    with pytest.raises(ValueError, match="reduce_op"):
        paddle.geometric.send_u_recv(t(x), t(src), t(dst), "prod")
    assert paddle.version.full_version == paddle.__version__ and paddle.version.cuda() == "False"


def test_nextafter():
    for dt in ("float32", "float64"):
        a = np.array([1.0, 0.0, 2.0, -1.0, 1e-30], dt)
        b = np.array([2.0, -1.0, 2.0, -3.0, 0.0], dt)
        got = paddle.nextafter(t(a), t(b)).numpy()
        assert got.dtype == np.dtype(dt)
        np.testing.assert_array_equal(got, np.nextafter(a, b))
    with pytest.raises(TypeError, match="nextafter"):
        paddle.nextafter(t(np.ones(2, "float32")), t(np.ones(2)))


def test_async_save_snapshots_and_reports_errors(tmp_path):
    lin = paddle.nn.Linear(4, 3)
    before = {k: v.numpy().copy() for k, v in lin.state_dict().items()}
    path = str(tmp_path / "lin.pdparams")
    paddle.async_save(lin.state_dict(), path)
    with paddle.no_grad():
        lin.weight.set_value(paddle.zeros([4, 3]))  # after the call: not in the file
    paddle.clear_async_save_task_queue()
    got = paddle.load(path)
    assert sorted(got) == sorted(before)
    for k in before:
        np.testing.assert_array_equal(got[k].numpy(), before[k])
    paddle.async_save({"a": paddle.ones([2])}, str(tmp_path))  # a directory: the save fails
    with pytest.raises(RuntimeError, match="async_save"):
        paddle.clear_async_save_task_queue()
    paddle.clear_async_save_task_queue()  # the error was reported once


def test_tensor_methods_of_paddle_26():
    x = paddle.arange(12, dtype="float32").reshape([3, 4])
    y = x[1:, 1:]
    assert x.strides == [4, 1] and y.strides == [4, 1] and x.offset == 0 and y.offset == 5 * 4
    assert x.is_contiguous() and not y.is_contiguous()
    c = y.contiguous()
    assert c.is_contiguous() and c.numpy().tolist() == y.numpy().tolist() and x.contiguous() is x
    assert y.data_ptr() - x.data_ptr() == 20 and x.is_same_shape(paddle.ones([3, 4])) and not x.is_same_shape(y)
    assert x.to("float64").dtype == paddle.float64 and x.to("cpu").dtype == paddle.float32
    assert x.to(paddle.CPUPlace(), "int32").dtype == paddle.int32 and x.to(paddle.ones([1], "int64")).dtype == paddle.int64
    with pytest.raises(ValueError, match="CPU only"):
        x.to("gpu:0")
    a = paddle.zeros([3, 4])
    v0 = a.inplace_version
    a.copy_(x)
    assert a.numpy().tolist() == x.numpy().tolist() and a.inplace_version > v0
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    z = w * 3
    assert z.detach_() is z and z.stop_gradient
    assert (z * 2).stop_gradient
    s = t(np.array([0.5, -1.0]))
    s.sigmoid_()
    np.testing.assert_allclose(s.numpy(), 1 / (1 + np.exp(-np.array([0.5, -1.0]))), rtol=1e-6)
    np.testing.assert_array_equal(t(np.array([1.0, 2.0])).diag().numpy(), np.diag([1.0, 2.0]))
    m = np.random.RandomState(0).randn(4, 3)
    np.testing.assert_allclose(t(m).pinv().numpy(), np.linalg.pinv(m), rtol=1e-6, atol=1e-8)
    assert t(np.float32(1.0)).atleast_2d().shape == [1, 1]


def test_as_strided_view_gradient_and_bounds():
    # numpy's as_strided (byte strides) over the same buffer is the reference; Paddle 2.6 counts
    # the offset in bytes, strides in elements
    from numpy.lib.stride_tricks import as_strided as np_as_strided
    base = np.arange(24, dtype="float64")
    cases = [([2, 3], [1, 2], 8), ([4, 2], [3, 1], 0), ([3, 3], [2, 2], 16), ([2, 2, 2], [6, 0, 1], 24), ([0, 3], [1, 1], 0)]
    for shape, stride, off in cases:
        x = paddle.to_tensor(base.copy())
        x.stop_gradient = False
        y = paddle.as_strided(x, shape, stride, off)
        ref = np_as_strided(base[off // 8:], shape=shape, strides=[8 * s for s in stride])
        np.testing.assert_array_equal(y.numpy(), ref)
        w = np.random.RandomState(0).rand(*shape)
        (y * paddle.to_tensor(w)).sum().backward()
        g = np.zeros(24)
        pos = off // 8 + sum(np.arange(n).reshape([-1 if d == k else 1 for k in range(len(shape))]) * s
                             for d, (n, s) in enumerate(zip(shape, stride)))
        np.add.at(g, np.broadcast_to(pos, shape).ravel(), w.ravel())  # overlapping reads sum
        np.testing.assert_allclose(x.grad.numpy(), g)
    # a view: writes through it reach x (Tensor method form too)
    x = paddle.arange(6, dtype="float32")
    x.as_strided([3], [2])[1] = 100.0
    assert x.numpy().tolist() == [0, 1, 100, 3, 4, 5]
    # bad geometry: clear errors, never a read past the storage
    with pytest.raises(IndexError, match="OutOfRange"):
        paddle.as_strided(x, [3], [100])
    with pytest.raises(ValueError, match="multiple of the element size"):
        paddle.as_strided(x, [2], [1], 2)
    with pytest.raises(ValueError, match="non-negative"):
        paddle.as_strided(x, [2], [-1])
    with pytest.raises(ValueError, match="past int64"):
        paddle.as_strided(x, [2 ** 40, 2 ** 40], [1, 1])
    with pytest.raises(ValueError, match="contiguous"):
        paddle.as_strided(x.reshape([2, 3]).t(), [2], [1])
