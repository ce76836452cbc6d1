"""paddle.optimizer: each optimizer's trajectory over several steps against a numpy
re-implementation of Paddle 2.3's update formula, regularisation, per-parameter / per-group
learning rates, gradient clipping, lazy_mode, multi_precision, state_dict round trips and the
errors for bad arguments. Schedulers: tests/python/test_lr_scheduler.py."""
import numpy as np
import pytest

import paddle
from paddle import optimizer as O
from paddle.regularizer import L1Decay, L2Decay

SHAPES = [(4, 3), (3,)]
STEPS = 5


def _data(dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.uniform(-1, 1, s).astype(dtype) for s in SHAPES]
    cs = [rng.uniform(-1, 1, s).astype(dtype) for s in SHAPES]
    ds = [rng.uniform(0.5, 1.5, s).astype(dtype) for s in SHAPES]
    return ws, cs, ds


def _grad_np(w, c, d):
    return c + d * w  # d/dw of sum(c w + 0.5 d w^2)


def _params(ws, names=("w_a", "w_b")):
    ps = []
    for w, n in zip(ws, names):
        p = paddle.to_tensor(w)
        p.stop_gradient = False
        p.name = n
        ps.append(p)
    return ps


def _loss(ps, cs, ds):
    total = None
    for p, c, d in zip(ps, cs, ds):
        term = paddle.sum(p * paddle.to_tensor(c) + 0.5 * paddle.to_tensor(d) * p * p)
        total = term if total is None else total + term
    return total


def _run(make, steps=STEPS, dtype="float64", names=("w_a", "w_b"), on_params=None):
    ws, cs, ds = _data(dtype)
    ps = _params(ws, names)
    if on_params:
        on_params(ps)
    opt = make(ps)
    traj = []
    for _ in range(steps):
        _loss(ps, cs, ds).backward()
        opt.step()
        opt.clear_grad()
        traj.append([p.numpy().copy() for p in ps])
    return traj, opt, ps


def _ref(update, state_init, steps=STEPS, dtype="float64", reg=None):
    """update(i, w, g, state, t) -> new w (state: per-param dict); reg(w) added to g."""
    ws, cs, ds = _data(dtype)
    ws = [w.astype("float64") for w in ws]
    states = [state_init(w) for w in ws]
    traj = []
    for t in range(1, steps + 1):
        new = []
        for i, (w, c, d) in enumerate(zip(ws, cs, ds)):
            g = _grad_np(w, c, d)
            if reg is not None:
                g = g + reg(w)
            new.append(update(i, w, g, states[i], t))
        ws = new
        traj.append([w.copy() for w in ws])
    return traj


def _close(a, b, rtol=1e-9, atol=1e-12):
    for sa, sb in zip(a, b):
        for x, y in zip(sa, sb):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


# ------------------------------------------------------------------ the update formulas
def test_sgd_with_l2_weight_decay():
    got, _, _ = _run(lambda ps: O.SGD(0.1, parameters=ps, weight_decay=0.01))
    exp = _ref(lambda i, w, g, s, t: w - 0.1 * g, lambda w: {}, reg=lambda w: 0.01 * w)
    _close(got, exp)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov):
    got, _, _ = _run(lambda ps: O.Momentum(0.05, momentum=0.8, parameters=ps, use_nesterov=nesterov))

    def upd(i, w, g, s, t):
        s["v"] = 0.8 * s["v"] + g
        return w - 0.05 * (g + 0.8 * s["v"]) if nesterov else w - 0.05 * s["v"]
    _close(got, _ref(upd, lambda w: {"v": np.zeros_like(w)}))


def _adam_upd(lr, b1, b2, eps, coeff=0.0, lr_of=None):
    def upd(i, w, g, s, t):
        lr_i = lr if lr_of is None else lr_of(i)
        w = w * (1 - lr_i * coeff)
        s["m1"] = b1 * s["m1"] + (1 - b1) * g
        s["m2"] = b2 * s["m2"] + (1 - b2) * g * g
        lr_t = lr_i * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return w - lr_t * s["m1"] / (np.sqrt(s["m2"]) + eps * np.sqrt(1 - b2 ** t))
    return upd


def _adam_state(w):
    return {"m1": np.zeros_like(w), "m2": np.zeros_like(w)}


def test_adam():
    got, _, _ = _run(lambda ps: O.Adam(0.01, beta1=0.8, beta2=0.9, epsilon=1e-3, parameters=ps))
    _close(got, _ref(_adam_upd(0.01, 0.8, 0.9, 1e-3), _adam_state))


