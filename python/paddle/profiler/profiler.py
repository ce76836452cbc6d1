"""paddle.profiler.Profiler and its scheduler, exporters and result (Paddle 2.6's semantics).

Events come from the C recorder (csrc/core/pd_prof.c): every op run by the eager runner and the
static executor ("<op> dygraph" eagerly, the op name in a program, with "infer_meta" / "compute"
/ "node_creation" OperatorInner children), every autograd node run ("MatmulGradNode"), and the
Python ranges (RecordEvent, ProfileStep#N, Forward per Layer call, "Gradient Backward",
"Optimization Step", the DataLoader's reads). Timestamps are CLOCK_MONOTONIC nanoseconds.

Files: export(format="json") / export_chrome_tracing write the Chrome trace-event JSON
(chrome://tracing and ui.perfetto.dev open it: one track per thread, "X" events, op input shapes
and dtypes in args, exact nanoseconds in args.start_ns / end_ns). export(format="pb") /
export_protobuf write a Perfetto protobuf trace (perfetto.protos.Trace: TrackDescriptor packets
per process/thread, TrackEvent TYPE_SLICE_BEGIN/END packets with debug annotations), the format
ui.perfetto.dev and trace_processor read natively. load_profiler_result reads both back."""
import json
import os
import time
import warnings
from enum import Enum

from .. import _C
from . import utils
from .profiler_statistic import SortedKeys
from .timer import benchmark
from .utils import RecordEvent, TracerEventType

__all__ = ["ProfilerState", "ProfilerTarget", "make_scheduler", "export_chrome_tracing", "export_protobuf",
           "Profiler"]


class ProfilerState(Enum):
    """CLOSED: not recording; READY: prepared, not recording; RECORD: recording;
    RECORD_AND_RETURN: recording, and the data go to on_trace_ready at the end of the step."""
    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


class ProfilerTarget(Enum):
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


