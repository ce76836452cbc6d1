"""Optimizers in static mode: every paddle.optimizer class trained with minimize() in a static
program equals its eager run step for step, bit for bit (same initial weights), with gradient
clipping, regularizers, per-parameter learning rates and LR schedulers; accumulators and the
learning-rate variable are named as in Paddle and live in the scope; state_dict round trips."""
import numpy as np
import pytest

import paddle
import paddle.nn.functional as F
from static_equiv_util import assert_same, train_eager, train_static

O = paddle.optimizer
STEPS = 6
SPECS = [("x", [None, 6], "float32"), ("y", [None, 1], "int64")]


def _batches(n=STEPS, seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(10, 6).astype("float32"), rng.randint(0, 3, (10, 1)).astype("int64")) for _ in range(n)]


def _mlp(weight_attr=None):
    def build():
        return paddle.nn.Sequential(paddle.nn.Linear(6, 8, weight_attr=weight_attr), paddle.nn.Tanh(),
                                    paddle.nn.Linear(8, 3))
    return build


def _ce(net, x, y):
    return F.cross_entropy(net(x), y)


def _equiv(make_opt, build=None, after_step=None, batches=None):
    build = build or _mlp()
    batches = batches or _batches()
    init, el, ef, eopt = train_eager(build, make_opt, _ce, batches, after_step=after_step)
    sl, sf, sopt, main, scope = train_static(build, make_opt, _ce, SPECS, batches, init, after_step=after_step)
    assert_same(el, sl, "loss")
    assert_same(ef, sf, "weights")
    return eopt, sopt, main, scope


OPTIMIZERS = {
    "sgd": lambda ps: O.SGD(0.1, parameters=ps),
    "momentum": lambda ps: O.Momentum(0.05, momentum=0.8, parameters=ps),
    "momentum_nesterov": lambda ps: O.Momentum(0.05, parameters=ps, use_nesterov=True, rescale_grad=0.5),
    "adam": lambda ps: O.Adam(0.01, parameters=ps),
    "adamw": lambda ps: O.AdamW(0.01, parameters=ps, weight_decay=0.1),
    "adamw_ratio": lambda ps: O.AdamW(0.01, parameters=ps, lr_ratio=lambda p: 0.5,
                                      apply_decay_param_fun=lambda n: n.endswith("w_0")),
    "adamax": lambda ps: O.Adamax(0.02, parameters=ps),
    "adagrad": lambda ps: O.Adagrad(0.05, parameters=ps, initial_accumulator_value=0.1),
    "adadelta": lambda ps: O.Adadelta(1.0, parameters=ps),
    "rmsprop": lambda ps: O.RMSProp(0.01, parameters=ps),
    "rmsprop_centered": lambda ps: O.RMSProp(0.01, parameters=ps, momentum=0.5, centered=True),
    "lamb": lambda ps: O.Lamb(0.01, parameters=ps),
    "lamb_exclude": lambda ps: O.Lamb(0.01, parameters=ps, exclude_from_weight_decay_fn=lambda p: p.name.endswith("b_0")),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_static_equals_eager(name):
    _equiv(OPTIMIZERS[name])


@pytest.mark.parametrize("clip", [
    lambda: paddle.nn.ClipGradByValue(0.02),
    lambda: paddle.nn.ClipGradByNorm(0.05),
    lambda: paddle.nn.ClipGradByGlobalNorm(0.1),
    lambda: paddle.nn.ClipGradByGlobalNorm(100.0),  # within the norm: unchanged
], ids=["value", "norm", "global_norm", "global_norm_inactive"])
def test_grad_clip(clip):
    _equiv(lambda ps: O.Adam(0.01, parameters=ps, grad_clip=clip()))


@pytest.mark.parametrize("wd", [lambda: 0.01, lambda: paddle.regularizer.L2Decay(0.02),
                                lambda: paddle.regularizer.L1Decay(0.01)], ids=["float", "l2", "l1"])
def test_regularizers(wd):
    _equiv(lambda ps: O.Momentum(0.05, parameters=ps, weight_decay=wd()))


def test_param_regularizer_and_learning_rate():
    attr = paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay(0.05), learning_rate=2.0)
    _equiv(lambda ps: O.SGD(0.1, parameters=ps, weight_decay=paddle.regularizer.L2Decay(0.01),
                            grad_clip=paddle.nn.ClipGradByNorm(0.5)), build=_mlp(attr))


