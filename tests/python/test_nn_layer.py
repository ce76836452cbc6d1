"""paddle.nn.Layer: parameter/sublayer/buffer registration, structured state_dict names,
set_state_dict, train/eval, hooks, apply, to(dtype), deepcopy, repr, containers, ParamAttr,
initializers (statistics and exact values)."""
import copy
import math

import numpy as np
import pytest

import paddle
from paddle import nn


class Affine(nn.Layer):
    def __init__(self, i, o, weight_attr=None, bias_attr=None):
        super().__init__()
        self.weight = self.create_parameter([i, o], attr=weight_attr)
        self.bias = self.create_parameter([o], attr=bias_attr, is_bias=True)

    def forward(self, x):
        y = paddle.matmul(x, self.weight)
        return y if self.bias is None else y + self.bias


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = Affine(4, 8)
        self.fc2 = Affine(8, 2)
        self.register_buffer("steps", paddle.zeros([1]))
        self.register_buffer("scratch", paddle.zeros([2]), persistable=False)

    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


def test_registration_and_names():
    with paddle.utils.unique_name.guard():
        net = Net()
        assert net.fc1.weight.name == "affine_0.w_0" and net.fc1.bias.name == "affine_0.b_0"
        assert net.full_name() == "net_0"
    names = [n for n, _ in net.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(net.parameters()) == 4 and all(not p.stop_gradient for p in net.parameters())
    assert [n for n, _ in net.named_sublayers()] == ["fc1", "fc2"]
    assert list(net.state_dict().keys()) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]
    assert isinstance(net.fc1.weight, paddle.Tensor)
    assert "fc1" in dir(net)


def test_bias_attr_false_and_param_attr():
    a = Affine(3, 2, bias_attr=False)
    assert a.bias is None and len(a.parameters()) == 1
    init = nn.initializer.Constant(0.5)
    b = Affine(3, 2, weight_attr=paddle.ParamAttr(name="my_w", initializer=init, learning_rate=0.1,
                                                  trainable=False))
    assert b.weight.name == "my_w" and b.weight.stop_gradient and not b.weight.trainable
    assert b.weight.optimize_attr["learning_rate"] == 0.1
    np.testing.assert_allclose(b.weight.numpy(), 0.5)
    np.testing.assert_allclose(b.bias.numpy(), 0.0)  # bias default: zeros


def test_set_state_dict_roundtrip_and_errors():
    n1, n2 = Net(), Net()
    sd = {k: v.numpy() for k, v in n1.state_dict().items()}
    missing, unexpected = n2.set_state_dict(sd)
    assert not missing and not unexpected
    x = paddle.rand([5, 4])
    np.testing.assert_allclose(n1(x).numpy(), n2(x).numpy(), rtol=1e-6)
    bad = dict(sd)
    bad["fc1.weight"] = np.zeros((3, 3), dtype="float32")
    with pytest.raises(ValueError):
        n2.set_state_dict(bad)
    n3 = Net()
    by_name = {p3.name: p1.numpy() for p1, p3 in zip(n1.parameters(), n3.parameters())}
    by_name[n3.steps.name] = np.ones([1], dtype="float32")
    missing, _ = n3.set_state_dict(by_name, use_structured_name=False)
    assert not missing and n3.steps.numpy()[0] == 1.0
    np.testing.assert_allclose(n3.fc2.weight.numpy(), n1.fc2.weight.numpy())


def test_train_eval_and_hooks():
    net = Net()
    net.eval()
    assert not net.training and not net.fc1.training
    net.train()
    assert net.fc2.training
    calls = []
    h1 = net.register_forward_pre_hook(lambda layer, inp: calls.append("pre"))
    h2 = net.register_forward_post_hook(lambda layer, inp, out: out * 0)
    out = net(paddle.rand([2, 4]))
    assert calls == ["pre"] and float(out.abs().sum()) == 0.0
    h1.remove()
    h2.remove()
    assert float(net(paddle.ones([2, 4])).abs().sum()) >= 0
    assert calls == ["pre"]


def test_eval_still_records_backward():
    net = Net().eval()
    loss = net(paddle.rand([3, 4])).sum()
    loss.backward()
    assert net.fc1.weight.grad is not None
    net.clear_gradients()
    np.testing.assert_allclose(net.fc1.weight.grad.numpy(), 0.0)


def test_apply_to_deepcopy_repr():
    net = Net()
    seen = []
    net.apply(lambda layer: seen.append(type(layer).__name__))
    assert seen == ["Affine", "Affine", "Net"]
    c = copy.deepcopy(net)
    c.fc1.weight.set_value(np.zeros((4, 8), dtype="float32"))
    assert float(net.fc1.weight.abs().sum()) > 0  # deep copy: independent storage
    assert c.fc1.weight.name == net.fc1.weight.name
    net.to(dtype="float64")
    assert net.fc1.weight.dtype == paddle.float64 and isinstance(net.fc1.weight, nn.Layer) is False
    assert net(paddle.rand([2, 4], dtype="float64")).dtype == paddle.float64
    r = repr(nn.Sequential(Affine(2, 2), nn.Sequential(Affine(2, 2))))
    assert r.startswith("Sequential(\n  (0): Affine()\n  (1): Sequential(\n    (0): Affine()")


