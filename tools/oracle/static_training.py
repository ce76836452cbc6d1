"""Static-mode training and metrics against real PaddlePaddle (the oracle): the same script runs
on both sides and prints JSON; tools/oracle/static_training.json holds the oracle's output
(Paddle 2.6.2, CPU), which tests/python/test_static_oracle.py compares ours with. Covered:
static Adam (+ ClipGradByGlobalNorm, L2Decay) and Momentum with a StepDecay scheduler from fixed
initial weights, paddle.static.accuracy, paddle.static.auc (global and sliding window) and
ExponentialMovingAverage.apply. Not part of the test suite's imports (the project never imports
real Paddle):

    cd /tmp && /work/oracle/bin/python /path/to/static_training.py > static_training.json
    PYTHONPATH=/path/to/repo/python python3 /path/to/static_training.py
"""
import json

import numpy as np

import paddle


def _mlp_weights():
    rng = np.random.RandomState(7)
    return [(rng.randn(6, 8) * 0.4).astype("float32"), (rng.randn(8) * 0.1).astype("float32"),
            (rng.randn(8, 3) * 0.4).astype("float32"), (rng.randn(3) * 0.1).astype("float32")]


def _batches(n):
    rng = np.random.RandomState(3)
    return [(rng.randn(10, 6).astype("float32"), rng.randint(0, 3, (10, 1)).astype("int64")) for _ in range(n)]


def train(kind):
    main, startup = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.program_guard(main, startup), paddle.static.scope_guard(scope):
        x = paddle.static.data("x", [None, 6], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        l1, l2 = paddle.nn.Linear(6, 8), paddle.nn.Linear(8, 3)
        loss = paddle.nn.functional.cross_entropy(l2(paddle.tanh(l1(x))), y)
        sched = None
        if kind == "adam":
            opt = paddle.optimizer.Adam(0.01, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5),
                                        weight_decay=paddle.regularizer.L2Decay(0.01))
        else:
            sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
            opt = paddle.optimizer.Momentum(sched, momentum=0.9)
        opt.minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        for p, w in zip([l1.weight, l1.bias, l2.weight, l2.bias], _mlp_weights()):
            scope.find_var(p.name).get_tensor().set(w, paddle.CPUPlace())
        losses = []
        for xb, yb in _batches(6):
            losses.append(float(np.array(exe.run(main, feed={"x": xb, "y": yb}, fetch_list=[loss])[0]).reshape(-1)[0]))
            if sched is not None:
                sched.step()
        final = np.array(scope.find_var(l2.weight.name).get_tensor())
    return {"losses": losses, "w2": final.reshape(-1).tolist()}


def metrics():
    rng = np.random.RandomState(11)
    main, startup = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    out = {"acc1": [], "acc2": [], "auc": [], "batch_auc": []}
    with paddle.static.program_guard(main, startup), paddle.static.scope_guard(scope):
        p = paddle.static.data("p", [None, 2], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        a1 = paddle.static.accuracy(p, y, k=1)
        a2 = paddle.static.accuracy(p, y, k=2)
        auc, batch_auc, _ = paddle.static.auc(p, y, num_thresholds=300, slide_steps=2)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        for _ in range(4):
            Y = rng.randint(0, 2, (25, 1)).astype("int64")
            q = np.clip(rng.rand(25) * 0.7 + 0.3 * Y[:, 0], 0, 1).astype("float32")
            P = np.stack([1 - q, q], 1).astype("float32")
            r = exe.run(main, feed={"p": P, "y": Y}, fetch_list=[a1, a2, auc, batch_auc])
            for k, v in zip(("acc1", "acc2", "auc", "batch_auc"), r):
                out[k].append(float(np.array(v).reshape(-1)[0]))
    return out


def ema():
    main, startup = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.program_guard(main, startup), paddle.static.scope_guard(scope):
        x = paddle.static.data("x", [None, 6], "float32")
        lin = paddle.nn.Linear(6, 2)
        loss = paddle.mean(lin(x) ** 2)
        paddle.optimizer.SGD(0.1).minimize(loss)
        e = paddle.static.ExponentialMovingAverage(0.9)
        e.update()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        scope.find_var(lin.weight.name).get_tensor().set(_mlp_weights()[0][:, :2].copy(), paddle.CPUPlace())
        scope.find_var(lin.bias.name).get_tensor().set(np.zeros(2, "float32"), paddle.CPUPlace())
        for xb, _ in _batches(4):
            exe.run(main, feed={"x": xb})
        with e.apply(exe):
            applied = np.array(scope.find_var(lin.weight.name).get_tensor())
        restored = np.array(scope.find_var(lin.weight.name).get_tensor())
    return {"applied": applied.reshape(-1).tolist(), "restored": restored.reshape(-1).tolist()}


if __name__ == "__main__":
    paddle.enable_static()
    print(json.dumps({"adam": train("adam"), "momentum_sched": train("momentum"), "metrics": metrics(),
                      "ema": ema()}, indent=1))
