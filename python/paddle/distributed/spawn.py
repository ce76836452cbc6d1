"""paddle.distributed.spawn(func, args, nprocs): runs func(*args) on nprocs ranks started by
mpirun (each rank is `python -m paddle.distributed._spawn_worker`, which unpickles func; a
function of the main script is found by loading that script as __mp_main__, as multiprocessing's
spawn does). The ranks' output goes to this process's stdout/stderr."""
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

from .launch._mpi import failed_ranks, mpirun_cmd


class MultiprocessContext:
    """The running job: join() waits for it and raises if a rank failed."""

    def __init__(self, proc, tmpdir, nprocs):
        self.proc = proc
        self._tmp = tmpdir
        self.nprocs = nprocs
        self.processes = [proc]

    def join(self, timeout=None):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        bad = failed_ranks(self._tmp)
        msgs = []
        for r in bad:
            try:
                with open(os.path.join(self._tmp, f"failed.{r}")) as f:
                    msgs.append(f"Process {r} terminated with the following error:\n{f.read()}")
            except OSError:
                pass
        shutil.rmtree(self._tmp, ignore_errors=True)
        if rc != 0:
            raise Exception("\n\n----------------------------------------------\n" +
                            ("\n".join(msgs) if msgs else f"the spawned job ended with exit code {rc}"))
        return True


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Starts nprocs ranks running func(*args); with join, waits and raises if one failed."""
    if not callable(func):
        raise TypeError(f"spawn: func must be callable, received {type(func).__name__}")
    if nprocs == -1:
        nprocs = int(os.environ.get("CPU_NUM", os.cpu_count() or 1))
    if not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"spawn: nprocs must be a positive int, received {nprocs!r}")
    tmp = tempfile.mkdtemp(prefix="paddle_spawn_")
    main = sys.modules.get("__main__")
    main_path = getattr(main, "__file__", None)
    with open(os.path.join(tmp, "job.pkl"), "wb") as f:
        pickle.dump((func, tuple(args)), f)
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump({"main_path": main_path, "main_module": getattr(func, "__module__", None),
                   "sys_path": [p for p in sys.path if p]}, f)
    env = dict(os.environ, PADDLE_C_FAULT_DIR=tmp)
    old = os.environ.get("PADDLE_C_FAULT_DIR")
    os.environ["PADDLE_C_FAULT_DIR"] = tmp
    try:
        cmd = mpirun_cmd(nprocs, None, ["PADDLE_C_FAULT_DIR"]) + [sys.executable, "-m",
                                                                   "paddle.distributed._spawn_worker", tmp]
    finally:
        if old is None:
            os.environ.pop("PADDLE_C_FAULT_DIR", None)
        else:
            os.environ["PADDLE_C_FAULT_DIR"] = old
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)
    ctx = MultiprocessContext(proc, tmp, nprocs)
    if join:
        ctx.join()
    return ctx
