"""paddle.profiler: scheduler states against real Paddle 2.6.2's (tests/python/data/
profiler_schedules.json, made by tools/oracle/make_profiler_schedules.py), a profiled training
loop (tables, a chrome trace covering >= 95% of every step, both file formats read back),
RecordEvent nesting, timer_only / step_info, memory attribution, threads, the static executor,
the bar chart PNG, and a fuzz of load_profiler_result."""
import glob
import json
import os
import random
import struct
import threading
import time
import warnings
import zlib

import numpy as np
import pytest

import paddle
import paddle.profiler as profiler
from paddle import _C

DATA = os.path.join(os.path.dirname(__file__), "data", "profiler_schedules.json")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # Profiler() writes ./profiler_log/ by default (Paddle's default)


def test_default_on_trace_ready_writes_profiler_log(tmp_path):
    with profiler.Profiler():
        paddle.exp(paddle.ones([3]))
    files = glob.glob(str(tmp_path / "profiler_log" / "host_*pid_*_time_*.paddle_trace.json"))
    assert len(files) == 1
    names = [e["name"] for e in json.load(open(files[0]))["traceEvents"]]
    assert "exp dygraph" in names and "ProfileStep#0" in names


def _mlp(widths=(32, 64, 64, 10)):  # (the coverage test uses a size where a step takes milliseconds)
    layers = []
    for i in range(len(widths) - 1):
        layers.append(paddle.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(paddle.nn.ReLU())
    return paddle.nn.Sequential(*layers)


class _DS(paddle.io.Dataset):
    def __init__(self, n=64, delay=0.0, dim=32):
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((n, dim)).astype("float32")
        self.y = rng.integers(0, 10, (n, 1)).astype("int64")
        self.delay = delay

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay)
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def test_names():
    assert set(profiler.__all__) >= {"ProfilerState", "ProfilerTarget", "make_scheduler", "export_chrome_tracing",
                                     "export_protobuf", "Profiler", "RecordEvent", "load_profiler_result",
                                     "SortedKeys"}
    for n in profiler.__all__:
        assert hasattr(profiler, n)


def test_scheduler_matches_paddle():
    cases = json.load(open(DATA))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in cases:
            if "args" in c:
                f = profiler.make_scheduler(**c["args"])
            else:
                f = profiler.Profiler(scheduler=tuple(c["tuple"])).scheduler
            assert [f(i).name for i in range(len(c["states"]))] == c["states"], c
    with pytest.raises(AssertionError):
        profiler.make_scheduler(closed=1, ready=1, record=0)
    with pytest.raises(AssertionError):
        profiler.make_scheduler(closed=-1, ready=1, record=2)


