"""Paddle Inference, ours vs real Paddle Inference 2.6.2, as two long-lived processes taking turns:
each loads its predictor once (the same .pdmodel, threads, input), warms up for 1.5 s, then the
two run 1 + K inferences each in turn (half of the pairs with ours started first, half with the two
processes restarted the other way round) (the first untimed; 0.3 s apart: Paddle's OpenMP threads spin 200 ms after a run),
alternating which goes first, for P pairs; before each pair the
cache-line latency between the two CPUs is measured (bench/corelat.c). Prints the medians of each
side and of the per-pair ratio (ours / Paddle's), overall and split by the machine's state: both
vCPUs on one core complex (< 100 ns) or on two (each layer's input half in the far L3). The
2-vCPU EPYC machines switch between the two every few minutes; bench_inference.py's best-of-runs
tables mostly see the first, this one reports both.
Usage: python bench/bench_inference_pairs.py [--model resnet50] [--threads 2] [--batch 1] [--pairs 60] [--k 5]
[--alt VAR=VAL[,VAR=VAL]] (models: bench_inference.py's fixture names and architectures). --alt: the second
process is ours too, with those environment variables set, in place of Paddle: an A/B of two settings with
no in-process bias (in one process, the first predictor created measured 1.3-1.7% slower than later
ones with the same settings: docs/performance_log.md "A/B in one process")."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_inference as bi  # noqa: E402
from harness import core_latency_ns, core_state, cpu_name  # noqa: E402


def serve(model, threads, batch):
    """a child: the predictor, then per stdin line K, K runs and the median wall time on stdout"""
    go = bi.runner(bi.make_predictor(model, threads), bi.feeds(bi._fc(), model, batch))
    t_end = time.perf_counter() + 1.5
    while time.perf_counter() < t_end:
        go()
    print("ready", flush=True)
    for line in sys.stdin:
        k = int(line)
        if k <= 0:
            break
        go()  # after the pause: the first run meets caches the other side's runs filled
        ts = []
        for _ in range(k):
            t0 = time.perf_counter()
            go()
            ts.append(time.perf_counter() - t0)
        print(f"{statistics.median(ts):.7f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--alt", default="")
    a = ap.parse_args()
    alt = dict(kv.split("=", 1) for kv in a.alt.split(",") if kv)
    ref = bi._ref_python()
    me = os.path.abspath(__file__)
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as ad:
        env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), PADDLE_C_FIXTURES=os.path.abspath(bi._fc().FIXTURES),
                   BENCH_ARCH_DIR=ad)
        if a.model in bi.ARCHS:
            subprocess.run([sys.executable, os.path.join(HERE, "bench_inference.py"), "--export"], check=True,
                           env=env, cwd=d)
        env_ref = dict(env, GLOG_minloglevel="3")
        env_ref.pop("PYTHONPATH", None)
        args = ["--serve", a.model, str(a.threads), str(a.batch)]
        other = ("Paddle", ref, env_ref) if not alt else ("Paddle", sys.executable, dict(env, **alt))
        sides = [("ours", sys.executable, env), other]
        rows = []
        # two halves, the processes started in one order, then restarted in the other: with the same
        # settings on both sides (--alt DUMMY=1), the process started second measured 1.1-1.7% faster
        for half in range(2):
            procs = {}
            for side, py, e in (sides if half == 0 else sides[::-1]):
                p = subprocess.Popen([py, me] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=e,
                                     cwd=d)
                if p.stdout.readline().strip() != "ready":
                    sys.exit(f"bench_inference_pairs: the {side} child did not start")
                procs[side] = p
            for i in range(a.pairs // 2 if half == 0 else a.pairs - a.pairs // 2):
                ns = core_latency_ns(0.1)
                t = {}
                for side in (("ours", "Paddle") if i % 2 == 0 else ("Paddle", "ours")):
                    # a pause first: the other side's threads spin a while after its runs (Paddle's Intel
                    # OpenMP for KMP_BLOCKTIME, 200 ms), a neighbour this side's run would meet
                    time.sleep(0.3)
                    p = procs[side]
                    p.stdin.write(f"{a.k}\n")
                    p.stdin.flush()
                    t[side] = float(p.stdout.readline())
                rows.append((ns, t["ours"], t["Paddle"]))
            for p in procs.values():
                p.stdin.write("0\n")
                p.stdin.flush()
                p.wait()
    cpu = cpu_name()
    vs = f"ours with {a.alt} (in the Paddle column)" if alt else "Paddle Inference 2.6.2"
    print(f"== {a.model} batch {a.batch}, {a.threads} thread(s): ours vs {vs} taking turns, "
          f"{a.pairs} pairs of {a.k}-run medians; CPU: {cpu}; load average {os.getloadavg()[0]:.2f}")
    if os.environ.get("BENCH_PAIRS_ROWS"):
        print(" | ".join(f"{ns or 0:.0f} {o * 1e3:.2f} {p * 1e3:.2f}" for ns, o, p in rows))
    print(f"{'CPUs':<32}{'pairs':>6}{'ours':>10}{'Paddle':>10}{'ratio':>8}{'p75':>7}{'max':>7}")
    for label in ("all", "one complex", "two complexes", "?"):
        sel = [r for r in rows if label == "all" or core_state(r[0]) == label]
        if not sel or (label == "?" and len(sel) == len(rows)):
            continue
        ratios = sorted(o / p for _, o, p in sel)
        lat = [r[0] for r in sel if r[0] is not None]
        name = label + (f" ({min(lat):.0f}-{max(lat):.0f} ns)" if lat else "")
        print(f"{name:<32}{len(sel):>6}{statistics.median(o for _, o, _ in sel) * 1e3:>8.2f}ms"
              f"{statistics.median(p for _, _, p in sel) * 1e3:>8.2f}ms{statistics.median(ratios):>8.3f}"
              f"{ratios[(3 * len(ratios)) // 4]:>7.3f}{ratios[-1]:>7.3f}")
    if not alt:
        print("target: ratio <= 0.8 (issue 17)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
