"""paddle.distributed.launch: `python -m paddle.distributed.launch --nproc_per_node N train.py
args`. Runs `mpirun -np N*nodes` (OpenMPI; --ips a,b maps to mpirun --host a:N,b:N, which reaches
other machines the way OpenMPI does: ssh or a scheduler), each rank through _worker.py, which sets
Paddle's variables (PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS,
PADDLE_CURRENT_ENDPOINT) and writes the rank's output to log_dir/workerlog.<rank>; rank 0's log
is echoed here as Paddle's launcher does. A rank that raises or exits non-zero aborts the job
(MPI_Abort); launch then names the failed rank and returns non-zero."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from ._mpi import failed_ranks, mpirun_cmd


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m paddle.distributed.launch",
                                description="start a data-parallel job (one process per rank, over MPI)")
    p.add_argument("--nproc_per_node", type=int, default=None, help="ranks per machine")
    p.add_argument("--nnodes", type=str, default="1", help="number of machines (with --ips)")
    p.add_argument("--ips", "--cluster_node_ips", type=str, default=None, help="comma-separated machine addresses")
    p.add_argument("--log_dir", type=str, default="log", help="where workerlog.<rank> go")
    p.add_argument("--devices", "--gpus", "--selected_gpus", dest="devices", type=str, default=None,
                   help="device ids (on CPU only their count is used, as ranks per machine)")
    p.add_argument("--master", type=str, default=None)
    p.add_argument("--rank", type=int, default=-1)
    p.add_argument("--job_id", type=str, default="default")
    p.add_argument("--run_mode", type=str, default="collective")
    p.add_argument("--log_level", type=str, default="INFO")
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p.parse_args(argv)


def _tail(path, stop, out):
    pos = 0
    while True:
        done = stop.is_set()
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                data = f.read()
                pos += len(data)
            if data:
                out.write(data.decode(errors="replace"))
                out.flush()
        except OSError:
            pass
        if done:
            return
        stop.wait(0.2)


def launch(argv=None):
    """Runs the launcher on argv (default sys.argv[1:]); exits with the job's status."""
    a = _parse(sys.argv[1:] if argv is None else argv)
    if a.run_mode not in ("collective", None):
        raise NotImplementedError(f"paddle.distributed.launch: run_mode={a.run_mode!r} (parameter server) is not "
                                  "implemented in Paddle-C; only collective training")
    nproc = a.nproc_per_node
    if nproc is None:
        nproc = len(a.devices.split(",")) if a.devices else 1
    if nproc < 1:
        raise ValueError(f"--nproc_per_node must be >= 1, received {nproc}")
    ips = [s.strip() for s in a.ips.split(",") if s.strip()] if a.ips else None
    hosts = [f"{ip}:{nproc}" for ip in ips] if ips and len(ips) > 1 else None
    total = nproc * (len(ips) if ips else 1)
    log_dir = os.path.abspath(a.log_dir)
    os.makedirs(log_dir, exist_ok=True)
    fault_dir = tempfile.mkdtemp(prefix="paddle_launch_")
    os.environ["PADDLE_C_FAULT_DIR"] = fault_dir
    cmd = mpirun_cmd(total, hosts, ["PADDLE_C_FAULT_DIR"]) + [
        sys.executable, "-m", "paddle.distributed.launch._worker", log_dir, ",".join(ips or []), str(nproc),
        a.training_script] + a.training_script_args
    for f in os.listdir(log_dir):
        if f.startswith("workerlog."):
            os.remove(os.path.join(log_dir, f))
    stop = threading.Event()
    tail = threading.Thread(target=_tail, args=(os.path.join(log_dir, "workerlog.0"), stop, sys.stdout), daemon=True)
    tail.start()
    t0 = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    stop.set()
    tail.join()
    out = proc.stdout.decode(errors="replace")
    rc = proc.returncode
    if rc != 0:
        sys.stderr.write(out)
        bad = failed_ranks(fault_dir, out)
        who = ", ".join(str(r) for r in bad) if bad else "unknown"
        sys.stderr.write(f"paddle.distributed.launch: the job failed after {time.time() - t0:.1f} s (exit code {rc}); "
                         f"failed rank(s): {who}; logs: "
                         + ", ".join(os.path.join(log_dir, f"workerlog.{r}") for r in (bad or range(total))) + "\n")
    shutil.rmtree(fault_dir, ignore_errors=True)
    sys.exit(rc if rc else 0)
