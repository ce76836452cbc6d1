"""paddle.Model, the high-level API: prepare(optimizer, loss, metrics), fit / evaluate /
predict over Datasets or DataLoaders with callbacks (the ProgBarLogger prints seed E3's log),
train_batch / eval_batch / predict_batch, save / load (.pdparams + .pdopt), summary. A Model
built after paddle.enable_static() runs its batches as static programs (static_adapter.py)."""
import inspect
import os
import warnings

import numpy as np

from .. import _C
from ..framework.io import load as _load
from ..framework.io import save as _save
from .callbacks import config_callbacks
from .model_summary import summary as _summary

Tensor = _C.Tensor


def _to_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _np(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


class Model:
    """Wraps a paddle.nn.Layer for training, evaluation, prediction and checkpoints."""

    def __init__(self, network, inputs=None, labels=None):
        from ..nn import Layer
        if not isinstance(network, Layer):
            raise TypeError(f"Model expects a paddle.nn.Layer, received {type(network).__name__}")
        self.network = network
        self._inputs = _to_list(inputs)
        self._labels = _to_list(labels)
        if not self._inputs:
            params = [p for p in inspect.signature(network.forward).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            self._n_inputs = max(1, len(params))
        else:
            self._n_inputs = len(self._inputs)
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self.stop_training = False
        self._amp_level, self._amp_configs, self._amp_custom_lists = "O0", {}, {}
        self._scaler = None
        from ..static.framework import in_dynamic_mode
        self._adapter = None
        self._ddp = None
        if not in_dynamic_mode():
            from .static_adapter import StaticGraphAdapter
            self._adapter = StaticGraphAdapter(self)
        else:
            from .. import distributed as dist
            if dist.get_world_size() > 1:  # launched data-parallel: train through paddle.DataParallel
                dist.init_parallel_env()
                self._ddp = dist.data_parallel.DataParallel(network)

    # ------------------------------------------------------------------ setup
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        from ..metric import Metric
        self._optimizer = optimizer
        if loss is not None and not callable(loss):
            raise TypeError("Model.prepare: loss must be a Layer or a callable")
        self._loss = loss
        self._metrics = _to_list(metrics)
        for m in self._metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics must be paddle.metric.Metric, received {type(m).__name__}")
        self._prepare_amp(amp_configs)
        if self._adapter is not None:
            self._adapter.prepare()

    _AMP_KEYS = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                 "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling", "use_fp16_guard"}
    _AMP_LISTS = ("custom_white_list", "custom_black_list", "custom_black_varnames")

    def _prepare_amp(self, amp_configs):
        """amp_configs: None/'O0' (float32), 'O1', 'O2', or a dict with 'level' (default 'O1')
        and GradScaler / auto_cast keys. O1 and O2 train through auto_cast and a GradScaler; O2
        also decorates the network (float16 parameters) and the optimizer (master weights)."""
        from ..amp import GradScaler, decorate
        self._amp_level, self._amp_configs, self._amp_custom_lists = "O0", {}, {}
        self._scaler = None
        if not amp_configs:
            return
        if isinstance(amp_configs, str):
            if amp_configs not in ("O0", "O1", "O2"):
                raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
            self._amp_level = amp_configs
        elif isinstance(amp_configs, dict):
            level = amp_configs.get("level", "O1")
            if level not in ("O0", "O1", "O2"):
                raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
            self._amp_level = level
            keys = set(amp_configs) - {"level"}
            if keys and level != "O0":
                if "use_pure_fp16" in keys:
                    raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed "
                                     "precision training only depends on 'O1' or 'O2'.")
                for name in self._AMP_LISTS:
                    if name in keys:
                        self._amp_custom_lists[name] = amp_configs[name]
                        keys.discard(name)
                unknown = keys - self._AMP_KEYS
                if unknown:
                    raise ValueError("Except for 'level', the keys of 'amp_configs' must be accepted "
                                     "by mixed precision APIs, but {} could not be recognized."
                                     .format(tuple(sorted(unknown))))
                if "use_fp16_guard" in keys and self._adapter is None:
                    raise ValueError("'use_fp16_guard' is supported in static mode only.")
                self._amp_configs = {k: amp_configs[k] for k in keys}
        else:
            raise TypeError("amp_configs must be None, 'O0', 'O1', 'O2' or a dict, received "
                            f"{type(amp_configs).__name__}")
        if self._amp_level == "O0":
            return
        if self._adapter is not None:
            self._prepare_static_amp()
            return
        self._scaler = GradScaler(**self._amp_configs)
        if self._amp_level == "O2":
            if self._optimizer is not None:
                self.network, self._optimizer = decorate(self.network, self._optimizer, level="O2")
            else:
                self.network = decorate(self.network, level="O2")

    def _auto_cast(self):
        """The forward's auto_cast context (disabled for O0). custom_black_varnames names static
        graph variables and has no effect in dynamic mode."""
        from ..amp import auto_cast
        lists = {k: v for k, v in self._amp_custom_lists.items() if k != "custom_black_varnames"}
        return auto_cast(enable=self._amp_level != "O0", level=self._amp_level if
                         self._amp_level != "O0" else "O1", **lists)

    def parameters(self, *args, **kwargs):
        return self.network.parameters(*args, **kwargs)

    def _metric_names(self):
        names = ["loss"] if self._loss is not None else []
        for m in self._metrics:
            names += _to_list(m.name())
        return names

    # ------------------------------------------------------------------ batches
    def _split(self, data):
        data = _to_list(data)
        return data[:self._n_inputs], data[self._n_inputs:]

    def _to_tensors(self, xs):
        from ..tensor.to_tensor import to_tensor
        return [x if isinstance(x, Tensor) else to_tensor(np.asarray(x)) for x in xs]

    def _compute_loss(self, outputs, labels):
        losses = _to_list(self._loss(*(outputs + labels)))
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        return losses, total

    def _update_metrics(self, outputs, labels):
        res = []
        for m in self._metrics:
            outs = _to_list(m.compute(*(outputs + labels)))
            res.append(m.update(*[_np(o) for o in outs]))
        return res

    def _prepare_static_amp(self):
        """Static mode: the optimizer becomes paddle.static.amp's decorated optimizer (O2: pure
        float16 with master weights)."""
        from ..static import amp as static_amp
        if self._optimizer is None:
            return
        lists = None
        if self._amp_custom_lists:
            lists = static_amp.AutoMixedPrecisionLists(
                self._amp_custom_lists.get("custom_white_list"), self._amp_custom_lists.get("custom_black_list"),
                self._amp_custom_lists.get("custom_black_varnames"))
        cfg = dict(self._amp_configs)
        cfg.setdefault("use_fp16_guard", False)  # whole network (a Model's network has no guards)
        self._optimizer = static_amp.decorate(self._optimizer, amp_lists=lists,
                                              use_pure_fp16=self._amp_level == "O2", **cfg)

    def train_batch(self, inputs, labels=None, update=True):
        """One optimisation step; returns the losses (and metric values) as numpy."""
        if self._adapter is not None:
            return self._adapter.train_batch(inputs, labels, update)
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer, loss) first")
        self.network.train()
        inputs = self._to_tensors(_to_list(inputs))
        labels = self._to_tensors(_to_list(labels))
        with self._auto_cast():
            outputs = _to_list((self._ddp or self.network)(*inputs))
            losses, total = self._compute_loss(outputs, labels)
        if self._scaler is not None:
            scaled = self._scaler.scale(total)
            scaled.backward()
            if update:
                self._scaler.minimize(self._optimizer, scaled)
                self._optimizer.clear_grad()
        else:
            total.backward()
            if update:
                self._optimizer.step()
                self._optimizer.clear_grad()
        loss_np = [_np(v) for v in losses]
        metrics = self._update_metrics(outputs, labels)
        return (loss_np, metrics) if self._metrics else loss_np

    def eval_batch(self, inputs, labels=None):
        from .. import no_grad
        if self._adapter is not None:
            return self._adapter.eval_batch(inputs, labels)
        self.network.eval()
        with no_grad(), self._auto_cast():
            inputs = self._to_tensors(_to_list(inputs))
            labels = self._to_tensors(_to_list(labels))
            outputs = _to_list(self.network(*inputs))
            loss_np = []
            if self._loss is not None and labels:
                losses, _ = self._compute_loss(outputs, labels)
                loss_np = [_np(v) for v in losses]
            metrics = self._update_metrics(outputs, labels) if labels else []
        return (loss_np, metrics) if self._metrics else loss_np

    def predict_batch(self, inputs):
        from .. import no_grad
        if self._adapter is not None:
            return self._adapter.predict_batch(inputs)
        self.network.eval()
        with no_grad(), self._auto_cast():
            outputs = _to_list(self.network(*self._to_tensors(_to_list(inputs))))
        return [_np(o) for o in outputs]

    # ------------------------------------------------------------------ loops
    def _eager_data(self):
        """Static mode: datasets, samplers and metrics' update() run eagerly (only the programs
        are static)."""
        import contextlib
        if self._adapter is None:
            return contextlib.nullcontext()
        from ..static.framework import _dygraph_guard
        return _dygraph_guard()

    def _loader(self, data, batch_size, shuffle, drop_last, num_workers, shard=False):
        from ..io import DataLoader, Dataset, DistributedBatchSampler
        if data is None:
            return None
        if isinstance(data, DataLoader):
            return data
        if isinstance(data, Dataset) and shard and self._ddp is not None:
            # data-parallel training: each rank its DistributedBatchSampler shard (evaluation and
            # prediction run the whole set on every rank, so metrics see each sample once)
            return DataLoader(data, batch_sampler=DistributedBatchSampler(data, batch_size, shuffle=shuffle,
                                                                          drop_last=drop_last),
                              num_workers=num_workers)
        if isinstance(data, Dataset):
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        raise TypeError(f"expected a paddle.io.Dataset or DataLoader, received {type(data).__name__}")

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except TypeError:
            return None

    def _run_epoch(self, loader, cbks, mode, num_iters=None, accumulate=1):
        logs = {}
        for m in self._metrics:
            m.reset()
        step = 0
        for step, data in enumerate(loader):
            if num_iters is not None and step >= num_iters:
                break
            inputs, labels = self._split(data)
            bs = inputs[0].shape[0] if inputs and isinstance(inputs[0], Tensor) else 1
            cbks.on_batch_begin(mode, step, logs)
            if mode == "train":
                update = (step + 1) % accumulate == 0
                outs = self.train_batch(inputs, labels, update=update)
            else:
                outs = self.eval_batch(inputs, labels)
            losses = outs[0] if self._metrics else outs
            if losses:
                logs["loss"] = [float(np.asarray(v).reshape(-1)[0]) for v in losses]
                if len(logs["loss"]) == 1:
                    logs["loss"] = logs["loss"][0]
            for m in self._metrics:
                acc = m.accumulate()
                for n, v in zip(_to_list(m.name()), _to_list(acc)):
                    logs[n] = v
            logs["step"] = step
            logs["batch_size"] = bs
            cbks.on_batch_end(mode, step, logs)
            if self.stop_training and mode == "train":
                break
        return logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10,
            save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0,
            callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Trains for epochs over train_data, evaluating every eval_freq epochs."""
        if train_data is None:
            raise ValueError("Model.fit: train_data is required")
        loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers, shard=True)
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        steps = self._len(loader)
        if num_iters is not None and steps is not None:
            steps = min(steps, num_iters)
        cbks = config_callbacks(callbacks, model=self, batch_size=batch_size, epochs=epochs, steps=steps,
                                log_freq=log_freq, verbose=verbose, save_freq=save_freq, save_dir=save_dir,
                                metrics=self._metric_names())
        self.stop_training = False
        with self._eager_data():
            self._fit_loop(cbks, loader, eval_loader, epochs, eval_freq, num_iters, accumulate_grad_batches)

    def _fit_loop(self, cbks, loader, eval_loader, epochs, eval_freq, num_iters, accumulate_grad_batches):
        cbks.on_begin("train")
        logs = {}
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_epoch(loader, cbks, "train", num_iters, accumulate_grad_batches)
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and (epoch + 1) % eval_freq == 0:
                self._evaluate(eval_loader, cbks)
            if self.stop_training:
                break
        cbks.on_end("train", logs)

    def _evaluate(self, loader, cbks, num_iters=None):
        steps = self._len(loader)
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metric_names()})
        with self._eager_data():
            logs = self._run_epoch(loader, cbks, "eval", num_iters)
        cbks.on_end("eval", logs)
        return logs

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Returns {'loss': [...], metric name: value} over eval_data."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, batch_size=batch_size, log_freq=log_freq,
                                verbose=verbose, metrics=self._metric_names(), mode="eval")
        logs = self._evaluate(loader, cbks, num_iters)
        out = {}
        for k in self._metric_names():
            if k in logs:
                v = logs[k]
                out[k] = [v] if k == "loss" and not isinstance(v, list) else v
        return out

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """Outputs for every batch: a list (one entry per output) of lists of numpy arrays,
        or of stacked arrays with stack_outputs=True."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, batch_size=batch_size, verbose=verbose,
                                metrics=[], mode="test")
        cbks.on_begin("predict", {"steps": self._len(loader)})
        with self._eager_data():
            outputs = self._predict_loop(loader, cbks)
        if stack_outputs:
            outputs = [np.vstack(o) for o in outputs]
        return outputs

    def _predict_loop(self, loader, cbks):
        outputs = []
        for step, data in enumerate(loader):
            inputs, _ = self._split(data)
            cbks.on_batch_begin("predict", step, {})
            outs = self.predict_batch(inputs)
            if not outputs:
                outputs = [[] for _ in outs]
            for i, o in enumerate(outs):
                outputs[i].append(o)
            cbks.on_batch_end("predict", step, {"batch_size": outs[0].shape[0] if outs and outs[0].ndim else 1})
        cbks.on_end("predict", {})
        return outputs

    # ------------------------------------------------------------------ persistence
    def save(self, path, training=True):
        """training=True: path.pdparams (+ path.pdopt); False: an inference model (path.pdmodel,
        path.pdiparams: paddle.jit.save of the network for the Model's inputs)."""
        if not training:
            return self._save_inference_model(path)
        if self._adapter is not None:
            return self._adapter.save(path)
        if self._ddp is not None:
            from .. import distributed as dist
            if dist.get_rank() != 0:  # data-parallel: the replicas are equal, rank 0 writes
                return
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        for obj, suffix in ((self.network.state_dict(), ".pdparams"),
                            (self._optimizer.state_dict() if self._optimizer is not None
                             and hasattr(self._optimizer, "state_dict") else None, ".pdopt")):
            if obj is None:
                continue
            tmp = f"{path}{suffix}.tmp{os.getpid()}"  # written whole, then renamed: never half a file
            _save(obj, tmp)
            os.replace(tmp, path + suffix)

    def _save_inference_model(self, path):
        if not self._inputs:
            raise RuntimeError("Saving inference model needs 'inputs': build the Model with "
                               "paddle.Model(network, inputs=[InputSpec(...)])")
        if self._adapter is not None:  # static mode: the test program from the scope's values
            import paddle
            ad = self._adapter
            if "test" not in ad._progs:
                ad._make_program("test")
            prog = ad._progs["test"]
            gb = prog.global_block()
            feeds = [gb.var(n) for n in ad._input_vars["test"]]
            fetches = [gb.var(n) for n in ad._endpoints["test"]["output"]]
            paddle.static.save_inference_model(path, feeds, fetches, ad._exe(), program=prog)
            return
        from ..jit import save as jit_save
        jit_save(self.network, path, input_spec=list(self._inputs))

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        params = path + ".pdparams" if not path.endswith(".pdparams") else path
        state = _load(params)
        own = self.network.state_dict()
        matched = {}
        for k, t in own.items():
            if k not in state:
                msg = f"Model.load: {k} is not in {params}"
                if skip_mismatch:
                    warnings.warn(msg)
                    continue
                raise ValueError(msg)
            if list(state[k].shape) != list(t.shape):
                msg = f"Model.load: {k} has shape {state[k].shape} in the file, the model expects {t.shape}"
                if skip_mismatch:
                    warnings.warn(msg)
                    continue
                raise ValueError(msg)
            matched[k] = state[k]
        opt_path = params[: -len(".pdparams")] + ".pdopt"
        if self._adapter is not None:
            optim = None
            if not reset_optimizer and self._optimizer is not None and os.path.exists(opt_path):
                optim = _load(opt_path)
            return self._adapter.load([(own[k], v) for k, v in matched.items()], optim)
        self.network.set_state_dict(matched)
        if not reset_optimizer and self._optimizer is not None and os.path.exists(opt_path):
            self._optimizer.set_state_dict(_load(opt_path))

    def summary(self, input_size=None, dtype=None):
        if input_size is None:
            if not self._inputs:
                raise ValueError("Model.summary: give input_size, or build the Model with inputs")
            input_size = [tuple(getattr(s, "shape", s)) for s in self._inputs]
        return _summary(self.network, input_size, dtype)
