"""Second-order gradients through the normalisation ops (batch_norm, layer_norm, and group_norm /
instance_norm, which are layer_norm plus an affine). With create_graph the backward rules build
the gradients from differentiable ops; without it they run the fused grad kernels.

Each case defines y = norm(x, weight, bias, ...) and the first-order gradients
    gx, gw, gb(, gmean, gvar) = grad(L1, inputs),  L1 = sum(v * y) + sum(y ** 3) / 3
(v is an incoming-gradient tensor, so dL1/dy = v + y^2 depends on x and on v), then the scalar
    S = sum(r_i * g_i) + sum(g_x ** 2)
and checks dS/d(x, weight, bias, v, ...) from a double backward against central differences of S,
where S is evaluated with the ordinary first-order backward (fused kernels) in float64."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from paddle.nn.functional.norm import group_norm
from sweep_util import numeric_grad

RTOL, ATOL = 1e-6, 1e-6


def _t(a, grad=True):
    return paddle.to_tensor(a, stop_gradient=not grad)


def _first_order(fwd, arrays, names, create_graph):
    """Tensors for arrays (None stays None), y = fwd(**tensors), the first-order gradients of L1
    w.r.t. the differentiable inputs (every name but 'v')."""
    ts = {k: (None if a is None else _t(a)) for k, a in arrays.items()}
    y = fwd(**{k: t for k, t in ts.items() if k != "v"})
    l1 = (ts["v"] * y).sum() + (y ** 3).sum() / 3.0
    wrt = [k for k in names if k != "v"]
    gs = paddle.grad(l1, [ts[k] for k in wrt], create_graph=create_graph)
    return ts, dict(zip(wrt, gs))


def _second_scalar(gs, rs):
    s = (gs["x"] ** 2).sum()
    for k, g in gs.items():
        s = s + (g * _t(rs[k], grad=False)).sum()
    return s


def check_double(fwd, arrays, seed=0):
    names = [k for k, a in arrays.items() if a is not None]
    rng = np.random.default_rng(seed)
    gs0 = _first_order(fwd, arrays, names, False)[1]
    rs = {k: rng.uniform(-1, 1, size=g.shape) for k, g in gs0.items()}

    ts, gs = _first_order(fwd, arrays, names, True)
    # the composed first-order gradients equal the fused ones
    for k in gs:
        np.testing.assert_allclose(gs[k].numpy(), gs0[k].numpy(), rtol=1e-10, atol=1e-10, err_msg=k)
    s = _second_scalar(gs, rs)
    ana = paddle.grad(s, [ts[k] for k in names])

    def f():
        return float(_second_scalar(_first_order(fwd, arrays, names, False)[1], rs).numpy()[0])

    for k, a in zip(names, ana):
        num = numeric_grad(f, arrays[k])
        np.testing.assert_allclose(a.numpy(), num, rtol=RTOL, atol=ATOL, err_msg=f"d2/d{k}")


def _arr(rng, shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape)


# ---- batch_norm ----
BN_CASES = [
    # shape, data_format, training, use_global_stats, affine
    ([3, 2, 3, 2], "NCHW", True, None, True),
    ([3, 2, 2, 3], "NHWC", True, None, True),
    ([5, 3], "NC", True, None, True),
    ([3, 2, 4], "NLC", True, None, False),
    ([2, 2, 2, 2, 2], "NCDHW", True, None, True),
    ([3, 2, 3, 2], "NCHW", False, None, True),
    ([3, 2, 2, 3], "NHWC", False, None, True),
    ([3, 2, 4], "NCL", True, True, True),
]


@pytest.mark.parametrize("shape,fmt,training,ugs,affine", BN_CASES)
def test_batch_norm_double_grad(shape, fmt, training, ugs, affine):
    rng = np.random.default_rng(1)
    C = shape[-1] if fmt in ("NHWC", "NLC", "NDHWC") else shape[1]
    glob = (not training) if ugs is None else ugs
    rm = _arr(rng, [C], -0.5, 0.5)
    rv = _arr(rng, [C], 0.5, 2.0)
    arrays = {
        "x": _arr(rng, shape, -2, 2),
        "weight": _arr(rng, [C], 0.5, 1.5) if affine else None,
        "bias": _arr(rng, [C]) if affine else None,
        "v": _arr(rng, shape),
    }
    if glob:  # the running statistics are differentiable inputs in eval / global-stats mode
        arrays["mean"], arrays["var"] = rm, rv

    def fwd(x, weight, bias, mean=None, var=None):
        m = mean if mean is not None else _t(rm.copy(), grad=False)
        va = var if var is not None else _t(rv.copy(), grad=False)
        return F.batch_norm(x, m, va, weight, bias, training=training, epsilon=1e-3, data_format=fmt,
                            use_global_stats=ugs)

    check_double(fwd, arrays)


def test_batch_norm_layer_example():
    """The issue's example: BatchNorm2D, grad with create_graph, then backward of a function of it."""
    paddle.seed(3)
    rng = np.random.default_rng(3)
    xa = rng.uniform(0, 1, size=(4, 3, 5, 5))
    bn = paddle.nn.BatchNorm2D(3)
    bn.to(dtype="float64")
    x = _t(xa)
    y = bn(x)
    g, = paddle.grad((y ** 3).sum(), x, create_graph=True)
    (g ** 2).sum().backward()
    assert x.grad is not None and bn.weight.grad is not None and bn.bias.grad is not None
    assert np.isfinite(x.grad.numpy()).all()

    # against finite differences of the first-order gradient (one direction per tensor)

    def s_of(xa_, w_, b_):
        bn.weight.set_value(w_)
        bn.bias.set_value(b_)
        xt = _t(xa_)
        gx, = paddle.grad((bn(xt) ** 3).sum(), xt)
        return float((gx ** 2).sum().numpy()[0])

    w0, b0 = bn.weight.numpy().copy(), bn.bias.numpy().copy()
    gxa, gwa, gba = x.grad.numpy(), bn.weight.grad.numpy(), bn.bias.grad.numpy()
    eps = 1e-6
    for d_x, d_w, d_b in [(rng.standard_normal(xa.shape), 0, 0), (0, rng.standard_normal(3), 0),
                          (0, 0, rng.standard_normal(3))]:
        num = (s_of(xa + eps * d_x, w0 + eps * d_w, b0 + eps * d_b)
               - s_of(xa - eps * d_x, w0 - eps * d_w, b0 - eps * d_b)) / (2 * eps)
        ana = (np.sum(gxa * d_x) + np.sum(gwa * d_w) + np.sum(gba * d_b))
        np.testing.assert_allclose(ana, num, rtol=1e-6, atol=1e-5)
    bn.weight.set_value(w0)
    bn.bias.set_value(b0)


