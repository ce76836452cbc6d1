"""Fixes found by running PaddleTest's framework/api/paddlebase and linalg suites against Paddle-C
(tools/oracle/public_suites.py): complex eigen decompositions, Paddle's
error summary form (FLAGS_call_stack_level=2), Tensor.fill_diagonal_, and program Variables as
clip bounds, expand shapes, full values and linspace ends. References: numpy, closed forms."""
import os

import numpy as np
import pytest

import paddle


def _herm(n, seed, batch=()):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (n, n)) + 1j * rng.standard_normal(batch + (n, n))
    return a + np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_eigh_complex_matches_numpy(dt):
    h = _herm(4, 0, (2,))
    tol = 1e-4 if dt == "complex64" else 1e-10
    for uplo in ("L", "U"):
        w, v = paddle.linalg.eigh(paddle.to_tensor(h.astype(dt)), uplo)
        assert w.dtype == (paddle.float32 if dt == "complex64" else paddle.float64)
        np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(h, uplo), rtol=tol, atol=tol)
        vn = v.numpy()
        np.testing.assert_allclose(h @ vn, vn * w.numpy()[..., None, :], rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(np.conj(np.swapaxes(vn, -1, -2)) @ vn, np.broadcast_to(np.eye(4), vn.shape),
                                   atol=tol * 10)
    # eigvalsh reads the one triangle, as LAPACK
    lower_only = np.tril(h)
    np.testing.assert_allclose(paddle.linalg.eigvalsh(paddle.to_tensor(lower_only.astype(dt)), "L").numpy(),
                               np.linalg.eigvalsh(h), rtol=tol, atol=tol)


def test_eigh_complex_gradient_of_eigenvalues():
    # d(sum_k c_k w_k)/dA for Hermitian A is V diag(c) V^H; check against a finite difference
    h = _herm(3, 1)
    c = np.array([1.0, 2.0, 3.0])
    x = paddle.to_tensor(h, stop_gradient=False)
    w, _ = paddle.linalg.eigh(x)
    (w * paddle.to_tensor(c)).sum().backward()
    g = x.grad.numpy()
    e = np.zeros((3, 3), complex)
    e[0, 1], e[1, 0] = 1.0, 1.0  # a Hermitian direction
    eps = 1e-6
    f = lambda m: (np.linalg.eigvalsh(m) * c).sum()  # noqa: E731
    fd = (f(h + eps * e) - f(h - eps * e)) / (2 * eps)
    np.testing.assert_allclose(np.real(np.sum(np.conj(g) * e)), fd, rtol=1e-5)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_eig_complex_matches_numpy(dt):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4))
    tol = 1e-4 if dt == "complex64" else 1e-10
    w, v = paddle.linalg.eig(paddle.to_tensor(a.astype(dt)))
    assert w.dtype == paddle.to_tensor(a.astype(dt)).dtype
    wn, vn = w.numpy(), v.numpy()
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(np.sort_complex(wn), np.sort_complex(np.linalg.eigvals(a)), rtol=tol, atol=tol)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, rtol=tol)


def test_error_summary_form_with_call_stack_level_2():
    x = paddle.ones([2, 3])
    old = os.environ.get("FLAGS_call_stack_level")
    try:
        paddle.set_flags({"FLAGS_call_stack_level": 2})
        assert paddle.get_flags("FLAGS_call_stack_level")["FLAGS_call_stack_level"] == 2
        with pytest.raises(ValueError, match=r"Error Message Summary:[\s\S]*InvalidArgumentError: \[reshape\]"):
            paddle.reshape(x, [4, 2])
        with pytest.raises(TypeError, match=r"InvalidArgumentError: \[abs\] expected x to be a paddle.Tensor"):
            paddle.abs([1.0])
        paddle.set_flags({"FLAGS_call_stack_level": 1})
        with pytest.raises(ValueError, match=r"^\(InvalidArgument\) \[reshape\]"):
            paddle.reshape(x, [4, 2])
        with pytest.raises(TypeError, match=r"^\(InvalidArgument\) \[abs\]"):
            paddle.abs([1.0])
    finally:
        if old is None:
            os.environ.pop("FLAGS_call_stack_level", None)
        else:
            os.environ["FLAGS_call_stack_level"] = old
        paddle.framework.misc._FLAGS["FLAGS_call_stack_level"] = 1


