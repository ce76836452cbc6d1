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
    with open(os.path.join(outdir, f"spawn.{r}.json"), "w") as f:
        json.dump({"rank": r, "size": dist.get_world_size(), "sum": t.numpy().tolist(),
                   "trainer_id": os.environ.get("PADDLE_TRAINER_ID")}, f)


if __name__ == "__main__":
    try:
        dist.spawn(train, args=(sys.argv[1], sys.argv[2]), nprocs=2)
        print("SPAWN OK")
    except Exception as e:
        print("SPAWN RAISED", type(e).__name__, str(e).replace("\n", " | ")[:2000])
