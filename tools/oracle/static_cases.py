"""Programs in Paddle's own form (operator types, slots, attributes as Paddle's framework writes
them) for the differential tests of the static executor: tools/oracle/make_static_expected.py
builds and runs each with real PaddlePaddle 2.6.2 (Block.append_op, Executor) and stores inputs
and outputs in tests/python/data/static_compat_expected.npz; tests/python/test_static_compat.py
builds the same programs with paddle.static here and compares. Pure numpy: imported by both.

A case: ops (type, inputs {slot: [vars]}, outputs {slot: [vars]}, attrs), feeds (name -> array),
params (persistable name -> array), fetch (names), tolerance."""
import zlib

import numpy as np


def op(type, ins=None, outs=None, **attrs):
    norm = lambda d: {k: ([v] if isinstance(v, str) else list(v)) for k, v in (d or {}).items()}
    return {"type": type, "inputs": norm(ins), "outputs": norm(outs or {"Out": "out"}), "attrs": attrs}


CASES = []


def case(name, ops, feeds=None, params=None, fetch=("out",), rtol=1e-5, atol=1e-5):
    if isinstance(ops, dict):
        ops = [ops]
    CASES.append({"name": name, "ops": ops, "feeds": feeds or {}, "params": params or {}, "fetch": list(fetch),
                  "rtol": rtol, "atol": atol})


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def R(name, *shape, lo=-1.0, hi=1.0, dtype="float32"):
    return rng(name + str(shape)).uniform(lo, hi, size=shape).astype(dtype)


def I(name, *shape, lo=0, hi=5, dtype="int64"):
    return rng(name + str(shape)).integers(lo, hi, size=shape).astype(dtype)


X4 = R("x4", 2, 3, 7, 6)
# ---------------------------------------------------------------- convolutions
CONV = dict(strides=[1, 1], paddings=[0, 0], padding_algorithm="EXPLICIT", groups=1, dilations=[1, 1], data_format="NCHW")
for nm, kw, w in [
    ("conv2d_basic", dict(paddings=[1, 1]), R("w1", 4, 3, 3, 3)),
    ("conv2d_pad4_stride", dict(strides=[2, 1], paddings=[1, 0, 2, 1]), R("w2", 4, 3, 3, 2)),
    ("conv2d_same", dict(strides=[2, 2], padding_algorithm="SAME"), R("w3", 5, 3, 3, 3)),
    ("conv2d_valid", dict(strides=[1, 2], paddings=[3, 3], padding_algorithm="VALID"), R("w4", 2, 3, 2, 3)),
    ("conv2d_groups_dil", dict(groups=3, dilations=[2, 1], paddings=[2, 1]), R("w5", 6, 1, 3, 3)),
    ("conv2d_anylayout", dict(data_format="AnyLayout", paddings=[1, 1]), R("w6", 4, 3, 3, 3)),
]:
    case(nm, op("conv2d", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CONV, **kw}), {"x": X4}, {"w": w})
case("conv2d_nhwc", op("conv2d", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CONV, "data_format": "NHWC", "paddings": [1, 1]}),
     {"x": R("xn", 2, 6, 5, 3)}, {"w": R("wn", 4, 3, 3, 3)})
case("depthwise_conv2d", op("depthwise_conv2d", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CONV, "groups": 3, "paddings": [1, 1], "strides": [2, 2]}),
     {"x": X4}, {"w": R("wd", 3, 1, 3, 3)})
case("depthwise_conv2d_mult", op("depthwise_conv2d", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CONV, "groups": 3, "paddings": [2, 2]}),
     {"x": X4}, {"w": R("wd2", 6, 1, 5, 5)})
CT = dict(strides=[2, 2], paddings=[1, 1], output_padding=[], output_size=[], padding_algorithm="EXPLICIT", groups=1, dilations=[1, 1], data_format="NCHW")
case("conv2d_transpose", op("conv2d_transpose", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **CT), {"x": R("xt", 2, 4, 5, 4)}, {"w": R("wt", 4, 3, 3, 3)})
case("conv2d_transpose_outpad", op("conv2d_transpose", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CT, "output_padding": [1, 0], "paddings": [0, 1, 1, 0]}),
     {"x": R("xt", 2, 4, 5, 4)}, {"w": R("wt2", 4, 2, 3, 2)})
case("conv2d_transpose_outsize", op("conv2d_transpose", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CT, "output_size": [10, 8], "paddings": [1, 1]}),
     {"x": R("xt", 2, 4, 5, 4)}, {"w": R("wt3", 4, 3, 3, 3)})
case("conv2d_transpose_groups", op("conv2d_transpose", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CT, "groups": 2, "strides": [1, 2], "dilations": [2, 1]}),
     {"x": R("xt", 2, 4, 5, 4)}, {"w": R("wt4", 4, 3, 3, 3)})
case("depthwise_conv2d_transpose", op("depthwise_conv2d_transpose", {"Input": "x", "Filter": "w"}, {"Output": "out"}, **{**CT, "groups": 4}),
     {"x": R("xt", 2, 4, 5, 4)}, {"w": R("wt5", 4, 1, 4, 4)})

# ---------------------------------------------------------------- pooling
P = dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], ceil_mode=False, exclusive=True, data_format="NCHW",
         pooling_type="max", global_pooling=False, adaptive=False, padding_algorithm="EXPLICIT")
