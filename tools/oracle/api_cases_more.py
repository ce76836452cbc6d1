"""The differential harness's families for the public callables the other families leave out
(issue 23): "inplace" (paddle.X_ functions and Tensor.X_ methods: values, dtype, shape, that the
input was modified and the result is the input object, the error class where Paddle refuses),
"random" (seeded with paddle.seed just before the call: values bit for bit where Paddle-C
reproduces Paddle's CPU stream, otherwise shape / dtype / range / statistics through "post"),
"framework" (paddle's framework functions, Tensor utility methods and the Tensor forms of the
linalg functions, nn.functional leftovers: Python answers through "post" / "call"), "tensor" (the
Tensor-method forms of functions whose method no other family calls).
Case options: see tests/conformance/harness.py run_case."""

from api_case_specs import F, D, L, P, T, _c

# ---------------------------------------------------------------- in-place
_x, _y = T([3, 4], seed=400), T([3, 4], seed=401)
_pos = T([3, 4], seed=402, low=0.5, high=3.0)
_i1, _i2 = T([3, 4], "int64", 403, 1, 20), T([3, 4], "int64", 404, 1, 20)
_ip = T([3, 4], "int64", 405, 1, 5)
_b1, _b2 = T([3, 4], "bool", 406), T([3, 4], "bool", 407)
_e1, _e2 = D([[1.0, 2.0, 3.0, 4.0]], "float32"), D([[1.0, 3.0, 2.0, 4.0]], "float32")

# name -> (args, kwargs)
INPLACE = {
    "abs_": ([_x], {}), "log_": ([_pos], {}), "neg_": ([_x], {}), "sin_": ([_x], {}), "square_": ([_x], {}),
    "tanh_": ([_x], {}), "trunc_": ([_x], {}),
    "multiply_": ([_x, _y], {}), "divide_": ([_x, _pos], {}), "pow_": ([_pos, P(2.0)], {}),
    "remainder_": ([_x, _pos], {}), "mod_": ([_i1, _ip], {}), "floor_mod_": ([_i1, _ip], {}),
    "floor_divide_": ([_i1, _ip], {}), "hypot_": ([_x, _y], {}), "ldexp_": ([_x, T([3, 4], "int32", 408, -2, 3)], {}),
    "gcd_": ([_i1, _i2], {}), "lcm_": ([_i1, _i2], {}),
    "equal_": ([_e1, _e2], {}), "not_equal_": ([_e1, _e2], {}), "greater_equal_": ([_e1, _e2], {}),
    "greater_than_": ([_e1, _e2], {}), "less_equal_": ([_e1, _e2], {}), "less_than_": ([_e1, _e2], {}),
    "logical_and_": ([_b1, _b2], {}), "logical_or_": ([_b1, _b2], {}), "logical_xor_": ([_b1, _b2], {}),
    "logical_not_": ([_b1], {}),
    "bitwise_and_": ([_i1, _i2], {}), "bitwise_or_": ([_i1, _i2], {}), "bitwise_xor_": ([_i1, _i2], {}),
    "bitwise_not_": ([_i1], {}),
    "addmm_": ([T([3, 2], seed=409), _x, T([4, 2], seed=410)], {"beta": 0.5, "alpha": 2.0}),
    "cast_": ([_x], {"dtype": "float64"}),
    "index_add_": ([_x, D([2, 0]), P(0), T([2, 4], seed=411)], {}),
    "index_fill_": ([_x, D([0, 2]), P(0), P(-2.0)], {}),
    "index_put_": ([_x, (D([0, 2]), D([1, 3])), T([2], seed=412)], {}),
    "masked_fill_": ([_x, T([3, 4], "bool", 413), P(0.5)], {}),
    "reshape_": ([_x], {"shape": [2, 6]}),
    "squeeze_": ([T([3, 1, 4], seed=414)], {"axis": 1}),
    "scatter_": ([T([5, 3], seed=415), D([1, 3]), T([2, 3], seed=416)], {}),
    "where_": ([T([3, 4], "bool", 417), _x, _y], {}),
    "fill_diagonal_tensor_": ([T([3, 4], seed=418), T([3], seed=419)], {}),
}
# paddle.X_ functions (the rest are Tensor methods only in Paddle 2.6.2)
TENSOR_ONLY = {"logical_xor_", "not_equal_", "fill_diagonal_tensor_"}
# where Paddle refuses: the error class
INPLACE_ERR = {
    "multiply_|bcast_err": ("multiply_", [T([4], seed=420), _x], {}),
    "add_|bcast_err": ("add_", [T([1, 4], seed=420), _x], {}),
    "pow_|bcast_err": ("pow_", [T([4], seed=420, low=0.5), _pos], {}),
    "equal_|bcast_err": ("equal_", [T([4], seed=420), _x], {}),
    "logical_and_|bcast_err": ("logical_and_", [T([4], "bool", 421), _b1], {}),
    "reshape_|err": ("reshape_", [_x], {"shape": [5, 5]}),
    "squeeze_|not1": ("squeeze_", [_x], {"axis": 0}),
    "index_add_|err": ("index_add_", [_x, D([7]), P(0), T([1, 4], seed=411)], {}),
    "masked_fill_|bcast_err": ("masked_fill_", [T([4], seed=420), T([3, 4], "bool", 413), P(0.5)], {}),
    "gcd_|float": ("gcd_", [_x, _y], {}),
    "bitwise_and_|float": ("bitwise_and_", [_x, _y], {}),
    # dtypes: x keeps its dtype, takes the comparison's bool, or is refused
    "multiply_|int_float": ("multiply_", [_i1, _x], {}),
    "subtract_|f32_f64": ("subtract_", [_x, T([3, 4], "float64", 425)], {}),
    "subtract_|f64_f32": ("subtract_", [T([3, 4], "float64", 425), _x], {}),
    "divide_|f32_int": ("divide_", [_x, _ip], {}),
    "abs_|int": ("abs_", [T([3, 4], "int64", 426)], {}),
    "neg_|int32": ("neg_", [T([3, 4], "int32", 427)], {}),
    "logical_and_|float": ("logical_and_", [_x, _y], {}),
    "logical_not_|int": ("logical_not_", [_i1], {}),
    "bitwise_or_|bool": ("bitwise_or_", [_b1, _b2], {}),
    "masked_fill_|int": ("masked_fill_", [_i1, T([3, 4], "bool", 413), P(2)], {}),
    "where_|f64": ("where_", [_x, T([3, 4], "bool", 417), T([3, 4], "float64", 428)], {}),
    "less_than_|int": ("less_than_", [_i1, _i2], {}),
    "index_put_|accumulate": ("index_put_", [_x, (D([0, 0]), D([1, 1])), T([2], seed=412), P(True)], {}),
}


