"""paddle.optimizer.lr: every scheduler's learning-rate sequence against its formula, state_dict
round trips and argument errors."""
import math

import numpy as np
import pytest

from paddle.optimizer import lr as L

N = 12


def _seq(s, n=N):
    out = []
    for _ in range(n):
        out.append(s())
        s.step()
    return out


def _check(s, f, n=N):
    np.testing.assert_allclose(_seq(s, n), [f(e) for e in range(n)], rtol=1e-12, atol=1e-15)


def test_noam():
    _check(L.NoamDecay(d_model=64, warmup_steps=4, learning_rate=2.0),
           lambda e: 2.0 * 64 ** -0.5 * min(1 if e == 0 else e ** -0.5, 4 ** -1.5 * e))


def test_piecewise():
    _check(L.PiecewiseDecay([3, 6], [1.0, 0.5, 0.1]), lambda e: 1.0 if e < 3 else 0.5 if e < 6 else 0.1)


def test_natural_exp_inverse_time_exponential():
    _check(L.NaturalExpDecay(0.5, gamma=0.1), lambda e: 0.5 * math.exp(-0.1 * e))
    _check(L.InverseTimeDecay(0.5, gamma=0.1), lambda e: 0.5 / (1 + 0.1 * e))
    _check(L.ExponentialDecay(0.5, gamma=0.9), lambda e: 0.5 * 0.9 ** e)


@pytest.mark.parametrize("cycle", [False, True])
def test_polynomial(cycle):
    def f(e):
        steps = 5
        if cycle:
            steps = 5 * (1 if e == 0 else math.ceil(e / 5))
        else:
            e = min(e, 5)
        return (0.1 - 0.001) * (1 - e / steps) ** 2.0 + 0.001
    _check(L.PolynomialDecay(0.1, decay_steps=5, end_lr=0.001, power=2.0, cycle=cycle), f)


def test_linear_warmup_float_and_scheduler():
    _check(L.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5),
           lambda e: 0.5 * e / 4 if e < 4 else 0.5)
    _check(L.LinearWarmup(L.ExponentialDecay(0.5, 0.9), warmup_steps=4, start_lr=0.1, end_lr=0.5),
           lambda e: 0.1 + 0.4 * e / 4 if e < 4 else 0.5 * 0.9 ** (e - 4))


def test_multistep_step_lambda_multiplicative():
    _check(L.MultiStepDecay(1.0, milestones=[2, 5, 9], gamma=0.5),
           lambda e: 0.5 ** sum(e >= m for m in (2, 5, 9)))
    _check(L.StepDecay(1.0, step_size=3, gamma=0.5), lambda e: 0.5 ** (e // 3))
    _check(L.LambdaDecay(1.0, lambda e: 0.95 ** e), lambda e: 0.95 ** e)
    _check(L.MultiplicativeDecay(1.0, lambda e: 0.9), lambda e: 0.9 ** e)


def test_cosine_annealing():
    s = L.CosineAnnealingDecay(1.0, T_max=5, eta_min=0.1)
    got = _seq(s, 11)
    closed = [0.1 + 0.9 * (1 + math.cos(math.pi * e / 5)) / 2 for e in range(11)]
    np.testing.assert_allclose(got, closed, rtol=1e-9, atol=1e-12)
    s.step(3)
    assert s() == pytest.approx(closed[3])


def test_reduce_on_plateau():
    s = L.ReduceOnPlateau(1.0, mode="min", factor=0.5, patience=1, cooldown=1, min_lr=0.1)
    lrs = []
    for m in [5, 4, 4, 4, 4, 4, 4, 4, 4, 4]:
        s.step(m)
        lrs.append(s())
    # improvement at 5, 4; bad epochs: 1, 2 (> patience -> halve, cooldown 1), ...
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125]
    s2 = L.ReduceOnPlateau(1.0, mode="max", threshold_mode="abs", threshold=0.5, patience=0)
    s2.step(1.0)
    s2.step(1.4)  # not better by 0.5
    assert s2() == pytest.approx(0.1)
    with pytest.raises(ValueError):
        L.ReduceOnPlateau(1.0, factor=2.0)
    with pytest.raises(ValueError):
        L.ReduceOnPlateau(1.0, mode="middle")


def test_one_cycle():
    total = 10
    s = L.OneCycleLR(max_learning_rate=1.0, total_steps=total, divide_factor=10.0,
                     end_learning_rate=0.001, phase_pct=0.3)
    start = [0, 0.3 * total - 1, total - 1]
    cfg = [0.1, 1.0, 0.001]

    def f(e):
        i = 0 if e <= start[1] else 1
        pct = (e - start[i]) / (start[i + 1] - start[i])
        return cfg[i + 1] + (cfg[i] - cfg[i + 1]) / 2 * (math.cos(math.pi * pct) + 1)
    _check(s, f, n=total)
    lin = L.OneCycleLR(1.0, total, anneal_strategy="linear", three_phase=True)
    assert _seq(lin, 1)[0] == pytest.approx(1.0 / 25)


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
def test_cyclic(mode):
    s = L.CyclicLR(0.1, 1.0, step_size_up=2, step_size_down=3, mode=mode, exp_gamma=0.9)

    def f(e):
        cycle = 1 + e // 5
        pct = 1.0 + e / 5 - cycle
        scale = pct / 0.4 if pct <= 0.4 else (1 - pct) / 0.6
        fn = {"triangular": 1.0, "triangular2": 1 / 2.0 ** (cycle - 1), "exp_range": 0.9 ** e}[mode]
        return 0.1 + 0.9 * scale * fn
    _check(s, f, n=15)


def test_state_dict_round_trip():
    a = L.LinearWarmup(L.StepDecay(1.0, 2), warmup_steps=2, start_lr=0.0, end_lr=1.0)
    _seq(a, 5)
    sd = a.state_dict()
    assert sd["last_epoch"] == 5 and "LinearWarmup_LR" in sd
    b = L.LinearWarmup(L.StepDecay(1.0, 2), warmup_steps=2, start_lr=0.0, end_lr=1.0)
    b.set_state_dict(sd)
    assert _seq(a, 6) == _seq(b, 6)
    r = L.ReduceOnPlateau(1.0)
    r.step(3.0)
    assert set(r.state_dict()) == {"cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"}


def test_bad_arguments():
    with pytest.raises(TypeError):
        L.ExponentialDecay("0.1", 0.9)
    with pytest.raises(TypeError):
        L.StepDecay(0.1, step_size=1.5)
    with pytest.raises(ValueError):
        L.StepDecay(0.1, step_size=2, gamma=1.5)
    with pytest.raises(ValueError):
        L.MultiStepDecay(0.1, milestones=[5, 2])
    with pytest.raises(TypeError):
        L.LambdaDecay(0.1, lr_lambda=3)
    with pytest.raises(ValueError):
        L.PiecewiseDecay([1, 2], [0.1])
    with pytest.raises(ValueError):
        L.OneCycleLR(1.0, 10, anneal_strategy="square")
    s = L.OneCycleLR(1.0, 3)
    with pytest.raises(ValueError):
        for _ in range(5):
            s.step()
