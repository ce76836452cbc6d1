"""Programs of paddle.static.nn layers shared by tests/python/test_static_nn.py (Paddle-C) and
tools/oracle/static_nn.py (real Paddle, which wrote tests/python/data/static_nn_oracle.npz). Each
case builds its layers under program_guard and returns (outputs, feeds, inputs to differentiate);
run_case sets every parameter to values derived from its name, runs the program and returns the
parameter names/shapes, outputs (with LoD) and the gradients of sum(out^2) over the float
outputs. Only APIs that Paddle 2.3-2.6 and Paddle-C share are used."""
import zlib

import numpy as np


def param_value(name, shape, dtype="float32"):
    """Deterministic parameter values from the name (positive where a layer needs it)."""
    rng = np.random.RandomState(zlib.crc32(name.encode()) & 0x7FFFFFFF)
    v = rng.uniform(-1.0, 1.0, size=shape)
    if (name.startswith("batch_norm") and name.endswith(".w_2")) or name == "mv" or \
            name.endswith(("batch_size", "batch_square_sum")):
        v = np.abs(v) + 0.5
    return v.astype(dtype)


def is_sampler_table(name):
    """Paddle's nce keeps its custom_dist sampler tables as parameters (nce_0.w_1 ...); Paddle-C
    embeds them as constants."""
    return name.startswith("nce_") and not name.endswith((".w_0", ".b_0"))


def _rng(seed):
    return np.random.RandomState(seed)


def _data(paddle, name, shape, dtype="float32", lod_level=0, grad=False):
    v = paddle.static.data(name, shape, dtype, lod_level=lod_level)
    if grad:
        v.stop_gradient = False
    return v


# ---------------------------------------------------------------------------------- cases
def case_fc(paddle, nn):
    x = _data(paddle, "x", [-1, 2, 4], grad=True)
    y = _data(paddle, "y", [-1, 3], grad=True)
    a = nn.fc(x, 5, activation="relu")
    b = nn.fc(x, 3, num_flatten_dims=2)
    c = nn.fc([x, y], 2, bias_attr=False)
    r = _rng(1)
    return [a, b, c], {"x": r.uniform(-1, 1, (3, 2, 4)).astype("float32"),
                       "y": r.uniform(-1, 1, (3, 3)).astype("float32")}, [x, y]


def case_conv2d(paddle, nn):
    x = _data(paddle, "x", [-1, 3, 7, 7], grad=True)
    a = nn.conv2d(x, 4, 3, stride=2, padding=1, act="relu")
    b = nn.conv2d(x, 6, [2, 3], dilation=2, groups=3, bias_attr=False)
    xh = _data(paddle, "xh", [-1, 5, 5, 2], grad=True)
    c = nn.conv2d(xh, 3, 3, padding="SAME", data_format="NHWC")
    r = _rng(2)
    return [a, b, c], {"x": r.uniform(-1, 1, (2, 3, 7, 7)).astype("float32"),
                       "xh": r.uniform(-1, 1, (2, 5, 5, 2)).astype("float32")}, [x, xh]


def case_conv2d_transpose(paddle, nn):
    x = _data(paddle, "x", [-1, 3, 4, 4], grad=True)
    a = nn.conv2d_transpose(x, 2, output_size=[8, 8], stride=2, padding=1)
    b = nn.conv2d_transpose(x, 4, filter_size=3, groups=1, act="tanh")
    c = nn.conv2d_transpose(x, 2, filter_size=[2, 3], stride=[2, 1], dilation=2)
    r = _rng(3)
    return [a, b, c], {"x": r.uniform(-1, 1, (2, 3, 4, 4)).astype("float32")}, [x]


def case_conv3d(paddle, nn):
    x = _data(paddle, "x", [-1, 2, 4, 4, 4], grad=True)
    a = nn.conv3d(x, 3, 2, stride=1, padding=1)
    b = nn.conv3d_transpose(x, 2, filter_size=2, stride=2)
    c = nn.conv3d_transpose(x, 2, output_size=[5, 5, 5])
    r = _rng(4)
    return [a, b, c], {"x": r.uniform(-1, 1, (1, 2, 4, 4, 4)).astype("float32")}, [x]


