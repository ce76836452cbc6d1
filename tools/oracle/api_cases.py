"""The differential harness's families beyond the operators, reductions and losses (issue 23):
unary math, manipulation, search/sort, creation and cast, nn.functional, linalg. Each family is
a function returning cases in tests/conformance/harness.py's format (harness.FAMILIES imports
them); the answers of real PaddlePaddle 2.6.2 are recorded with

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/tests/conformance/harness.py record unary ...

Case extras understood by harness.run_case: "grad" (argument indices to differentiate, float64),
"inplace" (the result is [output, first input after the call]), "view" (the result is [output,
output after the first input is zeroed in place]: does it share memory), "pick" (keep one output
of a tuple). Input specs add "nc" (a non-contiguous view: made transposed, then transposed back),
{"data": [...], "dtype"} (literal values), {"list": [specs]} and {"mat": "spd", "n", "dtype"}.
Every case carries "fam" (tests/conformance/known.py classifies by it). The case specs are in
api_case_specs.py, the nn.functional and nn-layer families in api_cases_nn.py."""

from api_case_specs import ALL, F, INTS, D, L, P, T, _c
from api_cases_nn import functional_cases, layer_cases
import api_cases_more


# ---------------------------------------------------------------- unary math
# name -> (float domain, integer domain); None is the harness default (-2..2, ints -5..5)
POS, UNIT = ((0.1, 3.0), (1, 6)), ((-0.8, 0.8), (0, 1))
UNARY = {
    "abs": None, "acos": UNIT, "acosh": ((1.2, 3.0), (2, 6)), "asin": UNIT, "asinh": None, "atan": None,
    "atanh": UNIT, "ceil": None, "cos": None, "cosh": None, "deg2rad": None, "digamma": POS, "erf": None,
    "erfinv": UNIT, "exp": None, "expm1": None, "floor": None, "frac": None, "i0": None, "i0e": None,
    "i1": None, "i1e": None, "isfinite": None, "isinf": None, "isnan": None, "lgamma": POS, "log": POS,
    "log10": POS, "log1p": ((-0.5, 2.0), (0, 6)), "log2": POS, "logical_not": None, "bitwise_not": None,
    "neg": None, "rad2deg": None, "reciprocal": POS, "round": None, "rsqrt": POS, "sgn": None,
    "sign": None, "sin": None, "sinh": None, "sqrt": POS, "square": None, "tan": UNIT, "tanh": None,
    "trunc": None, "angle": None, "conj": None, "real": None, "imag": None, "logit": ((0.1, 0.9), (0, 1)),
    "stanh": None, "nan_to_num": None, "nn.functional.sigmoid": None,
}
NO_GRAD = {"isfinite", "isinf", "isnan", "logical_not", "bitwise_not", "angle", "real", "imag"}
INPLACE = ["abs_", "exp_", "sqrt_", "rsqrt_", "reciprocal_", "round_", "floor_", "ceil_", "tanh_", "sin_",
           "log_", "square_", "neg_", "trunc_", "sigmoid_", "erfinv_"]


def _dom(name, dt):
    d = UNARY.get(name)
    if d is None:
        return None, None
    return d[1] if dt in INTS else d[0]


def unary_cases():
    out = []
    for i, name in enumerate(UNARY):
        api = "paddle." + name
        short = name.split(".")[-1]
        for dt in ALL:
            lo, hi = _dom(name, dt)
            out.append(_c("unary", f"{short}|{dt}", api, [T([2, 3], dt, 100 + i, lo, hi)]))
        lo, hi = _dom(name, "float32")
        out.append(_c("unary", f"{short}|0size", api, [T([0, 3], "float32", 1, lo, hi)]))
        out.append(_c("unary", f"{short}|0d", api, [T([], "float32", 2, lo, hi)]))
        out.append(_c("unary", f"{short}|nc", api, [T([3, 4], "float32", 3, lo, hi, nc=True)]))
        out.append(_c("unary", f"{short}|method", "Tensor." + short, [T([2, 3], "float32", 4, lo, hi)]))
        if short not in NO_GRAD:
            out.append(_c("unary", f"{short}|grad", api, [T([2, 3], "float64", 5, lo, hi)], grad=[0]))
    out.append(_c("unary", "polygamma|1", "paddle.polygamma", [T([2, 3], "float64", 6, 0.1, 3.0)], n=1))
    out.append(_c("unary", "polygamma|2", "paddle.polygamma", [T([2, 3], "float32", 6, 0.1, 3.0)], n=2))
    out.append(_c("unary", "nan_to_num|args", "paddle.nan_to_num",
                  [D([float("nan"), float("inf"), -float("inf"), 1.5], "float32")], nan=1.0, posinf=9.0, neginf=-9.0))
    out.append(_c("unary", "isnan|special", "paddle.isnan", [D([float("nan"), float("inf"), 1.0], "float64")]))
    out.append(_c("unary", "isinf|special", "paddle.isinf", [D([float("nan"), float("inf"), 1.0], "float16")]))
    out.append(_c("unary", "round|ties", "paddle.round", [D([0.5, 1.5, 2.5, -0.5, -1.5], "float32")]))
    out.append(_c("unary", "sign|zero", "paddle.sign", [D([0.0, -0.0, 2.0, -3.0], "float32")]))
    out.append(_c("unary", "logit|eps", "paddle.logit", [D([0.0, 0.5, 1.0], "float32")], eps=0.1))
    out.append(_c("unary", "stanh|ab", "paddle.stanh", [T([2, 3], "float32", 7)], scale_a=0.5, scale_b=2.0))
    for name in INPLACE:
        lo, hi = _dom(name[:-1], "float32") if name[:-1] in UNARY else (None, None)
        if name == "log_":
            lo, hi = POS[0]
        out.append(_c("unary", f"{name}|inplace", "Tensor." + name, [T([2, 3], "float32", 8, lo, hi)], inplace=True))
    return out


