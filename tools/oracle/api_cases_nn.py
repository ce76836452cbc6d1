"""The differential harness's nn families (issue 23): nn.functional and the nn layers whose
parameters start deterministic, in tests/conformance/harness.py's case format (see
tools/oracle/api_cases.py, which lists every family). Imports nothing but the case specs."""
from api_case_specs import F, D, T, _c


# ---------------------------------------------------------------- nn.functional
ACT = {"relu": {}, "relu6": {}, "gelu": {}, "gelu|tanh": {"approximate": True}, "silu": {}, "swish": {},
       "mish": {}, "softplus": {}, "softplus|beta": {"beta": 2.0, "threshold": 1.0}, "softsign": {},
       "hardswish": {}, "hardsigmoid": {}, "hardsigmoid|slope": {"slope": 0.2, "offset": 0.4},
       "hardtanh": {}, "hardtanh|range": {"min": -0.5, "max": 0.5}, "leaky_relu": {},
       "leaky_relu|slope": {"negative_slope": 0.3}, "elu": {}, "elu|alpha": {"alpha": 0.5}, "selu": {},
       "celu": {"alpha": 1.5}, "softmax": {}, "softmax|0": {"axis": 0}, "log_softmax": {},
       "log_softmax|0": {"axis": 0}, "glu": {}, "tanhshrink": {}, "softshrink": {},
       "softshrink|t": {"threshold": 1.0}, "hardshrink": {}, "hardshrink|t": {"threshold": 1.0},
       "thresholded_relu": {}, "thresholded_relu|t": {"threshold": 0.6}, "log_sigmoid": {}, "sigmoid": {},
       "tanh": {}, "rrelu": {"training": False}, "relu_": {}, "elu_": {}, "softmax_": {},
       "normalize": {}, "normalize|p1": {"p": 1, "axis": 0}}