def test_adam_l1_decay():
    got, _, _ = _run(lambda ps: O.Adam(0.01, parameters=ps, weight_decay=L1Decay(0.1)))
    _close(got, _ref(_adam_upd(0.01, 0.9, 0.999, 1e-8), _adam_state, reg=lambda w: 0.1 * np.sign(w)))


def test_adam_float32_matches_float64_reference():
    got, _, _ = _run(lambda ps: O.Adam(0.01, parameters=ps), dtype="float32")
    _close(got, _ref(_adam_upd(0.01, 0.9, 0.999, 1e-8), _adam_state, dtype="float32"),
           rtol=1e-5, atol=1e-6)


def test_adamw_decay_lr_ratio_and_apply_decay_param_fun():
    ratio = {"w_a": 0.5, "w_b": 2.0}
    got, _, _ = _run(lambda ps: O.AdamW(0.01, parameters=ps, weight_decay=0.1,
                                        lr_ratio=lambda p: ratio[p.name],
                                        apply_decay_param_fun=lambda n: n == "w_a"))
    coeffs = [0.1, 0.0]

    def upd(i, w, g, s, t):
        return _adam_upd(0.01 * [0.5, 2.0][i], 0.9, 0.999, 1e-8, coeffs[i])(i, w, g, s, t)
    _close(got, _ref(upd, _adam_state))


def test_adamax():
    got, _, _ = _run(lambda ps: O.Adamax(0.02, beta1=0.8, beta2=0.9, epsilon=1e-4, parameters=ps))

    def upd(i, w, g, s, t):
        s["m"] = 0.8 * s["m"] + 0.2 * g
        s["u"] = np.maximum(0.9 * s["u"] + 1e-4, np.abs(g))
        return w - 0.02 / (1 - 0.8 ** t) * s["m"] / s["u"]
    _close(got, _ref(upd, lambda w: {"m": np.zeros_like(w), "u": np.zeros_like(w)}))


def test_adagrad_initial_accumulator():
    got, _, _ = _run(lambda ps: O.Adagrad(0.1, epsilon=1e-5, parameters=ps, initial_accumulator_value=0.2))

    def upd(i, w, g, s, t):
        s["m"] = s["m"] + g * g
        return w - 0.1 * g / (np.sqrt(s["m"]) + 1e-5)
    _close(got, _ref(upd, lambda w: {"m": np.full_like(w, 0.2)}))


def test_adadelta():
    got, _, _ = _run(lambda ps: O.Adadelta(0.001, epsilon=1e-4, rho=0.9, parameters=ps))

    def upd(i, w, g, s, t):
        s["eg"] = 0.9 * s["eg"] + 0.1 * g * g
        d = -np.sqrt((s["ex"] + 1e-4) / (s["eg"] + 1e-4)) * g
        s["ex"] = 0.9 * s["ex"] + 0.1 * d * d
        return w + d
    _close(got, _ref(upd, lambda w: {"eg": np.zeros_like(w), "ex": np.zeros_like(w)}))


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(centered):
    got, _, _ = _run(lambda ps: O.RMSProp(0.01, rho=0.9, epsilon=1e-6, momentum=0.5,
                                          centered=centered, parameters=ps))

    def upd(i, w, g, s, t):
        s["ms"] = 0.9 * s["ms"] + 0.1 * g * g
        den = s["ms"]
        if centered:
            s["mg"] = 0.9 * s["mg"] + 0.1 * g
            den = s["ms"] - s["mg"] ** 2
        s["mom"] = 0.5 * s["mom"] + 0.01 * g / np.sqrt(den + 1e-6)
        return w - s["mom"]
    _close(got, _ref(upd, lambda w: {k: np.zeros_like(w) for k in ("ms", "mg", "mom")}))


def test_lamb_with_exclude_fn():
    got, _, _ = _run(lambda ps: O.Lamb(0.01, lamb_weight_decay=0.05, parameters=ps,
                                       exclude_from_weight_decay_fn=lambda p: p.name == "w_b"))

    def upd(i, w, g, s, t):
        wd = [0.05, 0.0][i]
        s["m1"] = 0.9 * s["m1"] + 0.1 * g
        s["m2"] = 0.999 * s["m2"] + 0.001 * g * g
        r = (s["m1"] / (1 - 0.9 ** t)) / (np.sqrt(s["m2"] / (1 - 0.999 ** t)) + 1e-6) + wd * w
        pn, rn = np.linalg.norm(w), np.linalg.norm(r)
        trust = pn / rn if pn > 0 and rn > 0 else 1.0
        return w - 0.01 * trust * r
    _close(got, _ref(upd, _adam_state))


