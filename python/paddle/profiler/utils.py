"""RecordEvent, TracerEventType and the profiler-mode flag (Paddle 2.6's paddle.profiler.utils).
Events go to the C recorder (csrc/core/pd_prof.c) next to the op events, on the CLOCK_MONOTONIC
nanosecond clock."""
import functools
import threading
from enum import Enum

from .. import _C

__all__ = ["RecordEvent", "load_profiler_result", "in_profiler_mode", "wrap_optimizers"]

_is_profiler_used = False


class TracerEventType(Enum):
    """Paddle's event types (same values as paddle.base.core.TracerEventType)."""
    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14


def in_profiler_mode():
    return _is_profiler_used


class RecordEvent:
    """A user range: ``with RecordEvent(name): ...`` or ``e.begin() ... e.end()``. Recorded (on
    the calling thread's track) only while a Profiler records; otherwise both calls do nothing.

    Args:
        name (str): the event's name.
        event_type (TracerEventType, optional): PythonUserDefined by default.
    """

    def __init__(self, name, event_type=TracerEventType.PythonUserDefined):
        if not isinstance(event_type, TracerEventType):
            raise TypeError(f"RecordEvent: event_type should be a TracerEventType, but received "
                            f"{type(event_type).__name__}")
        self.name = str(name)
        self.event_type = event_type
        self._start = None

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.end()

    def begin(self):
        """Opens the range (only while recording)."""
        if not _is_profiler_used or not _C.prof_enabled():
            self._start = None
            return
        if self.event_type not in (TracerEventType.PythonUserDefined, TracerEventType.UserDefined,
                                   TracerEventType.Forward, TracerEventType.Backward,
                                   TracerEventType.Optimization, TracerEventType.Dataloader,
                                   TracerEventType.ProfileStep, TracerEventType.PythonOp):
            import warnings
            warnings.warn("Only TracerEvent Type in [TracerEventType.Dataloader, TracerEventType.ProfileStep, "
                          "TracerEventType.UserDefined, TracerEventType.Forward, TracerEventType.Backward, "
                          "TracerEventType.Optimization, TracerEventType.PythonOp, "
                          "TracerEventType.PythonUserDefined] can be recorded.")
            return
        self._start = _C.prof_now()

    def end(self):
        """Closes the range and records it (nothing when begin did not open it)."""
        if self._start is None:
            return
        t0, self._start = self._start, None
        _C.prof_record(self.event_type.value, self.name, t0, _C.prof_now())


def load_profiler_result(filename):
    """Reads a file written by Profiler.export / export_chrome_tracing / export_protobuf back
    into a ProfilerResult (format picked from the file's content)."""
    from .profiler import _ProfilerResult
    return _ProfilerResult.load(filename)


def wrap_optimizers():
    """Makes every Optimizer.step record an "Optimization Step" event while profiling (done once,
    at import of paddle.profiler, as Paddle does)."""
    from .. import optimizer as _opt
    cls = _opt.Optimizer
    if getattr(cls.step, "_profiler_wrapped", False):
        return
    inner = cls.step

    @functools.wraps(inner)
    def step(self, *args, **kwargs):
        if _is_profiler_used:
            with RecordEvent("Optimization Step", TracerEventType.Optimization):
                return inner(self, *args, **kwargs)
        return inner(self, *args, **kwargs)

    step._profiler_wrapped = True
    cls.step = step


def _thread_names():
    return {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