def functional_cases():
    f = "functional"
    out = []
    for key, kw in ACT.items():
        name = key.split("|")[0]
        for dt in ("float32", "float64", "float16", "bfloat16"):
            out.append(_c(f, f"{key}|{dt}", F + name, [T([4, 6], dt, 80)], **kw))
        if not name.endswith("_"):
            out.append(_c(f, f"{key}|grad", F + name, [T([4, 6], "float64", 81)], grad=[0], **kw))
            out.append(_c(f, f"{key}|0d", F + name, [T([], "float32", 82)], **kw) if name not in ("glu",) else
                       _c(f, f"{key}|3d", F + name, [T([2, 2, 4], "float32", 82)], **kw))
        else:
            out.append(_c(f, f"{key}|inplace", F + name, [T([4, 6], "float32", 83)], inplace=True, **kw))
    out += [
        _c(f, "softmax|dtype", F + "softmax", [T([3, 4], "float32", 84)], dtype="float64"),
        _c(f, "softmax|int", F + "softmax", [T([3, 4], "int64", 84)]),
        _c(f, "prelu", F + "prelu", [T([2, 3, 4], "float32", 85), T([1], "float32", 86, 0.1, 0.5)]),
        _c(f, "prelu|channel", F + "prelu", [T([2, 3, 4], "float32", 85), T([3], "float32", 86, 0.1, 0.5)]),
        _c(f, "prelu|grad", F + "prelu", [T([2, 3, 4], "float64", 85), T([3], "float64", 86, 0.1, 0.5)], grad=[0, 1]),
        _c(f, "prelu|nhwc", F + "prelu", [T([2, 4, 3], "float32", 85), T([3], "float32", 86, 0.1, 0.5)],
           data_format="NLC"),
        _c(f, "maxout", F + "maxout", [T([2, 4, 3, 3], "float32", 87)], groups=2),
        _c(f, "maxout|axis", F + "maxout", [T([2, 3, 3, 4], "float32", 87)], groups=2, axis=-1),
        _c(f, "linear", F + "linear", [T([2, 3], "float32", 88), T([3, 4], "float32", 89), T([4], "float32", 90)]),
        _c(f, "linear|nobias", F + "linear", [T([2, 5, 3], "float64", 88), T([3, 4], "float64", 89)]),
        _c(f, "linear|grad", F + "linear", [T([2, 3], "float64", 88), T([3, 4], "float64", 89),
                                            T([4], "float64", 90)], grad=[0, 1, 2]),
        _c(f, "linear|err", F + "linear", [T([2, 3], "float32", 88), T([4, 4], "float32", 89)]),
        _c(f, "conv1d", F + "conv1d", [T([2, 3, 8], "float32", 91), T([4, 3, 3], "float32", 92)]),
        _c(f, "conv1d|pad", F + "conv1d", [T([2, 3, 8], "float32", 91), T([4, 3, 3], "float32", 92),
                                           T([4], "float32", 93)], padding=1, stride=2),
        _c(f, "conv1d|same", F + "conv1d", [T([1, 2, 7], "float64", 91), T([2, 1, 3], "float64", 92)],
           padding="same", groups=2, dilation=2),
        _c(f, "conv2d", F + "conv2d", [T([2, 3, 6, 6], "float32", 94), T([4, 3, 3, 3], "float32", 95)]),
        _c(f, "conv2d|stride", F + "conv2d", [T([1, 4, 7, 7], "float32", 94), T([4, 2, 3, 3], "float32", 95),
                                              T([4], "float32", 96)], stride=2, padding=[1, 0], groups=2),
        _c(f, "conv2d|nhwc", F + "conv2d", [T([1, 5, 5, 2], "float32", 94), T([3, 2, 2, 2], "float32", 95)],
           data_format="NHWC", padding="valid"),
        _c(f, "conv2d|grad", F + "conv2d", [T([1, 2, 5, 5], "float64", 94), T([3, 2, 3, 3], "float64", 95)],
           grad=[0, 1], padding=1),
        _c(f, "conv2d|err", F + "conv2d", [T([1, 2, 5, 5], "float32", 94), T([3, 3, 3, 3], "float32", 95)]),
        _c(f, "conv2d_transpose", F + "conv2d_transpose", [T([1, 2, 4, 4], "float32", 97),
                                                           T([2, 3, 3, 3], "float32", 98)], stride=2, padding=1),
        _c(f, "avg_pool1d", F + "avg_pool1d", [T([2, 3, 8], "float32", 99)], kernel_size=2),
        _c(f, "max_pool1d", F + "max_pool1d", [T([2, 3, 8], "float32", 99)], kernel_size=3, stride=2, padding=1),
        _c(f, "avg_pool2d", F + "avg_pool2d", [T([1, 2, 5, 5], "float32", 100)], kernel_size=2, stride=2),
        _c(f, "avg_pool2d|ceil", F + "avg_pool2d", [T([1, 2, 5, 5], "float32", 100)], kernel_size=2, stride=2,
           ceil_mode=True),
        _c(f, "avg_pool2d|pad", F + "avg_pool2d", [T([1, 2, 5, 5], "float32", 100)], kernel_size=3, stride=1,
           padding=1, exclusive=False),
        _c(f, "avg_pool2d|excl", F + "avg_pool2d", [T([1, 2, 5, 5], "float32", 100)], kernel_size=3, stride=1,
           padding=1),
        _c(f, "max_pool2d", F + "max_pool2d", [T([1, 2, 5, 5], "float32", 100)], kernel_size=2),
        _c(f, "max_pool2d|mask", F + "max_pool2d", [T([1, 2, 4, 4], "float32", 101)], kernel_size=2, return_mask=True),
        _c(f, "max_pool2d|grad", F + "max_pool2d", [T([1, 2, 4, 4], "float64", 101)], grad=[0], kernel_size=2),
        _c(f, "max_pool3d", F + "max_pool3d", [T([1, 1, 4, 4, 4], "float32", 102)], kernel_size=2),
        _c(f, "adaptive_avg_pool2d", F + "adaptive_avg_pool2d", [T([1, 2, 5, 7], "float32", 103)], output_size=[2, 3]),
        _c(f, "adaptive_max_pool2d", F + "adaptive_max_pool2d", [T([1, 2, 5, 7], "float32", 103)], output_size=2),
        _c(f, "adaptive_avg_pool1d", F + "adaptive_avg_pool1d", [T([1, 2, 7], "float32", 103)], output_size=3),
        _c(f, "layer_norm", F + "layer_norm", [T([2, 3, 4], "float32", 104)], normalized_shape=[4]),
        _c(f, "layer_norm|affine", F + "layer_norm", [T([2, 3, 4], "float64", 104)], normalized_shape=[3, 4],
           weight=T([3, 4], "float64", 105), bias=T([3, 4], "float64", 106)),
        _c(f, "layer_norm|grad", F + "layer_norm", [T([2, 4], "float64", 104)], grad=[0], normalized_shape=4),
        _c(f, "batch_norm|eval", F + "batch_norm", [T([2, 3, 4], "float32", 107), T([3], "float32", 108),
                                                    T([3], "float32", 109, 0.5, 2.0)], training=False,
           weight=T([3], "float32", 110), bias=T([3], "float32", 111)),
        _c(f, "batch_norm|train", F + "batch_norm", [T([4, 3], "float64", 107), T([3], "float64", 108),
                                                     T([3], "float64", 109, 0.5, 2.0)], training=True),
        _c(f, "instance_norm", F + "instance_norm", [T([2, 3, 4, 4], "float32", 112)]),
        _c(f, "GroupNorm", "paddle.nn.GroupNorm", [T([2, 4, 3], "float32", 113)], init={"num_groups": 2,
                                                                                      "num_channels": 4}),
        _c(f, "local_response_norm", F + "local_response_norm", [T([1, 4, 3, 3], "float32", 114)], size=3),
        _c(f, "dropout|eval", F + "dropout", [T([3, 4], "float32", 115)], p=0.5, training=False),
        _c(f, "dropout|eval_down", F + "dropout", [T([3, 4], "float32", 115)], p=0.5, training=False,
           mode="downscale_in_infer"),
        _c(f, "dropout|p0", F + "dropout", [T([3, 4], "float32", 115)], p=0.0),
        _c(f, "dropout|err", F + "dropout", [T([3, 4], "float32", 115)], p=1.5),
        _c(f, "dropout2d|eval", F + "dropout2d", [T([1, 2, 3, 3], "float32", 115)], training=False),
        _c(f, "alpha_dropout|eval", F + "alpha_dropout", [T([3, 4], "float32", 115)], p=0.5, training=False),
        _c(f, "one_hot", F + "one_hot", [D([1, 0, 3])], num_classes=4),
        _c(f, "one_hot|2d", F + "one_hot", [D([[1], [2]], "int32")], num_classes=3),
        _c(f, "embedding", F + "embedding", [D([[0, 2], [3, 0]]), T([4, 3], "float32", 116)]),
        _c(f, "embedding|pad", F + "embedding", [D([0, 2, 3], "int32"), T([4, 3], "float64", 116)], padding_idx=0),
        _c(f, "embedding|grad", F + "embedding", [D([0, 2, 0]), T([4, 3], "float64", 116)], grad=[1]),
        _c(f, "pixel_shuffle", F + "pixel_shuffle", [T([1, 8, 2, 3], "float32", 117)], upscale_factor=2),
        _c(f, "pixel_unshuffle", F + "pixel_unshuffle", [T([1, 2, 4, 6], "float32", 117)], downscale_factor=2),
        _c(f, "channel_shuffle", F + "channel_shuffle", [T([1, 4, 2, 2], "float32", 117)], groups=2),
        _c(f, "unfold", F + "unfold", [T([1, 2, 4, 4], "float32", 118)], kernel_sizes=2),
        _c(f, "unfold|stride", F + "unfold", [T([1, 2, 5, 5], "float32", 118)], kernel_sizes=[2, 3], strides=2,
           paddings=1),
        _c(f, "fold", F + "fold", [T([1, 8, 9], "float32", 119)], output_sizes=[4, 4], kernel_sizes=2),
        _c(f, "cosine_similarity", F + "cosine_similarity", [T([3, 4], "float32", 120), T([3, 4], "float32", 121)]),
        _c(f, "pairwise_distance", F + "pairwise_distance", [T([3, 4], "float32", 120), T([3, 4], "float32", 121)]),
        _c(f, "label_smooth", F + "label_smooth", [T([2, 3], "float32", 122, 0, 1)], epsilon=0.1),
        _c(f, "sequence_mask", F + "sequence_mask", [D([1, 3, 0])], maxlen=4),
        _c(f, "temporal_shift", F + "temporal_shift", [T([4, 4, 2, 2], "float32", 123)], seg_num=2),
        _c(f, "affine_grid", F + "affine_grid", [T([1, 2, 3], "float32", 124)], out_shape=[1, 1, 2, 3]),
        _c(f, "grid_sample", F + "grid_sample", [T([1, 1, 3, 3], "float32", 125), T([1, 2, 2, 2], "float32", 126,
                                                                                       -0.9, 0.9)]),
    ]
    out += [
        _c(f, "conv1d_transpose", F + "conv1d_transpose", [T([1, 2, 5], "float32", 132), T([2, 3, 3], "float32", 133)],
           stride=2),
        _c(f, "conv3d", F + "conv3d", [T([1, 2, 4, 4, 4], "float32", 134), T([3, 2, 2, 2, 2], "float32", 135)],
           padding=1),
        _c(f, "conv3d_transpose", F + "conv3d_transpose", [T([1, 2, 3, 3, 3], "float32", 134),
                                                           T([2, 1, 2, 2, 2], "float32", 135)]),
        _c(f, "dropout3d|eval", F + "dropout3d", [T([1, 2, 2, 2, 2], "float32", 136)], training=False),
        _c(f, "zeropad2d", F + "zeropad2d", [T([1, 1, 2, 3], "float32", 136)], padding=[1, 0, 2, 1]),
        _c(f, "bilinear", F + "bilinear", [T([2, 3], "float32", 137), T([2, 4], "float32", 138),
                                           T([5, 3, 4], "float32", 139), T([1, 5], "float32", 140)]),
        _c(f, "bilinear|grad", F + "bilinear", [T([2, 3], "float64", 137), T([2, 4], "float64", 138),
                                                T([5, 3, 4], "float64", 139)], grad=[0, 1, 2]),
        _c(f, "avg_pool3d", F + "avg_pool3d", [T([1, 1, 4, 4, 4], "float32", 141)], kernel_size=2),
        _c(f, "adaptive_avg_pool3d", F + "adaptive_avg_pool3d", [T([1, 1, 4, 5, 3], "float32", 141)],
           output_size=[2, 2, 2]),
        _c(f, "adaptive_max_pool1d", F + "adaptive_max_pool1d", [T([1, 2, 7], "float32", 142)], output_size=3),
        _c(f, "adaptive_max_pool3d", F + "adaptive_max_pool3d", [T([1, 1, 4, 5, 3], "float32", 141)],
           output_size=2),
        _c(f, "max_unpool2d", F + "max_unpool2d", [T([1, 1, 2, 2], "float32", 143), D([[[[0, 3], [9, 14]]]], "int32")],
           kernel_size=2),
        _c(f, "max_unpool1d", F + "max_unpool1d", [T([1, 1, 2], "float32", 143), D([[[1, 2]]], "int32")], kernel_size=2),
        _c(f, "scaled_dot_product_attention", F + "scaled_dot_product_attention",
           [T([1, 3, 2, 4], "float32", 144), T([1, 3, 2, 4], "float32", 145), T([1, 3, 2, 4], "float32", 146)]),
        _c(f, "gather_tree", F + "gather_tree", [D([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]]),
                                                 D([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])]),
        _c(f, "dice_loss", F + "dice_loss", [T([3, 4, 2], "float32", 147, 0.0, 1.0), D([[[1], [0], [1], [1]],
                                                                                      [[0], [1], [1], [0]],
                                                                                      [[1], [1], [0], [0]]])]),
        _c(f, "log_loss", F + "log_loss", [T([4, 1], "float32", 148, 0.1, 0.9), T([4, 1], "float32", 149, 0.0, 1.0)]),
        _c(f, "npair_loss", F + "npair_loss", [T([3, 4], "float32", 150), T([3, 4], "float32", 151),
                                               D([1.0, 2.0, 1.0], "float32")]),
        _c(f, "softmax_with_cross_entropy", F + "softmax_with_cross_entropy",
           [T([4, 5], "float32", 152), D([[1], [0], [4], [2]])]),
        _c(f, "softmax_with_cross_entropy|soft", F + "softmax_with_cross_entropy",
           [T([4, 5], "float64", 152), T([4, 5], "float64", 153, 0.0, 1.0)], soft_label=True, return_softmax=True),
        _c(f, "ctc_loss", F + "ctc_loss", [T([5, 2, 4], "float32", 154), D([[1, 2], [3, 1]], "int32"),
                                           D([5, 4]), D([2, 1])], blank=0, reduction="none"),
    ]
    # the classic losses unreduced, with gradients
    lg, lb = T([4, 3], "float64", 155), T([4, 3], "float64", 156, 0.05, 0.95)
    cls = D([2, 0, 1, 2])
    for key, fn, args, gr, kw in [
            ("mse_loss", "mse_loss", [lg, T([4, 3], "float64", 157)], [0], {}),
            ("l1_loss", "l1_loss", [lg, T([4, 3], "float64", 157)], [0], {}),
            ("smooth_l1_loss", "smooth_l1_loss", [lg, T([4, 3], "float64", 157)], [0], {"delta": 0.5}),
            ("nll_loss", "nll_loss", [lg, cls], [0], {}),
            ("cross_entropy", "cross_entropy", [lg, cls], [0], {}),
            ("cross_entropy|weight", "cross_entropy", [lg, cls], [0], {"weight": T([3], "float64", 158, 0.5, 2.0)}),
            ("cross_entropy|soft", "cross_entropy", [lg, lb], [0], {"soft_label": True}),
            ("cross_entropy|softnorm", "cross_entropy", [lg, D([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.25, 0.25, 0.5],
                                                                [0.1, 0.8, 0.1]], "float64")], [0], {"soft_label": True}),
            ("cross_entropy|ignore", "cross_entropy", [lg, D([2, -100, 1, 2])], [0], {"ignore_index": -100}),
            ("cross_entropy|smooth", "cross_entropy", [lg, cls], [0], {"label_smoothing": 0.1}),
            ("cross_entropy|axis0", "cross_entropy", [T([3, 4], "float64", 159), D([2, 0, 1, 2])], [0], {"axis": 0}),
            ("binary_cross_entropy", "binary_cross_entropy", [lb, T([4, 3], "float64", 160, 0.0, 1.0)], [0], {}),
            ("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits",
             [lg, T([4, 3], "float64", 160, 0.0, 1.0)], [0], {"pos_weight": T([3], "float64", 161, 0.5, 2.0)}),
            ("kl_div", "kl_div", [lg, lb], [0], {}),
            ("margin_ranking_loss", "margin_ranking_loss", [lg, T([4, 3], "float64", 162), D([1.0, -1.0, 1.0], "float64")],
             [0, 1], {"margin": 0.2}),
            ("hinge_embedding_loss", "hinge_embedding_loss", [lg, D([[1.0, -1.0, 1.0]] * 4, "float64")], [0], {}),
            ("sigmoid_focal_loss", "sigmoid_focal_loss", [lg, T([4, 3], "float64", 163, 0.0, 1.0)], [0], {}),
            ("square_error_cost", "square_error_cost", [lg, T([4, 3], "float64", 157)], [0], None),
    ]:
        if kw is None:
            out.append(_c(f, key + "|none", F + fn, args, grad=gr))
        else:
            out.append(_c(f, key + "|none", F + fn, args, grad=gr, reduction="none", **kw))
    x4 = T([1, 2, 3, 4], "float32", 127)
    for mode in ("constant", "reflect", "replicate", "circular"):
        out.append(_c(f, f"pad|{mode}", F + "pad", [x4], pad=[1, 2, 2, 1], mode=mode))
    out.append(_c(f, "pad|value", F + "pad", [x4], pad=[1, 1, 0, 1], value=2.5))
    out.append(_c(f, "pad|3d", F + "pad", [T([1, 2, 5], "float32", 127)], pad=[2, 1], mode="reflect"))
    out.append(_c(f, "pad|grad", F + "pad", [T([1, 1, 3, 3], "float64", 127)], grad=[0], pad=[1, 1, 1, 1],
                  mode="reflect"))
    x3 = T([1, 2, 5], "float32", 128)
    out.append(_c(f, "interpolate|linear", F + "interpolate", [x3], size=[8], mode="linear", data_format="NCW"))
    out.append(_c(f, "interpolate|linear_ac", F + "interpolate", [x3], size=[8], mode="linear", align_corners=True,
                  data_format="NCW"))
    out.append(_c(f, "interpolate|nearest1d", F + "interpolate", [x3], scale_factor=2, mode="nearest", data_format="NCW"))
    x4b = T([1, 2, 3, 4], "float32", 129)
    for mode in ("nearest", "bilinear", "bicubic", "area"):
        out.append(_c(f, f"interpolate|{mode}", F + "interpolate", [x4b], size=[5, 7], mode=mode))
        if mode in ("bilinear", "bicubic"):
            out.append(_c(f, f"interpolate|{mode}_ac", F + "interpolate", [x4b], size=[5, 7], mode=mode,
                          align_corners=True))
    out.append(_c(f, "interpolate|bilinear_am0", F + "interpolate", [x4b], scale_factor=[1.5, 2.0], mode="bilinear",
                  align_mode=0))
    out.append(_c(f, "interpolate|trilinear", F + "interpolate", [T([1, 1, 2, 3, 3], "float32", 130)],
                  size=[3, 4, 5], mode="trilinear", data_format="NCDHW"))
    out.append(_c(f, "interpolate|grad", F + "interpolate", [T([1, 1, 3, 3], "float64", 131)], grad=[0],
                  size=[5, 4], mode="bilinear"))
    out.append(_c(f, "upsample", F + "upsample", [x4b], scale_factor=2, mode="nearest"))
    return out