# ---- layer_norm ----
LN_CASES = [
    # shape, normalized dims, weight, bias
    ([3, 4, 3], 1, True, True),
    ([3, 2, 3], 2, True, True),
    ([4, 5], 1, False, False),
    ([2, 3, 4], 1, True, False),
    ([2, 3, 4], 2, False, True),
]


@pytest.mark.parametrize("shape,nn_,w,b", LN_CASES)
def test_layer_norm_double_grad(shape, nn_, w, b):
    rng = np.random.default_rng(2)
    ns = shape[len(shape) - nn_:]
    arrays = {
        "x": _arr(rng, shape, -2, 2),
        "weight": _arr(rng, ns, 0.5, 1.5) if w else None,
        "bias": _arr(rng, ns) if b else None,
        "v": _arr(rng, shape),
    }

    def fwd(x, weight, bias):
        return F.layer_norm(x, ns, weight, bias, epsilon=1e-3)

    check_double(fwd, arrays)


# ---- group_norm / instance_norm (layer_norm compositions) ----
@pytest.mark.parametrize("shape,groups,fmt", [([2, 4, 3, 2], 2, "NCHW"), ([2, 3, 2, 4], 2, "NHWC"),
                                              ([2, 4, 5], 4, "NCL")])
def test_group_norm_double_grad(shape, groups, fmt):
    rng = np.random.default_rng(4)
    C = shape[-1] if fmt in ("NHWC", "NLC") else shape[1]
    arrays = {"x": _arr(rng, shape, -2, 2), "weight": _arr(rng, [C], 0.5, 1.5), "bias": _arr(rng, [C]),
              "v": _arr(rng, shape)}

    def fwd(x, weight, bias):
        return group_norm(x, groups, weight, bias, 1e-3, fmt)

    check_double(fwd, arrays)


