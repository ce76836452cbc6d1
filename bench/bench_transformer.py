"""Transformer training benchmark (issue 21): paddle.nn.TransformerEncoder against
torch.nn.TransformerEncoder (batch_first, the same weights), float32, 2 threads.

Rows:
  step  2 layers, d_model 256, 4 heads, ffn 1024, B16 T64, dropout 0.1: one training step
        (forward, MSE loss, backward, Adam step, clear grads)
  step_bf16  the same step with the forward under paddle.amp.auto_cast(dtype='bfloat16') against
        torch.autocast('cpu', dtype=torch.bfloat16) (the loss in float32)
  bert  4 layers, d_model 768, 12 heads, ffn 3072, B8 T128, dropout 0.1: forward + backward
        (loss, backward; no optimizer step)
  bert_bf16  the same with the forward under bf16 auto_cast / torch.autocast (as step_bf16)
Each workload runs in its own child process per framework (so each child's peak RSS is that
workload's), alternately paddle / torch for BENCH_XFMR_ROUNDS rounds; the best repeat of each side
over all rounds counts. PyTorch runs in its own interpreter (BENCH_TORCH_PY, else
/work/main/.bench_venv/bin/python or ./.bench_venv/bin/python, else this interpreter), started
without our PYTHONPATH. BENCH_XFMR_ALT="NAME=VALUE[,NAME=VALUE]" adds a third side: Paddle-C with
those environment variables set (an A/B toggle of a new code path in the same run).
On a CPU without bf16 units (avx512_bf16 / amx_bf16) PyTorch's side of a bf16 row runs its float32
step instead (its emulated bf16 took minutes per BERT step on an AVX2 EPYC, which would flatter
ours; ours computes in float32 there): BENCH_XFMR_TORCH_BF16=1 runs its bf16 anyway.
Columns: best wall-clock time per step (the target), best process CPU time per step (all threads:
less disturbed by a loaded machine, but it counts OpenMP threads spinning at barriers), peak RSS.
Before timing, each child computes the eval-mode (no dropout) output and loss gradient norms of the
shared weights; the parent checks the two frameworks agree.
Run: PYTHONPATH=python .venv/bin/python bench/bench_transformer.py"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from harness import cpu_bf16_units, fmt, run_child, timeit  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_XFMR_ROUNDS", "3"))
WORKLOADS = {  # name: (layers, d_model, heads, ffn, batch, seq, optimizer step, timeit repeats)
    "step": (2, 256, 4, 1024, 16, 64, True, 7),
    "step_bf16": (2, 256, 4, 1024, 16, 64, True, 7),
    "bert": (4, 768, 12, 3072, 8, 128, False, 3),
    "bert_bf16": (4, 768, 12, 3072, 8, 128, False, 3),
}
LABELS = {"step": "TransformerEncoder 2L d256 h4 ffn1024 B16 T64 train step",
          "step_bf16": "  same, bf16 auto_cast (forward)",
          "bert": "BERT-shaped 4L d768 h12 ffn3072 B8 T128 fwd+bwd",
          "bert_bf16": "  same, bf16 auto_cast (forward)"}


def bf16(name):
    """the bf16 rows: the forward under paddle.amp.auto_cast(dtype='bfloat16') / torch.autocast('cpu',
    dtype=torch.bfloat16), the loss in float32 (the check then allows bfloat16's precision, 3e-2)"""
    return name.endswith("_bf16")


def weights(L, d, ff):
    rng = np.random.default_rng(1)
    u = lambda *s: rng.uniform(-0.08, 0.08, s).astype("float32")  # noqa: E731
    return [{"q": u(d, d), "k": u(d, d), "v": u(d, d), "o": u(d, d), "qb": u(d), "kb": u(d), "vb": u(d),
             "ob": u(d), "w1": u(d, ff), "b1": u(ff), "w2": u(ff, d), "b2": u(d),
             "g1": 1 + u(d), "n1": u(d), "g2": 1 + u(d), "n2": u(d)} for _ in range(L)]


def data(B, T, d):
    rng = np.random.default_rng(0)
    return rng.normal(size=(B, T, d)).astype("float32"), rng.normal(size=(B, T, d)).astype("float32")


def child_paddle(name, L, d, h, ff, B, T, opt_step, reps):
    import paddle
    enc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(d, h, ff, dropout=0.1), L)
    for lay, w in zip(enc.layers, weights(L, d, ff)):
        a = lay.self_attn
        for p, key in ((a.q_proj, "q"), (a.k_proj, "k"), (a.v_proj, "v"), (a.out_proj, "o")):
            p.weight.set_value(w[key])  # Paddle's Linear weight is [in, out]
            p.bias.set_value(w[key + "b"])
        lay.linear1.weight.set_value(w["w1"])
        lay.linear1.bias.set_value(w["b1"])
        lay.linear2.weight.set_value(w["w2"])
        lay.linear2.bias.set_value(w["b2"])
        lay.norm1.weight.set_value(w["g1"])
        lay.norm1.bias.set_value(w["n1"])
        lay.norm2.weight.set_value(w["g2"])
        lay.norm2.bias.set_value(w["n2"])
    X, Y = data(B, T, d)
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    import warnings
    warnings.simplefilter("ignore")  # auto_cast's note on a CPU without bf16 units
    amp = paddle.amp.auto_cast(enable=bf16(name), dtype="bfloat16")

    def fwd():
        with amp:
            out = enc(x)
        return out, paddle.nn.functional.mse_loss(out if out.dtype == paddle.float32 else out.astype("float32"), y)

    enc.eval()
    out, loss = fwd()
    loss.backward()
    check = {"out": float(np.abs(out.astype("float32").numpy()).sum()), "loss": float(loss.numpy().reshape(-1)[0]),
             "gw1": float(np.linalg.norm(enc.layers[0].linear1.weight.grad.numpy())),
             "gq": float(np.linalg.norm(enc.layers[0].self_attn.q_proj.weight.grad.numpy()))}
    enc.train()
    opt = paddle.optimizer.Adam(learning_rate=1e-4, parameters=enc.parameters())
    opt.clear_grad()

    def step():
        _, loss = fwd()
        loss.backward()
        if opt_step:
            opt.step()
        opt.clear_grad()

    return measure(step, reps), check