# ---------------------------------------------------------------- manipulation
def manipulation_cases():
    m = "manipulation"
    x, x234, x43 = T([2, 3]), T([2, 3, 4], seed=1), T([4, 3], seed=2)
    out = []
    for dt in ("float32", "int64", "bool", "float16", "complex64"):
        a = T([2, 3, 4], dt, 3)
        out += [_c(m, f"reshape|{dt}", "paddle.reshape", [a], shape=[4, 6]),
                _c(m, f"transpose|{dt}", "paddle.transpose", [a], perm=[2, 0, 1]),
                _c(m, f"concat|{dt}", "paddle.concat", [L(a, T([1, 3, 4], dt, 4))], axis=0),
                _c(m, f"stack|{dt}", "paddle.stack", [L(a, T([2, 3, 4], dt, 5))], axis=-1),
                _c(m, f"flip|{dt}", "paddle.flip", [a], axis=[0, 2]),
                _c(m, f"tile|{dt}", "paddle.tile", [a], repeat_times=[2, 1, 1]),
                _c(m, f"gather|{dt}", "paddle.gather", [a, D([2, 0])], axis=2),
                _c(m, f"where|{dt}", "paddle.where", [T([2, 3, 4], "bool", 6), a, T([3, 4], dt, 7)])]
    out += [
        _c(m, "reshape|neg", "paddle.reshape", [x234], shape=[-1]),
        _c(m, "reshape|zero", "paddle.reshape", [x234], shape=[0, -1]),
        _c(m, "reshape|nc", "paddle.reshape", [T([3, 4], nc=True)], shape=[2, 6]),
        _c(m, "reshape|err", "paddle.reshape", [x234], shape=[5, 5]),
        _c(m, "reshape|view", "paddle.reshape", [x234], shape=[4, 6], view=True),
        _c(m, "transpose|view", "paddle.transpose", [x234], perm=[1, 0, 2], view=True),
        _c(m, "transpose|err", "paddle.transpose", [x234], perm=[0, 1]),
        _c(m, "T|method", "Tensor.t", [x]),
        _c(m, "concat|axis-1", "paddle.concat", [L(x, T([2, 2], seed=8))], axis=-1),
        _c(m, "concat|grad", "paddle.concat", [L(T([2, 3], "float64", 9), T([1, 3], "float64", 10))], grad=[0], axis=0),
        _c(m, "concat|mixed", "paddle.concat", [L(x, T([2, 3], "float64", 11))]),
        _c(m, "concat|err", "paddle.concat", [L(x, T([2, 2], seed=8))], axis=0),
        _c(m, "concat|0size", "paddle.concat", [L(x, T([0, 3], seed=8))], axis=0),
        _c(m, "stack|0", "paddle.stack", [L(x, T([2, 3], seed=12))]),
        _c(m, "stack|err", "paddle.stack", [L(x, T([3, 2], seed=12))]),
        _c(m, "split|num", "paddle.split", [T([6, 4], seed=13)], num_or_sections=3),
        _c(m, "split|sections", "paddle.split", [T([6, 4], seed=13)], num_or_sections=[1, -1, 2], axis=0),
        _c(m, "split|axis1", "paddle.split", [T([6, 4], seed=13)], num_or_sections=2, axis=1),
        _c(m, "split|err", "paddle.split", [T([5, 4], seed=13)], num_or_sections=2),
        _c(m, "split|grad", "paddle.split", [T([6, 4], "float64", 13)], grad=[0], num_or_sections=3, pick=1),
        _c(m, "chunk|2", "paddle.chunk", [T([6, 4], seed=14)], chunks=2, axis=1),
        _c(m, "squeeze|none", "paddle.squeeze", [T([1, 3, 1], seed=15)]),
        _c(m, "squeeze|0", "paddle.squeeze", [T([1, 3, 1], seed=15)], axis=0),
        _c(m, "squeeze|list", "paddle.squeeze", [T([1, 3, 1], seed=15)], axis=[0, 2]),
        _c(m, "squeeze|not1", "paddle.squeeze", [T([1, 3, 1], seed=15)], axis=1),
        _c(m, "squeeze|view", "paddle.squeeze", [T([1, 3, 1], seed=15)], view=True),
        _c(m, "unsqueeze|list", "paddle.unsqueeze", [x], axis=[0, 2]),
        _c(m, "unsqueeze|neg", "paddle.unsqueeze", [x], axis=-1),
        _c(m, "unsqueeze|0d", "paddle.unsqueeze", [T([])], axis=0),
        _c(m, "unsqueeze|view", "paddle.unsqueeze", [x], axis=0, view=True),
        _c(m, "flatten|all", "paddle.flatten", [x234]),
        _c(m, "flatten|1", "paddle.flatten", [x234], start_axis=1),
        _c(m, "flatten|0d", "paddle.flatten", [T([])]),
        _c(m, "flatten|view", "paddle.flatten", [x234], view=True),
        _c(m, "gather|axis0", "paddle.gather", [T([5, 3], seed=16), D([3, 0, 4])]),
        _c(m, "gather|int32idx", "paddle.gather", [T([5, 3], seed=16), D([3, 0], "int32")], axis=1),
        _c(m, "gather|grad", "paddle.gather", [T([5, 3], "float64", 16), D([3, 0, 3])], grad=[0]),
        _c(m, "gather|0didx", "paddle.gather", [T([5, 3], seed=16), D(2)]),
        _c(m, "gather_nd", "paddle.gather_nd", [T([3, 4], seed=17), D([[0, 1], [2, 3]])]),
        _c(m, "gather_nd|rows", "paddle.gather_nd", [T([3, 4], seed=17), D([[2], [0]])]),
        _c(m, "gather_nd|grad", "paddle.gather_nd", [T([3, 4], "float64", 17), D([[0, 1], [0, 1]])], grad=[0]),
        _c(m, "scatter|overwrite", "paddle.scatter", [T([5, 3], seed=18), D([1, 3]), T([2, 3], seed=19)]),
        _c(m, "scatter|add", "paddle.scatter", [T([5, 3], seed=18), D([1, 1]), T([2, 3], seed=19)], overwrite=False),
        _c(m, "scatter|grad", "paddle.scatter", [T([5, 3], "float64", 18), D([1, 3]), T([2, 3], "float64", 19)],
           grad=[0, 2]),
        _c(m, "scatter_nd_add", "paddle.scatter_nd_add", [T([3, 4], seed=20), D([[1], [2], [1]]), T([3, 4], seed=21)]),
        _c(m, "scatter_nd_add|elem", "paddle.scatter_nd_add", [T([3, 4], seed=20), D([[1, 1], [2, 0]]), T([2], seed=21)]),
        _c(m, "scatter_nd", "paddle.scatter_nd", [D([[1], [2]]), T([2, 4], seed=22)], shape=[3, 4]),
        _c(m, "index_select|0", "paddle.index_select", [x43, D([0, 2, 2])]),
        _c(m, "index_select|1", "paddle.index_select", [x43, D([2, 0], "int32")], axis=1),
        _c(m, "index_select|grad", "paddle.index_select", [T([4, 3], "float64", 2), D([0, 2, 2])], grad=[0]),
        _c(m, "masked_select", "paddle.masked_select", [x43, T([4, 3], "bool", 23)]),
        _c(m, "masked_select|bcast", "paddle.masked_select", [x43, T([3], "bool", 24)]),
        _c(m, "masked_select|grad", "paddle.masked_select", [T([4, 3], "float64", 2), T([4, 3], "bool", 23)], grad=[0]),
        _c(m, "tile|short", "paddle.tile", [x], repeat_times=[2]),
        _c(m, "tile|more", "paddle.tile", [x], repeat_times=[2, 1, 2]),
        _c(m, "tile|grad", "paddle.tile", [T([2, 3], "float64", 25)], grad=[0], repeat_times=[2, 2]),
        _c(m, "expand", "paddle.expand", [T([1, 3], seed=26)], shape=[2, 3]),
        _c(m, "expand|neg", "paddle.expand", [T([1, 3], seed=26)], shape=[4, -1, 3]),
        _c(m, "expand|err", "paddle.expand", [T([2, 3], seed=26)], shape=[3, 3]),
        _c(m, "expand|grad", "paddle.expand", [T([1, 3], "float64", 26)], grad=[0], shape=[2, 3]),
        _c(m, "expand|view", "paddle.expand", [T([1, 3], seed=26)], shape=[2, 3], view=True),
        _c(m, "expand_as", "paddle.expand_as", [T([1, 3], seed=26), T([2, 3], seed=27)]),
        _c(m, "broadcast_to", "paddle.broadcast_to", [T([3], seed=26)], shape=[2, 3]),
        _c(m, "broadcast_tensors", "paddle.broadcast_tensors", [L(T([2, 1], seed=28), T([3], seed=29))]),
        _c(m, "flip|int", "paddle.flip", [x], axis=1),
        _c(m, "flip|grad", "paddle.flip", [T([2, 3], "float64", 30)], grad=[0], axis=[0]),
        _c(m, "roll|axis", "paddle.roll", [x], shifts=1, axis=0),
        _c(m, "roll|flat", "paddle.roll", [x], shifts=2),
        _c(m, "roll|multi", "paddle.roll", [x234], shifts=[1, -1], axis=[0, 2]),
        _c(m, "roll|grad", "paddle.roll", [T([2, 3], "float64", 31)], grad=[0], shifts=-1, axis=1),
        _c(m, "slice", "paddle.slice", [x234], axes=[0, 2], starts=[1, 0], ends=[2, 3]),
        _c(m, "slice|neg", "paddle.slice", [x234], axes=[1], starts=[-2], ends=[10000]),
        _c(m, "slice|view", "paddle.slice", [x234], axes=[1], starts=[1], ends=[3], view=True),
        _c(m, "strided_slice", "paddle.strided_slice", [x234], axes=[1, 2], starts=[0, 3], ends=[3, 0],
           strides=[2, -1]),
        _c(m, "strided_slice|grad", "paddle.strided_slice", [T([2, 3, 4], "float64", 1)], grad=[0], axes=[2],
           starts=[0], ends=[4], strides=[2]),
        _c(m, "where|bcast", "paddle.where", [T([3], "bool", 32), x, T([2, 1], seed=33)]),
        _c(m, "where|scalar", "paddle.where", [T([2, 3], "bool", 32), x, P(0.5)]),
        _c(m, "where|nonzero", "paddle.where", [T([2, 3], "bool", 32)]),
        _c(m, "where|grad", "paddle.where", [T([2, 3], "bool", 32), T([2, 3], "float64", 34), T([2, 3], "float64", 35)],
           grad=[1, 2]),
        _c(m, "take_along_axis", "paddle.take_along_axis", [x43, D([[0, 2, 1], [3, 3, 0]]), P(0)]),
        _c(m, "take_along_axis|bcast", "paddle.take_along_axis", [x43, D([[0], [2], [1], [1]]), P(1)]),
        _c(m, "take_along_axis|grad", "paddle.take_along_axis", [T([4, 3], "float64", 2), D([[0, 0, 1]]), P(0)],
           grad=[0]),
        _c(m, "put_along_axis|assign", "paddle.put_along_axis", [x43, D([[0, 2, 1]]), P(9.0), P(0)]),
        _c(m, "put_along_axis|add", "paddle.put_along_axis", [x43, D([[0, 2, 1]]), T([1, 3], seed=36), P(0)],
           reduce="add"),
        _c(m, "put_along_axis|mul", "paddle.put_along_axis", [x43, D([[1], [0], [2], [1]]), P(2.0), P(1)],
           reduce="multiply"),
        _c(m, "unbind|0", "paddle.unbind", [x234]),
        _c(m, "unbind|2", "paddle.unbind", [x234], axis=2),
        _c(m, "unbind|view", "paddle.unbind", [x], view=True),
        _c(m, "unstack", "paddle.unstack", [x234], axis=1),
        _c(m, "moveaxis", "paddle.moveaxis", [x234], source=0, destination=2),
        _c(m, "moveaxis|list", "paddle.moveaxis", [x234], source=[0, 1], destination=[2, 0]),
        _c(m, "repeat_interleave|int", "paddle.repeat_interleave", [x], repeats=2, axis=1),
        _c(m, "repeat_interleave|flat", "paddle.repeat_interleave", [x], repeats=2),
        _c(m, "repeat_interleave|tensor", "paddle.repeat_interleave", [x, D([1, 0, 2])], axis=1),
        _c(m, "repeat_interleave|grad", "paddle.repeat_interleave", [T([2, 3], "float64", 37)], grad=[0], repeats=2,
           axis=0),
        _c(m, "rot90", "paddle.rot90", [x234], k=1, axes=[1, 2]),
        _c(m, "rot90|neg", "paddle.rot90", [x], k=-1),
        _c(m, "vsplit", "paddle.vsplit", [T([4, 2], seed=39), P(2)]),
        _c(m, "diagonal|view", "paddle.diagonal", [x234], axis1=1, axis2=2, view=True),
        _c(m, "diag_embed", "paddle.diag_embed", [x], offset=1),
        _c(m, "as_complex", "paddle.as_complex", [T([3, 2], seed=40)]),
        _c(m, "as_real", "paddle.as_real", [T([3], "complex64", 41)]),
        _c(m, "crop", "paddle.crop", [T([3, 4], seed=42)], shape=[2, 2], offsets=[1, 1]),
        _c(m, "index_add", "paddle.index_add", [x43, D([0, 2]), P(0), T([2, 3], seed=43)]),
        _c(m, "index_put", "paddle.index_put", [x43, (D([0, 2]),), T([3], seed=44)]),
        _c(m, "index_fill", "paddle.index_fill", [x43, D([0, 2]), P(1), P(-1.0)]),
        _c(m, "masked_fill", "paddle.masked_fill", [x43, T([4, 3], "bool", 45), P(2.0)]),
        _c(m, "shard_index", "paddle.shard_index", [D([[1], [6], [12]])], index_num=20, nshards=2, shard_id=0),
        _c(m, "atleast_2d", "paddle.atleast_2d", [T([3], seed=46)]),
        _c(m, "view|shape", "paddle.view", [x234], shape_or_dtype=[6, 4]),
        _c(m, "unfold|tensor", "paddle.unfold", [T([7], seed=47)], axis=0, size=3, step=2),
        _c(m, "reshape_|inplace", "Tensor.reshape_", [x], shape=[3, 2], inplace=True),
        _c(m, "squeeze_|inplace", "Tensor.squeeze_", [T([1, 3], seed=48)], inplace=True),
        _c(m, "flatten_|inplace", "Tensor.flatten_", [x234], inplace=True),
        _c(m, "scatter_|inplace", "Tensor.scatter_", [T([5, 3], seed=18), D([1, 3]), T([2, 3], seed=19)],
           inplace=True),
        _c(m, "x[1:,::2]", "Tensor.__getitem__", [x234, P((slice(1, None), slice(None, None, 2)))]),
        _c(m, "x[...,-1]", "Tensor.__getitem__", [x234, P((Ellipsis, -1))]),
        _c(m, "x[None,0]", "Tensor.__getitem__", [x234, P((None, 0))]),
        _c(m, "x[idx]", "Tensor.__getitem__", [x234, D([1, 0, 1])]),
        _c(m, "x[mask]", "Tensor.__getitem__", [x43, T([4, 3], "bool", 49)]),
    ]
    # view or copy (Paddle 2.6's stride kernels): the output after the input is zeroed in place
    out += [
        _c(m, "split|view", "paddle.split", [T([6, 4], seed=13)], num_or_sections=2, view=True),
        _c(m, "chunk|view", "paddle.chunk", [T([6, 4], seed=14)], chunks=2, axis=1, view=True),
        _c(m, "x[1:]|view", "Tensor.__getitem__", [x234, P((slice(1, None),))], view=True),
        _c(m, "x[0]|view", "Tensor.__getitem__", [x234, P(0)], view=True),
        _c(m, "x[idx]|view", "Tensor.__getitem__", [x234, D([1, 0])], view=True),
        _c(m, "detach|view", "Tensor.detach", [x], view=True),
        _c(m, "T|view", "Tensor.t", [x], view=True),
        _c(m, "moveaxis|view", "paddle.moveaxis", [x234], source=0, destination=2, view=True),
        _c(m, "view|view", "paddle.view", [x234], shape_or_dtype=[6, 4], view=True),
        _c(m, "view_as|view", "paddle.view_as", [x, T([3, 2], seed=210)], view=True),
        _c(m, "flip|view", "paddle.flip", [x], axis=0, view=True),
        _c(m, "tile|view", "paddle.tile", [x], repeat_times=[1, 1], view=True),
        _c(m, "clone|view", "paddle.clone", [x], view=True),
        _c(m, "assign|view", "paddle.assign", [x], view=True),
        _c(m, "as_real|view", "paddle.as_real", [T([3], "complex64", 41)], view=True),
        _c(m, "real|view", "paddle.real", [T([3], "complex64", 41)], view=True),
    ]
    # non-contiguous inputs
    nc = T([3, 4], seed=50, nc=True)
    out += [
        _c(m, "concat|nc", "paddle.concat", [L(nc, T([2, 4], seed=51))], axis=0),
        _c(m, "gather|nc", "paddle.gather", [nc, D([2, 0])], axis=1),
        _c(m, "flip|nc", "paddle.flip", [nc], axis=[0, 1]),
        _c(m, "tile|nc", "paddle.tile", [nc], repeat_times=[1, 2]),
        _c(m, "roll|nc", "paddle.roll", [nc], shifts=1, axis=1),
        _c(m, "where|nc", "paddle.where", [T([3, 4], "bool", 52), nc, T([4, 3], seed=53, nc=True)]),
        _c(m, "index_select|nc", "paddle.index_select", [nc, D([3, 1])], axis=1),
        _c(m, "expand|nc", "paddle.expand", [T([1, 3], seed=54, nc=True)], shape=[2, 3]),
        _c(m, "masked_select|nc", "paddle.masked_select", [nc, T([3, 4], "bool", 55)]),
        _c(m, "take_along_axis|nc", "paddle.take_along_axis", [nc, D([[0, 1, 2, 0]]), P(0)]),
        _c(m, "scatter|nc", "paddle.scatter", [T([4, 3], seed=56, nc=True), D([1, 3]), T([2, 3], seed=57)]),
        _c(m, "flatten|nc", "paddle.flatten", [nc]),
        _c(m, "unbind|nc", "paddle.unbind", [nc], axis=1),
    ]
    return out


