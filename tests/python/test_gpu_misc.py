"""GPU kernels of the CUDA 'misc' family (csrc/kernels/gpu/misc.c, csrc/cuda/misc.cu) against the
CPU kernels: seeded random ops and dropout must be bit-identical to the CPU run for the same
generator state (their draws come from the same host engine); optimizer updates, embedding,
gather, concat / stack / split and topk must equal the CPU results. Skips without a GPU."""
import numpy as np
import pytest

import paddle

pytestmark = pytest.mark.skipif(paddle.device.cuda.device_count() == 0, reason="no GPU")


def gpu(a):
    return paddle.to_tensor(a).cuda()


def both(fn, seed=None):
    """fn run on the CPU and on the GPU from the same generator state: two numpy results"""
    res = []
    for dev in ("cpu", "gpu"):
        paddle.set_device(dev)
        try:
            if seed is not None:
                paddle.seed(seed)
            out = fn()
            res.append([o.numpy() for o in out] if isinstance(out, (list, tuple)) else out.numpy())
        finally:
            paddle.set_device("cpu")
    return res


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_seeded_random_bit_identical(dtype):
    c, g = both(lambda: [paddle.rand([257, 3], dtype=dtype), paddle.randn([301], dtype=dtype),
                         paddle.uniform([64], dtype=dtype, min=-2.0, max=3.0)], seed=2024)
    for a, b in zip(c, g):
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))
    c, g = both(lambda: [paddle.randint(-5, 9, [1000]), paddle.randperm(37)], seed=7)
    for a, b in zip(c, g):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("mode", ["upscale_in_train", "downscale_in_infer"])
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout_bit_identical_and_grad(mode, p):
    x = np.random.RandomState(0).randn(33, 65).astype("float32")

    def run():
        t = paddle.to_tensor(x, stop_gradient=False)
        y = paddle.nn.functional.dropout(t, p=p, mode=mode)
        (y * 2.0).sum().backward()
        return [y, t.grad]

    c, g = both(run, seed=11)
    assert np.array_equal(c[0], g[0]) and np.array_equal(c[1], g[1])


def test_optimizers_match_cpu():
    rs = np.random.RandomState(1)
    w0, x0 = rs.randn(6, 5).astype("float32"), rs.randn(4, 6).astype("float32")
    for make in (lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
                 lambda ps: paddle.optimizer.Momentum(0.1, momentum=0.9, parameters=ps, use_nesterov=True),
                 lambda ps: paddle.optimizer.Adam(0.01, parameters=ps),
                 lambda ps: paddle.optimizer.AdamW(0.01, parameters=ps, weight_decay=0.1),
                 lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps, centered=True, momentum=0.5),
                 lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps)):
        def run():
            lin = paddle.nn.Linear(6, 5)
            lin.weight.set_value(w0)
            opt = make(lin.parameters())
            for _ in range(3):
                loss = (lin(paddle.to_tensor(x0)) ** 2).mean()
                loss.backward()
                opt.step()
                opt.clear_grad()
            return [lin.weight, lin.bias]

        c, g = both(run, seed=3)
        for a, b in zip(c, g):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_embedding_gather_copies_topk():
    rs = np.random.RandomState(2)
    w = rs.randn(10, 7).astype("float32")
    ids = np.array([[1, 3, 3], [0, 9, 3]], dtype="int64")
    xs = [rs.randn(3, 4).astype("float32") for _ in range(3)]
    v = rs.randn(5, 9).astype("float32")
    v[1, 2] = np.nan
    v[2, :4] = 1.0  # ties

    def run():
        wt = paddle.to_tensor(w, stop_gradient=False)
        e = paddle.nn.functional.embedding(paddle.to_tensor(ids), wt, padding_idx=9)
        (e * paddle.arange(7, dtype="float32")).sum().backward()
        ts = [paddle.to_tensor(a) for a in xs]
        vals, inds = paddle.topk(paddle.to_tensor(v), 3, axis=1)
        vs, is_ = paddle.topk(paddle.to_tensor(v), 2, axis=0, largest=False)
        return [e, wt.grad, paddle.gather(ts[0], paddle.to_tensor([2, 0, 2]), axis=1),
                paddle.index_select(ts[1], paddle.to_tensor([1, 1, 0], dtype="int32")),
                paddle.concat(ts, axis=1), paddle.stack(ts, axis=1), *paddle.split(ts[2], [1, 3], axis=1),
                vals, inds, vs, is_]

    c, g = both(run)
    for a, b in zip(c, g):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(b, a)


def test_index_errors_raise():
    paddle.set_device("gpu")
    try:
        with pytest.raises(IndexError):
            paddle.gather(paddle.ones([3, 2]), paddle.to_tensor([0, 3]))
        with pytest.raises(IndexError):
            paddle.nn.functional.embedding(paddle.to_tensor([0, 5]), paddle.ones([4, 2]))
    finally:
        paddle.set_device("cpu")


def test_optimizer_state_follows_a_moved_model():
    """a model built on the CPU and moved to the GPU (default device still the CPU): the
    optimizer's accumulators (moments, beta pows) must live where the parameters are, or the
    GPU update would write into per-step copies and lose them"""
    rs = np.random.RandomState(4)
    w0, x0 = rs.randn(6, 5).astype("float32"), rs.randn(4, 6).astype("float32")

    def run(move):
        lin = paddle.nn.Linear(6, 5)
        lin.weight.set_value(w0)
        lin.bias.set_value(np.zeros(5, "float32"))
        if move:
            lin.to(device="gpu")
        opt = paddle.optimizer.Adam(0.01, parameters=lin.parameters())
        x = paddle.to_tensor(x0)
        if move:
            x = x.cuda()
        for _ in range(3):
            (lin(x) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()
        return lin.weight.numpy()

    np.testing.assert_allclose(run(True), run(False), rtol=1e-6, atol=1e-7)
