"""The table of public Python calls that tests/python/test_static_sweep.py runs eagerly and in
static mode (paddle.*, Tensor methods and operators, paddle.linalg; nn.functional, losses, layers
and metrics are in static_sweep_nn_cases.py). A case: an id, a function of tensors, numpy inputs and
options (grad: also compare static.gradients with paddle.grad; known: every dim known)."""
import numpy as np

import paddle
import paddle.nn.functional as F

rng = np.random.default_rng(7)


def r(*shape, dtype="float32", low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def ri(*shape, low=0, high=5, dtype="int64"):
    return rng.integers(low, high, size=shape).astype(dtype)


def rb(*shape):
    return rng.random(shape) > 0.5


def C(id, fn, *inputs, **opts):
    return dict(id=id, fn=fn, inputs=list(inputs), **opts)


X = r(4, 5)
X3 = r(3, 4, 5)
XP = r(4, 5, low=0.1, high=3.0)
XD = r(4, 5, dtype="float64")
SQ = r(2, 3, 3, dtype="float64") + 3 * np.eye(3)  # batches of matrices: the batch dim can be unknown
SPD = (lambda a: a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3))(r(2, 3, 3, dtype="float64"))
I = ri(4, 5, low=-9, high=9)
NAN = np.array([[np.nan, 1.0, -np.inf], [2.0, np.nan, 3.0]], "float32")

UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "expm1", "floor", "reciprocal",
         "round", "rsqrt", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
         "log", "log2", "log10", "log1p", "erf", "erfinv", "lgamma", "digamma", "neg", "frac",
         "deg2rad", "rad2deg", "isnan", "isinf", "isfinite", "angle", "sgn", "logit"]
INPUT_OF = {"acos": r(4, 5, low=-0.9, high=0.9), "asin": r(4, 5, low=-0.9, high=0.9),
            "erfinv": r(4, 5, low=-0.9, high=0.9), "logit": r(4, 5, low=0.05, high=0.95)}
CASES = []
for _n in UNARY:
    _x = INPUT_OF.get(_n, XP if _n in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "lgamma", "digamma") else X)
    CASES.append(C(f"paddle.{_n}", (lambda n: lambda x: getattr(paddle, n)(x))(_n), _x,
                   grad=_n not in ("isnan", "isinf", "isfinite", "sign", "round", "floor", "ceil", "trunc",
                                   "angle", "sgn")))
    CASES.append(C(f"Tensor.{_n}", (lambda n: lambda x: getattr(x, n)())(_n), _x))

BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin", "pow",
          "atan2", "remainder", "floor_divide", "equal", "not_equal", "less_than", "less_equal",
          "greater_than", "greater_equal", "logaddexp", "heaviside"]
for _n in BINARY:
    _y = r(5, low=0.5, high=2.0)
    _x = XP if _n == "pow" else X
    CASES.append(C(f"paddle.{_n}", (lambda n: lambda x, y: getattr(paddle, n)(x, y))(_n), _x, _y,
                   grad=_n in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "atan2")))
for _n in ["gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor"]:
    CASES.append(C(f"paddle.{_n}", (lambda n: lambda x, y: getattr(paddle, n)(x, y))(_n), I, ri(5, low=1, high=9)))
for _n in ["logical_and", "logical_or", "logical_xor"]:
    CASES.append(C(f"paddle.{_n}", (lambda n: lambda x, y: getattr(paddle, n)(x, y))(_n), rb(4, 5), rb(5)))