for nm, kw in [("pool_max", {}), ("pool_avg", dict(pooling_type="avg")), ("pool_avg_incl", dict(pooling_type="avg", exclusive=False)),
               ("pool_max_ceil", dict(ceil_mode=True, paddings=[0, 0])), ("pool_avg_ceil", dict(pooling_type="avg", ceil_mode=True)),
               ("pool_global", dict(pooling_type="avg", global_pooling=True)), ("pool_global_max", dict(global_pooling=True)),
               ("pool_adaptive", dict(pooling_type="avg", adaptive=True, ksize=[2, 4])), ("pool_adaptive1", dict(pooling_type="avg", adaptive=True, ksize=[1, 1])),
               ("pool_adaptive_max", dict(adaptive=True, ksize=[3, 2])), ("pool_same", dict(padding_algorithm="SAME")),
               ("pool_valid", dict(padding_algorithm="VALID", pooling_type="avg")), ("pool_pad4", dict(paddings=[1, 0, 2, 1], pooling_type="avg")),
               ("pool_k5_s1", dict(ksize=[5, 5], strides=[1, 1], paddings=[2, 2])),
               ("pool_avg_incl_ceil", dict(pooling_type="avg", exclusive=False, ceil_mode=True, ksize=[3, 2], strides=[2, 3])),
               ("pool_avg_incl_ceil_pad", dict(pooling_type="avg", exclusive=False, ceil_mode=True, paddings=[1, 1]))]:
    case(nm, op("pool2d", {"X": "x"}, **{**P, **kw}), {"x": X4})
case("max_pool2d_with_index_adaptive", op("max_pool2d_with_index", {"X": "x"}, {"Out": "out", "Mask": "mask"}, ksize=[3, 2], strides=[1, 1], paddings=[0, 0],
                                          global_pooling=False, adaptive=True), {"x": X4}, fetch=("out", "mask"))
case("max_pool2d_with_index", op("max_pool2d_with_index", {"X": "x"}, {"Out": "out", "Mask": "mask"}, ksize=[3, 3], strides=[2, 2], paddings=[1, 1],
                                 global_pooling=False, adaptive=False), {"x": X4}, fetch=("out", "mask"))
case("pool_kernel_over_input", op("pool2d", {"X": "x"}, **{**P, "ksize": [2, 2], "strides": [2, 2], "paddings": [0, 0]}), {"x": R("xk", 2, 3, 1, 5)})
case("pool_kernel_over_input_avg", op("pool2d", {"X": "x"}, **{**P, "pooling_type": "avg", "exclusive": False, "ksize": [3, 2], "strides": [2, 2], "paddings": [0, 0]}),
     {"x": R("xk", 2, 3, 2, 5)})
case("pool_nhwc", op("pool2d", {"X": "x"}, **{**P, "data_format": "NHWC", "pooling_type": "avg"}), {"x": R("xn", 2, 6, 5, 3)})

# ---------------------------------------------------------------- normalization
BN = dict(is_test=True, momentum=0.9, epsilon=1e-5, data_layout="NCHW", use_global_stats=False, trainable_statistics=False)
bn_params = {"s": R("bs", 3), "b": R("bb", 3), "m": R("bm", 3), "v": R("bv", 3, lo=0.5, hi=2.0)}
bn_io = ({"X": "x", "Scale": "s", "Bias": "b", "Mean": "m", "Variance": "v"},
         {"Y": "out", "MeanOut": "m", "VarianceOut": "v", "SavedMean": "sm", "SavedVariance": "sv"})
case("batch_norm_test", op("batch_norm", *bn_io, **BN), {"x": X4}, bn_params)
case("batch_norm_global", op("batch_norm", *bn_io, **{**BN, "is_test": False, "use_global_stats": True}), {"x": X4}, bn_params)
case("batch_norm_nhwc", op("batch_norm", *bn_io, **{**BN, "data_layout": "NHWC"}), {"x": R("xb", 2, 4, 5, 3)}, bn_params)
case("layer_norm", op("layer_norm", {"X": "x", "Scale": "s", "Bias": "b"}, {"Y": "out", "Mean": "mu", "Variance": "var"}, epsilon=1e-5, begin_norm_axis=2),
     {"x": X4}, {"s": R("ls", 42), "b": R("lb", 42)}, rtol=1e-4, atol=1e-5)
case("layer_norm_last", op("layer_norm", {"X": "x", "Scale": "s", "Bias": "b"}, {"Y": "out", "Mean": "mu", "Variance": "var"}, epsilon=1e-6, begin_norm_axis=3),
     {"x": X4}, {"s": R("ls2", 6), "b": R("lb2", 6)}, rtol=1e-4, atol=1e-5)
case("dropout_test_downgrade", op("dropout", {"X": "x"}, {"Out": "out", "Mask": "mask"}, dropout_prob=0.3, is_test=True, dropout_implementation="downgrade_in_infer"), {"x": X4})
case("dropout_test_upscale", op("dropout", {"X": "x"}, {"Out": "out", "Mask": "mask"}, dropout_prob=0.3, is_test=True, dropout_implementation="upscale_in_train"), {"x": X4})

