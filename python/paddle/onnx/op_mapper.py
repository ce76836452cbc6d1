"""One converter per Paddle op type: conv(g, op) appends the ONNX nodes computing op's outputs
(named as the program's variables) to the Graph g (export.py). Opset differences are handled
here (Clip attrs vs inputs at 11, Squeeze/Unsqueeze/ReduceSum/Split axes inputs at 13, Softmax's
flattening before 13, HardSwish at 14, LayerNormalization at 17, Resize/Upsample ...).
A converter raises NotImplementedError for a form it cannot express; export collects them.
The network layers' converters (conv, pooling, norms, interpolation, RNNs) are in op_mapper_nn.py."""
import math

import numpy as np

from .export import np_dtype

CONVERTERS = {}


def reg(*types):
    def deco(fn):
        for t in types:
            CONVERTERS[t] = fn
        return fn
    return deco


def _in(op, slot, i=0):
    names = op.input(slot) if slot in op.input_names else []
    return names[i] if len(names) > i else None


def _out(op, slot, i=0):
    names = op.output(slot) if slot in op.output_names else []
    return names[i] if len(names) > i else None


def _attr(op, name, default=None):
    return op.attr(name) if op.has_attr(name) else default


def _ax(axis, rank):
    axis = int(axis)
    return axis + rank if axis < 0 else axis


# ------------------------------------------------------------------ elementwise
def _align_y(g, x, y, axis):
    """Paddle's elementwise axis: y's dims line up with x's dims starting at axis."""
    rx, ry = g.rank(x), g.rank(y)
    if axis == -1 or ry >= rx or axis + ry == rx:
        return y
    return g.unsqueeze(y, list(range(ry, rx - axis)))


def _elementwise(onnx_op):
    def conv(g, op):
        x, y = _in(op, "X"), _in(op, "Y")
        axis = int(_attr(op, "axis", -1))
        if axis != -1 and g.rank(y) > g.rank(x):
            x = _align_y(g, y, x, axis)
        else:
            y = _align_y(g, x, y, axis)
        g.node(onnx_op, [x, y], _out(op, "Out"))
    return conv


for _t, _o in (("elementwise_add", "Add"), ("elementwise_sub", "Sub"), ("elementwise_mul", "Mul"),
               ("elementwise_div", "Div"), ("elementwise_pow", "Pow"), ("elementwise_max", "Max"),
               ("elementwise_min", "Min")):
    reg(_t)(_elementwise(_o))


def _compare(onnx_op, negate=False):
    def conv(g, op):
        x, y = _in(op, "X"), _in(op, "Y")
        y = _align_y(g, x, y, int(_attr(op, "axis", -1)))
        if negate:
            g.node("Not", [g.node(onnx_op, [x, y])], _out(op, "Out"))
        else:
            g.node(onnx_op, [x, y], _out(op, "Out"))
    return conv


reg("equal")(_compare("Equal"))
reg("not_equal")(_compare("Equal", True))
reg("less_than")(_compare("Less"))
reg("greater_than")(_compare("Greater"))
reg("less_equal")(_compare("Greater", True))
reg("greater_equal")(_compare("Less", True))


@reg("logical_and", "logical_or", "logical_xor")
def _logical(g, op):
    g.node({"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}[op.type],
           [_in(op, "X"), _in(op, "Y")], _out(op, "Out"))


@reg("logical_not")
def _logical_not(g, op):
    g.node("Not", [_in(op, "X")], _out(op, "Out"))


@reg("where")
def _where(g, op):
    g.node("Where", [_in(op, "Condition"), _in(op, "X"), _in(op, "Y")], _out(op, "Out"))


# ------------------------------------------------------------------ activations
_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "abs": "Abs", "floor": "Floor", "ceil": "Ceil", "reciprocal": "Reciprocal", "erf": "Erf",
          "sin": "Sin", "cos": "Cos", "softsign": "Softsign", "sign": "Sign", "assign": "Identity",
          "round": "Round"}


@reg(*_UNARY)
def _unary(g, op):
    t = _UNARY[op.type]
    if t == "Round" and g.opset < 11:
        raise NotImplementedError("Round needs opset_version >= 11")
    g.node(t, [_in(op, "X")], _out(op, "Out"))


