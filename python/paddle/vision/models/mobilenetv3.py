"""MobileNetV3 small and large (paddle.vision.models.MobileNetV3Small/Large and
mobilenet_v3_small/large) with squeeze-excitation blocks, laid out as in Paddle's model zoo
(conv, blocks, lastconv, classifier)."""
from functools import partial

import paddle
import paddle.nn as nn

from ._utils import ConvNormActivation, _make_divisible, load_pretrained

__all__ = ['MobileNetV3Small', 'MobileNetV3Large', 'mobilenet_v3_small', 'mobilenet_v3_large']


class SqueezeExcitation(nn.Layer):
    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return scale * x


class InvertedResidualConfig:
    def __init__(self, in_channels, kernel, expanded_channels, out_channels, use_se, activation,
                 stride, scale=1.0):
        self.in_channels = self.adjust_channels(in_channels, scale)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, scale)
        self.out_channels = self.adjust_channels(out_channels, scale)
        self.use_se = use_se
        self.activation_layer = {None: None, "relu": nn.ReLU, "hardswish": nn.Hardswish}[activation]
        self.stride = stride

    @staticmethod
    def adjust_channels(channels, scale=1.0):
        return _make_divisible(channels * scale, 8)


class InvertedResidual(nn.Layer):
    def __init__(self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se,
                 activation_layer, norm_layer):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se = use_se
        self.expand = in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(in_channels, expanded_channels, 1, 1, 0,
                                                  norm_layer=norm_layer, activation_layer=activation_layer)
        self.bottleneck_conv = ConvNormActivation(
            expanded_channels, expanded_channels, filter_size, stride, int((filter_size - 1) // 2),
            groups=expanded_channels, norm_layer=norm_layer, activation_layer=activation_layer)
        if use_se:
            self.mid_se = SqueezeExcitation(expanded_channels, _make_divisible(expanded_channels // 4),
                                            scale_activation=nn.Hardsigmoid)
        self.linear_conv = ConvNormActivation(expanded_channels, out_channels, 1, 1, 0,
                                              norm_layer=norm_layer, activation_layer=None)

    def forward(self, x):
        identity = x
        if self.expand:
            x = self.expand_conv(x)
        x = self.bottleneck_conv(x)
        if self.use_se:
            x = self.mid_se(x)
        x = self.linear_conv(x)
        if self.use_res_connect:
            x = x + identity
        return x


class MobileNetV3(nn.Layer):
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
            InvertedResidual(c.in_channels, c.expanded_channels, c.out_channels, c.kernel, c.stride,
                             c.use_se, c.activation_layer, norm_layer) for c in config])
        self.lastconv = ConvNormActivation(self.lastconv_in_channels, self.lastconv_out_channels, 1, 1, 0,
                                           norm_layer=norm_layer, activation_layer=nn.Hardswish)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(self.lastconv_out_channels, self.last_channel), nn.Hardswish(),
                nn.Dropout(p=0.2), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = paddle.flatten(x, 1)
            x = self.classifier(x)
        return x


class MobileNetV3Small(MobileNetV3):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        rows = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
                (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
                (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
                (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
                (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
                (96, 5, 576, 96, True, "hardswish", 1)]
        config = [InvertedResidualConfig(*r, scale=scale) for r in rows]
        super().__init__(config, _make_divisible(1024 * scale, 8), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


class MobileNetV3Large(MobileNetV3):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        rows = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2),
                (24, 3, 72, 24, False, "relu", 1), (24, 5, 72, 40, True, "relu", 2),
                (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
                (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
                (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
                (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
                (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
                (160, 5, 960, 160, True, "hardswish", 1)]
        config = [InvertedResidualConfig(*r, scale=scale) for r in rows]
        super().__init__(config, _make_divisible(1280 * scale, 8), scale=scale,
                         num_classes=num_classes, with_pool=with_pool)


def mobilenet_v3_small(pretrained=False, scale=1.0, **kwargs):
    model = MobileNetV3Small(scale=scale, **kwargs)
    if pretrained:
        load_pretrained(model, "mobilenet_v3_small_x" + str(scale))
    return model


def mobilenet_v3_large(pretrained=False, scale=1.0, **kwargs):
    model = MobileNetV3Large(scale=scale, **kwargs)
    if pretrained:
        load_pretrained(model, "mobilenet_v3_large_x" + str(scale))
    return model
