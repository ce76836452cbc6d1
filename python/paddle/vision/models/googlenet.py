"""GoogLeNet / Inception v1 (paddle.vision.models.GoogLeNet / googlenet). As in Paddle it
returns [out, aux1, aux2]; the auxiliary heads expect 224x224-class inputs (128x3x3 features).
Sublayer names (_conv, _ince3a .. _ince5b, _fc_out, _out1, _out2 ...) follow Paddle's zoo."""
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.nn.initializer import Uniform

from ._utils import load_pretrained

__all__ = ['GoogLeNet', 'googlenet']


def xavier(channels, filter_size):
    stdv = (3.0 / (filter_size ** 2 * channels)) ** 0.5
    return paddle.ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)

    def forward(self, x):
        return self._conv(x)


class Inception(nn.Layer):
    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R,
                 filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, x):
        cat = paddle.concat([self._conv1(x), self._conv3(self._conv3r(x)),
                             self._conv5(self._conv5r(x)), self._convprj(self._pool(x))], axis=1)
        return F.relu(cat)


class GoogLeNet(nn.Layer):
    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        self._ince3a = Inception(192, 192, 64, 96, 128, 16, 32, 32)
        self._ince3b = Inception(256, 256, 128, 128, 192, 32, 96, 64)
        self._ince4a = Inception(480, 480, 192, 96, 208, 16, 48, 64)
        self._ince4b = Inception(512, 512, 160, 112, 224, 24, 64, 64)
        self._ince4c = Inception(512, 512, 128, 128, 256, 24, 64, 64)
        self._ince4d = Inception(512, 512, 112, 144, 288, 32, 64, 64)
        self._ince4e = Inception(528, 528, 256, 160, 320, 32, 128, 128)
        self._ince5a = Inception(832, 832, 256, 160, 320, 32, 128, 128)
        self._ince5b = Inception(832, 832, 384, 192, 384, 48, 128, 128)
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))

    def forward(self, inputs):
        x = self._pool(self._conv(inputs))
        x = self._pool(self._conv_2(self._conv_1(x)))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        ince5b = self._ince5b(self._ince5a(x))
        out, out1, out2 = ince5b, ince4a, ince4d
        if self.with_pool:
            out = self._pool_5(out)
            out1 = self._pool_o1(out1)
            out2 = self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(paddle.squeeze(self._drop(out), axis=[2, 3]))
            out1 = paddle.flatten(self._conv_o1(out1), start_axis=1, stop_axis=-1)
            out1 = self._out1(self._drop_o1(F.relu(self._fc_o1(out1))))
            out2 = paddle.flatten(self._conv_o2(out2), start_axis=1, stop_axis=-1)
            # Paddle's second auxiliary head has no relu after _fc_o2 (the first has one)
            out2 = self._out2(self._drop_o2(self._fc_o2(out2)))
        return [out, out1, out2]


def googlenet(pretrained=False, **kwargs):
    model = GoogLeNet(**kwargs)
    if pretrained:
        load_pretrained(model, "GoogLeNet_pretrained", "googlenet")
    return model