CASES += [
    # operators (scalars on both sides, dtype promotion, comparisons)
    C("x+y", lambda x, y: x + y, X, r(5), grad=True),
    C("x-2.5", lambda x: x - 2.5, X, grad=True),
    C("3*x", lambda x: 3 * x, X, grad=True),
    C("1/x", lambda x: 1 / x, XP, grad=True),
    C("x/y", lambda x, y: x / y, X, r(4, 1, low=0.5), grad=True),
    C("x**2", lambda x: x ** 2, X, grad=True),
    C("2**x", lambda x: 2 ** x, X, grad=True),
    C("x@y", lambda x, y: x @ y, X, r(5, 3), grad=True),
    C("-x", lambda x: -x, X, grad=True),
    C("abs(x)", lambda x: abs(x), X),
    C("x//y int", lambda x, y: x // y, I, ri(5, low=1, high=4)),
    C("x%y int", lambda x, y: x % y, I, ri(5, low=1, high=4)),
    C("int/int", lambda x, y: x / y, I, ri(5, low=1, high=4)),
    C("int*1.5", lambda x: x * 1.5, I),
    C("x<y", lambda x, y: x < y, X, r(5)),
    C("x>=0.5", lambda x: x >= 0.5, X),
    C("x==y", lambda x, y: x == y, I, ri(5, low=-2, high=2)),
    C("x!=1", lambda x: x != 1, I),
    C("~b", lambda b: ~b, rb(4, 5)),
    C("b&c", lambda b, c: b & c, rb(4, 5), rb(4, 5)),
    C("i|j", lambda i, j: i | j, I, ri(4, 5)),
    C("i^j", lambda i, j: i ^ j, I, ri(4, 5)),
    C("float64+float32 promote", lambda x, y: x + y, XD, X),
    # creation
    C("zeros", lambda: paddle.zeros([2, 3])),
    C("ones int", lambda: paddle.ones([3], "int32")),
    C("full", lambda: paddle.full([2, 2], 1.5, "float64")),
    C("full bool", lambda: paddle.full([3], True, "bool")),
    C("zeros_like", lambda x: paddle.zeros_like(x), X),
    C("ones_like", lambda x: paddle.ones_like(x, "int64"), X),
    C("full_like", lambda x: paddle.full_like(x, 2.5), X),
    C("empty_like shape", lambda x: paddle.empty_like(x).shape and paddle.zeros_like(x), X),
    C("arange", lambda: paddle.arange(1, 10, 2)),
    C("arange float", lambda: paddle.arange(0.5, 3.0, 0.25)),
    C("linspace", lambda: paddle.linspace(0, 1, 7)),
    C("eye", lambda: paddle.eye(3, 4)),
    C("diag vec", lambda x: paddle.diag(x), r(4)),
    C("diag mat", lambda x: paddle.diag(x, 1), X),
    C("diagflat", lambda x: paddle.diagflat(x), r(3)),
    C("meshgrid", lambda a, b: paddle.meshgrid(a, b), r(3), r(4)),
    C("assign", lambda x: paddle.assign(x), X, grad=True),
    C("assign numpy", lambda: paddle.assign(np.arange(6).reshape(2, 3))),
    C("to_tensor list", lambda: paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])),
    C("to_tensor int", lambda: paddle.to_tensor([1, 2, 3])),
    C("to_tensor + x", lambda x: x + paddle.to_tensor(np.ones(5, "float32")), X),
    C("clone", lambda x: x.clone(), X, grad=True),
    C("tril", lambda x: paddle.tril(x, -1), X, grad=True),
    C("triu", lambda x: paddle.triu(x, 1), X, grad=True),
    C("tril_indices", lambda: paddle.tril_indices(4, 4, 0)),
    C("complex", lambda a, b: paddle.as_real(paddle.complex(a, b)), X, X),
    # manipulation
    C("reshape", lambda x: paddle.reshape(x, [-1, 5]), X3, grad=True),
    C("reshape 0", lambda x: paddle.reshape(x, [0, 20]), X3, grad=True),
    C("reshape shape of", lambda x, y: paddle.reshape(x, y.shape), r(20), r(4, 5)),
    C("Tensor.reshape", lambda x: x.reshape([x.shape[0], -1]), X3, known=True),
    C("reshape run-time shape", lambda x: x.reshape([paddle.shape(x)[0], -1]), X3),
    C("flatten", lambda x: paddle.flatten(x, 1), X3, grad=True),
    C("flatten all", lambda x: paddle.flatten(x), X3),
    C("transpose", lambda x: paddle.transpose(x, [2, 0, 1]), X3, grad=True),
    C("t", lambda x: paddle.t(x), X),
    C("Tensor.T", lambda x: x.T, X3),
    C("squeeze", lambda x: paddle.squeeze(x, 1), r(3, 1, 4), grad=True),
    C("unsqueeze", lambda x: paddle.unsqueeze(x, [0, 2]), X, grad=True),
    C("concat", lambda a, b: paddle.concat([a, b], 1), X, r(4, 3), grad=True),
    C("concat axis0", lambda a, b: paddle.concat([a, b]), X, r(2, 5)),
    C("stack", lambda a, b: paddle.stack([a, b], 1), X, X, grad=True),
    C("split", lambda x: paddle.split(x, [2, 3], 1), X, grad=True),
    C("split num", lambda x: paddle.split(x, 2, 0), X),
    C("split -1", lambda x: paddle.split(x, [2, -1], 1), X),
    C("chunk", lambda x: paddle.chunk(x, 5, 1), X),
    C("unbind", lambda x: paddle.unbind(x, 1), X3),
    C("unstack", lambda x: paddle.unstack(x, 0), X3),
    C("tile", lambda x: paddle.tile(x, [2, 1]), X, grad=True),
    C("expand", lambda x: paddle.expand(x, [3, 4, 5]), X, grad=True),
    C("expand -1", lambda x: paddle.expand(x, [2, -1, 5]), r(4, 1)),
    C("expand_as", lambda x, y: paddle.expand_as(x, y), r(1, 5), X),
    C("broadcast_to", lambda x: paddle.broadcast_to(x, [4, 5]), r(5)),
    C("broadcast_tensors", lambda a, b: paddle.broadcast_tensors([a, b]), r(4, 1), r(5)),
    C("flip", lambda x: paddle.flip(x, [0, 1]), X, grad=True),
    C("roll", lambda x: paddle.roll(x, 2, 1), X, grad=True),
    C("roll flat", lambda x: paddle.roll(x, -3), X),
    C("rot90", lambda x: paddle.rot90(x, 1, [0, 1]), X),
    C("gather", lambda x, i: paddle.gather(x, i), X, np.array([3, 0, 1]), grad=True),
    C("gather axis", lambda x, i: paddle.gather(x, i, axis=1), X, np.array([4, 0])),
    C("gather_nd", lambda x, i: paddle.gather_nd(x, i), X3, np.array([[0, 1], [2, 3]])),
    C("index_select", lambda x, i: paddle.index_select(x, i, 1), X, np.array([0, 4, 4]), grad=True),
    C("index_sample", lambda x, i: paddle.index_sample(x, i), X, ri(4, 3)),
    C("take_along_axis", lambda x, i: paddle.take_along_axis(x, i, 1), X, ri(4, 2)),
    C("put_along_axis", lambda x, i: paddle.put_along_axis(x, i, 9.0, 1), X, ri(4, 1)),
    C("scatter", lambda x, i, u: paddle.scatter(x, i, u), X, np.array([2, 0]), r(2, 5), grad=True),
    C("scatter_nd_add", lambda x, i, u: paddle.scatter_nd_add(x, i, u), X, np.array([[1], [3]]), r(2, 5)),
    C("scatter_nd", lambda i, u: paddle.scatter_nd(i, u, [4, 5]), np.array([[1], [3]]), r(2, 5)),
    C("masked_select", lambda x, m: paddle.masked_select(x, m), X, rb(4, 5)),
    C("where", lambda c, x, y: paddle.where(c, x, y), rb(4, 5), X, r(4, 5), grad=True),
    C("where scalar", lambda x: paddle.where(x > 0, x, 0.0 * x), X),
    C("nonzero", lambda x: paddle.nonzero(x), rb(4, 5)),
    C("cast", lambda x: paddle.cast(x, "float64"), X, grad=True),
    C("astype", lambda x: x.astype("int32"), X),
    C("astype float16", lambda x: x.astype(paddle.float16), X),
    C("slice", lambda x: paddle.slice(x, [1], [1], [4]), X),
    C("strided_slice", lambda x: paddle.strided_slice(x, [1], [0], [5], [2]), X),
    C("crop", lambda x: paddle.crop(x, [2, 3], [1, 1]), X),
    C("repeat_interleave", lambda x: paddle.repeat_interleave(x, 2, 1), X),
    C("moveaxis", lambda x: paddle.moveaxis(x, 0, 2), X3),
    C("unfold", lambda x: x.unfold(1, 2, 1), X),
    C("shard_index", lambda x: paddle.shard_index(x, 20, 2, 0), ri(4, 1, high=20)),
    C("multiplex", lambda a, b, i: paddle.multiplex([a, b], i), X, r(4, 5), np.array([[0], [1], [1], [0]], "int32")),
    C("shape", lambda x: paddle.shape(x), X3),
    C("numel", lambda x: paddle.numel(x), X3),
    C("rank", lambda x: paddle.rank(x), X3),
    C("increment", lambda x: paddle.increment(x, 2.0), r(1)),
    # math / reductions
    C("sum", lambda x: paddle.sum(x), X, grad=True),
    C("sum axis", lambda x: paddle.sum(x, 1, keepdim=True), X, grad=True),
    C("sum int", lambda x: paddle.sum(x, 0), I),
    C("mean", lambda x: paddle.mean(x, [0, 2]), X3, grad=True),
    C("Tensor.mean", lambda x: x.mean(), X, grad=True),
    C("prod", lambda x: paddle.prod(x, 1), X, grad=True),
    C("max", lambda x: paddle.max(x, 1), X, grad=True),
    C("min", lambda x: paddle.min(x), X, grad=True),
    C("amax", lambda x: paddle.amax(x, 0), X, grad=True),
    C("amin", lambda x: paddle.amin(x, -1), X),
    C("logsumexp", lambda x: paddle.logsumexp(x, 1), X, grad=True),
    C("std", lambda x: paddle.std(x, 1), X, grad=True),
    C("var", lambda x: paddle.var(x, 0, unbiased=False), X, grad=True),
    C("median", lambda x: paddle.median(x, 1), X),
    C("quantile", lambda x: paddle.quantile(x, 0.3, axis=1), X),
    C("nansum", lambda x: paddle.nansum(x, 1), NAN),
    C("nanmean", lambda x: paddle.nanmean(x, 1), NAN),
    C("all", lambda b: paddle.all(b, 1), rb(4, 5)),
    C("any", lambda b: paddle.any(b), rb(4, 5)),
    C("cumsum", lambda x: paddle.cumsum(x, 1), X, grad=True),
    C("cumsum flat", lambda x: paddle.cumsum(x), X),
    C("cumprod", lambda x: paddle.cumprod(x, 1), X, grad=True),
    C("logcumsumexp", lambda x: paddle.logcumsumexp(x, 1), X),
    C("diff", lambda x: paddle.diff(x, axis=1), X),
    C("clip", lambda x: paddle.clip(x, -0.5, 0.5), X, grad=True),
    C("scale", lambda x: paddle.scale(x, 2.0, 1.0), X, grad=True),
    C("stanh", lambda x: paddle.stanh(x), X),
    C("lerp", lambda x, y: paddle.lerp(x, y, 0.3), X, r(4, 5), grad=True),
    C("addmm", lambda i, x, y: paddle.addmm(i, x, y, 0.5, 2.0), r(4, 3), X, r(5, 3), grad=True),
    C("matmul", lambda x, y: paddle.matmul(x, y, transpose_y=True), X, r(3, 5), grad=True),
    C("matmul batched", lambda x, y: paddle.matmul(x, y), X3, r(5, 2), grad=True),
    C("bmm", lambda x, y: paddle.bmm(x, y), X3, r(3, 5, 2)),
    C("mm", lambda x, y: paddle.mm(x, y), X, r(5, 2)),
    C("mv", lambda x, v: paddle.mv(x, v), X, r(5)),
    C("dot", lambda x, y: paddle.dot(x, y), X, r(4, 5)),
    C("inner", lambda x, y: paddle.inner(x, y), X, r(3, 5)),
    C("outer", lambda x, y: paddle.outer(x, y), r(4), r(3)),
    C("kron", lambda x, y: paddle.kron(x, y), r(2, 3), r(2, 2)),
    C("cross", lambda x, y: paddle.cross(x, y, 1), r(4, 3), r(4, 3)),
    C("tensordot", lambda x, y: paddle.tensordot(x, y, 1), X3, r(5, 2)),
    C("einsum", lambda x, y: paddle.einsum("bij,jk->bik", x, y), X3, r(5, 2)),
    C("einsum trace", lambda x: paddle.einsum("ii->", x), r(4, 4)),
    C("trace", lambda x: paddle.trace(x), r(4, 4)),
    C("diagonal", lambda x: paddle.diagonal(x, 0, 1, 2), X3),
    C("add_n", lambda a, b: paddle.add_n([a, b]), X, X, grad=True),
    C("cdist", lambda a, b: paddle.cdist(a, b), r(4, 3), r(5, 3)),
    C("dist", lambda a, b: paddle.dist(a, b, 2), X, r(4, 5)),
    C("norm fro", lambda x: paddle.norm(x), X, grad=True),
    C("norm p1 axis", lambda x: paddle.norm(x, 1, axis=1), X),
    C("renorm", lambda x: paddle.renorm(x, 2.0, 0, 1.0), X),
    C("isclose", lambda x, y: paddle.isclose(x, y), X, X),
    C("allclose", lambda x, y: paddle.allclose(x, y), X, X),
    C("equal_all", lambda x, y: paddle.equal_all(x, y), X, X),
    C("count_nonzero", lambda x: paddle.count_nonzero(x, 1), I),
    C("polygamma", lambda x: paddle.polygamma(x, 1), XP),
    C("masked_fill", lambda x, m: paddle.masked_fill(x, m, 2.0), X, rb(4, 5)),
    C("index_add", lambda x, i, v: paddle.index_add(x, i, 0, v), X, np.array([0, 2]), r(2, 5)),
    C("bucketize", lambda x, s: paddle.bucketize(x, s), X, np.sort(r(6))),
    C("searchsorted", lambda s, x: paddle.searchsorted(s, x), np.sort(r(6)), X),
    C("histogram", lambda x: paddle.histogram(x, 5, -2, 2), X),
    C("bincount", lambda x: paddle.bincount(x), ri(10)),
    # search / sort
    C("argmax", lambda x: paddle.argmax(x, 1), X),
    C("argmin", lambda x: paddle.argmin(x), X),
    C("argsort", lambda x: paddle.argsort(x, 1, descending=True), X),
    C("sort", lambda x: paddle.sort(x, 0), X, grad=True),
    C("topk", lambda x: paddle.topk(x, 2), X, grad=True),
    C("kthvalue", lambda x: paddle.kthvalue(x, 2, 1), X),
    C("mode", lambda x: paddle.mode(x, 1), ri(4, 5).astype("float32")),
    C("unique", lambda x: paddle.unique(x), I),
    C("unique_consecutive", lambda x: paddle.unique_consecutive(x), ri(8, high=3)),
    # indexing
    C("x[0]", lambda x: x[0], X3, grad=True),
    C("x[-1]", lambda x: x[-1], X3),
    C("x[1:3]", lambda x: x[1:3], X3, grad=True),
    C("x[:, 1:4:2]", lambda x: x[:, 1:4:2], X3, grad=True),
    C("x[::-1]", lambda x: x[::-1], X3),
    C("x[..., -1]", lambda x: x[..., -1], X3),
    C("x[None, 0]", lambda x: x[None, 0], X3),
    C("x[0, 1, 2]", lambda x: x[0, 1, 2], X3),
    C("x[:, None, 2:]", lambda x: x[:, None, 2:], X3),
    C("x[2:100]", lambda x: x[2:100], X3),
    C("x[[0, 2]]", lambda x: x[[0, 2]], X3),
    C("x[:, [1, 3]]", lambda x: x[:, [1, 3]], X3),
    C("x[[0, 2], :, [1, 3]]", lambda x: x[[0, 2], :, [1, 3]], X3),
    C("x[idx tensor]", lambda x, i: x[i], X3, np.array([2, 0])),
    C("x[mask]", lambda x: x[x > 0], X),
    C("x[row mask]", lambda x, m: x[m], X, np.array([True, False, True, True])),
    C("Tensor.__getitem__ var index", lambda x, i: paddle.index_select(x, i, 0), X3, np.array([1])),
    # linalg
    C("linalg.inv", lambda a: paddle.linalg.inv(a), SQ, grad=True),
    C("linalg.det", lambda a: paddle.linalg.det(a), SQ, grad=True),
    C("linalg.slogdet", lambda a: paddle.linalg.slogdet(a), SQ),
    C("linalg.solve", lambda a, b: paddle.linalg.solve(a, b), SQ, r(2, 3, 2, dtype="float64"), grad=True),
    C("linalg.cholesky", lambda a: paddle.linalg.cholesky(a), SPD, grad=True),
    C("linalg.triangular_solve", lambda a, b: paddle.linalg.triangular_solve(a, b, upper=False),
      np.tril(SQ), r(2, 3, 2, dtype="float64")),
    C("linalg.qr", lambda a: paddle.linalg.qr(a), r(2, 4, 3, dtype="float64")),
    C("linalg.svd", lambda a: paddle.linalg.svd(a)[1], r(2, 4, 3, dtype="float64")),
    C("linalg.eigh", lambda a: paddle.linalg.eigh(a)[0], SPD),
    C("linalg.eigvalsh", lambda a: paddle.linalg.eigvalsh(a), SPD),
    C("linalg.norm", lambda a: paddle.linalg.norm(a, 2, axis=1), X),
    C("linalg.matrix_power", lambda a: paddle.linalg.matrix_power(a, 3), SQ),
    C("linalg.multi_dot", lambda a, b, c: paddle.linalg.multi_dot([a, b, c]), r(4, 3), r(3, 5), r(5, 2)),
    C("linalg.cov", lambda a: paddle.linalg.cov(a), X),
    C("linalg.pinv", lambda a: paddle.linalg.pinv(a), r(2, 4, 3, dtype="float64")),
    C("linalg.matrix_rank", lambda a: paddle.linalg.matrix_rank(a), SQ),
    C("linalg.cholesky_solve", lambda b, u: paddle.linalg.cholesky_solve(b, u), r(2, 3, 2, dtype="float64"),
      np.linalg.cholesky(SPD)),
    C("linalg.lu", lambda a: paddle.linalg.lu(a)[0], SQ),
    C("linalg.cond", lambda a: paddle.linalg.cond(a), SQ),
    C("linalg.lstsq", lambda a, b: paddle.linalg.lstsq(a, b)[0], r(5, 3, dtype="float64"), r(5, 2, dtype="float64"),
      ),
    # random (same seed in both modes: the same Philox stream)
    C("rand", lambda: paddle.rand([3, 4]), seed=5),
    C("randn", lambda: paddle.randn([3, 4]), seed=5),
    C("randint", lambda: paddle.randint(0, 10, [3, 4]), seed=5),
    C("uniform", lambda: paddle.uniform([3, 4], min=-1.0, max=2.0), seed=5),
    C("normal", lambda: paddle.normal(1.0, 2.0, [3, 4]), seed=5),
    C("standard_normal", lambda: paddle.standard_normal([2, 3]), seed=5),
    C("randperm", lambda: paddle.randperm(7), seed=5),
    C("bernoulli", lambda p: paddle.bernoulli(p), r(4, 5, low=0, high=1), seed=5),
    C("multinomial", lambda p: paddle.multinomial(p, 3), r(4, 5, low=0.1, high=1), seed=5),
    C("poisson", lambda p: paddle.poisson(p), XP, seed=5),
    C("randint_like", lambda x: paddle.randint_like(x, 0, 5), X, seed=5),
    C("rand + x", lambda x: x + paddle.rand([4, 5]), X, seed=3),
]
API_CASES = CASES