# ---------------------------------------------------------------- nn layers without random parameters
LAYERS = [
    ("ReLU", {}, [2, 3]), ("ReLU6", {}, [2, 3]), ("GELU", {"approximate": True}, [2, 3]), ("Silu", {}, [2, 3]),
    ("Swish", {}, [2, 3]), ("Mish", {}, [2, 3]), ("Softplus", {"beta": 2.0}, [2, 3]), ("Softsign", {}, [2, 3]),
    ("Hardswish", {}, [2, 3]), ("Hardsigmoid", {}, [2, 3]), ("Hardtanh", {"min": -0.5, "max": 0.5}, [2, 3]),
    ("LeakyReLU", {"negative_slope": 0.2}, [2, 3]), ("ELU", {"alpha": 0.5}, [2, 3]), ("SELU", {}, [2, 3]),
    ("CELU", {"alpha": 2.0}, [2, 3]), ("Sigmoid", {}, [2, 3]), ("Tanh", {}, [2, 3]), ("Tanhshrink", {}, [2, 3]),
    ("Softshrink", {"threshold": 0.3}, [2, 3]), ("Hardshrink", {"threshold": 0.3}, [2, 3]),
    ("ThresholdedReLU", {"threshold": 0.4}, [2, 3]), ("LogSigmoid", {}, [2, 3]), ("Softmax", {"axis": 0}, [2, 3]),
    ("LogSoftmax", {}, [2, 3]), ("Maxout", {"groups": 2}, [1, 4, 2, 2]), ("PReLU", {"num_parameters": 3}, [2, 3, 2]),
    ("Identity", {}, [2, 3]), ("Flatten", {"start_axis": 1}, [2, 3, 2]),
    ("Unflatten", {"axis": 1, "shape": [2, 3]}, [2, 6]),
    ("Pad1D", {"padding": [1, 2], "mode": "replicate"}, [1, 2, 3]),
    ("Pad2D", {"padding": 1, "mode": "reflect"}, [1, 1, 3, 3]), ("ZeroPad2D", {"padding": [1, 0, 0, 1]}, [1, 1, 2, 2]),
    ("Pad3D", {"padding": 1}, [1, 1, 2, 2, 2]),
    ("Upsample", {"scale_factor": 2, "mode": "bilinear"}, [1, 1, 2, 3]),
    ("UpsamplingNearest2D", {"size": [3, 4]}, [1, 1, 2, 2]), ("UpsamplingBilinear2D", {"size": [3, 4]}, [1, 1, 2, 2]),
    ("PixelShuffle", {"upscale_factor": 2}, [1, 4, 2, 2]), ("PixelUnshuffle", {"downscale_factor": 2}, [1, 1, 4, 4]),
    ("ChannelShuffle", {"groups": 2}, [1, 4, 1, 2]), ("Dropout", {"p": 0.5}, [2, 3]),
    ("AvgPool1D", {"kernel_size": 2}, [1, 2, 6]), ("MaxPool1D", {"kernel_size": 2, "stride": 1}, [1, 2, 5]),
    ("AvgPool2D", {"kernel_size": 2}, [1, 1, 4, 4]), ("MaxPool2D", {"kernel_size": 3, "stride": 2, "padding": 1},
                                                      [1, 1, 5, 5]),
    ("AvgPool3D", {"kernel_size": 2}, [1, 1, 2, 4, 4]), ("MaxPool3D", {"kernel_size": 2}, [1, 1, 2, 2, 4]),
    ("AdaptiveAvgPool1D", {"output_size": 2}, [1, 2, 5]), ("AdaptiveAvgPool2D", {"output_size": [2, 3]}, [1, 1, 4, 5]),
    ("AdaptiveMaxPool2D", {"output_size": 2}, [1, 1, 5, 4]), ("AdaptiveAvgPool3D", {"output_size": 1}, [1, 1, 2, 2, 3]),
    ("LayerNorm", {"normalized_shape": 3}, [2, 3]), ("GroupNorm", {"num_groups": 2, "num_channels": 4}, [2, 4, 3]),
    ("InstanceNorm2D", {"num_features": 2}, [2, 2, 3, 3]), ("BatchNorm1D", {"num_features": 3}, [4, 3]),
    ("BatchNorm2D", {"num_features": 2, "data_format": "NHWC"}, [2, 3, 3, 2]),
    ("LocalResponseNorm", {"size": 3}, [1, 4, 2, 2]), ("CosineSimilarity", {"axis": 1}, None),
    ("PairwiseDistance", {"p": 1.0}, None), ("Softmax2D", {}, [1, 3, 2, 2]), ("Fold", {"output_sizes": [3, 3],
                                                                                      "kernel_sizes": 2}, [1, 4, 4]),
    ("Unfold", {"kernel_sizes": 2}, [1, 1, 3, 3]),
]


