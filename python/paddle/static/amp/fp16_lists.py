"""paddle.static.amp's op lists (Paddle 2.3's fluid/contrib/mixed_precision/fp16_lists.py): the
white list runs in float16, the black list in float32, gray ops follow their producers, and
ops in no list run in float32. White and black are the lists eager auto_cast uses
(python/paddle/amp/auto_cast.py); AutoMixedPrecisionLists applies a user's custom lists."""
import copy

from ...amp.auto_cast import BLACK_LIST, WHITE_LIST

white_list = set(WHITE_LIST)
black_list = set(BLACK_LIST) | {"lookup_table", "lookup_table_v2"}
gray_list = {
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_max",
    "elementwise_min", "elementwise_pow", "elementwise_mod", "elementwise_floordiv", "batch_norm",
    "layer_norm", "tanh", "sigmoid", "top_k", "pool2d", "pool3d", "dropout", "relu", "relu6",
    "leaky_relu", "soft_relu", "flatten2", "stack", "unstack", "uniform_random",
    "uniform_random_batch_size_like", "gaussian_random", "gaussian_random_batch_size_like", "slice",
    "rank", "scale", "transpose2", "reshape2", "gather", "fill_constant",
    "get_tensor_from_selected_rows", "sign", "cast", "fused_bn_add_activation", "c_identity",
    "c_concat", "c_allreduce_sum", "concat", "split", "fused_feedforward", "fused_attention",
    "fused_multi_transformer",
}
# ops kept in float32 even in pure float16 mode (Paddle: slower in float16)
unsupported_fp16_list = {"lookup_table", "lookup_table_v2"}


class AutoMixedPrecisionLists:
    """The white / black / gray / unsupported lists with custom_white_list and custom_black_list
    applied (an op in both is an error); custom_black_varnames: ops reading or writing these
    variables run in float32."""

    def __init__(self, custom_white_list=None, custom_black_list=None, custom_black_varnames=None):
        self._custom_white_list = custom_white_list
        self._custom_black_list = custom_black_list
        self.white_list = copy.copy(white_list)
        self.black_list = copy.copy(black_list)
        self.gray_list = copy.copy(gray_list)
        self.unsupported_list = copy.copy(unsupported_fp16_list)
        self.black_varnames = copy.copy(custom_black_varnames)
        self._update_list()

    def _update_list(self):
        w, b = self._custom_white_list, self._custom_black_list
        if w and b:
            for name in w:
                if name in b:
                    raise ValueError("Custom white list overlap custom black list")
        for name in w or ():
            self.black_list.discard(name)
            self.gray_list.discard(name)
            self.white_list.add(name)
            self.unsupported_list.discard(name)
        for name in b or ():
            self.white_list.discard(name)
            self.gray_list.discard(name)
            self.black_list.add(name)
            self.unsupported_list.add(name)


CustomOpLists = AutoMixedPrecisionLists
