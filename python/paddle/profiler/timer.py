"""step_info's timer (Paddle's paddle.profiler.timer semantics): batch cost is the time between
Profiler.step calls, reader cost the time a DataLoader iterator spent producing the batch
(before_reader / after_reader around its __next__), ips = samples (or steps) per second. Averages
run from the previous step_info call."""
import time

_clock = time.perf_counter


class _Averager:
    def __init__(self):
        self.reset()

    def reset(self):
        self.iters = 0
        self.total = 0.0
        self.samples = 0

    def record(self, t, num_samples=None):
        self.iters += 1
        self.total += t
        if num_samples:
            self.samples += num_samples

    def average(self):
        return self.total / self.iters if self.iters else 0

    def ips(self):
        return self.samples / self.total if self.samples and self.iters else 0

    def steps_per_s(self):
        return self.iters / self.total if self.iters and self.total else 0


class _Event:
    def __init__(self):
        self.reader = _Averager()
        self.batch = _Averager()
        self.speed_mode = "samples/s"
        self.speed_unit = "samples/s"
        self.total_iters = 0

    def reset(self):
        self.reader.reset()
        self.batch.reset()


class Benchmark:
    """The timer behind Profiler.step_info (one stack entry per begin/end, as Paddle nests an
    evaluation inside training)."""

    def __init__(self):
        self.events = []
        self.current_event = None
        self.num_samples = None
        self.start_time = None
        self.start_reader = None

    def begin(self):
        self.events.append(_Event())
        self.current_event = self.events[-1]
        self.start_time = _clock()

    def before_reader(self):
        self.start_reader = _clock()

    def after_reader(self):
        if self.current_event is None or self.start_reader is None:
            return
        cost = _clock() - self.start_reader
        self.start_reader = None
        if cost > 0:
            self.current_event.reader.record(cost)

    def step(self, num_samples=None):
        self.num_samples = num_samples
        ev = self.current_event
        if ev is None:
            return
        now = _clock()
        cost = now - self.start_time
        if num_samples is None:
            ev.speed_mode = ev.speed_unit = "steps/s"
        ev.batch.record(cost, num_samples)
        ev.total_iters += 1
        self.start_time = now

    def step_info(self, unit):
        ev = self.current_event
        if ev is None:
            return ""
        message = ""
        r, b = ev.reader.average(), ev.batch.average()
        if r:
            message += " reader_cost: %.5f s" % r
        if b:
            ev.speed_unit = "steps/s" if ev.speed_mode == "steps/s" else unit + "/s"
            message += " batch_cost: %.5f s" % b
        speed = ev.batch.ips() if ev.speed_mode == "samples/s" else ev.batch.steps_per_s()
        if speed:
            message += f" ips: {speed:.3f} {ev.speed_unit}"
        ev.reset()
        return message

    def end(self):
        if not self.events:
            return
        self.events.pop()
        self.current_event = self.events[-1] if self.events else None
        self.start_time = _clock()


_benchmark_ = Benchmark()


def benchmark():
    return _benchmark_
