"""paddle.Model in static mode (Paddle 2.3's StaticGraphAdapter): prepare() builds a train, an
eval and a test program, each a clone of the program the network's parameters live in with the
network's forward (from the InputSpecs), the loss, the metrics' compute ops and, for train, the
optimizer's minimize; the startup program initializes what the scope does not hold yet. Batches
run through an Executor; save/load write and read the scope's values (.pdparams, .pdopt)."""
import os

import numpy as np

from .. import _C

Tensor = _C.Tensor


def _to_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _feed_value(x):
    if isinstance(x, Tensor):
        return np.asarray(x)
    return np.asarray(x)


class StaticGraphAdapter:
    """Runs a paddle.Model's batches as static programs."""

    def __init__(self, model):
        from ..static import default_main_program, default_startup_program
        self.model = model
        self._orig_prog = default_main_program()
        self._startup_prog = default_startup_program()
        self._progs, self._input_vars, self._label_vars, self._endpoints = {}, {}, {}, {}
        self._executor = None
        self._loss_endpoint = None

    @staticmethod
    def _specs(specs, kind):
        from ..static import InputSpec
        out = []
        for i, s in enumerate(_to_list(specs)):
            if not isinstance(s, InputSpec):
                raise TypeError(f"Model in static mode: {kind}s must be paddle.static.InputSpec, received "
                                f"{type(s).__name__}")
            out.append(s if s.name else InputSpec(s.shape, s.dtype, f"{kind}_{i}"))
        return out

    # ------------------------------------------------------------------ programs
    def prepare(self):
        if not self.model._inputs:
            raise ValueError("Model in static mode needs inputs: paddle.Model(network, inputs=[InputSpec(...)], "
                             "labels=[InputSpec(...)])")
        self._progs, self._endpoints = {}, {}
        for mode in ("train", "eval", "test"):
            self._make_program(mode)
        self._initialize()
        self._load_optimizer()
        opt = self.model._optimizer
        if self.model._amp_level == "O2" and hasattr(opt, "amp_init") and opt._train_program is not None:
            # pure float16: the scope's parameters become float16, the eval/test programs too
            opt.amp_init(None)
            from ..static.amp import cast_model_to_fp16
            for mode in ("eval", "test"):
                cast_model_to_fp16(self._progs[mode], opt._amp_lists, opt._use_fp16_guard)

    def _make_program(self, mode):
        import paddle
        from ..static import program_guard
        model = self.model
        prog = self._orig_prog.clone()
        if mode != "train":  # ops of the original program (learning-rate schedules ...) run in train only
            blk = prog.global_block()
            while blk.desc.op_size():
                blk._remove_op(0)
        net = model.network
        was_training = net.training
        net.train() if mode == "train" else net.eval()
        losses, metrics = [], []
        try:
            with program_guard(prog, self._startup_prog):
                inputs = [s._create_feed_layer() for s in self._specs(model._inputs, "input")]
                labels = [s._create_feed_layer() for s in self._specs(model._labels, "label")]
                outputs = _to_list(net(*inputs))
                if mode != "test" and model._loss is not None and labels:
                    losses = _to_list(model._loss(*(outputs + labels)))
                if mode != "test" and labels:
                    for m in model._metrics:
                        metrics.append(_to_list(m.compute(*(outputs + labels))))
                if mode == "train" and model._optimizer is not None and losses:
                    total = losses[0] if len(losses) == 1 else paddle.add_n(losses)
                    self._loss_endpoint = total
                    model._optimizer.minimize(total)
        finally:
            net.train() if was_training else net.eval()
        if mode != "train":
            prog = prog.clone(for_test=True)
        # names: the variables of a program cloned for test are new objects
        self._input_vars[mode] = [v.name for v in inputs]
        self._label_vars[mode] = [v.name for v in labels]
        self._progs[mode] = prog
        self._endpoints[mode] = {"output": [v.name for v in outputs], "loss": [v.name for v in losses],
                                 "metric": [[v.name for v in m] for m in metrics]}

    def _exe(self):
        from ..static import Executor
        if self._executor is None:
            self._executor = Executor()
        return self._executor

    def _initialize(self):
        """Runs the startup ops whose persistable outputs the scope does not hold yet (Paddle's
        incremental initialization: loaded or trained values survive a second prepare)."""
        from ..static import global_scope
        scope = global_scope()
        start = self._startup_prog.clone()
        blk = start.global_block()
        i, kept = 0, 0
        while i < blk.desc.op_size():
            od = blk.desc.op(i)
            outs = [n for n in od.output_arg_names()
                    if blk.desc.has_var(n) and blk.desc.find_var(n).persistable()]
            if outs and all(scope._get(n) is not None for n in outs):
                blk._remove_op(i)
                continue
            kept += 1
            i += 1
        if kept:
            self._exe().run(start, scope=scope)

    # ------------------------------------------------------------------ batches
    def _run(self, mode, inputs, labels, fetch_outputs):
        from ..static import global_scope
        if mode not in self._progs:
            raise RuntimeError("Model: call prepare() before training, evaluating or predicting")
        feed = {}
        ivars, lvars = self._input_vars[mode], self._label_vars[mode]
        inputs, labels = _to_list(inputs), _to_list(labels)
        if len(inputs) != len(ivars):
            raise ValueError(f"Model: expected {len(ivars)} inputs, received {len(inputs)}")
        for n, x in zip(ivars, inputs):
            feed[n] = _feed_value(x)
        for n, x in zip(lvars, labels):
            feed[n] = _feed_value(x)
        ep = self._endpoints[mode]
        fetch = list(ep["output"]) if fetch_outputs else []
        n_out = len(fetch)
        fetch += ep["loss"]
        n_loss = len(ep["loss"])
        for m in ep["metric"]:
            fetch += m
        outs = self._exe().run(self._progs[mode], feed=feed, fetch_list=fetch, scope=global_scope())
        outputs, losses, rest = outs[:n_out], outs[n_out:n_out + n_loss], outs[n_out + n_loss:]
        metrics = []
        for m, states in zip(self.model._metrics, ep["metric"]):
            vals, rest = rest[:len(states)], rest[len(states):]
            metrics.append(m.update(*vals))
        return outputs, losses, metrics

    def train_batch(self, inputs, labels=None, update=True):
        if self.model._optimizer is None or self.model._loss is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer, loss) first")
        if not update:
            raise NotImplementedError("Model in static mode: update=False (gradient accumulation) needs the "
                                      "dynamic mode")
        _, losses, metrics = self._run("train", inputs, labels, False)
        return (losses, metrics) if self.model._metrics else losses

    def eval_batch(self, inputs, labels=None):
        _, losses, metrics = self._run("eval", inputs, labels, False)
        return (losses, metrics) if self.model._metrics else losses

    def predict_batch(self, inputs):
        outputs, _, _ = self._run("test", inputs, [], True)
        return outputs

    # ------------------------------------------------------------------ persistence
    def _scope_value(self, var):
        from ..static import global_scope
        t = global_scope()._get(var.name)
        return None if t is None else np.array(t)

    def _optimizer_vars(self):
        prog = self._progs.get("train")
        if prog is None or self.model._optimizer is None:
            return []
        return [v for v in prog.list_vars() if v.persistable and not v.is_parameter and not v.need_check_feed]

    def save(self, path):
        from ..framework.io import save as _save
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        params = {}
        for k, v in self.model.network.state_dict().items():
            val = self._scope_value(v)
            if val is not None:
                params[k] = val
        _save(params, path + ".pdparams")
        optim = {}
        for v in self._optimizer_vars():
            val = self._scope_value(v)
            if val is not None:
                optim[v.name] = val
        if optim:
            _save(optim, path + ".pdopt")

    def load(self, param_state, optim_state):
        """param_state: [(variable, value)]; optim_state: {name: value} or None."""
        from ..static import global_scope
        scope = global_scope()

        def put(var, val):
            arr = np.asarray(val)
            if var.dtype.name != "bfloat16":
                arr = arr.astype(var.dtype.name)
            scope._set(var.name, _C.from_buffer(np.ascontiguousarray(arr)))

        for var, val in param_state:
            put(var, val)
        self._pending_optim = optim_state or None
        if "train" in self._progs:
            self._load_optimizer()

    def _load_optimizer(self):
        from ..static import global_scope
        state, self._pending_optim = getattr(self, "_pending_optim", None), None
        if not state:
            return
        from ..optimizer.optimizer import Optimizer
        scope = global_scope()
        for var in self._optimizer_vars():
            # by name, else by name without its counter (another optimizer instance's variables)
            val = Optimizer._lookup(state, var.name)
            if val is not None:
                arr = np.asarray(val)
                if var.dtype.name != "bfloat16":
                    arr = arr.astype(var.dtype.name)
                scope._set(var.name, _C.from_buffer(np.ascontiguousarray(arr)))
