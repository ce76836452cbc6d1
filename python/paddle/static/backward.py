"""append_backward and gradients: the gradient ops come from the same backward rules eager
autograd runs (csrc/graph/pd_backward.c replays the program into autograd nodes and records
what the rules compute); here the Python surface: names, parameter lists, op roles."""
from .. import _C
from .framework import Variable, default_main_program

Tensor = _C.Tensor
OP_ROLE_BACKWARD = 1
OP_ROLE_OPTIMIZE = 2
OP_ROLE_LOSS = 256


def _names(vs):
    out = []
    for v in vs or []:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, Tensor) and _C._is_variable(v):
            out.append(v.name)
        else:
            raise TypeError(f"expected Variables or names, received {type(v).__name__}")
    return out


def _stopped(block, keep):
    """Variables the user cut from the graph (x.detach(), y.stop_gradient = True after y was
    computed from something needing a gradient): the only writer of the variable reads a
    variable that needs a gradient, yet the variable is marked stop_gradient. The gradient stops
    there, as in Paddle (keep: names asked for)."""
    bd = block.desc
    writers = {}
    for i in range(bd.op_size()):
        od = bd.op(i)
        for n in od.output_arg_names():
            writers.setdefault(n, []).append(od)
    out = set()
    forward = lambda od: not od.has_attr("op_role") or not (int(od.attr("op_role")) & 3)  # noqa: E731
    for n, ods in writers.items():
        if n in keep or len(ods) != 1 or not forward(ods[0]):
            continue
        d = bd.find_var_recursive(n)
        if d is None or not d.stop_gradient():
            continue
        ins = ods[0].input_arg_names()
        if n in ins:
            continue
        for m in ins:
            dm = bd.find_var_recursive(m)
            if dm is not None and not dm.stop_gradient():
                out.add(n)
                break
    return out


def _mark_roles(block, start, role, first_new_block=None):
    """Marks ops [start, end) of block, and every op of the blocks from first_new_block on (the
    gradient blocks of control flow), with role."""
    descs = [(block.desc, start)]
    if first_new_block is not None:
        prog = block.program.desc
        descs += [(prog.block(i), 0) for i in range(first_new_block, prog.num_blocks())]
    for bd, s in descs:
        for i in range(s, bd.op_size()):
            od = bd.op(i)
            if not od.has_attr("op_role"):
                od._set_attr("op_role", role)


def _check_var(x, what):
    if not (isinstance(x, Tensor) and _C._is_variable(x)):
        raise TypeError(f"{what} must be a static Variable (built in paddle.enable_static() mode), received "
                        f"{type(x).__name__}")


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None,
                    distop_context=None):
    """Appends the ops computing d loss / d parameters to loss's program; returns
    [(parameter, gradient variable)] for the parameters the loss depends on."""
    _check_var(loss, "append_backward: loss")
    block = loss.block
    program = block.program
    if block.idx != 0:
        raise ValueError("append_backward: the loss must be in the program's global block")
    if parameter_list is None:
        params = [p for p in program.global_block().all_parameters() if p.trainable]
    else:
        params = []
        for p in parameter_list:
            params.append(block.var(p) if isinstance(p, str) else p)
    no_grad = set(_names(no_grad_set))
    params = [p for p in params if p.name not in no_grad]
    start, nblocks = block.desc.op_size(), program.desc.num_blocks()
    # Paddle marks the op producing the loss
    for i in range(start - 1, -1, -1):
        od = block.desc.op(i)
        if loss.name in od.output_arg_names():
            od._set_attr("op_role", OP_ROLE_LOSS)
            break
    no_grad |= _stopped(block, {p.name for p in params} | {loss.name})
    grads = _C._gradients(program.desc, 0, [loss.name], None, [p.name for p in params], sorted(no_grad))
    _mark_roles(block, start, OP_ROLE_BACKWARD, nblocks)
    program._op_cache.clear()
    program._appending_grad_times += 1
    out = []
    for p, g in zip(params, grads):
        if g is None:
            continue
        out.append((p, block.var(g)))
    if callbacks:
        for cb in callbacks:
            if not callable(cb):
                raise ValueError("append_backward: callbacks must be callable")
    return out


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Appends ops computing the gradients of sum(targets) w.r.t. inputs; returns one gradient
    variable per input (None where no gradient reaches it)."""
    single = not isinstance(targets, (list, tuple))
    targets = [targets] if single else list(targets)
    inputs = [inputs] if not isinstance(inputs, (list, tuple)) else list(inputs)
    for t in targets:
        _check_var(t, "gradients: targets")
    for x in inputs:
        _check_var(x, "gradients: inputs")
    tg = None
    if target_gradients is not None:
        target_gradients = target_gradients if isinstance(target_gradients, (list, tuple)) else [target_gradients]
        if len(target_gradients) != len(targets):
            raise ValueError("gradients: target_gradients must have one entry per target")
        tg = [None if g is None else g.name for g in target_gradients]
    block = targets[0].block
    program = block.program
    start, nblocks = block.desc.op_size(), program.desc.num_blocks()
    no_grad = set(_names(no_grad_set)) | _stopped(block, {x.name for x in inputs} | {t.name for t in targets})
    grads = _C._gradients(program.desc, block.idx, [t.name for t in targets], tg, [x.name for x in inputs],
                          sorted(no_grad))
    _mark_roles(block, start, OP_ROLE_BACKWARD, nblocks)
    program._op_cache.clear()
    return [None if g is None else block.var(g) for g in grads]


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    return gradients(targets, inputs, target_gradients, no_grad_set)