MIXED = {"multiply_|int_float", "subtract_|f32_f64", "subtract_|f64_f32", "divide_|f32_int"}


def inplace_cases():
    out = []
    for name, (args, kw) in INPLACE.items():
        if name not in TENSOR_ONLY:
            out.append(_c("inplace", name, "paddle." + name, args, inplace="same", **kw))
        out.append(_c("inplace", "t." + name, "Tensor." + name, args, inplace="same", **kw))
    out.append(_c("inplace", "F.tanh_", F + "tanh_", [_x], inplace="same"))
    out.append(_c("inplace", "where_|method", "Tensor.where_", [_x, T([3, 4], "bool", 417), _y], inplace="same"))
    out.append(_c("inplace", "where_|target", "paddle.where_", [T([3, 4], "bool", 417), _x, _y],
                  post="[r, args[1], r is args[1]]"))
    out.append(_c("inplace", "fill_diagonal_tensor", "Tensor.fill_diagonal_tensor",
                  [T([3, 4], seed=418), T([3], seed=419)], offset=1))
    out.append(_c("inplace", "fill_diagonal_tensor|dims", "Tensor.fill_diagonal_tensor",
                  [T([2, 3, 3], seed=422), T([3, 2], seed=423)], dim1=0, dim2=2))
    out.append(_c("inplace", "t.exponential_|shape", "Tensor.exponential_", [T([0, 3], seed=424)], inplace="same"))
    for cid, (name, args, kw) in INPLACE_ERR.items():
        if cid in MIXED:  # Paddle 2.6.2 answers uninitialized memory here: the dtype only
            kw = dict(kw, post="[str(r.dtype), str(args[0].dtype), r is args[0]]")
        out.append(_c("inplace", cid, "Tensor." + name, args, inplace="same", **kw))
    return out


# ---------------------------------------------------------------- random
def _stats(lo=None, hi=None, mean=None, tol=None):
    """post: shape, dtype, every value in [lo, hi), and |mean - mean| < tol (Python answers)."""
    parts = ["r.shape", "str(r.dtype)"]
    if lo is not None:
        parts.append(f"bool((r.astype('float64') >= {lo}).all())")
    if hi is not None:
        parts.append(f"bool((r.astype('float64') < {hi}).all())")
    if mean is not None:
        parts.append(f"abs(float(r.astype('float64').mean()) - {mean}) < {tol}")
    return "[" + ", ".join(parts) + "]"


