"""Normalization layers (Paddle 2.3): BatchNorm, BatchNorm1D/2D/3D, SyncBatchNorm (one process:
BatchNorm), LayerNorm, GroupNorm, InstanceNorm1D/2D/3D, LocalResponseNorm. BatchNorm keeps
`_mean` / `_variance` as non-trainable parameters updated in place during training."""
from ... import _C  # noqa: F401
from .. import functional as F
from ..functional.norm import group_norm as _group_norm
from ..initializer import Constant
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]


class _BatchNormBase(Layer):
    _fmts = ("NCHW", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None, _dtype=None):
        # the parameters' dtype: the default dtype, float32 when that is float16 (as Paddle's
        # _BatchNormBase; the fluid-style BatchNorm passes its dtype argument)
        from ...framework.dtype import get_default_dtype
        dt = _dtype or get_default_dtype()
        super().__init__(dtype="float32" if dt == "float16" else dt)
        if data_format not in self._fmts:
            raise ValueError(f"data_format must be one of {self._fmts}, received {data_format!r}")
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats = data_format, use_global_stats
        self.weight = self.create_parameter([num_features], dtype=self._dtype, attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], dtype=self._dtype, attr=bias_attr, is_bias=True,
                                          default_initializer=Constant(0.0))
        if weight_attr is False and self.weight is None:
            pass
        self._mean = self.create_parameter([num_features], dtype=self._dtype, default_initializer=Constant(0.0))
        self._mean.stop_gradient = True
        self._variance = self.create_parameter([num_features], dtype=self._dtype, default_initializer=Constant(1.0))
        self._variance.stop_gradient = True
        for p in (self._mean, self._variance):
            try:
                p.trainable = False
            except AttributeError:
                pass

    def forward(self, x):
        return F.batch_norm(x, self._mean, self._variance, self.weight, self.bias, self.training, self._momentum,
                            self._epsilon, self._data_format, self._use_global_stats)

    def extra_repr(self):
        return f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"


class BatchNorm1D(_BatchNormBase):
    _fmts = ("NC", "NCL", "NLC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats)


class BatchNorm2D(_BatchNormBase):
    _fmts = ("NCHW", "NHWC")


class BatchNorm3D(_BatchNormBase):
    _fmts = ("NCDHW", "NDHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats)


class SyncBatchNorm(_BatchNormBase):
    """BatchNorm whose training statistics cover the global batch of all ranks of a
    paddle.distributed job (paddle/distributed/_sync_bn.py); one process: BatchNorm."""
    _fmts = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")

    def forward(self, x):
        if self.training and not self._use_global_stats:
            from ...distributed import parallel
            if parallel.is_initialized() and parallel.get_world_size() > 1:
                from ...distributed._sync_bn import sync_batch_norm
                return sync_batch_norm(self, x)
        return super().forward(x)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """layer with every BatchNorm1D/2D/3D (sub)layer replaced by a SyncBatchNorm sharing its
        parameters and statistics."""
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            new = cls(layer._num_features, layer._momentum, layer._epsilon, data_format=layer._data_format,
                      use_global_stats=layer._use_global_stats)
            for n in ("weight", "bias", "_mean", "_variance"):
                setattr(new, n, getattr(layer, n))
            new.training = layer.training
            return new
        for name, sub in list(layer._sub_layers.items()):
            if sub is not None:
                layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class BatchNorm(Layer):
    """The fluid-style BatchNorm(num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, ...)."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__()
        # the helper holds the settings; it is not a sublayer, so state_dict has each tensor once
        # under Paddle's keys (weight, bias, _mean, _variance)
        # dtype: of weight, bias, mean and variance (float16 keeps them float32), as Paddle's BatchNorm
        from ...framework.dtype import convert_dtype
        pdt = convert_dtype(dtype)
        object.__setattr__(self, "_bn", _BatchNormBase(num_channels, momentum, epsilon, param_attr,
                                                       bias_attr, data_layout, use_global_stats or None,
                                                       _dtype="float32" if pdt == "float16" else pdt))
        self.weight, self.bias = self._bn.weight, self._bn.bias
        self._mean, self._variance = self._bn._mean, self._bn._variance
        self._act, self._is_test, self._trainable_statistics = act, is_test, bool(trainable_statistics)

    def forward(self, x):
        # trainable_statistics: batch statistics (and their running update) in eval mode too, as
        # Paddle's kernel (test_mode = is_test && !trainable_statistics)
        training = (self.training and not self._is_test) or self._trainable_statistics
        out = F.batch_norm(x, self._mean, self._variance, self.weight, self.bias, training, self._bn._momentum,
                           self._bn._epsilon, self._bn._data_format, self._bn._use_global_stats)
        if self._act:
            import paddle.nn.functional as PF
            out = getattr(PF, self._act)(out)
        return out


class LayerNorm(Layer):
    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape, self._epsilon = list(normalized_shape), epsilon
        n = 1
        for v in normalized_shape:
            n *= v
        self.weight = self.create_parameter([n], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([n], attr=bias_attr, is_bias=True, default_initializer=Constant(0.0))

    def forward(self, x):
        return F.layer_norm(x, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self._num_groups, self._num_channels, self._epsilon, self._data_format = (num_groups, num_channels, epsilon,
                                                                                  data_format)
        # weight_attr / bias_attr False: still a (frozen) parameter of ones / zeros, in state_dict, as Paddle
        self.weight = self.create_parameter([num_channels], attr=None if weight_attr is False else weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_channels], attr=None if bias_attr is False else bias_attr,
                                          is_bias=True, default_initializer=Constant(0.0))
        if weight_attr is False:
            self.weight.stop_gradient = True
        if bias_attr is False:
            self.bias.stop_gradient = True

    def forward(self, x):
        return _group_norm(x, self._num_groups, self.weight, self.bias, self._epsilon, self._data_format)


class _InstanceNormBase(Layer):
    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__()
        self._epsilon, self._data_format = epsilon, data_format
        if weight_attr is False or bias_attr is False:
            self.scale = self.bias = None
        else:
            self.scale = self.create_parameter([num_features], attr=weight_attr, default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True,
                                              default_initializer=Constant(0.0))

    def forward(self, x):
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self._epsilon)


class InstanceNorm1D(_InstanceNormBase):
    pass


class InstanceNorm2D(_InstanceNormBase):
    pass


class InstanceNorm3D(_InstanceNormBase):
    pass


class LocalResponseNorm(Layer):
    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.a = (size, alpha, beta, k, data_format)

    def forward(self, x):
        return F.local_response_norm(x, *self.a)