def layer_cases():
    """paddle.nn layers whose parameters start deterministic (none, ones / zeros, PReLU's 0.25):
    constructed with the keyword arguments, then called on a seeded input; float64 gradients."""
    out = []
    for i, (cls, init, shape) in enumerate(LAYERS):
        args = [T(shape, "float32", 240 + i)] if shape else [T([3, 4], "float32", 240), T([3, 4], "float32", 241)]
        if cls != "Dropout":  # (training mode: random)
            out.append(_c("layers", cls, "paddle.nn." + cls, args, init=init))
        if cls not in ("BatchNorm1D", "BatchNorm2D", "Dropout"):
            # float64 unless the layer holds float32 parameters (Paddle refuses the mix)
            if cls not in ("PReLU", "GroupNorm", "InstanceNorm2D", "LayerNorm"):
                args = [dict(a, dtype="float64") for a in args]
            out.append(_c("layers", cls + "|grad", "paddle.nn." + cls, args, grad=[0], init=dict(init)))
    for cls, init, shape in (("BatchNorm1D", {"num_features": 3}, [4, 3]), ("Dropout", {"p": 0.5}, [2, 3]),
                             ("InstanceNorm1D", {"num_features": 2}, [2, 2, 4])):
        out.append(_c("layers", cls + "|eval", "paddle.nn." + cls, [T(shape, "float32", 300)], init=init,
                      eval=True))
    return out