# ---------------------------------------------------------------- elementwise and activations
A = R("a", 2, 3, 4, 5)
for t in ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_max", "elementwise_min"]:
    case(t + "_bcast", op(t, {"X": "x", "Y": "y"}, axis=-1), {"x": A, "y": R("b", 4, 5, lo=0.5, hi=1.5)})
    case(t + "_axis1", op(t, {"X": "x", "Y": "y"}, axis=1), {"x": A, "y": R("c", 3, lo=0.5, hi=1.5)})
case("elementwise_add_axis1_2d", op("elementwise_add", {"X": "x", "Y": "y"}, axis=1), {"x": A, "y": R("d", 3, 4)})
case("elementwise_mul_axis0_trailing1", op("elementwise_mul", {"X": "x", "Y": "y"}, axis=0), {"x": A, "y": R("e", 2, 3, 1, 1)})
case("elementwise_pow", op("elementwise_pow", {"X": "x", "Y": "y"}, axis=-1), {"x": R("p", 3, 4, lo=0.5, hi=2), "y": R("q", 4, lo=-2, hi=2)})
case("elementwise_floordiv", op("elementwise_floordiv", {"X": "x", "Y": "y"}, axis=-1), {"x": I("fx", 3, 4, lo=-9, hi=9), "y": I("fy", 4, lo=1, hi=4)})
case("elementwise_mod", op("elementwise_mod", {"X": "x", "Y": "y"}, axis=-1), {"x": I("mx", 3, 4, lo=-9, hi=9), "y": I("my", 4, lo=1, hi=4)})
case("less_than_bcast", op("less_than", {"X": "x", "Y": "y"}, axis=-1), {"x": A, "y": R("c", 4, 5)})
case("equal", op("equal", {"X": "x", "Y": "y"}), {"x": I("ex", 3, 4), "y": I("ey", 3, 4)})
# Paddle 2.6 ignores swish's beta, relu6's threshold and hard_swish's threshold/scale/offset (its
# kernels have none: extra attributes)
for t, kw in [("relu", {}), ("sigmoid", {}), ("tanh", {}), ("exp", {}), ("abs", {}), ("square", {}), ("silu", {}), ("floor", {}),
              ("ceil", {}), ("sin", {}), ("cos", {}), ("erf", {}), ("reciprocal", {}), ("softsign", {}), ("tanh_shrink", {}),
              ("logsigmoid", {}), ("relu6", {}), ("relu6", dict(threshold=2.0)), ("swish", {}), ("swish", dict(beta=1.5)), ("hard_sigmoid", dict(slope=0.1666667, offset=0.5)),
              ("hard_sigmoid", dict(slope=0.2, offset=0.5)), ("hard_swish", {}), ("hard_swish", dict(threshold=5.0, scale=4.0, offset=2.0)),
              ("leaky_relu", dict(alpha=0.1)), ("elu", dict(alpha=0.7)), ("gelu", dict(approximate=False)), ("gelu", dict(approximate=True)),
              ("softplus", dict(beta=2.0, threshold=3.0)), ("mish", dict(threshold=20.0)), ("hard_shrink", dict(threshold=0.6)),
              ("softshrink", dict(**{"lambda": 0.4})), ("thresholded_relu", dict(threshold=0.8)), ("selu", {}), ("celu", dict(alpha=1.3)),
              ("brelu", dict(t_min=-1.0, t_max=2.0)), ("stanh", {}), ("softmax", dict(axis=1)), ("softmax", dict(axis=-1)),
              ("log_softmax", dict(axis=2)), ("logit", dict(eps=0.01)), ("round", {}), ("sign", {})]:
    nm = t + "".join(f"_{k}{v}" for k, v in kw.items())
    x = R("act", 3, 4, 5, lo=-4, hi=4)
    if t == "logit":
        x = R("act", 3, 4, 5, lo=0.05, hi=0.95)
    case(nm, op(t, {"X": "x"}, **kw), {"x": x}, rtol=1e-5, atol=2e-6)
for t in ["log", "sqrt", "rsqrt"]:
    case(t, op(t, {"X": "x"}), {"x": R("pos", 3, 4, lo=0.1, hi=4)})

# ---------------------------------------------------------------- scale, clip, pow, cast
case("scale_after", op("scale", {"X": "x"}, scale=2.5, bias=-1.0, bias_after_scale=True), {"x": A})
case("scale_before", op("scale", {"X": "x"}, scale=2.5, bias=-1.0, bias_after_scale=False), {"x": A})
case("scale_tensor", op("scale", {"X": "x", "ScaleTensor": "s"}, scale=9.0, bias=0.5, bias_after_scale=True), {"x": A, "s": np.array([3.0], "float32")})
case("scale_int", op("scale", {"X": "x"}, scale=3.0, bias=1.0, bias_after_scale=True), {"x": I("si", 3, 4, lo=-5, hi=5)})
case("clip", op("clip", {"X": "x"}, min=-0.3, max=0.5), {"x": A})
case("clip_tensors", op("clip", {"X": "x", "Min": "lo", "Max": "hi"}, min=-9.0, max=9.0), {"x": A, "lo": np.array([-0.2], "float32"), "hi": np.array([0.1], "float32")})
case("pow", op("pow", {"X": "x"}, factor=2.5), {"x": R("pw", 3, 4, lo=0.1, hi=2)})
case("pow_tensor", op("pow", {"X": "x", "FactorTensor": "f"}, factor=1.0), {"x": R("pw", 3, 4, lo=0.1, hi=2), "f": np.array([3.0], "float32")})
case("cast_f2i", op("cast", {"X": "x"}, in_dtype=5, out_dtype=3), {"x": R("cf", 3, 4, lo=-5, hi=5)})
case("cast_i2f", op("cast", {"X": "x"}, in_dtype=3, out_dtype=6), {"x": I("ci", 3, 4)})
case("increment", op("increment", {"X": "x"}, step=2.0), {"x": np.array([3.0], "float32")})