@reg("rsqrt")
def _rsqrt(g, op):
    g.node("Reciprocal", [g.node("Sqrt", [_in(op, "X")])], _out(op, "Out"))


@reg("square")
def _square(g, op):
    x = _in(op, "X")
    g.node("Mul", [x, x], _out(op, "Out"))


@reg("leaky_relu")
def _leaky_relu(g, op):
    g.node("LeakyRelu", [_in(op, "X")], _out(op, "Out"), alpha=float(_attr(op, "alpha", 0.02)))


@reg("elu")
def _elu(g, op):
    g.node("Elu", [_in(op, "X")], _out(op, "Out"), alpha=float(_attr(op, "alpha", 1.0)))


@reg("selu")
def _selu(g, op):
    g.node("Selu", [_in(op, "X")], _out(op, "Out"), alpha=float(_attr(op, "alpha", 1.6732632423543772)),
           gamma=float(_attr(op, "scale", 1.0507009873554805)))


@reg("relu6")
def _relu6(g, op):
    g.clip(_in(op, "X"), 0.0, float(_attr(op, "threshold", 6.0)), _out(op, "Out"))


@reg("clip")
def _clip(g, op):
    lo, hi = float(_attr(op, "min", 0.0)), float(_attr(op, "max", 0.0))
    for slot in ("Min", "Max"):
        t = _in(op, slot)
        if t is not None:
            if t not in g.consts:
                raise NotImplementedError(f"clip with a computed {slot} tensor")
            v = float(np.asarray(g.consts[t]).reshape(-1)[0])
            lo, hi = (v, hi) if slot == "Min" else (lo, v)
    g.clip(_in(op, "X"), lo, hi, _out(op, "Out"))


