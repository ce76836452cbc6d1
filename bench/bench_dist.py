"""paddle.distributed over MPI, 2 ranks on this machine (one core each: OMP_NUM_THREADS=1):
 - all_reduce of 1/16/64 MB float32 (paddle.distributed.all_reduce on a Tensor: header check +
   MPI_Allreduce) against the raw MPI_Allreduce of the same size timed in C (paddle._dist.bench_allreduce),
   alternating, best of rounds; ratio = our time / raw time (target: bandwidth >= 0.9x, i.e. ratio <= 1.11);
 - the seed-MLP train step (784-1024-512-10 ReLU, Adam, cross-entropy, batch 32 per rank) under
   paddle.DataParallel on 2 ranks against 1 rank (target <= 1.15x), and against PyTorch DDP
   (gloo) on 2 ranks when a PyTorch interpreter is found (TORCH_PY, default /work/main/.bench_venv/bin/python).
Usage: python bench/bench_dist.py   (starts its own mpirun children)"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEPS, WARM, BATCH = 30, 5, 32


def _mpirun(n):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1", "-np", str(n)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.path.join(ROOT, "python"))
    return env


def _last_json(out, who):
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if not lines:
        sys.exit(f"{who} gave no result:\n{out[-3000:]}")
    return json.loads(lines[-1])


# ---------------- children ----------------
def child_allreduce():
    import paddle
    import paddle.distributed as dist
    from paddle import _dist
    dist.init_parallel_env()
    res = {}
    for mb, iters in ((1, 50), (16, 8), (64, 3)):
        n = mb * 1024 * 1024 // 4
        t = paddle.zeros([n], dtype="float32")
        best_raw = best_ours = 1e9
        for _ in range(5):  # alternating, best of 5 (the machine is shared)
            best_raw = min(best_raw, _dist.bench_allreduce(0, n * 4, iters))
            dist.all_reduce(t)
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(t)
            best_ours = min(best_ours, (time.perf_counter() - t0) / iters)
        res[mb] = (best_ours, best_raw)
    if dist.get_rank() == 0:
        print(json.dumps(res), flush=True)


def _mlp_data(rank):
    import numpy as np
    rs = np.random.RandomState(rank)
    return rs.rand(BATCH, 784).astype("float32"), rs.randint(0, 10, (BATCH, 1)).astype("int64")


def child_dp():
    import paddle
    import paddle.distributed as dist
    import paddle.nn as nn
    dist.init_parallel_env()
    r = dist.get_rank()
    model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 10))
    if dist.get_world_size() > 1:
        model = paddle.DataParallel(model)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    x, y = (paddle.to_tensor(a) for a in _mlp_data(r))

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    for _ in range(WARM):
        step()
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(STEPS):
        step()
    dist.barrier()
    dt = (time.perf_counter() - t0) / STEPS
    if r == 0:
        print(json.dumps({"step": dt}), flush=True)


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
    for _ in range(WARM):
        step()
    tdist.barrier()
    t0 = time.perf_counter()
    for _ in range(STEPS):
        step()
    tdist.barrier()
    dt = (time.perf_counter() - t0) / STEPS
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


def main():
    if not shutil.which("mpirun"):
        sys.exit("mpirun not found")
    print(f"load: {os.getloadavg()}", flush=True)
    ar = run_paddle("--child-allreduce", 2)
    print(f"{'all_reduce float32, 2 ranks':<40}{'ours':>12}{'raw MPI':>12}{'ratio':>8}  {'GB/s ours':>10}  target: ratio <= 1.11")
    for mb, (ours, raw) in ar.items():
        print(f"{mb + ' MB':<40}{ours * 1e3:>9.3f} ms{raw * 1e3:>9.3f} ms{ours / raw:>8.2f}  {int(mb) / 1024 / ours:>10.2f}")
    rounds = 2
    one, two, two_ov = [], [], []
    for _ in range(rounds):  # alternating
        one.append(run_paddle("--child-dp", 1)["step"])
        two.append(run_paddle("--child-dp", 2, PADDLE_C_DP_OVERLAP="0")["step"])
        two_ov.append(run_paddle("--child-dp", 2, PADDLE_C_DP_OVERLAP="1")["step"])
    one, two, two_ov = min(one), min(two), min(two_ov)
    print(f"DataParallel seed-MLP step (batch {BATCH}/rank, Adam, 1 thread/rank): 1 rank {one * 1e3:.3f} ms, "
          f"2 ranks {two * 1e3:.3f} ms (sync after backward), {two_ov * 1e3:.3f} ms (overlap thread); "
          f"ratio {two / one:.2f} / {two_ov / one:.2f} (target <= 1.15)")
    two = min(two, two_ov)
    py = os.environ.get("TORCH_PY", "/work/main/.bench_venv/bin/python")
    if os.path.exists(py):
        t1 = min(run_torch(py, 1)["step"] for _ in range(rounds))
        t2 = min(run_torch(py, 2)["step"] for _ in range(rounds))
        print(f"PyTorch DDP gloo same step: 1 rank {t1 * 1e3:.3f} ms, 2 ranks {t2 * 1e3:.3f} ms; "
              f"Paddle-C 2 ranks / PyTorch 2 ranks = {two / t2:.2f} (target <= 0.8)")
    else:
        print(f"PyTorch not found at {py} (set TORCH_PY): DDP comparison skipped")
    print(f"load: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-allreduce":
        child_allreduce()
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-dp":
        child_dp()
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-torch":
        child_torch(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