# ---------------------------------------------------------------- matmul
for nm, xs, ys, kw in [("matmul_v1", (3, 4), (4, 5), {}), ("matmul_v1_tx", (4, 3), (4, 5), dict(transpose_X=True)),
                       ("matmul_v1_ty_alpha", (2, 3, 4), (2, 5, 4), dict(transpose_Y=True, alpha=0.5)),
                       ("matmul_v1_batch_2d", (2, 3, 4), (4, 5), {}), ("matmul_v1_2d_batch", (3, 4), (2, 4, 5), {}),
                       ("matmul_v1_batch_flat", (2, 2, 3, 4), (4, 4, 5), {}), ("matmul_v1_vec", (2, 3, 4), (4,), {}),
                       ("matmul_v1_vecvec", (4,), (4,), {})]:
    case(nm, op("matmul", {"X": "x", "Y": "y"}, **kw), {"x": R("mx", *xs), "y": R("my", *ys)}, rtol=1e-5, atol=1e-5)
for nm, xs, ys, kw in [("matmul_v2", (2, 3, 4), (4, 5), {}), ("matmul_v2_trans", (2, 4, 3), (1, 5, 4), dict(trans_x=True, trans_y=True))]:
    case(nm, op("matmul_v2", {"X": "x", "Y": "y"}, **kw), {"x": R("mx", *xs), "y": R("my", *ys)})
case("bmm", op("bmm", {"X": "x", "Y": "y"}), {"x": R("bx", 2, 3, 4), "y": R("by", 2, 4, 5)})

# ---------------------------------------------------------------- shape ops
B = R("bshape", 2, 3, 4, 5)
case("reshape2", op("reshape2", {"X": "x"}, {"Out": "out", "XShape": "xs"}, shape=[0, -1, 5]), {"x": B})
case("reshape2_shape_tensor", op("reshape2", {"X": "x", "Shape": "s"}, {"Out": "out", "XShape": "xs"}, shape=[4, 30]), {"x": B, "s": np.array([6, 20], "int32")})
case("reshape2_shape_list", [op("fill_constant", {}, {"Out": "d0"}, shape=[1], dtype=2, value=6.0, str_value="6"),
                             op("reshape2", {"X": "x", "ShapeTensor": ["d0", "d1"]}, {"Out": "out", "XShape": "xs"}, shape=[1, 1])],
     {"x": B, "d1": np.array([-1], "int32")})
case("transpose2", op("transpose2", {"X": "x"}, {"Out": "out", "XShape": "xs"}, axis=[0, 2, 3, 1]), {"x": B})
case("squeeze2", op("squeeze2", {"X": "x"}, {"Out": "out", "XShape": "xs"}, axes=[1, 2]), {"x": R("sq", 3, 1, 1, 2)})
case("squeeze2_nonone", op("squeeze2", {"X": "x"}, {"Out": "out", "XShape": "xs"}, axes=[0, 1]), {"x": R("sq", 3, 1, 1, 2)})
case("unsqueeze2", op("unsqueeze2", {"X": "x"}, {"Out": "out", "XShape": "xs"}, axes=[0, -1]), {"x": R("us", 3, 2)})
case("flatten_contiguous_range", op("flatten_contiguous_range", {"X": "x"}, {"Out": "out", "XShape": "xs"}, start_axis=1, stop_axis=2), {"x": B})
case("flatten2", op("flatten2", {"X": "x"}, {"Out": "out", "XShape": "xs"}, axis=2), {"x": B})
case("concat", op("concat", {"X": ["a", "b"]}, axis=1), {"a": R("ca", 2, 3, 4), "b": R("cb", 2, 2, 4)})
case("stack", op("stack", {"X": ["a", "b"]}, {"Y": "out"}, axis=-1), {"a": R("ca", 2, 3, 4), "b": R("cc", 2, 3, 4)})
case("split_num", op("split", {"X": "x"}, {"Out": ["o1", "o2"]}, num=2, axis=3, sections=[]), {"x": R("sp", 2, 3, 4, 6)}, fetch=("o1", "o2"))
case("split_sections", op("split", {"X": "x"}, {"Out": ["o1", "o2", "o3"]}, num=0, axis=1, sections=[1, -1, 1]), {"x": R("sp2", 2, 5, 4)}, fetch=("o1", "o2", "o3"))
case("unstack", op("unstack", {"X": "x"}, {"Y": ["o1", "o2"]}, axis=1, num=2), {"x": R("ust", 3, 2, 4)}, fetch=("o1", "o2"))
case("expand_v2", op("expand_v2", {"X": "x"}, shape=[2, -1, 4]), {"x": R("ex", 3, 1)})
case("expand_v2_tensor", op("expand_v2", {"X": "x", "Shape": "s"}, shape=[]), {"x": R("ex", 3, 1), "s": np.array([2, 3, 4], "int32")})
case("expand_as_v2", op("expand_as_v2", {"X": "x", "Y": "y"}, target_shape=[2, 3, 4]), {"x": R("ex", 3, 1), "y": R("ey", 2, 3, 4)})
case("tile", op("tile", {"X": "x"}, repeat_times=[2, 1, 3]), {"x": R("tl", 3, 2)})
case("expand_v1", op("expand", {"X": "x"}, expand_times=[2, 3]), {"x": R("tl", 3, 2)})
case("slice_decrease", op("slice", {"Input": "x"}, axes=[1, 2], starts=[1, -3], ends=[2, 10000], decrease_axis=[1], infer_flags=[1, 1]), {"x": B})
case("slice_plain", op("slice", {"Input": "x"}, axes=[0, 3], starts=[0, 1], ends=[1, -1], decrease_axis=[], infer_flags=[1, 1]), {"x": B})
case("slice_starts_tensor", op("slice", {"Input": "x", "StartsTensor": "st", "EndsTensor": "en"}, axes=[1, 3], starts=[0, 0], ends=[1, 1], infer_flags=[-1, -1], decrease_axis=[]),
     {"x": B, "st": np.array([1, 2], "int64"), "en": np.array([3, 4], "int32")})
