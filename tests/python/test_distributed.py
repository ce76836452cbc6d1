"""paddle.distributed over MPI: multi-process jobs (launch, spawn, plain mpirun) whose programs in
dist_progs/ check every collective against numpy (float32/64, int32/64, bfloat16, float16; 2
and 4 ranks), DataParallel training against one process on the concatenated batch, and faults
(a failing rank ends the job within a bounded time, and launch names it); plus single-process
checks of the Python surface. Each job is one program batching many checks (start-up is the cost)."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import paddle
import paddle.distributed as dist
from paddle.distributed import fleet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGS = os.path.join(ROOT, "tests", "python", "dist_progs")


def _have_mpi():
    if shutil.which("mpirun") is None:
        return False
    try:
        from paddle import _dist  # noqa: F401
    except ImportError:
        return False
    return True


needs_mpi = pytest.mark.skipif(not _have_mpi(), reason="OpenMPI (mpirun, paddle._dist) not available")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env["OMP_NUM_THREADS"] = "1"
    env.pop("PADDLE_TRAINER_ID", None)
    env.pop("PADDLE_TRAINERS_NUM", None)
    return env


def _run(cmd, timeout, cwd=None, **env):
    return subprocess.run(cmd, env=dict(_env(), **env), capture_output=True, text=True, timeout=timeout, cwd=cwd)


def _results(text, n=None):
    """The `RESULT {json}` records in text (mpirun may interleave the ranks' lines)."""
    dec, res, i = json.JSONDecoder(), [], text.find("RESULT ")
    while i >= 0:
        obj, end = dec.raw_decode(text, i + len("RESULT "))
        res.append(obj)
        i = text.find("RESULT ", end)
    return res


def _mpirun(n):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1", "-np", str(n)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


@needs_mpi
def test_launch_two_machines_collectives_and_data_parallel(tmp_path):
    """`launch --ips 127.0.0.1,127.0.0.2 --nproc_per_node 1`: two "machines" as OpenMPI sees them
    (one daemon per host, started through local_rsh.sh instead of ssh; TCP between the ranks, no
    shared memory), running every collective and DataParallel check with the overlap thread."""
    log = tmp_path / "log"
    ck = tmp_path / "ckpt"
    ck.mkdir()
    agent = os.path.join(PROGS, "local_rsh.sh")
    p = _run([sys.executable, "-m", "paddle.distributed.launch", "--ips", "127.0.0.1,127.0.0.2", "--nproc_per_node",
              "1", "--log_dir", str(log), os.path.join(PROGS, "all_checks.py"), str(tmp_path)], timeout=120,
             DP_TRAIN_OUT=str(ck), PADDLE_C_DP_OVERLAP="1",
             PADDLE_C_MPIRUN_ARGS=f"--mca plm_rsh_agent {agent} --mca btl self,tcp")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    res = []
    for r in range(2):
        text = (log / f"workerlog.{r}").read_text()
        got = _results(text, 2)
        assert len(got) == 2, text[-3000:]  # collectives + DataParallel
        res += got
    for r in res:
        assert r["failures"] == [], r["failures"]
    coll = [r for r in res if "env" not in r]
    dp = [r for r in res if "env" in r]
    assert all(r["passed"] >= 80 for r in coll), [r["passed"] for r in coll]
    assert all(r["passed"] >= 38 for r in dp), [r["passed"] for r in dp]
    assert all(r["overlap"] for r in dp)  # the communication-thread path
    # launch set Paddle's variables per rank and echoed rank 0's log
    envs = sorted((r["env"] for r in dp), key=lambda e: e["PADDLE_TRAINER_ID"])
    assert [e["PADDLE_TRAINER_ID"] for e in envs] == ["0", "1"]
    assert all(e["PADDLE_TRAINERS_NUM"] == "2" for e in envs)
    eps = envs[0]["PADDLE_TRAINER_ENDPOINTS"].split(",")
    assert eps == ["127.0.0.1:6170", "127.0.0.2:6170"] and [e["PADDLE_CURRENT_ENDPOINT"] for e in envs] == eps
    assert "RESULT" in p.stdout
    assert sorted(os.listdir(ck)) == ["ckpt.pdopt", "ckpt.pdparams"]  # Model.save: rank 0 only, renamed whole


@needs_mpi
def test_mpirun_four_ranks_collectives_and_data_parallel():
    p = _run(_mpirun(4) + [sys.executable, os.path.join(PROGS, "all_checks.py")], timeout=180,
             PADDLE_C_DP_OVERLAP="0", EXPECT_SHM="1", DP_CHECKS="train,no_sync,unused,sparse_embedding,shared_weight,fleet_sharding,sampler")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    res = _results(p.stdout, 4)
    coll = [r for r in res if "env" not in r]
    dp = [r for r in res if "env" in r]
    assert sorted(r["rank"] for r in coll) == [0, 1, 2, 3] and sorted(r["rank"] for r in dp) == [0, 1, 2, 3]
    for r in coll:
        assert r["size"] == 4 and r["failures"] == [] and r["passed"] >= 100, r
    for r in dp:  # the all-reduce-after-backward path, through the shared-memory window (one machine)
        assert r["size"] == 4 and r["failures"] == [] and r["passed"] >= 15 and not r["overlap"] and r["shm"], r


@needs_mpi
def test_grad_in_the_shared_window_is_readable_by_a_late_atexit_handler():
    """DataParallel's .grad tensors point into the shared-memory window; MPI and the window go at
    Py_AtExit, so an atexit handler that runs after paddle's (registered before
    init_parallel_env) still reads the all-reduced gradient, on every rank."""
    p = _run(_mpirun(2) + [sys.executable, os.path.join(PROGS, "grad_after_exit.py")], timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    res = _results(p.stdout)
    assert sorted(r["rank"] for r in res) == [0, 1], p.stdout[-3000:]
    for r in res:
        assert r["in_step"] > 0 and r["at_exit"] == r["in_step"], r
    assert res[0]["in_step"] == res[1]["in_step"]  # all-reduced: the same on both ranks


@needs_mpi
def test_spawn(tmp_path):
    p = _run([sys.executable, os.path.join(PROGS, "spawn_prog.py"), str(tmp_path), "ok"], timeout=90)
    assert "SPAWN OK" in p.stdout, p.stdout[-3000:] + p.stderr[-3000:]
    for r in range(2):
        d = json.loads((tmp_path / f"spawn.{r}.json").read_text())
        assert d["size"] == 2 and d["trainer_id"] == str(r)
        np.testing.assert_array_equal(d["sum"], np.arange(3) * 3.0)
        assert d["dp_err"] <= 1e-6, d  # DataParallel under spawn == one process on the whole batch
        # both gradient paths ran, each through the shared-memory window (one machine)
        assert d["dp_paths"] == [{"overlap": False, "shm": True}, {"overlap": True, "shm": True}], d


@needs_mpi
def test_spawn_failing_rank_raises(tmp_path):
    p = _run([sys.executable, os.path.join(PROGS, "spawn_prog.py"), str(tmp_path), "fail"], timeout=90)
    assert "SPAWN RAISED Exception" in p.stdout, p.stdout[-3000:] + p.stderr[-3000:]
    assert "Process 1 terminated" in p.stdout and "spawned rank 1 fails on purpose" in p.stdout
    assert not (tmp_path / "spawn.0.json").exists()  # rank 0 did not get past its barrier


@needs_mpi
def test_launch_reports_a_killed_rank(tmp_path):
    log = tmp_path / "log"
    p = _run([sys.executable, "-m", "paddle.distributed.launch", "--nproc_per_node", "2", "--log_dir", str(log),
              os.path.join(PROGS, "fault.py"), "kill"], timeout=60)  # a hang would hit the timeout
    assert p.returncode != 0
    assert "failed rank(s): 1" in p.stderr, p.stderr[-3000:]
    assert "should not get here" not in (log / "workerlog.0").read_text()


# ---- single process ----

def test_mpirun_cmd_sizes_openmp_per_rank(monkeypatch):
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun not on PATH")
    from paddle.distributed.launch._mpi import mpirun_cmd
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert "OMP_NUM_THREADS=4" in mpirun_cmd(2)  # 8 cores, 2 ranks here
    assert "OMP_NUM_THREADS=2" in mpirun_cmd(8, hosts=["a:4", "b:4"])  # 4 ranks per machine
    assert "OMP_NUM_THREADS=1" in mpirun_cmd(16)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # the user's setting travels as it is
    cmd = mpirun_cmd(2)
    assert not any(c.startswith("OMP_NUM_THREADS=") for c in cmd) and "OMP_NUM_THREADS" in cmd


def test_single_process_surface():
    assert dist.get_rank() == 0 and dist.get_world_size() == 1
    env = dist.ParallelEnv()
    assert env.rank == 0 and env.world_size == 1 and env.nranks == 1
    assert (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD, dist.ReduceOp.AVG) == (0, 1, 2, 3, 4)
    # DataParallel in one process: the layer itself, names unchanged
    lin = paddle.nn.Linear(3, 2)
    dp = paddle.DataParallel(lin)
    assert list(dp.state_dict()) == list(lin.state_dict()) == ["weight", "bias"]
    x = paddle.rand([4, 3])
    np.testing.assert_allclose(dp(x).numpy(), lin(x).numpy())
    with pytest.raises(NotImplementedError):
        dist.InMemoryDataset()
    assert dist.ProbabilityEntry(0.5)._to_attr() == "probability_entry:0.5"
    assert dist.CountFilterEntry(3)._to_attr() == "count_filter_entry:3"


def test_data_parallel_needs_init_in_a_multi_rank_job(monkeypatch):
    if dist.is_initialized():
        pytest.skip("initialized by an earlier test")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    with pytest.raises(RuntimeError, match="init_parallel_env"):
        paddle.DataParallel(paddle.nn.Linear(2, 2))


def test_collective_needs_init():
    if dist.is_initialized():
        pytest.skip("initialized by an earlier test")
    with pytest.raises(RuntimeError, match="init_parallel_env"):
        dist.all_reduce(paddle.ones([2]))
    with pytest.raises(TypeError):
        dist.all_reduce(np.ones(2))


def test_fleet_strategy_and_recompute():
    s = fleet.DistributedStrategy()
    assert s.amp is False and s.gradient_merge_configs == {"k_steps": 1, "avg": True}
    s.gradient_merge = True
    s.gradient_merge_configs = {"k_steps": 2}
    assert s.gradient_merge_configs == {"k_steps": 2, "avg": True}
    with pytest.raises(TypeError):
        s.amp = 1
    with pytest.raises(ValueError):
        s.amp_configs = {"no_such_key": 1}
    with pytest.raises(AttributeError):
        s.no_such_switch = True
    # recompute: same output and gradients as running the block directly
    paddle.seed(3)
    block = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanh(), paddle.nn.Linear(8, 2))
    x = paddle.rand([5, 4])
    x.stop_gradient = False
    y = block(x)
    y.sum().backward()
    want_x, want_w = x.grad.numpy().copy(), block[0].weight.grad.numpy().copy()
    x.clear_grad()
    block.clear_gradients()
    y2 = fleet.utils.recompute(block, x)
    np.testing.assert_allclose(y2.numpy(), y.numpy(), rtol=1e-6)
    y2.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want_x, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(block[0].weight.grad.numpy(), want_w, rtol=1e-5, atol=1e-7)


def test_fleet_single_worker_and_gradient_merge():
    fleet.init(is_collective=True)
    assert fleet.worker_index() == 0 and fleet.worker_num() == 1 and fleet.is_first_worker()
    s = fleet.DistributedStrategy()
    s.gradient_merge = True
    s.gradient_merge_configs = {"k_steps": 2, "avg": True}
    paddle.seed(1)
    lin = paddle.nn.Linear(3, 1)
    w0 = lin.weight.numpy().copy()
    opt = fleet.distributed_optimizer(paddle.optimizer.SGD(learning_rate=1.0, parameters=lin.parameters()), s)
    model = fleet.distributed_model(lin)
    xs = [np.random.RandomState(k).rand(2, 3).astype("float32") for k in range(2)]
    gsum = 0
    for x in xs:
        model(paddle.to_tensor(x)).sum().backward()
        opt.step()
        opt.clear_grad()
        gsum = gsum + x.sum(0)
    np.testing.assert_allclose(lin.weight.numpy()[:, 0], w0[:, 0] - gsum / 2, rtol=1e-5)
    bad = fleet.DistributedStrategy()
    bad.lars = True
    with pytest.raises(NotImplementedError, match="lars"):
        fleet.distributed_optimizer(paddle.optimizer.SGD(parameters=lin.parameters()), bad)
    # lamb: Adam becomes Lamb with lamb_configs; one step equals paddle.optimizer.Lamb's
    s = fleet.DistributedStrategy()
    s.lamb = True
    s.lamb_configs = {"lamb_weight_decay": 0.05}
    x = paddle.to_tensor(np.random.RandomState(5).rand(4, 3).astype("float32"))
    ws = []
    for make in (lambda ps: fleet.distributed_optimizer(paddle.optimizer.Adam(0.1, beta1=0.8, parameters=ps), s),
                 lambda ps: paddle.optimizer.Lamb(0.1, lamb_weight_decay=0.05, beta1=0.8, parameters=ps)):
        paddle.seed(8)
        net = paddle.nn.Linear(3, 2)
        opt = make(net.parameters())
        for _ in range(2):
            net(x).sum().backward()
            opt.step()
            opt.clear_grad()
        ws.append(net.weight.numpy())
    np.testing.assert_allclose(ws[0], ws[1], rtol=1e-6)
    with pytest.raises(ValueError, match="Adam"):
        fleet.distributed_optimizer(paddle.optimizer.SGD(parameters=lin.parameters()), s)


def test_convert_sync_batchnorm_single_process():
    paddle.seed(2)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(2, 3, 3), paddle.nn.BatchNorm2D(3))
    x = paddle.rand([4, 2, 5, 5])
    want = net(x).numpy()
    w = net[1].weight
    conv = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(conv[1], paddle.nn.SyncBatchNorm) and conv[1].weight is w
    net[1]._mean.set_value(np.zeros(3, "float32"))
    net[1]._variance.set_value(np.ones(3, "float32"))
    np.testing.assert_allclose(conv(x).numpy(), want, rtol=1e-5, atol=1e-6)
    assert list(conv.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias", "1._mean", "1._variance"]


@needs_mpi
def test_plain_mpirun_rank_that_raises_ends_the_job():
    """Without the launcher: the fault hook installed by init_parallel_env aborts the job (rank 0
    waits in an all_reduce for the failed rank and must not hang)."""
    p = _run(_mpirun(2) + [sys.executable, os.path.join(PROGS, "fault.py"), "raise"], timeout=60)
    assert p.returncode != 0
    assert "rank 1 fails on purpose" in p.stderr and "paddle.distributed: rank 1 failed" in p.stderr, p.stderr[-3000:]
    assert "should not get here" not in p.stdout