def make_scheduler(*, closed, ready, record, repeat=0, skip_first=0):
    """A scheduler: step -> ProfilerState. After skip_first CLOSED steps, periods of `closed`
    CLOSED, `ready` READY and `record` recording steps (the last RECORD_AND_RETURN), `repeat`
    times (0: for ever), then CLOSED."""
    def get_state(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        period = closed + ready + record
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        m = step % period
        if m < closed:
            return ProfilerState.CLOSED
        if m < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD if m < period - 1 else ProfilerState.RECORD_AND_RETURN

    assert closed >= 0 and ready >= 0 and record > 0 and repeat >= 0 and skip_first >= 0, \
        "Invalid profiler scheduler arguments"
    if ready == 0:
        warnings.warn("Preparing state is skipped, the first recorded step may carry the profiler's "
                      "start-up overhead.")
    return get_state


def _default_state_scheduler(step):
    return ProfilerState.RECORD


def _default_worker_name():
    import socket
    return f"host_{socket.gethostname()}pid_{os.getpid()}"


def export_chrome_tracing(dir_name, worker_name=None):
    """An on_trace_ready callback writing `dir_name/{worker_name}_time_{stamp}.paddle_trace.json`
    (Chrome trace-event JSON)."""
    os.makedirs(dir_name, exist_ok=True)

    def handle_fn(prof):
        import datetime
        name = worker_name or _default_worker_name()
        now = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        prof.export(os.path.join(dir_name, f"{name}_time_{now}.paddle_trace.json"), "json")
    return handle_fn


def export_protobuf(dir_name, worker_name=None):
    """An on_trace_ready callback writing `dir_name/{worker_name}_time_{stamp}.paddle_trace.pb`
    (a Perfetto protobuf trace)."""
    os.makedirs(dir_name, exist_ok=True)

    def handle_fn(prof):
        import datetime
        name = worker_name or _default_worker_name()
        now = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        prof.export(os.path.join(dir_name, f"{name}_time_{now}.paddle_trace.pb"), "pb")
    return handle_fn


# ------------------------------------------------------------------------------ the result
_TYPE_NAMES = {t.value: t.name for t in TracerEventType}
_TYPE_BY_NAME = {t.name: t.value for t in TracerEventType}


class _ProfilerResult:
    """Recorded events: dicts with name, type (TracerEventType value), tid, start_ns, end_ns,
    args (dict), mem (n_alloc, n_free, alloc_bytes, free_bytes); plus extra info."""

    def __init__(self, events, extra=None):
        self.events = events
        self.extra = dict(extra or {})

    @classmethod
    def collect(cls, extra):
        evs = []
        for tid, typ, depth, t0, t1, name, args, na, nf, ab, fb in _C.prof_events():
            evs.append({"name": name, "type": typ, "tid": tid, "start_ns": t0, "end_ns": t1,
                        "args": json.loads(args) if args else {}, "mem": (na, nf, ab, fb)})
        evs.sort(key=lambda e: (e["tid"], e["start_ns"], -e["end_ns"]))
        return cls(evs, extra)

    # Paddle's _ProfilerResult surface
    def get_data(self):
        return self.events

    def get_extra_info(self):
        return self.extra

    def get_span_indx(self):
        return 0

    def get_version(self):
        return "1.0.2"

    def save(self, path, format="json"):
        if format == "json":
            _write_chrome(self, path)
        elif format == "pb":
            _write_perfetto(self, path)
        else:
            raise ValueError(f"export: format should be 'json' or 'pb', but received {format!r}")

    @classmethod
    def load(cls, filename):
        with open(filename, "rb") as f:
            data = f.read()
        head = data.lstrip()[:1]
        try:
            res = _read_chrome(data, filename) if head == b"{" else _read_perfetto(data, filename)
            for e in res.events:
                if not (isinstance(e["start_ns"], int) and isinstance(e["end_ns"], int) and isinstance(e["args"], dict)
                        and len(e["mem"]) == 4 and all(isinstance(v, int) for v in e["mem"])):
                    raise TypeError("bad event fields")
            return res
        except ValueError:
            raise
        except (TypeError, KeyError, IndexError, AttributeError, UnicodeDecodeError, RecursionError,
                OverflowError) as ex:  # well-formed containers holding the wrong kinds of values
            raise ValueError(f"load_profiler_result: {filename} is not a valid profiler trace ({ex})") from None


def _thread_label(tid, names):
    return f"thread {tid}:{names.get(tid, 'Thread')}"


def _chrome_spans(events):
    """(ts, dur) in microseconds per event (keyed by id) such that the "X" events of each thread
    nest exactly as the viewers compute them, end = ts + dur in doubles: ts = start_ns / 1e3 and
    dur = end_ns / 1e3 - ts, a difference of two doubles within a factor of two of each other and
    so exact (Sterbenz), which makes ts + dur equal end_ns / 1e3 exactly; as x / 1e3 is monotonic
    in x, events adjacent or nested in nanoseconds stay adjacent or nested. An event ending after
    the event that encloses its start is clipped to that end (its exact nanoseconds stay in args)."""
    out, by_tid = {}, {}
    for e in events:
        by_tid.setdefault(e["tid"], []).append(e)
    for evs in by_tid.values():
        stack = []  # end_ns of the open ancestors
        for e in sorted(evs, key=lambda e: (e["start_ns"], -e["end_ns"])):
            while stack and stack[-1] <= e["start_ns"]:
                stack.pop()
            end_ns = min(e["end_ns"], stack[-1]) if stack else e["end_ns"]
            ts = e["start_ns"] / 1e3
            out[id(e)] = (ts, end_ns / 1e3 - ts)
            stack.append(end_ns)
    return out


def _write_chrome(res, path):
    pid = int(res.extra.get("pid", os.getpid()))
    names = {int(k): v for k, v in res.extra.get("thread_names", {}).items()}
    t_base = min((e["start_ns"] for e in res.events), default=0)
    out = []
    out.append({"name": "process_name", "pid": pid, "tid": 0, "ph": "M",
                "args": {"name": f"Process {pid} (CPU)"}})
    for tid in sorted({e["tid"] for e in res.events}):
        out.append({"name": "thread_name", "pid": pid, "tid": tid, "ph": "M",
                    "args": {"name": _thread_label(tid, names)}})
        out.append({"name": "thread_sort_index", "pid": pid, "tid": tid, "ph": "M", "args": {"sort_index": tid}})
    spans = _chrome_spans(res.events)
    for e in res.events:
        ts, dur = spans[id(e)]
        args = {"start_time": "%.3f us" % ((e["start_ns"] - t_base) / 1e3),
                "end_time": "%.3f us" % ((e["end_ns"] - t_base) / 1e3),
                "start_ns": e["start_ns"], "end_ns": e["end_ns"]}
        args.update(e["args"])
        if any(e["mem"]):
            args["memory"] = dict(zip(("allocation_count", "free_count", "allocation_size", "free_size"), e["mem"]))
        out.append({"name": e["name"], "pid": pid, "tid": e["tid"], "ts": ts, "dur": dur, "ph": "X", "cat": _TYPE_NAMES.get(e["type"], "Unknown"),
                    "args": args})
    doc = {"displayTimeUnit": "ms", "schemaVersion": "1.0.2", "span_indx": "0", "traceEvents": out,
           "ExtraInfo": {k: v for k, v in res.extra.items() if k != "thread_names"} |
           {str(k): v for k, v in names.items()}}
    with open(path, "w") as f:
        json.dump(doc, f)


def _read_chrome(data, filename):
    try:
        doc = json.loads(data)
        evs_in = doc["traceEvents"]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"load_profiler_result: {filename} is not a profiler trace ({e})") from None
    if not isinstance(evs_in, list):
        raise ValueError(f"load_profiler_result: {filename}: traceEvents is not a list")
    evs, names = [], {}
    for e in evs_in:
        if not isinstance(e, dict):
            raise ValueError(f"load_profiler_result: {filename}: an event is not an object")
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            label = str(e.get("args", {}).get("name", ""))
            names[e.get("tid")] = label.split(":", 1)[1] if ":" in label else label
        if e.get("ph") != "X":
            continue
        try:
            args = dict(e.get("args", {}))
            t0 = int(args.pop("start_ns")) if "start_ns" in args else int(round(float(e["ts"]) * 1e3))
            t1 = int(args.pop("end_ns")) if "end_ns" in args else t0 + int(round(float(e["dur"]) * 1e3))
            mem = args.pop("memory", None)
            args.pop("start_time", None)
            args.pop("end_time", None)
            evs.append({"name": str(e["name"]), "type": _TYPE_BY_NAME.get(e.get("cat"), TracerEventType.UserDefined.value),
                        "tid": int(e["tid"]) if str(e["tid"]).lstrip("-").isdigit() else str(e["tid"]),
                        "start_ns": t0, "end_ns": t1, "args": args,
                        "mem": tuple(int(mem[k]) for k in ("allocation_count", "free_count", "allocation_size",
                                                           "free_size")) if mem else (0, 0, 0, 0)})
        except (KeyError, ValueError, TypeError) as ex:
            raise ValueError(f"load_profiler_result: {filename}: bad event {e!r:.200} ({ex})") from None
    extra = {k: v for k, v in doc.get("ExtraInfo", {}).items() if not str(k).isdigit()} \
        if isinstance(doc.get("ExtraInfo"), dict) else {}
    extra["thread_names"] = {k: v for k, v in names.items()}
    evs.sort(key=lambda e: (str(e["tid"]), e["start_ns"], -e["end_ns"]))
    return _ProfilerResult(evs, extra)


