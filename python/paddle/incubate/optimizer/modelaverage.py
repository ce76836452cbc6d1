"""ModelAverage: a running average of the parameters over a sliding window of steps, applied
for evaluation with ``apply()`` and undone with ``restore()``."""
import contextlib

import paddle
from paddle.optimizer import Optimizer

_MAX_NUM_ACCUMULATES = 16384


class ModelAverage(Optimizer):
    r"""Keeps sums of the parameter values of recent steps (Paddle's average_accumulates rule:
    sum_1 += param each step; every 16384 updates sum_1 moves into sum_2; once the window holds
    at least ``min_average_window`` and ``min(max_average_window, num_updates *
    average_window_rate)`` steps, sum_3 = sum_1 + sum_2 and the window restarts).
    ``apply()`` sets each parameter to (sum_1 + sum_2 + sum_3) / (num_accumulates +
    old_num_accumulates).

    Args:
        average_window_rate (float): window length relative to the number of updates.
        parameters (list, optional): parameters to average (required in dynamic mode).
        min_average_window (int): default 10000.
        max_average_window (int): default 10000.
        name (str, optional): unused.
    """

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000,
                 max_average_window=10000, name=None):
        super().__init__(learning_rate=0.0, parameters=parameters, weight_decay=None,
                         grad_clip=None, name=name)
        self.average_window = float(average_window_rate)
        self.min_average_window = int(min_average_window)
        self.max_average_window = int(max_average_window)
        self.type = "average_accumulates"
        self._state = {}   # id(param) -> dict of sums and counters
        self._backup = {}

    def _st(self, p):
        s = self._state.get(id(p))
        if s is None:
            z = lambda: paddle.zeros(p.shape, dtype=p.dtype)  # noqa: E731
            s = {"sum_1": z(), "sum_2": z(), "sum_3": z(), "num_accumulates": 0,
                 "old_num_accumulates": 0, "num_updates": 0}
            self._state[id(p)] = s
        return s

    def _accumulate(self, p):
        s = self._st(p)
        s["num_updates"] += 1
        s["num_accumulates"] += 1
        with paddle.no_grad():
            s["sum_1"] = s["sum_1"] + p
            if s["num_updates"] % _MAX_NUM_ACCUMULATES == 0:
                s["sum_2"] = s["sum_2"] + s["sum_1"]
                s["sum_1"] = paddle.zeros_like(s["sum_1"])
            na = s["num_accumulates"]
            if na >= self.min_average_window and na >= min(
                    self.max_average_window, s["num_updates"] * self.average_window):
                s["sum_3"] = s["sum_1"] + s["sum_2"]
                s["sum_1"] = paddle.zeros_like(s["sum_1"])
                s["sum_2"] = paddle.zeros_like(s["sum_2"])
                s["old_num_accumulates"] = na
                s["num_accumulates"] = 0

    def step(self):
        """Accumulates the current value of every trainable parameter that has a gradient."""
        if not self._dynamic():
            raise NotImplementedError("ModelAverage.step runs in dynamic mode only")
        for p in self._parameter_list:
            if not p.stop_gradient and p.grad is not None:
                self._accumulate(p)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        if not self._dynamic():
            raise NotImplementedError("ModelAverage.minimize in static mode is not supported yet")
        self.step()

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Context manager: parameters hold their averages inside; restored after when
        need_restore."""
        with paddle.no_grad():
            for p in self._parameter_list:
                s = self._state.get(id(p))
                if s is None:
                    continue
                self._backup[id(p)] = p.clone()
                n = s["num_accumulates"] + s["old_num_accumulates"]
                total = s["sum_1"] + s["sum_2"] + s["sum_3"]
                p.set_value(total / float(n) if n else total)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor=None):
        """Puts back the parameter values saved by apply()."""
        with paddle.no_grad():
            for p in self._parameter_list:
                b = self._backup.pop(id(p), None)
                if b is not None:
                    p.set_value(b)