@reg("hard_sigmoid")
def _hard_sigmoid(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    slope, offset = float(_attr(op, "slope", 0.1666667)), float(_attr(op, "offset", 0.5))
    dt = g.dtype(x)
    if dt == np.float32:
        g.node("HardSigmoid", [x], out, alpha=slope, beta=offset)
        return
    t = g.node("Add", [g.node("Mul", [x, g.const(np.asarray(slope, dt))]), g.const(np.asarray(offset, dt))])
    g.clip(t, 0.0, 1.0, out, dtype=dt)  # onnxruntime's HardSigmoid is float-only


@reg("hard_swish")
def _hard_swish(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    threshold = float(_attr(op, "threshold", 6.0))
    scale = float(_attr(op, "scale", 6.0))
    offset = float(_attr(op, "offset", 3.0))
    dt = g.dtype(x)
    if g.opset >= 14 and (threshold, scale, offset) == (6.0, 6.0, 3.0) and dt == np.float32:
        g.node("HardSwish", [x], out)
        return
    shifted = g.node("Add", [x, g.const(np.asarray(offset, dt))])
    clipped = g.clip(shifted, 0.0, threshold, dtype=dt)
    g.node("Div", [g.node("Mul", [x, clipped]), g.const(np.asarray(scale, dt))], out)


@reg("swish", "silu")
def _swish(g, op):
    x = _in(op, "X")
    beta = float(_attr(op, "beta", 1.0))
    s_in = x if beta == 1.0 else g.node("Mul", [x, g.const(np.asarray(beta, g.dtype(x)))])
    g.node("Mul", [x, g.node("Sigmoid", [s_in])], _out(op, "Out"))


@reg("mish")
def _mish(g, op):
    x = _in(op, "X")
    g.node("Mul", [x, g.node("Tanh", [g.node("Softplus", [x])])], _out(op, "Out"))


@reg("softplus")
def _softplus(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    beta = float(_attr(op, "beta", 1.0))
    if beta == 1.0:
        g.node("Softplus", [x], out)
        return
    dt = g.dtype(x)
    sp = g.node("Softplus", [g.node("Mul", [x, g.const(np.asarray(beta, dt))])])
    g.node("Div", [sp, g.const(np.asarray(beta, dt))], out)


@reg("gelu")
def _gelu(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    dt = g.dtype(x)
    c = lambda v: g.const(np.asarray(v, dt))  # noqa: E731
    if _attr(op, "approximate", False):
        x3 = g.node("Mul", [g.node("Mul", [x, x]), x])
        inner = g.node("Mul", [g.node("Add", [x, g.node("Mul", [x3, c(0.044715)])]), c(math.sqrt(2 / math.pi))])
        t = g.node("Add", [g.node("Tanh", [inner]), c(1.0)])
    else:
        t = g.node("Add", [g.node("Erf", [g.node("Div", [x, c(math.sqrt(2.0))])]), c(1.0)])
    g.node("Mul", [g.node("Mul", [x, t]), c(0.5)], out)


@reg("prelu")
def _prelu(g, op):
    x, alpha = _in(op, "X"), _in(op, "Alpha")
    mode = _attr(op, "mode", "all")
    r = g.rank(x)
    if mode == "channel" and r > 2:
        if _attr(op, "data_format", "NCHW") in ("NHWC", "NLC", "NDHWC"):
            raise NotImplementedError("prelu channel mode with a channels-last data_format")
        if alpha in g.consts:
            alpha = g.const(g.consts[alpha].reshape([-1] + [1] * (r - 2)))
        else:
            alpha = g.reshape(alpha, [-1] + [1] * (r - 2))
    elif mode == "element":
        alpha = g.reshape(alpha, g.shape(x)[1:])
    g.node("PRelu", [x, alpha], _out(op, "Out"))


def _softmax_like(onnx_op):
    def conv(g, op):
        x, out = _in(op, "X"), _out(op, "Out")
        r = g.rank(x)
        axis = _ax(_attr(op, "axis", -1), r)
        if g.opset >= 13 or axis == r - 1:
            g.node(onnx_op, [x], out, axis=axis)
            return
        perm = list(range(r))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        t = g.node(onnx_op, [g.node("Transpose", [x], perm=perm)], axis=r - 1)
        g.node("Transpose", [t], out, perm=perm)
    return conv


reg("softmax")(_softmax_like("Softmax"))
reg("log_softmax")(_softmax_like("LogSoftmax"))


@reg("dropout")
def _dropout(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    impl = _attr(op, "dropout_implementation", "downgrade_in_infer")
    p = float(_attr(op, "dropout_prob", 0.5))
    if impl == "upscale_in_train" or p == 0.0:
        g.node("Identity", [x], out)
    else:
        g.node("Mul", [x, g.const(np.asarray(1.0 - p, g.dtype(x)))], out)


@reg("scale")
def _scale(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    dt = g.dtype(x)
    s = float(_attr(op, "scale", 1.0))
    b = float(_attr(op, "bias", 0.0))
    st = _in(op, "ScaleTensor")
    after = bool(_attr(op, "bias_after_scale", True))
    if st is None and s == 1.0 and b == 0.0:
        g.node("Identity", [x], out)
        return
    scale_in = st if st is not None else (None if s == 1.0 else g.const(np.asarray(s, dt)))
    cur = x
    if not after and b != 0.0:
        cur = g.node("Add", [cur, g.const(np.asarray(b, dt))])
    if scale_in is not None:
        cur = g.node("Mul", [cur, scale_in])
    if after and b != 0.0:
        cur = g.node("Add", [cur, g.const(np.asarray(b, dt))])
    g.node("Identity", [cur], out)


@reg("pow")
def _pow(g, op):
    x = _in(op, "X")
    f = _in(op, "FactorTensor")
    e = f if f is not None else g.const(np.asarray(float(_attr(op, "factor", 1.0)), g.dtype(x)))
    g.node("Pow", [x, e], _out(op, "Out"))


@reg("sum")
def _sum(g, op):
    g.node("Sum", list(op.input("X")), _out(op, "Out"))


@reg("cast")
def _cast(g, op):
    g.cast(_in(op, "X"), np_dtype(_attr(op, "out_dtype")), _out(op, "Out"))


# ------------------------------------------------------------------ reductions
def _fix_rank(g, t, out):
    """Paddle 2.3 has no 0-D tensors: a full reduction is [1]."""
    if g.shape(out) == [1]:
        g.reshape(t, [1], out)
    else:
        g.node("Identity", [t], out)


_REDUCE = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
           "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd"}


@reg(*_REDUCE)
def _reduce(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    r = g.rank(x)
    keep = int(bool(_attr(op, "keep_dim", False)))
    dims = _attr(op, "dim", [])
    if isinstance(dims, int):
        dims = [dims]
    axes = None if _attr(op, "reduce_all", False) or not dims else sorted({_ax(d, r) for d in dims})
    if axes is not None and len(axes) == r:
        axes = None
    t = g.reduce(_REDUCE[op.type], x, axes, keep)
    _fix_rank(g, t, out)


@reg("mean")
def _mean(g, op):
    _fix_rank(g, g.reduce("ReduceMean", _in(op, "X"), None, 0), _out(op, "Out"))


# ------------------------------------------------------------------ shapes and data movement
def _shape_input(g, op, attr_name="shape", tensor_slot="ShapeTensor", list_slot="ShapeTensorList"):
    """The int64 shape of a reshape/fill: a constant list, or a tensor built at run time."""
    st = _in(op, tensor_slot)
    if st is not None:
        return st if g.dtype(st) == np.int64 else g.cast(st, np.int64)
    lst = op.input(list_slot) if list_slot in op.input_names else []
    if lst:
        parts = []
        for t in lst:
            t = t if g.dtype(t) == np.int64 else g.cast(t, np.int64)
            parts.append(g.reshape(t, [1]))
        return g.node("Concat", parts, axis=0)
    return None


@reg("reshape2", "reshape")
def _reshape(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    shp = _in(op, "Shape")
    if shp is not None:
        shp = shp if g.dtype(shp) == np.int64 else g.cast(shp, np.int64)
    else:
        shp = _shape_input(g, op)
    if shp is None:
        shp = g.ints(_attr(op, "shape"))
    g.node("Reshape", [x, shp], out)


@reg("transpose2", "transpose")
def _transpose(g, op):
    g.node("Transpose", [_in(op, "X")], _out(op, "Out"), perm=[int(a) for a in _attr(op, "axis")])


@reg("flatten_contiguous_range")
def _flatten_range(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    shp = g.shape(x)
    r = len(shp)
    if r == 0:
        g.reshape(x, [1], out)
        return
    start, stop = _ax(_attr(op, "start_axis", 1), r), _ax(_attr(op, "stop_axis", -1), r)
    if start == 1 and stop == r - 1:
        g.node("Flatten", [x], out, axis=1)
        return
    tail = shp[stop + 1:]
    if any(d < 0 for d in tail):
        raise NotImplementedError("flatten_contiguous_range with unknown dims after stop_axis")
    g.reshape(x, [0] * start + [-1] + tail, out)


@reg("flatten2", "flatten")
def _flatten(g, op):
    g.node("Flatten", [_in(op, "X")], _out(op, "Out"), axis=int(_attr(op, "axis", 1)))


@reg("squeeze2", "squeeze")
def _squeeze(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    shp = g.shape(x)
    axes = [_ax(a, len(shp)) for a in (_attr(op, "axes", []) or [])]
    axes = [a for a in (axes or range(len(shp))) if shp[a] == 1]
    if not axes:
        g.node("Identity", [x], out)
    elif g.shape(out) == [1] and len(axes) == len(shp):  # no 0-D tensors: keep [1]
        g.reshape(x, [1], out)
    else:
        g.squeeze(x, axes, out)


@reg("unsqueeze2", "unsqueeze")
def _unsqueeze(g, op):
    if _in(op, "AxesTensor") is not None or (op.input("AxesTensorList") if "AxesTensorList" in op.input_names
                                            else []):
        raise NotImplementedError("unsqueeze with axes given as tensors")
    x, out = _in(op, "X"), _out(op, "Out")
    r = g.rank(x)
    axes = []
    for a in _attr(op, "axes"):  # Paddle inserts one at a time, a negative axis counted on the current rank
        cur = r + len(axes)
        axes.append(a + cur + 1 if a < 0 else a)
    g.unsqueeze(x, axes, out)


@reg("concat")
def _concat(g, op):
    if _in(op, "AxisTensor") is not None:
        raise NotImplementedError("concat with the axis given as a tensor")
    xs = list(op.input("X"))
    out = _out(op, "Out")
    g.node("Concat", xs, out, axis=_ax(_attr(op, "axis", 0), g.rank(out)))


@reg("stack")
def _stack(g, op):
    xs = list(op.input("X"))
    out = _out(op, "Y")
    axis = _ax(_attr(op, "axis", 0), g.rank(out))
    g.node("Concat", [g.unsqueeze(x, [axis]) for x in xs], out, axis=axis)


@reg("unbind")
def _unbind(g, op):
    x = _in(op, "X")
    outs = list(op.output("Out"))
    axis = _ax(_attr(op, "axis", 0), g.rank(x))
    parts = g.split(x, axis, [1] * len(outs))
    for p, o in zip(parts, outs):
        g.squeeze(p, [axis], o)


@reg("split")
def _split(g, op):
    x = _in(op, "X")
    outs = list(op.output("Out"))
    if _in(op, "AxisTensor") is not None or (op.input("SectionsTensorList") if "SectionsTensorList"
                                            in op.input_names else []):
        raise NotImplementedError("split with axis or sections given as tensors")
    axis = _ax(_attr(op, "axis", 0), g.rank(x))
    sections = list(_attr(op, "sections", []) or [])
    if not sections:
        sections = [g.shape(o)[axis] for o in outs]
    if any(s < 0 for s in sections):
        n = g.shape(x)[axis]
        if n < 0:
            raise NotImplementedError("split of an unknown dim with a -1 section")
        sections = [s if s >= 0 else n - sum(v for v in sections if v >= 0) for s in sections]
    g.split(x, axis, sections, outs)


@reg("slice")
def _slice(g, op):
    for slot in ("StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"):
        if slot in op.input_names and op.input(slot):
            raise NotImplementedError("slice with starts/ends given as tensors")
    x, out = _in(op, "Input"), _out(op, "Out")
    r = g.rank(x)
    axes = [_ax(a, r) for a in _attr(op, "axes")]
    t = g.slice(x, axes, [int(s) for s in _attr(op, "starts")], [int(e) for e in _attr(op, "ends")])
    dec = [_ax(a, r) for a in (_attr(op, "decrease_axis", []) or [])]
    if dec and g.rank(out) == r - len(dec):
        g.squeeze(t, dec, out)
    elif dec:
        g.reshape(t, g.shape(out), out)
    else:
        g.node("Identity", [t], out)


@reg("strided_slice")
def _strided_slice(g, op):
    x, out = _in(op, "Input"), _out(op, "Out")
    r = g.rank(x)
    axes = [_ax(a, r) for a in _attr(op, "axes")]
    t = g.slice(x, axes, list(_attr(op, "starts")), list(_attr(op, "ends")), list(_attr(op, "strides")))
    dec = [_ax(a, r) for a in (_attr(op, "decrease_axis", []) or [])]
    if dec and g.rank(out) == r - len(dec):
        g.squeeze(t, dec, out)
    else:
        g.node("Identity", [t], out)


@reg("shape")
def _shape(g, op):
    x, out = _in(op, "Input"), _out(op, "Out")
    s = g.node("Shape", [x])
    if g.dtype(out) != np.int64:
        g.cast(s, g.dtype(out), out)
    else:
        g.node("Identity", [s], out)


@reg("fill_constant")
def _fill_constant(g, op):
    out = _out(op, "Out")
    dt = np_dtype(_attr(op, "dtype", 5))
    if _in(op, "ValueTensor") is not None:
        raise NotImplementedError("fill_constant with a value tensor")
    sv = _attr(op, "str_value", "")
    value = float(sv) if sv not in ("", None) else float(_attr(op, "value", 0.0))
    shp = _shape_input(g, op)
    if shp is None:
        g.const(np.full([int(d) for d in _attr(op, "shape")], value, dt), name=out)
        return
    h = g.helper
    g.node("ConstantOfShape", [shp], out,
           value=h.make_tensor("value", int(h.np_dtype_to_tensor_dtype(dt)), [1], [np.asarray(value, dt).item()]))


@reg("assign_value")
def _assign_value(g, op):
    out = _out(op, "Out")
    dt = np_dtype(_attr(op, "dtype", 5))
    vals = None
    for a in ("fp32_values", "int32_values", "int64_values", "bool_values", "fp64_values", "values"):
        v = _attr(op, a, None)
        if v:
            vals = v
            break
    shape = [int(d) for d in _attr(op, "shape")]
    arr = np.asarray(vals if vals is not None else [], dtype=dt).reshape(shape)
    g.const(arr, name=out)


@reg("fill_any_like", "fill_zeros_like")
def _fill_like(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    code = _attr(op, "dtype", -1)
    dt = g.dtype(out) if code in (-1, None) else np_dtype(code)
    value = float(_attr(op, "value", 0.0))
    h = g.helper
    g.node("ConstantOfShape", [g.node("Shape", [x])], out,
           value=h.make_tensor("value", int(h.np_dtype_to_tensor_dtype(dt)), [1], [np.asarray(value, dt).item()]))


@reg("expand_v2")
def _expand(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    shp = _shape_input(g, op, tensor_slot="Shape", list_slot="expand_shapes_tensor")
    if shp is None:
        target = [int(d) for d in _attr(op, "shape")]
        xs = g.shape(x)
        xs = [1] * (len(target) - len(xs)) + xs
        # Paddle's -1 keeps the input dim; ONNX Expand broadcasts, so 1 there does the same
        shp = g.ints([1 if t == -1 else t for t in target])
    g.node("Expand", [x, shp], out)


@reg("gather")
def _gather(g, op):
    if _in(op, "Axis") is not None:
        raise NotImplementedError("gather with the axis given as a tensor")
    x = _in(op, "X")
    g.node("Gather", [x, _in(op, "Index")], _out(op, "Out"), axis=_ax(_attr(op, "axis", 0), g.rank(x)))


@reg("lookup_table_v2")
def _embedding(g, op):
    w, ids = _in(op, "W"), _in(op, "Ids")
    pad = int(_attr(op, "padding_idx", -1))
    if pad != -1 and w in g.consts:
        v = g.consts[w].copy()
        v[pad if pad >= 0 else pad + v.shape[0]] = 0
        w = g.const(v)
    elif pad != -1:
        raise NotImplementedError("embedding padding_idx on a computed weight")
    g.node("Gather", [w, ids], _out(op, "Out"), axis=0)


# ------------------------------------------------------------------ linear algebra
def _transpose_last2(g, t):
    r = g.rank(t)
    if r < 2:
        return t
    if t in g.consts:
        return g.const(np.swapaxes(g.consts[t], -1, -2))
    perm = list(range(r))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return g.node("Transpose", [t], perm=perm)


@reg("matmul_v2", "matmul")
def _matmul(g, op):
    x, y, out = _in(op, "X"), _in(op, "Y"), _out(op, "Out")
    tx = _attr(op, "trans_x", _attr(op, "transpose_X", False))
    ty = _attr(op, "trans_y", _attr(op, "transpose_Y", False))
    if tx:
        x = _transpose_last2(g, x)
    if ty:
        y = _transpose_last2(g, y)
    alpha = float(_attr(op, "alpha", 1.0))
    if alpha == 1.0:
        g.node("MatMul", [x, y], out)
    else:
        g.node("Mul", [g.node("MatMul", [x, y]), g.const(np.asarray(alpha, g.dtype(out)))], out)


@reg("mul")
def _mul(g, op):
    x, y, out = _in(op, "X"), _in(op, "Y"), _out(op, "Out")
    xn, yn = int(_attr(op, "x_num_col_dims", 1)), int(_attr(op, "y_num_col_dims", 1))
    if g.rank(x) != xn + 1:
        x = g.node("Flatten", [x], axis=xn)
    if g.rank(y) != 2 or yn != 1:
        y = g.node("Flatten", [y], axis=yn)
    m = g.node("MatMul", [x, y])
    if g.rank(out) != 2:
        g.reshape(m, [0 if d < 0 else d for d in g.shape(out)], out)
    else:
        g.node("Identity", [m], out)


# ------------------------------------------------------------------ more math and indexing
_UNARY_MORE = {"tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
               "isnan_v2": "IsNaN", "isnan": "IsNaN"}


@reg(*_UNARY_MORE)
def _unary_more(g, op):
    g.node(_UNARY_MORE[op.type], [_in(op, "X")], _out(op, "Out"))


@reg("log1p", "expm1")
def _log1p_expm1(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    one = g.const(np.asarray(1.0, g.dtype(x)))
    if op.type == "log1p":
        g.node("Log", [g.node("Add", [x, one])], out)
    else:
        g.node("Sub", [g.node("Exp", [x]), one], out)


@reg("isinf_v2", "isfinite_v2")
def _isinf(g, op):
    if g.opset < 10:
        raise NotImplementedError("IsInf needs opset_version >= 10")
    x, out = _in(op, "X"), _out(op, "Out")
    if op.type == "isinf_v2":
        g.node("IsInf", [x], out)
    else:
        g.node("Not", [g.node("Or", [g.node("IsInf", [x]), g.node("IsNaN", [x])])], out)


@reg("elementwise_mod")
def _mod(g, op):
    x, y, out = _in(op, "X"), _in(op, "Y"), _out(op, "Out")
    y = _align_y(g, x, y, int(_attr(op, "axis", -1)))
    if np.issubdtype(g.dtype(x), np.integer):
        if g.opset < 10:
            raise NotImplementedError("integer Mod needs opset_version >= 10")
        g.node("Mod", [x, y], out, fmod=0)  # the divisor's sign, as Paddle's remainder
        return
    q = g.node("Floor", [g.node("Div", [x, y])])  # x - floor(x / y) * y: the divisor's sign
    g.node("Sub", [x, g.node("Mul", [q, y])], out)


@reg("reduce_any", "reduce_all")
def _reduce_bool(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    r = g.rank(x)
    dims = _attr(op, "dim", []) or []
    axes = None if _attr(op, "reduce_all", False) or not dims else sorted({_ax(d, r) for d in dims})
    t = g.reduce("ReduceMax" if op.type == "reduce_any" else "ReduceMin", g.cast(x, np.float32), axes,
                 int(bool(_attr(op, "keep_dim", False))))
    _fix_rank(g, g.cast(t, np.bool_), out)


@reg("logsumexp")
def _logsumexp(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    r = g.rank(x)
    dims = _attr(op, "axis", []) or []
    axes = None if _attr(op, "reduce_all", False) or not dims else sorted({_ax(d, r) for d in dims})
    _fix_rank(g, g.reduce("ReduceLogSumExp", x, axes, int(bool(_attr(op, "keepdim", False)))), out)


@reg("p_norm")
def _p_norm(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    r = g.rank(x)
    p = float(_attr(op, "porder", 2.0))
    keep = int(bool(_attr(op, "keepdim", False)))
    axes = None if _attr(op, "asvector", False) else [_ax(_attr(op, "axis", -1), r)]
    dt = g.dtype(x)
    if p == 2.0:
        t = g.reduce("ReduceL2", x, axes, keep)
    elif p == 1.0:
        t = g.reduce("ReduceL1", x, axes, keep)
    elif p == float("inf"):
        t = g.reduce("ReduceMax", g.node("Abs", [x]), axes, keep)
    elif p == float("-inf"):
        t = g.reduce("ReduceMin", g.node("Abs", [x]), axes, keep)
    elif p == 0.0:
        nz = g.cast(g.node("Not", [g.node("Equal", [x, g.const(np.asarray(0, dt))])]), dt)
        t = g.reduce("ReduceSum", nz, axes, keep)
    else:
        s = g.reduce("ReduceSum", g.node("Pow", [g.node("Abs", [x]), g.const(np.asarray(p, dt))]), axes, keep)
        t = g.node("Pow", [s, g.const(np.asarray(1.0 / p, dt))])
    _fix_rank(g, t, out)


@reg("arg_max", "arg_min")
def _arg(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    if _attr(op, "flatten", False):
        x = g.reshape(x, [-1])
        axis = 0
    else:
        axis = _ax(_attr(op, "axis", -1), g.rank(x))
    keep = int(bool(_attr(op, "keepdims", False)))
    t = g.node("ArgMax" if op.type == "arg_max" else "ArgMin", [x], axis=axis, keepdims=keep)
    t = t if g.dtype(out) == np.int64 else g.cast(t, g.dtype(out))
    _fix_rank(g, t, out)


@reg("cumsum")
def _cumsum(g, op):
    if g.opset < 11:
        raise NotImplementedError("CumSum needs opset_version >= 11")
    x, out = _in(op, "X"), _out(op, "Out")
    if _attr(op, "flatten", False):
        x = g.reshape(x, [-1])
        axis = 0
    else:
        axis = _ax(_attr(op, "axis", -1), g.rank(x))
    g.node("CumSum", [x, g.const(np.asarray(axis, np.int64))], out,
           exclusive=int(bool(_attr(op, "exclusive", False))), reverse=int(bool(_attr(op, "reverse", False))))


@reg("tile")
def _tile(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    if _in(op, "RepeatTimes") is not None or ("repeat_times_tensor" in op.input_names and
                                              op.input("repeat_times_tensor")):
        raise NotImplementedError("tile with repeat_times given as tensors")
    reps = [int(v) for v in _attr(op, "repeat_times")]
    r = g.rank(x)
    if len(reps) > r:
        x = g.unsqueeze(x, list(range(len(reps) - r)))
    reps = [1] * (max(r, len(reps)) - len(reps)) + reps
    g.node("Tile", [x, g.ints(reps)], out)


@reg("top_k_v2")
def _top_k(g, op):
    x = _in(op, "X")
    out, idx = _out(op, "Out"), _out(op, "Indices")
    if _in(op, "K") is not None:
        raise NotImplementedError("top_k with k given as a tensor")
    k = int(_attr(op, "k", 1))
    axis = _ax(_attr(op, "axis", -1), g.rank(x))
    largest = bool(_attr(op, "largest", True))
    if g.opset < 11 and not largest:
        raise NotImplementedError("top_k with largest=False needs opset_version >= 11")
    if g.opset < 10:
        g.node("TopK", [x], [out, idx], axis=axis, k=k)
    elif g.opset < 11:
        g.node("TopK", [x, g.ints([k])], [out, idx], axis=axis)
    else:
        g.node("TopK", [x, g.ints([k])], [out, idx], axis=axis, largest=int(largest), sorted=1)


@reg("index_select")
def _index_select(g, op):
    x = _in(op, "X")
    g.node("Gather", [x, _in(op, "Index")], _out(op, "Out"), axis=_ax(_attr(op, "dim", 0), g.rank(x)))


@reg("flip")
def _flip(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    shp = g.shape(x)
    axes = [_ax(a, len(shp)) for a in _attr(op, "axis")]
    if g.opset < 10:
        raise NotImplementedError("flip (a Slice with negative steps) needs opset_version >= 10")
    big = np.iinfo(np.int64).max
    g.slice(x, axes, [-1] * len(axes), [-big] * len(axes), [-1] * len(axes), out)


@reg("roll")
def _roll(g, op):
    x, out = _in(op, "X"), _out(op, "Out")
    if _in(op, "ShiftsTensor") is not None:
        raise NotImplementedError("roll with shifts given as a tensor")
    shp = g.shape(x)
    shifts, axes = list(_attr(op, "shifts")), list(_attr(op, "axis", []) or [])
    t = x
    if not axes:  # over the flattened tensor
        if any(d < 0 for d in shp):
            raise NotImplementedError("roll without axis over unknown dims")
        t, axes, shp2 = g.reshape(x, [-1]), [0], [int(np.prod(shp))]
    else:
        shp2 = shp
    for s, a in zip(shifts, axes):
        a = _ax(a, len(shp2))
        n = shp2[a]
        if n < 0:
            raise NotImplementedError("roll over an unknown dim")
        s = int(s) % n
        if s:
            t = g.node("Concat", [g.slice(t, [a], [n - s], [n]), g.slice(t, [a], [0], [n - s])], axis=a)
    if t is x:
        g.node("Identity", [x], out)
    elif len(shp2) != len(shp):
        g.reshape(t, shp, out)
    else:
        g.node("Identity", [t], out)


@reg("range")
def _range(g, op):
    ins = [_in(op, "Start"), _in(op, "End"), _in(op, "Step")]
    out = _out(op, "Out")
    if all(i in g.consts for i in ins):  # known at export time: a constant
        s, e, st = (np.asarray(g.consts[i]).reshape(-1)[0] for i in ins)
        g.const(np.arange(s, e, st).astype(g.dtype(out)), name=out)
        return
    if g.opset < 11:
        raise NotImplementedError("range over run-time bounds needs opset_version >= 11")
    g.node("Range", [g.reshape(i, []) for i in ins], out)


from . import op_mapper_nn  # noqa: E402,F401  (registers the layer converters: conv, pool, norms, RNNs)
from . import op_mapper_flow  # noqa: E402,F401  (if / else -> ONNX If)
