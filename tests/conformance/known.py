"""Known differences from real PaddlePaddle 2.6.2 found by the harness, as rules with their
reasons (docs/compatibility.md lists them). classify(case, paddle_answer, difference, set_to_1d)
(set_to_1d: the case ran at the Paddle 2.3 API level) returns
("deliberate", reason), ("not yet", reason), or None for a difference nobody has looked at
(which fails tests/conformance)."""

FLOATS = {"float16", "bfloat16", "float32", "float64"}
COMPLEX = {"complex64", "complex128"}
INTS = {"bool", "uint8", "int8", "int16", "int32", "int64"}


def _dtypes(case):
    return [a.get("dtype", "py:" + type(a.get("py")).__name__) for a in case["args"]]


def _name(case):
    return case["id"].split("|")[0]


LOSS26 = {"soft_margin_loss", "multi_label_soft_margin_loss", "multi_margin_loss", "poisson_nll_loss",
          "gaussian_nll_loss", "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
          "rnnt_loss"}


def _classify_loss(case, exp, diff):
    """The loss family (tools/oracle/loss_cases.py)."""
    name, cid = _name(case), case["id"]
    if diff == "values" and "|float64|" in cid and (name == "multi_margin_loss" or cid.startswith(
            "gaussian_nll_loss|full")):
        return ("deliberate", "a Python constant in a float64 loss (margin^p / C of multi_margin_loss, "
                "0.5 log(2 pi) of gaussian_nll_loss full): Paddle 2.6.2 rounds it to float32 (a ~1e-8 "
                "relative error); Paddle-C keeps float64")
    if cid.startswith("multi_margin_loss|weight") and (diff.startswith("shape [4, 4] vs ours [4]") or diff == "values"):
        return ("deliberate", "multi_margin_loss with a class weight: Paddle 2.6.2 subtracts a [N, 1] term from "
                "the [N] losses and answers [N, N] (and their mean or sum); Paddle-C gives the [N] losses of the "
                "formula it documents")
    if name == "cosine_embedding_loss" and cid.endswith("err_reduction") and diff == "we raise ValueError":
        return ("deliberate", "cosine_embedding_loss with an unknown reduction: Paddle 2.6.2's function returns "
                "None; Paddle-C raises ValueError, as its Layer and every other loss")
    if cid.startswith("gaussian_nll_loss|vargrad") and diff == "python value":
        return ("deliberate", "gaussian_nll_loss: Paddle 2.6.2 clamps variance under no_grad, so variance gets "
                "no gradient (None); Paddle-C passes the gradient through the clamp (the loss can learn the "
                "variance, as the documented heteroscedastic use needs)")
    return None


# float64 results where Paddle 2.6.2 rounds a constant or attribute of the op to float32 (its
# attributes are float): a ~1e-8 relative error that Paddle-C does not have
F32_ATTR = {"stanh": "scale_a 0.67 and scale_b 1.7159", "hardsigmoid": "slope 1/6 and offset 0.5",
            "leaky_relu": "negative_slope", "selu": "scale and alpha", "rrelu": "the slope (lower + upper) / 2",
            "norm": "the order p (1 / p)", "multigammaln": "its constant log(pi)",
            "softshrink": "threshold", "adaptiveavgpool1d": "1 / the window size",
            "adaptiveavgpool2d": "1 / the window size", "adaptiveavgpool3d": "1 / the window size"}
_F32_KEYS = {k.replace("_", "") for k in F32_ATTR}  # functions and their Layers (leaky_relu, LeakyReLU)
# complex128 results through Paddle 2.6.2's CPU complex exp, which is accurate to float32 only
C128_EXP = {"exp", "sigmoid", "stanh"}


