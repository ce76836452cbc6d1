"""CommunicateTopology and HybridCommunicateGroup: the rank grid of hybrid parallelism (data,
pipe, sharding, model axes) and its groups. Paddle-C trains data-parallel: a grid with more than
one rank on the other axes gets its groups, but only data parallelism has an engine behind it."""
import itertools

from .. import collective
from .. import parallel


class CommunicateTopology:
    def __init__(self, hybrid_group_names=("data", "pipe", "sharding", "model"), dims=(1, 1, 1, 1)):
        self._parallel_names = list(hybrid_group_names)
        self._dims = list(dims)
        self._world = list(itertools.product(*[range(d) for d in self._dims]))
        self._coord2rank = {c: i for i, c in enumerate(self._world)}

    def get_hybrid_group_names(self):
        return self._parallel_names

    def get_dim(self, axis_name):
        return self._dims[self._parallel_names.index(axis_name)]

    def world_size(self):
        return len(self._world)

    def get_rank(self, **kwargs):
        return self._coord2rank[tuple(kwargs[n] for n in self._parallel_names)]

    def get_coord(self, rank):
        return self._world[rank]

    def get_axis_list(self, axis_name, index):
        a = self._parallel_names.index(axis_name)
        return sorted(r for c, r in self._coord2rank.items() if c[a] == index)

    def get_dim_size(self, axis_name):
        return self.get_dim(axis_name)

    def get_comm_list(self, axis_name):
        """The rank lists that communicate along axis_name (one per coordinate of the other axes)."""
        a = self._parallel_names.index(axis_name)
        others = [range(d) for i, d in enumerate(self._dims) if i != a]
        out = []
        for o in itertools.product(*others):
            ranks = []
            for k in range(self._dims[a]):
                c = list(o)
                c.insert(a, k)
                ranks.append(self._coord2rank[tuple(c)])
            out.append(ranks)
        return out

    def get_rank_from_stage(self, global_rank, **kwargs):
        c = list(self.get_coord(global_rank))
        for k, v in kwargs.items():
            c[self._parallel_names.index(k)] = v
        return self._coord2rank[tuple(c)]


class HybridCommunicateGroup:
    def __init__(self, topology):
        self._topo = topology
        self.nranks = topology.world_size()
        self.global_rank = parallel.get_rank()
        if parallel.get_world_size() != self.nranks:
            raise ValueError(f"HybridCommunicateGroup: the topology holds {self.nranks} ranks, the job has "
                             f"{parallel.get_world_size()}")
        self._groups = {}
        for name in topology.get_hybrid_group_names():
            mine = None
            for ranks in topology.get_comm_list(name):
                g = collective.new_group(ranks) if self.nranks > 1 else None
                if self.global_rank in ranks:
                    mine = (ranks, g)
            self._groups[name] = mine

    def topology(self):
        return self._topo

    def get_global_rank(self):
        return self.global_rank

    def _rank(self, name):
        ranks, _ = self._groups[name]
        return ranks.index(self.global_rank)

    def _size(self, name):
        return self._topo.get_dim(name)

    def _group(self, name):
        return self._groups[name][1]

    def get_data_parallel_rank(self):
        return self._rank("data")

    def get_data_parallel_world_size(self):
        return self._size("data")

    def get_data_parallel_group(self):
        return self._group("data")

    def get_model_parallel_rank(self):
        return self._rank("model")

    def get_model_parallel_world_size(self):
        return self._size("model")

    def get_model_parallel_group(self):
        return self._group("model")

    def get_stage_id(self):
        return self._rank("pipe")

    def get_pipe_parallel_world_size(self):
        return self._size("pipe")

    def get_pipe_parallel_group(self):
        return self._group("pipe")

    def get_sharding_parallel_rank(self):
        return self._rank("sharding")

    def get_sharding_parallel_world_size(self):
        return self._size("sharding")

    def get_sharding_parallel_group(self):
        return self._group("sharding")
