"""paddle.nn.utils: weight_norm / remove_weight_norm, spectral_norm, parameters_to_vector /
vector_to_parameters, clip_grad_norm_ / clip_grad_value_."""
from .clip_grad import clip_grad_norm_, clip_grad_value_  # noqa: F401
from .spectral_norm_hook import spectral_norm  # noqa: F401
from .transform_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .weight_norm_hook import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm_", "clip_grad_value_"]
