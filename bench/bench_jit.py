"""paddle.jit.to_static: the seed MLP train step (seed E1's network, Adam, cross-entropy; the loss and
optimizer step in dygraph, the network a to_static program) against our own eager step and against
real PaddlePaddle 2.6.2's to_static step (AST mode, full_graph=True), and the time of the first call
of a to_static model (conversion + tracing + planning + one run with gradients) for the seed MLP and
a ResNet-18 (batch 1, 64x64). Each side runs in its own process, alternating rounds; real Paddle is
the oracle install (/work/oracle or $PADDLE_ORACLE_PYTHON), never imported in ours.
Prints times and ratios (below 1: ours is faster)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import cpu_name, fmt, run_child, timeit  # noqa: E402

ORACLE = os.environ.get("PADDLE_ORACLE_PYTHON", "/work/oracle/bin/python")
BATCHES = (32, 128)


def _mlp(paddle):
    return paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                                paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))


def _to_static(paddle, net, side):
    if side == "ref":
        return paddle.jit.to_static(net, full_graph=True)
    return paddle.jit.to_static(net)


def _train_step(paddle, side, batch):
    import numpy as np
    paddle.seed(0)
    net = _mlp(paddle)
    if side != "eager":
        net = _to_static(paddle, net, side)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.random((batch, 1, 28, 28), dtype=np.float32))
    lab = paddle.to_tensor(rng.integers(0, 10, (batch, 1)).astype("int64"))

    def step():
        loss = paddle.nn.functional.cross_entropy(net(x), lab)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)
    return step


def _first_call(paddle, side, make, shape):
    import time
    x = paddle.rand(shape)
    net = make()
    t0 = time.perf_counter()
    net = _to_static(paddle, net, side)
    out = net(x)
    float(out.sum())
    return time.perf_counter() - t0


def child(side):
    import numpy.random  # noqa: F401  (the oracle build segfaults importing it after paddle)
    import paddle
    out = {}
    if side in ("jit", "ref"):
        out["first_mlp"] = _first_call(paddle, side, lambda: _mlp(paddle), [1, 1, 28, 28])
        out["first_resnet18"] = _first_call(paddle, side, lambda: paddle.vision.models.resnet18(num_classes=10),
                                            [1, 3, 64, 64])
    for b in BATCHES:
        out[f"mlp{b}"] = timeit(_train_step(paddle, side, b), min_time=0.3)
    print(json.dumps(out))


def main(rounds=int(os.environ.get("BENCH_JIT_ROUNDS", "3"))):
    me = os.path.abspath(__file__)
    sides = {"jit": [sys.executable, me, "--child", "jit"], "eager": [sys.executable, me, "--child", "eager"]}
    if os.access(ORACLE, os.X_OK):
        sides["ref"] = [ORACLE, me, "--child", "ref"]
    res = {k: [] for k in sides}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(rounds):
            for k, cmd in sides.items():
                res[k].append(run_child(cmd, f"bench_jit: the {k} child", d, foreign=(k == "ref")))
    best = {k: {w: min(x[w] for x in v) for w in v[0]} for k, v in res.items()}
    ref = best.get("ref", {})
    cpu = cpu_name()
    print(f"== paddle.jit.to_static (separate processes, best of {rounds} rounds; CPU: {cpu} x {os.cpu_count()}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'default')})")
    print(f"{'workload':<46}{'to_static':>12}{'eager':>12}{'Paddle 2.6.2':>14}{'jit/eager':>10}{'jit/ref':>8}  target")
    for b in BATCHES:
        w = f"mlp{b}"
        s, e, r = best["jit"][w], best["eager"][w], ref.get(w)
        print(f"{'seed MLP train step (Adam) batch ' + str(b):<46}{fmt(s):>12}{fmt(e):>12}"
              f"{fmt(r) if r else '-':>14}{s / e:>10.2f}{(s / r if r else float('nan')):>8.2f}  <= 1.0 eager, <= 0.5 ref")
    for w, name in (("first_mlp", "first call: seed MLP (convert+trace+run)"),
                    ("first_resnet18", "first call: ResNet-18 1x3x64x64")):
        s, r = best["jit"][w], ref.get(w)
        print(f"{name:<46}{fmt(s):>12}{'':>12}{fmt(r) if r else '-':>14}{'':>10}"
              f"{(s / r if r else float('nan')):>8.2f}  < 1 s")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
