"""Benchmark helpers: time a callable (median of repeats after warm-up, with the loop count
chosen so each repeat takes ~50 ms) and print one aligned row per workload with Paddle-C's
time, PyTorch's time and the ratio (Paddle-C / PyTorch: below 1 means Paddle-C is faster)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def cpu_bf16_units():
    """the CPU's bfloat16 instructions (AVX512_BF16 dot products, AMX tiles), from /proc/cpuinfo"""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        flags = []
    return [f for f in ("avx512_bf16", "amx_bf16") if f in flags]


def timeit(fn, min_time=0.05, repeats=7, reduce=statistics.median):
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time / 4 or n >= 1 << 22:
            break
        n *= 4
    n = max(1, int(n * (min_time / max(dt, 1e-9))))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) / n)
    return reduce(times)


def fmt(t):
    if t < 1e-3:
        return f"{t * 1e6:9.2f} us"
    return f"{t * 1e3:9.3f} ms"


HEADER = f"{'workload':<52}{'Paddle-C':>13}{'PyTorch':>13}{'ratio':>8}  target"


def row(name, t_ours, t_peer, target=""):
    print(f"{name:<52}{fmt(t_ours):>13}{fmt(t_peer):>13}{t_ours / t_peer:>8.2f}  {target}", flush=True)


def run_child(cmd, who, cwd, env=None, foreign=False):
    """Runs one benchmark child (cmd, in cwd) and returns the JSON of its last stdout line; a
    failing child ends the benchmark with its stderr. foreign: another framework's interpreter
    (real Paddle), started without our PYTHONPATH, from an empty directory the caller gives."""
    env = dict(os.environ if env is None else env)
    if foreign:
        env.pop("PYTHONPATH", None)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)
    if r.returncode != 0:
        sys.exit(f"{who} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_sides(script, data_dir, rounds):
    """Runs `script --child SIDE data_dir` for SIDE paddle then torch, `rounds` times (each
    framework alone in its process: one process holding both holds two OpenMP runtimes whose
    spinning threads take cores from each other). Each child prints one JSON line last; returns
    {"paddle": [parsed, ...], "torch": [...]}."""
    out = {"paddle": [], "torch": []}
    # PyTorch from its own interpreter where one is named (BENCH_TORCH_PY / TORCH_PY), as the other
    # benchmarks; with PYTHONPATH kept, so a child imports this checkout's paddle only on its side
    torch_py = os.environ.get("BENCH_TORCH_PY") or os.environ.get("TORCH_PY") or sys.executable
    for _ in range(rounds):
        for side in ("paddle", "torch"):
            py = torch_py if side == "torch" else sys.executable
            r = subprocess.run([py, script, "--child", side, data_dir], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{script}: the {side} child failed:\n{r.stderr}")
            out[side].append(json.loads(r.stdout.strip().splitlines()[-1]))
    return out


def compare_sides(script, title, workloads, rounds):
    """run_sides for children whose JSON line is a list of seconds, one per (name, target) of
    workloads (extra entries after them are the caller's); prints one row per workload with the
    best of each side over the rounds. Returns run_sides' results."""
    print(f"== {title} (each framework in its own process, alternating rounds)")
    print(HEADER)
    with tempfile.TemporaryDirectory() as d:
        times = run_sides(script, d, rounds)
    for i, (name, target) in enumerate(workloads):
        row(name, min(t[i] for t in times["paddle"]), min(t[i] for t in times["torch"]), target)
    return times


def entry(child, main):
    """A benchmark script's entry point: `script --child SIDE DIR` runs child(SIDE), else main()."""
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()


def cpu_name():
    """the CPU's model name from /proc/cpuinfo ("?" where there is none), for a report's header"""
    try:
        with open("/proc/cpuinfo") as f:
            return next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        return "?"


_CORELAT = {}


def core_latency_ns(seconds=0.1):
    """The one-way latency of a cache line between CPUs 0 and 1 in ns (bench/corelat.c, compiled on
    first use with cc), or None (one CPU, no compiler). ~42 ns: the two vCPUs share a core complex;
    ~185-210 ns: they sit on two, each layer's input half in the far L3 (docs/performance_log.md
    "Two core complexes"). Spins both CPUs for the given seconds."""
    if (os.cpu_count() or 1) < 2:
        return None
    if "exe" not in _CORELAT:
        d = tempfile.mkdtemp(prefix="corelat")
        exe = os.path.join(d, "corelat")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corelat.c")
        r = subprocess.run(["cc", "-std=c11", "-O2", "-pthread", src, "-o", exe], capture_output=True)
        _CORELAT["exe"] = exe if r.returncode == 0 else None
    if not _CORELAT["exe"]:
        return None
    r = subprocess.run([_CORELAT["exe"], str(seconds)], capture_output=True, text=True)
    try:
        return float(r.stdout.split()[0]) if r.returncode == 0 else None
    except (IndexError, ValueError):
        return None


def core_state(ns):
    """'one complex' / 'two complexes' / '?' for a core_latency_ns() value"""
    return "?" if ns is None else "one complex" if ns < 100 else "two complexes"