def random_cases():
    R = "random"
    out = []
    probs = D([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]], "float32")
    for cid, api, args, kw in [
            ("rand", "paddle.rand", [P([2, 3])], {}), ("rand|f64", "paddle.rand", [P([5])], {"dtype": "float64"}),
            ("rand|tensor_shape", "paddle.rand", [D([2, 2])], {}),
            ("randn", "paddle.randn", [P([7])], {}), ("randn|f64", "paddle.randn", [P([3, 2])], {"dtype": "float64"}),
            ("standard_normal", "paddle.standard_normal", [P([5])], {}),
            ("normal", "paddle.normal", [], {"mean": 0.3, "std": 2.5, "shape": [5]}),
            ("normal|tensors", "paddle.normal", [T([4], seed=430), T([4], seed=431, low=0.5)], {}),
            ("uniform", "paddle.uniform", [P([6])], {"min": -2.5, "max": 3.7}),
            ("uniform|f64", "paddle.uniform", [P([6])], {"dtype": "float64", "min": -1.0, "max": 1.0}),
            ("uniform|op_seed", "paddle.uniform", [P([4])], {"seed": 77}),
            ("randint", "paddle.randint", [P(-3), P(10), P([8])], {}),
            ("randint|high_none", "paddle.randint", [P(5)], {"shape": [6]}),
            ("randint|int32", "paddle.randint", [P(0), P(1000)], {"shape": [5], "dtype": "int32"}),
            ("randint_like", "paddle.randint_like", [T([5], seed=432), P(0), P(7)], {}),
            ("randint_like|int32", "paddle.randint_like", [T([2, 3], "int32", 433), P(-4), P(4)], {}),
            ("randperm", "paddle.randperm", [P(10)], {}), ("randperm|int32", "paddle.randperm", [P(7)], {"dtype": "int32"}),
            ("bernoulli", "paddle.bernoulli", [T([10], seed=434, low=0.0, high=0.75)], {}),
            ("bernoulli|f64", "paddle.bernoulli", [T([2, 5], "float64", 435, 0.0, 0.75)], {}),
            ("poisson", "paddle.poisson", [D([3.0, 0.5, 0.0, 11.5, 7.0, 1.0], "float32")], {}),
            ("multinomial", "paddle.multinomial", [D([0.1, 0.2, 0.3, 0.4], "float32"), P(6)], {"replacement": True}),
            ("multinomial|norep", "paddle.multinomial", [probs, P(3)], {}),
            ("Tensor.multinomial", "Tensor.multinomial", [probs, P(2)], {}),
            ("Tensor.exponential_", "Tensor.exponential_", [T([6], seed=436)], {"lam": 2.0}),
            ("Tensor.uniform_", "Tensor.uniform_", [T([6], seed=437)], {"min": -1.0, "max": 2.0}),
            ("normal_", "paddle.normal_", [T([6], seed=438)], {"mean": 1.0, "std": 0.5}),
            ("Tensor.normal_", "Tensor.normal_", [T([6], "float64", 438)], {}),
            ("rand|f16", "paddle.rand", [P([3])], {"dtype": "float16"}),
            ("randn|bf16", "paddle.randn", [P([3])], {"dtype": "bfloat16"}),
            ("rand|0d", "paddle.rand", [P([])], {}), ("rand|0size", "paddle.rand", [P([0, 3])], {}),
            ("randn|0size", "paddle.randn", [P([2, 0])], {}),
            ("standard_normal|f64", "paddle.standard_normal", [P([4])], {"dtype": "float64"}),
            ("uniform|min_gt_max", "paddle.uniform", [P([4])], {"min": 2.0, "max": 1.0}),
            ("randint|int16", "paddle.randint", [P(0), P(5), P([3])], {"dtype": "int16"}),
            ("randint|0size", "paddle.randint", [P(0), P(5), P([0])], {}),
            ("randint_like|bool", "paddle.randint_like", [T([4], seed=449), P(0), P(2)], {"dtype": "bool"}),
            ("randint_like|f64", "paddle.randint_like", [T([4], "float64", 449), P(-5), P(5)], {}),
            ("randperm|f32", "paddle.randperm", [P(6)], {"dtype": "float32"}),
            ("randperm|0", "paddle.randperm", [P(0)], {}),
            ("bernoulli|f16", "paddle.bernoulli", [T([6], "float16", 450, 0.0, 0.75)], {}),
            ("bernoulli|int", "paddle.bernoulli", [D([0, 1, 1], "int64")], {}),
            ("poisson|f64", "paddle.poisson", [D([2.0, 30.0, 0.25], "float64")], {}),
            ("poisson|int", "paddle.poisson", [D([2, 3], "int64")], {}),
            ("multinomial|f64", "paddle.multinomial", [D([0.3, 0.0, 0.7], "float64"), P(4)], {"replacement": True}),
            ("multinomial|int", "paddle.multinomial", [D([1, 2], "int64"), P(1)], {}),
            ("normal|f64", "paddle.normal", [T([3], "float64", 451), T([3], "float64", 452, 0.5)], {}),
            ("normal|mean_only", "paddle.normal", [T([2, 2], seed=453)], {"std": 2.0}),
            ("normal|std_only", "paddle.normal", [], {"mean": 1.0, "std": T([3], seed=454, low=0.5)}),
            ("Tensor.exponential_|f64", "Tensor.exponential_", [T([5], "float64", 455)], {}),
            ("gumbel_softmax", F + "gumbel_softmax", [D([0.5, -1.0, 2.0, 0.0], "float32")], {"temperature": 0.7}),
            ("gumbel_softmax|hard", F + "gumbel_softmax", [T([3, 4], seed=439)], {"hard": True}),
    ]:
        out.append(_c(R, cid, api, args, gseed=7, **kw))
    # streams Paddle-C does not reproduce: shape, dtype, range, mean
    for cid, api, args, kw, post in [
            ("cauchy_", "paddle.cauchy_", [T([400], seed=440)], {"loc": 1.0, "scale": 2.0},
             "[r.shape, str(r.dtype), abs(float(paddle.median(r)) - 1.0) < 0.4, r is args[0]]"),
            ("Tensor.cauchy_", "Tensor.cauchy_", [T([4], "float64", 441)], {}, _stats()),
            ("geometric_", "paddle.geometric_", [T([400], seed=442)], {"probs": 0.3},
             "[r.shape, str(r.dtype), r is args[0], bool((r > 0).all())]"),
            ("Tensor.geometric_", "Tensor.geometric_", [T([4], "float64", 443)], {"probs": 0.5}, _stats()),
            ("class_center_sample", F + "class_center_sample", [D([0, 5, 5, 9]), P(10), P(6)], {},
             "[r[0], r[1][:3], r[1].shape, len(set(r[1].numpy().tolist())), "
             "bool(paddle.isin(r[1][3:], paddle.to_tensor([0, 5, 9])).any())]"),
            ("pca_lowrank", "paddle.linalg.pca_lowrank", [T([6, 4], "float64", 444)], {"q": 2},
             "[r[0].shape, r[1], r[2].shape]"),
            ("Tensor.pca_lowrank", "Tensor.pca_lowrank", [T([5, 3], "float64", 445)], {"q": 2, "center": False},
             "[r[0].shape, r[1], r[2].shape]"),
    ]:
        out.append(_c(R, cid, api, args, gseed=7, post=post, **kw))
    # argument errors
    for cid, api, args, kw in [
            ("randint|err_range", "paddle.randint", [P(5), P(3), P([2])], {}),
            ("randint|err_dtype", "paddle.randint", [P(0), P(3), P([2])], {"dtype": "float32"}),
            ("rand|err_dtype", "paddle.rand", [P([2])], {"dtype": "int32"}),
            ("randn|err_dtype", "paddle.randn", [P([2])], {"dtype": "int64"}),
            ("uniform|err_dtype", "paddle.uniform", [P([2])], {"dtype": "int32"}),
            ("randperm|err_dtype", "paddle.randperm", [P(4)], {"dtype": "bool"}),
            ("multinomial|err_many", "paddle.multinomial", [D([0.5, 0.5], "float32"), P(3)], {}),
            ("multinomial|err_3d", "paddle.multinomial", [T([2, 2, 2], seed=446, low=0.1), P(1)], {}),
            ("normal|err_shape", "paddle.normal", [], {"shape": 3}),
            ("randint_like|err_range", "paddle.randint_like", [T([3], seed=447), P(4), P(2)], {}),
            ("rand|err_shape", "paddle.rand", [P("2")], {}),
            ("bernoulli|err_range", "paddle.bernoulli", [D([0.5, 1.5, -0.5], "float32")], {}),
            ("gumbel_softmax|err_temp", F + "gumbel_softmax", [T([3], seed=448)], {"temperature": -1.0}),
    ]:
        out.append(_c(R, cid, api, args, gseed=7, **kw))
    return out


