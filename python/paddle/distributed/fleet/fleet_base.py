"""fleet.Fleet in collective mode: init, worker_index/num, is_first_worker, barrier_worker,
distributed_model (paddle.DataParallel) and distributed_optimizer (gradient_merge; sharding
stage 1: optimizer state partitioned across ranks; lamb: Adam replaced by Lamb with
lamb_configs; the other optimizer switches raise NotImplementedError). The
parameter-server entry points (init_server, run_server, init_worker, stop_worker) raise
NotImplementedError."""
from .. import parallel
from .strategy import DistributedStrategy
from .role_maker import PaddleCloudRoleMaker
from .util_base import UtilBase


class _DistributedOptimizer:
    """The optimizer of fleet.distributed_optimizer: gradient_merge steps the inner optimizer once
    every k_steps calls (gradients accumulate in between; avg divides them by k). sharding (stage
    1): each parameter has an owner rank (greedy by size, the same on every rank); a step updates
    only the owned parameters, so only they get optimizer state, then every parameter is
    broadcast from its owner (the gradients are already averaged by DataParallel)."""

    def __init__(self, inner, strategy):
        self._inner_opt = inner
        self._strategy = strategy
        gm = strategy.gradient_merge
        self._k = int(strategy.gradient_merge_configs["k_steps"]) if gm else 1
        self._avg = bool(strategy.gradient_merge_configs["avg"])
        self._count = 0
        self._owner = None
        n = parallel.get_world_size()
        if strategy.sharding and n > 1:
            stage = strategy.sharding_configs.get("stage", 1)
            if stage != 1:
                raise NotImplementedError(f"fleet sharding stage {stage}: only stage 1 (optimizer state "
                                          "partitioned) is implemented in Paddle-C")
            from ...nn.clip import ClipGradByGlobalNorm
            clips = [inner._grad_clip] + [g.get("grad_clip") for g in inner._param_groups]
            if any(isinstance(c, ClipGradByGlobalNorm) for c in clips):
                raise NotImplementedError("fleet sharding with ClipGradByGlobalNorm: the global norm over "
                                          "partitioned parameters is not implemented in Paddle-C")
            load = [0] * n
            self._owner = {}
            order = sorted(range(len(inner._parameter_list)), key=lambda i: -inner._parameter_list[i].size)
            for i in order:
                r = min(range(n), key=lambda k: (load[k], k))
                self._owner[id(inner._parameter_list[i])] = r
                load[r] += inner._parameter_list[i].size

    def _sharded_step(self):
        from ..collective import broadcast
        me = parallel.get_rank()
        groups = self._inner_opt._param_groups
        saved = [g["params"] for g in groups]
        try:
            for g in groups:
                g["params"] = [p for p in g["params"] if self._owner[id(p)] == me]
            self._inner_opt.step()
        finally:
            for g, ps in zip(groups, saved):
                g["params"] = ps
        import paddle
        with paddle.no_grad():
            for p in self._inner_opt._parameter_list:
                broadcast(p, src=self._owner[id(p)])

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
        if self._owner is not None:
            self._sharded_step()
        else:
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


def _to_lamb(opt, cfg):
    """Paddle's lamb switch: an Adam optimizer becomes Lamb with the same learning rate, betas,
    epsilon and parameters, lamb_weight_decay, and no decay for parameter names containing an
    entry of exclude_from_weight_decay."""
    import paddle
    if not isinstance(opt, paddle.optimizer.Adam) or isinstance(opt, paddle.optimizer.AdamW):
        raise ValueError(f"DistributedStrategy.lamb applies to paddle.optimizer.Adam, received {type(opt).__name__}")
    excl = list(cfg.get("exclude_from_weight_decay", []))

    def exclude(p):
        return any(e in p.name for e in excl)
    return paddle.optimizer.Lamb(learning_rate=opt._learning_rate, lamb_weight_decay=cfg["lamb_weight_decay"],
                                 beta1=opt._beta1, beta2=opt._beta2, epsilon=opt._epsilon,
                                 parameters=opt._parameter_list,
                                 grad_clip=opt._grad_clip, exclude_from_weight_decay_fn=exclude if excl else None)


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
        for name in ("amp", "recompute", "lars", "pipeline", "tensor_parallel", "dgc", "localsgd",
                     "adaptive_localsgd"):
            if getattr(s, name):
                raise NotImplementedError(f"fleet.distributed_optimizer: DistributedStrategy.{name}=True is not "
                                          "implemented in Paddle-C's collective mode (gradient_merge, sharding "
                                          "stage 1 and lamb are; for amp use paddle.amp.auto_cast/GradScaler, for "
                                          "recompute fleet.utils.recompute)")
        if s.lamb:
            optimizer = _to_lamb(optimizer, s.lamb_configs)
        return _DistributedOptimizer(optimizer, s)

    def get_hybrid_communicate_group(self):
        if self._hcg is None:
            from .topology import CommunicateTopology, HybridCommunicateGroup
            n = parallel.get_world_size()
            self._hcg = HybridCommunicateGroup(CommunicateTopology(["data", "pipe", "sharding", "model"], [n, 1, 1, 1]))
        return self._hcg

    def state_dict(self):
        raise NotImplementedError("fleet.state_dict: save the model's and the optimizer's state_dict instead")
