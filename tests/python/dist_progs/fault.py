"""Run on 2 ranks by tests/python/test_distributed.py: rank 1 fails (argv[1]: raise | exit | kill)
while rank 0 waits in an all_reduce; the job must end (not hang) and name rank 1."""
import os
import signal
import sys

import paddle
import paddle.distributed as dist

dist.init_parallel_env()
t = paddle.ones([4])
dist.all_reduce(t)
if dist.get_rank() == 1:
    how = sys.argv[1]
    if how == "raise":
        raise RuntimeError("rank 1 fails on purpose")
    if how == "exit":
        sys.exit(3)
    os.kill(os.getpid(), signal.SIGKILL)
dist.all_reduce(t)  # rank 0 waits here for a rank that is gone
print("rank 0 should not get here")