# ---------------------------------------------------------------- framework, Tensor utilities, the rest
_DT_AFTER = "paddle.set_default_dtype('float32')"
_GRAD = "(setattr(args[0], 'stop_gradient', False), paddle.grad([(args[0] * args[0]).sum()], [args[0]]))[1]"
_BACKWARD = ("(setattr(args[0], 'stop_gradient', False), (args[0] * args[0]).sum().backward(), "
             "args[0].grad.numpy().tolist())[2]")


def framework_cases():
    f = "framework"
    x, x64 = T([2, 3], seed=450), T([2, 3], "float64", 451)
    spd = {"mat": "spd", "n": 3, "dtype": "float64", "seed": 452}
    out = []
    for cid, api, args, kw, extra in [
            ("get_default_dtype", "paddle.get_default_dtype", [], {}, {}),
            ("set_default_dtype", "paddle.set_default_dtype", [P("float64")], {},
             {"post": "[r, paddle.get_default_dtype(), str(paddle.zeros([1]).dtype), str(paddle.to_tensor(1.5).dtype)]",
              "after": _DT_AFTER}),
            ("set_default_dtype|f16", "paddle.set_default_dtype", [P("float16")], {},
             {"post": "[paddle.get_default_dtype(), str(paddle.rand([1]).dtype)]", "after": _DT_AFTER}),
            ("set_default_dtype|err", "paddle.set_default_dtype", [P("int32")], {}, {"after": _DT_AFTER}),
            ("seed", "paddle.seed", [P(5)], {}, {"post": "[type(r).__name__, r.initial_seed()]"}),
            ("get_rng_state", "paddle.get_rng_state", [], {},
             {"gseed": 3, "post": "[paddle.rand([3]), paddle.set_rng_state(r), paddle.rand([3])]"}),
            ("set_rng_state|err", "paddle.set_rng_state", [P(5)], {}, {}),
            ("get_cuda_rng_state", "paddle.get_cuda_rng_state", [], {}, {}),
            ("set_cuda_rng_state", "paddle.set_cuda_rng_state", [P([])], {}, {}),
            ("is_tensor", "paddle.is_tensor", [x], {}, {}), ("is_tensor|list", "paddle.is_tensor", [P([1.0])], {}, {}),
            ("is_grad_enabled", "paddle.is_grad_enabled", [], {},
             {"post": "[r, paddle.no_grad()(paddle.is_grad_enabled)()]"}),
            ("in_dynamic_mode", "paddle.in_dynamic_mode", [], {}, {}),
            ("static_mode", "paddle.enable_static", [], {},
             {"call": "[paddle.enable_static(), paddle.in_dynamic_mode(), paddle.disable_static(), "
                      "paddle.in_dynamic_mode()]", "after": "paddle.disable_static()"}),
            ("disable_static", "paddle.disable_static", [], {}, {"post": "[r, paddle.in_dynamic_mode()]"}),
            ("disable_signal_handler", "paddle.disable_signal_handler", [], {}, {}),
            ("get_flags", "paddle.get_flags", [P(["FLAGS_check_nan_inf"])], {}, {}),
            ("get_flags|str", "paddle.get_flags", [P("FLAGS_check_nan_inf")], {}, {}),
            ("get_flags|err", "paddle.get_flags", [P(["FLAGS_no_such_flag"])], {}, {}),
            ("set_flags", "paddle.set_flags", [P({"FLAGS_check_nan_inf": False})], {},
             {"post": "[r, paddle.get_flags('FLAGS_check_nan_inf')]"}),
            ("set_flags|err", "paddle.set_flags", [P({"FLAGS_no_such_flag": 1})], {}, {}),
            ("set_flags|type", "paddle.set_flags", [P(["FLAGS_check_nan_inf"])], {}, {}),
            ("grad", "paddle.grad", [x64], {}, {"call": _GRAD}),
            ("grad|unused", "paddle.grad", [x64, T([2], "float64", 453)], {},
             {"call": "(setattr(args[0], 'stop_gradient', False), setattr(args[1], 'stop_gradient', False), "
                      "paddle.grad([(args[0] * 2).sum()], [args[0], args[1]], allow_unused=True))[2]"}),
            ("grad|err_unused", "paddle.grad", [x64, T([2], "float64", 453)], {},
             {"call": "(setattr(args[0], 'stop_gradient', False), setattr(args[1], 'stop_gradient', False), "
                      "paddle.grad([(args[0] * 2).sum()], [args[0], args[1]]))[2]"}),
            ("create_parameter", "paddle.create_parameter", [P([2, 3]), P("float32")], {},
             {"post": "[r, r.shape, str(r.dtype), r.stop_gradient, r.trainable]",
              "pre": "paddle.seed(0)"}),
            ("create_parameter|const", "paddle.create_parameter", [P([3]), P("float64")], {},
             {"call": "paddle.create_parameter([3], 'float64', "
                      "default_initializer=paddle.nn.initializer.Constant(0.5))"}),
            ("create_parameter|bias", "paddle.create_parameter", [P([4]), P("float32")], {"is_bias": True}, {}),
            ("check_shape", "paddle.check_shape", [P([2, 3]), P("rand")], {}, {}),
            ("check_shape|one_arg", "paddle.check_shape", [P([2, 3])], {}, {}),
            ("check_shape|float", "paddle.check_shape", [P([2.5]), P("rand")], {}, {}),
            ("flops", "paddle.flops", [], {},
             {"call": "paddle.flops(paddle.nn.Linear(3, 4), [2, 3], print_detail=False)"}),
            ("flops|conv", "paddle.flops", [], {},
             {"call": "paddle.flops(paddle.nn.Conv2D(2, 4, 3), [1, 2, 8, 8], print_detail=False)"}),
            ("flops|net", "paddle.flops", [], {},
             {"call": "paddle.flops(paddle.nn.Sequential(paddle.nn.Linear(3, 4)), [2, 3], print_detail=False)"}),
            ("summary", "paddle.summary", [], {},
             {"call": "sorted((k, int(v)) for k, v in paddle.summary(paddle.nn.Sequential(paddle.nn.Linear(3, 4), "
                      "paddle.nn.ReLU(), paddle.nn.Linear(4, 2)), (1, 3)).items())"}),
            ("finfo", "paddle.finfo", [], {},
             {"call": "[(i.bits, i.eps, i.max, i.min, i.tiny, i.resolution, i.dtype) for i in "
                      "[paddle.finfo(paddle.float32), paddle.finfo(paddle.float64), paddle.finfo(paddle.float16)]]"}),
            ("iinfo", "paddle.iinfo", [], {},
             {"call": "[(i.bits, i.max, i.min, i.dtype) for i in [paddle.iinfo(paddle.int32), "
                      "paddle.iinfo(paddle.uint8), paddle.iinfo(paddle.int64)]]"}),
            ("iinfo|err", "paddle.iinfo", [], {}, {"call": "paddle.iinfo(paddle.float32)"}),
            ("empty_like", "paddle.empty_like", [x], {}, {"post": "[r.shape, str(r.dtype)]"}),
            ("empty_like|dtype", "paddle.empty_like", [x], {"dtype": "int64"}, {"post": "[r.shape, str(r.dtype)]"}),
            ("batch", "paddle.batch", [], {}, {"call": "list(paddle.batch(lambda: iter(range(5)), 2)())"}),
            ("batch|drop", "paddle.batch", [], {},
             {"call": "list(paddle.batch(lambda: iter(range(5)), 2, drop_last=True)())"}),
            ("set_printoptions", "paddle.set_printoptions", [D([0.123456, 2.5], "float32")], {},
             {"call": "(paddle.set_printoptions(precision=2), args[0].numpy().tolist(), str(args[0]).split('[')[-1])[1:]",
              "after": "paddle.set_printoptions(precision=8)"}),
            ("save_load", "paddle.save", [x], {},
             {"call": "(lambda p: (paddle.save({'w': args[0], 'n': 3}, p), paddle.load(p)['w'], paddle.load(p)['n']))"
                      "(__import__('os').path.join(__import__('tempfile').mkdtemp(), 'a.pdparams'))[1:]"}),
            ("load|err", "paddle.load", [P("/nonexistent/x.pdparams")], {}, {}),
    ]:
        out.append(_c(f, cid, api, args, **kw, **extra))
    # Tensor utility methods
    for cid, api, args, kw, extra in [
            ("backward", "Tensor.backward", [x64], {}, {"call": _BACKWARD}),
            ("clear_grad", "Tensor.clear_grad", [x64], {},
             {"call": _BACKWARD.replace("args[0].grad.numpy().tolist())[2]",
                                        "args[0].clear_grad(), args[0].grad)[3]")}),
            ("clear_gradient", "Tensor.clear_gradient", [x64], {},
             {"call": _BACKWARD.replace("args[0].grad.numpy().tolist())[2]",
                                        "args[0].clear_gradient(False), args[0].grad)[3]")}),
            ("gradient", "Tensor.gradient", [x64], {},
             {"call": _BACKWARD.replace("args[0].grad.numpy().tolist())[2]", "args[0].gradient().tolist())[2]")}),
            ("gradient|none", "Tensor.gradient", [x64], {}, {}),
            ("register_hook", "Tensor.register_hook", [x64], {},
             {"call": "(setattr(args[0], 'stop_gradient', False), args[0].register_hook(lambda g: g * 3), "
                      "(args[0] * 1.0).sum().backward(), args[0].grad)[3]"}),
            ("retain_grads", "Tensor.retain_grads", [x64], {},
             {"call": "(setattr(args[0], 'stop_gradient', False), [y := args[0] * 2, y.retain_grads(), "
                      "(y * y).sum().backward(), y.grad][3])[1]"}),
            ("detach_", "Tensor.detach_", [x64], {}, {"post": "[r is args[0], r.stop_gradient, r]"}),
            ("copy_", "Tensor.copy_", [x, T([2, 3], seed=454), P(False)], {}, {"post": "[r, args[0], r is args[0]]"}),
            ("set_value", "Tensor.set_value", [x, T([2, 3], seed=455)], {}, {"post": "[r, args[0]]"}),
            ("set_value|np", "Tensor.set_value", [x], {}, {"call": "(args[0].set_value(np.ones((2, 3), 'float32')), "
                                                                    "args[0])"}),
            ("set_value|err", "Tensor.set_value", [x, T([3, 2], seed=455)], {}, {}),
            ("numpy", "Tensor.numpy", [x], {}, {"post": "[type(r).__name__, r.dtype.name, r.tolist()]"}),
            ("data_ptr", "Tensor.data_ptr", [x], {}, {"post": "[type(r).__name__, r != 0]"}),
            ("to", "Tensor.to", [x, P("float64")], {}, {}),
            ("to|cpu", "Tensor.to", [x, P("cpu")], {}, {}),
            ("pin_memory", "Tensor.pin_memory", [x], {}, {}),
            ("is_dense", "Tensor.is_dense", [x], {}, {}),
            ("is_sparse", "Tensor.is_sparse", [x], {}, {}),
            ("is_sparse_coo", "Tensor.is_sparse_coo", [x], {}, {}),
            ("is_sparse_csr", "Tensor.is_sparse_csr", [x], {}, {}),
            ("is_same_shape", "Tensor.is_same_shape", [x, T([2, 3], "int32", 456)], {}, {}),
            ("is_same_shape|no", "Tensor.is_same_shape", [x, T([3, 2], seed=456)], {}, {}),
            ("Tensor.is_tensor", "Tensor.is_tensor", [x], {}, {}),
            ("is_dist", "Tensor.is_dist", [x], {}, {}), ("is_selected_rows", "Tensor.is_selected_rows", [x], {}, {}),
            ("get_strides", "Tensor.get_strides", [T([3, 4], nc=True)], {}, {}),
            ("get_strides|contiguous", "Tensor.get_strides", [T([2, 3, 4], seed=459)], {}, {}),
            ("stft", "Tensor.stft", [T([2, 32], "float64", 457)], {"n_fft": 8, "hop_length": 4}, {}),
            ("istft", "Tensor.istft", [], {},
             {"call": "paddle.signal.stft(paddle.to_tensor(np.arange(32.0).reshape(1, 32)), 8, 2).istft(8, 2)"}),
    ]:
        out.append(_c(f, cid, api, args, **kw, **extra))
    # sparse tensors made by to_sparse_coo / to_sparse_csr and their methods
    sp = D([[0.0, 1.5, 0.0], [2.5, 0.0, -1.0]], "float32")
    for cid, api, call in [
            ("to_sparse_coo", "Tensor.to_sparse_coo", "[s.is_sparse_coo(), s.is_sparse(), s.is_sparse_csr(), s.shape]"),
            ("indices", "Tensor.indices", "s.indices()"), ("values", "Tensor.values", "s.values()"),
            ("nnz", "Tensor.nnz", "s.nnz()"), ("to_dense", "Tensor.to_dense", "s.to_dense()"),
            ("coalesce", "Tensor.coalesce", "[s.coalesce().indices(), s.coalesce().values()]"),
            ("to_sparse_csr", "Tensor.to_sparse_csr", "(lambda s: [s.is_sparse_csr(), s.crows(), s.cols(), s.values(), "
                                                       "s.nnz(), s.to_dense()])(args[0].to_sparse_csr())"),
            ("crows", "Tensor.crows", "args[0].to_sparse_csr().crows()"),
            ("cols", "Tensor.cols", "args[0].to_sparse_csr().cols()")]:
        if not call.startswith(("(lambda", "args")):
            call = f"(lambda s: {call})(args[0].to_sparse_coo(2))"
        out.append(_c(f, "sparse." + cid, api, [sp], call=call))
    # the Tensor forms of the linalg functions and the nn.functional leftovers
    a43 = T([4, 3], "float64", 458)
    for cid, api, args, kw in [
            ("Tensor.cholesky", "Tensor.cholesky", [spd], {}),
            ("Tensor.cholesky_solve", "Tensor.cholesky_solve", [T([3, 2], "float64", 459), D(
                [[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.5, 0.25, 1.0]], "float64")], {}),
            ("Tensor.cond", "Tensor.cond", [spd], {}), ("Tensor.corrcoef", "Tensor.corrcoef", [a43], {}),
            ("Tensor.cov", "Tensor.cov", [a43], {}), ("Tensor.eig", "Tensor.eig", [D([[2.0, 0.0], [0.0, 3.0]], "float64")], {}),
            ("Tensor.eigvals", "Tensor.eigvals", [D([[2.0, 1.0], [0.0, 3.0]], "float64")], {}),
            ("Tensor.eigvalsh", "Tensor.eigvalsh", [spd], {}),
            ("Tensor.householder_product", "Tensor.householder_product", [a43, T([2], "float64", 460)], {}),
            ("Tensor.lstsq", "Tensor.lstsq", [a43, T([4, 2], "float64", 461)], {}),
            ("Tensor.lu", "Tensor.lu", [spd], {}),
            ("Tensor.lu_unpack", "Tensor.lu_unpack", [], {}),
            ("Tensor.matrix_power", "Tensor.matrix_power", [spd, P(3)], {}),
            ("Tensor.multi_dot", "Tensor.multi_dot", [L(a43, T([3, 2], "float64", 462))], {}),
            ("Tensor.pinv", "Tensor.pinv", [a43], {}), ("Tensor.qr", "Tensor.qr", [a43], {}),
            ("Tensor.solve", "Tensor.solve", [spd, T([3, 2], "float64", 463)], {}),
            ("hsigmoid_loss", F + "hsigmoid_loss", [T([4, 3], seed=464), D([0, 2, 4, 1]), P(5), T([4, 3], seed=465)],
             {}),
            ("hsigmoid_loss|bias", F + "hsigmoid_loss", [T([4, 3], seed=464), D([[0], [2], [4], [1]]), P(5),
                                                         T([4, 3], seed=465), T([4, 1], seed=466)], {}),
            ("margin_cross_entropy", F + "margin_cross_entropy", [T([4, 5], seed=467, low=-0.9, high=0.9),
                                                                  D([0, 3, 4, 1])], {"reduction": "none"}),
            ("max_unpool3d", F + "max_unpool3d", [], {}),
            ("sparse_attention", F + "sparse_attention", [T([1, 1, 4, 2], seed=468), T([1, 1, 4, 2], seed=469),
                                                          T([1, 1, 4, 2], seed=470), D([[[0, 2, 4, 6, 8]]], "int32"),
                                                          D([[[0, 1, 0, 1, 2, 3, 2, 3]]], "int32")], {}),
    ]:
        extra = {}
        if cid == "Tensor.lu_unpack":
            extra["call"] = "(lambda lu: lu[0].lu_unpack(lu[1]))(paddle.linalg.lu(paddle.to_tensor([[4.0, 3.0], [6.0, 3.0]])))"
        if cid == "max_unpool3d":
            extra["call"] = ("(lambda xi: paddle.nn.functional.max_unpool3d(xi[0], xi[1], kernel_size=2))("
                             "paddle.nn.functional.max_pool3d(paddle.to_tensor(np.arange(64.0).reshape(1, 1, 4, 4, 4)"
                             ".astype('float32') % 7), 2, return_mask=True))")
        out.append(_c(f, cid, api, args, **kw, **extra))
    return out


