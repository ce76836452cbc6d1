"""paddle.vision.models: every Paddle 2.3 architecture builds and maps a small input to
[1, num_classes] in eval mode; known parameter totals; with_pool=False / num_classes=-1
feature outputs; state_dict naming; pretrained=True without a cached file raises clearly."""
import os

import numpy as np
import pytest

import paddle
from paddle.vision import models as M

# factory name -> (input hw, kwargs); minimum sizes where the architecture needs them
CASES = {
    'alexnet': (224, {}), 'vgg11': (32, {}), 'vgg13': (32, {}), 'vgg16': (32, {}),
    'vgg19': (32, {'batch_norm': True}),
    'resnet18': (64, {}), 'resnet34': (64, {}), 'resnet50': (64, {}), 'resnet101': (64, {}),
    'resnet152': (64, {}), 'resnext50_32x4d': (64, {}), 'resnext50_64x4d': (64, {}),
    'resnext101_32x4d': (64, {}), 'resnext101_64x4d': (64, {}), 'resnext152_32x4d': (64, {}),
    'resnext152_64x4d': (64, {}), 'wide_resnet50_2': (64, {}), 'wide_resnet101_2': (64, {}),
    'mobilenet_v1': (64, {'scale': 0.5}), 'mobilenet_v2': (64, {'scale': 0.75}),
    'mobilenet_v3_small': (64, {}), 'mobilenet_v3_large': (64, {'scale': 0.5}),
    'squeezenet1_0': (64, {}), 'squeezenet1_1': (64, {}),
    'shufflenet_v2_x0_25': (64, {}), 'shufflenet_v2_x0_33': (64, {}), 'shufflenet_v2_x0_5': (64, {}),
    'shufflenet_v2_x1_0': (64, {}), 'shufflenet_v2_x1_5': (64, {}), 'shufflenet_v2_x2_0': (64, {}),
    'shufflenet_v2_swish': (64, {}),
    'densenet121': (64, {}), 'densenet161': (64, {}), 'densenet169': (64, {}),
    'densenet201': (64, {}), 'densenet264': (64, {}),
    'inception_v3': (75, {}),
}


def _n_trainable(model):
    return sum(int(np.prod(p.shape)) for p in model.parameters() if not p.stop_gradient)