def case_batch_norm(paddle, nn):
    x = _data(paddle, "x", [-1, 3, 2, 2], grad=True)
    a = nn.batch_norm(x, act="relu")
    b = nn.batch_norm(x, is_test=True, moving_mean_name="mm", moving_variance_name="mv")
    v = _data(paddle, "v", [-1, 4], grad=True)
    c = nn.batch_norm(v, momentum=0.5, epsilon=1e-3)
    r = _rng(5)
    return [a, b, c], {"x": r.uniform(-1, 1, (4, 3, 2, 2)).astype("float32"),
                       "v": r.uniform(-1, 1, (5, 4)).astype("float32")}, [x, v]


def case_norms(paddle, nn):
    x = _data(paddle, "x", [-1, 4, 3, 3], grad=True)
    a = nn.layer_norm(x)
    b = nn.layer_norm(x, begin_norm_axis=2, scale=False, act="relu")
    # Paddle 2.6 dropped group_norm's / instance_norm's parameters (2.3 has them): compare without
    c = nn.group_norm(x, 2, param_attr=False, bias_attr=False)
    d = nn.instance_norm(x, param_attr=False, bias_attr=False)
    r = _rng(6)
    return [a, b, c, d], {"x": r.uniform(-1, 1, (2, 4, 3, 3)).astype("float32")}, [x]


def case_data_norm(paddle, nn):
    x = _data(paddle, "x", [-1, 3], grad=True)
    a = nn.data_norm(x)
    r = _rng(7)
    return [a], {"x": r.uniform(-1, 1, (4, 3)).astype("float32")}, [x]


def case_embedding(paddle, nn):
    ids = _data(paddle, "ids", [-1, 1], "int64")
    ids2 = _data(paddle, "ids2", [-1, 3], "int64")
    a = nn.embedding(ids, [6, 3])
    b = nn.embedding(ids2, [6, 2], padding_idx=-1)
    return [a, b], {"ids": np.array([[0], [5], [2]], "int64"),
                    "ids2": np.array([[1, 5, 5], [0, 3, 4]], "int64")}, []


def case_prelu(paddle, nn):
    x = _data(paddle, "x", [-1, 3, 2, 2], grad=True)
    a = nn.prelu(x, "all")
    b = nn.prelu(x, "channel")
    c = nn.prelu(x, "element")
    r = _rng(8)
    return [a, b, c], {"x": r.uniform(-1, 1, (2, 3, 2, 2)).astype("float32")}, [x]


def case_bilinear(paddle, nn):
    x = _data(paddle, "x", [-1, 3], grad=True)
    y = _data(paddle, "y", [-1, 4], grad=True)
    a = nn.bilinear_tensor_product(x, y, 5, act="sigmoid")
    r = _rng(9)
    return [a], {"x": r.uniform(-1, 1, (2, 3)).astype("float32"),
                 "y": r.uniform(-1, 1, (2, 4)).astype("float32")}, [x, y]


def case_spectral_norm(paddle, nn):
    w = _data(paddle, "w", [4, 6], grad=True)
    w2 = _data(paddle, "w2", [3, 2, 2, 2], grad=True)
    a = nn.spectral_norm(w, dim=0, power_iters=2)
    b = nn.spectral_norm(w2, dim=1, power_iters=1)
    r = _rng(10)
    return [a, b], {"w": r.uniform(-1, 1, (4, 6)).astype("float32"),
                    "w2": r.uniform(-1, 1, (3, 2, 2, 2)).astype("float32")}, [w, w2]


