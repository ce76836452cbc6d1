"""MobileNetV3 small and large (paddle.vision.models.MobileNetV3Small / MobileNetV3Large and
mobilenet_v3_small / mobilenet_v3_large) in the network of the API level in force when the model is
built (FLAGS_set_to_1d, paddle._C.set_to_1d()):

- Paddle 2.6 level (flag off): Paddle 2.4+'s network, whose state_dict is real Paddle 2.6.2's:
  ConvNormActivation blocks (`conv.0.weight`, `conv.1._mean`; BatchNorm epsilon 1e-3, momentum
  0.99), no expand conv where a block keeps its width, an SE gate avgpool-fc1-relu-fc2-hardsigmoid
  (slope 1/6) with its squeeze width rounded to 8, `lastconv` (6x the last block's input width),
  then flatten and a Linear-Hardswish-Dropout-Linear `classifier`.
- Paddle 2.3 level (the default): the network laid out as Paddle 2.3's published weights:
  ConvBNLayer blocks (`conv.conv.weight`, `conv.bn._mean`), an SE gate of hardsigmoid slope 0.2,
  `last_second_conv`, pooling, then a 1x1 `last_conv` + hardswish + dropout + `fc` head.

The public classes are the Paddle 2.6 ones; their metaclass (_utils.ByApiLevel) builds the Paddle 2.3
subclass instead when the flag is on at construction, for users' subclasses too (isinstance holds at
both levels; inspect.signature gives the constructor of the level in force). set_state_dict of a
checkpoint laid out as the other level's network keeps the usual missing / unexpected keys and adds
one warning naming FLAGS_set_to_1d (_utils.LevelCheckpoints)."""
from functools import partial

import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from ._utils import (BatchNormAct, ByApiLevel, ConvNormActivation, LevelCheckpoints, _make_divisible, era23,
                     load_pretrained)

__all__ = ['MobileNetV3Small', 'MobileNetV3Large', 'mobilenet_v3_small', 'mobilenet_v3_large']

