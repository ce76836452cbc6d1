"""paddle.static.amp.bf16.AutoMixedPrecisionListsBF16: the bfloat16 list is eager auto_cast's
bfloat16 white list (python/paddle/amp/auto_cast.py), the float32 list the float16 black and
white lists without it, the gray list the float16 one (Paddle's bf16/amp_lists.py layout)."""
import copy

from ....amp.auto_cast import BF16_WHITE_LIST
from ..fp16_lists import black_list as _fp16_black
from ..fp16_lists import gray_list as _fp16_gray
from ..fp16_lists import white_list as _fp16_white

bf16_list = set(BF16_WHITE_LIST)
gray_list = set(_fp16_gray)
fp32_list = (set(_fp16_black) | set(_fp16_white)) - bf16_list - gray_list
bf16_initializer_list = {"fill_constant", "uniform_random"}
unsupported_list = {"lookup_table", "lookup_table_v2"}


class AutoMixedPrecisionListsBF16:
    """bf16 / fp32 / gray / unsupported lists with the user's custom lists applied."""

    def __init__(self, custom_bf16_list=None, custom_fp32_list=None, custom_fp32_varnames=None):
        self._custom_bf16_list = custom_bf16_list
        self._custom_fp32_list = custom_fp32_list
        self.bf16_list = copy.copy(bf16_list)
        self.fp32_list = copy.copy(fp32_list)
        self.gray_list = copy.copy(gray_list)
        self.bf16_initializer_list = copy.copy(bf16_initializer_list)
        self.unsupported_list = copy.copy(unsupported_list)
        self.fp32_varnames = copy.copy(custom_fp32_varnames)
        self._update_list()

    def _update_list(self):
        b, f = self._custom_bf16_list, self._custom_fp32_list
        if b and f:
            for name in b:
                if name in f:
                    raise ValueError("Custom bf16 list overlap custom fp32 list")
        for name in b or ():
            self.fp32_list.discard(name)
            self.gray_list.discard(name)
            self.bf16_list.add(name)
        for name in f or ():
            self.bf16_list.discard(name)
            self.gray_list.discard(name)
            self.fp32_list.add(name)
            self.unsupported_list.add(name)

    def _as_fp16_style(self):
        """The lists under the names the generic rewrites read (white / black / gray)."""
        class _L:
            pass
        out = _L()
        out.white_list, out.black_list, out.gray_list = self.bf16_list, self.fp32_list, self.gray_list
        out.unsupported_list, out.black_varnames = self.unsupported_list, self.fp32_varnames
        return out
