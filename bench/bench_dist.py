"""paddle.distributed over MPI, 2 ranks on this machine (one core each: OMP_NUM_THREADS=1), the
three targets of issue 18 in one run:
 1. all_reduce of 1/16/64 MB float32: paddle.distributed.all_reduce on a Tensor (header check +
    MPI_Allreduce) against the raw MPI_Allreduce timed in C on the *same tensor's buffer*
    (paddle._dist.bench_allreduce), alternating short windows, best of 8-40 each; target: our bandwidth >= 0.9x raw
    (time ratio <= 1.11). For information also DataParallel's shared-memory reduction
    (paddle._dist.shm_allreduce) on the same sizes.
 2. the seed-MLP train step (784-1024-512-10 ReLU, Adam, cross-entropy, batch 32 per rank) under
    paddle.DataParallel on 2 ranks against 1 rank; target <= 1.15x.
 3. the same step under PyTorch DDP (gloo) on 2 ranks; target: Paddle-C 2 ranks <= 0.8x PyTorch.
Every DataParallel configuration is its own process group (mpirun for ours, torch's own
processes with a TCP store for PyTorch), run alternately for --rounds rounds; each child reports
the best of 3 windows of 10 steps after 5 warm-up steps; the table shows the best round.
PyTorch: BENCH_TORCH_PY or TORCH_PY (default /work/bench_venv/bin/python).
Usage: python bench/bench_dist.py [--rounds 3] [--burn K]   (--burn: K CPU-burning neighbour
processes run throughout, to see the steps under contention; BENCH_DIST_MPIRUN_ARGS adds mpirun
arguments, e.g. "--bind-to core")."""
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WARM, WINDOWS, PER_WINDOW, BATCH = 5, 3, 10, 32


def _mpirun(n):
    """mpirun as paddle.distributed.launch runs it; BENCH_DIST_MPIRUN_ARGS replaces --bind-to or
    mpi_yield_when_idle where it names them, and adds the rest."""
    extra = shlex.split(os.environ.get("BENCH_DIST_MPIRUN_ARGS", ""))
    cmd = ["mpirun", "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if "--bind-to" not in extra:
        cmd += ["--bind-to", "none"]
    if "mpi_yield_when_idle" not in extra:
        cmd += ["--mca", "mpi_yield_when_idle", "1"]
    return cmd + extra + ["-np", str(n)]


def _env():
    return dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.path.join(ROOT, "python"))


def _last_json(out, who):
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if not lines:
        sys.exit(f"{who} gave no result:\n{out[-3000:]}")
    return json.loads(lines[-1])


def _best_window(step, barrier):
    """Warm-up, then the best of WINDOWS windows of PER_WINDOW steps (seconds per step); the ranks
    start each window together."""
    for _ in range(WARM):
        step()
    best = 1e9
    for _ in range(WINDOWS):
        barrier()
        t0 = time.perf_counter()
        for _ in range(PER_WINDOW):
            step()
        barrier()
        best = min(best, (time.perf_counter() - t0) / PER_WINDOW)
    return best


# ---------------- children ----------------
def child_allreduce():
    import numpy as np
    import paddle
    import paddle.distributed as dist
    from paddle import _dist
    from paddle.utils.dlpack import from_dlpack
    dist.init_parallel_env()
    res = {}
    win = _dist.shm_alloc(0, 64 * 1024 * 1024)
    for mb, iters, rounds in ((1, 2, 40), (16, 1, 16), (64, 1, 8)):
        n = mb * 1024 * 1024 // 4
        t = paddle.zeros([n], dtype="float32")
        best_raw = best_ours = best_shm = 1e9
        for _ in range(rounds):  # alternating, best of short windows (the machine is shared)
            best_raw = min(best_raw, _dist.bench_allreduce(0, n * 4, iters, t))
            dist.all_reduce(t)
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(t)
            best_ours = min(best_ours, (time.perf_counter() - t0) / iters)
            if win is not None:
                _dist.shm_allreduce(win[0], 0, n, "float32", 0)
                dist.barrier()
                t0 = time.perf_counter()
                for _ in range(iters):
                    _dist.shm_allreduce(win[0], 0, n, "float32", 0)
                best_shm = min(best_shm, (time.perf_counter() - t0) / iters)
        res[mb] = (best_ours, best_raw, best_shm if win is not None else None)
    if dist.get_rank() == 0:
        print(json.dumps(res), flush=True)


