"""Documented differences from real PaddlePaddle 2.6.2 found by the harness, as rules with their
reasons (docs/compatibility.md lists them). classify(case, paddle_answer, difference) returns the
reason when the difference is one of these, else None (an undocumented difference fails the test)."""

FLOATS = {"float16", "bfloat16", "float32", "float64"}
COMPLEX = {"complex64", "complex128"}
INTS = {"bool", "uint8", "int8", "int16", "int32", "int64"}


def _dtypes(case):
    return [a.get("dtype", "py:" + type(a.get("py")).__name__) for a in case["args"]]


def classify(case, exp, diff):
    dts = _dtypes(case)
    if diff.startswith("paddle raises"):
        return ("Paddle 2.6.2 (CPU build) raises (no kernel for the dtype, or a pair outside its "
                "operators' support); Paddle-C computes it (promotion by the published rule, more kernels)")
    if len(dts) == 2 and all(not d.startswith("py:") for d in dts) and dts[0] != dts[1]:
        a, b = dts
        promotable = (a in FLOATS and b in FLOATS) or a in COMPLEX or b in COMPLEX
        if promotable and diff.startswith("dtype"):
            return ("Paddle 2.6.2's operator keeps its left operand's dtype here; we follow its published "
                    "promotion table (Introduction to Data Type Promotion)")
        if not promotable:
            return ("a dtype pair outside Paddle's published promotion table ('-'): Paddle 2.6.2 answers "
                    "with its warts (or raises), we cast right to left with a warning (Paddle 2.3)")
    return None
