"""Profiler.summary's tables, laid out as Paddle 2.6 prints them (Device, Overview, Model,
Operator, UserDefined, Memory summaries), computed from the recorded events."""
import os
import struct
import zlib
from enum import Enum

from .utils import TracerEventType

__all__ = ["SortedKeys", "SummaryView"]

T = TracerEventType


class SortedKeys(Enum):
    """How the operator table is sorted (GPU keys sort by the CPU time: no device here)."""
    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(Enum):
    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


_UNIT = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}


class _Node:
    __slots__ = ("e", "children", "parent")

    def __init__(self, e, parent):
        self.e, self.children, self.parent = e, [], parent


def _trees(events):
    """Per thread: the top-level nodes of the nesting forest (interval containment)."""
    by_tid = {}
    for e in events:
        by_tid.setdefault(e["tid"], []).append(e)
    out = {}
    for tid, evs in by_tid.items():
        evs.sort(key=lambda e: (e["start_ns"], -e["end_ns"]))
        roots, stack = [], []
        for e in evs:
            while stack and stack[-1].e["end_ns"] <= e["start_ns"]:
                stack.pop()
            while stack and e["end_ns"] > stack[-1].e["end_ns"]:  # overlaps without nesting
                stack.pop()
            n = _Node(e, stack[-1] if stack else None)
            (stack[-1].children if stack else roots).append(n)
            stack.append(n)
        out[tid] = roots
    return out


def _walk(nodes):
    for n in nodes:
        yield n
        yield from _walk(n.children)


def _merged(intervals):
    tot, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                tot += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        tot += cur_e - cur_s
    return tot


def _dur(e):
    return e["end_ns"] - e["start_ns"]


class _Stat:
    __slots__ = ("calls", "total", "max", "min", "children", "mem", "flops")

    def __init__(self):
        self.calls, self.total, self.max, self.min = 0, 0, 0, float("inf")
        self.children = {}
        self.flops = 0

    def add(self, d):
        self.calls += 1
        self.total += d
        self.max = max(self.max, d)
        self.min = min(self.min, d)

    @property
    def avg(self):
        return self.total / self.calls if self.calls else 0


def _fmt(v, unit):
    return "%.2f" % (v / _UNIT[unit])


def _cpu_cell(st, ratio, unit):
    return " / ".join([_fmt(st.total, unit), _fmt(st.avg, unit), _fmt(st.max, unit),
                       _fmt(st.min if st.calls else 0, unit), "%.2f" % ratio])


_GPU_ZERO = "0.00 / 0.00 / 0.00 / 0.00 / 0.00"


class _Table:
    def __init__(self, title, widths):
        self.title, self.widths, self.lines = title, list(widths), []

    def width(self):
        return sum(self.widths) + 2 * (len(self.widths) - 1)

    def row(self, cells):
        return "".join(f"{str(c):<{w}}  " for c, w in zip(cells, self.widths))

    def sep(self):
        return "".join("-" * w + "  " for w in self.widths)


def _step_total(trees, events):
    steps = [e for e in events if e["type"] == T.ProfileStep.value]
    if steps:
        return _merged([(e["start_ns"], e["end_ns"]) for e in steps]), steps
    if not events:
        return 0, []
    return max(e["end_ns"] for e in events) - min(e["start_ns"] for e in events), []


def _device_view(res):
    proc = float(res.extra.get("Process Cpu Utilization", 0)) * 100
    sysu = float(res.extra.get("System Cpu Utilization", 0)) * 100
    t = _Table("Device Summary", [30, 20])
    w = t.width()
    out = ["Device Summary".center(w, "-"), t.sep(), t.row(["Device", "Utilization (%)"]), t.sep(),
           t.row(["CPU(Process)", "%.2f" % proc]), t.row(["CPU(System)", "%.2f" % sysu]), t.sep(),
           "Note:",
           "CPU(Process) Utilization = Current process CPU time over all cpu cores / elapsed time, so max "
           "utilization can be reached 100% * number of cpu cores.",
           "CPU(System) Utilization = All processes CPU time over all cpu cores(busy time) / (busy time + idle time).",
           "GPU Utilization = Current process GPU time / elapsed time.", "-" * w, "\n"]
    return out


