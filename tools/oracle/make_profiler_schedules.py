"""Writes tests/python/data/profiler_schedules.json: the ProfilerState sequences real Paddle
2.6.2's make_scheduler gives (run with /work/oracle/bin/python from an empty directory)."""
import json
import sys

import paddle.profiler as profiler

CASES = [dict(closed=1, ready=1, record=3, repeat=1), dict(closed=1, ready=0, record=2, repeat=2, skip_first=2),
         dict(closed=0, ready=2, record=1), dict(closed=2, ready=1, record=1, repeat=0, skip_first=1),
         dict(closed=0, ready=0, record=4, repeat=3)]
out = [{"args": c, "states": [profiler.make_scheduler(**c)(i).name for i in range(16)]} for c in CASES]
for start, end in [(2, 5), (0, 3), (1, 2)]:  # Profiler(scheduler=(start, end))
    p = profiler.Profiler(scheduler=(start, end))
    out.append({"tuple": [start, end], "states": [p.scheduler(i).name for i in range(10)]})
json.dump(out, open(sys.argv[1], "w"), indent=1)