@pytest.mark.parametrize("sched", [
    lambda: O.lr.StepDecay(0.05, step_size=2, gamma=0.5),
    lambda: O.lr.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01]),
    lambda: O.lr.CosineAnnealingDecay(0.05, T_max=4),
    lambda: O.lr.LinearWarmup(O.lr.ExponentialDecay(0.05, 0.9), 3, 0.0, 0.05),
], ids=["step", "piecewise", "cosine", "warmup"])
def test_lr_scheduler(sched):
    scheds = []

    def make(ps):
        s = sched()
        scheds.append(s)
        return O.Adam(s, parameters=ps)

    eopt, sopt, main, scope = _equiv(make, after_step=lambda opt: opt._learning_rate.step())
    assert main.lr_sheduler is scheds[1]
    name = scheds[1]._var_name
    assert name.startswith("learning_rate_")
    # the executor wrote the scheduler's value of the last run into the variable
    lr = np.array(scope.find_var(name).get_tensor())
    assert lr.shape == (1,)


def test_minimize_returns_and_program():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 6], "float32")
            y = paddle.static.data("y", [None, 1], "int64")
            net = _mlp()()
            loss = _ce(net, x, y)
            opt = O.Adam(0.01)  # parameters=None: every trainable parameter (static mode only)
            ops, pg = opt.minimize(loss)
        assert [o.type for o in ops] == ["adam_"] * 4
        assert [p.name for p, _ in pg] == [p.name for p in net.parameters()]
        assert all(g.name == p.name + "@GRAD" for p, g in pg)
        assert all(o.attr("op_role") == 2 for o in ops)
        names = {v.name for v in main.list_vars() if v.persistable}
        w = net.parameters()[0].name
        for acc in ("moment1_0", "moment2_0", "beta1_pow_acc_0", "beta2_pow_acc_0"):
            assert f"{w}_{acc}" in names
        lr = opt._global_learning_rate(main)
        assert lr.name in names and lr.persistable
        assert "learning_rate_" in lr.name
        # the startup program initializes every accumulator
        start_out = {n for op in startup.global_block().ops for n in op.output_arg_names}
        assert f"{w}_moment1_0" in start_out and lr.name in start_out
        # clone(for_test=True) drops backward and optimizer ops
        test = main.clone(for_test=True)
        assert not any(o.type == "adam_" for o in test.global_block().ops)
        with pytest.raises(RuntimeError):
            opt.step()
    finally:
        paddle.disable_static()


def test_state_dict_round_trip():
    eopt, sopt, main, scope = _equiv(lambda ps: O.Adam(0.01, parameters=ps))
    esd = eopt.state_dict()
    with paddle.static.scope_guard(scope):
        ssd = sopt.state_dict()
    strip = lambda k: k.rsplit("_", 1)[0].split(".", 1)[1]  # 'linear_3.w_0_moment1_0' -> 'w_0_moment1'
    assert len(esd) == len(ssd) == 16
    # same accumulators (names differ only in the layers' counters), same values
    ev = sorted((strip(k), k.split(".")[0]) for k in esd)
    sv = sorted((strip(k), k.split(".")[0]) for k in ssd)
    assert [a for a, _ in ev] == [a for a, _ in sv]
    for (ek, et), (sk, st) in zip(sorted(esd.items(), key=lambda kv: kv[0]), sorted(ssd.items(), key=lambda kv: kv[0])):
        np.testing.assert_array_equal(et.numpy(), st.numpy())
    # set_state_dict writes into the scope
    with paddle.static.scope_guard(scope):
        zeros = {k: np.zeros_like(v.numpy()) for k, v in ssd.items()}
        sopt.set_state_dict(zeros)
        again = sopt.state_dict()
    assert all(not np.any(v.numpy()) for v in again.values())


def test_minimize_twice_with_startup_program_argument():
    """minimize(loss, startup_program=...) puts the initializers into that program."""
    paddle.enable_static()
    try:
        main, startup, other = paddle.static.Program(), paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 6], "float32")
            loss = paddle.mean(paddle.nn.Linear(6, 1)(x))
        opt = O.Momentum(0.1)
        ops, _ = opt.minimize(loss, startup_program=other)
        out = {n for op in other.global_block().ops for n in op.output_arg_names}
        assert any(n.endswith("_velocity_0") for n in out)
        assert ops and ops[0].type == "momentum_"
    finally:
        paddle.disable_static()