def test_group_norm_layer_nhwc():
    gn = paddle.nn.GroupNorm(2, 4, data_format="NHWC")
    gn.to(dtype="float64")
    x = _t(np.random.default_rng(5).uniform(-1, 1, size=(2, 3, 2, 4)))
    g, = paddle.grad((gn(x) ** 3).sum(), x, create_graph=True)
    (g ** 2).sum().backward()
    assert x.grad.shape == [2, 3, 2, 4] and gn.weight.grad.shape == [4]


@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm_double_grad(affine):
    rng = np.random.default_rng(6)
    shape = [2, 3, 2, 3]
    arrays = {"x": _arr(rng, shape, -2, 2), "weight": _arr(rng, [3], 0.5, 1.5) if affine else None,
              "bias": _arr(rng, [3]) if affine else None, "v": _arr(rng, shape)}

    def fwd(x, weight, bias):
        return F.instance_norm(x, weight=weight, bias=bias, eps=1e-3)

    check_double(fwd, arrays)


# ---- higher orders, float32, first order ----
@pytest.mark.parametrize("op", ["bn", "ln"])
def test_third_order(op):
    """Every order: d/dx of sum(d2) against central differences of d2 (itself a double backward)."""
    rng = np.random.default_rng(7)
    shape = [3, 2, 2]
    xa = rng.uniform(-2, 2, size=shape)
    r = rng.uniform(-1, 1, size=shape)

    def fwd(x):
        if op == "bn":
            return F.batch_norm(x, _t(np.zeros(2), False), _t(np.ones(2), False), None, None, training=True,
                                epsilon=1e-3)
        return F.layer_norm(x, [2, 2], epsilon=1e-3)

    def second(xt, create):
        y = fwd(xt)
        g, = paddle.grad((y ** 3).sum(), xt, create_graph=True)
        d2, = paddle.grad((g * g).sum(), xt, create_graph=create)
        return (d2 * _t(r, False)).sum()

    x = _t(xa)
    d3, = paddle.grad(second(x, True), x)
    num = numeric_grad(lambda: float(second(_t(xa), False).numpy()[0]), xa)
    np.testing.assert_allclose(d3.numpy(), num, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["bn_train", "bn_eval", "ln"])
def test_float32_composed_matches_fused(op):
    rng = np.random.default_rng(8)
    xa = rng.uniform(-2, 2, size=(4, 3, 4, 4)).astype("float32")
    wa = rng.uniform(0.5, 1.5, size=3 if op != "ln" else 48).astype("float32")
    ba = rng.uniform(-1, 1, size=wa.shape).astype("float32")

    def grads(create):
        x, w, b = _t(xa), _t(wa), _t(ba)
        if op == "ln":
            y = F.layer_norm(x, [3, 4, 4], w.reshape([3, 4, 4]), b.reshape([3, 4, 4]))
        else:
            y = F.batch_norm(x, _t(np.zeros(3, "float32"), False), _t(np.ones(3, "float32"), False), w, b,
                             training=op == "bn_train")
        return [t.numpy() for t in paddle.grad((y ** 2).sum() + y.sum(), [x, w, b], create_graph=create)]

    for a, f in zip(grads(True), grads(False)):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, f, rtol=1e-4, atol=1e-4)


def test_first_order_unchanged():
    """create_graph=False: the fused gradients against finite differences of the forward."""
    rng = np.random.default_rng(9)
    xa = rng.uniform(-2, 2, size=(3, 2, 2, 2))
    wa, ba = rng.uniform(0.5, 1.5, size=2), rng.uniform(-1, 1, size=2)
    r = rng.uniform(-1, 1, size=xa.shape)

    def loss(x, w, b):
        y = F.batch_norm(x, _t(np.zeros(2), False), _t(np.ones(2), False), w, b, training=True)
        z = F.layer_norm(y, [2, 2], None, None)
        return (z * _t(r, False)).sum() + (y ** 2).sum()

    x, w, b = _t(xa), _t(wa), _t(ba)
    gx, gw, gb = paddle.grad(loss(x, w, b), [x, w, b])
    for a, arr in [(gx, xa), (gw, wa), (gb, ba)]:
        num = numeric_grad(lambda: float(loss(_t(xa, False), _t(wa, False), _t(ba, False)).numpy()[0]), arr)
        np.testing.assert_allclose(a.numpy(), num, rtol=1e-6, atol=1e-6)
    assert gx.stop_gradient
