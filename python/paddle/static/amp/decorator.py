"""paddle.static.amp.decorate: an optimizer whose minimize() rewrites the program for mixed
precision (rewrite_program, or cast_model_to_fp16 with use_pure_fp16), scales the loss by a
persistable loss_scaling variable, appends the backward, unscales the gradients with
check_finite_and_unscale_, updates the scale with update_loss_scaling_ (dynamic loss scaling)
and passes found_inf to the update ops as skip_update, so a step with inf/nan changes nothing
(as eager GradScaler skips it). Pure float16 keeps float32 master weights (multi_precision)."""
import types
import warnings

from ... import _C_ops
from ..framework import _init_in_startup, default_main_program, program_guard
from .fp16_lists import AutoMixedPrecisionLists
from .fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, rewrite_program


def _global_var(name, value, dtype):
    from ...nn.initializer import Constant
    from ...utils import unique_name
    name = unique_name.generate(name)
    d = default_main_program().global_block().desc.var(name)
    d.set_shape([1])
    d.set_dtype(dtype)
    d.set_persistable(True)
    d.set_stop_gradient(True)
    _init_in_startup(name, [1], dtype, Constant(value))
    return d._tensor()


class OptimizerWithMixedPrecision:
    """Wraps an optimizer for mixed-precision training of static programs."""

    def __init__(self, optimizer, amp_lists, init_loss_scaling, use_dynamic_loss_scaling, incr_every_n_steps,
                 decr_every_n_nan_or_inf, incr_ratio, decr_ratio, use_pure_fp16=False, use_fp16_guard=None,
                 dtype="float16", guard="__paddle_fp16_guard__"):
        self._optimizer = optimizer
        self._amp_lists = amp_lists
        self._dtype = dtype
        self._init_loss_scaling = float(init_loss_scaling)
        self._use_dynamic_loss_scaling = bool(use_dynamic_loss_scaling)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._incr_ratio = float(incr_ratio)
        self._decr_ratio = float(decr_ratio)
        self._use_pure_fp16 = bool(use_pure_fp16)
        self._guard = guard
        self._use_fp16_guard = self._use_pure_fp16 if use_fp16_guard is None else bool(use_fp16_guard)
        self._train_program = None
        self._loss_scaling = self._num_good_steps = self._num_bad_steps = None
        self._scaled_loss = None
        self._to_fp16_var_names = None
        if self._use_dynamic_loss_scaling:
            if self._incr_every_n_steps < 1 or self._decr_every_n_nan_or_inf < 1:
                raise ValueError("incr_every_n_steps and decr_every_n_nan_or_inf must be >= 1")
            if self._incr_ratio <= 1.0:
                raise ValueError("incr_ratio must be > 1.0")
            if not 0.0 < self._decr_ratio < 1.0:
                raise ValueError("decr_ratio must be in (0, 1)")
        if self._use_pure_fp16:
            optimizer._multi_precision = True  # float32 master weights

    def __getattr__(self, name):
        if name.startswith("__") or name == "_optimizer":
            raise AttributeError(name)
        return getattr(self._optimizer, name)

    def get_loss_scaling(self):
        """The loss-scaling variable (fetch it to read the current scale)."""
        return self._loss_scaling

    def get_scaled_loss(self):
        """The scaled loss variable minimize() differentiates."""
        return self._scaled_loss

    def _init_amp_var(self):
        self._loss_scaling = _global_var("loss_scaling", self._init_loss_scaling, "float32")
        if self._use_dynamic_loss_scaling:
            self._num_good_steps = _global_var("num_good_steps", 0, "int32")
            self._num_bad_steps = _global_var("num_bad_steps", 0, "int32")

    def _scaling_on(self):
        return self._use_dynamic_loss_scaling or self._init_loss_scaling != 1.0

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        """Rewrites loss's program, scales the loss and appends its backward."""
        import paddle
        self._train_program = loss.block.program
        with program_guard(self._train_program, startup_program):
            self._init_amp_var()
            if self._use_pure_fp16:
                self._to_fp16_var_names = cast_model_to_fp16(self._train_program, self._amp_lists,
                                                             self._use_fp16_guard, self._dtype, self._guard)
            else:
                rewrite_program(self._train_program, self._amp_lists, self._dtype)
            if loss.dtype.name != "float32":
                loss = paddle.cast(loss, "float32")
            self._scaled_loss = loss * self._loss_scaling if self._scaling_on() else loss
            return self._optimizer.backward(self._scaled_loss, startup_program, parameter_list, no_grad_set,
                                            callbacks)

    def apply_gradients(self, params_grads):
        """Unscales the gradients (found_inf), updates the loss scale, then the optimizer's ops
        skip the step when found_inf."""
        if not self._scaling_on():
            return self._optimizer.apply_gradients(params_grads)
        program = params_grads[0][1].block.program if params_grads else self._train_program
        with program_guard(program):
            grads = [g for _, g in params_grads if g is not None]
            found_inf = _C_ops.check_finite_and_unscale_(grads, self._loss_scaling)
            if self._use_dynamic_loss_scaling:
                _C_ops.update_loss_scaling_(self._loss_scaling, found_inf, self._num_good_steps, self._num_bad_steps,
                                            self._incr_every_n_steps, self._decr_every_n_nan_or_inf,
                                            self._incr_ratio, self._decr_ratio)
            self._optimizer._skip_t = found_inf
            try:
                return self._optimizer.apply_gradients(params_grads)
            finally:
                self._optimizer._skip_t = None

    def apply_optimize(self, loss, startup_program, params_grads):
        with program_guard(loss.block.program, startup_program):
            return self.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """Returns (optimize_ops, params_grads) with the gradients unscaled."""
        own = type(self._optimizer).__dict__.get("minimize")
        if isinstance(own, types.FunctionType):
            warnings.warn("The decorated optimizer has its own `minimize` method, but it will not be executed.")
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        return self.apply_optimize(loss, startup_program, params_grads), params_grads

    def amp_init(self, place, scope=None, test_program=None, use_fp16_test=False):
        """After the startup program ran: pure mode converts the parameters in the scope to the
        low dtype; test_program is rewritten too (pure mode, or use_fp16_test)."""
        if self._train_program is None:
            raise RuntimeError("amp_init: call minimize() first")
        if self._use_pure_fp16:
            cast_parameters_to_fp16(place, self._train_program, scope, self._to_fp16_var_names, self._dtype)
        if test_program is not None:
            if self._use_pure_fp16:
                cast_model_to_fp16(test_program, self._amp_lists, self._use_fp16_guard, self._dtype, self._guard)
            elif use_fp16_test:
                rewrite_program(test_program, self._amp_lists, self._dtype)


def decorate(optimizer, amp_lists=None, init_loss_scaling=2 ** 15, incr_every_n_steps=1000,
             decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8, use_dynamic_loss_scaling=True,
             use_pure_fp16=False, use_fp16_guard=None, use_bf16=False):
    """Wraps optimizer for float16 mixed precision (bfloat16 with use_bf16=True, no loss
    scaling needed there but allowed)."""
    if amp_lists is None:
        if use_bf16:
            from .bf16.amp_lists import AutoMixedPrecisionListsBF16
            amp_lists = AutoMixedPrecisionListsBF16()._as_fp16_style()
        else:
            amp_lists = AutoMixedPrecisionLists()
    elif hasattr(amp_lists, "_as_fp16_style"):
        amp_lists = amp_lists._as_fp16_style()
    return OptimizerWithMixedPrecision(optimizer, amp_lists, init_loss_scaling, use_dynamic_loss_scaling,
                                       incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio,
                                       use_pure_fp16, use_fp16_guard, "bfloat16" if use_bf16 else "float16")
