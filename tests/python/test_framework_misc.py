"""Small framework names: paddle.batch, check_shape, flags, DataParallel (single process),
enable_static/disable_static switching, flatten_, nn.functional label_smooth/sequence_mask/diag_embed,
MaxUnPool1D/3D."""
import numpy as np
import pytest

import paddle


def test_batch_reader():
    def reader():
        yield from range(7)

    assert list(paddle.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(paddle.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError):
        paddle.batch(reader, 0)


def test_check_shape_flags_static():
    paddle.check_shape([2, -1, 3])
    with pytest.raises(ValueError):
        paddle.check_shape([2, -2])
    with pytest.raises(TypeError):
        paddle.check_shape([2.5])
    assert paddle.get_flags(["FLAGS_check_nan_inf"]) == {"FLAGS_check_nan_inf": False}
    paddle.set_flags({"FLAGS_check_nan_inf": True})
    assert paddle.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is True
    paddle.set_flags({"FLAGS_check_nan_inf": False})
    with pytest.raises(ValueError):
        paddle.get_flags("FLAGS_nope")
    paddle.enable_static()
    try:
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_data_parallel_single_process():
    lin = paddle.nn.Linear(3, 2)
    dp = paddle.DataParallel(lin)
    x = paddle.rand([4, 3])
    np.testing.assert_allclose(dp(x).numpy(), lin(x).numpy())
    assert list(dp.state_dict()) == list(lin.state_dict())
    assert len(dp.parameters()) == 2


def test_flatten_inplace_and_functional_extras():
    x = paddle.arange(24).reshape([2, 3, 4])
    y = x.flatten_(1, 2)
    assert y is x and x.shape == [2, 12]
    lab = paddle.to_tensor([[0.0, 1.0, 0.0]])
    np.testing.assert_allclose(paddle.nn.functional.label_smooth(lab, epsilon=0.3).numpy(),
                               [[0.1, 0.8, 0.1]], rtol=1e-6)
    m = paddle.nn.functional.sequence_mask(paddle.to_tensor([1, 3]), maxlen=4)
    assert m.tolist() == [[1, 0, 0, 0], [1, 1, 1, 0]]
    d = paddle.nn.functional.diag_embed(paddle.to_tensor([[1.0, 2.0]]))
    np.testing.assert_allclose(d.numpy(), [[[1.0, 0.0], [0.0, 2.0]]])


def test_max_unpool_1d_3d():
    x = paddle.to_tensor(np.arange(16, dtype="float32").reshape([1, 1, 16]))
    out, idx = paddle.nn.functional.max_pool1d(x, 2, return_mask=True)
    up = paddle.nn.MaxUnPool1D(2)(out, idx)
    assert up.shape == [1, 1, 16]
    np.testing.assert_allclose(up.numpy()[0, 0, 1::2], np.arange(1, 16, 2))
    x3 = paddle.rand([1, 1, 4, 4, 4])
    o3, i3 = paddle.nn.functional.max_pool3d(x3, 2, return_mask=True)
    assert paddle.nn.MaxUnPool3D(2)(o3, i3).shape == [1, 1, 4, 4, 4]
