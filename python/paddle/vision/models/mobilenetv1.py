"""MobileNetV1 with a width multiplier (paddle.vision.models.MobileNetV1 / mobilenet_v1),
named conv1, conv2_1 .. conv6, fc as in Paddle's model zoo, in the layout of the API level in force
when the model is built (FLAGS_set_to_1d, see _utils.ByApiLevel): Paddle 2.4+'s ConvNormActivation
blocks (`conv1.0.weight`, `conv1.1._mean`, real Paddle 2.6.2's state_dict) with the flag off, Paddle
2.3's ConvBNLayer blocks (`conv1._conv.weight`, `conv1._norm_layer._mean`, the names of its published
weights) otherwise. The same tensors: set_state_dict takes either layout at either level."""
import paddle
import paddle.nn as nn

from ._utils import ByApiLevel, ConvNormActivation, ConvNormActivationKeys, era23, load_pretrained

__all__ = ['MobileNetV1', 'mobilenet_v1']


class ConvBNLayer(nn.Layer):
    """Paddle 2.3's block: conv (no bias) -> BatchNorm -> ReLU."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride,
                               padding=padding, groups=groups, bias_attr=False)
        self._norm_layer = nn.BatchNorm2D(out_channels)
        self._act = nn.ReLU()

    def forward(self, x):
        return self._act(self._norm_layer(self._conv(x)))


class DepthwiseSeparable(nn.Layer):
    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale,
                 block=ConvNormActivation):
        super().__init__()
        self._depthwise_conv = block(in_channels, int(out_channels1 * scale), 3, stride, 1,
                                     groups=int(num_groups * scale))
        self._pointwise_conv = block(int(out_channels1 * scale), int(out_channels2 * scale), 1, 1, 0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(ConvNormActivationKeys, nn.Layer, metaclass=ByApiLevel):
    _CNA_NAMES = ("_conv", "_norm_layer")
    _STEM = "conv1"
    _BLOCK = ConvNormActivation

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = self._BLOCK(3, int(32 * scale), 3, 2, 1)
        cfg = [("conv2_1", 32, 32, 64, 32, 1), ("conv2_2", 64, 64, 128, 64, 2),
               ("conv3_1", 128, 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 128, 2),
               ("conv4_1", 256, 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 256, 2)]
        cfg += [("conv5_%d" % i, 512, 512, 512, 512, 1) for i in range(1, 6)]
        cfg += [("conv5_6", 512, 512, 1024, 512, 2), ("conv6", 1024, 1024, 1024, 1024, 1)]
        self.dwsl = []
        for name, cin, c1, c2, g, s in cfg:
            self.dwsl.append(self.add_sublayer(
                name, DepthwiseSeparable(int(cin * scale), c1, c2, g, s, scale, self._BLOCK)))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for dws in self.dwsl:
            x = dws(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = paddle.flatten(x, 1)
            x = self.fc(x)
        return x


@era23(MobileNetV1)
class _MobileNetV1_23(MobileNetV1):
    """Paddle 2.3's layout of the same network (ConvBNLayer blocks)."""
    _BLOCK = ConvBNLayer


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    model = MobileNetV1(scale=scale, **kwargs)
    if pretrained:
        load_pretrained(model, "mobilenet_v1_x" + str(scale), "mobilenetv1_" + str(scale))
    return model