# ---------------------------------------------------------------- Tensor-method forms
# the Tensor methods of functions whose method form no other family calls
METHOD_BINARY = ["divide", "equal", "floor_divide", "fmax", "fmin", "greater_equal", "less_than", "maximum",
                 "minimum", "multiply", "not_equal", "pow", "remainder", "subtract"]
METHOD_INPLACE = ["acos_", "acosh_", "asin_", "asinh_", "atan_", "atanh_", "cos_", "cosh_", "cumprod_", "cumsum_",
                  "digamma_", "frac_", "i0_", "lgamma_", "log10_", "log1p_", "log2_", "logit_", "multigammaln_",
                  "nan_to_num_", "polygamma_", "renorm_", "sinh_", "tan_", "transpose_", "tril_", "triu_"]


def tensor_cases():
    from api_cases import math_cases  # noqa: E402  (the in-place functions' cases)
    t = "tensor"
    x, y = T([3, 4], seed=480), T([3, 4], seed=481, low=0.5)
    out = [_c(t, f"{n}", "Tensor." + n, [x, y]) for n in METHOD_BINARY]
    out += [_c(t, "bitwise_and", "Tensor.bitwise_and", [T([3, 4], "int32", 482), T([4], "int32", 483)]),
            _c(t, "logical_and", "Tensor.logical_and", [T([3, 4], "bool", 484), T([3, 4], "bool", 485)]),
            _c(t, "amax", "Tensor.amax", [x], axis=1), _c(t, "nanmean", "Tensor.nanmean", [x], axis=0),
            _c(t, "var", "Tensor.var", [x], axis=1, unbiased=False), _c(t, "norm", "Tensor.norm", [x], p=1),
            _c(t, "inverse", "Tensor.inverse", [{"mat": "spd", "n": 3, "dtype": "float64", "seed": 486}]),
            _c(t, "polygamma", "Tensor.polygamma", [T([3], "float64", 487, 0.5, 2.0)], n=1),
            _c(t, "is_empty", "Tensor.is_empty", [T([0, 3], seed=488)]),
            _c(t, "is_empty|no", "Tensor.is_empty", [x]),
            # functions of a list as methods of one tensor (Paddle binds them to Tensor too)
            _c(t, "concat", "Tensor.concat", [x]), _c(t, "stack", "Tensor.stack", [x], axis=1),
            _c(t, "add_n", "Tensor.add_n", [x]), _c(t, "broadcast_tensors", "Tensor.broadcast_tensors", [x]),
            _c(t, "multiplex", "Tensor.multiplex", [x, D([[1], [0], [2]], "int32")]),
            _c(t, "broadcast_shape", "Tensor.broadcast_shape", [P([2, 1]), P([3])]),
            _c(t, "create_parameter", "Tensor.create_parameter", [P([2]), P("float32")],
               call="[paddle.Tensor.create_parameter([2], 'float32', default_initializer="
                    "paddle.nn.initializer.Constant(1.5)).numpy().tolist()]")]
    top = {c["id"]: c for c in math_cases()}
    for n in METHOD_INPLACE:
        c = top[n + "|inplace"]
        out.append(dict(c, fam=t, id="t." + n, api="Tensor." + n, inplace="same"))
    return out


FAMILIES = {"inplace": inplace_cases, "random": random_cases, "framework": framework_cases, "tensor": tensor_cases}