# ------------------------------------------------------------------ lr, groups, regularizers
def test_per_parameter_lr_and_regularizer_precedence():
    def setup(ps):
        ps[0].optimize_attr = {"learning_rate": 0.5}
        ps[1].regularizer = L1Decay(0.2)  # wins over the optimizer's L2
    got, _, _ = _run(lambda ps: O.SGD(0.1, parameters=ps, weight_decay=L2Decay(0.05)), on_params=setup)
    regs = [lambda w: 0.05 * w, lambda w: 0.2 * np.sign(w)]
    lrs = [0.05, 0.1]
    ws, cs, ds = _data()
    exp = []
    for _ in range(STEPS):
        ws = [w - lr * (_grad_np(w, c, d) + r(w)) for w, c, d, lr, r in zip(ws, cs, ds, lrs, regs)]
        exp.append(ws)
    _close(got, exp)


def test_parameter_groups():
    got, _, _ = _run(lambda ps: O.Momentum(0.1, momentum=0.9, parameters=[
        {"params": [ps[0]], "learning_rate": 0.1, "weight_decay": 0.3},
        {"params": [ps[1]]}], weight_decay=0.01))
    lrs, wds = [0.01, 0.1], [0.3, 0.01]

    def upd(i, w, g, s, t):
        s["v"] = 0.9 * s["v"] + g + wds[i] * w
        return w - lrs[i] * s["v"]
    _close(got, _ref(upd, lambda w: {"v": np.zeros_like(w)}))


def test_lr_scheduler_drives_the_step():
    sched = O.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    got, opt, _ = _run(lambda ps: O.SGD(sched, parameters=ps))
    # the scheduler is not stepped: every step uses lr 0.1
    _close(got, _ref(lambda i, w, g, s, t: w - 0.1 * g, lambda w: {}))
    ws, cs, ds = _data()
    ps = _params(ws)
    sched = O.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    opt = O.SGD(sched, parameters=ps)
    exp = [w.copy() for w in ws]
    for k in range(4):
        assert opt.get_lr() == pytest.approx(0.1 * 0.5 ** (k // 2))
        _loss(ps, cs, ds).backward()
        exp = [w - opt.get_lr() * _grad_np(w, c, d) for w, c, d in zip(exp, cs, ds)]
        opt.step()
        opt.clear_grad()
        sched.step()
    _close([[p.numpy() for p in ps]], [exp])


def test_get_set_lr_and_errors():
    ws, _, _ = _data()
    ps = _params(ws)
    opt = O.Adam(0.01, parameters=ps)
    assert opt.get_lr() == 0.01
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5
    with pytest.raises(TypeError):
        opt.set_lr("x")
    opt.set_lr_scheduler(O.lr.ExponentialDecay(0.2, gamma=0.9))
    assert opt.get_lr() == pytest.approx(0.2)
    with pytest.raises(RuntimeError):
        opt.set_lr(0.1)
    with pytest.raises(TypeError):
        opt.set_lr_scheduler(0.1)
    with pytest.raises(TypeError):
        O.SGD("fast", parameters=ps)
    with pytest.raises(AttributeError):
        O.SGD(0.1)
    with pytest.raises(TypeError):
        O.SGD(0.1, parameters=ps[0])
    with pytest.raises(ValueError):
        O.Adam(0.1, beta1=1.5, parameters=ps)
    with pytest.raises(TypeError):
        O.SGD(0.1, parameters=ps, weight_decay="big")
    with pytest.raises(TypeError):
        O.SGD(0.1, parameters=ps, grad_clip=1.0)
    with pytest.raises(TypeError):
        O.AdamW(0.1, parameters=ps, weight_decay="x")


def test_minimize_and_clear_grad():
    ws, cs, ds = _data()
    ps = _params(ws)
    opt = O.SGD(0.1, parameters=ps)
    loss = _loss(ps, cs, ds)
    loss.backward()
    ops, pg = opt.minimize(loss)
    assert len(pg) == 2
    np.testing.assert_allclose(ps[0].numpy(), ws[0] - 0.1 * _grad_np(ws[0], cs[0], ds[0]))
    opt.clear_grad()
    assert float(paddle.sum(paddle.abs(ps[0].grad))) == 0.0
    opt.clear_grad(set_to_zero=False)
    assert ps[0].grad is None


def test_params_without_grad_or_stopped_are_skipped():
    ws, cs, ds = _data()
    ps = _params(ws)
    ps[1].stop_gradient = True
    opt = O.Adam(0.1, parameters=ps)
    _loss(ps, cs, ds).backward()
    opt.step()
    np.testing.assert_array_equal(ps[1].numpy(), ws[1])
    assert not np.allclose(ps[0].numpy(), ws[0])


# ------------------------------------------------------------------ clipping
def _grads(seed=3):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, s) for s in SHAPES]