# --- Perfetto protobuf (perfetto.protos.Trace), hand-encoded wire format ---
def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _f_varint(field, n):
    return _varint(field << 3) + _varint(n)


def _f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return _varint((field << 3) | 2) + _varint(len(b)) + b


_SEQ = 1


def _packet(body):
    return _f_bytes(1, body + _f_varint(10, _SEQ))  # Trace.packet; TracePacket.trusted_packet_sequence_id


def _nest(evs):
    """Begin/end order per thread (properly nested; a child ending after its parent is clipped)."""
    out, stack = [], []
    for e in sorted(evs, key=lambda e: (e["start_ns"], -e["end_ns"])):
        while stack and stack[-1][1] <= e["start_ns"]:
            ev, end = stack.pop()
            out.append((end, 2, ev))
        end = min(e["end_ns"], stack[-1][1]) if stack else e["end_ns"]
        out.append((e["start_ns"], 1, e))
        stack.append((e, end))
    while stack:
        ev, end = stack.pop()
        out.append((end, 2, ev))
    return out


def _write_perfetto(res, path):
    pid = int(res.extra.get("pid", os.getpid()))
    names = {int(k): v for k, v in res.extra.get("thread_names", {}).items()}
    buf = bytearray()
    proc_uuid = (pid << 1) | 1
    buf += _packet(_f_bytes(60, _f_varint(1, proc_uuid) + _f_bytes(3, _f_varint(1, pid) + _f_bytes(6, f"Process {pid} (CPU)"))))
    by_tid = {}
    for e in res.events:
        by_tid.setdefault(e["tid"], []).append(e)
    for tid, evs in sorted(by_tid.items()):
        uuid = (int(tid) << 20) + 7
        tdesc = _f_varint(1, pid) + _f_varint(2, int(tid)) + _f_bytes(5, names.get(int(tid), f"Thread {tid}"))
        buf += _packet(_f_bytes(60, _f_varint(1, uuid) + _f_varint(5, proc_uuid) + _f_bytes(4, tdesc)))
        for ts, kind, e in _nest(evs):
            te = _f_varint(9, kind) + _f_varint(11, uuid)
            if kind == 1:
                te += _f_bytes(23, e["name"]) + _f_bytes(22, _TYPE_NAMES.get(e["type"], "Unknown"))
                ann = dict(e["args"])
                ann["start_ns"], ann["end_ns"] = e["start_ns"], e["end_ns"]
                if any(e["mem"]):
                    ann["memory"] = list(e["mem"])
                for k, v in ann.items():
                    te += _f_bytes(4, _f_bytes(10, k) + _f_bytes(6, json.dumps(v)))
            buf += _packet(_f_varint(8, ts) + _f_bytes(11, te))
    with open(path, "wb") as f:
        f.write(bytes(buf))