def _train(prof, net, loader, opt, steps):
    it = iter(loader)
    loss_fn = paddle.nn.CrossEntropyLoss()
    for _ in range(steps):
        x, y = next(it)
        out = net(x)
        loss = loss_fn(out, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        prof.step(num_samples=x.shape[0])


def _coverage(xs):
    """per ProfileStep "X" event of a chrome trace (as a viewer draws it, from ts/dur in us):
    (step duration, time covered by the union of the thread's other events inside the step,
    the longest uncovered gap)"""
    out = []
    for st in [e for e in xs if e["cat"] == "ProfileStep"]:
        s0, s1 = st["ts"], st["ts"] + st["dur"]
        iv = sorted((max(e["ts"], s0), min(e["ts"] + e["dur"], s1)) for e in xs
                    if e is not st and e["tid"] == st["tid"] and e["ts"] + e["dur"] > s0 and e["ts"] < s1)
        tot, gap, cur = 0.0, 0.0, s0
        for a, b in iv:
            gap = max(gap, a - cur)
            tot += max(0.0, b - max(a, cur))
            cur = max(cur, b)
        gap = max(gap, s1 - cur)
        out.append((st["dur"], tot, gap))
    return out


_PHASES = set("BEXiIbnePSTpFsftCMNODRc()")
_META = {"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index",
         "thread_name": "name", "thread_sort_index": "sort_index"}


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def _validate_chrome_trace(doc):
    """The Trace Event Format (Google's spec, "JSON Object Format"), strictly: an object with a
    traceEvents array; every event an object with a known ph, a str name, int pid and tid; "X"
    events with numeric ts/dur >= 0 (microseconds), a str cat and an args object; "M" events
    only Paddle's/the spec's metadata names with the argument each one takes; one process_name per
    pid and one thread_name per thread that has events (one track per thread); and the "X"
    events of a thread nest properly both as doubles (end = ts + dur) and in whole nanoseconds
    (a viewer drops or misplaces partially overlapping slices)."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    pnames, tnames, tracks = {}, {}, {}
    for e in doc["traceEvents"]:
        assert isinstance(e, dict) and e.get("ph") in _PHASES, e
        assert isinstance(e["name"], str) and e["name"], e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
        if e["ph"] == "M":
            assert e["name"] in _META and isinstance(e["args"], dict), e
            v = e["args"][_META[e["name"]]]
            assert isinstance(v, int if e["name"].endswith("sort_index") else str), e
            if e["name"] == "process_name":
                assert e["pid"] not in pnames, e
                pnames[e["pid"]] = v
            if e["name"] == "thread_name":
                assert (e["pid"], e["tid"]) not in tnames, e
                tnames[(e["pid"], e["tid"])] = v
        elif e["ph"] == "X":
            assert _num(e["ts"]) and _num(e["dur"]) and e["ts"] >= 0 and e["dur"] >= 0, e
            assert isinstance(e["cat"], str) and isinstance(e.get("args", {}), dict), e
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
        else:
            raise AssertionError(f"unexpected phase {e['ph']} in {e}")
    assert set(tracks) <= set(tnames) and {p for p, _ in tracks} <= set(pnames)
    assert len(set(tnames.values())) == len(tnames)  # one distinctly named track per thread
    for evs in tracks.values():
        for key in (lambda e: (e["ts"], e["ts"] + e["dur"]),
                    lambda e: (round(e["ts"] * 1000), round(e["ts"] * 1000) + round(e["dur"] * 1000))):
            stack = []
            for a, b in sorted(map(key, evs), key=lambda ab: (ab[0], -ab[1])):
                while stack and stack[-1] <= a:
                    stack.pop()
                assert not stack or b <= stack[-1], ("partial overlap", a, b, stack[-1])
                stack.append(b)


def test_training_loop_tables_trace_and_reload(tmp_path, capsys):
    paddle.seed(0)
    net = _mlp((256, 512, 512, 10))
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    loader = paddle.io.DataLoader(_DS(n=384, dim=256), batch_size=64, shuffle=False)
    tdir = str(tmp_path / "trace")
    ready = []
    cb = profiler.export_chrome_tracing(tdir, worker_name="w0")

    def on_ready(p):
        ready.append(p.step_num)
        cb(p)
    p = profiler.Profiler(scheduler=profiler.make_scheduler(closed=1, ready=1, record=4, repeat=1),
                          on_trace_ready=on_ready)
    p.start()
    _train(p, net, loader, opt, 6)
    p.stop()
    assert ready == [6]  # RECORD_AND_RETURN at step 5 hands the data over when step 6 begins
    files = glob.glob(os.path.join(tdir, "w0_time_*.paddle_trace.json"))
    assert len(files) == 1
    doc = json.load(open(files[0]))
    _validate_chrome_trace(doc)
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    steps = sorted(e["name"] for e in xs if e["cat"] == "ProfileStep")
    assert steps == ["ProfileStep#2", "ProfileStep#3", "ProfileStep#4", "ProfileStep#5"]
    # 3 Linear layers: 3 matmul per step forward; shapes of the first one are the batch's
    fwd = [(e["ts"], e["ts"] + e["dur"]) for e in xs if e["cat"] == "Forward"]
    mm = [e for e in xs if e["name"] == "matmul dygraph" and any(a <= e["ts"] <= b for a, b in fwd)]
    assert len(mm) == 4 * 3
    assert mm[0]["args"]["input_shapes"] == {"x": [[64, 256]], "y": [[256, 512]]}
    assert mm[0]["args"]["input_dtypes"] == {"x": ["float32"], "y": ["float32"]}
    cats = {e["cat"] for e in xs}
    assert {"Operator", "OperatorInner", "Forward", "Backward", "Optimization", "Dataloader", "ProfileStep"} <= cats
    assert sum(1 for e in xs if e["name"] == "MatmulGradNode") == 4 * 3
    # coverage: the trace's events explain >= 95% of every step's wall time (the step's own
    # recorded span). The uncovered rest is the loop's Python glue between recorded ranges
    # (opt.clear_grad, the loop statement, Profiler.step itself): 10-100 us gaps, ~2% of a
    # 10 ms step. A step may fall below only when the OS descheduled the thread inside one of
    # those gaps (2 shared cores under load): that shows as a single gap over 1 ms, far above
    # any glue gap, and such a step must still reach 95% with that one gap taken out. At least
    # half the steps must reach 95% as they are. On a fast run the step is ~4 ms and the same
    # glue is ~5% of it: a step whose uncovered time is within 300 us of glue passes too.
    cov = _coverage(xs)
    assert len(cov) == 4
    plain = [tot / dur for dur, tot, gap in cov]
    explained = [c >= 0.95 or dur - tot <= 300 for (dur, tot, gap), c in zip(cov, plain)]
    assert sum(explained) >= 2, cov
    for (dur, tot, gap), ok in zip(cov, explained):
        assert ok or (gap > 1000 and tot / (dur - gap) >= 0.95), cov
    res = profiler.load_profiler_result(files[0])
    # both formats read back to the same events
    ref = p.profiler_result.get_data()
    key = lambda e: (e["name"], e["type"], e["start_ns"], e["end_ns"])  # noqa: E731
    assert sorted(map(key, res.get_data())) == sorted(map(key, ref))
    pb = str(tmp_path / "t.pb")
    p.export(pb, format="pb")
    _validate_perfetto_trace(open(pb, "rb").read(), ref)
    res2 = profiler.load_profiler_result(pb)
    assert sorted(map(key, res2.get_data())) == sorted(map(key, ref))
    assert [e["args"] for e in res2.get_data() if e["name"] == "matmul dygraph"][0]["input_shapes"] == \
        {"x": [[64, 256]], "y": [[256, 512]]}
    # the tables
    capsys.readouterr()
    p.summary(op_detail=True, time_unit="us")
    text = capsys.readouterr().out
    for title in ("Device Summary", "Overview Summary", "Model Summary", "Operator Summary"):
        assert title in text
    lines = text.splitlines()
    row = [ln for ln in lines if ln.startswith("ProfileStep ")]
    assert row and row[-1].split()[1] == "4"
    mrow = [ln for ln in lines if ln.startswith("matmul dygraph")][0]
    cells = mrow[54:].split()
    n_mm = sum(1 for e in ref if e["name"] == "matmul dygraph" and not any(
        g["type"] == 0 and g["name"] != "matmul dygraph" and g["start_ns"] <= e["start_ns"] <= g["end_ns"] for g in ref))
    assert n_mm == 12
    assert cells[0] == "12"  # calls: the top-level ones (those inside MatmulGradNode are its children)
    tot, avg, mx, mn = (float(cells[i]) for i in (1, 3, 5, 7))
    durs = [e["end_ns"] - e["start_ns"] for e in ref if e["name"] == "matmul dygraph" and not any(
        g["type"] == 0 and g["name"] != "matmul dygraph" and g["start_ns"] <= e["start_ns"] <= g["end_ns"] for g in ref)]
    assert abs(tot - sum(durs) / 1e3) <= 0.01 + 1e-6 * tot and abs(mx - max(durs) / 1e3) <= 0.01
    assert abs(mn - min(durs) / 1e3) <= 0.01 and abs(avg - sum(durs) / len(durs) / 1e3) <= 0.01
    assert "  matmul compute" in text and "MatmulGradNode" in text
    for ln in ("  Forward ", "  Backward ", "  Optimization ", "  Dataloader ", "  Others "):
        assert any(x.startswith(ln) for x in lines), ln
    capsys.readouterr()
    p.summary(sorted_by=profiler.SortedKeys.CPUMin, op_detail=False, thread_sep=True)
    text = capsys.readouterr().out
    assert f"Thread: {mm[0]['tid']}" in text and "  matmul compute" not in text
    block = text.split("Operator Summary")[1].split("UserDefined Summary")[0].splitlines()
    ops = [ln[:54].strip() for ln in block[4:] if ln and not ln.startswith(("-", " ", "Name"))]
    top = [e for e in ref if e["type"] == 0 and not any(
        g is not e and g["type"] == 0 and g["tid"] == e["tid"] and g["start_ns"] <= e["start_ns"]
        and e["end_ns"] <= g["end_ns"] and (g["end_ns"] - g["start_ns"]) > (e["end_ns"] - e["start_ns"]) for g in ref)]
    mins = {}
    for e in top:
        mins[e["name"]] = min(mins.get(e["name"], 1 << 62), e["end_ns"] - e["start_ns"])
    assert set(ops) == set(mins)
    assert [mins[n] for n in ops] == sorted(mins[n] for n in ops)  # CPUMin: ascending
    with pytest.raises(ValueError):
        p.summary(time_unit="min")


def test_record_event_nesting_and_off():
    before = len(_C.prof_events())
    with profiler.RecordEvent("nothing"):  # not profiling: nothing recorded
        paddle.ones([2])
    assert len(_C.prof_events()) == before == 0
    p = profiler.Profiler()
    p.start()
    outer = profiler.RecordEvent("outer")
    outer.begin()
    with profiler.RecordEvent("inner", profiler.TracerEventType.UserDefined):
        paddle.add(paddle.ones([3, 2]), paddle.ones([3, 2]))
    outer.end()
    p.stop()
    ev = {e["name"]: e for e in p.profiler_result.get_data()}
    o, i, a = ev["outer"], ev["inner"], ev["add dygraph"]
    assert o["start_ns"] <= i["start_ns"] <= a["start_ns"] <= a["end_ns"] <= i["end_ns"] <= o["end_ns"]
    assert o["type"] == profiler.TracerEventType.PythonUserDefined.value
    assert i["type"] == profiler.TracerEventType.UserDefined.value
    assert a["args"]["input_shapes"] == {"x": [[3, 2]], "y": [[3, 2]]}
    with pytest.raises(TypeError):
        profiler.RecordEvent("x", event_type=3)


def test_timer_only_step_info_and_reader_cost():
    loader = paddle.io.DataLoader(_DS(n=24, delay=0.002), batch_size=4)
    p = profiler.Profiler(timer_only=True)
    p.start()
    n = 0
    t0 = time.perf_counter()
    for x, y in loader:
        paddle.matmul(x, paddle.ones([32, 8]))
        p.step(num_samples=4)
        n += 1
    wall = time.perf_counter() - t0
    info = p.step_info(unit="images")
    p.stop()
    assert p.profiler_result is None and len(_C.prof_events()) == 0
    parts = info.split()
    r = float(parts[parts.index("reader_cost:") + 1])
    b = float(parts[parts.index("batch_cost:") + 1])
    ips = float(parts[parts.index("ips:") + 1])
    assert parts[-1] == "images/s"
    assert 4 * 0.002 * 0.9 <= r <= b  # 4 items at >= 2 ms each
    assert abs(b * n - wall) <= 0.2 * wall
    assert abs(ips - 4 / b) <= 0.01 * ips
    # no num_samples: steps/s
    p = profiler.Profiler(timer_only=True)
    p.start()
    time.sleep(0.01)
    p.step()
    info = p.step_info()
    p.stop()
    assert info.endswith("steps/s") and "reader_cost" not in info


def test_model_fit_feeds_step_info():
    net = _mlp()
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    p = profiler.Profiler(timer_only=True)
    infos = []

    class CB(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            p.step(num_samples=8)
            infos.append(p.step_info())
    p.start()
    model.fit(_DS(n=32, delay=0.001), batch_size=8, epochs=1, verbose=0, callbacks=[CB()])
    p.stop()
    assert len(infos) == 4
    assert all("reader_cost" in s and "batch_cost" in s and "samples/s" in s for s in infos)
    assert all(float(s.split()[1]) >= 8 * 0.001 * 0.9 for s in infos)


def test_model_fit_verbose3_prints_costs(capsys):
    """Model.fit(verbose=3): Paddle's avg_reader_cost / avg_batch_cost / ips on each line; the
    reader cost covers the dataset's 2 ms per item (8 per batch)"""
    net = _mlp()
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    capsys.readouterr()
    model.fit(_DS(n=32, delay=0.002), batch_size=8, epochs=1, verbose=3, log_freq=2)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "avg_reader_cost" in ln]
    assert len(lines) == 2  # step 2 and the epoch's end (step 4)
    for ln in lines:
        f = dict(kv.split(": ", 1) for kv in ln.split(" - ")[1:] if ": " in kv)
        reader, batch = float(f["avg_reader_cost"].split()[0]), float(f["avg_batch_cost"].split()[0])
        ips = float(f["ips"].split()[0])
        assert 8 * 0.002 * 0.9 <= reader and batch > 0
        assert abs(ips - 8 / (reader + batch)) <= 0.02 * ips + 1  # 8 samples per (read + compute)


