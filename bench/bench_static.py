"""Static programs: the seed MLP train step (seed E1's network, batch 32, Adam, cross-entropy)
through Executor.run against our own eager step and against real PaddlePaddle 2.6.2's static
step, and the executor's overhead per op (a program of 1000 tiny elementwise ops on [4]).
Each side runs in its own process, alternating rounds (bench/harness.py); real Paddle lives in
a separate virtual environment (.venv-paddle-ref, made here on first use), never in ours.
Prints times and ratios (below 1: ours is faster)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import cpu_name, fmt, run_child, timeit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_VENV = os.path.join(ROOT, ".venv-paddle-ref")
N_TINY = 1000


def _ref_python():
    py = os.path.join(REF_VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", REF_VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "paddlepaddle==2.6.2"], check=True)
    return py


def _mlp_static(paddle, batch):
    import numpy as np
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 1, 28, 28], "float32")
        lab = paddle.static.data("lab", [None, 1], "int64")
        net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                                   paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
        loss = paddle.nn.functional.cross_entropy(net(x), lab)
        paddle.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    feed = {"x": rng.random((batch, 1, 28, 28), dtype=np.float32),
            "lab": rng.integers(0, 10, (batch, 1)).astype("int64")}
    return lambda: exe.run(main, feed=feed, fetch_list=[loss])


def _mlp_eager(paddle, batch):
    import numpy as np
    net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                               paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.random((batch, 1, 28, 28), dtype=np.float32))
    lab = paddle.to_tensor(rng.integers(0, 10, (batch, 1)).astype("int64"))

    def step():
        loss = paddle.nn.functional.cross_entropy(net(x), lab)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss.numpy()
    return step


def _tiny(paddle):
    import numpy as np
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4], "float32")
        y = x
        for i in range(N_TINY):
            y = paddle.add(y, x) if i % 2 == 0 else paddle.multiply(y, x)
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {"x": np.full([4], 1.0001, "float32")}
    return lambda: exe.run(main, feed=feed, fetch_list=[y])


def child(side):
    import paddle
    out = {}
    for batch in (32, 128):
        if side == "eager":
            out[f"mlp{batch}"] = timeit(_mlp_eager(paddle, batch), min_time=0.3)
        else:
            out[f"mlp{batch}"] = timeit(_mlp_static(paddle, batch), min_time=0.3)
            paddle.disable_static()
    if side != "eager":
        out["tiny"] = timeit(_tiny(paddle), min_time=0.3) / N_TINY
    print(json.dumps(out))


def main(rounds=3):
    ref = _ref_python()
    me = os.path.abspath(__file__)
    sides = {"static": [sys.executable, me, "--child", "static"], "eager": [sys.executable, me, "--child", "eager"],
             "ref": [ref, me, "--child", "ref"]}
    res = {k: [] for k in sides}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(rounds):
            for k, cmd in sides.items():
                res[k].append(run_child(cmd, f"bench_static: the {k} child", d, foreign=(k == "ref")))
    best = {k: {w: min(x[w] for x in v) for w in v[0]} for k, v in res.items()}
    cpu = cpu_name()
    print(f"== static programs (separate processes, best of {rounds} rounds; CPU: {cpu}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'default')})")
    print(f"{'workload':<44}{'static':>12}{'eager':>12}{'Paddle 2.6.2':>14}{'st/eager':>10}{'st/ref':>8}  target")
    for b in (32, 128):
        w = f"mlp{b}"
        s, e, r = best["static"][w], best["eager"][w], best["ref"][w]
        print(f"{'seed MLP train step (Adam) batch ' + str(b):<44}{fmt(s):>12}{fmt(e):>12}{fmt(r):>14}"
              f"{s / e:>10.2f}{s / r:>8.2f}  <= 1.0 eager, <= 0.5 ref")
    s, r = best["static"]["tiny"], best["ref"]["tiny"]
    print(f"{'executor overhead per tiny op ([4] add/mul)':<44}{fmt(s):>12}{'':>12}{fmt(r):>14}{'':>10}"
          f"{s / r:>8.2f}  <= 1 us")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
