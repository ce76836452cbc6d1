"""fleet.Fleet in collective mode: init, worker_index/num, is_first_worker, barrier_worker,
distributed_model (paddle.DataParallel) and distributed_optimizer (gradient_merge applied here;
the other strategy switches that change the optimizer raise NotImplementedError). The
parameter-server entry points (init_server, run_server, init_worker, stop_worker) raise
NotImplementedError."""
from .. import parallel
from .strategy import DistributedStrategy
from .role_maker import PaddleCloudRoleMaker
from .util_base import UtilBase


class _DistributedOptimizer:
    """The optimizer of fleet.distributed_optimizer: gradient_merge steps the inner optimizer once
    every k_steps calls (gradients accumulate in between; avg divides them by k)."""

    def __init__(self, inner, strategy):
        self._inner_opt = inner
        self._strategy = strategy
        gm = strategy.gradient_merge
        self._k = int(strategy.gradient_merge_configs["k_steps"]) if gm else 1
        self._avg = bool(strategy.gradient_merge_configs["avg"])
        self._count = 0

    def __getattr__(self, name):
        return getattr(self._inner_opt, name)

    def step(self):
        self._count += 1
        if self._count % self._k:
            return
        if self._k > 1 and self._avg:
            import paddle
            with paddle.no_grad():
                for p in self._inner_opt._parameter_list:
                    if p.grad is not None:
                        p.grad._copy_(p.grad * (1.0 / self._k))
        self._inner_opt.step()

    def clear_grad(self, set_to_zero=True):
        if self._count % self._k == 0:
            self._inner_opt.clear_grad(set_to_zero)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        loss.backward()
        self.step()
        return None, None

    def state_dict(self):
        return self._inner_opt.state_dict()

    def set_state_dict(self, state_dict):
        return self._inner_opt.set_state_dict(state_dict)


class Fleet:
    def __init__(self):
        self._role_maker = None
        self._user_defined_strategy = None
        self._is_collective = False
        self._util = None
        self._hcg = None

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        if strategy is not None and not isinstance(strategy, DistributedStrategy):
            raise TypeError("fleet.init: strategy must be a fleet.DistributedStrategy")
        self._user_defined_strategy = strategy or DistributedStrategy()
        if role_maker is None:
            if not is_collective:
                raise NotImplementedError("fleet.init(is_collective=False): the parameter-server mode is not "
                                          "implemented in Paddle-C; use fleet.init(is_collective=True)")
            role_maker = PaddleCloudRoleMaker(is_collective=True)
        self._role_maker = role_maker
        self._is_collective = bool(is_collective or getattr(role_maker, "_is_collective", False))
        if parallel.get_world_size() > 1:
            parallel.init_parallel_env()
        self._role_maker._current_id = parallel.get_rank()
        self._role_maker._worker_num = parallel.get_world_size()
        self._util = UtilBase()
        return None

    def _need_init(self, what):
        if self._role_maker is None:
            raise RuntimeError(f"fleet.{what}: call fleet.init(is_collective=True) first")

    def is_first_worker(self):
        self._need_init("is_first_worker")
        return self._role_maker._is_first_worker()

    def worker_index(self):
        self._need_init("worker_index")
        return self._role_maker._worker_index()

    def worker_num(self):
        self._need_init("worker_num")
        return self._role_maker._worker_num

    def node_num(self):
        return self._role_maker._node_num()

    def local_rank(self):
        return int(__import__("os").environ.get("PADDLE_RANK_IN_NODE", self.worker_index()))

    def local_device_ids(self):
        return [0]

    def world_device_ids(self):
        return [[0]] * self.node_num()

    def is_worker(self):
        return self._role_maker is not None and self._role_maker._is_worker()

    def is_server(self):
        return self._role_maker is not None and self._role_maker._is_server()

    def worker_endpoints(self, to_string=False):
        eps = self._role_maker._get_trainer_endpoints()
        return ",".join(eps) if to_string else eps

    def server_num(self):
        return self._role_maker._server_num()

    def server_index(self):
        return self._role_maker._server_index()

    def server_endpoints(self, to_string=False):
        eps = self._role_maker._get_pserver_endpoints()
        return ",".join(eps) if to_string else eps

    def barrier_worker(self):
        self._need_init("barrier_worker")
        self._role_maker._barrier("worker")

    @property
    def util(self):
        return self._util

    def _ps(self, what):
        raise NotImplementedError(f"fleet.{what}: the parameter-server mode is not implemented in Paddle-C "
                                  "(collective training: fleet.init(is_collective=True))")

    def init_worker(self, *a, **k):
        self._ps("init_worker")

    def init_server(self, *a, **k):
        self._ps("init_server")

    def run_server(self, *a, **k):
        self._ps("run_server")

    def stop_worker(self, *a, **k):
        self._ps("stop_worker")

    def save_inference_model(self, *a, **k):
        self._ps("save_inference_model")

    def save_persistables(self, *a, **k):
        self._ps("save_persistables")

    def distributed_model(self, model):
        """paddle.DataParallel(model) with the strategy's find_unused_parameters and bucket size."""
        self._need_init("distributed_model")
        from ..data_parallel import DataParallel
        s = self._user_defined_strategy
        if parallel.get_world_size() <= 1:
            return model
        return DataParallel(model, comm_buffer_size=s.fuse_grad_size_in_MB,
                            last_comm_buffer_size=s.last_comm_group_size_MB,
                            find_unused_parameters=s.find_unused_parameters)

    def distributed_optimizer(self, optimizer, strategy=None):
        self._need_init("distributed_optimizer")
        if strategy is not None:
            self._user_defined_strategy = strategy
        s = self._user_defined_strategy
        for name in ("amp", "recompute", "sharding", "lars", "lamb", "pipeline", "tensor_parallel", "dgc",
                     "localsgd", "adaptive_localsgd"):
            if getattr(s, name):
                raise NotImplementedError(f"fleet.distributed_optimizer: DistributedStrategy.{name}=True is not "
                                          "implemented in Paddle-C's collective mode (gradient_merge is; for amp "
                                          "use paddle.amp.auto_cast/GradScaler, for recompute fleet.utils.recompute)")
        return _DistributedOptimizer(optimizer, s)

    def get_hybrid_communicate_group(self):
        if self._hcg is None:
            from .topology import CommunicateTopology, HybridCommunicateGroup
            n = parallel.get_world_size()
            self._hcg = HybridCommunicateGroup(CommunicateTopology(["data", "pipe", "sharding", "model"], [n, 1, 1, 1]))
        return self._hcg

    def state_dict(self):
        raise NotImplementedError("fleet.state_dict: save the model's and the optimizer's state_dict instead")