def test_memory_table_and_cpu_memory_functions(capsys):
    cpu = paddle.device.cpu
    x = paddle.zeros([1000])  # warm
    a0 = cpu.memory_allocated()
    y = paddle.zeros([250000])  # 1 MB
    assert cpu.memory_allocated() - a0 >= 1000000
    assert cpu.max_memory_allocated() >= cpu.memory_allocated()
    assert cpu.memory_reserved() >= cpu.memory_allocated()
    assert cpu.max_memory_reserved() >= cpu.memory_reserved()
    del y
    assert cpu.memory_allocated() < a0 + 1000000
    cpu.reset_max_memory_allocated()
    assert cpu.max_memory_allocated() == cpu.memory_allocated()
    with pytest.raises(ValueError):
        cpu.memory_allocated("gpu:0")
    peak0 = cpu.max_memory_allocated()
    p = profiler.Profiler(profile_memory=True)
    p.start()
    z = paddle.zeros([300000])  # 1.2 MB inside the window
    del z
    p.stop()
    assert cpu.max_memory_allocated() >= peak0 + 1200000  # the window's peak survives the profiler
    full = [e for e in p.profiler_result.get_data() if e["name"] == "full dygraph"]
    assert len(full) == 1 and full[0]["mem"][0] == 1 and full[0]["mem"][2] >= 1200000
    assert p.profiler_result.get_extra_info()["peak_allocated_bytes"] >= 1200000
    capsys.readouterr()
    p.summary()
    text = capsys.readouterr().out
    assert "Memory Summary - Place(cpu)" in text
    row = [ln for ln in text.splitlines() if ln.startswith("full dygraph") and "Allocated" in ln][0]
    assert int(row.split()[3]) == 1 and int(row.split()[5]) == full[0]["mem"][2]
    del x


