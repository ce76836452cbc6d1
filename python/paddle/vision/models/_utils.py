"""Shared pieces of the vision model zoo: the conv-norm-activation block, the channel
rounding rule of the MobileNets, and loading pretrained weights from Paddle's local cache
(~/.cache/paddle/hapi/weights); nothing is ever downloaded."""
import os
import re

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

WEIGHTS_HOME = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "hapi", "weights")


class LoadsConvNormActivationKeys:
    """A model laid out as Paddle 2.3 (conv-BN blocks keyed `<block>.<conv>.weight` and
    `<block>.<norm>.{weight,bias,_mean,_variance}`, the names of Paddle 2.3's published weights)
    whose set_state_dict also takes Paddle 2.4+'s layout of the same model, where each block is a
    ConvNormActivation (`<block>.0.weight`, `<block>.1._mean`): the same tensors under other names.
    _CNA_NAMES = (conv, norm) sublayer names; _CNA_PROBE: a key only the 2.4+ layout has."""
    _CNA_NAMES = ("conv", "bn")
    _CNA_PROBE = None

    def set_state_dict(self, state_dict, use_structured_name=True):
        if use_structured_name and isinstance(state_dict, dict) and self._CNA_PROBE in state_dict:
            conv, norm = self._CNA_NAMES
            state_dict = {re.sub(r"\.1\.(weight|bias|_mean|_variance)$", rf".{norm}.\1",
                                 re.sub(r"\.0\.weight$", f".{conv}.weight", k)): v for k, v in state_dict.items()}
        return super().set_state_dict(state_dict, use_structured_name)

    def set_dict(self, state_dict, use_structured_name=True):
        return self.set_state_dict(state_dict, use_structured_name)

    load_dict = set_dict


def _make_divisible(v, divisor=8, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvNormActivation(nn.Sequential):
    """Conv2D -> norm -> activation, keyed "0", "1", "2" like paddle.vision.ops.ConvNormActivation."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)


def load_pretrained(model, *names):
    """Loads the first of <name>.pdparams found in Paddle's weights cache into model (names are
    the file names Paddle's downloads use, newest first), or explains where to put the file."""
    paths = [os.path.join(WEIGHTS_HOME, n + ".pdparams") for n in names]
    for path in paths:
        if os.path.exists(path):
            model.set_state_dict(paddle.load(path))
            return model
    raise RuntimeError(
        "pretrained weights '{}' are not available: this build cannot download (no network "
        "here). Put the Paddle weights file {} at {} and call again, or use "
        "pretrained=False.".format(names[0], " or ".join(os.path.basename(p) for p in paths),
                                   WEIGHTS_HOME))


class BatchNormAct(nn.BatchNorm2D):
    """BatchNorm with an optional fused activation (the fluid-style nn.BatchNorm(act=...) used by
    Paddle's zoo); its state_dict keys are weight, bias, _mean, _variance as in Paddle."""

    def __init__(self, num_channels, act=None):
        super().__init__(num_channels)
        self._act_name = act

    def forward(self, x):
        out = super().forward(x)
        if self._act_name:
            out = getattr(F, self._act_name)(out)
        return out
