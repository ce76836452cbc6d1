"""fleet.UtilBase: small collectives on numpy data across the workers (all_reduce, all_gather,
barrier), the file shard of this worker and printing on one rank."""
import numpy as np

from .. import parallel


class UtilBase:
    def __init__(self):
        self.role_maker = None

    def _set_role_maker(self, role_maker):
        self.role_maker = role_maker

    def all_reduce(self, input, mode="sum", comm_world="worker"):
        if comm_world != "worker":
            raise NotImplementedError(f"UtilBase.all_reduce: comm_world={comm_world!r} (parameter server)")
        ops = {"sum": 0, "max": 1, "min": 2}
        if mode not in ops:
            raise ValueError(f"UtilBase.all_reduce: mode must be sum, max or min, received {mode!r}")
        arr = np.ascontiguousarray(np.array(input))
        if parallel.get_world_size() > 1:
            parallel.init_parallel_env()
            parallel._lib().all_reduce(0, arr, arr.dtype.name, ops[mode])
        return arr

    def barrier(self, comm_world="worker"):
        if parallel.get_world_size() > 1:
            parallel.init_parallel_env()
            parallel._lib().barrier(0)

    def all_gather(self, input, comm_world="worker"):
        n = parallel.get_world_size()
        if n <= 1:
            return [input]
        parallel.init_parallel_env()
        arr = np.ascontiguousarray(np.array([input]))
        out = np.empty((n,) + arr.shape[1:], dtype=arr.dtype)
        parallel._lib().all_gather(0, arr, out, arr.dtype.name)
        return [x.item() if x.ndim == 0 else x for x in out]

    def get_file_shard(self, files):
        if not isinstance(files, list):
            raise TypeError("files should be a list of file need to be read.")
        n, r = parallel.get_world_size(), parallel.get_rank()
        per, rem = divmod(len(files), n)
        start = r * per + min(r, rem)
        return files[start:start + per + (1 if r < rem else 0)]

    def print_on_rank(self, message, rank_id):
        if parallel.get_rank() == rank_id:
            print(message)
