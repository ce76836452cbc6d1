"""paddle.static.amp: mixed-precision training of static programs (Paddle 2.3's names): decorate
an optimizer, and its minimize() rewrites the program with cast ops (float16 by the same lists as
eager auto_cast; bfloat16 in .bf16), scales the loss and unscales the gradients as ops."""
from . import bf16, decorator, fp16_lists, fp16_utils  # noqa: F401
from .decorator import OptimizerWithMixedPrecision, decorate  # noqa: F401
from .fp16_lists import AutoMixedPrecisionLists, CustomOpLists  # noqa: F401
from .fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard, rewrite_program  # noqa: F401

__all__ = ["decorate", "CustomOpLists", "AutoMixedPrecisionLists", "fp16_guard", "cast_model_to_fp16",
           "cast_parameters_to_fp16", "bf16"]
