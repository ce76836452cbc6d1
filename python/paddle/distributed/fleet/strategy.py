"""fleet.DistributedStrategy: the switches of Paddle's collective training, as plain attributes
with Paddle's defaults and type checks (Paddle keeps them in a protobuf; the names are the same)."""
import copy

_DEFAULTS = {
    "amp": False,
    "amp_configs": {"init_loss_scaling": 32768.0, "incr_every_n_steps": 1000, "decr_every_n_nan_or_inf": 2,
                    "incr_ratio": 2.0, "decr_ratio": 0.8, "use_dynamic_loss_scaling": True,
                    "custom_white_list": [], "custom_black_list": [], "custom_black_varnames": [],
                    "use_pure_fp16": False, "use_fp16_guard": True},
    "recompute": False, "recompute_configs": {"checkpoints": [], "enable_offload": False, "checkpoint_shape": []},
    "gradient_merge": False, "gradient_merge_configs": {"k_steps": 1, "avg": True},
    "sharding": False, "sharding_configs": {"sharding_degree": 8, "segment_broadcast_MB": 32.0, "stage": 1,
                                            "mp_degree": 1, "dp_degree": 1, "pp_degree": 1},
    "lars": False, "lars_configs": {"lars_coeff": 0.001, "lars_weight_decay": 0.0005, "epsilon": 0.0,
                                    "exclude_from_weight_decay": []},
    "lamb": False, "lamb_configs": {"lamb_weight_decay": 0.01, "exclude_from_weight_decay": []},
    "pipeline": False, "pipeline_configs": {"micro_batch_size": 1, "accumulate_steps": 1, "schedule_mode": "1F1B"},
    "tensor_parallel": False, "tensor_parallel_configs": {"tensor_parallel_degree": 1, "tensor_init_seed": -1},
    "hybrid_configs": {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1},
    "localsgd": False, "localsgd_configs": {"k_steps": 1, "begin_step": 1},
    "adaptive_localsgd": False, "adaptive_localsgd_configs": {"init_k_steps": 1, "begin_step": 1},
    "dgc": False, "dgc_configs": {"rampup_begin_step": 0, "rampup_step": 1, "sparsity": [0.999]},
    "fp16_allreduce": False, "a_sync": True, "a_sync_configs": {}, "auto": False, "semi_auto": False,
    "find_unused_parameters": False, "fuse_all_reduce_ops": True, "fuse_grad_size_in_MB": 32,
    "fuse_grad_size_in_TFLOPS": 50.0, "nccl_comm_num": 1, "sync_nccl_allreduce": True,
    "use_hierarchical_allreduce": False, "hierarchical_allreduce_inter_nranks": 1, "sync_batch_norm": False,
    "last_comm_group_size_MB": 1.0, "without_graph_optimization": False, "cudnn_exhaustive_search": False,
    "conv_workspace_size_limit": 512, "cudnn_batchnorm_spatial_persistent": False, "heter_ccl_mode": False,
    "execution_strategy": None, "build_strategy": None, "gradient_scale_configs": {"scale_strategy": "avg"},
    "qat": False, "qat_configs": {}, "asp": False, "elastic": False, "trainer_desc_configs": {},
}


class DistributedStrategy:
    """Attributes of collective training (amp, recompute, gradient_merge, sharding, lars, lamb ...)."""

    def __init__(self):
        object.__setattr__(self, "_v", copy.deepcopy(_DEFAULTS))
        # a_sync defaults to True in Paddle but only matters to the parameter server; collective mode ignores it

    def __getattr__(self, name):
        v = object.__getattribute__(self, "_v")
        if name in v:
            return v[name]
        raise AttributeError(f"DistributedStrategy has no attribute {name!r}")

    def __setattr__(self, name, value):
        v = object.__getattribute__(self, "_v")
        if name not in v:
            raise AttributeError(f"DistributedStrategy has no attribute {name!r}")
        old = v[name]
        if name.endswith("_configs"):
            if not isinstance(value, dict):
                raise TypeError(f"DistributedStrategy.{name} must be a dict, received {type(value).__name__}")
            for k in value:
                if k not in old:
                    raise ValueError(f"DistributedStrategy.{name}: unknown key {k!r} (known: {sorted(old)})")
            merged = dict(old)
            merged.update(value)
            v[name] = merged
            return
        if isinstance(old, bool) and not isinstance(value, bool):
            raise TypeError(f"DistributedStrategy.{name} must be a bool, received {type(value).__name__}")
        v[name] = value

    def __repr__(self):
        v = object.__getattribute__(self, "_v")
        on = [k for k, x in v.items() if x is True]
        return f"DistributedStrategy(enabled: {', '.join(on) or 'none'})"
