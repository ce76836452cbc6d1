"""paddle.profiler: Paddle 2.6's profiler over Paddle-C's C event recorder (csrc/core/pd_prof.c);
see profiler.py for what is recorded and the two file formats."""
from .profiler import (Profiler, ProfilerState, ProfilerTarget, export_chrome_tracing,  # noqa: F401
                       export_protobuf, make_scheduler)
from .profiler_statistic import SortedKeys, SummaryView  # noqa: F401
from .utils import RecordEvent, TracerEventType, load_profiler_result  # noqa: F401

__all__ = ["ProfilerState", "ProfilerTarget", "make_scheduler", "export_chrome_tracing", "export_protobuf",
           "Profiler", "RecordEvent", "load_profiler_result", "SortedKeys", "SummaryView"]
