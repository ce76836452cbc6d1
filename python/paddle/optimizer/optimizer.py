"""paddle.optimizer.Optimizer: the base of every optimizer. It keeps parameter groups (per-group
learning-rate scale, weight decay and hyperparameters), the learning rate (a float or an
LRScheduler), gradient clipping, regularisation (param.regularizer first, then the group's or
the optimizer's weight_decay) and the accumulators, named as Paddle names them
(`<param>_<acc>_<n>`, e.g. linear_0.w_0_moment1_0), which state_dict()/set_state_dict() save
and restore. Each subclass's _apply runs ONE fused in-place C kernel per parameter.

Row-sparse gradients (Embedding(sparse=True)) reach _apply as a RowSparseGrad (merged rows and
values) when the subclass has a row-sparse kernel (_sparse_update: SGD, Adam, AdamW) and no
regulariser applies; otherwise they are densified first. That matches Paddle: its regulariser
adds a dense term to the SelectedRows gradient (the sum is dense, so weight decay reaches every
row), and its Momentum, Adagrad, RMSProp and Lamb sparse kernels compute what the dense kernel
computes on the gradient with zero rows (Adagrad's zero-gradient rows do not move either).

In static mode (paddle.enable_static()) minimize() builds the training ops into the loss's
program instead (_static.py); parameters=None then means every trainable parameter."""
import re

import numpy as np

from .. import _C
from . import _static
from ..framework.sparse_grad import RowSparseGrad
from ..regularizer import L2Decay, WeightDecayRegularizer
from .lr import LRScheduler

Tensor = _C.Tensor
_LOW = ("float16", "bfloat16")


def _unique_name(key):
    """Paddle's unique_name.generate: key_0, key_1, ... per key (the shared counters)."""
    from ..utils import unique_name
    return unique_name.generate(key)


def _strip_counter(name):
    return re.sub(r"_\d+$", "", name)


def _as_regularizer(wd, what="weight_decay"):
    if wd is None or isinstance(wd, WeightDecayRegularizer):
        return wd
    if isinstance(wd, bool):
        raise TypeError(f"{what} must be a float or a paddle.regularizer.L1Decay/L2Decay, received bool")
    if isinstance(wd, (int, float)):
        return L2Decay(float(wd))
    if isinstance(wd, Tensor):
        return L2Decay(float(wd))
    raise TypeError(f"{what} must be a float or a paddle.regularizer.L1Decay/L2Decay, received "
                    f"{type(wd).__name__}")


def _scalar(v):
    """A float hyperparameter that may be given as a [1] Tensor."""
    return float(v) if isinstance(v, Tensor) else v