def test_threads_get_their_own_track():
    p = profiler.Profiler()
    p.start()
    tid = []
    done, release = threading.Event(), threading.Event()

    def work():
        tid.append(threading.get_native_id())
        paddle.exp(paddle.ones([5, 7]))
        done.set()
        release.wait()  # alive at stop: named (a thread born and gone inside the span is "Thread")
    t = threading.Thread(target=work, name="worker-7")
    t.start()
    done.wait()
    paddle.exp(paddle.ones([2]))
    p.stop()
    release.set()
    t.join()
    ex = [e for e in p.profiler_result.get_data() if e["name"] == "exp dygraph"]
    assert {e["tid"] for e in ex} == {tid[0], threading.get_native_id()}
    assert [e for e in ex if e["tid"] == tid[0]][0]["args"]["input_shapes"] == {"x": [[5, 7]]}
    path = "threads.json"
    p.export(path)
    doc = json.load(open(path))
    _validate_chrome_trace(doc)
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert set(names) == {tid[0], threading.get_native_id()} and "worker-7" in names[tid[0]]
    p.export("threads.pb", format="pb")
    _validate_perfetto_trace(open("threads.pb", "rb").read(), p.profiler_result.get_data())


def _no_unknown_fields(msg, where="Trace"):
    from google.protobuf import unknown_fields
    assert len(unknown_fields.UnknownFieldSet(msg)) == 0, f"unknown fields in {where}"
    for fd, v in msg.ListFields():
        if fd.type == fd.TYPE_MESSAGE:
            for m in (v if fd.is_repeated else [v]):
                _no_unknown_fields(m, where + "." + fd.name)