ARGS_PADDLE_REFUSES = {
    "full_like|bool": "full_like(x, 2, dtype='bool') (Paddle: ValueError)",
    "normalize|p1|0d": "normalize of a 0-D tensor (Paddle: ValueError on the axis)",
    "layer_norm|affine": "layer_norm with a weight / bias of normalized_shape's shape, not flattened "
                         "(Paddle: ValueError)",
    "pad|3d": "F.pad of a 3-D input with the default data_format (Paddle: AssertionError, it wants 'NCL')",
    "interpolate|nearest1d": "interpolate(mode='nearest') of a 3-D input (Paddle: ValueError, 4-D and 5-D only)",
    "m.__xor__": "int32 tensor ^ a Python int (Paddle: ValueError, it wants a Tensor)",
    "logical_or": "logical_or of a float32 and an int32 tensor (Paddle: ValueError on the dtypes; Paddle-C "
                  "compares both with zero)",
    "matmul|0size": "matmul with a 0-size operand (Paddle: ValueError; Paddle-C answers the empty product)",
}


_SHAPE = ("Paddle-C raises ValueError (InvalidArgument), as its other shape checks; Paddle 2.6.2 raises "
          "RuntimeError (PreconditionNotMet)")
# shapes at the default API level (Paddle 2.3), where a 0-D input made by to_tensor is [1]
LEVEL23 = {
    "unsqueeze|0d": "at the default API level (Paddle 2.3) a 0-D input made by to_tensor is [1], so unsqueeze "
                    "gives [1, 1]; with FLAGS_set_to_1d=0 it is Paddle 2.6's [1]",
    "gather|0didx": "at the default API level (Paddle 2.3) a 0-D index made by to_tensor is [1], so gather keeps "
                    "the axis ([1, 3]); with FLAGS_set_to_1d=0 a 0-D index drops it, as Paddle 2.6",
    "full|0d": "full(shape=[]) asks for a 0-D tensor explicitly and gets one at both API levels",
}
_NUC = ("error class", "norm(p='nuc'): Paddle 2.6.2 fails with a TypeError of its own code; Paddle-C raises "
        "ValueError (use paddle.linalg.matrix_norm(p='nuc'))")
# single cases: id -> (the start of the difference, the reason)
ONE_CASE = {
    "norm|nuc|float32": _NUC, "norm|nuc|float64": _NUC,
    "err|pad_bad_mode": ("error class", "F.pad with an unknown mode: Paddle 2.6.2 fails an assert "
                         "(AssertionError, gone under python -O); Paddle-C raises ValueError"),
    "err|masked_select_shape": ("error class", "masked_select with a mask that does not broadcast: " + _SHAPE),
    "dot|err": ("error class", "dot of different lengths: " + _SHAPE),
    "transpose|err": ("we raise ValueError", "transpose with a perm shorter than the rank: Paddle 2.6.2 returns "
                      "the input unchanged; Paddle-C raises ValueError (InvalidArgument)"),
    "where|scalar": ("dtype float64 vs ours float32", "where(cond, float32 tensor, Python float): Paddle 2.6.2 "
                     "makes the number a float64 tensor and answers float64; Paddle-C follows the tensor-scalar "
                     "promotion rule (the tensor's dtype)"),
    "as_strided": ("we raise ValueError", "as_strided with an offset of 1 byte: Paddle 2.6.2 reads misaligned "
                   "memory and answers garbage; Paddle-C raises ValueError (the offset must be a multiple of the "
                   "element size)"),
    "cross_entropy|smooth|none": ("values", "cross_entropy with label_smoothing in float64: Paddle 2.6.2 holds "
                                  "epsilon in float32 (a ~2e-8 relative error); Paddle-C keeps the exact double"),
    "cross_entropy|soft|none": ("values", "the gradient of soft-label cross_entropy where a label row does not "
                                "sum to 1: Paddle 2.6.2 answers softmax - label (right only for rows summing to "
                                "1); Paddle-C differentiates the loss, softmax * sum(label) - label "
                                "(cross_entropy|softnorm agrees)"),
    "binary_cross_entropy_with_logits|none": ("values", "binary_cross_entropy_with_logits with pos_weight on "
                                              "[4, 3] logits: some of Paddle 2.6.2's values differ from its "
                                              "documented formula (checked with numpy, by up to 0.37); Paddle-C "
                                              "computes (1 - y) softplus(x) + pos_weight y softplus(-x)"),
    "m.__lshift__": ("error class", "x.__lshift__(1): Paddle 2.6.2 has no such method (AttributeError); "
                     "Paddle-C's method answers NotImplemented, so x << 1 raises TypeError in both"),
    "Tensor.add_|int_float": ("we raise", "int64 x.add_(float32 y): Paddle 2.6.2 turns x into a float32 tensor "
                              "(and float32 x.add_(int64 y) answers uninitialized int64 values, not recorded: they "
                              "change from run to run); Paddle-C raises (an in-place op keeps x's dtype; use the "
                              "out-of-place add)"),
    "Tensor.divide_|int": ("we raise", "int64 x.divide_(int64 y): Paddle 2.6.2 truncates in x's dtype (its `/` "
                           "gives float32); Paddle-C raises (true division cannot stay int64 in place)"),
    "atan2|int": ("values", "atan2 of int64 tensors: Paddle 2.6.2 answers float64 computed in float32 (~6e-8 "
                  "relative error); Paddle-C computes in double"),
    "logaddexp|grad": ("values", "the gradient of logaddexp where x == y: Paddle 2.6.2 gives 0 to x and 1 to y "
                       "(through its max); Paddle-C gives the derivative, 0.5 each"),
}


