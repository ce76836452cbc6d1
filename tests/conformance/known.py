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


def classify(case, exp, diff, set_to_1d=False):
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
    if diff.startswith("paddle raises"):
        return ("deliberate", "Paddle 2.6.2 (CPU build) raises (no kernel for the dtype, or a pair outside "
                "its operators' support); Paddle-C computes it (promotion by the published rule, more kernels)")
    if name == "divide" and dts[0] == dts[1] and dts[0] in INTS and diff.startswith("dtype"):
        return ("deliberate", "paddle.divide of two integer tensors: Paddle 2.6.2's function keeps the "
                "integer dtype while its `/` gives float32; both give float32 here (true division, issue 23)")
    if name == "mean" and dts[0] in INTS and diff.startswith("we raise"):
        return ("deliberate", "mean of bool/integer tensors: Paddle 2.6.2 returns a truncated mean in the "
                "input's dtype (its documentation lists float dtypes only); Paddle-C raises TypeError")
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
        if not promotable:
            return ("deliberate", "a dtype pair outside Paddle's published promotion table ('-'): Paddle 2.6.2 "
                    "answers with its warts (or raises), we cast right to left with a warning (Paddle 2.3)")
    return None