def _parse(data, pos, end, filename):
    """Yields (field, wire_type, value) of one message; value: int or bytes."""
    while pos < end:
        key, pos = _read_varint(data, pos, end, filename)
        field, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = _read_varint(data, pos, end, filename)
        elif wt == 2:
            n, pos = _read_varint(data, pos, end, filename)
            if pos + n > end:
                raise ValueError(f"load_profiler_result: {filename}: truncated protobuf field")
            v, pos = data[pos:pos + n], pos + n
        elif wt == 1:
            v, pos = int.from_bytes(data[pos:pos + 8], "little"), pos + 8
        elif wt == 5:
            v, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"load_profiler_result: {filename}: unsupported protobuf wire type {wt}")
        if pos > end:
            raise ValueError(f"load_profiler_result: {filename}: truncated protobuf field")
        yield field, wt, v


def _read_varint(data, pos, end, filename):
    n, shift = 0, 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError(f"load_profiler_result: {filename}: bad protobuf varint")
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, pos


def _fields(msg, filename):
    out = {}
    for f, _, v in _parse(msg, 0, len(msg), filename):
        out.setdefault(f, []).append(v)
    return out


def _read_perfetto(data, filename):
    tracks, names, evs, open_by_track = {}, {}, [], {}
    pid = None
    for f, wt, pkt in _parse(data, 0, len(data), filename):
        if f != 1 or wt != 2:
            raise ValueError(f"load_profiler_result: {filename} is neither a JSON trace nor a Perfetto protobuf trace")
        p = _fields(pkt, filename)
        if 60 in p:
            d = _fields(p[60][0], filename)
            uuid = d.get(1, [0])[0]
            if 4 in d:
                t = _fields(d[4][0], filename)
                tid = t.get(2, [0])[0]
                tracks[uuid] = tid
                if 5 in t:
                    names[tid] = t[5][0].decode("utf-8", "replace")
            if 3 in d:
                pid = _fields(d[3][0], filename).get(1, [None])[0]
        if 11 in p:
            ts = p.get(8, [0])[0]
            te = _fields(p[11][0], filename)
            kind, uuid = te.get(9, [0])[0], te.get(11, [0])[0]
            st = open_by_track.setdefault(uuid, [])
            if kind == 1:
                args = {}
                for a in te.get(4, []):
                    af = _fields(a, filename)
                    try:
                        args[af[10][0].decode()] = json.loads(af[6][0].decode())
                    except (KeyError, ValueError):
                        raise ValueError(f"load_profiler_result: {filename}: bad debug annotation") from None
                st.append((ts, te.get(23, [b""])[0].decode("utf-8", "replace"),
                           te.get(22, [b"UserDefined"])[0].decode("utf-8", "replace"), args))
            elif kind == 2:
                if not st:
                    raise ValueError(f"load_profiler_result: {filename}: slice end without a begin")
                t0, name, cat, args = st.pop()
                t0 = args.pop("start_ns", t0)
                t1 = args.pop("end_ns", ts)
                mem = args.pop("memory", None)
                evs.append({"name": name, "type": _TYPE_BY_NAME.get(cat, TracerEventType.UserDefined.value),
                            "tid": tracks.get(uuid, uuid), "start_ns": t0, "end_ns": t1, "args": args,
                            "mem": tuple(mem) if mem else (0, 0, 0, 0)})
    evs.sort(key=lambda e: (e["tid"], e["start_ns"], -e["end_ns"]))
    extra = {"thread_names": names}
    if pid is not None:
        extra["pid"] = pid
    return _ProfilerResult(evs, extra)


