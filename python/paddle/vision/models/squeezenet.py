"""SqueezeNet 1.0 and 1.1 (paddle.vision.models.SqueezeNet, squeezenet1_0/1_1), with the
_conv, _conv1.._conv9 fire-module layout of Paddle's model zoo."""
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from ._utils import load_pretrained

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']


class MakeFireConv(nn.Layer):
    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return paddle.concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError("supported SqueezeNet versions are '1.0' and '1.1', got %r" % (version,))
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
            first = 96
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
            first = 64
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self._conv1 = MakeFire(first, 16, 64, 64)
        self._conv2 = MakeFire(128, 16, 64, 64)
        self._conv3 = MakeFire(128, 32, 128, 128)
        self._conv4 = MakeFire(256, 32, 128, 128)
        self._conv5 = MakeFire(256, 48, 192, 192)
        self._conv6 = MakeFire(384, 48, 192, 192)
        self._conv7 = MakeFire(384, 64, 256, 256)
        self._conv8 = MakeFire(512, 64, 256, 256)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        if with_pool:
            self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        if self.version == "1.0":
            x = self._conv3(self._conv2(self._conv1(x)))
            x = self._pool(x)
            x = self._conv7(self._conv6(self._conv5(self._conv4(x))))
            x = self._pool(x)
            x = self._conv8(x)
        else:
            x = self._pool(self._conv2(self._conv1(x)))
            x = self._pool(self._conv4(self._conv3(x)))
            x = self._conv8(self._conv7(self._conv6(self._conv5(x))))
        if self.num_classes > 0:
            x = F.relu(self._conv9(self._drop(x)))
        if self.with_pool:
            x = self._avg_pool(x)
            x = paddle.squeeze(x, axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    model = SqueezeNet("1.0", **kwargs)
    if pretrained:
        load_pretrained(model, "SqueezeNet1_0_pretrained", "squeezenet1_0")
    return model


def squeezenet1_1(pretrained=False, **kwargs):
    model = SqueezeNet("1.1", **kwargs)
    if pretrained:
        load_pretrained(model, "SqueezeNet1_1_pretrained", "squeezenet1_1")
    return model