def measure(step, reps):
    """(best wall-clock seconds, best process CPU seconds) per step"""
    wall = timeit(step, min_time=0.05, repeats=reps, reduce=min)
    cpu = []
    for _ in range(reps):
        c = time.process_time()
        step()
        cpu.append(time.process_time() - c)
    return wall, min(cpu)


def child_torch(name, L, d, h, ff, B, T, opt_step, reps):
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(d, h, ff, dropout=0.1, batch_first=True),
                                      L, enable_nested_tensor=False)
    with torch.no_grad():
        for lay, w in zip(enc.layers, weights(L, d, ff)):
            a = lay.self_attn
            a.in_proj_weight.copy_(torch.tensor(np.concatenate([w["q"].T, w["k"].T, w["v"].T])))
            a.in_proj_bias.copy_(torch.tensor(np.concatenate([w["qb"], w["kb"], w["vb"]])))
            a.out_proj.weight.copy_(torch.tensor(w["o"].T))
            a.out_proj.bias.copy_(torch.tensor(w["ob"]))
            lay.linear1.weight.copy_(torch.tensor(w["w1"].T))
            lay.linear1.bias.copy_(torch.tensor(w["b1"]))
            lay.linear2.weight.copy_(torch.tensor(w["w2"].T))
            lay.linear2.bias.copy_(torch.tensor(w["b2"]))
            lay.norm1.weight.copy_(torch.tensor(w["g1"]))
            lay.norm1.bias.copy_(torch.tensor(w["n1"]))
            lay.norm2.weight.copy_(torch.tensor(w["g2"]))
            lay.norm2.bias.copy_(torch.tensor(w["n2"]))
    X, Y = data(B, T, d)
    x, y = torch.tensor(X), torch.tensor(Y)
    def fwd():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16(name)):
            out = enc(x)
        return out, torch.nn.functional.mse_loss(out.float(), y)

    enc.eval()
    out, loss = fwd()
    loss.backward()
    check = {"out": float(out.detach().float().abs().sum()), "loss": float(loss),
             "gw1": float(enc.layers[0].linear1.weight.grad.norm()),
             "gq": float(enc.layers[0].self_attn.in_proj_weight.grad[:d].norm())}
    enc.train()
    opt = torch.optim.Adam(enc.parameters(), lr=1e-4)
    opt.zero_grad()

    def step():
        _, loss = fwd()
        loss.backward()
        if opt_step:
            opt.step()
        opt.zero_grad()

    return measure(step, reps), check