# rules over (id, name, family, difference, Paddle's answer, API level 2.3?) -> reason, first match
# wins; the id of a Tensor-method case ("x.<id>") is its function's id
API_RULES = [
    (lambda c, n, f, d, e, l: d == "paddle raises AttributeError",
     "a name of later Paddle releases (in-place forms and functions that Paddle 2.6.2 lacks): Paddle-C has it"),
    (lambda c, n, f, d, e, l: d == "paddle raises RuntimeError",
     "Paddle 2.6.2's CPU build has no kernel for this dtype (RuntimeError, NotFound: float16/bfloat16 activations "
     "and sorts, small integer types); Paddle-C computes it (test_conformance checks it against Paddle's "
     "float32 / int32 answer)"),
    (lambda c, n, f, d, e, l: n.lower().replace("_", "") in _F32_KEYS and d == "values" and "float64" in str(e)
     and ("|float64" in c or c.endswith("|grad")),
     "a float attribute of the op (" + ", ".join(sorted(set(F32_ATTR.values()))) + "): Paddle 2.6.2 holds it in "
     "float32, so its float64 results carry a ~1e-8 relative error; Paddle-C keeps the exact double"),
    (lambda c, n, f, d, e, l: n in C128_EXP and c.endswith("|complex128") and d == "values",
     "complex128 exp (and sigmoid / stanh through it): Paddle 2.6.2's CPU kernel is accurate to float32 only "
     "(~4e-8 relative); Paddle-C computes in double"),
    (lambda c, n, f, d, e, l: n in ("deg2rad", "rad2deg") and d.startswith("dtype"),
     "deg2rad / rad2deg of uint8, int8 and int16: Paddle 2.6.2 answers in the integer dtype (truncated, mostly "
     "0); Paddle-C answers float32, as Paddle does for int32 and int64"),
    (lambda c, n, f, d, e, l: n in ("deg2rad", "rad2deg", "neg") and c.endswith("|bool") and d.startswith("we raise"),
     "deg2rad / rad2deg / neg of a bool tensor: Paddle 2.6.2 answers bool (neg(True) is True); Paddle-C raises "
     "(no bool kernel), as for every other arithmetic on bool"),
    (lambda c, n, f, d, e, l: d in ("paddle raises TypeError", "paddle raises AssertionError") and f == "unary",
     "Paddle 2.6.2's Python-side dtype check refuses this dtype (frac of float16 / bfloat16, sgn of bfloat16, "
     "nan_to_num of anything but float32 / float64); Paddle-C computes it"),
    (lambda c, n, f, d, e, l: "|0size" in c and d == "paddle raises ValueError" and f in ("math", "methods"),
     "a reduction of a 0-size tensor: Paddle 2.6.2's CPU kernels refuse it (ValueError, 'Tensor need be reduced "
     "must not empty'), even sum; Paddle-C answers numpy's values (sum 0, prod 1, all True, any False, mean / "
     "std nan, empty results along a kept 0-size axis)"),
    (lambda c, n, f, d, e, l: n == "std" and c.startswith("std|0d") and d == "values",
     "the unbiased std of a single element (N - 1 = 0): Paddle 2.6.2 answers 0; Paddle-C answers nan, as numpy "
     "and PyTorch"),
    (lambda c, n, f, d, e, l: c in ("m.__float__", "m.__int__", "m.__index__") and d == "paddle raises TypeError",
     "float() / int() / index() of a 1-D tensor of one element: Paddle 2.6.2 (through numpy 2) raises TypeError "
     "(0-D only); Paddle-C converts it, as Paddle 2.3 programs expect (float(loss) of a [1] loss)"),
    (lambda c, n, f, d, e, l: l and n == "matrix_rank" and d == "dtype int32 vs ours int64",
     "matrix_rank at the default API level returns int64, as Paddle 2.3 (its kernel and documentation); with "
     "FLAGS_set_to_1d=0 it is Paddle 2.6's int32"),
]