def _overview(res, total, unit):
    by_type = {}
    for e in res.events:
        by_type.setdefault(e["type"], []).append(e)
    t = _Table("Overview Summary", [25, 25, 25, 25])
    w = t.width()
    out = ["Overview Summary".center(w, "-"), f"Time unit: {unit}", t.sep(),
           t.row(["Event Type", "Calls", "CPU Time", "Ratio (%)"]), t.sep()]
    steps = by_type.pop(T.ProfileStep.value, [])
    out.append(t.row(["ProfileStep", len(steps), _fmt(total, unit), "100.00"]))
    rows = []
    for typ, evs in by_type.items():
        tm = _merged([(e["start_ns"], e["end_ns"]) for e in evs])
        rows.append((tm, T(typ).name, len(evs)))
    for tm, name, calls in sorted(rows, key=lambda r: -r[0]):
        out.append(t.row(["  " + name, calls, _fmt(tm, unit), "%.2f" % (100.0 * tm / total if total else 0)]))
    out += [t.sep(), t.row(["", "Calls", "GPU Time", "Ratio (%)"]), t.sep(), t.sep(), "Note:",
            "In this table, We sum up all collected events in terms of event type.",
            "The time of events collected on host are presented as CPU Time, and as GPU Time if on device.",
            "Events with different types may overlap or inclusion, e.g. Operator includes OperatorInner, so "
            "the sum of ratios is not 100%.",
            "The time of events in the same type with overlap will not calculate twice, and all time is "
            "summed after merged.",
            "Example:", "Thread 1:", "  Operator: |___________|     |__________|", "Thread 2:",
            "  Operator:   |____________|     |___|", "After merged:",
            "  Result:   |______________|  |__________|", "", "-" * w, "\n"]
    return out


def _outermost(trees, typ):
    """events of typ not nested in another event of typ"""
    out = []

    def rec(nodes, inside):
        for n in nodes:
            hit = n.e["type"] == typ
            if hit and not inside:
                out.append(n.e)
            rec(n.children, inside or hit)
    for roots in trees.values():
        rec(roots, False)
    return out


def _model_view(res, trees, total, steps, unit):
    if not steps:
        return []
    rows = [("ProfileStep", steps)]
    for typ in (T.Dataloader, T.Forward, T.Backward, T.Optimization):
        evs = _outermost(trees, typ.value)
        if evs:
            rows.append(("  " + typ.name, evs))
    stats = []
    for name, evs in rows:
        st = _Stat()
        for e in evs:
            st.add(_dur(e))
        stats.append((name, st))
    others = total - sum(st.total for name, st in stats[1:])
    cells = [(name, st.calls, _cpu_cell(st, 100.0 * st.total / total if total else 0, unit), _GPU_ZERO)
             for name, st in stats]
    cells.append(("  Others", "-", f"{_fmt(others, unit)} / - / - / - / " +
                  "%.2f" % (100.0 * others / total if total else 0), "0.00 / - / - / - / 0.00"))
    t = _Table("Model Summary", [15, 6, max(40, max(len(c[2]) for c in cells)), 40])
    w = t.width()
    out = ["Model Summary".center(w, "-"), f"Time unit: {unit}", t.sep(),
           t.row(["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)", "GPU Total / Avg / Max / Min / Ratio(%)"]),
           t.sep()]
    out += [t.row(c) for c in cells]
    out += [t.sep(), "Note:", "In this table, GPU time is the sum of all device(GPU) events called in the phase.",
            "Unlike overview summary, if two device(GPU) events execute on different streams with overlap time, "
            "we sum them directly here.", "", "-" * w, "\n"]
    return out


def _nodename2opname(name):
    """an event's name as the op type (Paddle's rule: drop " compute" / " dygraph")"""
    return name.replace(" compute", "").replace(" dygraph", "").replace(" pybind_imperative_func", "")


def _op_flops(node):
    """FLOPs of an Operator node: its own (paddle.utils.flops from the recorded input shapes and
    attributes) plus those of the Operators nested inside it (Paddle's HostStatisticNode sum)"""
    from ..utils.flops import flops
    e, own = node.e, 0
    if e["type"] == T.Operator.value:
        a = e.get("args") or {}
        own = flops(_nodename2opname(e["name"]), a.get("input_shapes", {}), a.get("attributes", {}))
    return own + sum(_op_flops(c) for c in node.children if c.e["type"] == T.Operator.value)