def _validate_perfetto_trace(data, events):
    """export_protobuf's file against Perfetto's own schema: the perfetto package's generated
    perfetto_trace_pb2 (protos/perfetto/trace/perfetto_trace.proto) parses it with no unknown
    field anywhere; every packet carries a trusted_packet_sequence_id and exactly one of a
    TrackDescriptor or a TrackEvent; one process track and one named thread track per thread
    (parented to the process); every TrackEvent is a SLICE_BEGIN / SLICE_END on a declared track,
    begins named and categorized, per track balanced and in time order; and the slices rebuilt
    from the packets are the recorded events. (Perfetto's trace_processor, which the package
    drives, is a binary it downloads: not available offline, so the UI's own parse is not run.)"""
    pb = pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")
    trace = pb.Trace.FromString(data)
    _no_unknown_fields(trace)
    assert trace.ByteSize() == len(data)  # every byte accounted for by a known field
    TE = pb.TrackEvent
    procs, threads, open_, slices = {}, {}, {}, []
    last_ts = {}
    for pkt in trace.packet:
        assert pkt.trusted_packet_sequence_id != 0
        kinds = {fd.name for fd, _ in pkt.ListFields()} - {"trusted_packet_sequence_id", "timestamp"}
        assert kinds in ({"track_descriptor"}, {"track_event"}), kinds
        if pkt.HasField("track_descriptor"):
            td = pkt.track_descriptor
            assert td.uuid and td.uuid not in procs and td.uuid not in threads
            if td.HasField("process"):
                assert td.process.pid > 0 and td.process.process_name
                procs[td.uuid] = td.process.pid
            else:
                assert td.HasField("thread") and td.parent_uuid in procs
                assert td.thread.pid == procs[td.parent_uuid] and td.thread.tid and td.thread.thread_name
                threads[td.uuid] = td.thread.tid
            continue
        te = pkt.track_event
        assert te.track_uuid in threads and pkt.HasField("timestamp")
        assert pkt.timestamp >= last_ts.get(te.track_uuid, 0)
        last_ts[te.track_uuid] = pkt.timestamp
        st = open_.setdefault(te.track_uuid, [])
        if te.type == TE.TYPE_SLICE_BEGIN:
            assert te.name and list(te.categories)
            ann = {a.name: json.loads(a.string_value) for a in te.debug_annotations}
            st.append((pkt.timestamp, te.name, ann))
        else:
            assert te.type == TE.TYPE_SLICE_END and st, te
            t0, name, ann = st.pop()
            assert t0 == ann["start_ns"] and pkt.timestamp <= ann["end_ns"]
            slices.append((threads[te.track_uuid], name, ann["start_ns"], ann["end_ns"]))
    assert all(not v for v in open_.values())
    assert len(set(threads.values())) == len(threads)
    assert sorted(slices) == sorted((e["tid"], e["name"], e["start_ns"], e["end_ns"]) for e in events)


