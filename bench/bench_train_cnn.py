"""CNN training benchmark (issue 21): paddle.vision.models' ResNet-50 and MobileNetV3 training steps
against the same architectures in PyTorch with the same weights, 2 threads.

Rows (one training step = forward, cross-entropy loss, backward, Momentum/SGD step, clear grads):
  r50        ResNet-50, batch 16, 224x224, float32
  r50_bf16   the same under paddle.amp.auto_cast(dtype='bfloat16') / torch.autocast('cpu', bfloat16)
  r50_eval   ResNet-50 inference, batch 1: eval mode, forward under no_grad (eager, both sides)
  mbv3l      MobileNetV3 large, batch 32, 224x224, float32
  mbv3s      MobileNetV3 small, batch 32, 224x224, float32
torchvision is not required: the PyTorch models are built here by hand in the registration order
of paddle.vision.models' layers (conv/bn/act/SE/hardswish/dropout/fc as Paddle builds them), and
the Paddle model's initial parameters are copied into them (Linear weights transposed), so both
sides start from identical weights. Before timing, each child runs one training-mode forward and
backward (dropout off) and reports the loss, |logits| and the first conv's weight-gradient norm;
the parent checks both frameworks agree (1e-3 relative, 3e-2 under bfloat16).
Each workload runs in its own child process per framework (its peak RSS, ru_maxrss, is that
workload's), alternately paddle / torch for BENCH_CNN_ROUNDS rounds (default 2); the best step of
each side over all rounds counts. PyTorch's side of a bf16 row runs only where the CPU has bf16
units (avx512_bf16 / amx_bf16) or BENCH_CNN_TORCH_BF16=1: without them its bf16 convolutions take
~11x its float32 time (ResNet-50: ~115 s a step on the AVX2 EPYC), and the row's ratios are then
to PyTorch's float32 row. BENCH_CNN_BATCH overrides the batch (smoke runs). BENCH_CNN_ONLY=r50,mbv3l picks workloads; BENCH_CNN_ALT=
"NAME=VALUE[,...]" adds a third side: Paddle-C with those environment variables (an A/B toggle).
PyTorch runs in BENCH_TORCH_PY (else /work/bench_venv/bin/python or a .bench_venv), without our
PYTHONPATH. Columns: best wall time per step, ratio to PyTorch (the target: <= 0.8), best process
CPU time per step, peak RSS and its ratio. The header names the instruction-set paths that ran.
Run: PYTHONPATH=python .venv/bin/python bench/bench_train_cnn.py"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import cpu_bf16_units, fmt, run_child  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_CNN_ROUNDS", "2"))
WORKLOADS = {  # name: (model, batch, bfloat16 auto_cast, timed steps)
    "r50": ("resnet50", 16, False, 4),
    "r50_bf16": ("resnet50", 16, True, 4),
    "mbv3l": ("mbv3_large", 32, False, 3),
    "mbv3s": ("mbv3_small", 32, False, 3),
    "r50_eval": ("resnet50", 1, False, 10),
}
EVAL = {"r50_eval"}  # inference rows: eval mode, forward only under no_grad (issue 21's "ResNet-50 inference b1")
LABELS = {"r50": "ResNet-50 train step b16 224 fp32",
          "r50_bf16": "ResNet-50 train step b16 224 bf16 auto_cast",
          "mbv3l": "MobileNetV3-large train step b32 224 fp32",
          "mbv3s": "MobileNetV3-small train step b32 224 fp32",
          "r50_eval": "ResNet-50 inference b1 224 fp32 (eval)"}
CLASSES = 1000


def data(B):
    B = int(os.environ.get("BENCH_CNN_BATCH", B))  # a smaller batch for a quick smoke run
    rng = np.random.default_rng(0)
    return rng.normal(size=(B, 3, 224, 224)).astype("float32"), rng.integers(0, CLASSES, (B,)).astype("int64")


def measure(step, reps):
    """(best wall-clock seconds, best process CPU seconds) per step (the check's forward and backward
    before it built the primitives; the first step also creates the optimizer's accumulators)"""
    wall, cpu = [], []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)


# ---------------------------------------------------------------- Paddle-C
def paddle_model(kind):
    import paddle
    from paddle.vision import models
    paddle.seed(0)
    if kind == "resnet50":
        return models.resnet50()
    return models.mobilenet_v3_large() if kind == "mbv3_large" else models.mobilenet_v3_small()