def _run(model, shape):
    model.eval()
    x = paddle.to_tensor(np.random.default_rng(0).normal(size=shape).astype("float32"))
    with paddle.no_grad():
        return model(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_factory_builds_and_classifies(name):
    hw, kw = CASES[name]
    model = getattr(M, name)(num_classes=7, **kw)
    out = _run(model, [1, 3, hw, hw])
    assert list(out.shape) == [1, 7]
    assert np.isfinite(out.numpy()).all()


def test_lenet():
    out = _run(M.LeNet(), [1, 1, 28, 28])
    assert list(out.shape) == [1, 10]
    feats = _run(M.LeNet(num_classes=-1), [1, 1, 28, 28])
    assert list(feats.shape) == [1, 16, 5, 5]


def test_googlenet_returns_three_heads():
    outs = _run(M.googlenet(num_classes=5), [1, 3, 192, 192])
    assert isinstance(outs, (list, tuple)) and len(outs) == 3
    for o in outs:
        assert list(o.shape) == [1, 5]


def test_classes_exported():
    for cls in ['LeNet', 'AlexNet', 'VGG', 'ResNet', 'MobileNetV1', 'MobileNetV2',
                'MobileNetV3Small', 'MobileNetV3Large', 'SqueezeNet', 'ShuffleNetV2', 'DenseNet',
                'GoogLeNet', 'InceptionV3']:
        assert hasattr(M, cls) and hasattr(paddle.vision, cls)
    m = M.ResNet(M.resnet.BasicBlock, 18, num_classes=3)
    assert list(_run(m, [1, 3, 64, 64]).shape) == [1, 3]
    assert list(_run(M.MobileNetV3Small(scale=0.5, num_classes=4), [1, 3, 64, 64]).shape) == [1, 4]
    assert list(_run(M.SqueezeNet("1.1", num_classes=4), [1, 3, 64, 64]).shape) == [1, 4]
    assert list(_run(M.ShuffleNetV2(scale=0.5, act="swish", num_classes=4), [1, 3, 64, 64]).shape) == [1, 4]


@pytest.mark.parametrize("name,total", [("resnet18", 11689512), ("mobilenet_v2", 3504872),
                                        ("vgg16", 138357544)])
def test_known_parameter_totals(name, total):
    assert _n_trainable(getattr(M, name)()) == total


@pytest.mark.parametrize("name,total", [("densenet121", 7978856), ("inception_v3", 23834568)])
def test_more_parameter_totals(name, total):
    m = getattr(M, name)()
    assert _n_trainable(m) == total
    keys = list(m.state_dict().keys())
    assert len(keys) == len(set(keys)) and not any("._bn." in k for k in keys)
    assert len(keys) == len(m.parameters())


def test_default_num_classes():
    assert list(_run(M.resnet18(), [1, 3, 64, 64]).shape) == [1, 1000]


def test_with_pool_false_and_no_classifier():
    feats = _run(M.resnet18(num_classes=-1, with_pool=False), [1, 3, 64, 64])
    assert list(feats.shape) == [1, 512, 2, 2]
    pooled = _run(M.resnet50(num_classes=-1), [1, 3, 64, 64])
    assert list(pooled.shape) == [1, 2048, 1, 1]
    assert list(_run(M.mobilenet_v2(num_classes=-1), [1, 3, 64, 64]).shape) == [1, 1280, 1, 1]
    assert list(_run(M.vgg11(num_classes=-1, with_pool=False), [1, 3, 64, 64]).shape) == [1, 512, 2, 2]
    assert list(_run(M.densenet121(num_classes=-1), [1, 3, 64, 64]).shape) == [1, 1024, 1, 1]
    m = M.resnet18(num_classes=-1)
    assert not any(k.startswith("fc.") for k in m.state_dict())


def test_state_dict_names_and_roundtrip():
    m = M.resnet18(num_classes=10)
    keys = list(m.state_dict().keys())
    for k in ["conv1.weight", "bn1._mean", "layer1.0.conv1.weight", "layer2.0.downsample.0.weight",
              "layer4.1.bn2._variance", "fc.weight", "fc.bias"]:
        assert k in keys
    m2 = M.resnet18(num_classes=10)
    m2.set_state_dict(m.state_dict())
    x = [1, 3, 32, 32]
    np.testing.assert_allclose(_run(m, x).numpy(), _run(m2, x).numpy(), rtol=1e-5, atol=1e-5)
    assert "features.0.0.weight" in M.mobilenet_v2().state_dict()
    assert "2_1._conv_dw_1.0.weight" in M.shufflenet_v2_x0_25().state_dict()
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    paddle.set_flags({"FLAGS_set_to_1d": True})  # Paddle 2.3's MobileNetV3 (the 2.6 one: below)
    v3 = M.mobilenet_v3_small().state_dict()
    paddle.set_flags({"FLAGS_set_to_1d": old})
    for k in ["conv.conv.weight", "blocks.0.mid_se.conv1.weight", "last_second_conv.bn._mean",
              "last_conv.weight", "fc.weight"]:
        assert k in v3


def test_mobilenet_v3_head_and_size():
    m = M.mobilenet_v3_large()
    assert 5.4e6 < _n_trainable(m) < 5.6e6
    assert list(_run(M.mobilenet_v3_small(num_classes=-1), [1, 3, 64, 64]).shape) == [1, 576, 1, 1]


def test_pretrained_without_file_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    from paddle.vision.models import _utils
    monkeypatch.setattr(_utils, "WEIGHTS_HOME", str(tmp_path / "weights"))
    with pytest.raises(RuntimeError, match="no network") as e:
        M.resnet18(pretrained=True)
    assert "resnet18.pdparams" in str(e.value)
    with pytest.raises(RuntimeError, match="InceptionV3_pretrained.pdparams"):
        M.inception_v3(pretrained=True)


def test_pretrained_loads_cached_file(tmp_path, monkeypatch):
    from paddle.vision.models import _utils
    monkeypatch.setattr(_utils, "WEIGHTS_HOME", str(tmp_path))
    src = M.mobilenet_v1(scale=0.25, num_classes=3)
    paddle.save(src.state_dict(), os.path.join(str(tmp_path), "mobilenet_v1_x0.25.pdparams"))
    m = M.mobilenet_v1(pretrained=True, scale=0.25, num_classes=3)
    x = [1, 3, 32, 32]
    np.testing.assert_allclose(_run(m, x).numpy(), _run(src, x).numpy(), rtol=1e-5, atol=1e-5)


@pytest.fixture
def level26():
    """FLAGS_set_to_1d off (Paddle 2.6 API level) for the test, restored after."""
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    paddle.set_flags({"FLAGS_set_to_1d": False})
    yield
    paddle.set_flags({"FLAGS_set_to_1d": old})


def _check_user_subclass(cls, kwargs, firsts, shape=(1, 3, 32, 32), state=None):
    """A user's subclass of a per-level model class (its forward doubled) builds the network of the
    level at construction (firsts: (FLAGS_set_to_1d, first state_dict key)) under its own methods
    (weights: its own, or state where given)."""
    class Doubled(cls):
        def forward(self, x):
            return super().forward(x) * 2

    for level, first in firsts:
        paddle.set_flags({"FLAGS_set_to_1d": level})
        d = Doubled(**kwargs)
        assert isinstance(d, Doubled) and list(d.state_dict())[0] == first
        if state is not None:
            assert d.set_state_dict(state) == ([], [])
        plain = cls(**kwargs)
        plain.set_state_dict(d.state_dict())
        np.testing.assert_allclose(_run(d, list(shape)).numpy(), 2 * _run(plain, list(shape)).numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_mobilenet_v3_network_follows_the_api_level_at_construction(level26):
    """FLAGS_set_to_1d off builds Paddle 2.4+'s MobileNetV3 (keys and outputs against real Paddle
    2.6.2: tests/conformance/test_checkpoints.py), on builds Paddle 2.3's; the model keeps the
    network it was built with when the flag changes; both are instances of the public class, whose
    signature is the level's (Paddle 2.6: no last_channel); a user's subclass follows the level too."""
    import inspect
    m26 = M.mobilenet_v3_small(scale=0.5, num_classes=10)
    assert str(inspect.signature(M.MobileNetV3Small)) == "(scale=1.0, num_classes=1000, with_pool=True)"
    assert str(inspect.signature(M.MobileNetV3Large)) == "(scale=1.0, num_classes=1000, with_pool=True)"
    with pytest.raises(TypeError):
        M.MobileNetV3Small(last_channel=1280)
    paddle.set_flags({"FLAGS_set_to_1d": True})
    m23 = M.mobilenet_v3_small(scale=0.5, num_classes=10)
    assert "last_channel" in inspect.signature(M.MobileNetV3Small).parameters
    for m in (m26, m23):
        assert isinstance(m, M.MobileNetV3Small) and type(m).__name__ == "MobileNetV3Small"
    k26, k23 = list(m26.state_dict()), list(m23.state_dict())
    assert k26[:2] == ["conv.0.weight", "conv.1.weight"] and k26[-4:] == [
        "classifier.0.weight", "classifier.0.bias", "classifier.3.weight", "classifier.3.bias"]
    assert "blocks.0.mid_se.fc1.weight" in k26 and "blocks.0.expand_conv.0.weight" not in k26
    assert k23[:2] == ["conv.conv.weight", "conv.bn.weight"] and "last_conv.weight" in k23
    _check_user_subclass(M.MobileNetV3Small, {"scale": 0.5, "num_classes": 10},
                         ((True, "conv.conv.weight"), (False, "conv.0.weight")))
    paddle.set_flags({"FLAGS_set_to_1d": True})
    # the 2.6 network in train mode (BatchNorm momentum 0.99: running mean 0.99 * old + 0.01 * batch)
    m26.train()
    bn = m26.conv[1]
    x = paddle.to_tensor(np.random.default_rng(1).normal(size=[2, 3, 32, 32]).astype("float32"))
    conv_out = m26.conv[0](x)
    bn(conv_out)  # one update of the running statistics (they start at 0)
    conv_out = conv_out.numpy().astype("float64")
    np.testing.assert_allclose(bn._mean.numpy(), 0.01 * conv_out.mean(axis=(0, 2, 3)), rtol=1e-4, atol=1e-6)
    out = m26(x)
    assert list(out.shape) == [2, 10] and np.isfinite(out.numpy()).all()
    out.sum().backward()
    assert m26.classifier[0].weight.grad is not None and m26.conv[0].weight.grad is not None


def test_mobilenet_v3_level26_sizes_and_pretrained(level26, tmp_path, monkeypatch):
    """Real Paddle 2.6.2's trainable parameter totals (small 2,542,856, large 5,483,032 at 1000
    classes) and feature shapes; pretrained=True looks for Paddle 2.4+'s cached file name."""
    assert _n_trainable(M.mobilenet_v3_small()) == 2542856
    assert _n_trainable(M.mobilenet_v3_large()) == 5483032
    assert list(_run(M.mobilenet_v3_small(num_classes=-1), [1, 3, 64, 64]).shape) == [1, 576, 1, 1]
    assert list(_run(M.mobilenet_v3_large(with_pool=False, num_classes=-1), [1, 3, 64, 64]).shape) == [1, 960, 2, 2]
    from paddle.vision.models import _utils
    monkeypatch.setattr(_utils, "WEIGHTS_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"no network.*mobilenet_v3_small_x1\.0\.pdparams"):
        M.mobilenet_v3_small(pretrained=True)
    src = M.mobilenet_v3_large(scale=0.5, num_classes=3)
    paddle.save(src.state_dict(), os.path.join(str(tmp_path), "mobilenet_v3_large_x0.5.pdparams"))
    m = M.mobilenet_v3_large(pretrained=True, scale=0.5, num_classes=3)
    np.testing.assert_allclose(_run(m, [1, 3, 32, 32]).numpy(), _run(src, [1, 3, 32, 32]).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,kwargs,stem,conv23", [
    ("mobilenet_v1", {"scale": 0.25, "num_classes": 3}, "conv1", "_conv"),
    ("inception_v3", {"num_classes": 3}, "inception_stem.conv_1a_3x3", "conv")])
def test_conv_norm_layout_follows_the_api_level(level26, name, kwargs, stem, conv23):
    """MobileNetV1 / InceptionV3: Paddle 2.4+'s ConvNormActivation keys with FLAGS_set_to_1d off
    (against real Paddle 2.6.2: tests/conformance/test_checkpoints.py), Paddle 2.3's conv-BN keys
    with it on; the same tensors in the same order, so either level's checkpoint (and cached
    pretrained file) gives the other model's outputs; a user's subclass follows the level."""
    factory, cls = getattr(M, name), {"mobilenet_v1": M.MobileNetV1, "inception_v3": M.InceptionV3}[name]
    m26 = factory(**kwargs)
    paddle.set_flags({"FLAGS_set_to_1d": True})
    m23 = factory(**kwargs)
    k26, k23 = list(m26.state_dict()), list(m23.state_dict())
    assert k26[:2] == [stem + ".0.weight", stem + ".1.weight"]
    assert k23[0] == "{}.{}.weight".format(stem, conv23) and not any(".0.weight" in k for k in k23)
    assert [v.shape for v in m26.state_dict().values()] == [v.shape for v in m23.state_dict().values()]
    for m in (m26, m23):
        assert isinstance(m, cls) and type(m).__name__ == cls.__name__
    shape = [1, 3, 75, 75] if name == "inception_v3" else [1, 3, 32, 32]
    rng = np.random.default_rng(3)
    for dst, src in ((m26, m23), (m23, m26)):
        for m in (dst, src):  # weights of the scale of trained ones (fresh outputs are ~1e-14)
            for k, v in m.state_dict().items():
                a = rng.normal(0.0, 0.3, size=v.shape)
                v.set_value((np.abs(a) + 0.5 if k.endswith("_variance") else a).astype("float32"))
        assert not np.allclose(_run(dst, shape).numpy(), _run(src, shape).numpy(), rtol=1e-3)
        assert dst.set_state_dict(src.state_dict()) == ([], [])
        # to the outputs' scale: the two runs may sum in another order (the pool's thread governor can
        # run one of them on one thread), and InceptionV3's three logits here are ~1e9 with one of them
        # 1% of the others (a 2e-5 relative difference there is 2e-7 of the scale)
        a, b = _run(dst, shape).numpy(), _run(src, shape).numpy()
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5 * float(np.abs(b).max()) + 1e-6)
    if name == "mobilenet_v1":
        _check_user_subclass(M.MobileNetV1, kwargs, ((True, "conv1._conv.weight"), (False, "conv1.0.weight")),
                             state=m26.state_dict())  # random weights of the scale of trained ones
