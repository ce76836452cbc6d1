"""paddle.utils.flops: FLOPs of one operator call from its input shapes and attributes, with
Paddle 2.6's formulas (paddle/utils/flops.py): matmul 2 * batch * M * K * N; conv 2 * (kernel
positions * in_channels/groups * out_channels) per output position plus out_channels per
output position for the bias; elementwise ops one per broadcast output element; relu-like one,
gelu 5, softmax 3, layer_norm 7 (+1 with epsilon) per input element; pooling one per input
element; shape ops 0. Paddle's static op types and slot names ("matmul_v2", "X", "Filter")
and Paddle-C's op names and argument names ("matmul", "x", "filter": what the profiler records)
are both accepted. Unknown ops, or shapes the formula cannot read, count 0 (as in Paddle)."""
import copy

_FLOPS_COMPUTE_FUNC_MAP = {}


def prod(s):
    p = 1
    for v in s:
        p *= v
    return p


def flops(op_type, input_shapes, attrs):
    """FLOPs of one call of op_type; 0 for an op without a formula or unreadable shapes."""
    func = _FLOPS_COMPUTE_FUNC_MAP.get(op_type)
    if func is None:
        return 0
    try:
        return int(func(input_shapes, attrs or {}))
    except Exception:  # noqa: BLE001  (Paddle's rule: a formula that cannot apply counts 0)
        return 0


def register_flops(*op_types):
    def register(func):
        for t in op_types:
            _FLOPS_COMPUTE_FUNC_MAP[t] = func
        return func
    return register


def _get(input_shapes, *names):
    """the first tensor's shape of the first slot present among names (either spelling)"""
    for n in names:
        v = input_shapes.get(n)
        if v:
            return list(v[0])
    return None


@register_flops("c_embedding", "embedding", "dropout", "reshape2", "reshape", "transpose2", "transpose")
def _zero_flops(input_shapes, attrs):
    return 0


@register_flops("conv2d", "depthwise_conv2d", "conv3d")
def _conv_flops(input_shapes, attrs):
    """2 * kernel positions * in_channels * out_channels / groups per output position, plus
    out_channels per output position with a bias (Paddle's formula; channel-last layouts and
    SAME / VALID / 4-value paddings read as the op does)."""
    x = _get(input_shapes, "Input", "input", "x")
    w = _get(input_shapes, "Filter", "filter", "weight")
    bias = _get(input_shapes, "Bias", "bias")
    nd = len(x) - 2
    channel_last = str(attrs.get("data_format", "NCHW")).endswith("C")
    batch, in_c = x[0], (x[-1] if channel_last else x[1])
    spatial = x[1:-1] if channel_last else x[2:]
    out_c, kernel = w[0], list(w[2:])

    def per_dim(v, default):
        v = default if v is None else v
        return list(v) if isinstance(v, (list, tuple)) else [v] * nd
    strides = per_dim(attrs.get("strides"), 1)
    dilations = per_dim(attrs.get("dilations"), 1)
    pads = per_dim(attrs.get("paddings"), 0)
    algo = str(attrs.get("padding_algorithm", "EXPLICIT")).upper()
    out = []
    for i in range(nd):
        if algo == "SAME":
            out.append((spatial[i] + strides[i] - 1) // strides[i])
            continue
        if algo == "VALID":
            lo = hi = 0
        elif len(pads) == 2 * nd:
            lo, hi = pads[2 * i], pads[2 * i + 1]
        else:
            lo = hi = pads[i]
        out.append((spatial[i] + lo + hi - (dilations[i] * (kernel[i] - 1) + 1)) // strides[i] + 1)
    groups = attrs.get("groups") or 1
    active = batch * prod(out)
    total = 2 * prod(kernel) * in_c * (out_c // groups) * active
    if bias is not None:
        total += out_c * active
    return total


def _broadcast_numel(input_shapes):
    x = _get(input_shapes, "X", "x")
    y = _get(input_shapes, "Y", "y")
    n = max(len(x), len(y))
    return prod(max(x[len(x) - 1 - i] if i < len(x) else 1, y[len(y) - 1 - i] if i < len(y) else 1)
                for i in range(n))


@register_flops("elementwise_add", "elementwise_mul", "elementwise_div", "add", "multiply", "divide", "subtract",
                "elementwise_sub")
def _elementwise_flops(input_shapes, attrs):
    return _broadcast_numel(input_shapes)


@register_flops("gelu")
def _gelu_flops(input_shapes, attrs):
    return prod(_get(input_shapes, "X", "x")) * 5


@register_flops("layer_norm")
def _layer_norm_flops(input_shapes, attrs):
    n = prod(_get(input_shapes, "X", "x"))
    return n * 8 if attrs.get("epsilon") else n * 7


@register_flops("matmul", "matmul_v2")
def _matmul_flops(input_shapes, attrs):
    """2 * prod(broadcast batch dims) * M * K * N (vectors are read as Paddle's formula reads them)"""
    x = copy.deepcopy(_get(input_shapes, "X", "x"))
    y = copy.deepcopy(_get(input_shapes, "Y", "y"))
    if attrs.get("transpose_X") or attrs.get("transpose_x") or attrs.get("trans_x"):
        x[-1], x[-2] = x[-2], x[-1]
    if attrs.get("transpose_Y") or attrs.get("transpose_y") or attrs.get("trans_y"):
        y[-1], y[-2] = y[-2], y[-1]
    dx, dy = len(x), len(y)
    batch = []
    for idx in range(max(dx, dy), 2, -1):
        batch.append(max(x[dx - idx] if idx <= dx else 1, y[dy - idx] if idx <= dy else 1))
    return 2 * prod(batch) * x[-2] * x[-1] * y[-1]


@register_flops("elu", "leaky_relu", "prelu", "relu", "relu6", "silu")
def _relu_class_flops(input_shapes, attrs):
    return prod(_get(input_shapes, "X", "x"))


@register_flops("softmax")
def _softmax_flops(input_shapes, attrs):
    return prod(_get(input_shapes, "X", "x")) * 3


@register_flops("pool", "pool2d", "pool3d")
def _pool_flops(input_shapes, attrs):
    return prod(_get(input_shapes, "X", "x"))