def child_paddle(name, kind, B, bf16, reps):
    import paddle
    import paddle.nn.functional as F
    model = paddle_model(kind)
    X, Y = data(B)
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    if name in EVAL:
        model.eval()

        def infer():
            with paddle.no_grad():
                return model(x)
        out = infer()
        infer()
        return measure(infer, reps), {"out": float(np.abs(out.numpy()).mean())}
    drop = getattr(model, "dropout", None)
    if drop is not None:
        drop.p = 0.0

    def fwd_loss():
        if bf16:
            with paddle.amp.auto_cast(dtype="bfloat16"):
                out = model(x)
            return out, F.cross_entropy(out.astype("float32"), y)
        out = model(x)
        return out, F.cross_entropy(out, y)

    model.train()
    out, loss = fwd_loss()
    loss.backward()
    check = {"loss": float(loss.numpy().reshape(-1)[0]), "out": float(np.abs(out.astype("float32").numpy()).mean()),
             "gconv": float(np.linalg.norm(model.parameters()[0].grad.numpy()))}
    if drop is not None:
        drop.p = 0.2
    opt = paddle.optimizer.Momentum(learning_rate=1e-3, momentum=0.9, parameters=model.parameters())
    opt.clear_grad()

    def step():
        _, loss = fwd_loss()
        loss.backward()
        opt.step()
        opt.clear_grad()

    return measure(step, reps), check


