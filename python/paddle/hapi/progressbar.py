"""The training progress line of paddle.Model.fit (seed E3): `step k/K [====>....] - loss: v -
acc: v - 12ms/step`. verbose=1 redraws one line per epoch (with an ETA while running) on a
terminal; verbose=2 prints a line every log_freq steps. Numbers print with %.4f, or %.4e when
|v| <= 1e-3, as Paddle prints them."""
import sys
import time

import numpy as np


def format_value(v):
    if isinstance(v, (list, tuple)):
        return " ".join(format_value(x) for x in v)
    if isinstance(v, np.ndarray):
        v = v.reshape(-1)
        return " ".join(format_value(float(x)) for x in v)
    if isinstance(v, (float, np.floating)):
        return "%.4f" % v if abs(v) > 1e-3 else "%.4e" % v
    return str(v)


class ProgressBar:
    def __init__(self, num=None, width=30, verbose=1, start=True, file=None):
        self._num = num
        self._width = width
        self._verbose = verbose
        self.file = file if file is not None else sys.stdout  # resolved now, not at import
        self._values = []
        self._last_update = 0
        self._start = time.time()
        self._dynamic = hasattr(file, "isatty") and file.isatty()
        if start:
            self.start()

    def start(self):
        self._start = time.time()
        self._last_update = 0

    def _time_str(self, current):
        per = (time.time() - self._start) / current if current else 0.0
        if per >= 1:
            return "%.0fs/step" % per, per
        if per >= 1e-3:
            return "%dms/step" % (per * 1e3), per
        return "%dus/step" % (per * 1e6), per

    def update(self, current_num, values=()):
        self._values = list(values)
        info = ""
        if self._num is not None:
            numdigits = len(str(self._num))
            bar = "step %*d/%d " % (numdigits, current_num, self._num)
            frac = current_num / self._num if self._num else 1.0
            prog = int(self._width * frac)
            bar += "["
            if prog > 0:
                bar += "=" * (prog - 1) + (">" if current_num < self._num else "=")
            bar += "." * (self._width - prog) + "]"
        else:
            bar = "step %3d" % current_num
        for k, v in self._values:
            info += f" - {k}: {format_value(v)}"
        tstr, per = self._time_str(current_num)
        finished = self._num is not None and current_num >= self._num
        if self._verbose == 1:
            if not finished and self._num is not None:
                eta = per * (self._num - current_num)
                info += " - ETA: %d:%02d" % (eta // 60, eta % 60) if eta > 60 else " - ETA: %ds" % eta
            info += " - " + tstr
            line = bar + info
            if self._dynamic:
                self.file.write("\r" + line + ("\n" if finished else ""))
            elif finished:
                self.file.write(line + "\n")
            self.file.flush()
        elif self._verbose in (2, 3):  # 3: the same lines (ProgBarLogger adds the costs)
            self.file.write(bar + info + " - " + tstr + "\n")
            self.file.flush()
        self._last_update = current_num
