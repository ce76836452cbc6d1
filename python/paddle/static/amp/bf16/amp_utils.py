"""paddle.static.amp.bf16's program rewrites: the float16 rewrites of ../fp16_utils.py run with
bfloat16 as the low dtype and the bfloat16 lists; bf16_guard marks ops for pure bfloat16;
convert_float_to_uint16 gives bfloat16 bit patterns (float32 truncated, as Paddle does)."""
import numpy as np

from ..fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard, rewrite_program
from .amp_lists import AutoMixedPrecisionListsBF16

_BF16_GUARD = "__use_bf16__"


def bf16_guard():
    """Ops recorded inside may run in bfloat16 in pure bfloat16 mode with use_bf16_guard."""
    return fp16_guard(_BF16_GUARD)


def _lists(amp_lists):
    return (amp_lists or AutoMixedPrecisionListsBF16())._as_fp16_style()


def rewrite_program_bf16(main_prog, amp_lists=None):
    """Mixed bfloat16 (bf16 ops and the gray ops they feed run in bfloat16)."""
    rewrite_program(main_prog, _lists(amp_lists), "bfloat16")


def cast_model_to_bf16(program, amp_lists=None, use_bf16_guard=True):
    """Pure bfloat16; returns the names of the variables made bfloat16."""
    return cast_model_to_fp16(program, _lists(amp_lists), use_bf16_guard, "bfloat16", _BF16_GUARD)


def cast_parameters_to_bf16(place, program, scope=None, to_bf16_var_names=None):
    cast_parameters_to_fp16(place, program, scope, to_bf16_var_names, "bfloat16")


def convert_float_to_uint16(in_list):
    """float32 values -> uint16 bfloat16 bit patterns (the upper 16 bits)."""
    a = np.ascontiguousarray(np.asarray(in_list, dtype=np.float32))
    return (a.view(np.uint32) >> 16).astype(np.uint16)