# the inplace, random, framework and tensor families (tools/oracle/api_cases_more.py): id -> (the start of
# the difference, the reason); checked before the rules below
_FLOPS = ("python value", "paddle.flops: Paddle 2.6.2 counts only the sublayers of the network it is given (a bare "
          "Linear or Conv2D gives 0) and fails on any network with sublayers (TypeError: it converts a [1] "
          "parameter count with int(), which numpy 2 refuses); Paddle-C counts every layer (Linear 3->4 on [2, 3]: "
          "24, as Paddle 2.3's table)")
_CHECK_SHAPE = ("paddle.check_shape: Paddle 2.6.2's (base.data_feeder's) requires op_name and checks only in static "
                "mode (a no-op in dynamic mode); Paddle-C takes op_name optionally and always checks (a float "
                "dimension is a TypeError)")
_MIXED = ("an in-place arithmetic op with an operand of another dtype: Paddle 2.6.2 turns x into the other "
          "operand's dtype and fills it with values that are not the result (uninitialized or reinterpreted "
          "memory, not recorded: they change from run to run); Paddle-C keeps x's dtype where the pair promotes "
          "(float32 x with float64 y: computed and stored as float32) and raises ValueError for a pair outside "
          "the published promotion table (an integer with a floating operand); use the out-of-place op")
MORE = {
    "concat": ("paddle raises ValueError", "x.concat() / paddle.concat(x) of one tensor: Paddle 2.6.2 wants a list "
               "(ValueError); Paddle-C takes the tensor as a list of one and returns it"),
    "stack": ("paddle raises ValueError", "x.stack() / paddle.stack(x) of one tensor: Paddle 2.6.2 wants a list "
              "(ValueError); Paddle-C stacks the tensor's rows, as numpy.stack"),
    "rand|0d": ("shape [1] vs ours []", "rand(shape=[]) asks for a 0-D tensor explicitly and gets one at both API "
                "levels (as full(shape=[]))"),
    "uniform|min_gt_max": ("we raise ValueError", "uniform with min > max: Paddle 2.6.2 draws min + (max - min) u, "
                           "values in (max, min]; Paddle-C raises ValueError (InvalidArgument), as PyTorch's "
                           "uniform_"),
    "multiply_|int_float": ("we raise ValueError", _MIXED), "divide_|f32_int": ("we raise ValueError", _MIXED),
    "subtract_|f32_f64": ("python value", _MIXED), "subtract_|f64_f32": ("python value", _MIXED),
    "pow_|bcast_err": ("error class", "x.pow_(y) with a Tensor y of another shape: Paddle 2.6.2 takes only a "
                       "number as y (TypeError); Paddle-C takes a tensor y too and refuses the broadcast that would "
                       "change x's shape (ValueError)"),
    "gcd_|float": ("we raise TypeError", "gcd_ of float32 tensors: Paddle 2.6.2 computes a float 'gcd' (its "
                   "documentation lists int32 / int64 only); Paddle-C raises TypeError, as for gcd"),
    "rand|err_shape": ("error class", "rand('2') (a string shape): Paddle 2.6.2 fails inside its own code "
                       "(AttributeError); Paddle-C raises TypeError on the shape"),
    "normal|err_shape": ("we answer", "normal(shape=3): Paddle 2.6.2 fails inside its own code (AttributeError: "
                         "an int has no len); Paddle-C takes an int shape as [3], as its other creation functions"),
    "bernoulli|err_range": ("error class", "bernoulli of probabilities outside [0, 1]: Paddle 2.6.2 fails its "
                            "kernel's check with IndexError (OutOfRange); Paddle-C raises ValueError "
                            "(InvalidArgument), as for its other argument ranges"),
    "check_shape|one_arg": ("paddle raises TypeError", _CHECK_SHAPE),
    "check_shape|float": ("we raise TypeError", _CHECK_SHAPE),
    "flops": _FLOPS, "flops|conv": _FLOPS, "flops|net": ("paddle raises TypeError", _FLOPS[1]),
    "set_value|err": ("error class", "Tensor.set_value with another shape: Paddle 2.6.2 fails an assert "
                      "(AssertionError, gone under python -O); Paddle-C raises ValueError"),
    "Tensor.lstsq": ("shape [0] vs ours [3]", "lstsq's singular values: Paddle 2.6.2's default CPU driver (gelsy) "
                     "returns none (shape [0]); Paddle-C solves through the SVD and returns them (as driver "
                     "gelsd); solution, residuals and rank agree"),
    "margin_cross_entropy": ("paddle raises RuntimeError", "margin_cross_entropy: Paddle 2.6.2's CPU build has no "
                             "kernel (GPU only, RuntimeError NotFound); Paddle-C computes it (single process)"),
    "sparse_attention": ("paddle raises AttributeError", "sparse_attention: Paddle 2.6.2's CPU build lacks the op "
                         "(AttributeError, GPU / CUDA 11.3+ only); Paddle-C computes it on the CPU"),
    "set_default_dtype|f16": ("paddle raises RuntimeError", "rand in the default dtype float16: Paddle 2.6.2's CPU "
                              "build has no float16 uniform kernel (RuntimeError, NotFound); Paddle-C draws it"),
}