def _op_stats(roots_by_tid, with_flops=False):
    """top-level Operator events (not inside another Operator) by name, with their children by name"""
    stats = {}

    def rec(nodes, owner):
        for n in nodes:
            e = n.e
            if e["type"] == T.Operator.value and owner is None:
                st = stats.setdefault(e["name"], _Stat())
                st.add(_dur(e))
                if with_flops:
                    st.flops += _op_flops(n)
                for c in n.children:
                    if c.e["type"] in (T.Operator.value, T.OperatorInner.value):
                        st.children.setdefault(c.e["name"], _Stat()).add(_dur(c.e))
                rec(n.children, e)
            else:
                rec(n.children, owner)
    for roots in roots_by_tid.values():
        rec(roots, None)
    return stats


def _sorted(stats, sorted_by):
    key = {SortedKeys.CPUTotal: lambda s: -s.total, SortedKeys.CPUAvg: lambda s: -s.avg,
           SortedKeys.CPUMax: lambda s: -s.max, SortedKeys.CPUMin: lambda s: s.min}
    k = key.get(sorted_by)
    if k is None:  # GPU keys: no device time here, keep the CPU total order
        k = key[SortedKeys.CPUTotal]
    return sorted(stats.items(), key=lambda kv: k(kv[1]))


def _operator_view(res, trees, sorted_by, op_detail, thread_sep, unit, with_flops=False):
    groups = [("All threads merged", trees)] if not thread_sep else \
        [(str(tid), {tid: roots}) for tid, roots in sorted(trees.items(), key=lambda kv: str(kv[0]))]
    blocks, names, cpu_cells = [], [], []
    for label, tr in groups:
        stats = _op_stats(tr, with_flops)
        if not stats:
            continue
        all_total = sum(s.total for s in stats.values())
        rows = []
        for name, st in _sorted(stats, sorted_by):
            c = _cpu_cell(st, 100.0 * st.total / all_total if all_total else 0, unit)
            rows.append((name, st.calls, c, _GPU_ZERO, str(st.flops)))
            if op_detail:
                for cname, cs in _sorted(st.children, sorted_by):
                    rows.append(("  " + cname, cs.calls, _cpu_cell(cs, 100.0 * cs.total / st.total if st.total else 0, unit),
                                 _GPU_ZERO, "-"))
        blocks.append((label, rows))
        names += [r[0] for r in rows]
        cpu_cells += [r[2] for r in rows]
    if not blocks:
        return []
    t = _Table("Operator Summary", [max(52, max(len(n) for n in names) + 2), 6, max(40, max(len(c) for c in cpu_cells)),
                                    40, 10])
    w = t.width()
    out = ["Operator Summary".center(w, "-"), f"Time unit: {unit}", t.sep(),
           t.row(["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)", "GPU Total / Avg / Max / Min / Ratio(%)",
                  "FLOPs"]), t.sep()]
    for label, rows in blocks:
        out.append(f"Thread: {label}".center(w, "-"))
        out += [t.row(r) for r in rows]
    out += [t.sep(), "\n"]
    return out, blocks


def _udf_view(res, trees, total, sorted_by, thread_sep, unit):
    types = (T.PythonUserDefined.value, T.UserDefined.value)
    groups = [("All threads merged", res.events)] if not thread_sep else \
        [(str(tid), [e for e in res.events if e["tid"] == tid]) for tid in sorted({e["tid"] for e in res.events}, key=str)]
    blocks = []
    for label, evs in groups:
        stats = {}
        for e in evs:
            if e["type"] in types:
                stats.setdefault(e["name"], _Stat()).add(_dur(e))
        if stats:
            blocks.append((label, [(n, s.calls, _cpu_cell(s, 100.0 * s.total / total if total else 0, unit), _GPU_ZERO)
                                   for n, s in _sorted(stats, sorted_by)]))
    if not blocks:
        return []
    rows = [r for _, rs in blocks for r in rs]
    t = _Table("UserDefined Summary", [max(4, max(len(r[0]) for r in rows)), 6, max(40, max(len(r[2]) for r in rows)), 40])
    w = t.width()
    out = ["UserDefined Summary".center(w, "-"), f"Time unit: {unit}", t.sep(),
           t.row(["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)", "GPU Total / Avg / Max / Min / Ratio(%)"]),
           t.sep()]
    for label, rs in blocks:
        out.append(f"Thread: {label}".center(w, "-"))
        out += [t.row(r) for r in rs]
    out += ["\n"]
    return out


