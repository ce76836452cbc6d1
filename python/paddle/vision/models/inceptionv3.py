"""Inception v3 (paddle.vision.models.InceptionV3 / inception_v3), laid out as in Paddle's
model zoo (inception_stem, inception_block_list, fc). Smallest input is 75x75. Its conv blocks are
those of the API level in force when the model is built (FLAGS_set_to_1d, see _utils.ByApiLevel):
Paddle 2.4+'s ConvNormActivation (`...conv_1a_3x3.0.weight`, `...1._mean`, real Paddle 2.6.2's
state_dict) with the flag off, Paddle 2.3's ConvBNLayer (`...conv_1a_3x3.conv.weight`, `...bn._mean`,
the names of its published weights) otherwise. The same tensors: set_state_dict takes either layout
at either level."""
import math
from functools import partial

import paddle
import paddle.nn as nn
from paddle.nn.initializer import Uniform

from ._utils import (BatchNormAct, ByApiLevel, ConvNormActivation, ConvNormActivationKeys, era23,
                     load_pretrained)

__all__ = ['InceptionV3', 'inception_v3']


class ConvBNLayer(nn.Layer):
    """conv (no bias) -> BatchNorm -> ReLU, keyed conv.* / bn.* like Paddle 2.3's weights."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0, groups=1, act="relu"):
        super().__init__()
        self.act = act
        self.conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=padding,
                              groups=groups, bias_attr=False)
        self.bn = BatchNormAct(num_filters)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.bn(self.conv(x))
        if self.act:
            x = self.relu(x)
        return x


def _cna(block):
    """The conv-norm-ReLU block of the level: (cin, cout, kernel, stride=1, padding=0)."""
    return partial(block, stride=1, padding=0)


class InceptionStem(nn.Layer):
    def __init__(self, block=ConvNormActivation):
        super().__init__()
        _c = _cna(block)
        self.conv_1a_3x3 = _c(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _c(32, 32, 3)
        self.conv_2b_3x3 = _c(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _c(64, 80, 1)
        self.conv_4a_3x3 = _c(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    def __init__(self, num_channels, pool_features, block=ConvNormActivation):
        super().__init__()
        _c = _cna(block)
        self.branch1x1 = _c(num_channels, 64, 1)
        self.branch5x5_1 = _c(num_channels, 48, 1)
        self.branch5x5_2 = _c(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _c(num_channels, 64, 1)
        self.branch3x3dbl_2 = _c(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _c(96, 96, 3, padding=1)
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _c(num_channels, pool_features, 1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        bp = self.branch_pool_conv(self.branch_pool(x))
        return paddle.concat([b1, b5, b3, bp], axis=1)


class InceptionB(nn.Layer):
    def __init__(self, num_channels, block=ConvNormActivation):
        super().__init__()
        _c = _cna(block)
        self.branch3x3 = _c(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _c(num_channels, 64, 1)
        self.branch3x3dbl_2 = _c(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _c(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3(x)
        bd = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return paddle.concat([b3, bd, self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    def __init__(self, num_channels, channels_7x7, block=ConvNormActivation):
        super().__init__()
        _c = _cna(block)
        c7 = channels_7x7
        self.branch1x1 = _c(num_channels, 192, 1)
        self.branch7x7_1 = _c(num_channels, c7, 1)
        self.branch7x7_2 = _c(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _c(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _c(num_channels, c7, 1)
        self.branch7x7dbl_2 = _c(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _c(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _c(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _c(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _c(num_channels, 192, 1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bd = self.branch7x7dbl_1(x)
        bd = self.branch7x7dbl_5(self.branch7x7dbl_4(self.branch7x7dbl_3(self.branch7x7dbl_2(bd))))
        bp = self.branch_pool_conv(self.branch_pool(x))
        return paddle.concat([b1, b7, bd, bp], axis=1)


class InceptionD(nn.Layer):
    def __init__(self, num_channels, block=ConvNormActivation):
        super().__init__()
        _c = _cna(block)
        self.branch3x3_1 = _c(num_channels, 192, 1)
        self.branch3x3_2 = _c(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _c(num_channels, 192, 1)
        self.branch7x7x3_2 = _c(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _c(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _c(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return paddle.concat([b3, b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    def __init__(self, num_channels, block=ConvNormActivation):
        super().__init__()
        _c = _cna(block)
        self.branch1x1 = _c(num_channels, 320, 1)
        self.branch3x3_1 = _c(num_channels, 384, 1)
        self.branch3x3_2a = _c(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _c(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _c(num_channels, 448, 1)
        self.branch3x3dbl_2 = _c(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _c(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _c(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _c(num_channels, 192, 1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b3 = self.branch3x3_1(x)
        b3 = paddle.concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        bd = paddle.concat([self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd)], axis=1)
        bp = self.branch_pool_conv(self.branch_pool(x))
        return paddle.concat([b1, b3, bd, bp], axis=1)


class InceptionV3(ConvNormActivationKeys, nn.Layer, metaclass=ByApiLevel):
    _STEM = "inception_stem.conv_1a_3x3"
    _BLOCK = ConvNormActivation

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.inception_a_list = [[192, 256, 288], [32, 64, 64]]
        self.inception_c_list = [[768, 768, 768, 768], [128, 160, 160, 192]]
        self.inception_stem = InceptionStem(self._BLOCK)
        self.inception_block_list = nn.LayerList()
        for cin, pf in zip(*self.inception_a_list):
            self.inception_block_list.append(InceptionA(cin, pf, self._BLOCK))
        self.inception_block_list.append(InceptionB(288, self._BLOCK))
        for cin, c7 in zip(*self.inception_c_list):
            self.inception_block_list.append(InceptionC(cin, c7, self._BLOCK))
        self.inception_block_list.append(InceptionD(768, self._BLOCK))
        self.inception_block_list.append(InceptionE(1280, self._BLOCK))
        self.inception_block_list.append(InceptionE(2048, self._BLOCK))
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=paddle.ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = paddle.reshape(x, shape=[-1, 2048])
            x = self.fc(self.dropout(x))
        return x


@era23(InceptionV3)
class _InceptionV3_23(InceptionV3):
    """Paddle 2.3's layout of the same network (ConvBNLayer blocks)."""
    _BLOCK = ConvBNLayer


def inception_v3(pretrained=False, **kwargs):
    model = InceptionV3(**kwargs)
    if pretrained:
        load_pretrained(model, "InceptionV3_pretrained", "inception_v3")
    return model
