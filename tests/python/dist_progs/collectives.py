"""Run under mpirun (2 or 4 ranks) by tests/python/test_distributed.py: every collective of
paddle.distributed against numpy, per dtype; groups; mismatched shapes raise on every rank.
Every rank derives every rank's input from a seed, so each computes the numpy reference itself.
Prints one line `RESULT <json>` (checks passed / failures) per rank."""
import json
import os
import sys
import traceback

import numpy as np
import paddle
import paddle.distributed as dist

dist.init_parallel_env()
R, N = dist.get_rank(), dist.get_world_size()
failures, passed = [], 0

DTYPES = ["float32", "float64", "int32", "int64", "bfloat16", "float16"]


def data(rank, dtype, shape=(3, 5), salt=0):
    rs = np.random.RandomState(1000 * rank + 17 * salt + 7)
    if dtype in ("int32", "int64"):
        return rs.randint(-9, 10, size=shape).astype(dtype)
    v = rs.uniform(-2, 2, size=shape).astype(np.float32)
    if dtype in ("bfloat16", "float16"):
        v = np.round(v * 4) / 4  # exactly representable, sums of a few exact too
    return v.astype(np.float64 if dtype == "float64" else np.float32)


def tensor(a, dtype):
    return paddle.to_tensor(a).astype(dtype) if dtype in ("bfloat16", "float16") else paddle.to_tensor(a, dtype=dtype)


def npv(t):
    return t.astype("float32").numpy() if str(t.dtype.name) in ("bfloat16", "float16") else t.numpy()


def check(name, got, want, dtype):
    global passed
    tol = {"float32": 1e-6, "float64": 1e-12, "bfloat16": 2e-2, "float16": 2e-3}.get(dtype, 0)
    want = np.asarray(want)
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
        failures.append(f"rank {R}: {name} [{dtype}] got {got.ravel()[:6]} want {want.ravel()[:6]}")
    else:
        passed += 1


def run(name, fn):
    try:
        fn()
    except Exception:
        failures.append(f"rank {R}: {name} raised\n{traceback.format_exc()}")


red = {dist.ReduceOp.SUM: lambda xs: np.sum(xs, 0), dist.ReduceOp.MAX: lambda xs: np.max(xs, 0),
       dist.ReduceOp.MIN: lambda xs: np.min(xs, 0), dist.ReduceOp.PROD: lambda xs: np.prod(xs, 0)}

for dt in DTYPES:
    allx = [data(r, dt) for r in range(N)]

    def t_all_reduce():
        for op, f in red.items():
            if op == dist.ReduceOp.PROD and dt in ("bfloat16", "float16"):
                xs = [np.sign(x) * 0.5 for x in allx]  # exact products
            else:
                xs = allx
            t = tensor(xs[R], dt)
            dist.all_reduce(t, op=op)
            check(f"all_reduce op={op}", npv(t), f(np.stack(xs)), dt)
        t = tensor(allx[R], dt)
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        s = np.sum(np.stack(allx), 0)
        check("all_reduce AVG", npv(t), np.trunc(s / N) if dt.startswith("int") else s / N, dt)  # ints: C truncation

    def t_broadcast():
        for src in range(N):
            t = tensor(allx[R], dt)
            dist.broadcast(t, src=src)
            check(f"broadcast src={src}", npv(t), allx[src], dt)

    def t_reduce():
        dst = N - 1
        t = tensor(allx[R], dt)
        dist.reduce(t, dst=dst, op=dist.ReduceOp.SUM)
        check("reduce", npv(t), np.sum(np.stack(allx), 0) if R == dst else allx[R], dt)

    def t_all_gather():
        out = [paddle.zeros([1])]  # cleared first, as Paddle does
        dist.all_gather(out, tensor(allx[R], dt))
        if len(out) != N:
            failures.append(f"rank {R}: all_gather gave {len(out)} tensors")
        for r in range(N):
            check(f"all_gather[{r}]", npv(out[r]), allx[r], dt)

    def t_scatter():
        src = 1 % N
        parts = [data(src, dt, salt=10 + j) for j in range(N)]
        t = tensor(np.zeros_like(parts[0]), dt)
        dist.scatter(t, [tensor(p, dt) for p in parts] if R == src else None, src=src)
        check("scatter", npv(t), parts[R], dt)

    def t_alltoall():
        ins = [tensor(data(R, dt, (2, 3), salt=20 + j), dt) for j in range(N)]
        outs = []
        dist.alltoall(ins, outs)
        for i in range(N):
            check(f"alltoall[{i}]", npv(outs[i]), data(i, dt, (2, 3), salt=20 + R), dt)

    def t_send_recv():
        if R == 0:
            dist.send(tensor(allx[0], dt), dst=N - 1)
        elif R == N - 1:
            t = tensor(np.zeros_like(allx[0]), dt)
            dist.recv(t, src=0)
            check("send/recv", npv(t), allx[0], dt)

    for name, fn in [("all_reduce", t_all_reduce), ("broadcast", t_broadcast), ("reduce", t_reduce),
                     ("all_gather", t_all_gather), ("scatter", t_scatter), ("alltoall", t_alltoall),
                     ("send_recv", t_send_recv)]:
        run(f"{name}[{dt}]", fn)