def _memory_view(res):
    if not res.extra.get("profile_memory"):
        return []
    agg = {}
    for e in res.events:
        na, nf, ab, fb = e["mem"]
        if na or nf:
            a = agg.setdefault(e["name"], [0, 0, 0, 0])
            a[0] += na
            a[1] += nf
            a[2] += ab
            a[3] += fb
    t = _Table("Memory Summary - Place(cpu)", [50, 12, 15, 15, 15, 15, 15])
    w = t.width()
    out = ["Memory Summary - Place(cpu)".center(w, "-"),
           f"Peak Allocated Memory: {res.extra.get('peak_allocated_bytes', 0)}",
           f"Peak Reserved Memory: {res.extra.get('peak_reserved_bytes', 0)}", t.sep(),
           t.row(["Name", "Type", "Allocation Count", "Free Count", "Allocation Size", "Free Size", "Increased Size"]),
           t.sep()]
    for name, (na, nf, ab, fb) in sorted(agg.items(), key=lambda kv: -(kv[1][2] - kv[1][3])):
        out.append(t.row([name, "Allocated", na, nf, ab, fb, ab - fb]))
    out += [t.sep(), "\n"]
    return out


def _build_table(res, sorted_by=SortedKeys.CPUTotal, op_detail=True, thread_sep=False, time_unit="ms",
                 views=None, chart_path=None, with_flops=False):
    if time_unit not in _UNIT:
        raise ValueError(f"summary: time_unit should be one of 's', 'ms', 'us', 'ns', but received {time_unit!r}")
    if not isinstance(sorted_by, SortedKeys):
        raise TypeError(f"summary: sorted_by should be a SortedKeys value, but received {sorted_by!r}")
    if views is not None and not isinstance(views, (list, tuple)):
        views = [views]
    want = (lambda v: True) if views is None else (lambda v: v in views)
    trees = _trees(list(res.events))
    total, steps = _step_total(trees, res.events)
    out = []
    if want(SummaryView.DeviceView):
        out += _device_view(res)
    if want(SummaryView.OverView):
        out += _overview(res, total, time_unit)
    if want(SummaryView.ModelView):
        out += _model_view(res, trees, total, steps, time_unit)
    op = _operator_view(res, trees, sorted_by, op_detail, thread_sep, time_unit, with_flops)
    if want(SummaryView.OperatorView) and op:
        out += op[0]
    if want(SummaryView.UDFView):
        out += _udf_view(res, trees, total, sorted_by, thread_sep, time_unit)
    if want(SummaryView.MemoryView):
        out += _memory_view(res)
    if chart_path is not None:
        rows = [(r[0], float(r[2].split(" / ")[0])) for _, rs in (op[1] if op else []) for r in rs
                if not r[0].startswith("  ")]
        write_bar_chart(chart_path, rows)
    return "\n".join(out)


# ---------------------------------------------------------------- bar chart PNG (zlib, no deps)
# 3x5 glyphs, rows top to bottom, 3 bits per row (MSB left)
_FONT = {
    "0": "7 5 5 5 7", "1": "2 6 2 2 7", "2": "7 1 7 4 7", "3": "7 1 7 1 7", "4": "5 5 7 1 1",
    "5": "7 4 7 1 7", "6": "7 4 7 5 7", "7": "7 1 1 2 2", "8": "7 5 7 5 7", "9": "7 5 7 1 7",
    "a": "2 5 7 5 5", "b": "6 5 6 5 6", "c": "3 4 4 4 3", "d": "6 5 5 5 6", "e": "7 4 6 4 7",
    "f": "7 4 6 4 4", "g": "3 4 5 5 3", "h": "5 5 7 5 5", "i": "7 2 2 2 7", "j": "1 1 1 5 2",
    "k": "5 5 6 5 5", "l": "4 4 4 4 7", "m": "5 7 7 5 5", "n": "6 5 5 5 5", "o": "2 5 5 5 2",
    "p": "6 5 6 4 4", "q": "2 5 5 7 3", "r": "6 5 6 5 5", "s": "3 4 2 1 6", "t": "7 2 2 2 2",
    "u": "5 5 5 5 7", "v": "5 5 5 5 2", "w": "5 5 7 7 5", "x": "5 5 2 5 5", "y": "5 5 2 2 2",
    "z": "7 1 2 4 7", "_": "0 0 0 0 7", ".": "0 0 0 0 2", "-": "0 0 7 0 0", "#": "5 7 5 7 5",
    " ": "0 0 0 0 0", "/": "1 1 2 4 4", "(": "1 2 2 2 1", ")": "4 2 2 2 4",
}