# ------------------------------------------------------------------------------ the profiler
class _Recorder:
    """The C recorder's switch: prepare (drop old events), start, stop (-> _ProfilerResult)."""

    def __init__(self, profile_memory):
        self.profile_memory = profile_memory
        self.t_start = None

    def prepare(self):
        _C.prof_clear()

    def start(self):
        s = _C.alloc_stats()
        self.saved_peaks = (s["peak_in_use_bytes"], s["peak_reserved_bytes"])
        _C.alloc_reset_peak()
        self.cpu0, self.wall0, self.sys0 = time.process_time(), time.perf_counter(), _sys_cpu()
        self.names0 = utils._thread_names()  # threads alive at start or stop are named
        _C.prof_enable(True, bool(self.profile_memory))

    def stop(self):
        _C.prof_enable(False)
        s = _C.alloc_stats()
        _C.alloc_raise_peaks(*self.saved_peaks)
        wall = max(time.perf_counter() - self.wall0, 1e-9)
        ncpu = os.cpu_count() or 1
        sys1 = _sys_cpu()
        extra = {"pid": os.getpid(), "thread_names": {**getattr(self, "names0", {}), **utils._thread_names()},
                 "Process Cpu Utilization": "%f" % min((time.process_time() - self.cpu0) / wall / ncpu, 1.0 * ncpu),
                 "System Cpu Utilization": "%f" % _sys_util(self.sys0, sys1),
                 "peak_allocated_bytes": s["peak_in_use_bytes"], "peak_reserved_bytes": s["peak_reserved_bytes"],
                 "allocated_bytes": s["in_use_bytes"], "reserved_bytes": s["in_use_bytes"] + s["cached_bytes"],
                 "profile_memory": bool(self.profile_memory)}
        res = _ProfilerResult.collect(extra)
        _C.prof_clear()
        return res


def _sys_cpu():
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return sum(v) - idle, sum(v)
    except (OSError, ValueError, IndexError):
        return None


def _sys_util(a, b):
    if not a or not b or b[1] == a[1]:
        return 0.0
    return (b[0] - a[0]) / (b[1] - a[1])


