"""Run on 2 ranks by tests/python/test_distributed.py: an atexit handler registered BEFORE
init_parallel_env runs after paddle's own (atexit is last-in, first-out) and reads a .grad of a
DataParallel model, which points into the shared-memory window of the gradient buckets. The
window must still be mapped then (it goes at Py_AtExit, after the interpreter): prints
`RESULT <json>` with the gradient read there and the one read during the step."""
import atexit
import json

import numpy as np
import paddle
import paddle.distributed as dist

box = {}


def late_reader():
    g = box["param"].grad.numpy()  # a freed window would crash or read garbage here
    print("RESULT " + json.dumps({"rank": box["rank"], "at_exit": float(np.abs(g).sum()),
                                  "in_step": box["in_step"]}), flush=True)


atexit.register(late_reader)
dist.init_parallel_env()
paddle.seed(5)
model = paddle.DataParallel(paddle.nn.Linear(64, 32))
x = paddle.to_tensor(np.random.RandomState(dist.get_rank()).rand(8, 64).astype("float32"))
model(x).square().mean().backward()
box.update(param=model._layers.weight, rank=dist.get_rank(),
           in_step=float(np.abs(model._layers.weight.grad.numpy()).sum()))
