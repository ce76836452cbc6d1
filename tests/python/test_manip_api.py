"""paddle.tensor.manipulation / search against numpy: argument forms (int, list, tuple,
Tensor), Paddle 2.3 defaults, views sharing storage, and error types."""
import numpy as np
import pytest

from paddle import _C
import paddle.tensor.manipulation as M
import paddle.tensor.search as S

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def T(a):
    return _C.from_buffer(np.ascontiguousarray(a))


def N(t):
    return np.asarray(t)


def test_reshape_forms_and_view():
    x = T(A)
    for shape in ([4, -1], (0, 12), T(np.array([6, 4])), [2, 3, 4], [T(np.array([4])), 6]):
        want = A.reshape(6, 4) if isinstance(shape, _C.Tensor) else None
        got = M.reshape(x, shape)
        assert got._storage_ptr == x._storage_ptr
        if want is not None:
            np.testing.assert_array_equal(N(got), want)
    np.testing.assert_array_equal(N(M.reshape(x, [0, 12])), A.reshape(2, 12))
    t = M.transpose(x, [2, 0, 1])
    np.testing.assert_array_equal(N(M.reshape(t, [-1])), np.transpose(A, (2, 0, 1)).reshape(-1))
    with pytest.raises(ValueError):
        M.reshape(x, [5, -1])
    with pytest.raises(ValueError):
        M.reshape(x, [-1, -1])


def test_transpose_squeeze_unsqueeze_flatten():
    x = T(A)
    t = M.transpose(x, (1, 0, 2))
    assert t._storage_ptr == x._storage_ptr and not t._is_contiguous
    np.testing.assert_array_equal(N(t), A.transpose(1, 0, 2))
    y = T(np.zeros((1, 3, 1, 2), np.float32))
    assert M.squeeze(y).shape == [3, 2]
    assert M.squeeze(y, 2).shape == [1, 3, 2]
    assert M.squeeze(y, [0, 1]).shape == [3, 1, 2]   # non-1 dims are kept
    # all dims squeezed: [1] at Paddle 2.3's level (FLAGS_set_to_1d on), 0-D at 2.6's (Paddle 2.6.2)
    level23 = _C.set_to_1d()
    assert M.squeeze(T(np.zeros((1, 1), np.float32))).shape == ([1] if level23 else [])
    assert M.unsqueeze(x, 0).shape == [1, 2, 3, 4]
    assert M.unsqueeze(x, [0, 4]).shape == [1, 2, 3, 4, 1]
    assert M.unsqueeze(x, T(np.array([-1]))).shape == [2, 3, 4, 1]
    assert M.flatten(x).shape == [24]
    np.testing.assert_array_equal(N(M.flatten(t, 1, 2)), A.transpose(1, 0, 2).reshape(3, 8))
    with pytest.raises(ValueError, match="InvalidArgument"):  # Paddle's class for an axis out of range
        M.transpose(x, [0, 1, 5])


