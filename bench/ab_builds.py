"""Our side only, two builds A/B: times this tree's paddle against another tree's (e.g. main's
build) on the same workloads, each run in its own process, alternating, best of the rounds, one
thread by default (OMP_NUM_THREADS=BENCH_AB_THREADS). Workloads: bench_core's paddle side,
bench_matmul_reduce's paddle-c column, bench_transformer's 2-layer train step (BENCH_AB_XFMR=0 skips it).
Run: python bench/ab_builds.py /work/main [rounds]   (prints uptime before and after)."""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(tree, args, threads):
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "python"), OMP_NUM_THREADS=str(threads))
    r = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if r.returncode != 0:
        sys.exit(f"{tree}: {args} failed:\n{r.stderr[-2000:]}")
    return r.stdout


def measure(tree, threads, xfmr):
    out = {}
    sys.path.insert(0, HERE)
    from bench_core import WORKLOADS
    with tempfile.TemporaryDirectory() as d:
        core = json.loads(run(tree, [os.path.join(HERE, "bench_core.py"), "--child", "paddle", d], threads).splitlines()[-1])
    for (name, _), t in zip(WORKLOADS, core):
        out["core: " + name] = t
    for line in run(tree, [os.path.join(HERE, "bench_matmul_reduce.py")], threads).splitlines():
        m = re.match(r"(.+?)\s+paddle-c\s+([\d.]+) us", line)
        if m:
            out["matmul_reduce: " + m.group(1).strip()] = float(m.group(2)) * 1e-6
    if xfmr:
        r = json.loads(run(tree, [os.path.join(HERE, "bench_transformer.py"), "--child", "paddle", "step"],
                           threads).splitlines()[-1])
        out["transformer: 2L d256 train step"] = r["t"]
    return out


def main():
    other = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    threads = int(os.environ.get("BENCH_AB_THREADS", "1"))
    xfmr = os.environ.get("BENCH_AB_XFMR", "1") != "0"
    up0 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    res = {ROOT: [], other: []}
    for _ in range(rounds):
        for tree in (ROOT, other):
            res[tree].append(measure(tree, threads, xfmr))
    up1 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"== A/B, our side only, best of {rounds} alternating rounds, OMP_NUM_THREADS={threads}")
    print(f"{'workload':<62}{'this tree':>12}{'other':>12}{'ratio':>8}")
    for k in res[ROOT][0]:
        a, b = min(r[k] for r in res[ROOT]), min(r[k] for r in res[other])
        f = (lambda t: f"{t * 1e6:9.2f} us") if b < 1e-3 else (lambda t: f"{t * 1e3:9.3f} ms")
        print(f"{k:<62}{f(a):>12}{f(b):>12}{a / b:>8.3f}")
    print(f"this tree: {ROOT}; other: {other}\nuptime before: {up0}\nuptime after:  {up1}")


if __name__ == "__main__":
    main()
