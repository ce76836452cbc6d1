"""paddle.callbacks: Callback, ProgBarLogger (the seed E3 log), ModelCheckpoint,
EarlyStopping, LRScheduler (by_step / by_epoch), ReduceLROnPlateau, VisualDL (scalars to a
JSON-lines log in log_dir and the curves rendered to PNG with matplotlib at the end)."""
import copy
import json
import numbers
import os
import sys
import time
import warnings

import numpy as np

from .progressbar import ProgressBar


class Callback:
    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_begin(self, mode, logs=None):
        getattr(self, f"on_{mode}_begin")(logs)

    def on_end(self, mode, logs=None):
        getattr(self, f"on_{mode}_end")(logs)

    def on_batch_begin(self, mode, step, logs=None):
        getattr(self, f"on_{mode}_batch_begin")(step, logs)

    def on_batch_end(self, mode, step, logs=None):
        getattr(self, f"on_{mode}_batch_end")(step, logs)

    def on_train_begin(self, logs=None): pass  # noqa: E704
    def on_train_end(self, logs=None): pass  # noqa: E704
    def on_eval_begin(self, logs=None): pass  # noqa: E704
    def on_eval_end(self, logs=None): pass  # noqa: E704
    def on_predict_begin(self, logs=None): pass  # noqa: E704
    def on_predict_end(self, logs=None): pass  # noqa: E704
    def on_epoch_begin(self, epoch, logs=None): pass  # noqa: E704
    def on_epoch_end(self, epoch, logs=None): pass  # noqa: E704
    def on_train_batch_begin(self, step, logs=None): pass  # noqa: E704
    def on_train_batch_end(self, step, logs=None): pass  # noqa: E704
    def on_eval_batch_begin(self, step, logs=None): pass  # noqa: E704
    def on_eval_batch_end(self, step, logs=None): pass  # noqa: E704
    def on_predict_batch_begin(self, step, logs=None): pass  # noqa: E704
    def on_predict_batch_end(self, step, logs=None): pass  # noqa: E704


class CallbackList:
    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])

    def append(self, cb):
        self.callbacks.append(cb)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._call(f"on_{mode}_batch_end", step, logs)


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None, mode="train"):
    cbks = list(callbacks or [])
    if not any(isinstance(c, ProgBarLogger) for c in cbks) and verbose:
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    lst = CallbackList(cbks)
    lst.set_model(model)
    metrics = metrics or [] if mode != "test" else []
    lst.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                    "metrics": metrics})
    return lst


class ProgBarLogger(Callback):
    """Prints `Epoch i/N`, progress lines, `Eval begin...` and `Eval samples: N`; with verbose=3
    the training lines also show Paddle's avg_reader_cost, avg_batch_cost and ips (averaged
    over the steps since the last line)."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq = log_freq
        self.verbose = verbose
        self.epochs = None
        self.steps = None
        self.progbar = None

    def _is_print(self):
        return self.verbose

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics", [])
        self._train_timer = {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0}

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get("steps")
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
            sys.stdout.flush()
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        if not hasattr(self, "_train_timer"):
            self._train_timer = {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0}
        self._train_timer["batch_start_time"] = time.time()

    def _values(self, logs, metrics):
        vals = []
        for k in metrics:
            if k in logs:
                vals.append((k, logs[k]))
        return vals

    def _train_values(self, logs):
        vals = self._values(logs, self.train_metrics)
        if self.verbose == 3:  # Paddle's reader / batch costs since the last line
            t = self._train_timer
            cnt = t["count"] if t["count"] > 0 else 1.0
            samples = t["samples"] if t["samples"] > 0 else 1.0
            vals.append(("avg_reader_cost", "%.5f sec" % (t["data_time"] / cnt)))
            vals.append(("avg_batch_cost", "%.5f sec" % (t["batch_time"] / cnt)))
            total = t["data_time"] + t["batch_time"]
            vals.append(("ips", "%.5f samples/sec" % (samples / total if total > 0 else 0.0)))
            t.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        return vals

    def on_train_batch_begin(self, step, logs=None):
        t = self._train_timer
        t["batch_data_end_time"] = time.time()
        t["data_time"] += t["batch_data_end_time"] - t.get("batch_start_time", t["batch_data_end_time"])

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        t = self._train_timer
        t["batch_time"] += time.time() - t.get("batch_data_end_time", time.time())
        t["count"] += 1
        t["samples"] += logs.get("batch_size", 1)
        if self._is_print() and self.train_step % self.log_freq == 0:
            if self.steps is None or self.train_step < self.steps:
                self.train_progbar.update(self.train_step, self._train_values(logs))
        t["batch_start_time"] = time.time()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._is_print() and (self.steps is not None or self.train_step):
            self.train_progbar._num = self.train_step if self.steps is None else self.steps
            self.train_progbar.update(self.train_step, self._train_values(logs))

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps")
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0
        self.eval_progbar = ProgressBar(num=self.eval_steps, verbose=self.verbose)
        if self._is_print():
            print("Eval begin...")

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.eval_step += 1
        self.evaled_samples += logs.get("batch_size", 1)
        if self._is_print() and self.eval_step % self.log_freq == 0:
            if self.eval_steps is None or self.eval_step < self.eval_steps:
                self.eval_progbar.update(self.eval_step, self._values(logs, self.eval_metrics))

    def on_eval_end(self, logs=None):
        logs = logs or {}
        if self._is_print():
            if self.eval_step:
                self.eval_progbar._num = self.eval_step if self.eval_steps is None else self.eval_steps
                self.eval_progbar.update(self.eval_step, self._values(logs, self.eval_metrics))
            print(f"Eval samples: {self.evaled_samples}")

    def on_predict_begin(self, logs=None):
        logs = logs or {}
        self.test_steps = logs.get("steps")
        self.test_step = 0
        self.tested_samples = 0
        self.test_progbar = ProgressBar(num=self.test_steps, verbose=self.verbose)
        if self._is_print():
            print("Predict begin...")

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.test_step += 1
        self.tested_samples += logs.get("batch_size", 1)
        if self._is_print() and self.test_step % self.log_freq == 0 and \
                (self.test_steps is None or self.test_step < self.test_steps):
            self.test_progbar.update(self.test_step, [])

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step:
                self.test_progbar._num = self.test_step if self.test_steps is None else self.test_steps
                self.test_progbar.update(self.test_step, [])
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves the model every save_freq epochs to save_dir/<epoch> and save_dir/final."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self.save_dir and self.model is not None and (epoch + 1) % self.save_freq == 0:
            self.model.save(os.path.join(self.save_dir, str(epoch)))

    def on_train_end(self, logs=None):
        if self.save_dir and self.model is not None:
            self.model.save(os.path.join(self.save_dir, "final"))


class LRScheduler(Callback):
    """Steps the optimizer's LR scheduler after every batch (by_step) or epoch (by_epoch)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler callback: by_step and by_epoch cannot both be True")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _sched(self):
        opt = getattr(self.model, "_optimizer", None)
        lr = getattr(opt, "_learning_rate", None)
        return lr if lr is not None and hasattr(lr, "step") and callable(lr.step) else None

    def on_train_batch_end(self, step, logs=None):
        s = self._sched()
        if self.by_step and s is not None:
            s.step()

    def on_epoch_end(self, epoch, logs=None):
        s = self._sched()
        if self.by_epoch and s is not None:
            s.step()