def _mlp_data(rank):
    import numpy as np
    rs = np.random.RandomState(rank)
    return rs.rand(BATCH, 784).astype("float32"), rs.randint(0, 10, (BATCH, 1)).astype("int64")


def _mlp(nn):
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 10))


def child_dp():
    """One 2-rank job timing every Paddle-C configuration in turn, window by window, so that the
    machine's load drifts over all of them alike: "1 rank" (rank 0 trains an unwrapped model
    while rank 1 sleeps in a futex barrier), "2 ranks, no communication" (both train unwrapped
    models side by side: the floor that contention for the cores alone sets), then DataParallel after backward through shared
    memory (the default with a core per rank), after backward through MPI_Allreduce
    (PADDLE_C_DP_SHM=0) and with the overlap thread (shared memory)."""
    import paddle
    import paddle.distributed as dist
    import paddle.nn as nn
    from paddle import _dist
    dist.init_parallel_env()
    r = dist.get_rank()
    x, y = (paddle.to_tensor(a) for a in _mlp_data(r))
    loss_fn = nn.CrossEntropyLoss()
    idle = _dist.shm_alloc(0, 64)  # rank 1 waits here (asleep) while rank 0 runs alone

    def stepper(model):
        opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())

        def step():
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        return step
    configs = {"1 rank": stepper(_mlp(nn)), "2 ranks, no communication": stepper(_mlp(nn))}
    for name, env in (("after backward, shm", {"PADDLE_C_DP_OVERLAP": "0", "PADDLE_C_DP_SHM": "1"}),
                      ("after backward, MPI", {"PADDLE_C_DP_OVERLAP": "0", "PADDLE_C_DP_SHM": "0"}),
                      ("overlap thread, shm", {"PADDLE_C_DP_OVERLAP": "1", "PADDLE_C_DP_SHM": "1"})):
        os.environ.update(env)
        dp = paddle.DataParallel(_mlp(nn))
        assert dp._overlap == (env["PADDLE_C_DP_OVERLAP"] == "1") and (dp._shm is None) == (env["PADDLE_C_DP_SHM"] == "0")
        configs[name] = stepper(dp)
    best = {k: 1e9 for k in configs}
    cpu = {k: [] for k in configs}  # CPU seconds per step of this rank (process_time: all its threads)
    for k, step in configs.items():  # warm-up
        if k != "1 rank" or r == 0:
            for _ in range(WARM):
                step()
    for _ in range(int(os.environ.get("BENCH_DIST_WINDOWS", "8"))):
        for k, step in configs.items():
            dist.barrier()
            if k == "1 rank" and r != 0:
                _dist.shm_allreduce(idle[0], 0, 0, "float32", 0)
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(PER_WINDOW):
                step()
            c1 = time.process_time()
            if k == "1 rank":
                best[k] = min(best[k], (time.perf_counter() - t0) / PER_WINDOW)
                _dist.shm_allreduce(idle[0], 0, 0, "float32", 0)
            else:
                dist.barrier()
                best[k] = min(best[k], (time.perf_counter() - t0) / PER_WINDOW)
            cpu[k].append((c1 - c0) / PER_WINDOW)
    if r == 0:
        import statistics
        print(json.dumps({k: (best[k], statistics.median(cpu[k])) for k in best}), flush=True)


def child_dp_one():
    """A plain 1-process run of the same step (the "1 rank" baseline in its own process)."""
    import paddle
    import paddle.nn as nn
    model = _mlp(nn)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    x, y = (paddle.to_tensor(a) for a in _mlp_data(0))

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    print(json.dumps({"step": _best_window(step, lambda: None)}), flush=True)


def child_torch(rank, world, port):
    import torch
    import torch.distributed as tdist
    import torch.nn as tnn
    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    tdist.init_process_group("gloo", rank=rank, world_size=world)
    model = tnn.Sequential(tnn.Linear(784, 1024), tnn.ReLU(), tnn.Linear(1024, 512), tnn.ReLU(), tnn.Linear(512, 10))
    if world > 1:
        model = tnn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = tnn.CrossEntropyLoss()
    xn, yn = _mlp_data(rank)
    x, y = torch.from_numpy(xn), torch.from_numpy(yn[:, 0])

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    dt = _best_window(step, tdist.barrier)
    if rank == 0:
        print(json.dumps({"step": dt}), flush=True)
    tdist.destroy_process_group()