def _pairs(gs):
    ps = _params([np.zeros(s) for s in SHAPES])
    return [(p, paddle.to_tensor(g)) for p, g in zip(ps, gs)]


def test_clip_by_value():
    gs = _grads()
    out = paddle.nn.ClipGradByValue(max=1.0, min=-0.5)(_pairs(gs))
    for (_, g), ref in zip(out, gs):
        np.testing.assert_allclose(g.numpy(), np.clip(ref, -0.5, 1.0))
    out = paddle.nn.ClipGradByValue(0.3)(_pairs(gs))
    np.testing.assert_allclose(out[0][1].numpy(), np.clip(gs[0], -0.3, 0.3))


def test_clip_by_norm():
    gs = _grads()
    out = paddle.nn.ClipGradByNorm(clip_norm=1.0)(_pairs(gs))
    for (_, g), ref in zip(out, gs):
        n = np.linalg.norm(ref)
        np.testing.assert_allclose(g.numpy(), ref * (1.0 / n if n > 1.0 else 1.0), rtol=1e-12)


def test_clip_by_global_norm_and_need_clip():
    gs = _grads()
    pairs = _pairs(gs)
    pairs[1][0].need_clip = False
    out = paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)(pairs)
    gn = np.linalg.norm(gs[0])  # only clipped grads count
    np.testing.assert_allclose(out[0][1].numpy(), gs[0] * 1.0 / max(gn, 1.0), rtol=1e-12)
    np.testing.assert_allclose(out[1][1].numpy(), gs[1])


def test_optimizer_uses_grad_clip_without_touching_grad():
    ws, cs, ds = _data()
    ps = _params(ws)
    opt = O.SGD(1.0, parameters=ps, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.1))
    _loss(ps, cs, ds).backward()
    g = [_grad_np(w, c, d) for w, c, d in zip(ws, cs, ds)]
    gn = np.sqrt(sum((x ** 2).sum() for x in g))
    opt.step()
    for p, w, x in zip(ps, ws, g):
        np.testing.assert_allclose(p.numpy(), w - x * 0.1 / max(gn, 0.1), rtol=1e-10)
        np.testing.assert_allclose(p.grad.numpy(), x)


def test_clip_bad_arguments():
    with pytest.raises(TypeError):
        paddle.nn.ClipGradByNorm("1")
    # Paddle accepts any clip_norm and min > max at construction (checked against 2.6.2)
    assert paddle.nn.ClipGradByGlobalNorm(-1.0).clip_norm == -1.0
    with pytest.raises(AssertionError):  # as Paddle 2.6.2 (an assert)
        paddle.nn.ClipGradByValue(max=-1.0)  # min defaults to -max: max must be positive


# ------------------------------------------------------------------ lazy mode, multi precision
def test_adam_lazy_mode_with_a_dense_gradient_updates_every_row():
    # lazy_mode only changes row-sparse updates (tests/python/test_sparse_grad.py); Paddle's dense
    # adam kernel ignores it, so rows whose dense gradient is zero still move on their moments
    w = np.random.default_rng(0).uniform(-1, 1, (5, 3)).astype("float64")
    mask = np.zeros((5, 3))
    mask[[1, 3]] = 1.0
    grads = [np.ones((5, 3)), mask, mask]  # every row has moments after step 1
    got = []
    for lazy in (True, False):
        p = paddle.to_tensor(w)
        p.stop_gradient = False
        opt = O.Adam(0.1, parameters=[p], lazy_mode=lazy)
        for g in grads:
            paddle.sum(p * paddle.to_tensor(g)).backward()
            opt.step()
            opt.clear_grad()
        got.append(p.numpy())
    np.testing.assert_array_equal(got[0], got[1])
    m, v, ref = np.zeros_like(w), np.zeros_like(w), w.copy()
    for t, g in enumerate(grads, 1):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-8 * np.sqrt(1 - 0.999 ** t))
    np.testing.assert_allclose(got[0], ref, rtol=1e-12)