def _scalar(v):
    if isinstance(v, (list, tuple, np.ndarray)):
        v = np.asarray(v).reshape(-1)
        return float(v[0]) if v.size else None
    return float(v) if isinstance(v, numbers.Number) else None


class EarlyStopping(Callback):
    """Stops training when the monitored eval quantity stops improving."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.min_delta = baseline, abs(min_delta)
        self.save_best_model = save_best_model
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in monitor):
            self.monitor_op, self.min_delta = np.less, -self.min_delta
        else:
            self.monitor_op = np.greater
        self.save_dir = None

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn(f"EarlyStopping: monitor {self.monitor!r} is not in the eval logs")
            return
        cur = _scalar(logs[self.monitor])
        if cur is None:
            return
        if self.monitor_op(cur - self.min_delta, self.best_value):
            self.best_value = cur
            self.wait_epoch = 0
            if self.save_best_model and self.model is not None:
                self.best_weights = copy.deepcopy({k: v.numpy() for k, v in self.model.network.state_dict().items()})
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience and self.model is not None:
            self.model.stop_training = True
            if self.verbose:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")

    def on_epoch_end(self, epoch, logs=None):
        self.stopped_epoch = epoch

    def on_train_end(self, logs=None):
        if self.save_best_model and self.best_weights is not None and self.model is not None:
            self.model.network.set_state_dict(self.best_weights)


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by factor when the monitored eval value stops improving."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self.mode = "min" if mode == "min" or (mode == "auto" and "acc" not in monitor) else "max"
        self.best = np.inf if self.mode == "min" else -np.inf
        self.wait = 0
        self.cooldown_counter = 0

    def _better(self, a):
        return a < self.best - self.min_delta if self.mode == "min" else a > self.best + self.min_delta

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs or self.model is None:
            return
        cur = _scalar(logs[self.monitor])
        opt = self.model._optimizer
        if cur is None or opt is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._better(cur):
            self.best, self.wait = cur, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = opt.get_lr()
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    opt.set_lr(new)
                    if self.verbose:
                        print(f"ReduceLROnPlateau: reducing learning rate to {new}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class VisualDL(Callback):
    """Writes scalars (train per step, eval per epoch) as JSON lines to log_dir/scalars.jsonl
    and, at the end of training, draws the curves to log_dir/curves.png with matplotlib."""

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.train_step = 0
        self.epoch = 0
        self.records = []

    def _write(self, tag, step, value):
        rec = {"tag": tag, "step": step, "value": value}
        self.records.append(rec)
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "scalars.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        for k, v in (logs or {}).items():
            if k in ("step", "batch_size"):
                continue
            s = _scalar(v)
            if s is not None:
                self._write(f"train/{k}", self.train_step, s)

    def on_epoch_end(self, epoch, logs=None):
        self.epoch = epoch

    def on_eval_end(self, logs=None):
        for k, v in (logs or {}).items():
            if k in ("step", "batch_size"):
                continue
            s = _scalar(v)
            if s is not None:
                self._write(f"eval/{k}", self.epoch, s)

    def on_train_end(self, logs=None):
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            warnings.warn("VisualDL: matplotlib is not installed, so no PNG is drawn (the scalars are in "
                          f"{os.path.join(self.log_dir, 'scalars.jsonl')})")
            return
        tags = sorted({r["tag"] for r in self.records})
        if not tags:
            return
        fig, axes = plt.subplots(len(tags), 1, figsize=(7, 2.6 * len(tags)), squeeze=False)
        for ax, tag in zip(axes[:, 0], tags):
            pts = [(r["step"], r["value"]) for r in self.records if r["tag"] == tag]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="." if len(pts) < 50 else None)
            ax.set_title(tag)
            ax.set_xlabel("step" if tag.startswith("train/") else "epoch")
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(self.log_dir, "curves.png"), dpi=90)
        plt.close(fig)


__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler", "EarlyStopping",
           "ReduceLROnPlateau"]
