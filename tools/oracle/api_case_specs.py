"""The case specs of the differential harness's API families (tools/oracle/api_cases.py,
api_cases_nn.py): input specs (T seeded tensors, D literal data, L lists, P Python values), the case
record _c, and the dtype lists. Imports nothing."""

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "complex64", "complex128"]
F = "paddle.nn.functional."  # the prefix of nn.functional APIs
INTS = {"bool", "uint8", "int8", "int16", "int32", "int64"}


def T(shape, dtype="float32", seed=0, low=None, high=None, nc=False):
    t = {"shape": list(shape), "dtype": dtype, "seed": seed, "low": low, "high": high}
    if nc:
        t["nc"] = True
    return t


def D(data, dtype="int64"):
    return {"data": data, "dtype": dtype}


def L(*specs):
    return {"list": list(specs)}


def P(v):
    return {"py": v}


def _c(fam, cid, api, args, grad=None, **kw):
    c = {"fam": fam, "id": cid, "api": api, "args": args, "kwargs": kw}
    for k in ("inplace", "view", "pick", "init", "eval", "gseed", "pre", "post", "after", "call"):
        if k in kw:
            c[k] = kw.pop(k)
    if grad:
        c["grad"] = list(grad)
    return c
