"""paddle.tensor.indexing getitem/setitem against numpy on many index forms, the Paddle 2.3
shape-[1] rule, view sharing of basic indexing, in-place writes and index errors."""
import numpy as np
import pytest

from paddle import _C
from paddle.tensor.indexing import getitem, setitem

A = np.arange(120, dtype=np.float32).reshape(4, 5, 6)


def T(a):
    return _C.from_buffer(np.ascontiguousarray(a))


def ref(a, idx):
    r = a[idx]
    return r.reshape(1) if np.ndim(r) == 0 else r


INDICES = [
    0, -1, (1, 2), (1, 2, 3), (-1, -2, -3),
    slice(1, 3), slice(None, None, -1), slice(None, None, 2), slice(-2, None),
    slice(100, 200), slice(3, 1), slice(None, None, -3), slice(10, -10, -1),
    (slice(None), slice(1, 4, 2)), (Ellipsis, 2), (0, Ellipsis), (Ellipsis,),
    (Ellipsis, slice(None, None, -2)), (None,), (None, 0), (0, None, slice(1, 3)),
    (slice(None), None, 1, None), (1, 2, 3, None),
    [0, 2], [[0, 1], [3, 2]], [-1, 0], (slice(None), [1, 3]), (slice(None), [1, 3], [0, 5]),
    ([0, 2], slice(None), [1, 3]), (0, [1, 2]), ([0, 3], 1), (slice(1, 3), [4, 0], slice(None, None, -1)),
    (Ellipsis, [5, 0, 1]), (None, [1, 2]), (np.array([1, 2]), np.array([[0], [4]])),
]


@pytest.mark.parametrize("idx", INDICES, ids=[repr(i) for i in INDICES])
def test_getitem_matches_numpy(idx):
    x = T(A)
    got = getitem(x, idx)
    want = ref(A, idx)
    assert got.shape == list(want.shape)
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("idx", [(1,), (slice(None), [1, 3]), ([0, 2], slice(None), [1, 3])])
def test_tensor_indices(idx):
    tidx = tuple(T(np.array(i)) if isinstance(i, list) else i for i in idx)
    np.testing.assert_array_equal(np.asarray(getitem(T(A), tidx)), ref(A, idx))


def test_bool_masks():
    x = T(A)
    m = A > 50
    np.testing.assert_array_equal(np.asarray(getitem(x, T(m))), A[m])
    m2 = A[:, :, 0] > 40
    np.testing.assert_array_equal(np.asarray(getitem(x, T(m2))), A[m2])
    m3 = np.array([True, False, True, True, False])
    np.testing.assert_array_equal(np.asarray(getitem(x, (slice(None), m3))), A[:, m3])
    np.testing.assert_array_equal(np.asarray(getitem(x, [True, False, False, True])), A[[True, False, False, True]])


def test_paddle_23_shape_one_rule():
    x = T(np.arange(5, dtype=np.int64))
    assert getitem(x, 2).shape == [1]
    assert int(np.asarray(getitem(x, -1))[0]) == 4
    assert getitem(T(A), (0, 0, 0)).shape == [1]


def test_basic_indexing_is_a_view():
    x = T(A.copy())
    for idx in [(1,), (slice(None, None, -1), 2), (Ellipsis, slice(1, None, 2)), (None, 2, 3)]:
        v = getitem(x, idx)
        assert v._storage_ptr == x._storage_ptr
    v = getitem(x, (slice(None, None, -1), 1))
    v._copy_(T(np.zeros(1, np.float32)))
    assert np.all(np.asarray(x)[:, 1] == 0)


SET_CASES = [
    (1, 7.0), ((slice(None), 2), np.arange(6, dtype=np.float64)), (slice(None, None, -2), -1),
    ((Ellipsis, 0), 3), ((0, 0, 0), 9), ([0, 2], 5), ((slice(None), [1, 3], [0, 5]), [1.0, 2.0]),
    (([0, 2], slice(None), [1, 3]), 4.5), ((0, [1, 2]), np.ones((2, 6))), ((None, 1), 2),
]


@pytest.mark.parametrize("idx,val", SET_CASES, ids=[repr(c[0]) for c in SET_CASES])
def test_setitem_matches_numpy(idx, val):
    a = A.copy()
    x = T(a.copy())
    setitem(x, idx, val)
    a[idx] = val
    np.testing.assert_array_equal(np.asarray(x), a)


def test_setitem_mask_and_tensor_value():
    a = A.copy()
    x = T(a.copy())
    m = a > 60
    setitem(x, T(m), 0.0)
    a[m] = 0.0
    np.testing.assert_array_equal(np.asarray(x), a)
    setitem(x, (slice(0, 2),), T(np.full((5, 6), 3, np.int64)))  # cast int64 -> float32
    a[0:2] = 3
    np.testing.assert_array_equal(np.asarray(x), a)
    m2 = a[:, 0, 0] > 50
    setitem(x, T(m2), -1)
    a[m2] = -1
    np.testing.assert_array_equal(np.asarray(x), a)


def test_setitem_non_contiguous_target():
    a = A.copy()
    x = T(a.copy())
    v = getitem(x, (slice(None), slice(None, None, 2)))   # a strided view of x
    setitem(v, ([0, 3], 1), 100.0)
    a[:, ::2][[0, 3], 1] = 100.0
    np.testing.assert_array_equal(np.asarray(x), a)


@pytest.mark.parametrize("idx,exc", [(4, IndexError), (-5, IndexError), ((0, 0, 0, 0), IndexError),
                                     ([0, 9], IndexError), ((slice(None), [1, 3], [0, 1, 2]), IndexError),
                                     (slice(None, None, 0), ValueError), ("a", IndexError),
                                     ((Ellipsis, Ellipsis), IndexError)])
def test_index_errors(idx, exc):
    with pytest.raises(exc):
        getitem(T(A), idx)