# ---------------------------------------------------------------- search and sort
def search_cases():
    s = "search"
    out = []
    for dt in ("float32", "float64", "int32", "int64", "float16"):
        a = T([3, 5], dt, 50)
        a["distinct"] = True
        out += [_c(s, f"argsort|{dt}", "paddle.argsort", [a]),
                _c(s, f"argsort|desc|{dt}", "paddle.argsort", [a], axis=0, descending=True),
                _c(s, f"sort|{dt}", "paddle.sort", [a], axis=0),
                _c(s, f"topk|{dt}", "paddle.topk", [a], k=2),
                _c(s, f"argmax|{dt}", "paddle.argmax", [a], axis=1, keepdim=True),
                _c(s, f"argmin|{dt}", "paddle.argmin", [a], axis=0),
                _c(s, f"kthvalue|{dt}", "paddle.kthvalue", [a], k=2, axis=1)]
    for dt in ("bool", "uint8", "int8", "int16"):
        a = T([3, 5], dt, 56)
        out += [_c(s, f"sort|small_{dt}", "paddle.sort", [a], axis=1),
                _c(s, f"argmax|small_{dt}", "paddle.argmax", [a], axis=0),
                _c(s, f"unique|small_{dt}", "paddle.unique", [a]),
                _c(s, f"nonzero|small_{dt}", "paddle.nonzero", [a]),
                _c(s, f"topk|small_{dt}", "paddle.topk", [a], k=1)]
    a = T([3, 5], "float32", 51)
    a["distinct"] = True
    a64 = T([3, 5], "float64", 51)
    a64["distinct"] = True
    ints = T([3, 6], "int64", 52, 0, 3)
    out += [
        _c(s, "argsort|stable", "paddle.argsort", [ints], stable=True),
        _c(s, "sort|desc", "paddle.sort", [a], descending=True),
        _c(s, "sort|grad", "paddle.sort", [a64], grad=[0], axis=1),
        _c(s, "topk|smallest", "paddle.topk", [a], k=3, axis=0, largest=False),
        _c(s, "topk|tensor_k", "paddle.topk", [a], k=D(2)),
        _c(s, "topk|grad", "paddle.topk", [a64], grad=[0], k=2, pick=0),
        _c(s, "topk|err", "paddle.topk", [a], k=9),
        _c(s, "kthvalue|keepdim", "paddle.kthvalue", [a], k=1, axis=0, keepdim=True),
        _c(s, "kthvalue|grad", "paddle.kthvalue", [a64], grad=[0], k=2, pick=0),
        _c(s, "mode", "paddle.mode", [D([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]])]),
        _c(s, "mode|float", "paddle.mode", [D([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 4.0, 1.0]], "float32")], axis=1,
           keepdim=True),
        _c(s, "unique", "paddle.unique", [ints]),
        _c(s, "unique|all", "paddle.unique", [ints], return_index=True, return_inverse=True, return_counts=True),
        _c(s, "unique|axis", "paddle.unique", [D([[1, 2], [1, 2], [0, 3]])], axis=0, return_counts=True),
        _c(s, "unique|int32", "paddle.unique", [ints], return_inverse=True, dtype="int32"),
        _c(s, "unique|float", "paddle.unique", [D([2.5, 1.0, 2.5, -1.0], "float32")], return_index=True),
        _c(s, "unique_consecutive", "paddle.unique_consecutive", [D([1, 1, 2, 2, 2, 1, 3])]),
        _c(s, "unique_consecutive|all", "paddle.unique_consecutive", [D([1, 1, 2, 2, 2, 1, 3])],
           return_inverse=True, return_counts=True),
        _c(s, "unique_consecutive|axis", "paddle.unique_consecutive", [D([[1, 2], [1, 2], [0, 3]])], axis=0,
           return_counts=True),
        _c(s, "nonzero", "paddle.nonzero", [ints]),
        _c(s, "nonzero|tuple", "paddle.nonzero", [ints], as_tuple=True),
        _c(s, "nonzero|bool", "paddle.nonzero", [T([2, 3], "bool", 53)]),
        _c(s, "nonzero|1d", "paddle.nonzero", [D([0, 3, 0, 1])]),
        _c(s, "searchsorted", "paddle.searchsorted", [D([1.0, 2.0, 2.0, 5.0], "float32"),
                                                       D([0.5, 2.0, 6.0], "float32")]),
        _c(s, "searchsorted|right", "paddle.searchsorted", [D([1.0, 2.0, 2.0, 5.0], "float32"),
                                                             D([0.5, 2.0, 6.0], "float32")], right=True),
        _c(s, "searchsorted|int32", "paddle.searchsorted", [D([[1, 3, 5], [2, 4, 6]]), D([[3], [7]])],
           out_int32=True),
        _c(s, "bucketize", "paddle.bucketize", [D([[0.5, 2.0], [6.0, 1.0]], "float32"), D([1.0, 2.0, 5.0], "float32")]),
        _c(s, "bucketize|right", "paddle.bucketize", [D([0.5, 2.0, 6.0], "float64"), D([1.0, 2.0, 5.0], "float64")],
           right=True, out_int32=True),
        _c(s, "argmax|flat", "paddle.argmax", [a]),
        _c(s, "argmax|flatkeep", "paddle.argmax", [a], keepdim=True),
        _c(s, "argmax|dtype_int32", "paddle.argmax", [a], axis=0, dtype="int32"),
        _c(s, "argmax|ties", "paddle.argmax", [D([[1, 3, 3], [2, 2, 0]])], axis=1),
        _c(s, "argmax|bool", "paddle.argmax", [T([2, 3], "bool", 54)], axis=1),
        _c(s, "index_sample", "paddle.index_sample", [a, D([[0, 4], [1, 1], [3, 2]])]),
        _c(s, "masked_select|1d", "paddle.masked_select", [D([1, 2, 3]), D([True, False, True], "bool")]),
        _c(s, "bincount", "paddle.bincount", [D([1, 1, 4, 0])]),
        _c(s, "bincount|weights", "paddle.bincount", [D([1, 1, 4, 0])], weights=D([0.5, 1.0, 2.0, 1.0], "float32"),
           minlength=6),
        _c(s, "histogram", "paddle.histogram", [D([1.0, 2.0, 1.0, 4.0], "float32")], bins=4, min=0, max=4),
        _c(s, "argsort|0size", "paddle.argsort", [T([0, 3])]),
        _c(s, "sort|0d", "paddle.sort", [T([])]),
        _c(s, "topk|0d", "paddle.topk", [T([])], k=1),
        _c(s, "sort|0dgrad", "paddle.sort", [T([], "float64", 55)], grad=[0]),
        _c(s, "topk|0dgrad", "paddle.topk", [T([], "float64", 55)], grad=[0], k=1),
    ]
    return out


