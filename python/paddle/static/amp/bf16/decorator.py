"""paddle.static.amp.bf16.decorate_bf16: mixed (or pure) bfloat16 training of static programs;
bfloat16 has float32's range, so there is no loss scaling."""
from ..decorator import OptimizerWithMixedPrecision
from .amp_lists import AutoMixedPrecisionListsBF16
from .amp_utils import _BF16_GUARD


class OptimizerWithMixedPrecisionBF16(OptimizerWithMixedPrecision):
    def amp_init(self, place, scope=None, test_program=None, use_bf16_test=False):
        """Pure bfloat16: converts the scope's parameters; rewrites test_program too."""
        return super().amp_init(place, scope, test_program, use_bf16_test)


def decorate_bf16(optimizer, amp_lists=None, use_pure_bf16=False, use_bf16_guard=None):
    lists = (amp_lists or AutoMixedPrecisionListsBF16())._as_fp16_style()
    return OptimizerWithMixedPrecisionBF16(optimizer, lists, 1.0, False, 1000, 2, 2.0, 0.8, use_pure_bf16,
                                           use_bf16_guard, "bfloat16", _BF16_GUARD)
