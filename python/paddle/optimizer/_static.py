"""The optimizers in static mode (Paddle's Optimizer.minimize on a Program): append_backward, the
clipper's ops, then per parameter the same fused update op eager runs (regularisation folded in
as its l1/l2, as eager does), recorded into the loss's program with op_role Optimize. The learning
rate is a persistable [1] variable (learning_rate_N) read by the ops at run time; accumulators and
master weights are persistable variables initialized by the startup program."""
from .. import _C
from .lr import LRScheduler

Tensor = _C.Tensor
OP_ROLE_OPTIMIZE = 2
# float64, not Paddle's float32: it holds the very double eager passes to the kernels, so a static
# step equals the eager one bit for bit (the kernels read either dtype).
LR_DTYPE = "float64"


def _fw():
    from ..static import framework
    return framework


def _scope():
    from ..static.executor import global_scope
    return global_scope()


def _new_persistable(program, name, shape, dtype, init):
    """A persistable variable of program's global block, initialized in the startup program by
    init (an initializer, or a callable recording ops on the startup variable)."""
    fw = _fw()
    d = program.global_block().desc.var(name)
    d.set_shape([int(s) for s in shape])
    d.set_dtype(dtype)
    d.set_persistable(True)
    d.set_stop_gradient(True)
    fw._init_in_startup(name, shape, dtype, init)
    return d._tensor()


def _program(opt, param):
    """The program being optimized (the loss's; a parameter may be a variable of the program it was
    cloned from)."""
    return opt._static_program if opt._static_program is not None else param.block.program


def add_accumulator(opt, name, param, fill_value=0.0, shape=None, dtype=None):
    from ..nn.initializer import Constant
    from .optimizer import _unique_name
    var_name = _unique_name(f"{param.name}_{name}")
    shape = list(param.shape) if shape is None else list(shape)
    t = _new_persistable(_program(opt, param), var_name, shape, dtype or opt._acc_dtype(param),
                         Constant(float(fill_value)))
    opt._accumulators.setdefault(name, {})[param.name] = t
    opt._static_vars[var_name] = t
    return t


def create_master_weight(opt, param):
    """<param>_fp32_master_N: float32, the startup program casts the initialized parameter."""
    from .optimizer import _unique_name
    if param.name in opt._master_weights:
        return opt._master_weights[param.name]
    fw = _fw()
    name = _unique_name(f"{param.name}_fp32_master")

    def init(sv):
        import paddle
        sp = fw.default_startup_program().global_block().desc.find_var(param.name)
        if sp is None:
            raise RuntimeError(f"multi_precision: parameter {param.name} has no initializer in the "
                               "startup program")
        _C._static_assign(sv, paddle.cast(sp._tensor(), "float32"))

    t = _new_persistable(_program(opt, param), name, param.shape, "float32", init)
    opt._master_weights[param.name] = t
    opt._static_vars[name] = t
    return t


def global_learning_rate(opt, program=None):
    """The learning-rate variable of program (None before minimize)."""
    program = program or _fw().default_main_program()
    return opt._lr_vars.get(program.desc._ptr())


def create_global_learning_rate(opt, program):
    from ..nn.initializer import Constant
    from ..utils import unique_name
    key = program.desc._ptr()
    v = opt._lr_vars.get(key)
    if v is not None:
        return v
    lr = opt._learning_rate
    name = unique_name.generate("learning_rate")
    v = _new_persistable(program, name, [1], LR_DTYPE, Constant(float(lr() if isinstance(lr, LRScheduler) else lr)))
    if isinstance(lr, LRScheduler):
        lr._var_name = name
        program.lr_sheduler = lr
        program.lr_var = v
    opt._lr_vars[key] = v
    return v


def _check_static(loss):
    if not (isinstance(loss, Tensor) and _C._is_variable(loss)):
        raise TypeError(f"minimize in static mode: loss must be a static Variable, received {type(loss).__name__}")