# ---------------------------------------------------------------- creation and cast
def creation_cases():
    c = "creation"
    out = []
    for dt in (None, "bool", "int32", "int64", "float16", "float32", "float64", "complex64"):
        out += [_c(c, f"zeros|{dt}", "paddle.zeros", [], shape=[2, 3], dtype=dt),
                _c(c, f"ones|{dt}", "paddle.ones", [], shape=[2], dtype=dt),
                _c(c, f"full|{dt}", "paddle.full", [], shape=[2, 2], fill_value=3, dtype=dt),
                _c(c, f"eye|{dt}", "paddle.eye", [], num_rows=2, num_columns=3, dtype=dt),
                _c(c, f"zeros_like|{dt}", "paddle.zeros_like", [T([2, 3], "int32", 60)], dtype=dt),
                _c(c, f"ones_like|{dt}", "paddle.ones_like", [T([2, 3], "float64", 61)], dtype=dt),
                _c(c, f"full_like|{dt}", "paddle.full_like", [T([2, 3], "float16", 62)], fill_value=2, dtype=dt),
                _c(c, f"arange|{dt}", "paddle.arange", [], start=0, end=5, step=1, dtype=dt)]
    for src in ("bool", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"):
        for dst in ("bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                    "complex128"):
            out.append(_c(c, f"cast|{src}|{dst}", "paddle.cast", [T([2, 3], src, 63)], dtype=dst))
    out += [
        _c(c, "cast|grad", "paddle.cast", [T([2, 3], "float64", 64)], grad=[0], dtype="float32"),
        _c(c, "astype|method", "Tensor.astype", [T([2, 3], "float32", 65)], dtype="int32"),
        _c(c, "cast|nc", "paddle.cast", [T([3, 4], "float32", 66, nc=True)], dtype="float64"),
        _c(c, "cast|0size", "paddle.cast", [T([0, 2], "float32", 66)], dtype="int64"),
        _c(c, "cast|negative_to_uint8", "paddle.cast", [D([-1.0, 300.0, 2.7], "float32")], dtype="uint8"),
        _c(c, "cast|nan_to_int", "paddle.cast", [D([1.5, -2.5], "float64")], dtype="int32"),
        _c(c, "full|fill_float", "paddle.full", [], shape=[2], fill_value=1.5),
        _c(c, "full|fill_bool", "paddle.full", [], shape=[2], fill_value=True),
        _c(c, "full|tensorshape", "paddle.full", [], shape=D([2, 1], "int32"), fill_value=0.5),
        _c(c, "full|0d", "paddle.full", [], shape=[], fill_value=2.0),
        _c(c, "zeros|0size", "paddle.zeros", [], shape=[0, 2]),
        _c(c, "full_like|inherit", "paddle.full_like", [T([2], "int64", 67)], fill_value=2.7),
        _c(c, "arange|end", "paddle.arange", [P(5)]),
        _c(c, "arange|float", "paddle.arange", [P(0.0), P(1.0), P(0.25)]),
        _c(c, "arange|neg", "paddle.arange", [P(5), P(0), P(-2)]),
        _c(c, "arange|mixed", "paddle.arange", [P(1), P(4.5)]),
        _c(c, "arange|empty", "paddle.arange", [P(3), P(3)]),
        _c(c, "arange|err", "paddle.arange", [P(0), P(5), P(0)]),
        _c(c, "linspace", "paddle.linspace", [P(0), P(1), P(5)]),
        _c(c, "linspace|int", "paddle.linspace", [P(0), P(10), P(4)], dtype="int32"),
        _c(c, "linspace|f64", "paddle.linspace", [P(-1.5), P(2.5), P(9)], dtype="float64"),
        _c(c, "linspace|1", "paddle.linspace", [P(2), P(3), P(1)]),
        _c(c, "logspace", "paddle.logspace", [P(0), P(2), P(3)]),
        _c(c, "logspace|base", "paddle.logspace", [P(0), P(3), P(4)], base=2.0, dtype="float64"),
        _c(c, "eye|square", "paddle.eye", [P(3)]),
        _c(c, "tril", "paddle.tril", [T([3, 4], "float32", 68)]),
        _c(c, "tril|diag", "paddle.tril", [T([3, 4], "int64", 68)], diagonal=-1),
        _c(c, "triu|diag", "paddle.triu", [T([2, 3, 4], "float32", 68)], diagonal=1),
        _c(c, "triu|grad", "paddle.triu", [T([3, 3], "float64", 69)], grad=[0]),
        _c(c, "tril|err", "paddle.tril", [T([3], "float32", 68)]),
        _c(c, "diag|vec", "paddle.diag", [T([3], "float32", 70)]),
        _c(c, "diag|vecoff", "paddle.diag", [T([3], "int64", 70)], offset=-1, padding_value=9),
        _c(c, "diag|mat", "paddle.diag", [T([3, 4], "float32", 71)], offset=1),
        _c(c, "diagflat", "paddle.diagflat", [T([2, 2], "float32", 72)]),
        _c(c, "diagflat|off", "paddle.diagflat", [T([2], "float64", 72)], offset=1),
        _c(c, "meshgrid", "paddle.meshgrid", [T([2], "float32", 73), T([3], "float32", 74)]),
        _c(c, "meshgrid|list", "paddle.meshgrid", [L(T([2], "int32", 73), T([3], "int32", 74), T([1], "int32", 75))]),
        _c(c, "to_tensor|int", "paddle.to_tensor", [P([1, 2])]),
        _c(c, "to_tensor|float", "paddle.to_tensor", [P([1.0, 2.5])]),
        _c(c, "to_tensor|bool", "paddle.to_tensor", [P([True, False])]),
        _c(c, "to_tensor|mixed", "paddle.to_tensor", [P([1, 2.5])]),
        _c(c, "to_tensor|complex", "paddle.to_tensor", [P([1 + 2j])]),
        _c(c, "to_tensor|dtype", "paddle.to_tensor", [P([1, 2])], dtype="float64"),
        _c(c, "assign", "paddle.assign", [T([2, 3], "float32", 76)]),
        _c(c, "clone", "paddle.clone", [T([2, 3], "int32", 77)]),
        _c(c, "complex", "paddle.complex", [T([2], "float32", 78), T([2], "float32", 79)]),
        _c(c, "polar", "paddle.polar", [T([2], "float64", 78, 0.5, 2.0), T([2], "float64", 79)]),
        _c(c, "tril_indices", "paddle.tril_indices", [P(3), P(3)]),
        _c(c, "triu_indices", "paddle.triu_indices", [P(3), P(4), P(1)]),
        _c(c, "empty|shape", "paddle.empty", [], shape=[0, 3]),
    ]
    return out


# ---------------------------------------------------------------- linalg
def linalg_cases():
    g = "linalg"
    out = []
    for dt in ("float32", "float64"):
        a33, b33, a34, b45 = T([3, 3], dt, 140), T([3, 3], dt, 141), T([3, 4], dt, 142), T([4, 5], dt, 143)
        spd = {"mat": "spd", "n": 3, "dtype": dt, "seed": 144}
        v3, w3 = T([3], dt, 145), T([3], dt, 146)
        s = f"|{dt}"
        out += [
            _c(g, "matmul" + s, "paddle.matmul", [a34, b45]),
            _c(g, "matmul|T" + s, "paddle.matmul", [a34, T([5, 4], dt, 147)], transpose_y=True),
            _c(g, "matmul|Tx" + s, "paddle.matmul", [T([4, 3], dt, 147), b45], transpose_x=True),
            _c(g, "matmul|batch" + s, "paddle.matmul", [T([2, 3, 4], dt, 148), b45]),
            _c(g, "matmul|bcast" + s, "paddle.matmul", [T([2, 1, 3, 4], dt, 148), T([3, 4, 2], dt, 149)]),
            _c(g, "matmul|vec" + s, "paddle.matmul", [a34, T([4], dt, 150)]),
            _c(g, "matmul|vecvec" + s, "paddle.matmul", [T([4], dt, 150), T([4], dt, 151)]),
            _c(g, "matmul|nc" + s, "paddle.matmul", [T([3, 4], dt, 152, nc=True), T([4, 2], dt, 153, nc=True)]),
            _c(g, "bmm" + s, "paddle.bmm", [T([2, 3, 4], dt, 148), T([2, 4, 2], dt, 149)]),
            _c(g, "mm" + s, "paddle.mm", [a34, b45]),
            _c(g, "dot" + s, "paddle.dot", [v3, w3]),
            _c(g, "mv" + s, "paddle.mv", [a34, T([4], dt, 150)]),
            _c(g, "cross" + s, "paddle.cross", [T([2, 3], dt, 154), T([2, 3], dt, 155)]),
            _c(g, "cross|axis" + s, "paddle.cross", [T([3, 3], dt, 154), T([3, 3], dt, 155)], axis=0),
            _c(g, "outer" + s, "paddle.outer", [v3, T([2], dt, 156)]),
            _c(g, "inner" + s, "paddle.inner", [a34, T([2, 4], dt, 157)]),
            _c(g, "kron" + s, "paddle.kron", [T([2, 2], dt, 158), T([2, 3], dt, 159)]),
            _c(g, "norm|fro" + s, "paddle.linalg.norm", [a34]),
            _c(g, "norm|2axis" + s, "paddle.linalg.norm", [a34], p=2, axis=1),
            _c(g, "norm|1" + s, "paddle.linalg.norm", [a34], p=1, axis=0, keepdim=True),
            _c(g, "norm|inf" + s, "paddle.linalg.norm", [a34], p=float("inf"), axis=-1),
            _c(g, "norm|-inf" + s, "paddle.linalg.norm", [v3], p=float("-inf")),
            _c(g, "norm|0" + s, "paddle.linalg.norm", [v3], p=0),
            _c(g, "norm|3" + s, "paddle.linalg.norm", [v3], p=3),
            _c(g, "norm|fro_axes" + s, "paddle.linalg.norm", [T([2, 3, 4], dt, 160)], p="fro", axis=[1, 2]),
            _c(g, "norm|nuc" + s, "paddle.linalg.norm", [a34], p="nuc", axis=[0, 1]),
            _c(g, "det" + s, "paddle.linalg.det", [a33]),
            _c(g, "det|batch" + s, "paddle.linalg.det", [T([2, 3, 3], dt, 161)]),
            _c(g, "slogdet" + s, "paddle.linalg.slogdet", [T([2, 3, 3], dt, 161)]),
            _c(g, "inv" + s, "paddle.linalg.inv", [spd]),
            _c(g, "inv|err" + s, "paddle.linalg.inv", [a34]),
            _c(g, "solve" + s, "paddle.linalg.solve", [spd, T([3, 2], dt, 162)]),
            _c(g, "solve|vec" + s, "paddle.linalg.solve", [spd, v3]),
            _c(g, "triangular_solve" + s, "paddle.linalg.triangular_solve", [spd, T([3, 2], dt, 162)], upper=False),
            _c(g, "cholesky" + s, "paddle.linalg.cholesky", [spd]),
            _c(g, "cholesky|upper" + s, "paddle.linalg.cholesky", [spd], upper=True),
            _c(g, "cholesky_solve" + s, "paddle.linalg.cholesky_solve", [T([3, 2], dt, 162), spd]),
            _c(g, "qr" + s, "paddle.linalg.qr", [T([4, 3], dt, 163)]),
            _c(g, "qr|r" + s, "paddle.linalg.qr", [T([4, 3], dt, 163)], mode="r"),
            _c(g, "qr|complete" + s, "paddle.linalg.qr", [T([4, 3], dt, 163)], mode="complete", pick=1),
            _c(g, "svd|S" + s, "paddle.linalg.svd", [a34], pick=1),
            _c(g, "eigvalsh" + s, "paddle.linalg.eigvalsh", [spd]),
            _c(g, "eigh|w" + s, "paddle.linalg.eigh", [spd], pick=0),
            _c(g, "pinv" + s, "paddle.linalg.pinv", [a34]),
            _c(g, "matrix_power|3" + s, "paddle.linalg.matrix_power", [a33], n=3),
            _c(g, "matrix_power|0" + s, "paddle.linalg.matrix_power", [a33], n=0),
            _c(g, "matrix_power|-2" + s, "paddle.linalg.matrix_power", [spd], n=-2),
            _c(g, "cond" + s, "paddle.linalg.cond", [spd]),
            _c(g, "cond|fro" + s, "paddle.linalg.cond", [spd], p="fro"),
            _c(g, "cond|1" + s, "paddle.linalg.cond", [spd], p=1),
            _c(g, "lstsq" + s, "paddle.linalg.lstsq", [T([5, 3], dt, 164), T([5, 2], dt, 165)], pick=0),
            _c(g, "matrix_rank" + s, "paddle.linalg.matrix_rank", [a34]),
            _c(g, "multi_dot" + s, "paddle.linalg.multi_dot", [L(a34, b45, T([5, 2], dt, 166))]),
            _c(g, "trace" + s, "paddle.trace", [a34], offset=1),
            _c(g, "t" + s, "paddle.t", [a34]),
            _c(g, "cov" + s, "paddle.linalg.cov", [a34]),
            _c(g, "corrcoef" + s, "paddle.linalg.corrcoef", [a34]),
            _c(g, "dist" + s, "paddle.dist", [a34, T([3, 4], dt, 167)], p=2),
            _c(g, "cdist" + s, "paddle.cdist", [a34, T([2, 4], dt, 167)]),
            _c(g, "lu|LU" + s, "paddle.linalg.lu", [spd], pick=0),
            _c(g, "lu_unpack|P" + s, "paddle.linalg.lu_unpack", [a33, D([2, 3, 3], "int32")], pick=0),
            _c(g, "lu_unpack|L" + s, "paddle.linalg.lu_unpack", [a33, D([2, 3, 3], "int32")], pick=1),
            _c(g, "lu_unpack|U" + s, "paddle.linalg.lu_unpack", [T([3, 4], dt, 172), D([3, 3, 3], "int32")], pick=2),
            _c(g, "householder_product" + s, "paddle.linalg.householder_product",
               [T([4, 3], dt, 168), T([3], dt, 169)]),
        ]
    a = T([3, 4], "float64", 142)
    spd = {"mat": "spd", "n": 3, "dtype": "float64", "seed": 144}
    out += [
        _c(g, "eigvals|spd", "paddle.linalg.eigvals", [spd]),
        _c(g, "eigvals|tri", "paddle.linalg.eigvals", [D([[2.0, 1.0, 0.5], [0.0, -1.0, 3.0], [0.0, 0.0, 0.5]], "float64")]),
        _c(g, "eig|w", "paddle.linalg.eig", [D([[2.0, 1.0], [0.0, -1.0]], "float32")], pick=0),
        _c(g, "eigvals|c", "paddle.linalg.eigvals", [D([[0.0, -1.0], [1.0, 0.0]], "float64")]),
    ]
    out += [
        _c(g, "matmul|grad", "paddle.matmul", [a, T([4, 2], "float64", 143)], grad=[0, 1]),
        _c(g, "det|grad", "paddle.linalg.det", [spd], grad=[0]),
        _c(g, "inv|grad", "paddle.linalg.inv", [spd], grad=[0]),
        _c(g, "solve|grad", "paddle.linalg.solve", [spd, T([3, 2], "float64", 162)], grad=[0, 1]),
        _c(g, "cholesky|grad", "paddle.linalg.cholesky", [spd], grad=[0]),
        _c(g, "norm|grad", "paddle.linalg.norm", [a], grad=[0]),
        _c(g, "norm|grad1", "paddle.linalg.norm", [a], grad=[0], p=1, axis=1),
        _c(g, "dot|grad", "paddle.dot", [T([3], "float64", 145), T([3], "float64", 146)], grad=[0, 1]),
        _c(g, "cross|grad", "paddle.cross", [T([2, 3], "float64", 154), T([2, 3], "float64", 155)], grad=[0, 1]),
        _c(g, "eigvalsh|grad", "paddle.linalg.eigvalsh", [spd], grad=[0]),
        _c(g, "matmul|int", "paddle.matmul", [T([2, 3], "int64", 170), T([3, 2], "int64", 171)]),
        _c(g, "matmul|f16", "paddle.matmul", [T([2, 3], "float16", 170), T([3, 2], "float16", 171)]),
        _c(g, "matmul|c64", "paddle.matmul", [T([2, 3], "complex64", 170), T([3, 2], "complex64", 171)]),
        _c(g, "matmul|mixed", "paddle.matmul", [T([2, 3], "float32", 170), T([3, 2], "float64", 171)]),
        _c(g, "matmul|err", "paddle.matmul", [T([2, 3], "float32", 170), T([2, 3], "float32", 171)]),
        _c(g, "dot|int", "paddle.dot", [T([3], "int32", 145), T([3], "int32", 146)]),
        _c(g, "dot|err", "paddle.dot", [T([3], "float32", 145), T([4], "float32", 146)]),
        _c(g, "cholesky|err", "paddle.linalg.cholesky", [D([[1.0, 2.0], [2.0, 1.0]], "float64")]),
        _c(g, "det|singular", "paddle.linalg.det", [D([[1.0, 2.0], [2.0, 4.0]], "float64")]),
        _c(g, "inv|singular", "paddle.linalg.inv", [D([[1.0, 2.0], [2.0, 4.0]], "float64")]),
        _c(g, "det|0size", "paddle.linalg.det", [T([0, 3, 3], "float32", 172)]),
        _c(g, "matmul|0size", "paddle.matmul", [T([0, 3], "float32", 172), T([3, 2], "float32", 173)]),
    ]
    return out


# ---------------------------------------------------------------- the rest of paddle.*
INPLACE_TOP = ["acos_", "acosh_", "asin_", "asinh_", "atan_", "atanh_", "cos_", "cosh_", "sinh_", "tan_", "erf_",
               "expm1_", "frac_", "digamma_", "lgamma_", "i0_", "log10_", "log1p_", "log2_", "logit_", "cumsum_",
               "cumprod_", "tril_", "triu_", "t_", "unsqueeze_", "transpose_", "nan_to_num_", "polygamma_",
               "renorm_", "multigammaln_"]
TOP_ARGS = {"cumsum_": {"axis": 0}, "cumprod_": {"dim": 0}, "unsqueeze_": {"axis": 0}, "transpose_": {"perm": [1, 0]},
            "polygamma_": {"n": 1}, "renorm_": {"p": 2.0, "axis": 0, "max_norm": 1.0}, "multigammaln_": {"p": 2}}


def math_cases():
    m = "math"
    x, y = T([3, 4], seed=180), T([3, 4], seed=181)
    x64, y64 = T([3, 4], "float64", 180), T([3, 4], "float64", 181)
    pos = T([3, 4], seed=182, low=0.2, high=2.0)
    i1, i2 = T([3, 4], "int64", 183, 1, 20), T([3, 4], "int64", 184, 1, 20)
    out = []
    for dt in ("int32", "int64", "float32", "float64", "float16"):
        a = T([3, 4], dt, 185)
        out += [_c(m, f"cumsum|{dt}", "paddle.cumsum", [a], axis=1),
                _c(m, f"cumprod|{dt}", "paddle.cumprod", [a], dim=0),
                _c(m, f"cummax|{dt}", "paddle.cummax", [a], axis=1),
                _c(m, f"clip|{dt}", "paddle.clip", [a], min=-1, max=1),
                _c(m, f"diff|{dt}", "paddle.diff", [a], axis=-1)]
    out += [
        _c(m, "cumsum|flat", "paddle.cumsum", [x]),
        _c(m, "cumsum|dtype", "paddle.cumsum", [i1], axis=0, dtype="float64"),
        _c(m, "cumsum|grad", "paddle.cumsum", [x64], grad=[0], axis=1),
        _c(m, "cumsum|bool", "paddle.cumsum", [T([3, 4], "bool", 186)], axis=0),
        _c(m, "cumprod|grad", "paddle.cumprod", [x64], grad=[0], dim=1),
        _c(m, "cummax|grad", "paddle.cummax", [x64], grad=[0], axis=0, pick=0),
        _c(m, "cummin", "paddle.cummin", [x], axis=0),
        _c(m, "cummin|int32idx", "paddle.cummin", [x], axis=1, dtype="int32"),
        _c(m, "logcumsumexp", "paddle.logcumsumexp", [x], axis=1),
        _c(m, "logcumsumexp|grad", "paddle.logcumsumexp", [x64], grad=[0], axis=0),
        _c(m, "clip|min_only", "paddle.clip", [x], min=0.0),
        _c(m, "clip|tensor", "paddle.clip", [x], min=D(-0.5, "float32"), max=D(0.5, "float32")),
        _c(m, "clip|grad", "paddle.clip", [x64], grad=[0], min=-1.0, max=1.0),
        _c(m, "diff|n2", "paddle.diff", [x], n=2, axis=0),
        _c(m, "diff|prepend", "paddle.diff", [x], prepend=T([3, 1], seed=187), append=T([3, 2], seed=188)),
        _c(m, "diff|bool", "paddle.diff", [T([5], "bool", 189)]),
        _c(m, "diff|grad", "paddle.diff", [x64], grad=[0]),
        _c(m, "add_n", "paddle.add_n", [L(x, y, T([3, 4], seed=190))]),
        _c(m, "add_n|grad", "paddle.add_n", [L(x64, y64)], grad=[0]),
        _c(m, "addmm", "paddle.addmm", [T([3, 2], seed=191), x, T([4, 2], seed=192)], beta=0.5, alpha=2.0),
        _c(m, "addmm|grad", "paddle.addmm", [T([3, 2], "float64", 191), x64, T([4, 2], "float64", 192)],
           grad=[0, 1, 2]),
        _c(m, "atan2", "paddle.atan2", [x, y]),
        _c(m, "atan2|int", "paddle.atan2", [i1, i2]),
        _c(m, "atan2|grad", "paddle.atan2", [x64, y64], grad=[0, 1]),
        _c(m, "hypot", "paddle.hypot", [x, y]),
        _c(m, "hypot|grad", "paddle.hypot", [x64, y64], grad=[0, 1]),
        _c(m, "logaddexp", "paddle.logaddexp", [x, y]),
        _c(m, "logaddexp|grad", "paddle.logaddexp", [x64, y64], grad=[0, 1]),
        _c(m, "lerp", "paddle.lerp", [x, y, P(0.3)]),
        _c(m, "lerp|tensor", "paddle.lerp", [x, y, T([4], seed=193, low=0.0, high=1.0)]),
        _c(m, "lerp|grad", "paddle.lerp", [x64, y64, T([3, 4], "float64", 193, 0.0, 1.0)], grad=[0, 1]),
        _c(m, "heaviside", "paddle.heaviside", [D([-1.0, 0.0, 2.0], "float32"), D([0.5, 0.5, 0.5], "float32")]),
        _c(m, "gcd", "paddle.gcd", [i1, i2]),
        _c(m, "lcm", "paddle.lcm", [i1, i2]),
        _c(m, "gcd|int32", "paddle.gcd", [D([12, -18, 0], "int32"), D([8, 12, 5], "int32")]),
        _c(m, "bitwise_or", "paddle.bitwise_or", [i1, i2]),
        _c(m, "bitwise_xor|bool", "paddle.bitwise_xor", [T([4], "bool", 194), T([4], "bool", 195)]),
        _c(m, "logical_or", "paddle.logical_or", [x, T([3, 4], "int32", 196)]),
        _c(m, "logical_xor", "paddle.logical_xor", [T([4], "bool", 194), T([4], "bool", 195)]),
        _c(m, "mod", "paddle.mod", [i1, T([3, 4], "int64", 197, 1, 5)]),
        _c(m, "floor_mod|float", "paddle.floor_mod", [x, T([3, 4], seed=198, low=0.5)]),
        _c(m, "greater_than", "paddle.greater_than", [x, y]),
        _c(m, "less_equal", "paddle.less_equal", [x, T([4], seed=199)]),
        _c(m, "isclose", "paddle.isclose", [x, x]),
        _c(m, "isclose|nan", "paddle.isclose", [D([1.0, float("nan")], "float64"), D([1.0 + 1e-9, float("nan")], "float64")],
           equal_nan=True),
        _c(m, "ldexp", "paddle.ldexp", [x, T([3, 4], "int32", 200, -2, 3)]),
        _c(m, "frexp", "paddle.frexp", [x]),
        _c(m, "nextafter", "paddle.nextafter", [x, y]),
        _c(m, "increment", "paddle.increment", [D([1.0], "float32")], value=2.0),
        _c(m, "inverse", "paddle.inverse", [{"mat": "spd", "n": 3, "dtype": "float32", "seed": 201}]),
        _c(m, "multigammaln|float64", "paddle.multigammaln", [T([3], "float64", 202, 2.0, 4.0)], p=3),
        _c(m, "multiplex", "paddle.multiplex", [L(x, y), D([[1], [0], [1]], "int32")]),
        _c(m, "renorm", "paddle.renorm", [x], p=2.0, axis=0, max_norm=1.0),
        _c(m, "reverse", "paddle.reverse", [x], axis=[0]),
        _c(m, "scale", "paddle.scale", [x], scale=2.0, bias=1.0),
        _c(m, "scale|after", "paddle.scale", [x], scale=2.0, bias=1.0, bias_after_scale=False),
        _c(m, "scale|int", "paddle.scale", [i1], scale=2.0),
        _c(m, "take", "paddle.take", [x, D([[0, 11], [5, -1]])]),
        _c(m, "take|clip", "paddle.take", [x, D([0, 20])], mode="clip"),
        _c(m, "take|wrap", "paddle.take", [x, D([0, 20, -13])], mode="wrap"),
        _c(m, "tensordot|int", "paddle.tensordot", [T([2, 3, 4], seed=203), T([3, 4, 5], seed=204)], axes=2),
        _c(m, "tensordot|grad", "paddle.tensordot", [T([2, 3], "float64", 203), T([3, 2], "float64", 204)],
           grad=[0, 1], axes=1),
        _c(m, "trapezoid", "paddle.trapezoid", [x], dx=0.5),
        _c(m, "trapezoid|x", "paddle.trapezoid", [x], x=T([4], seed=205), axis=1),
        _c(m, "cumulative_trapezoid", "paddle.cumulative_trapezoid", [x], axis=0),
        _c(m, "diagonal_scatter", "paddle.diagonal_scatter", [T([3, 3], seed=206), T([2], seed=207)], offset=1),
        _c(m, "select_scatter", "paddle.select_scatter", [x, T([4], seed=208), P(0), P(1)]),
        _c(m, "unflatten", "paddle.unflatten", [x], axis=1, shape=[2, 2]),
        _c(m, "vander", "paddle.vander", [T([3], seed=209)], n=4),
        _c(m, "vander|inc", "paddle.vander", [T([3], "float64", 209)], increasing=True),
        _c(m, "view_as", "paddle.view_as", [x, T([2, 6], seed=210)]),
        _c(m, "as_strided", "paddle.as_strided", [x], shape=[2, 2], stride=[4, 1], offset=1),
        _c(m, "as_strided|off4", "paddle.as_strided", [x], shape=[2, 2], stride=[4, 1], offset=4),
        _c(m, "as_strided|view", "paddle.as_strided", [x], shape=[3], stride=[5], view=True),
        _c(m, "combinations", "paddle.combinations", [T([4], "int64", 211)], r=2),
        _c(m, "combinations|repl", "paddle.combinations", [T([3], seed=211)], r=2, with_replacement=True),
        _c(m, "atleast_1d", "paddle.atleast_1d", [T([])]),
        _c(m, "atleast_3d", "paddle.atleast_3d", [x]),
        _c(m, "nanquantile", "paddle.nanquantile", [D([[1.0, float("nan"), 3.0], [2.0, 4.0, 0.5]], "float64")],
           q=0.5, axis=1),
        _c(m, "quantile|list", "paddle.quantile", [x64], q=[0.25, 0.75], axis=0),
        _c(m, "shape", "paddle.shape", [x]),
        _c(m, "broadcast_shape", "paddle.broadcast_shape", [P([2, 1, 3]), P([4, 3])]),
        _c(m, "is_complex", "paddle.is_complex", [T([2], "complex64", 212)]),
        _c(m, "is_floating_point", "paddle.is_floating_point", [T([2], "float16", 212)]),
        _c(m, "is_integer", "paddle.is_integer", [T([2], "uint8", 212)]),
        _c(m, "tolist", "paddle.tolist", [D([[1, 2], [3, 4]])]),
        _c(m, "kron|int", "paddle.kron", [D([[1, 2]]), D([[1], [3]])]),
        _c(m, "cross|default_axis", "paddle.cross", [T([3, 3], seed=213), T([3, 3], seed=214)]),
        _c(m, "trace|default", "paddle.trace", [x]),
        _c(m, "stanh|int", "paddle.stanh", [i1]),
        _c(m, "rank", "paddle.rank", [x]),
        _c(m, "numel", "paddle.numel", [x]),
        _c(m, "count_nonzero|axis", "paddle.count_nonzero", [x], axis=1),
        _c(m, "median|axis", "paddle.median", [x], axis=1),
        _c(m, "nanmedian|axis", "paddle.nanmedian", [D([[1.0, float("nan"), 3.0], [2.0, 4.0, 0.5]], "float32")], axis=1),
        _c(m, "mode|0", "paddle.mode", [D([[1, 1], [2, 1], [2, 3]])], axis=0),
        _c(m, "equal_all", "paddle.equal_all", [x, x]),
        _c(m, "allclose", "paddle.allclose", [x, y]),
    ]
    # reductions of 0-size and 0-D tensors
    for op in ("sum", "mean", "prod", "max", "amin", "argmax", "all", "any", "std", "logsumexp", "nansum",
               "count_nonzero", "median"):
        for key, shape, kw in (("0size", [0, 3], {}), ("0size_ax0", [0, 3], {"axis": 0}),
                               ("0size_ax1", [0, 3], {"axis": 1}), ("0d", [], {}), ("0d_ax0", [], {"axis": 0})):
            out.append(_c(m, f"{op}|{key}", "paddle." + op, [T(shape, "float32", 230)], **kw))
    # error cases: the exception class
    x3 = T([2, 3, 4], seed=216)
    for key, api, args, kw in [
            ("sum", "paddle.sum", [x3], {"axis": 3}), ("mean", "paddle.mean", [x3], {"axis": -4}),
            ("argmax", "paddle.argmax", [x3], {"axis": 3}), ("cumsum", "paddle.cumsum", [x3], {"axis": 3}),
            ("concat", "paddle.concat", [L(x3, x3)], {"axis": 3}), ("split", "paddle.split", [x3, P(2)], {"axis": 3}),
            ("flip", "paddle.flip", [x3], {"axis": 3}), ("transpose_dup", "paddle.transpose", [x3], {"perm": [0, 0, 1]}),
            ("softmax", F + "softmax", [x3], {"axis": 3}), ("squeeze", "paddle.squeeze", [x3], {"axis": 5}),
            ("unsqueeze", "paddle.unsqueeze", [x3], {"axis": 5}), ("gather", "paddle.gather", [x3, D([0])], {"axis": 3}),
            ("roll", "paddle.roll", [x3, P(1)], {"axis": 5}), ("topk_axis", "paddle.topk", [x3, P(1)], {"axis": 5}),
            ("sort", "paddle.sort", [x3], {"axis": 3}), ("stack", "paddle.stack", [L(x3, x3)], {"axis": 5}),
            ("tile_neg", "paddle.tile", [x3], {"repeat_times": [-1, 1, 1]}),
            ("reshape_two_neg", "paddle.reshape", [x3], {"shape": [-1, -1]}),
            ("expand_rank", "paddle.expand", [x3], {"shape": [3, 4]}),
            ("broadcast", "paddle.add", [x3, T([3, 3], seed=217)], {}),
            ("matmul_rank0", "paddle.matmul", [T([]), T([3])], {}),
            ("cast_bad", "paddle.cast", [x3], {"dtype": "float8"}),
            ("zeros_bad_dtype", "paddle.zeros", [], {"shape": [2], "dtype": "int4"}),
            ("full_neg_shape", "paddle.full", [], {"shape": [-2, 3], "fill_value": 1.0}),
            ("linspace_num0", "paddle.linspace", [P(0), P(1), P(-1)], {}),
            ("one_hot_range", F + "one_hot", [D([1, 5])], {"num_classes": 3}),
            ("conv2d_3d", F + "conv2d", [x3, T([2, 2, 3, 3], seed=218)], {}),
            ("layer_norm_shape", F + "layer_norm", [x3], {"normalized_shape": [5]}),
            ("pad_bad_mode", F + "pad", [T([1, 1, 3, 3], seed=219)], {"pad": [1, 1, 1, 1], "mode": "wrap"}),
            ("interp_bad_mode", F + "interpolate", [T([1, 1, 3, 3], seed=219)], {"size": [4, 4], "mode": "cubic"}),
            ("det_nonsquare", "paddle.linalg.det", [T([3, 4], seed=220)], {}),
            ("solve_shape", "paddle.linalg.solve", [T([3, 3], seed=220), T([4, 1], seed=221)], {}),
            ("tensor_list", "paddle.exp", [P([1.0, 2.0])], {}),
            ("index_select_2d_index", "paddle.index_select", [x3, D([[0]])], {}),
            ("masked_select_shape", "paddle.masked_select", [x3, T([5], "bool", 222)], {}),
            ("where_shape", "paddle.where", [T([5], "bool", 222), x3, x3], {}),
    ]:
        out.append(_c(m, f"err|{key}", api, args, **kw))
    # Tensor in-place methods: the output and the input after the call
    xi = T([3, 4], "int64", 223, 1, 9)
    for key, meth, args, kw in [
            ("add_", "add_", [x, y], {}), ("add_|bcast", "add_", [x, T([4], seed=224)], {}),
            ("add_|bcast_err", "add_", [T([4], seed=224), x], {}), ("add_|int_float", "add_", [xi, x], {}),
("subtract_", "subtract_", [x, y], {}),
            ("multiply_", "multiply_", [x, y], {}), ("divide_", "divide_", [x, pos], {}),
            ("divide_|int", "divide_", [xi, T([3, 4], "int64", 225, 1, 4)], {}),
            ("pow_", "pow_", [pos, P(2.0)], {}), ("remainder_", "remainder_", [xi, P(3)], {}),
            ("clip_", "clip_", [x], {"min": -0.5, "max": 0.5}), ("scale_", "scale_", [x], {"scale": 3.0, "bias": 1.0}),
            ("zero_", "zero_", [xi], {}), ("fill_", "fill_", [x], {"value": 2.5}),
            ("fill_|int", "fill_", [xi], {"value": 2.5}),
            ("fill_diagonal_", "fill_diagonal_", [x], {"value": 9.0}),
            ("fill_diagonal_|wrap", "fill_diagonal_", [T([7, 3], seed=226)], {"value": 9.0, "wrap": True}),
            ("masked_fill_", "masked_fill_", [x, T([3, 4], "bool", 227), P(0.0)], {}),
            ("index_fill_", "index_fill_", [x, D([0, 2]), P(0), P(-1.0)], {}),
            ("put_along_axis_", "put_along_axis_", [x, D([[0, 1, 2, 0]]), P(7.0), P(0)], {}),
            ("index_add_", "index_add_", [x, D([1]), P(0), T([1, 4], seed=228)], {}),
            ("tanh_", "tanh_", [x], {}), ("exp_", "exp_", [x], {}), ("sqrt_", "sqrt_", [pos], {}),
            ("floor_", "floor_", [x], {}), ("reciprocal_", "reciprocal_", [pos], {}),
            ("uniform_|shape", "uniform_", [T([0, 3], seed=229)], {}),
            ("cast_", "cast_", [x], {"dtype": "float64"}),
            ("unsqueeze_", "unsqueeze_", [x], {"axis": 1}), ("t_", "t_", [x], {}),
            ("lerp_", "lerp_", [x, y, P(0.5)], {}), ("copysign_", "copysign_", [x, y], {}),
    ]:
        out.append(_c(m, f"Tensor.{key}", "Tensor." + meth, args, inplace=True, **kw))
    for name in INPLACE_TOP:
        base = name[:-1]
        lo, hi = _dom(base, "float32") if base in UNARY else (None, None)
        if base in ("acosh",):
            lo, hi = 1.2, 3.0
        if base in ("digamma", "lgamma", "log10", "log1p", "log2", "logit", "polygamma", "multigammaln"):
            lo, hi = (1.2, 3.0) if base == "multigammaln" else (0.1, 0.9)
        shape = [3, 4]
        out.append(_c(m, f"{name}|inplace", "paddle." + name, [T(shape, "float32", 215, lo, hi)], inplace=True,
                      **TOP_ARGS.get(name, {})))
    return out


def method_cases():
    """The Tensor-method form of each paddle.* function of the other families (its first case
    whose first argument is a tensor): x.name(*rest, **kwargs)."""
    out, seen = [], set()
    for gen in (manipulation_cases, search_cases, creation_cases, linalg_cases, math_cases):
        for c in gen():
            api = c["api"]
            if not api.startswith("paddle.") or api.count(".") != 1 or api.endswith("_") or api in seen:
                continue
            if not c["args"] or "shape" not in c["args"][0] and "data" not in c["args"][0]:
                continue
            seen.add(api)
            out.append(dict(c, fam="methods", id="x." + c["id"], api="Tensor." + api.split(".")[1]))
    # methods with Python answers or of the Tensor only
    x, xi, x0 = T([2, 3], seed=310), T([2, 3], "int32", 311), T([], seed=312)
    for key, meth, args, kw in [
            ("item", "item", [x0], {}), ("item|index", "item", [x, P(4)], {}), ("item|int", "item", [T([1], "int64", 313)], {}),
            ("tolist", "tolist", [x], {}), ("tolist|int", "tolist", [xi], {}), ("dim", "dim", [x], {}),
            ("ndimension", "ndimension", [x], {}), ("element_size", "element_size", [xi], {}),
            ("element_size|f16", "element_size", [T([2], "float16", 314)], {}), ("numel", "numel", [x], {}),
            ("is_contiguous", "is_contiguous", [x], {}), ("is_contiguous|nc", "is_contiguous", [T([3, 4], nc=True)], {}),
            ("contiguous|nc", "contiguous", [T([3, 4], nc=True)], {}), ("clone", "clone", [x], {}),
            ("cpu", "cpu", [x], {}), ("astype|bool", "astype", [x], {"dtype": "bool"}),
            ("__len__", "__len__", [x], {}), ("__bool__|1", "__bool__", [T([1], seed=315, low=0.5)], {}),
            ("__float__", "__float__", [T([1], seed=316)], {}), ("__float__|0d", "__float__", [x0], {}),
            ("__int__|0d", "__int__", [T([], "int64", 317)], {}), ("__int__", "__int__", [T([1], "int64", 317)], {}),
            ("__index__", "__index__", [T([1], "int64", 317)], {}), ("__neg__", "__neg__", [xi], {}),
            ("__abs__", "__abs__", [x], {}), ("__invert__", "__invert__", [T([3], "bool", 318)], {}),
            ("__rsub__", "__rsub__", [x, P(1)], {}), ("__rtruediv__", "__rtruediv__", [xi, P(3)], {}),
            ("__rpow__", "__rpow__", [x, P(2)], {}), ("__matmul__", "__matmul__", [x, T([3, 2], seed=319)], {}),
            ("__and__", "__and__", [xi, T([2, 3], "int32", 320)], {}), ("__xor__", "__xor__", [xi, P(3)], {}),
            ("__lshift__", "__lshift__", [xi, P(1)], {}), ("__ne__", "__ne__", [x, P(0.375)], {}),
            ("__ge__", "__ge__", [x, T([3], seed=321)], {}), ("__array__", "__array__", [x], {}),
    ]:
        out.append(_c("methods", "m." + key, "Tensor." + meth, args, **kw))
    return out


FAMILIES = {"unary": unary_cases, "manipulation": manipulation_cases, "search": search_cases,
            "creation": creation_cases, "functional": functional_cases, "linalg": linalg_cases, "math": math_cases,
            "methods": method_cases, "layers": layer_cases}
FAMILIES.update(api_cases_more.FAMILIES)  # inplace, random, framework