# (in_channels, kernel, expanded_channels, out_channels, use_se, activation, stride) per block, the
# same at both levels (before scaling)
_SMALL = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
          (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
          (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
          (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
          (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
          (96, 5, 576, 96, True, "hardswish", 1)]

_LARGE = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2),
          (24, 3, 72, 24, False, "relu", 1), (24, 5, 72, 40, True, "relu", 2),
          (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
          (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
          (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
          (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
          (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
          (160, 5, 960, 160, True, "hardswish", 1)]

_ACTIVATIONS = {None: None, "relu": nn.ReLU, "hardswish": nn.Hardswish}


def _activation(name):
    if name not in _ACTIVATIONS:
        raise RuntimeError("The activation function is not supported: {}".format(name))
    return _ACTIVATIONS[name]


class InvertedResidualConfig:
    """One block of the table, its widths scaled and rounded to multiples of 8."""

    def __init__(self, in_channels, kernel, expanded_channels, out_channels, use_se, activation, stride,
                 scale=1.0):
        self.in_channels = self.adjust_channels(in_channels, scale)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, scale)
        self.out_channels = self.adjust_channels(out_channels, scale)
        self.use_se = use_se
        self.activation = activation
        self.activation_layer = _activation(activation)
        self.stride = stride

    @staticmethod
    def adjust_channels(channels, scale=1.0):
        return _make_divisible(channels * scale, 8)


def _configs(table, scale):
    return [InvertedResidualConfig(*row, scale=scale) for row in table]


# ---------------------------------------------------------------- Paddle 2.6 level (2.4+ network)
class SqueezeExcitation(nn.Layer):
    """x * scale_activation(fc2(activation(fc1(avgpool(x))))), the fc's 1x1 convolutions."""

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input):
        gate = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return gate * input


class InvertedResidual(nn.Layer):
    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se,
                 activation_layer, norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se = use_se
        self.expand = in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(in_channels, expanded_channels, 1, 1, 0, norm_layer=norm_layer,
                                                  activation_layer=activation_layer)
        self.bottleneck_conv = ConvNormActivation(expanded_channels, expanded_channels, filter_size, stride,
                                                  (filter_size - 1) // 2, groups=expanded_channels,
                                                  norm_layer=norm_layer, activation_layer=activation_layer)
        if use_se:
            self.mid_se = SqueezeExcitation(expanded_channels, _make_divisible(expanded_channels // 4),
                                            scale_activation=nn.Hardsigmoid)
        self.linear_conv = ConvNormActivation(expanded_channels, out_channels, 1, 1, 0, norm_layer=norm_layer,
                                              activation_layer=None)

    def forward(self, x):
        y = self.expand_conv(x) if self.expand else x
        y = self.bottleneck_conv(y)
        if self.use_se:
            y = self.mid_se(y)
        y = self.linear_conv(y)
        return paddle.add(x, y) if self.use_res_connect else y


class MobileNetV3(LevelCheckpoints, nn.Layer):
    """Paddle 2.4+'s MobileNetV3 from a list of InvertedResidualConfig."""
    _PROBES = {"2.6": "conv.0.weight", "2.3": "conv.conv.weight"}
    _LAYOUT_TEXT = {"2.6": "Paddle 2.4+'s MobileNetV3 (`conv.0.weight`, `classifier.0.weight`)",
                    "2.3": "Paddle 2.3's MobileNetV3 (`conv.conv.weight`, `last_conv.weight`)"}

    def __init__(self, config, last_channel, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.config = config
        self.scale = scale
        self.last_channel = last_channel
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.firstconv_in_channels = config[0].in_channels
        self.lastconv_in_channels = config[-1].in_channels
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm_layer = partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(3, self.firstconv_in_channels, 3, 2, 1, groups=1,
                                       activation_layer=nn.Hardswish, norm_layer=norm_layer)
        self.blocks = nn.Sequential(*[
            InvertedResidual(c.in_channels, c.expanded_channels, c.out_channels, c.kernel, c.stride, c.use_se,
                             c.activation_layer, norm_layer) for c in config])
        self.lastconv = ConvNormActivation(self.lastconv_in_channels, self.lastconv_out_channels, 1, 1, 0,
                                           groups=1, norm_layer=norm_layer, activation_layer=nn.Hardswish)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Linear(self.lastconv_out_channels, last_channel), nn.Hardswish(),
                                            nn.Dropout(p=0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(paddle.flatten(x, 1))
        return x


class MobileNetV3Small(MobileNetV3, metaclass=ByApiLevel):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__(_configs(_SMALL, scale), last_channel=_make_divisible(1024 * scale, 8), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


class MobileNetV3Large(MobileNetV3, metaclass=ByApiLevel):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__(_configs(_LARGE, scale), last_channel=_make_divisible(1280 * scale, 8), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


# ---------------------------------------------------------------- Paddle 2.3 level (default)
class Hardsigmoid(nn.Layer):
    """hardsigmoid with an explicit slope/offset (the SE gate uses slope 0.2)."""

    def __init__(self, slope=0.1666667, offset=0.5):
        super().__init__()
        self.slope = slope
        self.offset = offset

    def forward(self, x):
        return F.hardsigmoid(x, slope=self.slope, offset=self.offset)


class _SqueezeExcitation23(nn.Layer):
    def __init__(self, channels, reduction=4):
        super().__init__()
        self.avg_pool = nn.AdaptiveAvgPool2D(1)
        self.conv1 = nn.Conv2D(channels, channels // reduction, 1, stride=1, padding=0)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(channels // reduction, channels, 1, stride=1, padding=0)
        self.hardsigmoid = Hardsigmoid(slope=0.2, offset=0.5)

    def forward(self, x):
        gate = self.hardsigmoid(self.conv2(self.relu(self.conv1(self.avg_pool(x)))))
        return paddle.multiply(x, gate)


class ConvBNLayer(nn.Layer):
    def __init__(self, in_channels, out_channels, filter_size, stride, padding, num_groups=1, act=None):
        super().__init__()
        self.conv = nn.Conv2D(in_channels, out_channels, filter_size, stride=stride, padding=padding,
                              groups=num_groups, bias_attr=False)
        self.bn = BatchNormAct(out_channels, act=None)
        layer = _activation(act)
        self.act = layer() if layer is not None else None

    def forward(self, x):
        x = self.bn(self.conv(x))
        if self.act is not None:
            x = self.act(x)
        return x


class _InvertedResidual23(nn.Layer):
    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se, act=None):
        super().__init__()
        self.if_shortcut = stride == 1 and in_channels == out_channels
        self.if_se = use_se
        self.expand_conv = ConvBNLayer(in_channels, expanded_channels, 1, 1, 0, act=act)
        self.bottleneck_conv = ConvBNLayer(expanded_channels, expanded_channels, filter_size, stride,
                                            int((filter_size - 1) // 2), num_groups=expanded_channels, act=act)
        if use_se:
            self.mid_se = _SqueezeExcitation23(expanded_channels)
        self.linear_conv = ConvBNLayer(expanded_channels, out_channels, 1, 1, 0, act=None)

    def forward(self, x):
        identity = x
        x = self.bottleneck_conv(self.expand_conv(x))
        if self.if_se:
            x = self.mid_se(x)
        x = self.linear_conv(x)
        if self.if_shortcut:
            x = paddle.add(identity, x)
        return x


class _MobileNetV3_23(nn.Layer):
    """Paddle 2.3's MobileNetV3; first in the MRO of the _ERA23 subclasses, so that its forward and
    layout replace the 2.6 network's (its __init__ calls nn.Layer's directly for that reason)."""

    def __init__(self, table, scale=1.0, last_channel=1280, num_classes=1000, with_pool=True):
        nn.Layer.__init__(self)
        config = _configs(table, scale)
        self.config = config
        self.scale = scale
        self.last_channel = last_channel
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.first_in_channels, self.last_expanded_channels, self.last_out_channels = \
            table[0][0], table[-1][2], table[-1][3]  # unscaled
        last_expanded = config[-1].expanded_channels

        self.conv = ConvBNLayer(3, config[0].in_channels, 3, 2, 1, num_groups=1, act="hardswish")
        self.blocks = nn.Sequential(*[
            _InvertedResidual23(c.in_channels, c.expanded_channels, c.out_channels, c.kernel, c.stride, c.use_se,
                                act=c.activation) for c in config])
        self.last_second_conv = ConvBNLayer(config[-1].out_channels, last_expanded, 1, 1, 0, num_groups=1,
                                             act="hardswish")
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.last_conv = nn.Conv2D(last_expanded, last_channel, 1, stride=1, padding=0, bias_attr=False)
            self.hardswish = nn.Hardswish()
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            self.flatten = nn.Flatten(start_axis=1, stop_axis=-1)
            self.fc = nn.Linear(last_channel, num_classes)

    def forward(self, x):
        x = self.last_second_conv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.dropout(self.hardswish(self.last_conv(x)))
            x = self.fc(self.flatten(x))
        return x


@era23(MobileNetV3Small)
class _MobileNetV3Small23(_MobileNetV3_23, MobileNetV3Small):
    def __init__(self, scale=1.0, last_channel=1280, num_classes=1000, with_pool=True):
        _MobileNetV3_23.__init__(self, _SMALL, scale, last_channel, num_classes, with_pool)


@era23(MobileNetV3Large)
class _MobileNetV3Large23(_MobileNetV3_23, MobileNetV3Large):
    def __init__(self, scale=1.0, last_channel=1280, num_classes=1000, with_pool=True):
        _MobileNetV3_23.__init__(self, _LARGE, scale, last_channel, num_classes, with_pool)


# repr and layer names (full_name) of the Paddle 2.3 blocks as before the 2.6 level existed
# (pickle finds classes by __qualname__, which stays)
for _cls, _name in ((_InvertedResidual23, "InvertedResidual"), (_SqueezeExcitation23, "SqueezeExcitation")):
    _cls.__name__ = _name


def _mobilenet_v3(cls, arch, pretrained, scale, **kwargs):
    model = cls(scale=scale, **kwargs)
    if pretrained:
        if isinstance(model, _MobileNetV3_23):  # the file name of Paddle 2.3's published weights
            load_pretrained(model, "MobileNetV3_%s_x%s_pretrained" % (arch, str(scale).replace(".", "_")))
        else:  # Paddle 2.4+'s download name
            load_pretrained(model, "mobilenet_v3_%s_x%s" % (arch, scale))
    return model


def mobilenet_v3_small(pretrained=False, scale=1.0, **kwargs):
    return _mobilenet_v3(MobileNetV3Small, "small", pretrained, scale, **kwargs)


def mobilenet_v3_large(pretrained=False, scale=1.0, **kwargs):
    return _mobilenet_v3(MobileNetV3Large, "large", pretrained, scale, **kwargs)