def backward(opt, loss, startup_program=None, parameters=None, no_grad_set=None, callbacks=None):
    """append_backward over the optimizer's parameters (all trainable ones when it has none)."""
    from ..static.backward import append_backward
    _check_static(loss)
    plist = parameters if parameters is not None else (opt._parameter_list or None)
    if plist is not None:
        plist = [p.name if not isinstance(p, str) else p for p in plist]
    fw = _fw()
    startup = startup_program or fw.default_startup_program()
    with fw.program_guard(loss.block.program, startup):
        return append_backward(loss, plist, no_grad_set, callbacks)


def apply_gradients(opt, params_grads):
    """Clipping ops, then the update ops; returns the update ops."""
    from ..static.backward import _mark_roles
    params_grads = [(p, g) for p, g in params_grads if g is not None]
    if not params_grads:
        return []
    program = params_grads[0][1].block.program
    block = program.global_block()
    start = block.desc.op_size()
    fw = _fw()
    with fw.program_guard(program):
        if opt._grad_clip is not None:
            params_grads = opt._grad_clip(params_grads)
        ops = _create_optimization_pass(opt, program, params_grads)
    _mark_roles(block, start, OP_ROLE_OPTIMIZE)
    program._op_cache.clear()
    return [block._wrap_op(block.desc.op(i)) for i in ops]


def _create_optimization_pass(opt, program, params_grads):
    block = program.global_block()
    lr_var = create_global_learning_rate(opt, program)
    group = opt._param_groups[0]
    by_group = {id(p): g for g in opt._param_groups for p in g["params"]}
    out = []
    opt._lr_t = lr_var
    opt._static_program = program
    try:
        for p, g in params_grads:
            grp = by_group.get(id(p), group)
            attr = getattr(p, "optimize_attr", None)
            mult = 1.0 * grp["learning_rate"] * (attr.get("learning_rate", 1.0) if attr else 1.0)
            r = getattr(p, "regularizer", None) or grp["_reg"]
            l1, l2 = r._coeffs() if r is not None else (0.0, 0.0)
            opt._apply(p, g, mult, l1, l2, grp)
            out.append(block.desc.op_size() - 1)
    finally:
        opt._lr_t = None
        opt._static_program = None
    return out


def minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None):
    params_grads = backward(opt, loss, startup_program, parameters, no_grad_set)
    return apply_optimize(opt, loss, startup_program, params_grads), params_grads


def apply_optimize(opt, loss, startup_program, params_grads):
    fw = _fw()
    startup = startup_program or fw.default_startup_program()
    with fw.program_guard(loss.block.program, startup):
        return apply_gradients(opt, params_grads)


# ---------------------------------------------------------------------------------- state
def state_dict(opt):
    """Accumulator values from the global scope (Tensors), master weights, the scheduler."""
    scope = _scope()
    out = {}
    for per in opt._accumulators.values():
        for v in per.values():
            t = scope._get(v.name)
            if t is not None:
                out[v.name] = t
    if opt._master_weights:
        mw = {}
        for v in opt._master_weights.values():
            t = scope._get(v.name)
            if t is not None:
                mw[v.name] = t
        out["master_weights"] = mw
    if isinstance(opt._learning_rate, LRScheduler):
        out["LR_Scheduler"] = opt._learning_rate.state_dict()
    return out


def set_state_dict(opt, state):
    """Writes saved values into the global scope for this optimizer's variables (by exact name,
    else by name without its counter); values for variables not made yet wait in the holder."""
    import numpy as np
    scope = _scope()

    def put(var, v):
        arr = np.asarray(v.numpy() if isinstance(v, Tensor) else v)
        want = var.dtype.name
        if want != "bfloat16" and arr.dtype.name != want:
            arr = arr.astype(want)
        scope._set(var.name, _C.from_buffer(np.ascontiguousarray(arr)))

    for per in opt._accumulators.values():
        for var in per.values():
            v = opt._lookup(opt._accumulators_holder, var.name)
            if v is not None:
                put(var, v)
    for var in opt._master_weights.values():
        v = opt._lookup(opt._master_holder, var.name)
        if v is not None:
            put(var, v)