# ---------------- parent ----------------
def run_paddle(mode, n, **extra):
    p = subprocess.run(_mpirun(n) + [sys.executable, os.path.abspath(__file__), mode], env=dict(_env(), **extra),
                       capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.exit(f"{mode} on {n} ranks failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return _last_json(p.stdout, mode)


def run_torch(py, n):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    procs = [subprocess.Popen([py, os.path.abspath(__file__), "--child-torch", str(r), str(n), str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/tmp")
             for r in range(n)]
    outs = [p.communicate(timeout=600) for p in procs]
    if any(p.returncode for p in procs):
        sys.exit("torch child failed:\n" + "".join(o[1][-2000:] for o in outs))
    return _last_json(outs[0][0], "torch")


def _load():
    return "load average %.2f, %.2f, %.2f" % os.getloadavg()


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--burn", type=int, default=0, help="CPU-burning neighbour processes during the run")
    ap.add_argument("--skip-allreduce", action="store_true")
    a = ap.parse_args()
    if not shutil.which("mpirun"):
        sys.exit("mpirun not found")
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.burn)]
    try:
        _main(a)
    finally:
        for b in burners:
            b.kill()
            b.wait()


def _main(a):
    print(f"{_load()} at start; {a.burn} CPU-burning neighbours; mpirun {' '.join(_mpirun(2)[1:])}", flush=True)
    if not a.skip_allreduce:
        ar = run_paddle("--child-allreduce", 2)
        print(f"{'all_reduce float32, 2 ranks':<30}{'ours':>11}{'raw MPI':>11}{'raw/ours bw':>12}{'GB/s ours':>10}"
              f"{'shm (DP)':>11}  target: bw >= 0.90x raw")
        for mb, (ours, raw, shm) in ar.items():
            shm_s = f"{shm * 1e3:8.3f} ms" if shm else "         -"
            print(f"{mb + ' MB':<30}{ours * 1e3:8.3f} ms{raw * 1e3:8.3f} ms{raw / ours:>12.2f}"
                  f"{int(mb) / 1024 / ours:>10.2f}{shm_s:>11}", flush=True)
    py = os.environ.get("BENCH_TORCH_PY") or os.environ.get("TORCH_PY") or "/work/bench_venv/bin/python"
    have_torch = os.path.exists(py)
    best, cpu_of = {}, {}

    def keep(name, t):
        best[name] = min(best.get(name, 1e9), t)
    for _ in range(a.rounds):  # alternating: our job, then PyTorch's
        for k, (t, c) in run_paddle("--child-dp", 2).items():
            keep("Paddle-C " + k, t)
            cpu_of["Paddle-C " + k] = min(cpu_of.get("Paddle-C " + k, 1e9), c)
        one = subprocess.run([sys.executable, os.path.abspath(__file__), "--child-dp-one"], env=_env(),
                             capture_output=True, text=True, timeout=600)
        keep("Paddle-C 1 process", _last_json(one.stdout + one.stderr[-2000:], "1 process")["step"])
        if have_torch:
            keep("PyTorch 1 rank", run_torch(py, 1)["step"])
            keep("PyTorch DDP gloo 2 ranks", run_torch(py, 2)["step"])
    print(f"seed-MLP train step (Adam, batch {BATCH}/rank, 1 thread/rank), best of {a.rounds} rounds:")
    for name, t in best.items():
        c = f"   (CPU of rank 0: {cpu_of[name] * 1e3:.3f} ms/step)" if name in cpu_of else ""
        print(f"  {name:<44}{t * 1e3:9.3f} ms{c}", flush=True)
    one = best["Paddle-C 1 rank"]
    default = best["Paddle-C after backward, shm"]  # the default path with 1 core per rank
    print(f"Paddle-C 2 ranks (default path) / 1 rank = {default / one:.2f} (target <= 1.15); with MPI_Allreduce "
          f"{best['Paddle-C after backward, MPI'] / one:.2f}, overlap thread {best['Paddle-C overlap thread, shm'] / one:.2f}")
    if have_torch:
        t2 = best["PyTorch DDP gloo 2 ranks"]
        print(f"Paddle-C 2 ranks (default path) / PyTorch DDP 2 ranks = {default / t2:.2f} (target <= 0.8); "
              f"PyTorch 2 ranks / 1 rank = {t2 / best['PyTorch 1 rank']:.2f}")
    else:
        print(f"PyTorch not found at {py} (set BENCH_TORCH_PY): DDP comparison skipped")
    print(f"{_load()} at end", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-allreduce":
        child_allreduce()
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-dp":
        child_dp()
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-dp-one":
        child_dp_one()
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-torch":
        child_torch(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