def t_groups():
    g = dist.new_group([0, N - 1])
    x = data(R, "float32")
    t = paddle.to_tensor(x)
    dist.all_reduce(t, group=g)
    if R in (0, N - 1):
        check("group all_reduce", t.numpy(), data(0, "float32") + data(N - 1, "float32"), "float32")
        t2 = paddle.to_tensor(x)
        dist.broadcast(t2, src=N - 1, group=g)
        check("group broadcast (global src)", t2.numpy(), data(N - 1, "float32"), "float32")
    else:
        check("non-member untouched", t.numpy(), x, "float32")
        if g.is_member() or g.rank != -1:
            failures.append(f"rank {R}: is_member wrong")
    if dist.get_group(g.id) is not g:
        failures.append("get_group(id) is not the group")
    if dist.get_group(0).nranks != N:
        failures.append("get_group(0) is not the global group")


def t_mismatch():
    global passed
    # different shapes across ranks: every rank raises, nothing is written
    t = paddle.ones([2 + R])
    try:
        dist.all_reduce(t)
        failures.append(f"rank {R}: mismatched all_reduce did not raise")
    except ValueError as e:
        if "differ across ranks" not in str(e):
            failures.append(f"rank {R}: wrong message {e}")
        else:
            passed += 1
    if not np.array_equal(t.numpy(), np.ones(2 + R, np.float32)):
        failures.append(f"rank {R}: mismatched all_reduce wrote into the tensor")
    t = paddle.ones([4], dtype="float32" if R == 0 else "float64")
    try:
        dist.broadcast(t, src=0)
        failures.append(f"rank {R}: mismatched dtype broadcast did not raise")
    except ValueError:
        passed += 1
    # send/recv with a wrong receiving shape: the receiver raises and the pair stays in step
    if R == 0:
        dist.send(paddle.ones([3]), dst=1)
        dist.send(paddle.full([2], 5.0), dst=1)
    elif R == 1:
        try:
            dist.recv(paddle.zeros([4]), src=0)
            failures.append("recv of a wrong shape did not raise")
        except ValueError:
            passed += 1
        t = paddle.zeros([2])
        dist.recv(t, src=0)
        check("recv after a mismatch", t.numpy(), np.full(2, 5.0), "float32")
    dist.barrier()
    # the values survive: a good all_reduce after the errors
    t = paddle.to_tensor(np.full(3, float(R + 1), np.float32))
    dist.all_reduce(t)
    check("all_reduce after errors", t.numpy(), np.full(3, N * (N + 1) / 2), "float32")


def t_env():
    env = dist.ParallelEnv()
    if (env.rank, env.world_size) != (R, N) or len(env.trainer_endpoints) != N:
        failures.append(f"rank {R}: ParallelEnv {env.rank}/{env.world_size} {env.trainer_endpoints}")
    import os
    if int(os.environ["PADDLE_TRAINER_ID"]) != R or int(os.environ["PADDLE_TRAINERS_NUM"]) != N:
        failures.append(f"rank {R}: PADDLE_TRAINER_* not set")
    if env.current_endpoint != env.trainer_endpoints[R]:
        failures.append(f"rank {R}: current_endpoint {env.current_endpoint}")
    dist.wait(paddle.ones([1]))
    dist.gloo_barrier()


def t_fleet():
    from paddle.distributed import fleet
    fleet.init(is_collective=True)
    if fleet.worker_index() != R or fleet.worker_num() != N or fleet.is_first_worker() != (R == 0):
        failures.append(f"rank {R}: fleet worker_index/num wrong")
    fleet.barrier_worker()
    u = fleet.util.all_reduce(np.array([R + 1.0]), mode="sum")
    check("fleet.util.all_reduce", u, np.array([N * (N + 1) / 2]), "float64")
    hcg = fleet.get_hybrid_communicate_group()
    if hcg.get_data_parallel_world_size() != N or hcg.get_data_parallel_rank() != R:
        failures.append(f"rank {R}: hcg data parallel rank/size wrong")