def test_adam_multi_precision_float16():
    w = np.random.default_rng(0).uniform(-1, 1, (8, 4)).astype("float32")
    g = np.random.default_rng(1).uniform(-1, 1, (8, 4)).astype("float32")
    p16 = paddle.to_tensor(w).astype("float16")
    p16.stop_gradient = False
    p32 = paddle.to_tensor(w)
    p32.stop_gradient = False
    o16 = O.Adam(0.01, parameters=[p16], multi_precision=True)
    o32 = O.Adam(0.01, parameters=[p32])
    for _ in range(3):
        paddle.sum(p16 * paddle.to_tensor(g).astype("float16")).backward()
        paddle.sum(p32 * paddle.to_tensor(g)).backward()
        o16.step()
        o32.step()
        o16.clear_grad()
        o32.clear_grad()
    sd = o16.state_dict()
    master = list(sd["master_weights"].values())[0]
    assert master.dtype == paddle.float32
    np.testing.assert_allclose(master.numpy(), p32.numpy(), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(p16.astype("float32").numpy(), p32.numpy(), rtol=1e-2, atol=1e-2)


# ------------------------------------------------------------------ state dict
def test_state_dict_names():
    _, opt, _ = _run(lambda ps: O.Adam(0.01, parameters=ps), steps=1,
                     names=("linear_0.w_0", "linear_0.b_0"))
    keys = set(opt.state_dict())
    for n in ("linear_0.w_0", "linear_0.b_0"):
        for acc in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"):
            assert any(k.startswith(f"{n}_{acc}_") for k in keys), (n, acc, keys)
    b1 = [v for k, v in opt.state_dict().items() if "beta1_pow_acc" in k][0]
    assert b1.shape == [1] and float(b1) == pytest.approx(0.9 ** 2)


@pytest.mark.parametrize("make", [
    lambda ps: O.Adam(O.lr.ExponentialDecay(0.05, 0.9), parameters=ps),
    lambda ps: O.AdamW(0.05, parameters=ps),
    lambda ps: O.Momentum(0.05, parameters=ps),
    lambda ps: O.RMSProp(0.05, centered=True, momentum=0.3, parameters=ps),
    lambda ps: O.Lamb(0.05, parameters=ps),
    lambda ps: O.Adamax(0.05, parameters=ps),
    lambda ps: O.Adagrad(0.05, parameters=ps),
    lambda ps: O.Adadelta(0.05, parameters=ps),
], ids=["adam+sched", "adamw", "momentum", "rmsprop", "lamb", "adamax", "adagrad", "adadelta"])
def test_state_dict_resume_gives_identical_trajectory(make):
    ws, cs, ds = _data()

    def train(ps, opt, n):
        for _ in range(n):
            _loss(ps, cs, ds).backward()
            opt.step()
            opt.clear_grad()
            if isinstance(opt._learning_rate, O.lr.LRScheduler):
                opt._learning_rate.step()

    ps = _params(ws)
    opt = make(ps)
    train(ps, opt, 6)
    full = [p.numpy().copy() for p in ps]

    ps = _params(ws)
    opt = make(ps)
    train(ps, opt, 3)
    saved = {k: (v.numpy().copy() if hasattr(v, "numpy") else
                 {kk: vv.numpy().copy() for kk, vv in v.items()} if k == "master_weights" else dict(v))
             for k, v in opt.state_dict().items()}
    weights = [p.numpy().copy() for p in ps]

    ps2 = _params(weights)
    opt2 = make(ps2)
    opt2.set_state_dict(saved)
    train(ps2, opt2, 3)
    for p, f in zip(ps2, full):
        np.testing.assert_array_equal(p.numpy(), f)


def test_with_parameters_from_param_attr():
    """Parameters made with ParamAttr: per-parameter learning rate, regularizer and need_clip."""
    attr = paddle.ParamAttr(learning_rate=0.5, regularizer=L2Decay(0.1), need_clip=False)
    p = paddle.create_parameter([3, 2], "float32", attr=attr)
    q = paddle.create_parameter([2], "float32", is_bias=True)
    w0, b0 = p.numpy().copy(), q.numpy().copy()
    opt = O.SGD(0.2, parameters=[p, q], grad_clip=paddle.nn.ClipGradByValue(0.01))
    paddle.sum(p * 3.0).backward()
    paddle.sum(q * 3.0).backward()
    opt.step()
    # p: not clipped, lr 0.2 * 0.5, grad 3 + 0.1 w;  q: clipped to 0.01, lr 0.2
    np.testing.assert_allclose(p.numpy(), w0 - 0.1 * (3.0 + 0.1 * w0), rtol=1e-6)
    np.testing.assert_allclose(q.numpy(), b0 - 0.2 * 0.01, rtol=1e-6, atol=1e-7)
