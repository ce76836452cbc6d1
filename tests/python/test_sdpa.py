"""paddle.nn.functional.scaled_dot_product_attention and flash_attention (Paddle 2.5+) against a
numpy reference, with masks, causal masking and gradients by finite differences."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F


def ref(q, k, v, mask=None, causal=False):
    qn, kn, vn = (np.transpose(a, (0, 2, 1, 3)).astype("float64") for a in (q, k, v))
    s = qn @ np.swapaxes(kn, -1, -2) / np.sqrt(qn.shape[-1])
    if mask is not None:
        s = s + mask
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -np.inf), 1)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.transpose(p @ vn, (0, 2, 1, 3)), p


def data(dtype="float32", tq=5, tk=6, dv=3):
    rs = np.random.RandomState(0)
    return (rs.randn(2, tq, 3, 4).astype(dtype), rs.randn(2, tk, 3, 4).astype(dtype), rs.randn(2, tk, 3, dv).astype(dtype))


@pytest.mark.parametrize("causal", [False, True])
def test_plain_and_causal(causal):
    q, k, v = data()
    out = F.scaled_dot_product_attention(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v), is_causal=causal)
    assert out.shape == [2, 5, 3, 3]
    np.testing.assert_allclose(out.numpy(), ref(q, k, v, causal=causal)[0], rtol=1e-5, atol=1e-5)


def test_float_bool_and_broadcast_masks():
    q, k, v = data()
    rs = np.random.RandomState(1)
    for shape in ([2, 3, 5, 6], [2, 1, 5, 6], [1, 6], [2, 1, 1, 6]):
        m = rs.randn(*shape).astype("float32")
        out = F.scaled_dot_product_attention(*(paddle.to_tensor(a) for a in (q, k, v)), attn_mask=paddle.to_tensor(m))
        np.testing.assert_allclose(out.numpy(), ref(q, k, v, mask=m.reshape([1] * (4 - m.ndim) + shape))[0],
                                   rtol=1e-5, atol=1e-5)
    keep = rs.rand(2, 1, 5, 6) > 0.3
    keep[..., 0] = True  # every row attends somewhere
    out = F.scaled_dot_product_attention(*(paddle.to_tensor(a) for a in (q, k, v)), attn_mask=paddle.to_tensor(keep),
                                         is_causal=True)
    np.testing.assert_allclose(out.numpy(), ref(q, k, v, mask=np.where(keep, 0.0, -np.inf), causal=True)[0],
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="broadcast"):
        F.scaled_dot_product_attention(*(paddle.to_tensor(a) for a in (q, k, v)), attn_mask=paddle.ones([4, 5, 6]))
    with pytest.raises(ValueError, match="4-D"):
        F.scaled_dot_product_attention(paddle.ones([2, 5, 12]), paddle.ones([2, 5, 12]), paddle.ones([2, 5, 12]))


def test_gradients_by_finite_differences():
    q, k, v = data("float64", tq=3, tk=4, dv=2)
    m = np.random.RandomState(2).randn(2, 1, 3, 4)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (q, k, v)]
    w = np.random.RandomState(3).randn(2, 3, 3, 2)
    (F.scaled_dot_product_attention(*ts, attn_mask=paddle.to_tensor(m), is_causal=True) * paddle.to_tensor(w)).sum().backward()
    arrs = [q, k, v]
    for i in range(3):
        num = np.zeros_like(arrs[i])
        for idx in np.ndindex(arrs[i].shape):
            for sgn in (1, -1):
                a = [x.copy() for x in arrs]
                a[i][idx] += sgn * 1e-6
                num[idx] += sgn * (ref(*a, mask=m, causal=True)[0] * w).sum() / 2e-6
        np.testing.assert_allclose(ts[i].grad.numpy(), num, rtol=1e-5, atol=1e-7)


def test_dropout_training_flag_and_flash_attention_module():
    q, k, v = data()
    tq, tk, tv = (paddle.to_tensor(a) for a in (q, k, v))
    np.testing.assert_allclose(F.scaled_dot_product_attention(tq, tk, tv, dropout_p=0.9, training=False).numpy(),
                               ref(q, k, v)[0], rtol=1e-5, atol=1e-5)
    paddle.seed(3)
    dropped = F.scaled_dot_product_attention(tq, tk, tv, dropout_p=0.5).numpy()
    assert not np.allclose(dropped, ref(q, k, v)[0], atol=1e-3)
    out, sm = F.flash_attention.flash_attention(tq, tk, tv, causal=True, return_softmax=True)
    r, p = ref(q, k, v, causal=True)
    np.testing.assert_allclose(out.numpy(), r, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sm.numpy(), p, rtol=1e-5, atol=1e-6)
    assert F.flash_attention.flash_attention(tq, tk, tv)[1] is None
    with F.sdp_kernel(enable_math=True):
        half = F.scaled_dot_product_attention(*(a.astype("float16") for a in (tq, tk, tv)))
    assert half.dtype == paddle.float16
    np.testing.assert_allclose(half.numpy().astype("float32"), ref(q, k, v)[0], rtol=1e-2, atol=1e-2)
