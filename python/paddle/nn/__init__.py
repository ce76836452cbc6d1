"""paddle.nn: Layer and containers, parameters, the layer families (one module per family
under nn/layer/), functional forms (nn.functional), initializers, gradient clipping."""
from . import functional  # noqa: F401
from . import initializer  # noqa: F401
from ._autoload import gather

_FAMILIES = ["layer.layers", "layer.container", "layer.common", "layer.activation", "layer.loss", "layer.loss26",
             "layer.conv", "layer.pooling", "layer.norm", "layer.rnn", "layer.transformer",
             "layer.vision", "layer.distance", "layer.decode", "clip", "param_attr_export"]
__all__ = gather(__name__, _FAMILIES, globals())
from . import loss  # noqa: E402,F401  (Paddle 2.6's paddle.nn.loss: the loss layers)
from .layer import decode  # noqa: E402,F401  (paddle.nn.decode: BeamSearchDecoder, dynamic_decode)
try:
    from . import utils  # noqa: F401
    from .utils import spectral_norm  # noqa: F401  (Paddle 2.6 exposes it in paddle.nn too)
except ImportError as _e:  # noqa: F841  (nn.utils arrives with the nn issue)
    pass
