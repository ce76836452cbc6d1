"""One rank of `paddle.distributed.launch`, started by mpirun: python -m
paddle.distributed.launch._worker LOG_DIR IPS NPROC_PER_NODE script args...; sets Paddle's
variables, sends its output to LOG_DIR/workerlog.<rank> and runs the script as __main__."""
import os
import runpy
import sys

from ._mpi import rank_env, run_guarded


def main():
    log_dir, ips, per, script = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    rank, _ = rank_env([s for s in ips.split(",") if s], per)
    fd = os.open(os.path.join(log_dir, f"workerlog.{rank}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout.reconfigure(line_buffering=True)
    sys.argv = [script] + sys.argv[5:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    run_guarded(lambda: runpy.run_path(script, run_name="__main__"))


if __name__ == "__main__":
    main()