case("slice_starts_list", [op("fill_constant", {}, {"Out": "s0"}, shape=[1], dtype=3, value=1.0, str_value="1"),
                           op("slice", {"Input": "x", "StartsTensorList": "s0"}, axes=[2], starts=[-1], ends=[2], infer_flags=[-1], decrease_axis=[2])], {"x": B})
case("shape_slice_reshape", [op("shape", {"Input": "x"}, {"Out": "sh"}),
                             op("slice", {"Input": "sh"}, {"Out": "n"}, axes=[0], starts=[0], ends=[1], decrease_axis=[0], infer_flags=[1]),
                             op("fill_constant", {}, {"Out": "m1"}, shape=[1], dtype=2, value=-1.0, str_value="-1"),
                             op("reshape2", {"X": "x", "ShapeTensor": ["n", "m1"]}, {"Out": "out", "XShape": "xs"}, shape=[0, 0])], {"x": B})
case("strided_slice", op("strided_slice", {"Input": "x"}, axes=[1, 3], starts=[0, 4], ends=[3, 0], strides=[2, -1], infer_flags=[1, 1], decrease_axis=[]), {"x": B})
case("gather_axis", op("gather", {"X": "x", "Index": "i"}, axis=1), {"x": B, "i": np.array([2, 0, 2], "int64")})
case("gather_nd", op("gather_nd", {"X": "x", "Index": "i"}), {"x": B, "i": np.array([[1, 2], [0, 0]], "int64")})
case("index_select", op("index_select", {"X": "x", "Index": "i"}, dim=2), {"x": B, "i": np.array([3, 1], "int64")})
case("where", op("where", {"Condition": "c", "X": "x", "Y": "y"}), {"c": rng("wc").random((3, 4)) > 0.5, "x": R("wx", 3, 4), "y": R("wy", 3, 4)})
case("where_index", op("where_index", {"Condition": "c"}), {"c": rng("wi").random((3, 4)) > 0.5})
case("assign", op("assign", {"X": "x"}), {"x": A})
case("shape", op("shape", {"Input": "x"}), {"x": B})
case("fill_constant", op("fill_constant", {}, shape=[2, 3], dtype=5, value=1.5, str_value="1.5"))
case("fill_constant_int64", op("fill_constant", {}, shape=[3], dtype=3, value=0.0, str_value="123456789012"))
case("fill_constant_shape_list", [op("shape", {"Input": "x"}, {"Out": "sh"}),
                                  op("fill_constant", {"ShapeTensor": "sh"}, shape=[], dtype=5, value=2.0, str_value="2.0")], {"x": R("fc", 2, 3)})
case("fill_constant_value_tensor", op("fill_constant", {"ValueTensor": "v"}, shape=[2, 2], dtype=5, value=0.0), {"v": np.array([4.5], "float32")})
case("fill_constant_batch_size_like", op("fill_constant_batch_size_like", {"Input": "x"}, shape=[4, -1, 3], input_dim_idx=0, output_dim_idx=1, dtype=5, value=0.5, str_value="0.5"),
     {"x": R("fb", 5, 2)})
