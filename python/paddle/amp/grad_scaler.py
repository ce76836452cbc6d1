"""paddle.amp.GradScaler: dynamic loss scaling for mixed-precision training. scale() multiplies
the loss by the scale; unscale_() divides the parameters' gradients by it in place and checks
them for inf/nan in one fused C kernel (check_finite_and_unscale_, ops/amp.yaml); step() and
minimize() skip the optimizer update when inf/nan was found; update() (and minimize) move the
scale by Paddle's rule: x decr_ratio after decr_every_n_nan_or_inf bad steps, x incr_ratio after
incr_every_n_steps good steps in a row. Enabled on CPU (Paddle 2.3 turns itself off there,
but auto_cast really runs here)."""
from collections import defaultdict
from enum import Enum

import numpy as np

from .. import _C
from .auto_cast import _Suspended

__all__ = ["GradScaler"]

Tensor = _C.Tensor


class OptimizerState(Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_optimizer_state():
    return {"state": OptimizerState.INIT}


def _check(cond, msg):
    if not cond:
        raise AssertionError(msg)


class GradScaler:
    """GradScaler(enable=True, init_loss_scaling=2.**15, incr_ratio=2.0, decr_ratio=0.5,
    incr_every_n_steps=1000, decr_every_n_nan_or_inf=2, use_dynamic_loss_scaling=True)."""

    def __init__(self, enable=True, init_loss_scaling=2.**15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=2,
                 use_dynamic_loss_scaling=True):
        self._enable = bool(enable)
        if self._enable:
            _check(incr_ratio > 1.0, "The incr_ratio must be > 1.0.")
            _check(decr_ratio < 1.0, "The decr_ratio must be < 1.0.")
            self._init_loss_scaling = init_loss_scaling
            self._incr_ratio = incr_ratio
            self._decr_ratio = decr_ratio
            self._incr_every_n_steps = incr_every_n_steps
            self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
            self._incr_count = 0
            self._decr_count = 0
            self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
            self._found_inf = False
            self._cache_founf_inf = None
            self._set_scale(init_loss_scaling)
            self._optimizer_states = defaultdict(_refresh_optimizer_state)

    def _set_scale(self, value):
        from ..tensor.to_tensor import to_tensor
        self._scale = to_tensor(np.array([value], dtype=np.float32))

    def _scale_value(self):
        return float(self._scale._item_at(0))

    # ------------------------------------------------------------------ scaling
    def scale(self, var):
        """var * scale (var unchanged when the scaler is disabled)."""
        if not isinstance(var, Tensor):
            raise TypeError("The type of 'var' in AmpScaler.scale() must be Tensor, but received "
                            f"{type(var).__name__}.")
        if not self._enable:
            return var
        from .. import _C_ops
        with _Suspended():  # the loss keeps its dtype: no auto_cast of the scaling itself
            s = self._scale if var.dtype.name == "float32" else self._scale.astype(var.dtype)
            if var.ndim == 0:  # a 0-D loss (FLAGS_set_to_1d off) stays 0-D, as in Paddle 2.6
                s = _C_ops.reshape(s, [])
            return _C_ops.multiply(var, s)

    def _params_with_grads(self, optimizer):
        groups = getattr(optimizer, "_param_groups", None)
        if groups and isinstance(groups[0], dict):
            params = [p for g in groups for p in g["params"]]
        else:
            params = list(getattr(optimizer, "_parameter_list", []) or [])
        grads = []
        for p in params:
            if p.stop_gradient:
                continue
            g = p.grad
            if g is not None:
                grads.append(g)
        return grads

    def _unscale(self, optimizer):
        if not self._enable:
            return
        st = self._optimizer_states[id(optimizer)]
        if st["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if st["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        grads = self._params_with_grads(optimizer)
        if grads:
            from .. import _C_ops, no_grad
            with no_grad():
                found = _C_ops.check_finite_and_unscale_(grads, self._scale)
            self._found_inf = bool(found._item_at(0))
        else:
            self._found_inf = False
        st["state"] = OptimizerState.UNSCALED

    def unscale_(self, optimizer):
        """Divides the gradients of optimizer's parameters by the scale in place (once per
        step) and records whether any is inf or nan."""
        return self._unscale(optimizer)

    def step(self, optimizer):
        """Unscales (unless unscale_ ran) and calls optimizer.step() unless inf/nan was found;
        call update() afterwards."""
        if not self._enable:
            return optimizer.step()
        st = self._optimizer_states[id(optimizer)]
        if st["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_founf_inf = True
        else:
            optimizer.step()
            self._cache_founf_inf = False
        st["state"] = OptimizerState.STEPPED

    def update(self):
        """Updates the loss scale after step() (dynamic loss scaling only)."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = defaultdict(_refresh_optimizer_state)

    def minimize(self, optimizer, *args, **kwargs):
        """Unscales, calls optimizer.minimize(*args, **kwargs) unless inf/nan was found, then
        updates the scale. Returns what optimizer.minimize returns ((None, None) if skipped)."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        st = self._optimizer_states[id(optimizer)]
        if st["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        optimize_ops, params_grads = None, None
        if self._found_inf:
            self._cache_founf_inf = True
        else:
            optimize_ops, params_grads = optimizer.minimize(*args, **kwargs)
            self._cache_founf_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = defaultdict(_refresh_optimizer_state)
        return optimize_ops, params_grads

    def _update(self):
        if not self._enable:
            return
        if self._cache_founf_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                cur = self._scale_value()
                print(f"Found inf or nan, current scale is: {cur}, decrease to: {cur}*"
                      f"{float(self._decr_ratio)}")
                self._set_scale(cur * self._decr_ratio)
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._set_scale(self._scale_value() * self._incr_ratio)
                self._incr_count = 0

    # ------------------------------------------------------------------ hyper-parameters
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = new_init_loss_scaling
        self._set_scale(new_init_loss_scaling)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        _check(new_incr_ratio > 1.0, "The new_incr_ratio must be > 1.0.")
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        _check(new_decr_ratio < 1.0, "The new_decr_ratio must be < 1.0.")
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    # ------------------------------------------------------------------ state
    def state_dict(self):
        """scale (a numpy array), the ratios, step counts and counters; {} when disabled."""
        if not self._enable:
            return {}
        return {
            "scale": self._scale.numpy(),
            "incr_ratio": self._incr_ratio,
            "decr_ratio": self._decr_ratio,
            "incr_every_n_steps": self._incr_every_n_steps,
            "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
            "incr_count": self._incr_count,
            "decr_count": self._decr_count,
            "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling,
        }

    def load_state_dict(self, state_dict):
        """Restores a state_dict() (a RuntimeError for the empty dict of a disabled scaler)."""
        if not self._enable:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The input state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_loss_scaling = float(np.asarray(state_dict["scale"]).reshape(-1)[0])
        self._set_scale(self._init_loss_scaling)
        self._incr_ratio = state_dict["incr_ratio"]
        self._decr_ratio = state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count = state_dict["incr_count"]
        self._decr_count = state_dict["decr_count"]
        self._use_dynamic_loss_scaling = state_dict["use_dynamic_loss_scaling"]
