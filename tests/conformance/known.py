"""Known differences from real PaddlePaddle 2.6.2 found by the harness, as rules with their
reasons (docs/compatibility.md lists them). classify(case, paddle_answer, difference) returns
("deliberate", reason), ("not yet", reason), or None for a difference nobody has looked at
(which fails tests/conformance)."""

FLOATS = {"float16", "bfloat16", "float32", "float64"}
COMPLEX = {"complex64", "complex128"}
INTS = {"bool", "uint8", "int8", "int16", "int32", "int64"}


def _dtypes(case):
    return [a.get("dtype", "py:" + type(a.get("py")).__name__) for a in case["args"]]


def _name(case):
    return case["id"].split("|")[0]


MISSING = "a loss added after Paddle 2.3 that Paddle-C does not implement yet (AttributeError)"


def classify(case, exp, diff):
    dts = _dtypes(case)
    name = _name(case)
    if diff == "we raise AttributeError" and case["api"].startswith("paddle.nn.functional."):
        return ("not yet", MISSING)
    if name == "slogdet" and diff == "shape [2] vs ours [2, 1]":
        return ("deliberate", "slogdet of one matrix at the default API level keeps Paddle 2.3's layout [2, 1]; "
                "with FLAGS_set_to_1d=0 it is Paddle 2.6's [2]")
    if case["id"] == "dot|2d" and diff == "shape [4] vs ours [4, 1]":
        return ("deliberate", "dot of 2-D operands at the default API level keeps Paddle 2.3's [N, 1]; with "
                "FLAGS_set_to_1d=0 it is Paddle 2.6's [N]")
    if name == "quantile" and diff == "dtype float64 vs ours float32":
        return ("deliberate", "quantile of a float32 tensor: Paddle 2.6.2 answers in float64; Paddle-C keeps "
                "the input's dtype, as Paddle 2.3 and its documentation")
    if name == "matrix_rank" and diff == "dtype int32 vs ours int64":
        return ("not yet", "matrix_rank returns int64; Paddle 2.6.2 returns int32")
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
    if case["api"] == "Tensor.__pow__" and COMPLEX & set(dts) and diff.startswith("we raise"):
        return ("not yet", "power with a complex operand (our elementwise_pow kernel is real-only)")
    if name == "mean" and dts[0] in COMPLEX and diff.startswith("we raise"):
        return ("not yet", "mean of complex tensors (our mean kernel is real-only)")
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
    if len(dts) == 2 and dts[0] == "bool" and dts[1].startswith("py:") and diff == "values":
        return ("not yet", "a bool tensor with a Python number in arithmetic: Paddle 2.6.2 computes in bool "
                "with its own rule")
    if name.startswith("logical_") and diff.startswith("we raise"):
        return ("not yet", "logical ops on mixed dtypes: Paddle 2.6.2 casts to bool first")
    return None