def test_concat_stack_split_chunk_unbind():
    a, b = A, A + 100
    np.testing.assert_array_equal(N(M.concat([T(a), T(b)], axis=1)), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(N(M.concat((T(a), T(b)), axis=T(np.array([-1])))), np.concatenate([a, b], -1))
    np.testing.assert_array_equal(N(M.stack([T(a), T(b)], 2)), np.stack([a, b], 2))
    parts = M.split(T(A), 2, axis=2)
    assert [p.shape for p in parts] == [[2, 3, 2], [2, 3, 2]]
    parts = M.split(T(A), [1, -1], axis=1)
    np.testing.assert_array_equal(N(parts[1]), A[:, 1:])
    assert [c.shape for c in M.chunk(T(A), 3, axis=1)] == [[2, 1, 4]] * 3
    us = M.unbind(T(A), 1)
    assert len(us) == 3 and all(np.array_equal(N(u), A[:, i]) for i, u in enumerate(us))
    assert len(M.unstack(T(A), 0)) == 2
    with pytest.raises(ValueError):
        M.split(T(A), 3, axis=2)
    with pytest.raises(ValueError):
        M.concat([T(a), T(np.zeros((2, 2, 2), np.float32))], axis=1)


def test_expand_tile_flip_roll():
    x = T(np.array([[1.0], [2.0]], np.float32))
    np.testing.assert_array_equal(N(M.expand(x, [3, 2, 4])), np.broadcast_to(N(x), (3, 2, 4)))
    np.testing.assert_array_equal(N(M.expand(x, [-1, 5])), np.broadcast_to(N(x), (2, 5)))
    np.testing.assert_array_equal(N(M.broadcast_to(x, (2, 3))), np.broadcast_to(N(x), (2, 3)))
    np.testing.assert_array_equal(N(M.expand_as(x, T(np.zeros((4, 2, 3))))), np.broadcast_to(N(x), (4, 2, 3)))
    np.testing.assert_array_equal(N(M.tile(T(A), [2, 1, 1, 2])), np.tile(A, (2, 1, 1, 2)))
    np.testing.assert_array_equal(N(M.tile(T(A), (2,))), np.tile(A, 2))
    np.testing.assert_array_equal(N(M.flip(T(A), [0, 2])), A[::-1, :, ::-1])
    np.testing.assert_array_equal(N(M.reverse(T(A), 1)), A[:, ::-1])
    np.testing.assert_array_equal(N(M.roll(T(A), 5)), np.roll(A, 5))
    np.testing.assert_array_equal(N(M.roll(T(A), [1, -2], [0, 2])), np.roll(A, (1, -2), (0, 2)))
    with pytest.raises(ValueError):
        M.expand(T(A), [3, 3, 4])


def test_gather_scatter_family():
    x = T(A)
    np.testing.assert_array_equal(N(M.gather(x, T(np.array([1, 0, 1])))), A[[1, 0, 1]])
    np.testing.assert_array_equal(N(M.gather(x, [2, 0], axis=2)), A[:, :, [2, 0]])
    np.testing.assert_array_equal(N(M.index_select(x, T(np.array([3, 1], np.int32)), axis=-1)), A[..., [3, 1]])
    idx = np.array([[0, 1], [1, 2]])
    np.testing.assert_array_equal(N(M.gather_nd(x, T(idx))), A[idx[:, 0], idx[:, 1]])
    base = np.zeros((4, 2), np.float32)
    upd = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = M.scatter(T(base), T(np.array([1, 3, 1])), T(upd), overwrite=False)
    want = base.copy()
    np.add.at(want, [1, 3, 1], upd)
    np.testing.assert_array_equal(N(out), want)
    out = M.scatter(T(base), T(np.array([2, 0, 1])), T(upd))
    np.testing.assert_array_equal(N(out)[[2, 0, 1]], upd)
    xb = T(base)
    assert M.scatter_(xb, T(np.array([0])), T(np.ones((1, 2), np.float32))) is xb
    np.testing.assert_array_equal(N(xb)[0], [1, 1])
    nd = M.scatter_nd(T(np.array([[1], [3], [1]])), T(np.ones((3, 2), np.float32)), [4, 2])
    np.testing.assert_array_equal(N(nd), [[0, 0], [2, 2], [0, 0], [1, 1]])
    nda = M.scatter_nd_add(T(base), T(np.array([[0, 1]])), T(np.array([5.0], np.float32)))
    assert N(nda)[0, 1] == 5
    with pytest.raises(IndexError):
        M.gather(x, [2])
    with pytest.raises(IndexError):
        M.scatter(T(base), T(np.array([4])), T(upd[:1]))
    with pytest.raises(TypeError):
        M.gather(x, T(np.array([0.0])))


def test_slice_strided_slice_are_views():
    x = T(A.copy())
    s = M.slice(x, [0, 2], [1, -3], [100, -1])
    np.testing.assert_array_equal(N(s), A[1:, :, -3:-1])
    assert s._storage_ptr == x._storage_ptr
    ss = M.strided_slice(x, [1, 2], [2, 0], [-4, 4], [-1, 3])
    np.testing.assert_array_equal(N(ss), A[:, 2::-1, 0:4:3])
    ss._copy_(T(np.zeros(1, np.float32)))
    assert np.all(N(x)[:, :, 0] == 0) and np.all(N(x)[:, :, 3] == 0)


def test_unique():
    a = np.array([3, 1, 3, 2, 1, 3], np.int64)
    out = M.unique(T(a))
    np.testing.assert_array_equal(N(out), [1, 2, 3])
    out, idx, inv, cnt = M.unique(T(a), True, True, True)
    u, i, v, c = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    for g, w in [(out, u), (idx, i), (inv, v), (cnt, c)]:
        np.testing.assert_array_equal(N(g), w)
    out, cnt = M.unique(T(a), return_counts=True, dtype="int32")
    assert cnt.dtype.name == "int32"
    m = np.array([[1, 2], [0, 5], [1, 2]], np.float32)
    out, inv = M.unique(T(m), return_inverse=True, axis=0)
    np.testing.assert_array_equal(N(out), [[0, 5], [1, 2]])
    np.testing.assert_array_equal(N(inv), [1, 0, 1])


def test_broadcast_shape_and_moveaxis():
    assert M.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    with pytest.raises(ValueError):
        M.broadcast_shape([2, 3], [4])
    np.testing.assert_array_equal(N(M.moveaxis(T(A), 0, -1)), np.moveaxis(A, 0, -1))
    np.testing.assert_array_equal(N(M.moveaxis(T(A), [0, 1], [2, 0])), np.moveaxis(A, [0, 1], [2, 0]))


def test_search_ops():
    a = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]], np.float32)
    x = T(a)
    np.testing.assert_array_equal(N(S.sort(x)), np.sort(a, -1))
    np.testing.assert_array_equal(N(S.sort(x, axis=0, descending=True)), -np.sort(-a, 0))
    np.testing.assert_array_equal(N(S.argsort(x)), np.argsort(a, -1, kind="stable"))
    v, i = S.topk(x, 2)
    np.testing.assert_array_equal(N(v), [[3, 2], [4, 4]])
    np.testing.assert_array_equal(N(i), [[0, 2], [1, 2]])
    v, i = S.topk(x, T(np.array([1])), axis=0, largest=False)
    np.testing.assert_array_equal(N(v), [[0.5, 1, 2]])
    cond = a > 2
    np.testing.assert_array_equal(N(S.where(T(cond), x, T(np.zeros(3, np.float32)))), np.where(cond, a, 0))
    np.testing.assert_array_equal(N(S.where(T(cond), x, 0.0)), np.where(cond, a, 0))
    np.testing.assert_array_equal(N(S.nonzero(T(cond))), np.stack(np.nonzero(cond), -1))
    rows, cols = S.where(T(cond))
    np.testing.assert_array_equal(N(rows).reshape(-1), np.nonzero(cond)[0])
    np.testing.assert_array_equal(N(cols).reshape(-1), np.nonzero(cond)[1])
    np.testing.assert_array_equal(N(S.masked_select(x, T(cond))), a[cond])
    np.testing.assert_array_equal(N(S.index_sample(x, T(np.array([[2, 0], [1, 1]])))), [[2, 3], [4, 4]])
    with pytest.raises(ValueError):
        S.topk(x, 4)
    with pytest.raises(TypeError):
        S.where(x, x, x)


def test_many_dtypes_move_bytes():
    for dt in [np.bool_, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float64, np.complex64, np.complex128]:
        a = (np.arange(12).reshape(3, 4) % 3).astype(dt)
        x = T(a)
        np.testing.assert_array_equal(N(M.concat([x, x], 0)), np.concatenate([a, a]))
        np.testing.assert_array_equal(N(M.flip(x, 1)), a[:, ::-1])
        np.testing.assert_array_equal(N(M.tile(x, [1, 2])), np.tile(a, (1, 2)))
        np.testing.assert_array_equal(N(M.gather(x, [2, 0])), a[[2, 0]])
        np.testing.assert_array_equal(N(S.masked_select(x, T(a != 0))), a[a != 0])


def test_inplace_shape_ops_change_x_itself():
    import paddle
    x = paddle.arange(6)
    y = x.reshape_([2, 3])
    assert y is x and x.shape == [2, 3]
    x.unsqueeze_(0)
    assert x.shape == [1, 2, 3]
    x.squeeze_()
    assert x.shape == [2, 3] and x.tolist() == [[0, 1, 2], [3, 4, 5]]
