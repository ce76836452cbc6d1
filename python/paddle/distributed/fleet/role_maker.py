"""Role makers: who this process is (worker index/count, endpoints) from Paddle's variables
(PaddleCloudRoleMaker) or from arguments (UserDefinedRoleMaker). Servers belong to the
parameter-server mode, which Paddle-C does not implement."""
import os

from .. import parallel


class Role:
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4


class RoleMakerBase:
    def __init__(self):
        self._role = Role.WORKER
        self._current_id = 0
        self._worker_num = 1
        self._worker_endpoints = []
        self._server_endpoints = []

    def _is_worker(self):
        return self._role == Role.WORKER

    def _is_server(self):
        return self._role == Role.SERVER

    def _is_first_worker(self):
        return self._is_worker() and self._current_id == 0

    def _worker_index(self):
        return self._current_id

    def _server_index(self):
        return self._current_id if self._is_server() else -1

    def _role_id(self):
        return self._current_id

    def _node_num(self):
        return len({e.split(":")[0] for e in self._worker_endpoints}) or 1

    def _get_trainer_endpoints(self):
        return self._worker_endpoints

    def _get_pserver_endpoints(self):
        return self._server_endpoints

    def _server_num(self):
        return len(self._server_endpoints)

    def _barrier(self, comm_world="worker"):
        if parallel.get_world_size() > 1:
            parallel.init_parallel_env()
            from ..collective import barrier
            barrier()


class PaddleCloudRoleMaker(RoleMakerBase):
    def __init__(self, is_collective=False, **kwargs):
        super().__init__()
        self._is_collective = is_collective
        if not is_collective and os.environ.get("TRAINING_ROLE", "TRAINER") == "PSERVER":
            raise NotImplementedError("PaddleCloudRoleMaker: the parameter-server mode (TRAINING_ROLE=PSERVER) "
                                      "is not implemented in Paddle-C")
        self._current_id = parallel.get_rank()
        self._worker_num = parallel.get_world_size()
        self._worker_endpoints = parallel._endpoints(self._worker_num)

    def _worker_num_(self):
        return self._worker_num


class UserDefinedRoleMaker(PaddleCloudRoleMaker):
    def __init__(self, is_collective=False, init_gloo=False, **kwargs):
        RoleMakerBase.__init__(self)
        self._is_collective = is_collective
        self._role = kwargs.get("role", Role.WORKER)
        if self._role != Role.WORKER:
            raise NotImplementedError("UserDefinedRoleMaker: server roles (parameter-server mode) are not "
                                      "implemented in Paddle-C")
        self._current_id = int(kwargs.get("current_id", 0))
        self._worker_num = int(kwargs.get("worker_num", 1))
        self._worker_endpoints = list(kwargs.get("worker_endpoints", parallel._endpoints(self._worker_num)))
        self._server_endpoints = list(kwargs.get("server_endpoints", []))
