"""paddle.distributed: data-parallel training over MPI (OpenMPI; csrc/dist is the C side, the
separate extension paddle._dist). See docs/arch/distributed.md "paddle.distributed"."""
from .parallel import (ParallelEnv, init_parallel_env, get_rank, get_world_size, gloo_init_parallel_env,  # noqa: F401
                       gloo_barrier, gloo_release, is_initialized)
from .collective import (ReduceOp, Group, new_group, get_group, all_reduce, reduce, broadcast,  # noqa: F401
                         all_gather, scatter, alltoall, send, recv, barrier, wait, split)
from .spawn import spawn  # noqa: F401
from .entry_attr import ProbabilityEntry, CountFilterEntry, ShowClickEntry  # noqa: F401
from .dataset import InMemoryDataset, QueueDataset  # noqa: F401
from .launch.main import launch  # noqa: F401
from . import fleet  # noqa: F401

__all__ = ["spawn", "launch", "scatter", "broadcast", "ParallelEnv", "new_group", "init_parallel_env",
           "gloo_init_parallel_env", "gloo_barrier", "gloo_release", "QueueDataset", "split",
           "CountFilterEntry", "ShowClickEntry", "get_world_size", "get_group", "all_gather",
           "InMemoryDataset", "barrier", "all_reduce", "alltoall", "send", "reduce", "recv",
           "ReduceOp", "wait", "get_rank", "ProbabilityEntry"]
