"""paddle.distributed.spawn of a function of this (main) script on 2 ranks: argv[1] = out dir,
argv[2] = ok | fail. Each rank writes what its all_reduce gave; `fail` makes rank 1 raise."""
import json
import os
import sys

import numpy as np
import paddle
import paddle.distributed as dist


def train(outdir, mode):
    dist.init_parallel_env()
    r = dist.get_rank()
    t = paddle.to_tensor(np.arange(3, dtype="float32") * (r + 1))
    dist.all_reduce(t)
    if mode == "fail" and r == 1:
        raise ValueError("spawned rank 1 fails on purpose")
    dist.barrier()
    err, paths = 0.0, []
    for overlap in ("0", "1"):  # after backward, then the communication thread (both through shared memory)
        os.environ["PADDLE_C_DP_OVERLAP"] = overlap
        e, path = _dp_vs_one_process(r, dist.get_world_size())
        err, paths = max(err, e), paths + [path]
    with open(os.path.join(outdir, f"spawn.{r}.json"), "w") as f:
        json.dump({"rank": r, "size": dist.get_world_size(), "sum": t.numpy().tolist(), "dp_err": err, "dp_paths": paths,
                   "trainer_id": os.environ.get("PADDLE_TRAINER_ID")}, f)


def _dp_vs_one_process(r, n, steps=20, b=4):
    """DataParallel MLP (SGD, 20 steps, b samples per rank) vs one process on the n*b batch:
    the largest weight difference."""
    import paddle.nn as nn

    def net():
        return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))

    def batch(k):
        rs = np.random.RandomState(k)
        return rs.rand(n * b, 12).astype("float32"), rs.randint(0, 3, (n * b, 1)).astype("int64")
    paddle.seed(7)
    ref = net()
    opt = paddle.optimizer.SGD(0.1, parameters=ref.parameters())
    for k in range(steps):
        x, y = batch(k)
        nn.functional.cross_entropy(ref(paddle.to_tensor(x)), paddle.to_tensor(y)).backward()
        opt.step()
        opt.clear_grad()
    paddle.seed(7 + r)
    model = net()
    dp = paddle.DataParallel(model)
    opt = paddle.optimizer.SGD(0.1, parameters=dp.parameters())
    for k in range(steps):
        x, y = batch(k)
        nn.functional.cross_entropy(dp(paddle.to_tensor(x[r * b:(r + 1) * b])),
                                    paddle.to_tensor(y[r * b:(r + 1) * b])).backward()
        opt.step()
        opt.clear_grad()
    want = ref.state_dict()
    return max(float(np.abs(v.numpy() - want[k].numpy()).max()) for k, v in model.state_dict().items()), \
        {"overlap": dp._overlap, "shm": dp._shm is not None}


if __name__ == "__main__":
    try:
        dist.spawn(train, args=(sys.argv[1], sys.argv[2]), nprocs=2)
        print("SPAWN OK")
    except Exception as e:
        print("SPAWN RAISED", type(e).__name__, str(e).replace("\n", " | ")[:2000])
