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
    v3 = M.mobilenet_v3_small().state_dict()
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