@pytest.mark.parametrize("shape,offset,wrap", [((3, 3), 0, False), ((5, 3), 0, False), ((7, 3), 0, True),
                                               ((3, 3), 1, False), ((3, 5), 0, False), ((3, 3, 3), 0, False)])
def test_fill_diagonal_inplace_matches_numpy(shape, offset, wrap):
    if offset == 0 and len(shape) == 2:
        ref = np.zeros(shape, np.float32)
        np.fill_diagonal(ref, 4.0, wrap=wrap)
    elif len(shape) == 3:
        ref = np.zeros(shape, np.float32)
        np.fill_diagonal(ref, 4.0)
    else:  # offset 1 of a square matrix: the superdiagonal
        ref = np.diag(np.full(shape[0] - 1, 4.0, np.float32), 1)
    x = paddle.zeros(shape, "float32")
    x.stop_gradient = False
    y = x * 2
    y.retain_grads()
    out = paddle.Tensor.fill_diagonal_(y, 4.0, offset, wrap)
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(y.numpy(), ref)  # in place
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2.0 * (ref == 0))  # filled positions: no gradient


def _run_static(build, feed):
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            out = build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        return exe.run(main, feed=feed, fetch_list=[out])[0]
    finally:
        paddle.disable_static()


def test_program_variables_as_bounds_shapes_and_values():
    xv = np.linspace(-3, 3, 12).reshape(3, 4).astype("float32")

    def clip():
        x = paddle.static.data("x", [3, 4], "float32")
        lo = paddle.static.data("lo", [1], "float32")
        hi = paddle.static.data("hi", [1], "float32")
        return paddle.clip(x, lo, hi)
    got = _run_static(clip, {"x": xv, "lo": np.array([-1.0], "float32"), "hi": np.array([2.0], "float32")})
    np.testing.assert_array_equal(got, np.clip(xv, -1.0, 2.0))

    def expand():
        x = paddle.static.data("x", [1, 4], "float32")
        s = paddle.static.data("s", [2], "int32")
        return paddle.expand(x, s)
    got = _run_static(expand, {"x": xv[:1], "s": np.array([3, 4], "int32")})
    np.testing.assert_array_equal(got, np.broadcast_to(xv[:1], (3, 4)))

    def full():
        s = paddle.static.data("s", [2], "int64")
        v = paddle.static.data("v", [1], "float32")
        return paddle.full(s, v, "float64")
    got = _run_static(full, {"s": np.array([2, 3], "int64"), "v": np.array([1.5], "float32")})
    np.testing.assert_array_equal(got, np.full((2, 3), 1.5))

    def linspace():
        a = paddle.static.data("a", [1], "float32")
        b = paddle.static.data("b", [1], "float32")
        n = paddle.static.data("n", [1], "int32")
        return paddle.linspace(a, b, n, "float32")
    got = _run_static(linspace, {"a": np.array([0.0], "float32"), "b": np.array([1.0], "float32"),
                                 "n": np.array([5], "int32")})
    np.testing.assert_allclose(got, np.linspace(0, 1, 5), rtol=1e-6)

    def equal_all():
        x = paddle.static.data("x", [3, 4], "float32")
        y = paddle.static.data("y", [3, 2], "float32")
        return paddle.equal_all(x, y)
    got = _run_static(equal_all, {"x": xv, "y": xv[:, :2]})
    assert not bool(np.asarray(got).all())