class Profiler:
    """Profiles the ops, autograd nodes and Python ranges of the steps a scheduler selects.

    Args:
        targets (list, optional): ProfilerTarget list; only CPU exists here (GPU/XPU/custom
            devices are dropped with a warning, as Paddle's CPU build does).
        scheduler (callable|tuple, optional): step -> ProfilerState, or (start, end) to record
            steps [start, end); default: record every step.
        on_trace_ready (callable, optional): called with the profiler at the end of each recorded
            span (export_chrome_tracing / export_protobuf give such callbacks); default:
            export_chrome_tracing("./profiler_log/"), as in Paddle.
        timer_only (bool, optional): only time the steps (step_info); no events.
        record_shapes, profile_memory, emit_nvtx, custom_device_types, with_flops: Paddle 2.6's
            options; op input shapes and attributes are always recorded; profile_memory
            attributes allocator calls to events (the memory table); with_flops fills the
            operator table's FLOPs column (paddle.utils.flops: Paddle's formulas for matmul,
            conv, elementwise, activations, softmax, layer_norm, pooling; eager and program ops
            alike, where Paddle 2.6's CPU build prints 0) and prints Paddle's "Flops Profiler"
            block after the tables."""

    def __init__(self, *, targets=None, scheduler=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, timer_only=False, emit_nvtx=False, custom_device_types=[],
                 with_flops=False):
        if targets is None:
            targets = [ProfilerTarget.CPU]
        targets = list(targets)
        for t in targets:
            if not isinstance(t, ProfilerTarget):
                raise TypeError(f"Profiler: targets should be ProfilerTarget values, but received {t!r}")
        if any(t is not ProfilerTarget.CPU for t in targets):
            warnings.warn("Profiler: Paddle-C computes on the CPU; only ProfilerTarget.CPU is profiled")
        self.targets = [ProfilerTarget.CPU]
        if scheduler is None:
            self.scheduler = _default_state_scheduler
        elif callable(scheduler):
            self.scheduler = scheduler
        elif isinstance(scheduler, (tuple, list)):
            if len(scheduler) != 2 or not all(isinstance(v, int) for v in scheduler):
                raise ValueError(f"Profiler: scheduler tuple should be (start_batch, end_batch), but received {scheduler!r}")
            start_batch, end_batch = scheduler
            start_batch = max(start_batch, 0)
            if start_batch >= 1:
                self.scheduler = make_scheduler(closed=max(start_batch - 1, 0), ready=1,
                                                record=end_batch - start_batch, repeat=1)
            else:
                self.scheduler = make_scheduler(closed=0, ready=0, record=end_batch - start_batch, repeat=1)
        else:
            raise TypeError(f"Profiler: scheduler should be a callable or a (start, end) tuple, but received "
                            f"{type(scheduler).__name__}")
        # Paddle's default: write a chrome trace under ./profiler_log/ at each span's end
        self.on_trace_ready = export_chrome_tracing("./profiler_log/") if on_trace_ready is None else on_trace_ready
        self.timer_only = timer_only
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.step_num = 0
        self.previous_state = ProfilerState.CLOSED
        self.current_state = self.scheduler(self.step_num)
        self.record_event = None
        self.profiler_result = None
        self.profiler = _Recorder(profile_memory)
        self._step_marks = []

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def _begin_step_event(self):
        self.record_event = RecordEvent(name=f"ProfileStep#{self.step_num}", event_type=TracerEventType.ProfileStep)
        self.record_event.begin()

    def start(self):
        """Starts: records now when the scheduler's state for step 0 records."""
        benchmark().begin()
        if not self.timer_only:
            utils._is_profiler_used = True
        if self.timer_only:
            return
        if self.current_state == ProfilerState.READY:
            self.profiler.prepare()
        elif self.current_state in (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN):
            self.profiler.prepare()
            self.profiler.start()
        self._begin_step_event()

    def stop(self):
        """Stops; a recording span still open goes to on_trace_ready."""
        benchmark().end()
        if self.timer_only:
            return
        if self.record_event:
            self.record_event.end()
            self.record_event = None
        if self.current_state == ProfilerState.READY:
            warnings.warn("Inproper Profiler state transform: READY->CLOSED, profiler will start and stop "
                          "without saving data")
            self.profiler.start()
            self.profiler.stop()
        if self.current_state in (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN):
            self.profiler_result = self.profiler.stop()
            if self.on_trace_ready:
                self.on_trace_ready(self)
        utils._is_profiler_used = False

    def step(self, num_samples=None):
        """Ends the current step (num_samples: the batch size, for ips) and moves the scheduler."""
        benchmark().step(num_samples)
        if self.timer_only:
            return
        if self.record_event:
            self.record_event.end()
            self.record_event = None
        self.previous_state = self.current_state
        self.step_num += 1
        self.current_state = self.scheduler(self.step_num)
        self._trigger_action()
        self._begin_step_event()

    def step_info(self, unit=None):
        """" reader_cost: ... s batch_cost: ... s ips: ... {unit}/s" averaged since the last call."""
        if unit is None:
            unit = "samples"
        return benchmark().step_info(unit)

    def _ready_result(self):
        self.profiler_result = self.profiler.stop()
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _trigger_action(self):
        prev, cur, p = self.previous_state, self.current_state, self.profiler
        S = ProfilerState
        if prev == S.CLOSED:
            if cur == S.READY:
                p.prepare()
            elif cur in (S.RECORD, S.RECORD_AND_RETURN):
                p.prepare()
                p.start()
        elif prev == S.READY:
            if cur == S.CLOSED:
                warnings.warn("Improper schedule: READY->CLOSED, profiler will start and stop without saving data")
                p.start()
                p.stop()
            elif cur in (S.RECORD, S.RECORD_AND_RETURN):
                p.start()
        elif prev == S.RECORD:
            if cur == S.CLOSED:
                warnings.warn("Improper schedule: RECORD->CLOSED, profiler will not saving data")
                p.stop()
            elif cur == S.READY:
                warnings.warn("Improper schedule: RECORD->READY, profiler will stop and re-prepare")
                p.stop()
                p.prepare()
        else:  # RECORD_AND_RETURN
            self._ready_result()
            if cur == S.READY:
                p.prepare()
            elif cur in (S.RECORD, S.RECORD_AND_RETURN):
                p.prepare()
                p.start()

    def export(self, path="", format="json"):
        """Writes the last recorded span: format "json" (Chrome trace) or "pb" (Perfetto protobuf)."""
        if self.profiler_result is None:
            raise RuntimeError("Profiler.export: nothing was recorded yet (no recorded span has ended)")
        self.profiler_result.save(path, format)

    def summary(self, sorted_by=SortedKeys.CPUTotal, op_detail=True, thread_sep=False, time_unit="ms", views=None,
                *, chart_path=None):
        """Prints Paddle's tables for the last recorded span: Device, Overview, Model, Operator,
        UserDefined and (with profile_memory) Memory summaries. chart_path (Paddle-C extra) also
        writes the operator table's total times as a bar-chart PNG."""
        from .profiler_statistic import _build_table
        if self.profiler_result is None:
            raise RuntimeError("Profiler.summary: nothing was recorded yet (no recorded span has ended)")
        print(_build_table(self.profiler_result, sorted_by=sorted_by, op_detail=op_detail,
                           thread_sep=thread_sep, time_unit=time_unit, views=views, chart_path=chart_path,
                           with_flops=self.with_flops))
        if self.with_flops:
            self._print_flops()

    def _print_flops(self, repeat=1):
        """Paddle's Flops Profiler block (with_flops): per Layer and operator, latency and FLOPs."""
        from .profiler_statistic import gen_layer_flops
        if not self.with_flops:
            print("ERROR: with_flops disabled.")
            return
        print(" Flops Profiler Begin ".center(100, "-"))
        print(gen_layer_flops(self.profiler_result, repeat))
        print("- Flops Profiler End -".center(100, "-"))