case("fill_any_like", op("fill_any_like", {"X": "x"}, value=3.0, dtype=-1), {"x": A})
case("assign_value_f32", op("assign_value", {}, shape=[2, 2], dtype=5, fp32_values=[1.5, -2.0, 0.25, 8.0]))
case("assign_value_i64", op("assign_value", {}, shape=[3], dtype=3, int64_values=[7, -3, 123456789]))
case("range", op("range", {"Start": "s", "End": "e", "Step": "d"}), {"s": np.array([1.0], "float32"), "e": np.array([5.5], "float32"), "d": np.array([0.75], "float32")})
case("range_int", op("range", {"Start": "s", "End": "e", "Step": "d"}), {"s": np.array([10], "int64"), "e": np.array([-3], "int64"), "d": np.array([-4], "int64")})
case("linspace", op("linspace", {"Start": "s", "Stop": "e", "Num": "n"}, dtype=5), {"s": np.array([0.0], "float32"), "e": np.array([1.0], "float32"), "n": np.array([5], "int32")})
case("one_hot_v2", op("one_hot_v2", {"X": "x"}, depth=5, dtype=5, allow_out_of_range=False), {"x": I("oh", 2, 3)})
case("pad", op("pad", {"X": "x"}, paddings=[0, 1, 2, 0], pad_value=1.5), {"x": R("pd", 2, 3)})
case("pad3d_reflect", op("pad3d", {"X": "x"}, paddings=[1, 0, 2, 1, 0, 1], mode="reflect", value=0.0, data_format="NCDHW"), {"x": R("p3", 1, 2, 3, 4, 5)})
case("pad3d_const_ndhwc", op("pad3d", {"X": "x"}, paddings=[1, 0, 2, 1, 0, 1], mode="constant", value=2.0, data_format="NDHWC"), {"x": R("p3", 1, 2, 3, 4, 5)})
case("take_along_axis", op("take_along_axis", {"Input": "x", "Index": "i"}, {"Result": "out"}, Axis=1), {"x": R("ta", 3, 4), "i": I("ti", 3, 2, hi=4)})
case("put_along_axis_add", op("put_along_axis", {"Input": "x", "Index": "i", "Value": "v"}, {"Result": "out"}, Axis=1, Reduce="add"),
     {"x": R("ta", 3, 4), "i": I("ti", 3, 2, hi=4), "v": R("tv", 3, 2)})

# ---------------------------------------------------------------- reductions, sorting, indexing
for t, kw in [("reduce_sum", dict(dim=[1, 2], keep_dim=False, reduce_all=False)), ("reduce_mean", dict(dim=[-1], keep_dim=True, reduce_all=False)),
              ("reduce_max", dict(dim=[0], keep_dim=False, reduce_all=True)), ("reduce_min", dict(dim=[2], keep_dim=False, reduce_all=False)),
              ("reduce_prod", dict(dim=[3], keep_dim=False, reduce_all=False))]:
    case(t, op(t, {"X": "x"}, **kw), {"x": B}, rtol=1e-5, atol=1e-5)
case("mean_all", op("mean", {"X": "x"}), {"x": B})
case("sum_add_n", op("sum", {"X": ["a", "b", "c"]}), {"a": R("s1", 3, 4), "b": R("s2", 3, 4), "c": R("s3", 3, 4)})
case("p_norm", op("p_norm", {"X": "x"}, porder=2.0, axis=1, epsilon=1e-12, keepdim=False, asvector=False), {"x": B})
case("arg_max", op("arg_max", {"X": "x"}, axis=2, keepdims=False, flatten=False, dtype=3), {"x": B})
case("arg_max_keep_i32", op("arg_max", {"X": "x"}, axis=-1, keepdims=True, flatten=False, dtype=2), {"x": B})
case("top_k_v2", op("top_k_v2", {"X": "x"}, {"Out": "out", "Indices": "idx"}, k=2, axis=1, largest=True, sorted=True), {"x": B}, fetch=("out", "idx"))
case("top_k_v2_small", op("top_k_v2", {"X": "x"}, {"Out": "out", "Indices": "idx"}, k=3, axis=-1, largest=False, sorted=True), {"x": B}, fetch=("out", "idx"))
case("top_k_v1", op("top_k", {"X": "x"}, {"Out": "out", "Indices": "idx"}, k=2), {"x": B}, fetch=("out", "idx"))
case("argsort", op("argsort", {"X": "x"}, {"Out": "out", "Indices": "idx"}, axis=1, descending=True), {"x": B}, fetch=("out", "idx"))
case("cumsum", op("cumsum", {"X": "x"}, axis=1, flatten=False, exclusive=True, reverse=True), {"x": B})
case("lookup_table_v2", op("lookup_table_v2", {"Ids": "i", "W": "w"}, padding_idx=2), {"i": I("lt", 2, 3, hi=6)}, {"w": R("lw", 6, 4)})
case("softmax_with_cross_entropy", op("softmax_with_cross_entropy", {"Logits": "x", "Label": "l"}, {"Softmax": "sm", "Loss": "out"},
                                      soft_label=False, ignore_index=-100, numeric_stable_mode=True, axis=-1),
     {"x": R("ce", 4, 5), "l": I("cl", 4, 1, hi=5)}, fetch=("out", "sm"))
case("isnan_v2", op("isnan_v2", {"X": "x"}), {"x": np.array([1.0, np.nan, 3.0], "float32")})

