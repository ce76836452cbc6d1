"""DenseNet 121/161/169/201/264 (paddle.vision.models.DenseNet and factories), laid out as
in Paddle's model zoo (conv1_func, db_conv_N, tr_convN_blk, batch_norm, out)."""
import math

import paddle
import paddle.nn as nn
from paddle.nn.initializer import Uniform

from ._utils import BatchNormAct, load_pretrained

__all__ = ['DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201', 'densenet264']


class BNACConvLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = BatchNormAct(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad,
                               groups=groups, bias_attr=False)

    def forward(self, x):
        return self._conv(self._batch_norm(x))


class DenseLayer(nn.Layer):
    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, x):
        conv = self.bn_ac_func2(self.bn_ac_func1(x))
        if self.dropout:
            conv = self.dropout_func(conv)
        return paddle.concat([x, conv], axis=1)


class DenseBlock(nn.Layer):
    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dense_layer_func = []
        pre_channel = num_channels
        for layer in range(num_layers):
            self.dense_layer_func.append(self.add_sublayer(
                "{}_{}".format(name, layer + 1), DenseLayer(pre_channel, growth_rate, bn_size, dropout)))
            pre_channel += growth_rate

    def forward(self, x):
        for func in self.dense_layer_func:
            x = func(x)
        return x


class TransitionLayer(nn.Layer):
    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, x):
        return self.pool2d_avg(self.conv_ac_func(x))


class ConvBNLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad,
                               groups=groups, bias_attr=False)
        self._batch_norm = BatchNormAct(num_filters, act=act)

    def forward(self, x):
        return self._batch_norm(self._conv(x))


class DenseNet(nn.Layer):
    def __init__(self, layers=121, bn_size=4, dropout=0., num_classes=1000, with_pool=True):
        super().__init__()
        spec = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
                169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
                264: (64, 32, [6, 12, 64, 48])}
        if layers not in spec:
            raise ValueError("supported layers are {} but input layer is {}".format(sorted(spec), layers))
        self.num_classes = num_classes
        self.with_pool = with_pool
        num_init_features, growth_rate, block_config = spec[layers]
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3, act='relu')
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.dense_block_func_list.append(self.add_sublayer(
                "db_conv_{}".format(i + 2),
                DenseBlock(num_features, num_layers, bn_size, growth_rate, dropout, name='conv' + str(i + 2))))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.transition_func_list.append(self.add_sublayer(
                    "tr_conv{}_blk".format(i + 2), TransitionLayer(num_features, num_features // 2)))
                num_features //= 2
        self.batch_norm = BatchNormAct(num_features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features * 1.0)
            self.out = nn.Linear(num_features, num_classes,
                                 weight_attr=paddle.ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.pool2d_max(self.conv1_func(x))
        for i in range(len(self.block_config)):
            x = self.dense_block_func_list[i](x)
            if i != len(self.block_config) - 1:
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = paddle.flatten(x, start_axis=1, stop_axis=-1)
            x = self.out(x)
        return x


def _densenet(layers, pretrained, **kwargs):
    model = DenseNet(layers=layers, **kwargs)
    if pretrained:
        load_pretrained(model, "DenseNet%d_pretrained" % layers, "densenet%d" % layers)
    return model


def densenet121(pretrained=False, **kwargs):
    return _densenet(121, pretrained, **kwargs)


def densenet161(pretrained=False, **kwargs):
    return _densenet(161, pretrained, **kwargs)


def densenet169(pretrained=False, **kwargs):
    return _densenet(169, pretrained, **kwargs)


def densenet201(pretrained=False, **kwargs):
    return _densenet(201, pretrained, **kwargs)


def densenet264(pretrained=False, **kwargs):
    return _densenet(264, pretrained, **kwargs)