def case_row_conv(paddle, nn):
    x = _data(paddle, "x", [-1, 3], lod_level=1, grad=True)
    a = nn.row_conv(x, 2, act="tanh")
    r = _rng(11)
    return [a], {"x": (r.uniform(-1, 1, (7, 3)).astype("float32"), [[3, 4]])}, [x]


def case_deform_conv2d(paddle, nn):
    x = _data(paddle, "x", [-1, 2, 5, 5], grad=True)
    off = _data(paddle, "off", [-1, 18, 5, 5], grad=True)
    mask = _data(paddle, "mask", [-1, 9, 5, 5], grad=True)
    a = nn.deform_conv2d(x, off, mask, 3, 3, padding=1)
    b = nn.deform_conv2d(x, off, None, 2, 3, padding=1, bias_attr=False)
    r = _rng(12)
    return [a, b], {"x": r.uniform(-1, 1, (1, 2, 5, 5)).astype("float32"),
                    "off": r.uniform(-1.5, 1.5, (1, 18, 5, 5)).astype("float32"),
                    "mask": r.uniform(0, 1, (1, 9, 5, 5)).astype("float32")}, [x, off, mask]


def case_sequence_conv(paddle, nn):
    x = _data(paddle, "x", [-1, 3], lod_level=1, grad=True)
    a = nn.sequence_conv(x, 4, filter_size=3)
    b = nn.sequence_conv(x, 2, filter_size=2, padding_start=0, act="relu", bias_attr=False)
    r = _rng(13)
    return [a, b], {"x": (r.uniform(-1, 1, (6, 3)).astype("float32"), [[1, 3, 2]])}, [x]


def case_sequence_pool(paddle, nn):
    x = _data(paddle, "x", [-1, 2], lod_level=1, grad=True)
    outs = [nn.sequence_pool(x, t) for t in ("average", "sum", "sqrt", "max", "last", "first")]
    outs += [nn.sequence_first_step(x), nn.sequence_last_step(x), nn.sequence_pool(x, "sum", pad_value=0.0)]
    r = _rng(14)
    return outs, {"x": (r.permutation(14).reshape(7, 2).astype("float32") / 7, [[2, 4, 1]])}, [x]


def case_sequence_pool_2level(paddle, nn):
    x = _data(paddle, "x", [-1, 2], lod_level=2, grad=True)
    a = nn.sequence_pool(x, "sum")
    b = nn.sequence_pool(a, "max")
    r = _rng(15)
    return [a, b], {"x": (r.uniform(-1, 1, (6, 2)).astype("float32"), [[2, 1], [1, 3, 2]])}, [x]


def case_sequence_softmax(paddle, nn):
    x = _data(paddle, "x", [-1, 1], lod_level=1, grad=True)
    a = nn.sequence_softmax(x)
    r = _rng(16)
    return [a], {"x": (r.uniform(-2, 2, (6, 1)).astype("float32"), [[2, 4]])}, [x]


def case_sequence_concat(paddle, nn):
    x = _data(paddle, "x", [-1, 2], lod_level=1, grad=True)
    y = _data(paddle, "y", [-1, 2], lod_level=1, grad=True)
    a = nn.sequence_concat([x, y])
    r = _rng(17)
    return [a], {"x": (r.uniform(-1, 1, (3, 2)).astype("float32"), [[1, 2]]),
                 "y": (r.uniform(-1, 1, (4, 2)).astype("float32"), [[3, 1]])}, [x, y]


def case_sequence_expand(paddle, nn):
    x = _data(paddle, "x", [-1, 2], lod_level=1, grad=True)
    y = _data(paddle, "y", [-1, 1], lod_level=2)
    xn = _data(paddle, "xn", [-1, 2], grad=True)
    y1 = _data(paddle, "y1", [-1, 1], lod_level=1)
    a = nn.sequence_expand(x, y, ref_level=0)
    b = nn.sequence_expand(xn, y1)
    c = nn.sequence_expand_as(xn, y1)
    r = _rng(18)
    return [a, b, c], {"x": (r.uniform(-1, 1, (4, 2)).astype("float32"), [[1, 3]]),
                       "y": (np.zeros((6, 1), "float32"), [[2, 3], [1, 1, 2, 1, 1]]),
                       "xn": r.uniform(-1, 1, (3, 2)).astype("float32"),
                       "y1": (np.zeros((5, 1), "float32"), [[2, 0, 3]])}, [x, xn]


