"""GPU benchmarks of issue 22, Paddle-C against the PyTorch installed beside it, each framework in its
own child process, alternating (rounds), medians printed with the ratio Paddle-C / PyTorch (below 1:
Paddle-C faster). Workloads: eager launch overhead (`c = a + b` on [64] float32 tensors), the seed MLP
training step (Linear 784-512-512-10, ReLU, cross_entropy, Adam; batch 128), and a GEMM (8192^3
through matmul, float32 with TF32 as each framework's default, and bfloat16) against the floor
counted from its flops. Needs a GPU; prints 'no GPU' and exits 0 without one.
Usage: python bench/bench_cuda.py [--rounds N] [--only name,...]"""
import json
import os
import statistics
import subprocess
import sys

CHILD = r'''
import json, sys, time
fw, names = sys.argv[1], sys.argv[2].split(",")
if fw == "paddle":
    import paddle as P
    import paddle.nn.functional as F
    P.set_device("gpu")
    def sync(): P.device.cuda.synchronize()
    def t(a): return P.to_tensor(a, place="gpu")
    def rand(*s, dtype="float32"): return P.randn(list(s)).astype(dtype)
    mm = P.matmul
else:
    import torch as P
    import torch.nn.functional as F
    dev = "cuda"
    def sync(): P.cuda.synchronize()
    def rand(*s, dtype="float32"): return P.randn(*s, device=dev, dtype=getattr(P, dtype))
    mm = P.matmul

def bench(fn, warm=3, reps=7, inner=1):
    for _ in range(warm): fn()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner): fn()
        sync()
        ts.append((time.perf_counter() - t0) / inner)
    ts.sort()
    return ts[len(ts) // 2]

res = {}
if "add" in names:
    a, b = rand(64), rand(64)
    def f():
        for _ in range(100): c = a + b
    res["add"] = bench(f, inner=20) / 100
if "mlp" in names:
    if fw == "paddle":
        net = P.nn.Sequential(P.nn.Linear(784, 512), P.nn.ReLU(), P.nn.Linear(512, 512), P.nn.ReLU(), P.nn.Linear(512, 10))
        opt = P.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
        x, y = rand(128, 784), P.randint(0, 10, [128, 1])
        def step():
            loss = F.cross_entropy(net(x), y); loss.backward(); opt.step(); opt.clear_grad()
    else:
        net = P.nn.Sequential(P.nn.Linear(784, 512), P.nn.ReLU(), P.nn.Linear(512, 512), P.nn.ReLU(), P.nn.Linear(512, 10)).cuda()
        opt = P.optim.Adam(net.parameters(), lr=1e-3)
        x, y = rand(128, 784), P.randint(0, 10, (128,), device=dev)
        def step():
            loss = F.cross_entropy(net(x), y); loss.backward(); opt.step(); opt.zero_grad()
    res["mlp"] = bench(step, warm=5, reps=7, inner=20)
for dt in ("float32", "bfloat16"):
    key = "gemm_" + dt
    if key in names:
        n = 8192
        a, b = rand(n, n, dtype=dt), rand(n, n, dtype=dt)
        res[key] = bench(lambda: mm(a, b), warm=2, reps=5, inner=5)
print("RESULT " + json.dumps(res))
'''

WORK = {"add": "c = a + b, [64] fp32 (us/op)", "mlp": "seed MLP train step b128 (ms)",
        "gemm_float32": "GEMM 8192^3 fp32 (ms)", "gemm_bfloat16": "GEMM 8192^3 bf16 (ms)"}
SCALE = {"add": 1e6, "mlp": 1e3, "gemm_float32": 1e3, "gemm_bfloat16": 1e3}


def run(fw, names, py):
    env = dict(os.environ)
    r = subprocess.run([py, "-c", CHILD, fw, ",".join(names)], capture_output=True, text=True, env=env, timeout=600)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    sys.stderr.write(f"[{fw}] failed:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}\n")
    return {}


def main():
    args = sys.argv[1:]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    names = args[args.index("--only") + 1].split(",") if "--only" in args else list(WORK)
    py = os.environ.get("TORCH_PY", sys.executable)
    probe = subprocess.run([sys.executable, "-c", "import paddle; print(paddle.device.cuda.device_count())"],
                           capture_output=True, text=True)
    if probe.stdout.strip() in ("", "0"):
        print("no GPU: skipped", probe.stderr[-500:])
        return
    got = {"paddle": {k: [] for k in names}, "torch": {k: [] for k in names}}
    for _ in range(rounds):
        for fw in ("paddle", "torch"):
            r = run(fw, names, sys.executable if fw == "paddle" else py)
            for k, v in r.items():
                got[fw][k].append(v)
    print(f"{'workload':36s} {'Paddle-C':>10s} {'PyTorch':>10s} {'ratio':>7s}")
    for k in names:
        p, t = got["paddle"][k], got["torch"][k]
        if not p or not t:
            print(f"{WORK[k]:36s} {'fail' if not p else '':>10s} {'fail' if not t else '':>10s}")
            continue
        pm, tm = statistics.median(p) * SCALE[k], statistics.median(t) * SCALE[k]
        extra = ""
        if k.startswith("gemm"):
            fl = 2 * 8192 ** 3
            extra = f"  ({fl / (pm / 1e3) / 1e12:.0f} vs {fl / (tm / 1e3) / 1e12:.0f} TFLOP/s)"
        print(f"{WORK[k]:36s} {pm:10.3f} {tm:10.3f} {pm / tm:7.2f}{extra}")


if __name__ == "__main__":
    main()