def child(side, name):
    fn = child_paddle if side == "paddle" else child_torch
    (t, cpu), check = fn(name, *WORKLOADS[name])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"t": t, "cpu": cpu, "rss": rss, "check": check}))


def torch_python():
    env = os.environ.get("BENCH_TORCH_PY")
    if env:
        return env
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p in ("/work/main/.bench_venv/bin/python", os.path.join(here, ".bench_venv", "bin", "python")):
        if os.path.exists(p):
            return p
    return sys.executable


def main():
    script = os.path.abspath(__file__)
    tpy = torch_python()
    sides = [("paddle", sys.executable, None), ("torch", tpy, None)]
    alt = os.environ.get("BENCH_XFMR_ALT")
    if alt:
        env = dict(os.environ)
        env.update(kv.split("=", 1) for kv in alt.split(","))
        sides.insert(1, (f"paddle[{alt}]", sys.executable, env))
    names = [n for n in WORKLOADS if n in os.environ.get("BENCH_XFMR_ONLY", ",".join(WORKLOADS)).split(",")]
    torch_bf16 = bool(cpu_bf16_units()) or os.environ.get("BENCH_XFMR_TORCH_BF16") == "1"
    load0 = os.getloadavg()
    res = {n: {s[0]: [] for s in sides} for n in names}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(ROUNDS):
            for n in names:
                for label, py, env in sides:
                    kind = "torch" if label == "torch" else "paddle"
                    tn = n.replace("_bf16", "") if kind == "torch" and not torch_bf16 else n
                    res[n][label].append(run_child([py, script, "--child", kind, tn], label, d, env=env,
                                                   foreign=(kind == "torch")))
    load1 = os.getloadavg()
    print("== bench_transformer (each framework in its own process per workload, alternating rounds; "
          f"best of {ROUNDS}; torch: {tpy})")
    import paddle
    from paddle.utils.install_check import isa_summary
    print(isa_summary())
    if not torch_bf16:
        print("no bf16 units on this CPU: PyTorch's side of the bf16 rows is its float32 step")
    print(f"{'workload':<58}{'side':<34}{'time':>12}{'ratio':>8}{'CPU time':>13}{'ratio':>8}{'peak RSS':>11}")
    for n in names:
        tt = min(r["t"] for r in res[n]["torch"])
        ct = min(r["cpu"] for r in res[n]["torch"])
        for label, _, _ in sides:
            label_shown = "torch (float32)" if label == "torch" and bf16(n) and not torch_bf16 else label
            t = min(r["t"] for r in res[n][label])
            c = min(r["cpu"] for r in res[n][label])
            rss = max(r["rss"] for r in res[n][label])
            print(f"{LABELS[n]:<58}{label_shown:<34}{fmt(t):>12}{t / tt:>8.2f}{fmt(c):>13}{c / ct:>8.2f}"
                  f"{rss / 2**20:>8.0f} MiB", flush=True)
        cp, ct = res[n]["paddle"][0]["check"], res[n]["torch"][0]["check"]
        for k in cp:
            rel = abs(cp[k] - ct[k]) / max(abs(ct[k]), 1e-12)
            if rel > (3e-2 if bf16(n) else 1e-3):
                sys.exit(f"{n}: Paddle-C and PyTorch disagree on {k}: {cp[k]} vs {ct[k]}")
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} "
          f"{load1[1]:.2f} {load1[2]:.2f}; uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