def case_sequence_pad(paddle, nn):
    x = _data(paddle, "x", [-1, 2], lod_level=1, grad=True)
    pv = paddle.assign(np.array([-1.0], "float32"))
    a, la = nn.sequence_pad(x, pv)
    b, lb = nn.sequence_pad(x, pv, maxlen=5)
    u = nn.sequence_unpad(b, lb)
    r = _rng(19)
    return [a, la, b, u], {"x": (r.uniform(-1, 1, (6, 2)).astype("float32"), [[2, 0, 4]])}, [x]


def case_sequence_misc(paddle, nn):
    x = _data(paddle, "x", [-1, 4], lod_level=1, grad=True)
    off = paddle.assign(np.array([[1], [0]], "int64"))
    ln = paddle.assign(np.array([[2], [1]], "int64"))
    a = nn.sequence_slice(x, off, ln)
    b = nn.sequence_reshape(x, 2)
    c = nn.sequence_reverse(x)
    ids = _data(paddle, "ids", [-1, 1], "int64", lod_level=1)
    d = nn.sequence_enumerate(ids, 3, pad_value=7)
    base = _data(paddle, "base", [3, 5], grad=True)
    upd = _data(paddle, "upd", [-1, 1], lod_level=1, grad=True)
    e = nn.sequence_scatter(base, ids, upd)
    r = _rng(20)
    idv = np.array([[0], [4], [2], [1], [1], [3]], "int64")
    return [a, b, c, d, e], {"x": (r.uniform(-1, 1, (5, 4)).astype("float32"), [[3, 2]]),
                             "ids": (idv, [[2, 1, 3]]),
                             "base": r.uniform(-1, 1, (3, 5)).astype("float32"),
                             "upd": (r.uniform(-1, 1, (6, 1)).astype("float32"), [[2, 1, 3]])}, [x, base, upd]


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


# ---------------------------------------------------------------------------------- running
def _lod_tensor(paddle, arr, lens):
    for mod in ("base", "fluid"):
        m = getattr(paddle, mod, None)
        if m is not None and hasattr(m, "create_lod_tensor"):
            return m.create_lod_tensor(arr, lens, paddle.CPUPlace())
    from paddle.static.executor import create_lod_tensor
    return create_lod_tensor(arr, lens)


def run_case(paddle, name):
    """{'params': [(name, shape)], 'outs': [array], 'lods': [lod], 'grads': [array]}"""
    from paddle.utils import unique_name
    main, start = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope), unique_name.guard():
        with paddle.static.program_guard(main, start):
            outs, feeds, wrt = CASES[name](paddle, paddle.static.nn)
            loss = None
            for o in outs:
                if o.dtype == paddle.float32:
                    t = paddle.sum(o * o)
                    loss = t if loss is None else loss + t
            grads = paddle.static.gradients([loss], wrt) if wrt else []
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        params = [(p.name, list(p.shape)) for p in main.all_parameters()]
        for pname, shape in params:
            if is_sampler_table(pname):
                continue
            scope.find_var(pname).get_tensor().set(param_value(pname, shape), paddle.CPUPlace())
        feed = {k: (_lod_tensor(paddle, *v) if isinstance(v, tuple) else v) for k, v in feeds.items()}
        res = exe.run(main, feed=feed, fetch_list=list(outs) + [g for g in grads if g is not None],
                      return_numpy=False)
    n = len(outs)
    return {"params": params, "outs": [np.array(t) for t in res[:n]], "lods": [t.lod() for t in res[:n]],
            "grads": [np.array(t) for t in res[n:]]}