def _classify_api(case, exp, diff, set_to_1d):
    """The families of tools/oracle/api_cases.py."""
    cid, fam = case["id"], case["fam"]
    if fam in ("inplace", "random", "framework", "tensor") and cid in MORE:
        want, why = MORE[cid]
        ok = diff.startswith(want) or (want == "we answer" and diff.startswith("paddle raises"))
        return ("deliberate", why) if ok else None
    if cid.startswith("x."):  # the Tensor-method form of a function's case: the function's rules
        cid = cid[2:]
    name = cid.split("|")[0]
    for rule, reason in API_RULES:
        if rule(cid, name, fam, diff, exp, set_to_1d):
            return ("deliberate", reason)
    if cid in ONE_CASE and diff.startswith(ONE_CASE[cid][0]):
        return ("deliberate", ONE_CASE[cid][1])
    if set_to_1d and cid in LEVEL23 and diff.startswith("shape"):
        return ("deliberate", LEVEL23[cid])
    if diff.startswith("paddle raises") and cid in ARGS_PADDLE_REFUSES:
        return ("deliberate", "an argument Paddle 2.6.2 refuses and Paddle-C accepts: " + ARGS_PADDLE_REFUSES[cid])
    return None


# both raise, another exception class (binary and reduction families): the rules, each checked by
# tests/conformance/test_conformance.py
MISMATCH_NO_KERNEL = ("a paddle function (add, maximum, equal, ...) of two dtypes that do not promote, where Paddle 2.6.2's CPU build has no "
                      "kernel for its key dtype (the second operand's; complex where an operand is complex): Paddle "
                      "looks up its kernel by that dtype first "
                      "(RuntimeError, NotFound); Paddle-C has that kernel and reports the mismatch (ValueError, "
                      "InvalidArgument), as Paddle does where it has the kernel. Where neither has it, both "
                      "raise NotFound (csrc/ops/runner.c paddle_kernel_key)")
STD_INT = ("std / var of an int32 / int64 tensor: Paddle 2.6.2 fails inside its kernel (ValueError, "
           "InvalidArgument: 'The type of data we are trying to retrieve (int32) does not match the type of "
           "data (float32)'); Paddle-C has no integer kernel and says so (KernelNotFoundError, a RuntimeError "
           "NotFound, Paddle's class for the other integer dtypes)")


