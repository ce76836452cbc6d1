"""paddle.static.nn (Paddle 2.3's 40 names): layers with parameters (common.py, norm.py, loss.py),
the sequence (LoD) layers (sequence_lod.py), py_func (paddle/static/callback.py) and control
flow (control_flow.py)."""
from ..callback import py_func  # noqa: F401
from .common import (bilinear_tensor_product, conv2d, conv2d_transpose, conv3d, conv3d_transpose,  # noqa: F401
                     crf_decoding, deform_conv2d, embedding, fc, multi_box_head, prelu, row_conv, sparse_embedding)
from .control_flow import case, cond, switch_case, while_loop  # noqa: F401
from .loss import nce  # noqa: F401
from .norm import batch_norm, data_norm, group_norm, instance_norm, layer_norm, spectral_norm  # noqa: F401
from .sequence_lod import (sequence_concat, sequence_conv, sequence_enumerate, sequence_expand,  # noqa: F401
                           sequence_expand_as, sequence_first_step, sequence_last_step, sequence_pad, sequence_pool,
                           sequence_reshape, sequence_reverse, sequence_scatter, sequence_slice, sequence_softmax,
                           sequence_unpad)

__all__ = [
    "fc", "batch_norm", "embedding", "bilinear_tensor_product", "case", "cond", "conv2d", "conv2d_transpose",
    "conv3d", "conv3d_transpose", "crf_decoding", "data_norm", "deform_conv2d", "group_norm", "instance_norm",
    "layer_norm", "multi_box_head", "nce", "prelu", "py_func", "row_conv", "spectral_norm", "switch_case",
    "while_loop", "sparse_embedding", "sequence_conv", "sequence_softmax", "sequence_pool", "sequence_concat",
    "sequence_first_step", "sequence_last_step", "sequence_slice", "sequence_expand", "sequence_expand_as",
    "sequence_pad", "sequence_unpad", "sequence_reshape", "sequence_scatter", "sequence_enumerate",
    "sequence_reverse",
]