def _png(width, height, pixels):
    """pixels: bytearray of RGB rows"""
    raw = b"".join(b"\x00" + bytes(pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))

    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def write_bar_chart(path, rows, max_rows=20):
    """Horizontal bars of (name, value) rows (the operator table's CPU totals), names and values
    drawn with a 3x5 pixel font scaled 2x; an RGB PNG written with zlib only."""
    rows = rows[:max_rows]
    scale, cw = 2, 4 * 2  # glyph scale, advance per char
    label_w = max([len(n) for n, _ in rows] + [4]) * cw + 10
    bar_w, row_h = 400, 16
    width, height = label_w + bar_w + 90, max(1, len(rows)) * row_h + 20
    px = bytearray(b"\xff" * (width * height * 3))

    def put(x, y, rgb):
        if 0 <= x < width and 0 <= y < height:
            i = (y * width + x) * 3
            px[i:i + 3] = bytes(rgb)

    def text(x, y, s):
        for ch in s.lower():
            g = _FONT.get(ch, _FONT["#"])
            for r, bits in enumerate(g.split()):
                b = int(bits)
                for c in range(3):
                    if b & (4 >> c):
                        for dy in range(scale):
                            for dx in range(scale):
                                put(x + c * scale + dx, y + r * scale + dy, (0, 0, 0))
            x += cw
    vmax = max([v for _, v in rows] + [1e-12])
    for k, (name, v) in enumerate(rows):
        y0 = 10 + k * row_h
        text(5, y0 + 3, name)
        L = int(round(bar_w * v / vmax))
        for y in range(y0 + 2, y0 + row_h - 2):
            for x in range(label_w, label_w + L):
                put(x, y, (70, 110, 200))
        text(label_w + L + 4, y0 + 3, "%.2f" % v)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    with open(path, "wb") as f:
        f.write(_png(width, height, px))


# ---------------------------------------------------------------- with_flops: the layer report
def _format_large_number(n, precision=2):
    for div, suf in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " K")):
        if n // div > 0:
            return f"{round(n / div, precision)}{suf}"
    return f"{round(n, precision)}"


def _format_time(n, precision=2):
    for div, suf in ((1e9, " s"), (1e6, " ms"), (1e3, " us")):
        if n // div > 0:
            return f"{round(n / div, precision)}{suf}"
    return f"{round(n, precision)} ns"


def gen_layer_flops(res, repeat=1):
    """Paddle's "Flops Profiler" lines: per Layer call (Forward event) and per operator outside
    or inside it, "<name> latency: <time>, FLOPs: <n>, FLOPS: <n/s>", indented by layer nesting;
    autograd nodes, backward and optimizer ranges are left out; the lines stop where the first
    top-level name repeats `repeat` times (one step's worth with the default)."""
    lines, first, loops = [], [], [0]

    def visit(nodes, depth):
        for n in nodes:
            e = n.e
            if "GradNode" in e["name"] or e["type"] in (T.Backward.value, T.Optimization.value):
                continue
            if e["type"] == T.Operator.value:
                entry = (depth, _nodename2opname(e["name"]), _dur(e), _op_flops(n))
            elif e["type"] == T.Forward.value:
                entry = (depth, e["name"], _dur(e), None, n)
            else:
                if visit(n.children, depth):
                    return True
                continue
            if not first:
                first.append((depth, entry[1]))
            elif depth == first[0][0] and entry[1] == first[0][1]:
                loops[0] += 1
                if loops[0] >= repeat:
                    return True
            idx = len(lines)
            lines.append(None)
            fl = entry[3]
            if fl is None:  # a layer: the FLOPs of the operators inside it
                start = len(lines)
                if visit(n.children, depth + 1):
                    fl = sum(x[3] for x in lines[start:] if x and x[0] == depth + 1)
                    lines[idx] = (depth, entry[1], entry[2], fl)
                    return True
                fl = sum(x[3] for x in lines[start:] if x and x[0] == depth + 1)
            lines[idx] = (depth, entry[1], entry[2], fl)
        return False
    for tid, roots in sorted(_trees(list(res.events)).items(), key=lambda kv: str(kv[0])):
        if visit(roots, 0):
            break
    base = min((x[0] for x in lines), default=0)
    return "".join(f"{' ' * (d - base)}{name} latency: {_format_time(tm)}, FLOPs: {_format_large_number(fl)}, "
                   f"FLOPS: {_format_large_number(fl * 1e9 / tm if tm else 0)}\n" for d, name, tm, fl in lines)
