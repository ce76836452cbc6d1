"""The CUDA backend from Python (issue 22): places, moves between host and GPU, paddle.device.cuda
(memory statistics, streams, events, properties), errors (out of memory, mixed places, ops without
a GPU kernel), and seed-MLP training on the GPU against the same training on the CPU. Skipped
where no GPU is found; test_cpu_only_answers runs everywhere."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from paddle import _C

HAS_GPU = _C.cuda_device_count() > 0
gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU")


@pytest.fixture(autouse=True)
def _cpu_default():
    yield
    paddle.set_device("cpu")


def test_cpu_only_answers():
    if HAS_GPU:
        assert paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() >= 1
        return
    assert paddle.is_compiled_with_cuda() is False and paddle.device.cuda.device_count() == 0
    with pytest.raises(ValueError):
        paddle.set_device("gpu")
    with pytest.raises(ValueError):
        paddle.to_tensor([1.0]).cuda()
    assert paddle.to_tensor([1.0]).place == paddle.CPUPlace()


@gpu
def test_places_and_moves():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    x = paddle.to_tensor(a, place=paddle.CUDAPlace(0))
    assert x.place == paddle.CUDAPlace(0) and x.place.is_gpu_place()
    assert "place=CUDAPlace(0)" in str(x)
    np.testing.assert_array_equal(x.numpy(), a)
    y = x.cpu()
    assert y.place == paddle.CPUPlace()
    np.testing.assert_array_equal(y.numpy(), a)
    z = y.cuda()
    assert z.place == paddle.CUDAPlace(0)
    assert x.cuda() is x
    w = y.to("gpu:0", "float64")
    assert w.dtype == paddle.float64 and w.place.is_gpu_place()
    np.testing.assert_allclose(w.numpy(), a.astype("float64"))
    assert float(x[1, 2]) == pytest.approx(float(a[1, 2]))
    assert x[0, 0].item() == pytest.approx(float(a[0, 0]))
    for dt in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"):
        b = (a * 10).astype(dt)
        np.testing.assert_array_equal(paddle.to_tensor(b, place="gpu").numpy(), b)
    bf = paddle.to_tensor(a).astype("bfloat16")
    np.testing.assert_array_equal(bf.cuda().cpu().numpy(), bf.numpy())


@gpu
def test_set_device_and_creation():
    p = paddle.set_device("gpu:0")
    assert paddle.get_device() == "gpu:0" and p.is_gpu_place()
    x = paddle.to_tensor([1.0, 2.0])
    assert x.place == paddle.CUDAPlace(0)
    for t in (paddle.zeros([2, 3]), paddle.ones([4]), paddle.full([2], 3.5), paddle.arange(5),
              paddle.rand([3]), paddle.randn([3])):
        assert t.place == paddle.CUDAPlace(0), t
    np.testing.assert_array_equal(paddle.arange(5).numpy(), np.arange(5))
    paddle.set_device("cpu")
    assert paddle.zeros([2]).place == paddle.CPUPlace()


@gpu
def test_elementwise_and_autograd_on_gpu():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 7)).astype("float32"), rng.standard_normal((7,)).astype("float32")
    x = paddle.to_tensor(a, place="gpu", stop_gradient=False)
    y = paddle.to_tensor(b, place="gpu", stop_gradient=False)
    z = (x * y + x).sum()
    z.backward()
    assert x.grad.place.is_gpu_place() and y.grad.place.is_gpu_place()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(b + 1, a.shape), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), a.sum(0), rtol=1e-5)


@gpu
def test_mixed_places():
    g = paddle.to_tensor([1.0, 2.0], place="gpu")
    c = paddle.to_tensor([10.0, 20.0])  # stop_gradient: moved to the op's GPU (Paddle's data transform)
    np.testing.assert_array_equal((g + c).numpy(), [11.0, 22.0])
    assert (g + c).place.is_gpu_place()
    needs_grad = paddle.to_tensor([1.0, 1.0], stop_gradient=False)
    with pytest.raises(ValueError, match="one place"):
        paddle.add(g, needs_grad)


@gpu
def test_memory_statistics_and_oom():
    cuda = paddle.device.cuda
    cuda.empty_cache()
    base = cuda.memory_allocated()
    x = paddle.zeros([1024, 1024], dtype="float32").cuda()
    assert cuda.memory_allocated() >= base + 4 * 1024 * 1024
    assert cuda.max_memory_allocated() >= cuda.memory_allocated()
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    del x
    assert cuda.memory_allocated() == base
    paddle.set_device("gpu")
    with pytest.raises(MemoryError, match="out of memory"):
        paddle.zeros([1 << 22, 1 << 22], dtype="float32")  # 64 TiB, made on the GPU
    paddle.set_device("cpu")
    y = paddle.ones([8]).cuda()  # still works after the failure
    assert float(y.sum()) == 8.0


@gpu
def test_streams_events_properties():
    cuda = paddle.device.cuda
    props = cuda.get_device_properties()
    assert props.major >= 7 and props.multi_processor_count > 0 and props.total_memory > 1 << 30
    assert cuda.get_device_name() == props.name
    assert cuda.get_device_capability() == (props.major, props.minor)
    s = cuda.Stream()
    e0, e1 = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    with cuda.stream_guard(s):
        e0.record(s)
        x = paddle.ones([2048, 2048]).cuda()
        for _ in range(3):
            x = x * 1.0001
        e1.record(s)
    e1.synchronize()
    assert e0.query() and e1.query() and s.query()
    assert e0.elapsed_time(e1) >= 0.0
    cuda.synchronize()
    assert cuda.current_stream().cuda_stream != s.cuda_stream
    np.testing.assert_allclose(float(x[0, 0]), 1.0001 ** 3, rtol=1e-6)


@gpu
def test_unsupported_op_raises():
    """an op without a GPU kernel never runs its CPU kernel on device memory"""
    if "cholesky" in _C.gpu_kernels():
        pytest.skip("cholesky has a GPU kernel now: pick another op")
    g = paddle.to_tensor([[2.0, 1.0], [1.0, 2.0]], place="gpu")
    with pytest.raises(NotImplementedError, match="GPU kernel"):
        paddle.linalg.cholesky(g)


def _mlp_losses(place, steps=20, dropout=0.0):
    paddle.seed(2024)
    np.random.seed(2024)
    net = paddle.nn.Sequential(paddle.nn.Linear(64, 128), paddle.nn.ReLU(), paddle.nn.Dropout(dropout),
                               paddle.nn.Linear(128, 10))
    if place == "gpu":
        net.to("gpu")
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((steps, 32, 64)).astype("float32")
    ys = rng.integers(0, 10, (steps, 32, 1)).astype("int64")
    losses = []
    for i in range(steps):
        x, y = paddle.to_tensor(xs[i]), paddle.to_tensor(ys[i])
        if place == "gpu":
            x, y = x.cuda(), y.cuda()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return np.array(losses), [p.numpy() for p in net.parameters()]


@gpu
@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_seed_mlp_training_matches_cpu(dropout):
    if hasattr(_C, "cuda_set_allow_tf32"):
        _C.cuda_set_allow_tf32(False)
    try:
        lc, pc = _mlp_losses("cpu", dropout=dropout)
        lg, pg = _mlp_losses("gpu", dropout=dropout)
    finally:
        if hasattr(_C, "cuda_set_allow_tf32"):
            _C.cuda_set_allow_tf32(True)
    np.testing.assert_allclose(lg, lc, rtol=1e-4, atol=1e-5)
    for a, b in zip(pg, pc):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    assert lg[-1] < lg[0]