def _classify_error_class(case, diff, dts):
    name = _name(case)
    if (case["api"].startswith("paddle.") and len(dts) == 2 and dts[0] != dts[1]
            and diff == "error class: Paddle RuntimeError, ours ValueError"):
        return ("deliberate", MISMATCH_NO_KERNEL)
    if name in ("std", "var") and dts[0] in ("int32", "int64") \
            and diff == "error class: Paddle ValueError, ours KernelNotFoundError":
        return ("deliberate", STD_INT)
    return None


def _classify_paddle_raises(case, exp, dts):
    """Paddle raises where Paddle-C answers, by Paddle's exception class."""
    err, name = exp["error"], _name(case)
    if err == "RuntimeError":
        return ("deliberate", "Paddle 2.6.2's CPU build has no kernel for this dtype (RuntimeError: NotFound; its "
                "operators with an integer and a complex operand: Unavailable, 'Only supports to align data "
                "type'); Paddle-C computes it (more kernels; an integer with a complex operand promotes to "
                "complex, as the published promotion table says)")
    if name == "logical_and" and err == "ValueError":
        return ("deliberate", "logical_and of two dtypes: Paddle 2.6.2 raises ValueError (InvalidArgument: the "
                "kernel of one dtype finds the other); Paddle-C compares each operand with zero")
    if name == "divide" and dts == ["bool", "bool"] and err == "EnforceNotMet":
        return ("deliberate", "divide of two bool tensors: Paddle 2.6.2 divides as integers and fails on False "
                "(division by zero); Paddle-C's true division gives float32 (inf / nan), as for the integer "
                "dtypes")
    if err in ("ValueError", "NotImplementedError") and len(dts) == 2 and dts[0] != dts[1]:
        return ("deliberate", "a pair of dtypes that Paddle 2.6.2's function does not convert (ValueError, "
                "InvalidArgument: its kernel of one dtype finds the other; NotImplementedError, Unimplemented: "
                "no cast from int8 to complex); Paddle-C promotes by the published table (floating with "
                "floating, anything with complex; true division of integers gives float32)")
    return None


def classify(case, exp, diff, set_to_1d=False):
    if "fam" in case:
        return _classify_api(case, exp, diff, set_to_1d)
    dts = _dtypes(case)
    name = _name(case)
    if case.get("grad") is not None:  # the loss family: its own rules
        return _classify_loss(case, exp, diff)
    if name == "slogdet" and diff == "shape [2] vs ours [2, 1]":
        return ("deliberate", "slogdet of one matrix at the default API level keeps Paddle 2.3's layout [2, 1]; "
                "with FLAGS_set_to_1d=0 it is Paddle 2.6's [2]")
    if case["id"] == "dot|2d" and diff == "shape [4] vs ours [4, 1]":
        return ("deliberate", "dot of 2-D operands at the default API level keeps Paddle 2.3's [N, 1]; with "
                "FLAGS_set_to_1d=0 it is Paddle 2.6's [N]")
    if name == "quantile" and diff == "dtype float64 vs ours float32":
        return ("deliberate", "quantile of a float32 tensor: Paddle 2.6.2 answers in float64; Paddle-C keeps "
                "the input's dtype, as Paddle 2.3 and its documentation")
    if name == "matrix_rank" and diff == "dtype int32 vs ours int64" and set_to_1d:
        return ("deliberate", "matrix_rank at the default API level returns int64, as Paddle 2.3 (its kernel "
                "and documentation); with FLAGS_set_to_1d=0 it is Paddle 2.6's int32")
    if diff.startswith("error class"):
        return _classify_error_class(case, diff, dts)
    if diff.startswith("paddle raises"):
        return _classify_paddle_raises(case, exp, dts)
    if name == "divide" and dts[0] == dts[1] and dts[0] in INTS and diff.startswith("dtype"):
        return ("deliberate", "paddle.divide of two integer tensors: Paddle 2.6.2's function keeps the "
                "integer dtype while its `/` gives float32; both give float32 here (true division, issue 23)")
    if name == "mean" and dts[0] in INTS and diff.startswith("we raise"):
        return ("deliberate", "mean of bool/integer tensors: Paddle 2.6.2 returns a truncated mean in the "
                "input's dtype for int32 / int64 / bool (its documentation lists float dtypes only); Paddle-C "
                "has no integer kernel (KernelNotFoundError: RuntimeError NotFound, Paddle's class for the other "
                "integer dtypes, and a TypeError)")
    if case["api"] in ("Tensor.__floordiv__", "Tensor.__mod__") and COMPLEX & set(dts) \
            and diff.startswith("we raise"):
        return ("deliberate", "floor division / remainder with a complex operand (undefined for complex "
                "numbers): Paddle 2.6.2 casts the complex operand to the other dtype; Paddle-C raises TypeError")
    if case["api"] == "Tensor.__lt__" and COMPLEX & set(dts) and diff.startswith("we raise"):
        return ("deliberate", "ordering comparison with a complex operand (complex numbers have no order): "
                "Paddle 2.6.2 compares after casting; Paddle-C raises TypeError")
    if len(dts) == 2 and not dts[1].startswith("py:") and dts[0] != dts[1]:
        a, b = dts
        promotable = (a in FLOATS and b in FLOATS) or a in COMPLEX or b in COMPLEX
        if promotable and (a in INTS or b in INTS) and (diff.startswith("we raise") or diff == "values"):
            return ("deliberate", "an integer/bool tensor with a complex one: Paddle 2.6.2 casts the complex "
                    "operand to the other dtype (dropping the imaginary part) or answers in the integer "
                    "dtype; Paddle-C computes in complex, as the published promotion table says, or raises")
        if promotable and diff.startswith("dtype"):
            return ("deliberate", "Paddle 2.6.2's operator keeps its left operand's dtype here; we follow its "
                    "published promotion table (Introduction to Data Type Promotion)")
        if not promotable and not diff.startswith("error class"):
            return ("deliberate", "a dtype pair outside Paddle's published promotion table ('-'): Paddle 2.6.2 "
                    "answers with its warts (or raises), we cast right to left with a warning (Paddle 2.3)")
    return None