def test_containers():
    s = nn.Sequential(Affine(4, 3), Affine(3, 2))
    assert len(s) == 2 and isinstance(s[1], Affine) and len(s[0:1]) == 1
    assert s(paddle.rand([1, 4])).shape == [1, 2]
    named = nn.Sequential(("a", Affine(2, 2)), ("b", Affine(2, 2)))
    assert list(named.state_dict().keys()) == ["a.weight", "a.bias", "b.weight", "b.bias"]
    ll = nn.LayerList([Affine(2, 2) for _ in range(3)])
    ll.append(Affine(2, 2))
    assert len(ll) == 4 and len(ll.parameters()) == 8
    ll.insert(0, Affine(2, 2))
    del ll[1]
    assert len(ll) == 4 and list(ll.state_dict())[0] == "0.weight"
    ld = nn.LayerDict({"x": Affine(2, 2)})
    ld["y"] = Affine(2, 2)
    assert list(ld.keys()) == ["x", "y"] and len(ld.parameters()) == 4
    pl = nn.ParameterList([paddle.create_parameter([2], "float32") for _ in range(2)])
    assert len(pl.parameters()) == 2


def test_setattr_type_checks():
    net = Net()
    with pytest.raises(TypeError):
        net.fc1 = 3
    with pytest.raises(AttributeError):
        net.nothing_here


def test_initializers_statistics():
    paddle.seed(1)
    p = paddle.create_parameter([200, 300], "float32",
                                default_initializer=nn.initializer.XavierUniform())
    lim = math.sqrt(6.0 / 500)
    a = p.numpy()
    assert a.min() >= -lim and a.max() <= lim and abs(a.std() - lim / math.sqrt(3)) < 0.01 * lim
    k = paddle.create_parameter([256, 64, 3, 3], "float32",
                                default_initializer=nn.initializer.KaimingNormal())
    assert abs(k.numpy().std() - math.sqrt(2.0 / (64 * 9))) < 0.01
    t = paddle.create_parameter([10000], "float32",
                                default_initializer=nn.initializer.TruncatedNormal(0.0, 2.0))
    assert np.abs(t.numpy()).max() <= 4.0 + 1e-5
    o = paddle.create_parameter([6, 4], "float64", default_initializer=nn.initializer.Orthogonal())
    np.testing.assert_allclose(o.numpy().T @ o.numpy(), np.eye(4), atol=1e-10)
    d = paddle.create_parameter([2, 2, 3, 3], "float32", default_initializer=nn.initializer.Dirac())
    assert d.numpy()[0, 0, 1, 1] == 1 and d.numpy().sum() == 2
    a2 = paddle.create_parameter([2, 2], "float32",
                                 default_initializer=nn.initializer.Assign(np.eye(2)))
    np.testing.assert_allclose(a2.numpy(), np.eye(2))
    assert nn.initializer.calculate_gain("tanh") == 5.0 / 3
    with pytest.raises(ValueError):
        nn.initializer.calculate_gain("nope")
    nn.initializer.set_global_initializer(nn.initializer.Constant(2.0), nn.initializer.Constant(3.0))
    try:
        x = Affine(2, 2)
        np.testing.assert_allclose(x.weight.numpy(), 2.0)
        np.testing.assert_allclose(x.bias.numpy(), 3.0)
    finally:
        nn.initializer.set_global_initializer(None, None)


def test_parameter_repr():
    p = paddle.create_parameter([2], "float32", default_initializer=nn.initializer.Constant(1.0))
    assert repr(p).startswith("Parameter containing:\nTensor(shape=[2], dtype=float32")


def test_builtin_layers_follow_set_default_dtype():
    """paddle.set_default_dtype('float64') makes built-in layers create float64 parameters."""
    nn = paddle.nn
    paddle.set_default_dtype("float64")
    try:
        layers = [nn.Linear(3, 2), nn.Conv2D(2, 2, 3), nn.LayerNorm(4), nn.BatchNorm2D(2), nn.Embedding(5, 3),
                  nn.LSTM(3, 4), nn.TransformerEncoderLayer(8, 2, 16), nn.PReLU()]
        for layer in layers:
            dts = {p.dtype for p in layer.parameters()}
            assert dts == {paddle.float64}, (type(layer).__name__, dts)
        x = paddle.to_tensor(np.random.rand(2, 3))  # float64 input runs through float64 weights
        assert layers[0](x).dtype == paddle.float64
        y = layers[6](paddle.to_tensor(np.random.rand(2, 5, 8)))
        assert y.dtype == paddle.float64 and y.shape == [2, 5, 8]
        explicit = nn.Layer(dtype="float16").create_parameter([2])
        assert explicit.dtype == paddle.float16
    finally:
        paddle.set_default_dtype("float32")
    assert nn.Linear(3, 2).weight.dtype == paddle.float32
