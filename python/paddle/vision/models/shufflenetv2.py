"""ShuffleNetV2 at every width Paddle offers, with relu or swish (paddle.vision.models
ShuffleNetV2, shufflenet_v2_x0_25 .. x2_0, shufflenet_v2_swish); sublayers named _conv1,
2_1 .. 4_4, _last_conv, _fc as in Paddle's model zoo."""
import paddle
import paddle.nn as nn

from ._utils import ConvNormActivation, load_pretrained

__all__ = ['ShuffleNetV2', 'shufflenet_v2_x0_25', 'shufflenet_v2_x0_33', 'shufflenet_v2_x0_5',
           'shufflenet_v2_x1_0', 'shufflenet_v2_x1_5', 'shufflenet_v2_x2_0', 'shufflenet_v2_swish']


def create_activation_layer(act):
    if act == "swish":
        return nn.Swish
    if act == "relu":
        return nn.ReLU
    if act is None:
        return None
    raise RuntimeError("The activation function is not supported: {}".format(act))


def channel_shuffle(x, groups):
    b, c, h, w = x.shape
    x = paddle.reshape(x, [b, groups, c // groups, h, w])
    x = paddle.transpose(x, [0, 2, 1, 3, 4])
    return paddle.reshape(x, [b, c, h, w])


class InvertedResidual(nn.Layer):
    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels // 2, half, 1, 1, 0, activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(half, half, 3, stride, 1, groups=half, activation_layer=None)
        self._conv_linear = ConvNormActivation(half, half, 1, 1, 0, activation_layer=activation_layer)

    def forward(self, inputs):
        c = inputs.shape[1]
        x1, x2 = paddle.split(inputs, num_or_sections=[c // 2, c // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(paddle.concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, 3, stride, 1, groups=in_channels,
                                             activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, half, 1, 1, 0, activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels, half, 1, 1, 0, activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(half, half, 3, stride, 1, groups=half, activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(half, half, 1, 1, 0, activation_layer=activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(paddle.concat([x1, x2], axis=1), 2)


_STAGE_OUT = {0.25: [-1, 24, 24, 48, 96, 512], 0.33: [-1, 24, 32, 64, 128, 512],
              0.5: [-1, 24, 48, 96, 192, 1024], 1.0: [-1, 24, 116, 232, 464, 1024],
              1.5: [-1, 24, 176, 352, 704, 1024], 2.0: [-1, 24, 224, 488, 976, 2048]}


class ShuffleNetV2(nn.Layer):
    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _STAGE_OUT:
            raise NotImplementedError("This scale size:[" + str(scale) + "] is not implemented!")
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        stage_repeats = [4, 8, 4]
        activation_layer = create_activation_layer(act)
        out = _STAGE_OUT[scale]
        self._conv1 = ConvNormActivation(3, out[1], 3, 2, 1, activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage_id, num_repeat in enumerate(stage_repeats):
            for i in range(num_repeat):
                if i == 0:
                    block = InvertedResidualDS(out[stage_id + 1], out[stage_id + 2], 2, activation_layer)
                else:
                    block = InvertedResidual(out[stage_id + 2], out[stage_id + 2], 1, activation_layer)
                self._block_list.append(self.add_sublayer(str(stage_id + 2) + "_" + str(i + 1), block))
        self._last_conv = ConvNormActivation(out[-2], out[-1], 1, 1, 0, activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = out[-1]
            self._fc = nn.Linear(out[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for inv in self._block_list:
            x = inv(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = paddle.flatten(x, start_axis=1, stop_axis=-1)
            x = self._fc(x)
        return x


def _shufflenet(arch, scale, act, pretrained, **kwargs):
    model = ShuffleNetV2(scale=scale, act=act, **kwargs)
    if pretrained:
        load_pretrained(model, arch)
    return model


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x0_25", 0.25, "relu", pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x0_33", 0.33, "relu", pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x0_5", 0.5, "relu", pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x1_0", 1.0, "relu", pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x1_5", 1.5, "relu", pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x2_0", 2.0, "relu", pretrained, **kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_swish", 1.0, "swish", pretrained, **kwargs)