def test_static_executor_events():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [None, 4], "float32")
            y = paddle.nn.functional.relu(paddle.matmul(x, paddle.ones([4, 3])))
        exe = paddle.static.Executor()
        exe.run(start)
        p = profiler.Profiler()
        p.start()
        out, = exe.run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])
        p.stop()
    finally:
        paddle.disable_static()
    names = [e["name"] for e in p.profiler_result.get_data() if e["type"] == 0]
    assert names.count("relu") == 1 and names.count("matmul") == 1  # program ops: plain op names
    np.testing.assert_allclose(out, np.full((2, 3), 4.0))


def _png_info(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks.setdefault(tag, b"")
        chunks[tag] += body
        pos += 12 + n
    w, h = struct.unpack(">II", chunks[b"IHDR"][:8])
    raw = zlib.decompress(chunks[b"IDAT"])
    assert len(raw) == h * (1 + 3 * w)
    return w, h, raw


def test_bar_chart_png(tmp_path, capsys):
    p = profiler.Profiler()
    with p:
        for _ in range(3):
            paddle.matmul(paddle.ones([64, 64]), paddle.ones([64, 64]))
            paddle.exp(paddle.ones([3]))
    path = str(tmp_path / "ops.png")
    p.summary(chart_path=path)
    w, h, raw = _png_info(path)
    ops = {e["name"] for e in p.profiler_result.get_data() if e["type"] == 0}
    assert h == len(ops) * 16 + 20
    assert os.path.getsize(path) < 20000
    # the longest bar (first row) is blue and spans 400 px
    row = raw[(10 + 8) * (1 + 3 * w) + 1:(10 + 9) * (1 + 3 * w)]
    blue = sum(1 for k in range(w) if row[3 * k:3 * k + 3] == bytes((70, 110, 200)))
    assert blue == 400


def test_load_profiler_result_fuzz(tmp_path):
    p = profiler.Profiler()
    with p:
        paddle.add(paddle.ones([2]), paddle.ones([2]))
    jp, pp = str(tmp_path / "a.json"), str(tmp_path / "a.pb")
    p.export(jp, "json")
    p.export(pp, "pb")
    rng = random.Random(0)
    for src in (jp, pp):
        data = open(src, "rb").read()
        for k in range(300):
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                op = rng.random()
                i = rng.randrange(len(b))
                if op < 0.5:
                    b[i] = rng.randrange(256)
                elif op < 0.8:
                    del b[i:i + rng.randint(1, 8)]
                else:
                    b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
            f = str(tmp_path / "f.bin")
            open(f, "wb").write(bytes(b))
            try:
                profiler.load_profiler_result(f)
            except ValueError:
                pass
    with pytest.raises(FileNotFoundError):
        profiler.load_profiler_result(str(tmp_path / "missing.json"))


def test_op_args_json_bounded():
    xs = [paddle.ones([1, 1])] * 300  # the shapes do not fit the 1.5 KiB args text: x is left out
    few = [paddle.ones([2, 1]), paddle.ones([3, 1])]
    p = profiler.Profiler()
    with p:
        paddle.concat(xs)
        paddle.concat(few)
        paddle.reshape(paddle.ones([6]), [-1, 3])
    ev = [e for e in p.profiler_result.get_data() if e["name"] == "concat dygraph"]
    assert ev[0]["args"] == {"input_shapes": {}, "input_dtypes": {}, "attributes": {"axis": 0}}
    assert ev[1]["args"]["input_shapes"] == {"x": [[2, 1], [3, 1]]}
    assert ev[1]["args"]["input_dtypes"] == {"x": ["float32", "float32"]}
    r = [e for e in p.profiler_result.get_data() if e["name"] == "reshape dygraph"][0]
    assert r["args"]["input_shapes"] == {"x": [[6]]}
    assert r["args"]["attributes"] == {"shape": [-1, 3]}
    with p:  # float attributes: 9 decimals; str attributes as JSON strings
        paddle.nn.functional.leaky_relu(paddle.ones([2]), negative_slope=-0.0125)
        paddle.nn.functional.conv2d(paddle.ones([1, 1, 3, 3]), paddle.ones([1, 1, 1, 1]), data_format="NCHW")
    ev = {e["name"]: e["args"]["attributes"] for e in p.profiler_result.get_data() if e["type"] == 0}
    assert ev["leaky_relu dygraph"] == {"alpha": -0.0125}
    assert ev["conv2d dygraph"]["data_format"] == "NCHW" and ev["conv2d dygraph"]["strides"] == [1, 1]


def test_crossing_ranges_still_make_valid_traces(tmp_path):
    """RecordEvents that cross (a ends inside b) cannot nest on one track: the chrome trace clips
    the later one to its parent's end (exact times stay in args) and both files stay valid"""
    p = profiler.Profiler(on_trace_ready=lambda prof: None)
    p.start()
    a, b = profiler.RecordEvent("a"), profiler.RecordEvent("b")
    a.begin()
    paddle.exp(paddle.ones([3]))
    b.begin()
    paddle.exp(paddle.ones([4]))
    a.end()
    paddle.exp(paddle.ones([5]))
    b.end()
    p.stop()
    p.export(str(tmp_path / "x.json"))
    doc = json.load(open(str(tmp_path / "x.json")))
    _validate_chrome_trace(doc)
    ev = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "X"}
    assert ev["b"]["ts"] + ev["b"]["dur"] == ev["a"]["ts"] + ev["a"]["dur"]
    assert ev["b"]["args"]["end_ns"] > ev["a"]["args"]["end_ns"]
    res = profiler.load_profiler_result(str(tmp_path / "x.json"))
    assert sorted((e["name"], e["start_ns"], e["end_ns"]) for e in res.get_data()) == \
        sorted((e["name"], e["start_ns"], e["end_ns"]) for e in p.profiler_result.get_data())
    p.export(str(tmp_path / "x.pb"), format="pb")
    _validate_perfetto_trace(open(str(tmp_path / "x.pb"), "rb").read(), p.profiler_result.get_data())