# ---------------------------------------------------------------- interpolation
IT = dict(data_layout="NCHW", out_d=-1, out_h=-1, out_w=-1, scale=[], align_corners=False, align_mode=1)
XI = R("xi", 2, 3, 5, 6)
for nm, t, kw in [("nearest_scale2", "nearest_interp_v2", dict(scale=[2.0, 2.0], interp_method="nearest")),
                  ("nearest_size", "nearest_interp_v2", dict(out_h=7, out_w=4, interp_method="nearest")),
                  ("nearest_size_ac", "nearest_interp_v2", dict(out_h=9, out_w=11, interp_method="nearest", align_corners=True)),
                  ("nearest_scale_frac", "nearest_interp_v2", dict(scale=[1.7, 0.6], interp_method="nearest")),
                  ("bilinear_size", "bilinear_interp_v2", dict(out_h=9, out_w=4, interp_method="bilinear")),
                  ("bilinear_size_am0", "bilinear_interp_v2", dict(out_h=9, out_w=4, interp_method="bilinear", align_mode=0)),
                  ("bilinear_size_ac", "bilinear_interp_v2", dict(out_h=9, out_w=4, interp_method="bilinear", align_corners=True)),
                  ("bilinear_scale", "bilinear_interp_v2", dict(scale=[1.5, 2.5], interp_method="bilinear", align_mode=0)),
                  ("bilinear_out1", "bilinear_interp_v2", dict(out_h=1, out_w=3, interp_method="bilinear", align_mode=0)),
                  ("bicubic_size", "bicubic_interp_v2", dict(out_h=8, out_w=9, interp_method="bicubic")),
                  ("bicubic_size_ac", "bicubic_interp_v2", dict(out_h=8, out_w=9, interp_method="bicubic", align_corners=True))]:
    case("interp_" + nm, op(t, {"X": "x"}, **{**IT, **kw}), {"x": XI}, rtol=1e-4, atol=1e-5)
# float64: Paddle's coordinates and linear weights are float32 even here (tight tolerance)
for nm, t, kw in [("bilinear_f64", "bilinear_interp_v2", dict(out_h=9, out_w=7, interp_method="bilinear", align_mode=0)),
                  ("bilinear_f64_am1", "bilinear_interp_v2", dict(out_h=9, out_w=7, interp_method="bilinear", align_mode=1)),
                  ("bilinear_f64_ac", "bilinear_interp_v2", dict(out_h=9, out_w=7, interp_method="bilinear", align_corners=True)),
                  ("bicubic_f64", "bicubic_interp_v2", dict(out_h=9, out_w=7, interp_method="bicubic")),
                  ("nearest_f64", "nearest_interp_v2", dict(out_h=9, out_w=7, interp_method="nearest"))]:
    # (bilinear with align_mode 0 rounds its source coordinate in a way we match to ~2e-7 only)
    tol = 1e-6 if nm == "bilinear_f64" else 1e-12
    case("interp_" + nm, op(t, {"X": "x"}, **{**IT, **kw}), {"x": R("xi64", 2, 3, 5, 6, dtype="float64")}, rtol=tol, atol=tol)
case("interp_nearest_nhwc", op("nearest_interp_v2", {"X": "x"}, **{**IT, "data_layout": "NHWC", "out_h": 10, "out_w": 3, "interp_method": "nearest"}),
     {"x": R("xh", 2, 5, 6, 3)})
case("interp_bilinear_outsize", op("bilinear_interp_v2", {"X": "x", "OutSize": "sz"}, **{**IT, "out_h": 3, "out_w": 3, "interp_method": "bilinear"}),
     {"x": XI, "sz": np.array([8, 10], "int32")}, rtol=1e-4, atol=1e-5)
case("interp_nearest_scale_tensor", op("nearest_interp_v2", {"X": "x", "Scale": "sc"}, **{**IT, "interp_method": "nearest"}),
     {"x": XI, "sc": np.array([2.0, 3.0], "float32")})
case("interp_linear", op("linear_interp_v2", {"X": "x"}, **{**IT, "out_w": 9, "interp_method": "linear", "data_layout": "NCHW"}),
     {"x": R("xl", 2, 3, 5)}, rtol=1e-4, atol=1e-5)
case("interp_trilinear", op("trilinear_interp_v2", {"X": "x"}, **{**IT, "out_d": 3, "out_h": 4, "out_w": 5, "interp_method": "trilinear", "data_layout": "NCHW"}),
     {"x": R("x3", 1, 2, 2, 3, 4)}, rtol=1e-4, atol=1e-5)
# Paddle's interpolate kernels take only "NCHW" as channel-first: "NCDHW" reads as channel-last
case("interp_trilinear_ncdhw_string", op("trilinear_interp_v2", {"X": "x"}, **{**IT, "out_d": 3, "out_h": 4, "out_w": 5, "interp_method": "trilinear", "data_layout": "NCDHW"}),
     {"x": R("x3", 1, 2, 2, 3, 4)}, rtol=1e-4, atol=1e-5)

# ---------------------------------------------------------------- detection
case("prior_box", op("prior_box", {"Input": "f", "Image": "im"}, {"Boxes": "out", "Variances": "var"}, min_sizes=[16.0, 24.0], max_sizes=[],
                     aspect_ratios=[1.0], variances=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, step_w=8.0, step_h=8.0, offset=0.5,
                     min_max_aspect_ratios_order=False),
     {"f": R("pf", 1, 4, 5, 6), "im": R("pi", 1, 3, 40, 48)}, fetch=("out", "var"))
case("prior_box_ratios", op("prior_box", {"Input": "f", "Image": "im"}, {"Boxes": "out", "Variances": "var"}, min_sizes=[10.0], max_sizes=[20.0],
                            aspect_ratios=[2.0, 3.0], variances=[0.1, 0.1, 0.2, 0.2], flip=True, clip=True, step_w=0.0, step_h=0.0, offset=0.5,
                            min_max_aspect_ratios_order=True),
     {"f": R("pf", 1, 4, 3, 4), "im": R("pi", 1, 3, 30, 40)}, fetch=("out", "var"))