# tests/conformance/test_checkpoints.py: constructions of tools/oracle/checkpoint_cases.py whose
# state_dict keys differ from real Paddle 2.6.2's: name -> (whether Paddle 2.6.2's state_dict
# loads here and gives Paddle's outputs, the reason) (docs/compatibility.md)
CHECKPOINTS = {}

# constructions whose network depends on the API level (FLAGS_set_to_1d at construction): with the
# flag off (Paddle 2.6 level) keys and outputs equal real Paddle 2.6.2's; at the default Paddle 2.3
# level they differ as below (same form as CHECKPOINTS)
CHECKPOINTS_LEVEL23 = {
    "inception_v3": (True, "Paddle 2.3's layout (`inception_stem.conv_1a_3x3.conv.weight`, `...bn._mean`, "
                     "the names of Paddle 2.3's published weights); Paddle 2.4+ names the same tensors "
                     "`...conv_1a_3x3.0.weight`, `...1._mean` (ConvNormActivation), which this build makes "
                     "with FLAGS_set_to_1d=0; set_state_dict takes either layout at either level"),
    "mobilenet_v1": (True, "Paddle 2.3's layout (`conv1._conv.weight`, `conv1._norm_layer._mean`, the "
                     "names of Paddle 2.3's published weights); Paddle 2.4+ names the same tensors "
                     "`conv1.0.weight`, `conv1.1._mean` (ConvNormActivation), which this build makes with "
                     "FLAGS_set_to_1d=0; set_state_dict takes either layout at either level"),
    "mobilenet_v3_large": (False, "as mobilenet_v3_small"),
    "mobilenet_v3_small": (False, "Paddle 2.3's MobileNetV3 (ConvBNLayer "
                           "blocks `conv.conv` / `conv.bn`, an SE gate of hardsigmoid slope 0.2, a 1x1 "
                           "last_conv before fc), the layout of its published weights; Paddle 2.4+ rebuilt "
                           "the model (ConvNormActivation, no expand conv where the width does not change, "
                           "a Linear-Hardswish-Linear classifier), which this build makes with "
                           "FLAGS_set_to_1d=0 (keys and outputs then equal Paddle 2.6.2's); set_state_dict "
                           "of the other level's keys warns, naming the flag"),
}