# ---------------------------------------------------------------- PyTorch, built by hand
def torch_model(kind):
    import torch
    from torch import nn

    class Bottleneck(nn.Module):
        def __init__(self, inplanes, planes, stride, downsample):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = downsample

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            return self.relu(out + identity)

    class ResNet50(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
            self.inplanes = 64
            self.layer1 = self._make(64, 3, 1)
            self.layer2 = self._make(128, 4, 2)
            self.layer3 = self._make(256, 6, 2)
            self.layer4 = self._make(512, 3, 2)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(2048, CLASSES)

        def _make(self, planes, blocks, stride):
            ds = None
            if stride != 1 or self.inplanes != planes * 4:
                ds = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, 1, stride=stride, bias=False),
                                   nn.BatchNorm2d(planes * 4))
            layers = [Bottleneck(self.inplanes, planes, stride, ds)]
            self.inplanes = planes * 4
            layers += [Bottleneck(self.inplanes, planes, 1, None) for _ in range(1, blocks)]
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    def act(a):
        return {"relu": nn.ReLU(), "hardswish": nn.Hardswish(), None: None}[a]

    class ConvBN(nn.Module):
        def __init__(self, cin, cout, k, stride, pad, groups=1, a=None):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, stride=stride, padding=pad, groups=groups, bias=False)
            self.bn = nn.BatchNorm2d(cout)
            self.act = act(a)

        def forward(self, x):
            x = self.bn(self.conv(x))
            return x if self.act is None else self.act(x)

    class SE(nn.Module):  # Paddle's gate: hardsigmoid with slope 0.2, offset 0.5
        def __init__(self, c):
            super().__init__()
            self.avg_pool = nn.AdaptiveAvgPool2d(1)
            self.conv1 = nn.Conv2d(c, c // 4, 1)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(c // 4, c, 1)

        def forward(self, x):
            g = self.conv2(self.relu(self.conv1(self.avg_pool(x))))
            return x * torch.clamp(g * 0.2 + 0.5, 0.0, 1.0)

    class IR(nn.Module):
        def __init__(self, cin, cexp, cout, k, stride, use_se, a):
            super().__init__()
            self.short = stride == 1 and cin == cout
            self.expand_conv = ConvBN(cin, cexp, 1, 1, 0, a=a)
            self.bottleneck_conv = ConvBN(cexp, cexp, k, stride, (k - 1) // 2, groups=cexp, a=a)
            self.mid_se = SE(cexp) if use_se else None
            self.linear_conv = ConvBN(cexp, cout, 1, 1, 0)

        def forward(self, x):
            y = self.bottleneck_conv(self.expand_conv(x))
            if self.mid_se is not None:
                y = self.mid_se(y)
            y = self.linear_conv(y)
            return x + y if self.short else y

    class MobileNetV3(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.conv = ConvBN(3, cfg[0][0], 3, 2, 1, a="hardswish")
            self.blocks = nn.Sequential(*[IR(c[0], c[2], c[3], c[1], c[6], c[4], c[5]) for c in cfg])
            self.last_second_conv = ConvBN(cfg[-1][3], cfg[-1][2], 1, 1, 0, a="hardswish")
            self.avg_pool = nn.AdaptiveAvgPool2d(1)
            self.last_conv = nn.Conv2d(cfg[-1][2], 1280, 1, bias=False)
            self.hardswish = nn.Hardswish()
            self.dropout = nn.Dropout(0.2)
            self.fc = nn.Linear(1280, CLASSES)

        def forward(self, x):
            x = self.avg_pool(self.last_second_conv(self.blocks(self.conv(x))))
            x = self.dropout(self.hardswish(self.last_conv(x)))
            return self.fc(torch.flatten(x, 1))

    if kind == "resnet50":
        return ResNet50()
    return MobileNetV3(_LARGE if kind == "mbv3_large" else _SMALL)


# paddle.vision.models.mobilenetv3's tables (in, kernel, expanded, out, SE, activation, stride)
_SMALL = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
          (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
          (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
          (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
          (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
          (96, 5, 576, 96, True, "hardswish", 1)]
_LARGE = [(16, 3, 16, 16, False, "relu", 1), (16, 3, 64, 24, False, "relu", 2),
          (24, 3, 72, 24, False, "relu", 1), (24, 5, 72, 40, True, "relu", 2),
          (40, 5, 120, 40, True, "relu", 1), (40, 5, 120, 40, True, "relu", 1),
          (40, 3, 240, 80, False, "hardswish", 2), (80, 3, 200, 80, False, "hardswish", 1),
          (80, 3, 184, 80, False, "hardswish", 1), (80, 3, 184, 80, False, "hardswish", 1),
          (80, 3, 480, 112, True, "hardswish", 1), (112, 3, 672, 112, True, "hardswish", 1),
          (112, 5, 672, 160, True, "hardswish", 2), (160, 5, 960, 160, True, "hardswish", 1),
          (160, 5, 960, 160, True, "hardswish", 1)]


def child_torch(name, kind, B, bf16, reps, weights):
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    model = torch_model(kind)
    params = list(model.parameters())
    if len(params) != len(weights):
        raise SystemExit(f"{kind}: {len(params)} torch parameters vs {len(weights)} Paddle ones")
    with torch.no_grad():
        for p, w in zip(params, weights):
            w = w.T if (p.dim() == 2 and w.ndim == 2) else w  # Paddle's Linear weight is [in, out]
            if tuple(p.shape) != w.shape:
                raise SystemExit(f"{kind}: shape {tuple(p.shape)} vs {w.shape}")
            p.copy_(torch.from_numpy(np.ascontiguousarray(w)))
    X, Y = data(B)
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    if name in EVAL:
        model.eval()

        def infer():
            with torch.no_grad():
                return model(x)
        out = infer()
        infer()
        return measure(infer, reps), {"out": float(out.abs().mean())}
    drop = getattr(model, "dropout", None)
    if drop is not None:
        drop.p = 0.0

    def fwd_loss():
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x)
            return out, torch.nn.functional.cross_entropy(out.float(), y)
        out = model(x)
        return out, torch.nn.functional.cross_entropy(out, y)

    model.train()
    out, loss = fwd_loss()
    loss.backward()
    check = {"loss": float(loss), "out": float(out.detach().float().abs().mean()),
             "gconv": float(params[0].grad.norm())}
    if drop is not None:
        drop.p = 0.2
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    opt.zero_grad()

    def step():
        _, loss = fwd_loss()
        loss.backward()
        opt.step()
        opt.zero_grad()

    return measure(step, reps), check


def child(side, name, wfile):
    kind, B, bf16, reps = WORKLOADS[name]
    if side == "paddle":
        (t, cpu), check = child_paddle(name, kind, B, bf16, reps)
    else:
        z = np.load(wfile)
        (t, cpu), check = child_torch(name, kind, B, bf16, reps, [z[f"w{i}"] for i in range(len(z.files))])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"t": t, "cpu": cpu, "rss": rss, "check": check}))


def dump_weights(kind, path):
    """the Paddle model's initial parameters (paddle.seed(0)), in registration order"""
    trainable = [p for p in paddle_model(kind).parameters() if not p.stop_gradient]  # not BN statistics
    np.savez(path, **{f"w{i}": p.numpy() for i, p in enumerate(trainable)})


def torch_python():
    env = os.environ.get("BENCH_TORCH_PY") or os.environ.get("TORCH_PY")
    if env:
        return env
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p in ("/work/bench_venv/bin/python", "/work/main/.bench_venv/bin/python",
              os.path.join(here, ".bench_venv", "bin", "python")):
        if os.path.exists(p):
            return p
    return sys.executable


def main():
    import paddle
    from paddle.utils.install_check import isa_summary
    script = os.path.abspath(__file__)
    tpy = torch_python()
    sides = [("paddle", sys.executable, None), ("torch", tpy, None)]
    alt = os.environ.get("BENCH_CNN_ALT")
    if alt:
        env = dict(os.environ)
        env.update(kv.split("=", 1) for kv in alt.split(","))
        sides.insert(1, (f"paddle[{alt}]", sys.executable, env))
    names = [n for n in WORKLOADS if n in os.environ.get("BENCH_CNN_ONLY", ",".join(WORKLOADS)).split(",")]
    info = paddle._C.isa_info()
    tinfo = subprocess.run([tpy, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability(), "
                            "torch.backends.mkldnn.is_available())"], capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).stdout.strip()
    units = cpu_bf16_units()
    # PyTorch's bfloat16 convolutions on a CPU without bf16 units take ~11x its float32 time (ResNet-50
    # b16: 115 s vs 8.6 s CPU per step here): its side of a bf16 row runs only when asked
    torch_bf16 = bool(units) or os.environ.get("BENCH_CNN_TORCH_BF16") == "1"
    skip = {(n, "torch") for n in names if WORKLOADS[n][2] and not torch_bf16}
    load0 = os.getloadavg()
    res = {n: {s[0]: [] for s in sides} for n in names}
    with tempfile.TemporaryDirectory() as d:
        wfiles = {}
        for n in names:
            kind = WORKLOADS[n][0]
            if kind not in wfiles:
                wfiles[kind] = os.path.join(d, kind + ".npz")
                dump_weights(kind, wfiles[kind])
        for _ in range(ROUNDS):
            for n in names:
                for label, py, env in sides:
                    side = "torch" if label == "torch" else "paddle"
                    if (n, side) in skip:
                        continue
                    res[n][label].append(run_child([py, script, "--child", side, n, wfiles[WORKLOADS[n][0]]],
                                                   label, d, env=env, foreign=(side == "torch")))
    load1 = os.getloadavg()
    print(f"== bench_train_cnn (each framework in its own process per workload, alternating rounds; best of "
          f"{ROUNDS}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; torch: {tpy})")
    print(f"   Paddle-C ISA: kernels {info['active']} (detected {info['detected']}), oneDNN {info['onednn']}, "
          f"OpenBLAS {info['openblas_core']}; CPU bf16 units: "
          f"{' '.join(units) if units else 'none (bf16 auto_cast computes in float32)'}"
          f"; torch CPU capability, mkldnn: {tinfo}")
    print(f"{'workload':<46}{'side':<28}{'time':>12}{'ratio':>7}{'CPU time':>13}{'ratio':>7}"
          f"{'peak RSS':>12}{'ratio':>7}")
    bad = []
    for n in names:
        peer = n
        if (n, "torch") in skip:  # ratios against PyTorch's float32 row, when it ran
            peer = n.replace("_bf16", "")
            print(f"{LABELS[n]:<46}{'torch':<28}  not run: no bf16 units on this CPU (BENCH_CNN_TORCH_BF16=1 runs "
                  f"it); ratios below are to PyTorch's float32 row")
            if peer not in res:
                for label, _, _ in sides[:-1]:
                    r = res[n][label]
                    print(f"{LABELS[n]:<46}{label:<28}{fmt(min(x['t'] for x in r)):>12}{'':>7}"
                          f"{fmt(min(x['cpu'] for x in r)):>13}{'':>7}{max(x['rss'] for x in r) / 2**20:>8.0f} MiB")
                continue
        tt = min(r["t"] for r in res[peer]["torch"])
        ct = min(r["cpu"] for r in res[peer]["torch"])
        rt = max(r["rss"] for r in res[peer]["torch"])
        for label, _, _ in sides:
            if (n, label) in skip:
                continue
            t = min(r["t"] for r in res[n][label])
            c = min(r["cpu"] for r in res[n][label])
            rss = max(r["rss"] for r in res[n][label])
            print(f"{LABELS[n]:<46}{label:<28}{fmt(t):>12}{t / tt:>7.2f}{fmt(c):>13}{c / ct:>7.2f}"
                  f"{rss / 2**20:>8.0f} MiB{rss / rt:>7.2f}", flush=True)
        cp, ctk = res[n]["paddle"][0]["check"], res[peer]["torch"][0]["check"]
        tol = 3e-2 if WORKLOADS[n][2] else 1e-3
        for k in cp:
            rel = abs(cp[k] - ctk[k]) / max(abs(ctk[k]), 1e-12)
            if rel > tol:
                bad.append(f"{n}: Paddle-C and PyTorch disagree on {k}: {cp[k]} vs {ctk[k]} (rel {rel:.2e})")
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} "
          f"{load1[1]:.2f} {load1[2]:.2f}; uptime: "
          f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    if bad:
        sys.exit("\n".join(bad))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main()
