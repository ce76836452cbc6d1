"""The paddle.Tensor surface: to_tensor dtype rules, attributes, conversions (numpy, buffer,
DLPack, item/tolist), operators with scalars and Paddle 2.3 promotion, printing format,
devices, seeds and error types."""
import copy
import re

import numpy as np
import pytest

import paddle


def test_to_tensor_dtype_rules():
    assert paddle.to_tensor(1).dtype == paddle.int64
    assert paddle.to_tensor(1.5).dtype == paddle.float32
    assert paddle.to_tensor(True).dtype == paddle.bool
    assert paddle.to_tensor([1, 2.5]).dtype == paddle.float32
    assert paddle.to_tensor(1 + 2j).dtype == paddle.complex64
    assert paddle.to_tensor(np.array([1.0])).dtype == paddle.float64  # numpy keeps its dtype
    assert paddle.to_tensor(np.array([1], dtype=np.int32)).dtype == paddle.int32
    assert paddle.to_tensor([1, 2], dtype="float64").dtype == paddle.float64
    assert paddle.to_tensor(3).shape == [1]  # no 0-D tensors in 2.3
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor(1.5).dtype == paddle.float64
        assert paddle.get_default_dtype() == "float64"
    finally:
        paddle.set_default_dtype("float32")
    with pytest.raises(TypeError):
        paddle.set_default_dtype("int32")


def test_attributes():
    x = paddle.to_tensor(np.zeros((2, 3, 4), dtype="float32"))
    assert x.shape == [2, 3, 4] and isinstance(x.shape, list)
    assert x.ndim == 3 and x.dim() == 3 and x.size == 24
    assert x.stop_gradient is True
    x.stop_gradient = False
    assert x.stop_gradient is False
    assert str(x.place) == "CPUPlace"
    assert str(x.dtype) == "paddle.float32" and x.dtype == paddle.float32
    assert x.element_size() == 4
    x.name = "my_tensor"
    assert x.name == "my_tensor"
    assert len(x) == 2
    assert paddle.is_tensor(x) and not paddle.is_tensor(np.zeros(2))


def test_numpy_roundtrip_all_dtypes():
    for dt in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
               "float64", "complex64", "complex128"]:
        a = (np.arange(12).reshape(3, 4) % 5).astype(dt)
        t = paddle.to_tensor(a)
        assert t.dtype.name == dt
        b = t.numpy()
        assert b.dtype == a.dtype and b.shape == a.shape
        np.testing.assert_array_equal(b, a)
        np.testing.assert_array_equal(np.asarray(t), a)
        np.testing.assert_array_equal(np.array(memoryview(t)), a)


