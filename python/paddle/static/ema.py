"""paddle.static.ExponentialMovingAverage (Paddle 2.3's static EMA): update() appends
ema = decay * ema + (1 - decay) * param for every parameter (ops with op_role Optimize in the
training program, plus the step counter); apply(exe) runs a program that saves the parameters
and replaces them by their bias-corrected averages ema / (1 - decay^step); restore(exe) runs the
program that puts the saved values back."""
import contextlib

from .. import _C
from .framework import (Program, _in_static, _init_in_startup, default_main_program, program_guard)

_STEP_COUNTER = "@EMA_STEP_COUNTER@"


def _global_var(program, name, shape, dtype, value):
    """A persistable variable of program's global block, set to value by the startup program
    (made once: the same name in the same program is the same variable)."""
    from ..nn.initializer import Constant
    gb = program.global_block()
    if gb.desc.has_var(name):
        return gb.desc.find_var(name)._tensor()
    d = gb.desc.var(name)
    d.set_shape(list(shape))
    d.set_dtype(dtype)
    d.set_persistable(True)
    d.set_stop_gradient(True)
    _init_in_startup(name, shape, dtype, Constant(value))
    return d._tensor()


def _clone_var(program, var):
    """var's name, shape and dtype in program's global block, persistable (so the value lives in
    the scope between programs, as Paddle's Block._clone_variable does)."""
    gb = program.global_block()
    d = gb.desc.find_var(var.name) if gb.desc.has_var(var.name) else gb.desc.var(var.name)
    d.set_shape(list(var.shape))
    d.set_dtype(var.dtype.name)
    d.set_persistable(True)
    d.set_stop_gradient(True)
    return d._tensor()


class ExponentialMovingAverage:
    """Moving averages of the main program's parameters (those with do_model_average)."""

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        import paddle
        from ..utils import unique_name
        if not _in_static():
            raise RuntimeError("ExponentialMovingAverage works on static programs: call "
                               "paddle.enable_static() and build the network first")
        self._decay = float(decay)
        self._thres_steps = thres_steps
        self._name = name if name is not None else ""
        main = default_main_program()
        self._decay_var = _global_var(main, "scheduled_ema_decay_rate", [1], "float32", self._decay)
        if thres_steps is not None:
            t = paddle.cast(thres_steps, "float32")
            decay_t = (t + 1.0) / (t + 10.0)
            const = paddle.full([1], self._decay, "float32")
            self._decay_var._copy_(paddle.where(decay_t < const, decay_t, const))
        self._params_tmps = []
        for p in main.global_block().all_parameters():
            if getattr(p, "do_model_average", True) is False:
                continue
            tmp_name = unique_name.generate(".".join([self._name + p.name, "ema_tmp"]))
            d = main.global_block().desc.var(tmp_name)
            d.set_shape(list(p.shape))
            d.set_dtype(p.dtype.name)
            d.set_persistable(False)
            d.set_stop_gradient(True)
            self._params_tmps.append((p, d._tensor()))
        self._ema_vars = {}
        for p, _ in self._params_tmps:
            name = unique_name.generate(self._name + p.name + "_ema")
            self._ema_vars[p.name] = _global_var(main, name, p.shape, p.dtype.name, 0.0)
        self.apply_program = Program()
        with program_guard(self.apply_program):
            step = paddle.cast(_global_var(self.apply_program, _STEP_COUNTER, [1], "int64", 0), "float32")
            decay_pow = paddle.pow(_clone_var(self.apply_program, self._decay_var), step)
            one = paddle.full([1], 1.0, "float32")
            denom = paddle.where(step > 0, one - decay_pow, one)  # no correction before the first update
            for p, tmp in self._params_tmps:
                pv = _clone_var(self.apply_program, p)
                tv = _clone_var(self.apply_program, tmp)
                ev = _clone_var(self.apply_program, self._ema_vars[p.name])
                tv._copy_(pv)
                pv._copy_(paddle.cast(ev / paddle.cast(denom, ev.dtype), pv.dtype))
        self.restore_program = Program()
        with program_guard(self.restore_program):
            for p, tmp in self._params_tmps:
                _clone_var(self.restore_program, p)._copy_(_clone_var(self.restore_program, tmp))

    def update(self):
        """Appends the moving-average update (call once, in the training program after minimize)."""
        import paddle
        from .backward import OP_ROLE_OPTIMIZE, _mark_roles
        main = default_main_program()
        block = main.global_block()
        start = block.desc.op_size()
        counter = _global_var(main, _STEP_COUNTER, [1], "int64", 0)
        counter._copy_(counter + 1)
        decay = self._decay_var
        for p, _ in self._params_tmps:
            ema = self._ema_vars[p.name]
            d = paddle.cast(decay, ema.dtype) if ema.dtype != decay.dtype else decay
            ema._copy_(ema * d + p * (1 - d))
        _mark_roles(block, start, OP_ROLE_OPTIMIZE)
        main._op_cache.clear()

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Parameters take their averages inside the block (restored after unless need_restore
        is False)."""
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Puts the parameters saved by apply() back."""
        executor.run(self.restore_program)