def test_tensordot_contracted_axis_of_size_one_broadcasts():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 5))
    y = rng.standard_normal((4, 1, 8))
    got = paddle.tensordot(paddle.to_tensor(x), paddle.to_tensor(y), axes=[0, 1]).numpy()
    np.testing.assert_allclose(got, np.tensordot(x, np.repeat(y, 3, axis=1), axes=([0, 1], [0, 1])), rtol=1e-12)
    with pytest.raises(ValueError, match="differ"):
        paddle.tensordot(paddle.to_tensor(x), paddle.to_tensor(rng.standard_normal((4, 2, 8))), axes=[0, 1])


def test_multiplex_takes_index_rows():
    a = np.arange(1, 17, dtype=np.float32).reshape(4, 4)
    b = -a
    out = paddle.multiplex([paddle.to_tensor(a), paddle.to_tensor(b)], paddle.to_tensor(np.array([[1], [0]], np.int32)))
    np.testing.assert_array_equal(out.numpy(), np.stack([b[0], a[1]]))


def test_place_equals():
    assert paddle.to_tensor([1.0]).place._equals(paddle.CPUPlace())
    assert not paddle.CPUPlace()._equals(paddle.CUDAPlace(0))


def test_axis_out_of_range_is_invalid_argument():
    # Paddle 2.6.2: ValueError "(InvalidArgument) ..." for sum / argmax / unsqueeze / flip axes
    x = paddle.ones([2, 3])
    for f in (lambda: paddle.sum(x, axis=3), lambda: paddle.argmax(x, axis=2),
              lambda: paddle.unsqueeze(x, 4), lambda: paddle.flip(x, [4])):
        with pytest.raises(ValueError, match=r"^\(InvalidArgument\) \["):
            f()


# ---------------------------------------------------------------- the remaining 87 paddlebase files
def _unsqueeze_ref(a, axes):
    """Paddle's unsqueeze: each axis inserted in turn, a negative one counted on the grown shape."""
    for ax in axes:
        a = np.expand_dims(a, ax if ax >= 0 else ax + a.ndim + 1)
    return a


def _squeeze_ref(a, axes):
    """Paddle's squeeze: the listed dims of size 1 go, a listed dim of another size stays."""
    drop = {ax % a.ndim for ax in axes if a.shape[ax % a.ndim] == 1}
    return a.reshape([d for i, d in enumerate(a.shape) if i not in drop])


@pytest.mark.parametrize("op,vals", [("tile", [2, 3]), ("tile", [2, 1, 3]), ("unsqueeze", [0, -1]),
                                     ("unsqueeze", [2, 0]), ("squeeze", [-4, 2]), ("squeeze", [1]),
                                     ("repeat_interleave", [2, 0, 3]), ("repeat_interleave", [2])])
def test_program_variables_as_int_list_arguments(op, vals):
    # the values of repeat_times / axis / repeats arrive only when the program runs (Paddle's ops
    # take them as tensor inputs); reference: numpy
    xv = np.arange(6, dtype=np.float32).reshape(1, 3, 1, 2) if op == "squeeze" else \
        np.arange(6, dtype=np.float32).reshape(3, 2)

    def build():
        x = paddle.static.data("x", list(xv.shape), "float32")
        v = paddle.static.data("v", [len(vals)], "int32" if op == "tile" else "int64")
        if op == "repeat_interleave":
            return paddle.repeat_interleave(x, v, axis=0)
        return getattr(paddle, op)(x, v)
    got = _run_static(build, {"x": xv, "v": np.array(vals, "int32" if op == "tile" else "int64")})
    ref = {"tile": lambda: np.tile(xv, vals), "unsqueeze": lambda: _unsqueeze_ref(xv, vals),
           "squeeze": lambda: _squeeze_ref(xv, vals),
           "repeat_interleave": lambda: np.repeat(xv, vals if len(vals) > 1 else vals[0], axis=0)}[op]()
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