def test_bfloat16_conversion():
    vals = np.array([1.0, -2.5, 3.14159, 1e30, np.inf, np.nan], dtype=np.float32)
    t = paddle.to_tensor(vals, dtype="bfloat16")
    assert t.dtype == paddle.bfloat16
    bits = t.numpy()
    assert bits.dtype == np.uint16  # Paddle returns raw bits for bfloat16
    back = (bits.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_allclose(back[:4], vals[:4], rtol=1e-2)
    assert np.isinf(back[4]) and np.isnan(back[5])


def test_item_tolist_scalars():
    x = paddle.to_tensor([[1.5, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert x.item(0, 1) == 2.0 and x.item(3) == 4.0
    with pytest.raises(ValueError):
        x.item()
    one = paddle.to_tensor([7])
    assert one.item() == 7 and isinstance(one.item(), int)
    assert int(one) == 7 and float(one) == 7.0
    assert [10, 20, 30, 40, 50, 60, 70, 80][one] == 80  # __index__
    assert bool(paddle.to_tensor([0.5]) > 0.25)
    with pytest.raises(ValueError):
        bool(x)
    with pytest.raises(TypeError):
        [1, 2][paddle.to_tensor([1.0])]


def test_scalar_operators_and_promotion():
    i = paddle.to_tensor([1, 2, 3])
    f = paddle.to_tensor([1.0, 2.0, 4.0])
    assert (i + 1).dtype == paddle.int64 and (i + 1).tolist() == [2, 3, 4]
    assert (i * 1.5).dtype == paddle.float32  # float scalar with int tensor -> float32
    np.testing.assert_allclose((i * 1.5).numpy(), [1.5, 3.0, 4.5])
    assert (i / 2).dtype == paddle.float32  # true division
    np.testing.assert_allclose((i / 2).numpy(), [0.5, 1.0, 1.5])
    np.testing.assert_allclose((i / i).numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose((1 - f).numpy(), [0.0, -1.0, -3.0])  # reflected
    np.testing.assert_allclose((2 / f).numpy(), [2.0, 1.0, 0.5])
    np.testing.assert_allclose((f ** 2).numpy(), [1.0, 4.0, 16.0])
    np.testing.assert_allclose((2 ** f).numpy(), [2.0, 4.0, 16.0])
    assert (i ** 2).tolist() == [1, 4, 9]
    assert (i // 2).tolist() == [0, 1, 1]
    assert (-i).tolist() == [-1, -2, -3]
    assert (i % 2).tolist() == [1, 0, 1]
    assert (f > 1.5).tolist() == [False, True, True]
    assert (2 > f).tolist() == [True, False, False]
    assert (i == 2).tolist() == [False, True, False]
    assert (i != 2).dtype == paddle.bool
    m = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose((m @ m).numpy(), np.array([[7.0, 10.0], [15.0, 22.0]]))
    b = paddle.to_tensor([True, False])
    assert (~b).tolist() == [False, True]
    assert (b & paddle.to_tensor([True, True])).tolist() == [True, False]
    np.testing.assert_allclose((np.float32(2.0) * f).numpy(), [2.0, 4.0, 8.0])


def test_mixed_dtype_tensors_cast_right_to_left():
    i = paddle.to_tensor([1, 2], dtype="int32")
    f = paddle.to_tensor([0.5, 0.5])
    with pytest.warns(UserWarning):
        r = f + i
    assert r.dtype == paddle.float32
    np.testing.assert_allclose(r.numpy(), [1.5, 2.5])


def test_shape_mismatch_is_value_error():
    with pytest.raises(ValueError, match=r"\[.*\].*broadcast"):
        paddle.ones([2, 3]) + paddle.ones([4])


def test_print_format_matches_paddle():
    a = paddle.to_tensor([[-1.07110083, 0.87224680], [-0.32849231, 0.26714513]])
    s = str(a)
    assert s.splitlines()[0] == "Tensor(shape=[2, 2], dtype=float32, place=CPUPlace, stop_gradient=True,"
    assert s.splitlines()[1] == "       [[-1.07110083,  0.87224680],"
    assert s.splitlines()[2] == "        [-0.32849231,  0.26714513]])"
    b = paddle.to_tensor([1.0, 2.0])
    assert str(b).splitlines()[1] == "       [1., 2.])"
    i = paddle.to_tensor([1, 2, 3])
    assert str(i).splitlines()[1] == "       [1, 2, 3])"
    big = paddle.to_tensor(np.arange(2000, dtype="float32"))
    line = str(big).splitlines()[1]
    assert "..." in line and line.startswith("       [0.   , 1.   , 2.   , ...")
    paddle.set_printoptions(precision=2)
    try:
        assert "[0.50, 0.25]" in str(paddle.to_tensor([0.5, 0.25]))
    finally:
        paddle.set_printoptions(precision=8)


def test_clone_detach_deepcopy_share():
    x = paddle.to_tensor([1.0, 2.0])
    c = x.clone()
    d = x.detach()
    c[0] = 10.0
    d[1] = 20.0
    assert x.tolist() == [1.0, 20.0]  # detach shares storage, clone does not
    e = copy.deepcopy(x)
    e[0] = -1.0
    assert x.tolist() == [1.0, 20.0]
    x.fill_(3.0)
    assert x.tolist() == [3.0, 3.0]
    x.zero_()
    assert x.tolist() == [0.0, 0.0]


def test_astype_and_cast():
    x = paddle.to_tensor([1.7, -2.2, 3.5])
    assert x.astype("int32").tolist() == [1, -2, 3]
    assert x.astype(paddle.float64).dtype == paddle.float64
    assert paddle.cast(x, "bool").tolist() == [True, True, True]


def test_dlpack_roundtrip_shares_memory():
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    cap = paddle.utils.dlpack.to_dlpack(x)
    y = paddle.utils.dlpack.from_dlpack(cap)
    y[0, 0] = 42.0
    assert x[0, 0].item() == 42.0
    with pytest.raises(ValueError):
        paddle.utils.dlpack.from_dlpack(cap)  # a capsule is consumed once
    n = np.from_dlpack(x)
    assert n[0, 0] == 42.0
    z = paddle.utils.dlpack.from_dlpack(np.arange(3, dtype="int64"))
    assert z.dtype == paddle.int64 and z.tolist() == [0, 1, 2]


def test_devices():
    assert paddle.get_device() == "cpu"
    paddle.set_device("cpu")
    with pytest.raises(ValueError):
        paddle.set_device("gpu:0")
    assert paddle.is_compiled_with_cuda() is False


def test_seed_reproducible():
    paddle.seed(123)
    a = paddle.rand([5]).numpy()
    b = paddle.randn([3, 3]).numpy()
    paddle.seed(123)
    assert (paddle.rand([5]).numpy() == a).all()
    assert (paddle.randn([3, 3]).numpy() == b).all()


def test_bad_inputs_raise_paddle_exceptions():
    with pytest.raises(TypeError):
        paddle.to_tensor(object())
    with pytest.raises(TypeError):
        paddle.to_tensor(["a", "b"])
    with pytest.raises(ValueError):
        paddle.to_tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        paddle.Tensor()


def test_repr_pattern_for_e16_shapes():
    a = paddle.randn([4, 2])
    lines = str(a).splitlines()
    assert re.match(r"^Tensor\(shape=\[4, 2\], dtype=float32, place=CPUPlace, stop_gradient=True,$", lines[0])
    assert all(re.match(r"^ {7,8}\[?\[[ -]\d\.\d{8}, +[ -]?\d\.\d{8}\]", ln) for ln in lines[1:])