def t_split():
    """paddle.distributed.split: row/column-parallel Linear and the vocabulary-split Embedding
    against the whole matrices in numpy, forward and gradients."""
    from paddle.nn.initializer import Assign
    rs = np.random.RandomState(3)
    F = 8
    W = rs.rand(F, F).astype("float32") - 0.5
    b = rs.rand(F).astype("float32")
    xv = rs.rand(3, F).astype("float32")
    k = F // N
    for axis in (0, 1):
        part = W[R * k:(R + 1) * k, :] if axis == 0 else W[:, R * k:(R + 1) * k]
        bpart = b if axis == 0 else b[R * k:(R + 1) * k]
        x = paddle.to_tensor(xv, stop_gradient=False)
        out = dist.split(x, (F, F), "linear", axis=axis, num_partitions=N,
                         weight_attr=paddle.ParamAttr(initializer=Assign(part)),
                         bias_attr=paddle.ParamAttr(initializer=Assign(bpart)))
        check(f"split linear axis={axis}", out.numpy(), xv @ W + b, "float32")
        (out * paddle.to_tensor(np.arange(3 * F, dtype="float32").reshape(3, F))).sum().backward()
        gout = np.arange(3 * F, dtype="float32").reshape(3, F)
        check(f"split linear axis={axis} x.grad", x.grad.numpy(), gout @ W.T, "float32")
    table = rs.rand(F, 4).astype("float32")
    ids = np.array([[0, 3, 7], [5, 1, 2]], dtype="int64")
    emb = dist.split(paddle.to_tensor(ids), (F, 4), "embedding", num_partitions=N,
                     weight_attr=paddle.ParamAttr(initializer=Assign(table[R * k:(R + 1) * k])))
    check("split embedding", emb.numpy(), table[ids], "float32")


def t_shm():
    """paddle._dist's shared-memory all-reduce (DataParallel's path on one machine) against numpy:
    float32/float64, SUM/AVG, a range at an offset (odd count: uneven slices), the bytes around it
    untouched, every rank bitwise equal. Across machines (the launch --ips job) shm_alloc is None."""
    global passed
    from paddle import _dist
    got = _dist.shm_alloc(0, 8 * 1000 + 64)
    if got is None:
        if os.environ.get("EXPECT_SHM") == "1":
            failures.append(f"rank {R}: shm_alloc gave None on one machine")
        return
    wh, mem = got
    for dt, op in (("float32", dist.ReduceOp.SUM), ("float64", dist.ReduceOp.AVG), ("float32", dist.ReduceOp.AVG)):
        es = np.dtype(dt).itemsize
        buf = np.frombuffer(mem, dtype=dt, count=(8 * 1000) // es)
        xs = [np.random.RandomState(50 + r).uniform(-3, 3, buf.size).astype(dt) for r in range(N)]
        buf[:] = xs[R]
        lo, cnt = 5, 997 if es == 4 else 377
        _dist.shm_allreduce(wh, lo * es, cnt, dt, op)
        want = xs[0][lo:lo + cnt].copy()
        for x in xs[1:]:
            want = want + x[lo:lo + cnt]  # rank order, as the slices are summed
        if op == dist.ReduceOp.AVG:
            want = want * np.array(1.0 / N, dtype=dt)
        outside = np.concatenate([buf[:lo], buf[lo + cnt:]])
        ok = np.array_equal(buf[lo:lo + cnt], want) and np.array_equal(outside, np.concatenate([xs[R][:lo], xs[R][lo + cnt:]]))
        allv = []
        dist.all_gather(allv, paddle.to_tensor(buf[lo:lo + cnt].copy()))
        ok = ok and all(np.array_equal(v.numpy(), allv[0].numpy()) for v in allv)
        if ok:
            passed += 1
        else:
            failures.append(f"rank {R}: shm_allreduce {dt} op {op}: {buf[lo:lo + 4]} want {want[:4]}")
    try:
        _dist.shm_allreduce(wh, 0, 10 ** 6, "float32", 0)
        failures.append(f"rank {R}: shm_allreduce past the window did not raise")
    except ValueError:
        passed += 1


for name, fn in [("split", t_split), ("groups", t_groups), ("mismatch", t_mismatch), ("env", t_env), ("fleet", t_fleet),
                 ("shm", t_shm)]:
    run(name, fn)

print("RESULT " + json.dumps({"rank": R, "size": N, "passed": passed, "failures": failures}))
sys.stdout.flush()
