"""The mpirun command line shared by launch and spawn, and how a finished job's failed ranks are found."""
import os
import re
import shlex
import shutil
import sys


def mpirun_cmd(nprocs, hosts=None, env_names=()):
    exe = shutil.which("mpirun")
    if exe is None:
        raise RuntimeError("paddle.distributed: mpirun (OpenMPI, Debian's openmpi-bin) is not on PATH")
    cmd = [exe, "--bind-to", "none", "--oversubscribe", "-np", str(nprocs)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    if "OMPI_MCA_mpi_yield_when_idle" not in os.environ:
        # ranks waiting in MPI yield the core instead of spinning: with more runnable processes than
        # cores (a shared machine) the 2-rank DataParallel step went 111 ms -> 40-57 ms; with a
        # core per rank sched_yield returns at once
        cmd += ["--mca", "mpi_yield_when_idle", "1"]
    if "OMP_NUM_THREADS" not in os.environ:
        # one OpenMP pool per rank, sized to this machine's share (as torchrun does): 2 ranks of
        # 2 threads each on 2 cores make every kernel's barrier wait for a descheduled thread
        per_node = max(1, -(-nprocs // max(1, len(hosts or [None]))))
        cmd += ["-x", f"OMP_NUM_THREADS={max(1, (os.cpu_count() or 1) // per_node)}"]
    if hosts:
        cmd += ["--host", ",".join(hosts)]
    # extra mpirun arguments (a hostfile, --mca settings, a launch agent), shell-quoted
    cmd += shlex.split(os.environ.get("PADDLE_C_MPIRUN_ARGS", ""))
    # local ranks inherit mpirun's environment; -x carries it to remote ones
    for n in ["PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV"] + list(env_names):
        if n in os.environ:
            cmd += ["-x", n]
    for n in os.environ:
        if (n.startswith("PADDLE_") or n.startswith("FLAGS_") or n.startswith("OMP_")) and n not in env_names:
            cmd += ["-x", n]
    return cmd


def rank_env(ips=None, nproc_per_node=None):
    """Paddle's variables for this rank from OpenMPI's (OMPI_COMM_WORLD_*)."""
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    size = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", str(rank)))
    if not ips:
        ips = ["127.0.0.1"]
    per = nproc_per_node or max(1, size // len(ips))
    eps = [f"{ips[min(i // per, len(ips) - 1)]}:{6170 + i % per}" for i in range(size)]
    os.environ["PADDLE_TRAINER_ID"] = str(rank)
    os.environ["PADDLE_TRAINERS_NUM"] = str(size)
    os.environ["PADDLE_TRAINER_ENDPOINTS"] = ",".join(eps)
    os.environ["PADDLE_CURRENT_ENDPOINT"] = eps[rank]
    os.environ["PADDLE_RANK_IN_NODE"] = str(local)
    os.environ["PADDLE_LOCAL_RANK"] = str(local)
    return rank, size


def failed_ranks(fault_dir, mpirun_output=""):
    ranks = set()
    if fault_dir and os.path.isdir(fault_dir):
        for f in os.listdir(fault_dir):
            if f.startswith("failed."):
                ranks.add(int(f.split(".", 1)[1]))
    if not ranks:
        for pat in (r"MPI_ABORT was invoked on rank (\d+)", r"Process name: \[\[\d+,\d+\],(\d+)\]",
                    r"rank (\d+) with PID \d+ on node \S+ exited on signal"):
            ranks.update(int(m) for m in re.findall(pat, mpirun_output))
    return sorted(ranks)


def run_guarded(fn):
    """Runs fn() as a rank's main: an exception or a non-zero sys.exit ends every rank (MPI_Abort)
    after recording this rank as failed, instead of leaving the others in a collective forever."""
    from .. import parallel
    parallel._install_fault_hook()
    try:
        fn()
    except SystemExit as e:
        code = e.code
        if code not in (None, 0):
            if not isinstance(code, int):
                sys.stderr.write(f"{code}\n")
                code = 1
            parallel._fault_hook(SystemExit, e, None)
        raise
