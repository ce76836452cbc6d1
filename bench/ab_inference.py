"""A/B of two settings in ONE predictor: runs alternate between environment A and B (settings the
library reads per call, e.g. PADDLE_C_POOL_ROWS=0, PADDLE_C_WINOGRAD=0, PADDLE_C_PRETOUCH=0), so both
sides share the predictor's memory and the machine's state; two predictors would not be a fair pair (the
first one created in a process measured 1.3-1.7% slower than later ones with identical settings:
docs/performance_log.md "A/B in one process and across processes"). Every 10 pairs of runs the
cache-line latency between the two CPUs is read (bench/corelat.c) and the group is filed under one
core complex / two (mixed groups dropped). Prints the medians of the whole run and of the chosen ops
(indices into the run's top-level profiler events, in order; PADDLE_C_INFER_LAYOUT=trace or
paddle.profiler name them).
Usage: PYTHONPATH=python python bench/ab_inference.py MODEL_PREFIX "A=1,B=2" "A=0" [--threads 2]
[--batch 1] [--seconds 120] [--ops 0,1,2] [--hw 224] [--no-memory-optim]. The predictor is configured as
bench_inference.py's (enable_mkldnn, enable_memory_optim)."""
import argparse
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("env_a")
    ap.add_argument("env_b")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--ops", default="")
    ap.add_argument("--hw", type=int, default=224)
    ap.add_argument("--no-memory-optim", action="store_true", help="Paddle's default config (no workspace plan)")
    a = ap.parse_args()
    import paddle.inference as pi
    from paddle import _C
    envs = [dict(kv.split("=", 1) for kv in e.split(",") if kv) for e in (a.env_a, a.env_b)]
    keys = set(envs[0]) | set(envs[1])
    idx = [int(i) for i in a.ops.split(",") if i]

    def setenv(e):
        for k in keys:
            if k in e:
                os.environ[k] = e[k]
            else:
                os.environ.pop(k, None)

    cfg = pi.Config(a.model + ".pdmodel", a.model + ".pdiparams")
    cfg.set_cpu_math_library_num_threads(a.threads)
    cfg.enable_mkldnn()
    if not a.no_memory_optim:  # as bench_inference.py's predictors (without it every residual is a copy)
        cfg.enable_memory_optim()
    p = pi.create_predictor(cfg)
    x = np.random.RandomState(7).rand(a.batch, 3, a.hw, a.hw).astype("float32")
    h = p.get_input_handle(p.get_input_names()[0])
    me = threading.get_native_id()
    outs = [None, None]

    def go(i):
        setenv(envs[i])
        h.reshape(list(x.shape))
        h.copy_from_cpu(x)
        if idx:
            _C.prof_clear()
            _C.prof_enable(True, False)
        t0 = time.perf_counter()
        p.run()
        t = time.perf_counter() - t0
        row = [t * 1e3]
        if idx:
            _C.prof_enable(False)
            ev = sorted((e for e in _C.prof_events() if e[0] == me and " " not in e[5]), key=lambda e: e[3])
            row += [(ev[j][4] - ev[j][3]) / 1e3 for j in idx]
        outs[i] = p.get_output_handle(p.get_output_names()[0]).copy_to_cpu()
        return row

    for _ in range(3):
        go(0)
        go(1)
    scale = max(float(np.abs(outs[0]).max()), 1e-30)
    print(f"outputs A vs B: max |diff| / max |A| = {np.abs(outs[0] - outs[1]).max() / scale:.2e}")
    res = {"one complex": ([], []), "two complexes": ([], [])}
    t_end = time.time() + a.seconds
    while time.time() < t_end:
        l0 = harness.core_latency_ns(0.05)
        g = ([], [])
        for r in range(10):
            for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                g[i].append(go(i))
        l1 = harness.core_latency_ns(0.05)
        st = harness.core_state(l0)
        if l0 is None or st != harness.core_state(l1) or st not in res:
            continue
        res[st][0].extend(g[0])
        res[st][1].extend(g[1])
    print(f"== {a.model} batch {a.batch}, {a.threads} thread(s), A = {a.env_a or '(none)'}, B = {a.env_b or '(none)'}; "
          f"CPU: {harness.cpu_name()}")
    for st, (ra, rb) in res.items():
        if not ra:
            print(f"{st}: no runs")
            continue
        ra, rb = np.array(ra), np.array(rb)
        ops = "  ".join(f"op {j}: {np.median(ra[:, k + 1]):.1f} / {np.median(rb[:, k + 1]):.1f} us"
                        for k, j in enumerate(idx))
        print(f"{st}: {len(ra)} runs each, A {np.median(ra[:, 0]):.3f} ms, B {np.median(rb[:, 0]):.3f} ms, "
              f"B/A {np.median(rb[:, 0]) / np.median(ra[:, 0]):.3f}" + (f"  | {ops}" if ops else ""))


if __name__ == "__main__":
    main()