pb = np.sort(R("pb", 6, 4, lo=0, hi=1).reshape(6, 2, 2), axis=1).reshape(6, 4)
case("box_coder_decode", op("box_coder", {"PriorBox": "p", "PriorBoxVar": "pv", "TargetBox": "t"}, {"OutputBox": "out"},
                            code_type="decode_center_size", box_normalized=True, axis=0, variance=[]),
     {"p": pb, "pv": R("pv", 6, 4, lo=0.1, hi=0.3), "t": R("tb", 2, 6, 4)})
case("box_coder_decode_var_attr", op("box_coder", {"PriorBox": "p", "TargetBox": "t"}, {"OutputBox": "out"},
                                     code_type="decode_center_size", box_normalized=False, axis=0, variance=[0.1, 0.1, 0.2, 0.2]),
     {"p": pb * 50, "t": R("tb", 2, 6, 4)})
case("box_coder_encode", op("box_coder", {"PriorBox": "p", "PriorBoxVar": "pv", "TargetBox": "t"}, {"OutputBox": "out"},
                            code_type="encode_center_size", box_normalized=True, axis=0, variance=[]),
     {"p": pb, "pv": R("pv", 6, 4, lo=0.1, hi=0.3), "t": np.sort(R("tt", 3, 4, lo=0, hi=1).reshape(3, 2, 2), axis=1).reshape(3, 4)})
case("yolo_box", op("yolo_box", {"X": "x", "ImgSize": "s"}, {"Boxes": "out", "Scores": "sc"}, anchors=[10, 13, 16, 30], class_num=3,
                    conf_thresh=0.01, downsample_ratio=8, clip_bbox=True, scale_x_y=1.05, iou_aware=False, iou_aware_factor=0.5),
     {"x": R("yx", 2, 16, 4, 5, lo=-3, hi=3), "s": np.array([[32, 40], [30, 36]], "int32")}, fetch=("out", "sc"), rtol=1e-4, atol=1e-4)
case("yolo_box_noclip", op("yolo_box", {"X": "x", "ImgSize": "s"}, {"Boxes": "out", "Scores": "sc"}, anchors=[10, 13, 16, 30], class_num=3,
                           conf_thresh=0.3, downsample_ratio=16, clip_bbox=False, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5),
     {"x": R("yx", 2, 16, 4, 5, lo=-3, hi=3), "s": np.array([[32, 40], [30, 36]], "int32")}, fetch=("out", "sc"), rtol=1e-4, atol=1e-4)
_nb = np.sort(R("nb", 2, 12, 4, lo=0, hi=20).reshape(2, 12, 2, 2), axis=2).reshape(2, 12, 4)
_ns = R("ns", 2, 4, 12, lo=0, hi=1)
for nm, kw in [("nms3", dict(background_label=0, score_threshold=0.2, nms_top_k=10, keep_top_k=8, nms_threshold=0.4, normalized=False, nms_eta=1.0)),
               ("nms3_eta", dict(background_label=-1, score_threshold=0.1, nms_top_k=-1, keep_top_k=-1, nms_threshold=0.7, normalized=True, nms_eta=0.8)),
               ("nms3_none", dict(background_label=0, score_threshold=2.0, nms_top_k=10, keep_top_k=8, nms_threshold=0.4, normalized=True, nms_eta=1.0))]:
    case(nm, op("multiclass_nms3", {"BBoxes": "b", "Scores": "s"}, {"Out": "out", "Index": "idx", "NmsRoisNum": "num"}, **kw),
         {"b": _nb, "s": _ns}, fetch=("out", "idx", "num"))

# ---------------------------------------------------------------- rnn
def rnn_case(name, mode, layers, bidi, T=4, N=3, I=5, H=4, seq=False):
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    D = 2 if bidi else 1
    ws, bs, params = [], [], {}
    for l in range(layers):
        for d in range(D):
            k = l * D + d
            inp = I if l == 0 else H * D
            for nm, shp, lst in [(f"w_ih{k}", (gates * H, inp), ws), (f"w_hh{k}", (gates * H, H), ws),
                                 (f"b_ih{k}", (gates * H,), bs), (f"b_hh{k}", (gates * H,), bs)]:
                params[nm] = R(name + nm, *shp, lo=-0.5, hi=0.5)
                lst.append(nm)
    feeds = {"x": R(name + "x", T, N, I), "h0": R(name + "h0", layers * D, N, H)}
    pre = ["h0"]
    outs = ["hn"]
    if mode == "LSTM":
        feeds["c0"] = R(name + "c0", layers * D, N, H)
        pre.append("c0")
        outs.append("cn")
    ins = {"Input": "x", "PreState": pre, "WeightList": ws + bs}
    if seq:
        feeds["sl"] = np.array([4, 2, 3], "int32")
        ins["SequenceLength"] = "sl"
    case(name, op("rnn", ins, {"Out": "out", "State": outs, "Reserve": "rs", "DropoutState": "ds"}, mode=mode, num_layers=layers,
                  is_bidirec=bidi, input_size=I, hidden_size=H, dropout_prob=0.0, seed=0, is_test=True),
         feeds, params, fetch=["out"] + outs, rtol=1e-4, atol=1e-5)


rnn_case("rnn_lstm_bidi2", "LSTM", 2, True)
rnn_case("rnn_gru", "GRU", 1, False)
rnn_case("rnn_gru_bidi_seq", "GRU", 1, True, seq=True)
rnn_case("rnn_tanh2", "RNN_TANH", 2, False)