def test_program_shapes_known_when_run_random_and_empty():
    # uniform with a shape Variable, normal with a mean of run-time length, ones of a shape
    # tensor of no entries (0-D, as numpy's np.ones(()))
    def build():
        s = paddle.static.data("s", [2], "int32")
        m = paddle.static.data("m", [-1], "float32")
        e = paddle.static.data("e", [0], "int64")
        u = paddle.uniform(s, min=2.0, max=3.0)
        n = paddle.normal(mean=m, std=paddle.zeros_like(m))
        return u, n, paddle.ones(e)
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            outs = build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        u, n, o = exe.run(main, feed={"s": np.array([3, 4], "int32"), "m": np.array([1.0, 2.0, 3.0], "float32"),
                                      "e": np.zeros([0], "int64")}, fetch_list=list(outs))
    finally:
        paddle.disable_static()
    assert u.shape == (3, 4) and (u >= 2.0).all() and (u < 3.0).all()
    np.testing.assert_array_equal(n, [1.0, 2.0, 3.0])  # std 0: the mean itself
    assert o.shape == () and o == 1.0
    # gaussian_dyn draws gaussian's numbers for the same seed and shape
    paddle.seed(7)
    a = paddle._C_ops.gaussian_dyn(paddle.to_tensor(np.array([2, 3])), 1.0, 2.0, 0, paddle.float32)
    paddle.seed(7)
    b = paddle.normal(1.0, 2.0, [2, 3])
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_summary_input_specs_and_container_inputs(capsys):
    from paddle.static import InputSpec

    class Two(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = paddle.nn.Linear(4, 3)
            self.b = paddle.nn.Linear(2, 3)

        def forward(self, x, y=None):
            if isinstance(x, dict):
                x, y = x["x"], x["y"]
            elif isinstance(x, list):
                x, y = x
            return self.a(x) + self.b(y)
    net = Two()
    n_params = 4 * 3 + 3 + 2 * 3 + 3
    for kw in ({"input_size": [InputSpec([None, 4], "float32"), InputSpec([None, 2], "float32")]},
               {"input": [paddle.rand([2, 4]), paddle.rand([2, 2])]},
               {"input": {"x": paddle.rand([2, 4]), "y": paddle.rand([2, 2])}}):
        assert paddle.summary(net, **kw)["total_params"] == n_params
    assert paddle.summary(net.a, InputSpec([None, 4], "float32"))["total_params"] == 15
    with pytest.raises(ValueError, match="only the dim of batch_size"):
        paddle.summary(net.a, (None, None))
    capsys.readouterr()


def test_error_classes_of_mv_and_string_ints():
    with pytest.raises(ValueError, match=r"^\(InvalidArgument\) \[mv\]"):
        paddle.mv(paddle.ones([3, 2, 3]), paddle.ones([3]))
    with pytest.raises(TypeError):  # Paddle: TypeError for a string axis
        paddle.roll(paddle.ones([3, 3]), shifts=(-1, 1), axis="(0, 1)")


def test_program_variables_as_attributes():
    """axis / minlength / num_rows given as one-element program Variables (any dtype, as Paddle's
    Scalar inputs) are read when the program runs (static_shape.attr_dyn, csrc/ops/dyn_ops.c):
    the results equal numpy's; while the program is built the dims are unknown."""
    xv = np.array([[3, -1, 7, 2], [0, 9, -4, 9], [5, 5, 1, -8]], "float32")
    shapes = []  # while built: dims that depend on the value are unknown, the others known

    def build(fn, adtype="int64"):
        def f():
            x = paddle.static.data("x", [3, 4], "float32")
            a = paddle.static.data("a", [1], adtype)
            out = fn(x, a)
            shapes.append(list(out.shape))
            return out
        return f

    for av, ad in ((np.array([-2]), "int64"), (np.array([1.0]), "float32")):
        feed = {"x": xv, "a": av.astype(ad)}
        ax = int(av[0])
        np.testing.assert_array_equal(_run_static(build(lambda x, a: paddle.argmax(x, a), ad), feed),
                                      np.argmax(xv, ax))
        np.testing.assert_array_equal(_run_static(build(lambda x, a: paddle.argmin(x, a, keepdim=True), ad), feed),
                                      np.expand_dims(np.argmin(xv, ax), ax))
        np.testing.assert_array_equal(_run_static(build(lambda x, a: paddle.cumsum(x, a), ad), feed),
                                      np.cumsum(xv, ax))
        assert shapes[-3:] == [[-1], [-1, -1], [3, 4]], shapes  # argmax, argmin keepdim, cumsum
        idx = np.array([2, 0, 2])
        got = _run_static(build(lambda x, a: paddle.gather(x, paddle.to_tensor(idx), a), ad), feed)
        np.testing.assert_array_equal(got, np.take(xv, idx, axis=ax))

    def bincount():
        x = paddle.static.data("x", [5], "int64")
        return paddle.bincount(x, minlength=paddle.static.data("m", [1], "int32"))
    got = _run_static(bincount, {"x": np.array([1, 1, 3, 0, 1]), "m": np.array([6], "int32")})
    np.testing.assert_array_equal(got, np.bincount([1, 1, 3, 0, 1], minlength=6))

    def eye():
        return paddle.eye(paddle.static.data("r", [1], "float32"), paddle.static.data("c", [1], "int64"))
    got = _run_static(eye, {"r": np.array([4.0], "float32"), "c": np.array([2])})
    np.testing.assert_array_equal(got, np.eye(4, 2, dtype="float32"))
    # eagerly a float Tensor is Paddle's Scalar too
    np.testing.assert_array_equal(paddle.eye(paddle.to_tensor([3.0]), paddle.to_tensor([2.0])).numpy(),
                                  np.eye(3, 2, dtype="float32"))



def test_dtype_without_kernel_is_not_found():
    # Paddle 2.6.2: RuntimeError "(NotFound) The kernel with key (CPU, ..., int32) of kernel `sin`
    # is not registered"; ours is also a TypeError (what Paddle-C raised before)
    x = paddle.to_tensor(np.array([1, 2], "int32"))
    with pytest.raises(RuntimeError, match=r"^\(NotFound\) \[sin\]") as e:
        paddle.sin(x)
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize("op", ["exp", "expm1", "log", "log2", "log10", "log1p"])
def test_exp_log_of_int32_int64_are_float32(op):
    # Paddle 2.6.2 computes these for int32/int64 in float32; other integer types have no kernel
    v = np.array([1, 2, 7])
    for dt in ("int32", "int64"):
        got = getattr(paddle, op)(paddle.to_tensor(v.astype(dt)))
        assert got.dtype == paddle.float32
        np.testing.assert_allclose(got.numpy(), getattr(np, op)(v.astype(np.float32)), rtol=1e-6)
    with pytest.raises(RuntimeError):
        getattr(paddle, op)(paddle.to_tensor(v.astype("int16")))


def test_split_float_arguments_and_complex_lists_to_real_dtypes():
    x = paddle.ones([2, 6])
    with pytest.raises(TypeError, match="num_or_sections"):
        paddle.split(x, 3.4, axis=1)
    with pytest.raises(ValueError, match=r"^\(InvalidArgument\) \[split\]"):
        paddle.split(x, 3, axis=1.2)
    data = [[1.1 + 1j, 2.5], [3.0, -4.5 - 2j]]
    for dt in ("float32", "int64"):  # numpy's conversion: the real part
        np.testing.assert_array_equal(paddle.to_tensor(data, dtype=dt).numpy(),
                                      np.real(np.array(data)).astype(dt))
    with pytest.raises(RuntimeError, match=r"^\(NotFound\) \[randperm\]"):  # kernel first, as Paddle
        paddle.randperm(-1, "int8")


def test_axis_given_as_a_one_element_tensor():
    # Paddle's dygraph takes a 1-element Tensor (0-D or [1]) wherever an int axis goes
    xn = np.random.RandomState(3).rand(3, 4).astype("float32")
    x = paddle.to_tensor(xn)
    for ax in (paddle.to_tensor(1), paddle.to_tensor([0])):
        a = int(ax.numpy().reshape(-1)[0])
        np.testing.assert_array_equal(paddle.argmax(x, axis=ax).numpy(), xn.argmax(a))
        np.testing.assert_array_equal(paddle.argmin(x, axis=ax).numpy(), xn.argmin(a))
        np.testing.assert_allclose(paddle.cumsum(x, axis=ax).numpy(), np.cumsum(xn, a), rtol=1e-6)
    with pytest.raises(ValueError, match="InvalidArgument"):
        paddle.argmax(x, axis=paddle.to_tensor([1, 0]))


def test_error_classes_as_paddle_2_6_2():
    # the classes and tags real Paddle 2.6.2 raises (each probed with it); a wrong argument type is
    # both Paddle's ValueError (InvalidArgument) and Python's TypeError
    x = paddle.to_tensor(np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match=r"\(InvalidArgument\) \[index_select\] index 5 is out of bounds"):
        paddle.index_select(x, paddle.to_tensor(np.array([0, 5])), axis=1)
    with pytest.raises(IndexError, match=r"\(OutOfRange\) \[index_select\] axis"):
        paddle.index_select(x, paddle.to_tensor(np.array([0, 2])), axis=2)
    with pytest.raises(IndexError, match=r"\(OutOfRange\) \[gather\] index 5"):
        paddle.gather(x, paddle.to_tensor(np.array([0, 5])), axis=1)
    with pytest.raises(IndexError, match=r"\(OutOfRange\) \[gather\] axis"):
        paddle.gather(x, paddle.to_tensor(np.array([0, 1])), axis=3)
    calls = [lambda: paddle.index_select(32, paddle.to_tensor(np.array([0])), axis=1),
             lambda: paddle.masked_select([1, 2], paddle.to_tensor([True, False])),
             lambda: paddle.flatten((1, 2, 3)), lambda: paddle.sum([1, 2]), lambda: paddle.abs([1.0]),
             lambda: paddle.reshape([1, 2], [2]), lambda: paddle.isinf(paddle.to_tensor(np.array(["inf"]))),
             lambda: paddle.argmax(paddle.ones([3]), dtype="float32"), lambda: paddle.eye(-3),
             lambda: paddle.eye(3.4), lambda: paddle.concat([x, 1])]
    for f in calls:
        for cls in (ValueError, TypeError):
            with pytest.raises(cls, match=r"\(InvalidArgument\)"):
                f()
    with pytest.raises(RuntimeError, match=r"\(NotFound\)"):
        paddle.allclose(paddle.ones([3], "float16"), paddle.ones([3], "float16"))
    with pytest.raises(ValueError, match="start_axis"):
        paddle.flatten(paddle.ones([2, 2, 3]), start_axis=0.0, stop_axis=2.0)
    with pytest.raises(ValueError, match=r"\[addmm\] input must be 1-D or 2-D"):
        paddle.addmm(paddle.ones([5, 5, 5, 5]), paddle.ones([5, 3]), paddle.ones([3, 5]))
    np.testing.assert_array_equal(paddle.eye(np.int64(2)).numpy(), np.eye(2, dtype="float32"))
    os.environ["FLAGS_call_stack_level"] = "2"  # Paddle's summary form carries the class name
    try:
        with pytest.raises(ValueError, match=r"InvalidArgumentError: \[masked_select\]"):
            paddle.masked_select([1, 2], paddle.to_tensor([True, False]))
    finally:
        del os.environ["FLAGS_call_stack_level"]
