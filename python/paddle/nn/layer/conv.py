"""Convolution layers (Paddle 2.3): Conv1D/2D/3D and Conv1DTranspose/2D/3D. Weights default to
Paddle's Normal(0, sqrt(2 / (in_channels * prod(kernel)))) (transposed: XavierUniform); bias 0.
padding_mode 'reflect' / 'replicate' / 'circular' (int padding) pads the input with F.pad and
convolves without padding, as Paddle does; transposed convolutions ignore padding_mode."""
import numpy as np

from .. import functional as F
from ..initializer import Constant, Normal, XavierUniform
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]


class _ConvNd(Layer):
    _n = 2
    _transpose = False
    _fmts = ("NCHW", "NHWC")

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format=None, output_padding=0):
        super().__init__()
        data_format = data_format or self._fmts[0]
        if data_format not in self._fmts:
            raise ValueError(f"data_format must be one of {self._fmts}, received {data_format!r}")
        modes = ("zeros", "reflect", "replicate", "circular")
        if padding_mode not in modes:
            raise ValueError(f"padding_mode must be one of {set(modes)}, but got padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and (not isinstance(padding, (int, np.integer)) or isinstance(padding, bool)):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type of padding must be int")
        if in_channels % groups or (not self._transpose and out_channels % groups):
            raise ValueError("in_channels and out_channels must be divisible by groups")
        n = self._n
        ks = [kernel_size] * n if isinstance(kernel_size, int) else list(kernel_size)
        self._in_channels, self._out_channels, self._kernel_size = in_channels, out_channels, ks
        self._stride, self._padding, self._dilation, self._groups = stride, padding, dilation, groups
        self._output_padding, self._data_format, self._padding_mode = output_padding, data_format, padding_mode
        if self._transpose:
            shape = [in_channels, out_channels // groups] + ks
        else:
            shape = [out_channels, in_channels // groups] + ks
        # Paddle 2.3 _ConvNd: Normal(0, sqrt(2 / (prod(kernel) * in_channels))); transposed: the
        # framework default (XavierUniform)
        init = XavierUniform() if self._transpose else Normal(0.0, (2.0 / (int(np.prod(ks)) * in_channels)) ** 0.5)
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=init)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True,
                                          default_initializer=Constant(0.0))

    def _pre_pad(self, x):
        """(input, conv padding): non-'zeros' padding modes pad the input themselves."""
        if self._padding_mode == "zeros":
            return x, self._padding
        return F.pad(x, [int(self._padding)] * (2 * self._n), mode=self._padding_mode,
                     data_format=self._data_format), 0

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}, data_format={self._data_format}")


class Conv1D(_ConvNd):
    _n, _fmts = 1, ("NCL", "NLC")

    def forward(self, x):
        x, padding = self._pre_pad(x)
        return F.conv1d(x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups,
                        self._data_format)


class Conv2D(_ConvNd):
    _n, _fmts = 2, ("NCHW", "NHWC")

    def forward(self, x):
        x, padding = self._pre_pad(x)
        return F.conv2d(x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups,
                        self._data_format)


class Conv3D(_ConvNd):
    _n, _fmts = 3, ("NCDHW", "NDHWC")

    def forward(self, x):
        x, padding = self._pre_pad(x)
        return F.conv3d(x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups,
                        self._data_format)


class _ConvTransposeNd(_ConvNd):
    _transpose = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, "zeros",
                         weight_attr, bias_attr, data_format, output_padding)


class Conv1DTranspose(_ConvTransposeNd):
    _n, _fmts = 1, ("NCL", "NLC")

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, self.bias, self._stride, self._padding, self._output_padding,
                                  self._groups, self._dilation, output_size, self._data_format)


class Conv2DTranspose(_ConvTransposeNd):
    _n, _fmts = 2, ("NCHW", "NHWC")

    def forward(self, x, output_size=None):
        return F.conv2d_transpose(x, self.weight, self.bias, self._stride, self._padding, self._output_padding,
                                  self._dilation, self._groups, output_size, self._data_format)


class Conv3DTranspose(_ConvTransposeNd):
    _n, _fmts = 3, ("NCDHW", "NDHWC")

    def forward(self, x, output_size=None):
        return F.conv3d_transpose(x, self.weight, self.bias, self._stride, self._padding, self._output_padding,
                                  self._groups, self._dilation, output_size, self._data_format)