class Optimizer:
    """Base class. Subclasses set _defaults (per-group hyperparameters) and implement _apply."""

    _sparse_update = False  # _apply takes a RowSparseGrad (a row-sparse kernel)

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        from ..nn.clip import ClipGradBase
        from ..static.framework import in_dynamic_mode
        self._lr_t = self._skip_t = None  # static mode: the learning-rate / found_inf variables
        self._lr_vars = {}                # static mode: program desc pointer -> learning-rate variable
        self._static_vars = {}            # static mode: accumulator / master variable name -> variable
        self._static_program = None       # static mode: the program an optimization pass writes
        if parameters is None and not in_dynamic_mode():
            parameters = []
        elif parameters is None:
            raise AttributeError("parameters argument given to the Optimizer should not be None "
                                 "in dygraph mode.")
        if isinstance(parameters, (Tensor, dict)):
            raise TypeError("`parameters` argument given to the optimizer should be an iterable "
                            f"of paddle Tensors, but got argument type is `{type(parameters)}`.")
        parameters = list(parameters)
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float, LRScheduler)):
            raise TypeError("learning rate should be float or LRScheduler, got "
                            f"{type(learning_rate)} here")
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived class")
        self._learning_rate = learning_rate if isinstance(learning_rate, LRScheduler) else float(learning_rate)
        self._name = name
        self.regularization = _as_regularizer(weight_decay)
        self._grad_clip = grad_clip
        self._accumulators = {}        # acc name -> {param name: Tensor}
        self._accumulators_holder = {}  # loaded state waiting for its accumulators
        self._master_weights = {}      # param name -> float32 Tensor
        self._master_holder = {}
        self._plans = {}               # id(param) -> (accumulators tuple, master or None)
        if not hasattr(self, "_defaults"):
            self._defaults = {}
        self._defaults.setdefault("weight_decay", self.regularization)
        self._defaults.setdefault("grad_clip", grad_clip)
        self._param_groups = []
        if parameters and isinstance(parameters[0], dict):
            for g in parameters:
                self._add_param_group(dict(g))
        else:
            self._add_param_group({"params": parameters})
        self._parameter_list = [p for g in self._param_groups for p in g["params"]]

    # ---------------------------------------------------------------- groups
    def _add_param_group(self, group):
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("a parameter group must be a dict with a 'params' entry")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"parameters[{i}] must be a paddle.Tensor, received {type(p).__name__}")
        seen = {id(p) for g in self._param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        group["params"] = params
        group.setdefault("learning_rate", 1.0)
        for k, v in self._defaults.items():
            group.setdefault(k, v)
        group["_reg"] = self._group_regularizer(group)
        self._param_groups.append(group)

    def _group_regularizer(self, group):
        return _as_regularizer(group.get("weight_decay"))

    # ---------------------------------------------------------------- learning rate
    def get_lr(self):
        """The current learning rate (a float)."""
        if isinstance(self._learning_rate, LRScheduler):
            return float(self._learning_rate())
        return self._learning_rate

    def set_lr(self, value):
        """Sets a float learning rate (not allowed when the optimizer uses an LRScheduler)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"The type of 'learning_rate' in set_lr must be float, but received {type(value)}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke this "
                               "API, because this will lead to conflict.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        """Replaces the learning rate by an LRScheduler."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("The type of 'scheduler' in optimizer.set_lr_scheduler must be "
                            f"LRScheduler, but received {type(scheduler)}.")
        self._learning_rate = scheduler

    # ---------------------------------------------------------------- accumulators
    def _acc_dtype(self, p):
        return "float64" if p.dtype.name == "float64" else "float32"

    def _add_accumulator(self, name, param, fill_value=0.0, shape=None, dtype=None):
        import paddle
        if _C._is_variable(param):
            return _static.add_accumulator(self, name, param, fill_value, shape, dtype)
        var_name = _unique_name(f"{param.name}_{name}")
        t = paddle.full(list(param.shape) if shape is None else shape, fill_value,
                        dtype or self._acc_dtype(param))
        if t._device() != param._device():  # state lives where the parameter lives (its update op writes it)
            t = t._to_device(param._device())
        t.name = var_name
        v = self._lookup(self._accumulators_holder, var_name)
        if v is not None:
            t.set_value(v)
        self._accumulators.setdefault(name, {})[param.name] = t
        return t

    def _get_accumulator(self, name, param):
        try:
            return self._accumulators[name][param.name]
        except KeyError:
            raise ValueError(f"accumulator {name} of parameter {param.name} does not exist") from None

    def _create_master_weight(self, param):
        if _C._is_variable(param):
            return _static.create_master_weight(self, param)
        if param.name in self._master_weights:
            return self._master_weights[param.name]
        t = param.astype("float32")
        t.stop_gradient = True
        t.name = _unique_name(f"{param.name}_fp32_master")
        v = self._lookup(self._master_holder, t.name)
        if v is not None:
            t.set_value(v)
        self._master_weights[param.name] = t
        return t

    @staticmethod
    def _lookup(holder, name):
        """A saved value by exact name, else by name without its counter (the same parameter's
        accumulator made by another optimizer instance in this process)."""
        if not holder:
            return None
        if name in holder:
            return holder[name]
        base = _strip_counter(name)
        for k, v in holder.items():
            if _strip_counter(k) == base:
                return v
        return None

    def _plan(self, p):
        key = ((self._static_program or p.block.program).desc._ptr(), p.name) if _C._is_variable(p) else id(p)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._create_accumulators(p)
        return plan

    def _create_accumulators(self, p):
        return ((), None)

    def _use_master(self, p):
        return getattr(self, "_multi_precision", False) and p.dtype.name in _LOW

    # ---------------------------------------------------------------- state
    def state_dict(self):
        """Accumulators by name, 'master_weights' and the LR scheduler's state ('LR_Scheduler');
        in static mode the values come from the global scope."""
        if self._static_vars:
            return _static.state_dict(self)
        out = {}
        for per in self._accumulators.values():
            for t in per.values():
                out[t.name] = t
        if self._master_weights:
            out["master_weights"] = {t.name: t for t in self._master_weights.values()}
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        """Loads a state_dict(): existing accumulators take their values now, the others when
        they are created at the first step."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"state_dict must be a dict, received {type(state_dict).__name__}")
        if isinstance(self._learning_rate, LRScheduler) and "LR_Scheduler" in state_dict:
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        def _val(v):
            return v if isinstance(v, Tensor) else np.asarray(v)
        self._accumulators_holder = {k: _val(v) for k, v in state_dict.items()
                                     if k not in ("LR_Scheduler", "master_weights")}
        self._master_holder = {k: _val(v) for k, v in (state_dict.get("master_weights") or {}).items()}
        if self._static_vars:
            return _static.set_state_dict(self, state_dict)
        for per in self._accumulators.values():
            for t in per.values():
                v = self._lookup(self._accumulators_holder, t.name)
                if v is not None:
                    t.set_value(v)
        for t in self._master_weights.values():
            v = self._lookup(self._master_holder, t.name)
            if v is not None:
                t.set_value(v)

    set_dict = set_state_dict

    # ---------------------------------------------------------------- stepping
    def clear_grad(self, set_to_zero=True):
        """Clears the gradients of all parameters (set_to_zero: keep them as zeros)."""
        if self._static_vars or not self._dynamic():
            return  # static programs hold no gradients between runs
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    def _params_grads(self, params):
        out = []
        for p in params:
            if p.stop_gradient or not getattr(p, "trainable", True):
                continue
            g = p._grad_value()  # .grad, or (rows, values) when row-sparse
            if g is not None:
                if type(g) is tuple:
                    g = RowSparseGrad(g[0], g[1], p.shape)
                out.append((p, g))
        return out

    @staticmethod
    def _dynamic():
        from ..static.framework import in_dynamic_mode
        return in_dynamic_mode()

    def step(self):
        """Updates every parameter that has a gradient (after clipping and regularisation)."""
        if not self._dynamic():
            raise RuntimeError("Optimizer.step() runs in dynamic mode only; in static mode call "
                               "minimize(loss) while building the program")
        lr = self.get_lr()
        for group in self._param_groups:
            pg = self._params_grads(group["params"])
            clip = group.get("grad_clip", self._grad_clip)
            if clip is not None and pg:
                pg = clip(pg)
            self._apply_group(pg, lr, group)

    def _apply_group(self, params_grads, lr, group):
        scale = group["learning_rate"]
        reg = group["_reg"]
        for p, g in params_grads:
            attr = getattr(p, "optimize_attr", None)
            plr = lr * scale * (attr.get("learning_rate", 1.0) if attr else 1.0)
            r = getattr(p, "regularizer", None) or reg
            l1, l2 = r._coeffs() if r is not None else (0.0, 0.0)
            if type(g) is RowSparseGrad and (l1 or l2 or not self._sparse_update):
                g = g.to_dense()  # see the module docstring
            self._apply(p, g, plr, l1, l2, group)

    def _apply(self, p, g, lr, l1, l2, group):
        raise NotImplementedError(f"{type(self).__name__} must implement _apply")

    # ---------------------------------------------------------------- static mode (Paddle's names)
    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None, callbacks=None):
        """Static mode: appends the gradient ops; returns [(param, grad)]."""
        return _static.backward(self, loss, startup_program, parameters, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        """Static mode: appends clipping and update ops for params_grads; returns the update ops."""
        return _static.apply_gradients(self, params_grads)

    def apply_optimize(self, loss, startup_program, params_grads):
        return _static.apply_optimize(self, loss, startup_program, params_grads)

    def _global_learning_rate(self, program=None):
        return _static.global_learning_rate(self, program)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Dynamic mode: updates the parameters from the gradients loss.backward() computed;
        returns ([], params_grads). Static mode: appends backward, clipping and update ops to
        the loss's program; returns (optimize_ops, params_grads) as Paddle does."""
        if isinstance(loss, Tensor) and _C._is_variable(loss):
            return _static.minimize(self, loss, startup_program, parameters, no_grad_set)
        if not isinstance(loss, Tensor):
            raise TypeError(f"loss must be a paddle.Tensor, received {type(loss).__name__}")
        params = self._parameter_list if parameters is None else list(parameters)
        skip = set()
        if no_grad_set is not None:
            skip = {id(v) for v in no_grad_set if isinstance(v, Tensor)} | {v for v in no_grad_set if isinstance(v, str)}
        params = [p for p in params if id(p) not in skip and p.name not in skip]
        pg = self._params_grads(params)
        if self._grad_clip is not None and pg:
            pg = self._grad_clip(pg)
        lr = self.get_lr()
        by_group = {id(p): g for g in self._param_groups for p in g["params"]}
        default = self._param_groups[0]
        for p, g in pg:
            self._apply_group([(p, g)], lr, by_group.get(id(p), default))
        return [], pg
