"""Common layers (Paddle 2.3's nn.layer.common): Linear, Bilinear, Embedding, Flatten,
Unflatten, Identity, the dropout layers, Upsample and friends, Pad1D/2D/3D, ZeroPad2D,
CosineSimilarity, Unfold/Fold and SpectralNorm. Each wraps its nn.functional form."""
import numpy as np

from ... import _C
from .. import functional as F
from .. import initializer as I
from .layers import Layer
from ...framework.param import Tensor

__all__ = ["Linear", "Bilinear", "Embedding", "Flatten", "Unflatten", "Identity", "Dropout",
           "Dropout2D", "Dropout3D", "AlphaDropout", "Upsample", "UpsamplingNearest2D",
           "UpsamplingBilinear2D", "Pad1D", "Pad2D", "Pad3D", "ZeroPad2D", "CosineSimilarity",
           "Unfold", "Fold", "SpectralNorm"]


class Linear(Layer):
    """y = x @ weight + bias with weight [in_features, out_features] (default init
    XavierUniform via create_parameter; bias zeros; bias_attr=False: no bias)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._in_features, self._out_features = int(in_features), int(out_features)
        self.weight = self.create_parameter([self._in_features, self._out_features], attr=weight_attr,
                                            is_bias=False)
        self.bias = self.create_parameter([self._out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, "
                f"dtype={self._dtype}{name_str}")


class Bilinear(Layer):
    """out = x1^T W x2 + b with weight [out_features, in1_features, in2_features], bias [1, out]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        self._in1_features, self._in2_features = int(in1_features), int(in2_features)
        self._out_features = int(out_features)
        self.weight = self.create_parameter([self._out_features, self._in1_features, self._in2_features],
                                            attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter([1, self._out_features], attr=bias_attr, is_bias=True)
        self._name = name

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}")


class Embedding(Layer):
    """A lookup table [num_embeddings, embedding_dim]; the padding_idx row starts at zero and
    receives no gradient. sparse=True: the weight's gradient is row-sparse (F.embedding)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False, weight_attr=None,
                 name=None):
        super().__init__()
        self._num_embeddings, self._embedding_dim = int(num_embeddings), int(embedding_dim)
        if self._num_embeddings <= 0 or self._embedding_dim <= 0:
            raise ValueError("[Embedding] num_embeddings and embedding_dim must be > 0, received "
                             f"{num_embeddings}, {embedding_dim}")
        self._padding_idx = F.input._padding_idx(padding_idx, self._num_embeddings) \
            if padding_idx is not None else None
        self._sparse = sparse
        self._name = name
        self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim], attr=weight_attr,
                                            is_bias=False)
        if self._padding_idx is not None and not _C._is_variable(self.weight):
            # dygraph zeroes the padding row (as Paddle does; in a program the op outputs zeros)
            import paddle
            with paddle.no_grad():
                w = self.weight.numpy()
                w[self._padding_idx] = 0
                self.weight.set_value(w)

    def forward(self, x):
        return F.embedding(x, self.weight, self._padding_idx, self._sparse)

    def extra_repr(self):
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        if self._sparse:
            s += ", sparse=True"
        return s


class Flatten(Layer):
    """Flattens dims start_axis..stop_axis into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        import paddle
        return paddle.flatten(input, self.start_axis, self.stop_axis)


class Unflatten(Layer):
    """Splits dim axis into shape."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape = int(axis), list(shape)

    def forward(self, input):
        import paddle
        nd = len(input.shape)
        a = self.axis + nd if self.axis < 0 else self.axis
        if not 0 <= a < nd:
            raise ValueError(f"[Unflatten] axis {self.axis} is out of range for a {nd}-D input")
        return paddle.reshape(input, list(input.shape[:a]) + self.shape + list(input.shape[a + 1:]))

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}"


class Identity(Layer):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Dropout(Layer):
    """F.dropout while training (self.training), its inference form in eval mode."""

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p, self.axis, self.mode, self.name = p, axis, mode, name

    def forward(self, input):
        return F.dropout(input, self.p, self.axis, self.training, self.mode)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name_str}"


class Dropout2D(Layer):
    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}"


class Dropout3D(Layer):
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}"


class AlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


class Upsample(Layer):
    """F.interpolate as a layer."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format="NCHW", name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return f"{main}, mode={self.mode}, align_corners={self.align_corners}, " \
               f"align_mode={self.align_mode}, data_format={self.data_format}"


class UpsamplingNearest2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format, name)


class UpsamplingBilinear2D(Upsample):
    """Bilinear resize with align_corners=True."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format, name)


class _PadNd(Layer):
    _nd = 2
    _default_fmt = "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        if data_format is None:
            data_format = self._default_fmt
        # Paddle's _npairs: an int becomes 2 * nd copies; a list, tuple or Tensor goes to F.pad as
        # given (its length and data_format decide which dims it pads, so Pad1D([1, 0, 1, 2],
        # data_format="NCHW") pads a 4-D input as Pad2D would)
        if isinstance(padding, (Tensor, list, tuple)):
            self._pad = padding
        else:
            self._pad = F.common._ints(padding, 2 * self._nd, type(self).__name__, "padding")
        self._mode, self._value, self._data_format, self._name = mode, value, data_format, name

    def forward(self, x):
        return F.pad(x, self._pad, self._mode, self._value, self._data_format)

    def extra_repr(self):
        return f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}"


class Pad1D(_PadNd):
    _nd, _default_fmt = 1, "NCL"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadNd):
    _nd, _default_fmt = 2, "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadNd):
    _nd, _default_fmt = 3, "NCDHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(_PadNd):
    _nd, _default_fmt = 2, "NCHW"

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self._axis, self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class Unfold(Layer):
    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides

    def forward(self, input):
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, " \
               f"stride={self.strides}"


class Fold(Layer):
    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, input):
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, " \
               f"stride={self.strides}"


class SpectralNorm(Layer):
    """forward(weight) = weight / sigma, sigma the largest singular value of weight reshaped
    to [shape[dim], -1], estimated by power_iters power iterations on the buffers-like
    parameters weight_u, weight_v (not trainable)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        self._power_iters, self._eps, self._dim = int(power_iters), float(eps), int(dim)
        shape = list(weight_shape)
        if not 0 <= self._dim < len(shape):
            raise ValueError(f"[SpectralNorm] dim must be in [0, {len(shape)}), received {dim}")
        h = shape[self._dim]
        w = int(np.prod(shape)) // h
        self.weight_u = self.create_parameter([h], default_initializer=I.Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], default_initializer=I.Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, weight):
        from ..utils.spectral_norm_hook import _spectral_normalize
        return _spectral_normalize(weight, self.weight_u, self.weight_v, self._dim, self._power_iters,
                                   self._eps)
