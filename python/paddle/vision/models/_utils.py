"""Shared pieces of the vision model zoo: the conv-norm-activation block, the channel
rounding rule of the MobileNets, and loading pretrained weights from Paddle's local cache
(~/.cache/paddle/hapi/weights); nothing is ever downloaded."""
import inspect
import os
import re
import warnings

import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle import _C

WEIGHTS_HOME = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "hapi", "weights")


# ---------------------------------------------------------------- networks built per API level
class ByApiLevel(type):
    """Metaclass of a public model class whose network depends on the API level in force at
    construction (FLAGS_set_to_1d, paddle._C.set_to_1d()). The public class is Paddle 2.6's network;
    with the flag on (Paddle 2.3 level) constructing it builds its `_ERA23` subclass (registered by
    @era23) instead, and a user's subclass gets a derived class (cached) whose MRO is the user's
    methods, then the Paddle 2.3 network, then the public class. isinstance holds at both levels;
    inspect.signature gives the constructor of the level in force."""
    _derived = {}

    def _target(cls):
        if not _C.set_to_1d() or cls._LEVEL == "2.3":
            return cls
        era23 = cls.__dict__.get("_ERA23")
        if era23 is not None:
            return era23
        if cls not in ByApiLevel._derived:
            public = next(c for c in cls.__mro__ if "_ERA23" in c.__dict__)
            ByApiLevel._derived[cls] = type(cls)(cls.__name__, (cls, public._ERA23),
                                                 {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        return ByApiLevel._derived[cls]

    def __call__(cls, *args, **kwargs):
        return type.__call__(cls._target(), *args, **kwargs)

    @property
    def __signature__(cls):
        sig = inspect.signature(cls._target().__init__)
        return sig.replace(parameters=list(sig.parameters.values())[1:])


def era23(public):
    """Class decorator: the decorated class is the Paddle 2.3 network that `public` (a ByApiLevel
    class) builds at the 2.3 level; it shows public's name (repr, layer names; pickle goes by
    __qualname__, which stays)."""
    def register(cls):
        cls._LEVEL = "2.3"
        cls.__name__ = public.__name__
        public._ERA23 = cls
        return cls
    return register


class LevelCheckpoints:
    """set_state_dict / set_dict / load_dict as nn.Layer's for a model built per API level. _PROBES:
    level -> a key only that level's layout has; a checkpoint in the other level's layout goes
    through _from_layout(level, state_dict), which by default keeps the keys (nn.Layer's missing /
    unexpected keys follow) and warns once, naming FLAGS_set_to_1d (_LAYOUT_TEXT: level -> the
    layout in words)."""
    _LEVEL = "2.6"
    _PROBES = {}
    _LAYOUT_TEXT = {}
    _FLAG_TEXT = {"2.6": "with FLAGS_set_to_1d off (Paddle 2.6 level: environment FLAGS_set_to_1d=0 or "
                         "paddle.set_flags({'FLAGS_set_to_1d': False}) before building the model)",
                  "2.3": "with FLAGS_set_to_1d on (the default Paddle 2.3 level)"}

    def set_state_dict(self, state_dict, use_structured_name=True):
        other = "2.3" if self._LEVEL == "2.6" else "2.6"
        if (use_structured_name and isinstance(state_dict, dict) and self._PROBES[other] in state_dict
                and self._PROBES[self._LEVEL] not in state_dict):
            state_dict = self._from_layout(other, state_dict)
        return super().set_state_dict(state_dict, use_structured_name)

    def _from_layout(self, level, state_dict):
        warnings.warn("set_state_dict: the keys are " + self._LAYOUT_TEXT[level] + ", which this build "
                      "makes " + self._FLAG_TEXT[level] + "; this model was built as Paddle " + self._LEVEL
                      + "'s network, so they do not load into it", stacklevel=3)
        return state_dict

    def set_dict(self, state_dict, use_structured_name=True):
        return self.set_state_dict(state_dict, use_structured_name)

    load_dict = set_dict


class ConvNormActivationKeys(LevelCheckpoints):
    """A model whose two levels are the same tensors under other names: Paddle 2.3's conv-BN blocks
    keyed `<block>.<conv>.weight`, `<block>.<norm>.{weight,bias,_mean,_variance}` (the names of
    Paddle 2.3's published weights) and Paddle 2.4+'s ConvNormActivation blocks (`<block>.0.weight`,
    `<block>.1._mean`). A checkpoint in the other layout is renamed and loads at either level.
    _CNA_NAMES = (conv, norm): the 2.3 block's sublayer names; _STEM: the first block's name."""
    _CNA_NAMES = ("conv", "bn")
    _STEM = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        conv = cls._CNA_NAMES[0]
        cls._PROBES = {"2.6": cls._STEM + ".0.weight", "2.3": "{}.{}.weight".format(cls._STEM, conv)}

    def _from_layout(self, level, state_dict):
        names = {"2.6": ("0", "1"), "2.3": self._CNA_NAMES}
        (conv, norm), (to_conv, to_norm) = names[level], names[self._LEVEL]

        def rename(k):
            k = re.sub(r"\.%s\.weight$" % conv, ".%s.weight" % to_conv, k)
            return re.sub(r"\.%s\.(weight|bias|_mean|_variance)$" % norm, r".%s.\1" % to_norm, k)
        return {rename(k): v for k, v in state_dict.items()}


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
