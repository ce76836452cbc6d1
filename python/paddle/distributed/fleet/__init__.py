"""paddle.distributed.fleet, collective mode (see fleet_base.py)."""
from .strategy import DistributedStrategy  # noqa: F401
from .fleet_base import Fleet  # noqa: F401
from .role_maker import Role, PaddleCloudRoleMaker, UserDefinedRoleMaker  # noqa: F401
from .util_base import UtilBase  # noqa: F401
from .topology import CommunicateTopology, HybridCommunicateGroup  # noqa: F401
from .data_generator import MultiSlotDataGenerator, MultiSlotStringDataGenerator  # noqa: F401
from . import utils  # noqa: F401

__all__ = ["CommunicateTopology", "UtilBase", "HybridCommunicateGroup", "MultiSlotStringDataGenerator",
           "UserDefinedRoleMaker", "DistributedStrategy", "Role", "MultiSlotDataGenerator",
           "PaddleCloudRoleMaker", "Fleet"]

fleet = Fleet()
init = fleet.init
is_first_worker = fleet.is_first_worker
worker_index = fleet.worker_index
worker_num = fleet.worker_num
node_num = fleet.node_num
local_rank = fleet.local_rank
is_worker = fleet.is_worker
is_server = fleet.is_server
worker_endpoints = fleet.worker_endpoints
server_num = fleet.server_num
server_index = fleet.server_index
server_endpoints = fleet.server_endpoints
barrier_worker = fleet.barrier_worker
init_worker = fleet.init_worker
init_server = fleet.init_server
run_server = fleet.run_server
stop_worker = fleet.stop_worker
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
save_inference_model = fleet.save_inference_model
save_persistables = fleet.save_persistables
get_hybrid_communicate_group = fleet.get_hybrid_communicate_group


def __getattr__(name):
    if name == "util":
        return fleet.util
    raise AttributeError(f"module 'paddle.distributed.fleet' has no attribute {name!r}")