def _flops_column(text):
    block = text.split("Operator Summary")[1].split("\n\n")[0].splitlines()
    return {ln[:54].strip(): ln.split()[-1] for ln in block if " dygraph" in ln[:54] or ln[:54].strip() in
            ("matmul", "conv2d", "elementwise_add", "add")}


def test_with_flops_operator_table_and_layer_report(capsys):
    """with_flops: the FLOPs column holds Paddle's formulas' totals (closed forms below), the
    Flops Profiler block follows the tables; without it the column is 0 as in Paddle"""
    paddle.seed(0)
    lin = paddle.nn.Linear(8, 4)
    conv = paddle.nn.Conv2D(3, 6, 3, stride=2, padding=1, groups=3)
    x, im = paddle.randn([5, 8]), paddle.randn([2, 3, 11, 9])
    for with_flops in (True, False):
        p = profiler.Profiler(with_flops=with_flops, on_trace_ready=lambda prof: None)
        p.start()
        lin(x)
        conv(im)
        paddle.matmul(paddle.randn([3, 4, 7]), paddle.randn([7, 6]), transpose_x=False)
        paddle.matmul(x, x, transpose_y=True)
        p.stop()
        capsys.readouterr()
        p.summary(op_detail=False)
        text = capsys.readouterr().out
        col = _flops_column(text)
        if not with_flops:
            assert set(col.values()) == {"0"} and "Flops Profiler" not in text
            continue
        mm = 2 * 5 * 8 * 4 + 2 * 3 * 4 * 7 * 6 + 2 * 5 * 8 * 5  # [5,8]@[8,4]; batched [3,4,7]@[7,6]; x @ x^T
        oh, ow = (11 + 2 - 3) // 2 + 1, (9 + 2 - 3) // 2 + 1
        cv = 2 * 9 * 3 * (6 // 3) * 2 * oh * ow + 6 * 2 * oh * ow  # kernel*in*out/groups per position + bias
        assert col["matmul dygraph"] == str(mm) and col["conv2d dygraph"] == str(cv), col
        assert col["add dygraph"] == str(5 * 4)
        rep = text.split("Flops Profiler Begin")[1].split("Flops Profiler End")[0]
        lines = [ln for ln in rep.splitlines() if "latency" in ln]
        assert lines[0].startswith("Linear latency") and "FLOPs: 340," in lines[0]  # 320 + 20
        assert lines[1].startswith(" matmul latency") and "FLOPs: 320," in lines[1]
        assert any(ln.startswith("Conv2D latency") and f"FLOPs: {round(cv / 1e3, 2)} K" in ln for ln in lines)


def test_flops_formulas_both_spellings():
    from paddle.utils.flops import flops
    # Paddle's static op types and slots, and Paddle-C's names: the same numbers
    assert flops("matmul_v2", {"X": [[2, 3, 4]], "Y": [[5, 4]]}, {"trans_y": True}) == 2 * 2 * 3 * 4 * 5
    assert flops("matmul", {"x": [[2, 3, 4]], "y": [[5, 4]]}, {"transpose_y": True}) == 2 * 2 * 3 * 4 * 5
    conv = {"Input": [[1, 4, 8, 8]], "Filter": [[8, 4, 3, 3]], "Bias": []}
    assert flops("conv2d", conv, {"paddings": [0, 0], "strides": [1, 1], "dilations": [1, 1], "groups": 1}) == \
        2 * 9 * 4 * 8 * 36
    nhwc = {"input": [[1, 8, 8, 4]], "filter": [[8, 4, 3, 3]], "bias": [[8]]}
    assert flops("conv2d", nhwc, {"padding_algorithm": "SAME", "strides": [2, 2], "groups": 1,
                                  "data_format": "NHWC"}) == 2 * 9 * 4 * 8 * 16 + 8 * 16
    assert flops("add", {"x": [[3, 1, 5]], "y": [[4, 1]]}, {}) == 3 * 4 * 5
    assert flops("softmax", {"X": [[2, 5]]}, {}) == 30 and flops("gelu", {"x": [[2, 5]]}, {}) == 50
    assert flops("layer_norm", {"x": [[2, 5]]}, {"epsilon": 1e-5}) == 80
    assert flops("no_such_op", {}, {}) == 0 and flops("matmul", {"x": [[2]]}, {}) == 0


def test_export_protobuf_callback_round_trip(tmp_path):
    d = str(tmp_path / "pb")
    with profiler.Profiler(scheduler=(1, 3), on_trace_ready=profiler.export_protobuf(d, worker_name="w1")) as p:
        for _ in range(4):
            paddle.tanh(paddle.ones([2, 3]))
            p.step()
    files = glob.glob(os.path.join(d, "w1_time_*.paddle_trace.pb"))
    assert len(files) == 1
    res = profiler.load_profiler_result(files[0])
    ref = p.profiler_result.get_data()
    assert sorted(e["name"] for e in res.get_data() if e["type"] == 2) == ["ProfileStep#1", "ProfileStep#2"]
    key = lambda e: (e["name"], e["type"], e["tid"], e["start_ns"], e["end_ns"], json.dumps(e["args"], sort_keys=True))  # noqa: E731
    assert sorted(map(key, res.get_data())) == sorted(map(key, ref))
    _validate_perfetto_trace(open(files[0], "rb").read(), ref)
