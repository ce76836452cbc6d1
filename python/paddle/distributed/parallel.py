"""paddle.distributed's environment: ParallelEnv, init_parallel_env, get_rank/get_world_size and
the gloo_* names, over MPI (paddle._dist, csrc/dist). A rank's identity comes from MPI once
initialized, else from Paddle's variables (PADDLE_TRAINER_ID ...), else from OpenMPI's
(OMPI_COMM_WORLD_RANK ...), so `launch`, `spawn` and a plain `mpirun -np N python train.py` agree."""
import atexit
import os
import sys

_state = {"init": False, "rank": 0, "size": 1}


def _lib():
    try:
        from .. import _dist
    except ImportError as e:  # built without mpicc, or libmpi missing at run time
        raise RuntimeError("paddle.distributed needs MPI (OpenMPI): paddle._dist could not be loaded "
                           f"({e}); install libopenmpi-dev/openmpi-bin and rebuild") from None
    return _dist


def _env_int(*names, default):
    for n in names:
        v = os.environ.get(n)
        if v not in (None, ""):
            return int(v)
    return default


def _env_rank():
    return _env_int("PADDLE_TRAINER_ID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", default=0)


def _env_size():
    return _env_int("PADDLE_TRAINERS_NUM", "OMPI_COMM_WORLD_SIZE", default=1)


def _endpoints(n):
    eps = os.environ.get("PADDLE_TRAINER_ENDPOINTS")
    if eps:
        return eps.split(",")
    return [f"127.0.0.1:{6170 + i}" for i in range(n)]


class ParallelEnv:
    """The environment of this rank, as Paddle's launcher describes it."""

    def __init__(self):
        self._rank = get_rank()
        self._world_size = get_world_size()
        self._device_id = int(os.environ.get("FLAGS_selected_gpus", os.environ.get("PADDLE_LOCAL_RANK", "0")).split(",")[0] or 0)
        self._trainer_endpoints = _endpoints(self._world_size)
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT",
                                                self._trainer_endpoints[self._rank] if self._rank < len(self._trainer_endpoints) else "")

    @property
    def rank(self):
        return self._rank

    @property
    def world_size(self):
        return self._world_size

    @property
    def device_id(self):
        return self._device_id

    @property
    def current_endpoint(self):
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        return self._trainer_endpoints

    @property
    def local_rank(self):
        return self._rank

    @property
    def nranks(self):
        return self._world_size

    @property
    def dev_id(self):
        return self._device_id


def _fault_hook(exc_type, exc, tb):
    """An uncaught exception on one rank ends every rank (MPI_Abort), so none waits forever in a
    collective; the launcher learns which rank failed from PADDLE_C_FAULT_DIR/failed.<rank>.
    A job of one process just reports the exception as Python does."""
    import traceback
    size = _state["size"] if _state["init"] else _env_size()
    d = os.environ.get("PADDLE_C_FAULT_DIR")
    if size <= 1 and not d:
        sys.__excepthook__(exc_type, exc, tb)
        return
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    rank = _state["rank"] if _state["init"] else _env_rank()
    try:
        sys.stderr.write(text)
        sys.stderr.write(f"paddle.distributed: rank {rank} failed, aborting all ranks\n")
        sys.stderr.flush()
    except Exception:
        pass
    if d:
        try:
            with open(os.path.join(d, f"failed.{rank}"), "w") as f:
                f.write(text)
        except OSError:
            pass
    if _state["init"]:
        _lib().abort(1)
    os._exit(1)


def _install_fault_hook():
    if sys.excepthook is not _fault_hook:
        sys.excepthook = _fault_hook


def _finalize():
    if _state["init"]:
        _state["init"] = False
        _lib().finalize()


def init_parallel_env():
    """Initializes MPI (once) and the global group; sets Paddle's environment variables from the
    MPI rank where the launcher did not. Returns the global Group."""
    from . import collective
    if not _state["init"]:
        lib = _lib()
        if not (os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ.get("PMIX_RANK")):
            # a lone process (no mpirun): MPI's singleton start needs these as root
            os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        rank, size = lib.init()
        _state.update(init=True, rank=rank, size=size)
        want = os.environ.get("PADDLE_TRAINER_ID")
        if want not in (None, "") and int(want) != rank and os.environ.get("OMPI_COMM_WORLD_SIZE"):
            raise RuntimeError(f"init_parallel_env: PADDLE_TRAINER_ID={want} but MPI gives this process rank {rank}")
        os.environ["PADDLE_TRAINER_ID"] = str(rank)
        os.environ["PADDLE_TRAINERS_NUM"] = str(size)
        eps = _endpoints(size)
        os.environ.setdefault("PADDLE_TRAINER_ENDPOINTS", ",".join(eps))
        os.environ.setdefault("PADDLE_CURRENT_ENDPOINT", eps[rank] if rank < len(eps) else "")
        os.environ.setdefault("PADDLE_RANK_IN_NODE", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", str(rank)))
        collective._reset_groups(rank, size)
        _install_fault_hook()
        atexit.register(_finalize)
    return collective._get_global_group()


def get_rank(group=None):
    """This process's rank (in group when given; -1 if not a member)."""
    if group is not None:
        return group.rank
    return _state["rank"] if _state["init"] else _env_rank()


def get_world_size(group=None):
    """The number of ranks (of group when given)."""
    if group is not None:
        return group.world_size
    return _state["size"] if _state["init"] else _env_size()


def is_initialized():
    return _state["init"]


def gloo_init_parallel_env(rank_id, rank_num, server_endpoint):
    """Paddle's CPU barrier environment; served by the same MPI transport (the endpoint is unused)."""
    if not isinstance(rank_id, int) or not isinstance(rank_num, int):
        raise TypeError("gloo_init_parallel_env: rank_id and rank_num must be ints")
    init_parallel_env()
    if (rank_id, rank_num) != (_state["rank"], _state["size"]):
        raise ValueError(f"gloo_init_parallel_env: rank_id/rank_num ({rank_id}/{rank_num}) differ from the "
                         f"launched job's ({_state['rank']}/{_state['size']})")


def gloo_barrier():
    """A barrier across all ranks (the MPI transport)."""
    if not _state["init"]:
        raise RuntimeError("gloo_barrier: call gloo_init_parallel_env first")
    _lib().barrier(0)


def gloo_release():
    """Releases the gloo environment: nothing to release beyond MPI's own teardown at exit."""
    return None
