"""Control flow of paddle.static.nn (Paddle 2.3): cond, while_loop, case, switch_case. In static
mode they build Paddle's program form: sub-blocks run by conditional_block / while ops, branch
results merged by select_input; the executor and the gradients (append_backward) are C
(csrc/graph/pd_control_flow*.c). In dynamic mode they are plain Python, as in Paddle."""
import numbers
import warnings
from collections.abc import Sequence
from functools import partial, reduce

from ... import _C
from ..framework import default_main_program, in_dynamic_mode

Tensor = _C.Tensor
_VT_STEP_SCOPES = 11
_VT_LOD_TENSOR_ARRAY = 13
_BUILTIN_RET = (bool, float, int)

__all__ = ["cond", "while_loop", "case", "switch_case"]


# ---------------------------------------------------------------------------------- nests
def _is_sequence(x):
    return isinstance(x, dict) or (isinstance(x, Sequence) and not isinstance(x, str))


def _yield_value(x):
    if isinstance(x, dict):
        for k in sorted(x.keys()):
            yield x[k]
    else:
        yield from x


def _flatten(x):
    if not _is_sequence(x):
        return [x]
    out = []
    for v in _yield_value(x):
        out.extend(_flatten(v))
    return out


def _sequence_like(instance, args):
    if isinstance(instance, dict):
        result = dict(zip(sorted(instance.keys()), args))
        return type(instance)((k, result[k]) for k in instance.keys())
    if isinstance(instance, tuple) and hasattr(instance, "_fields"):
        return type(instance)(*args)
    return type(instance)(args)


def _pack(structure, flat, index):
    packed = []
    for s in _yield_value(structure):
        if _is_sequence(s):
            index, child = _pack(s, flat, index)
            packed.append(_sequence_like(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def _pack_sequence_as(structure, flat):
    if not _is_sequence(structure):
        return flat[0]
    return _sequence_like(structure, _pack(structure, flat, 0)[1])


def _map_structure(fn, *structures):
    flats = [_flatten(s) for s in structures]
    return _pack_sequence_as(structures[0], [fn(*x) for x in zip(*flats)])


def _assert_same_structure(a, b):
    na = len(_flatten(a)) if _is_sequence(a) else 1
    nb = len(_flatten(b)) if _is_sequence(b) else 1
    if na != nb:
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         f"First structure ({na} elements): {a}\n\nSecond structure ({nb} elements): {b}")

    def rec(x, y):
        if _is_sequence(x) != _is_sequence(y):
            raise ValueError("The two structures don't have the same nested structure.\n\n"
                             f"First structure: {x}\n\nSecond structure: {y}.")
        if _is_sequence(x):
            for u, v in zip(list(_yield_value(x)), list(_yield_value(y))):
                rec(u, v)
    rec(a, b)


def _to_sequence(x):
    return x if _is_sequence(x) else [x]


# ---------------------------------------------------------------------------------- checks
def _is_var(x):
    return isinstance(x, Tensor) and _C._is_variable(x)


def _check_var(x, what, op, dtypes):
    """Paddle's check_variable_and_dtype (static mode only, as in Paddle)."""
    if not _is_var(x):
        raise TypeError(f"The type of '{what}' in {op} must be <class 'paddle.static.Variable'>, but "
                        f"received {type(x)}. ")
    dt = _dtype_str(x.dtype)
    if dt not in dtypes:
        raise TypeError(f"The data type of '{what}' in {op} must be {dtypes}, but received {dt}. ")


def _dtype_str(dtype):
    from ...framework.dtype import convert_dtype
    d = convert_dtype(dtype)
    return getattr(d, "name", str(d))


def _error_message(what, arg_name, op_name, right_value, error_value):
    return f"{what} of '{arg_name}' in {op_name} must be {right_value}, but received: {error_value}."


# ---------------------------------------------------------------------------------- blocks
def _inputs_outputs_in_block(block, inner_inputs, inner_outputs):
    """Variables a block reads before writing them (inputs) and those it writes (outputs), in
    program order; tensor arrays created in the block are not inputs."""
    for op in block.ops:
        for slot in op.input_names:
            for n in op.input(slot):
                if n not in inner_outputs:
                    inner_inputs[n] = None
        for slot in op.output_names:
            for n in op.output(slot):
                inner_outputs[n] = None
    parent = block.program.block(block.parent_idx)
    for n in list(inner_inputs):
        if parent._find_var_recursive(n) is None and block.has_var(n) and \
                block.var(n).type == _VT_LOD_TENSOR_ARRAY:
            del inner_inputs[n]
    return inner_inputs, inner_outputs


class _BlockGuard:
    """Records into a new sub-block of the main program until exit; complete() then appends the
    op that runs it to the parent block."""

    def __init__(self, owner):
        self.owner = owner
        self.program = default_main_program()

    def __enter__(self):
        self.program._create_block()
        return self.program.current_block()

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.owner._complete(self.program)
        finally:
            self.program._rollback()
        return False


class ConditionalBlock:
    """A block run by a conditional_block op when its conditions hold."""

    def __init__(self, inputs, is_scalar_condition=False, name=None):
        for x in inputs:
            if not _is_var(x):
                raise TypeError(f"The type of 'input' in ConditionalBlock must be Variable, but received {type(x)}")
        self.inputs = list(inputs)
        self.is_scalar_condition = is_scalar_condition

    def block(self):
        return _BlockGuard(self)

    def _complete(self, program):
        inside = program.current_block()
        parent = program.block(inside.parent_idx)
        params, inter = _inputs_outputs_in_block(inside, {}, {})
        param_list = [parent._var_recursive(n) for n in params]
        outs = [v for v in (parent._find_var_recursive(n) for n in inter) if v is not None]
        scope = parent.create_var(type=_VT_STEP_SCOPES)
        parent.append_op(type="conditional_block",
                         inputs={"Cond": self.inputs, "Input": param_list},
                         outputs={"Out": outs, "Scope": [scope]},
                         attrs={"sub_block": inside, "is_scalar_condition": bool(self.is_scalar_condition)})


class While:
    """A block run by a while op as long as cond (a bool Variable of one element) holds; the
    block must update cond."""

    def __init__(self, cond, is_test=False, name=None):
        _check_var(cond, "cond", "paddle.static.nn.While", ["bool"])
        if reduce(lambda a, b: a * b, cond.shape, 1) != 1:
            raise TypeError(f"condition expected shape as [1], but given shape as {list(cond.shape)}.")
        self.cond_var = cond
        self.is_test = is_test

    def block(self):
        return _BlockGuard(self)

    def _complete(self, program):
        inside = program.current_block()
        parent = program.block(inside.parent_idx)
        xs, inner = _inputs_outputs_in_block(inside, {}, {self.cond_var.name: None})
        outs = [v for v in (parent._find_var_recursive(n) for n in inner) if v is not None]
        for v in outs:
            xs[v.name] = None
        xs.pop(self.cond_var.name, None)
        scope = parent.create_var(type=_VT_STEP_SCOPES)
        parent.append_op(type="while",
                         inputs={"X": [parent._var_recursive(n) for n in xs], "Condition": [self.cond_var]},
                         outputs={"Out": outs, "StepScopes": [scope]},
                         attrs={"sub_block": inside, "is_test": bool(self.is_test)})


def _assign(src, dst):
    """dst = src inside the current block (one assign op)."""
    import paddle
    if _is_var(src):
        _C._static_assign(dst, src)
    else:
        paddle.assign(src, dst)


def _copy_to_parent(var):
    if not _is_var(var):
        return var
    program = default_main_program()
    parent = program.block(program.current_block().parent_idx)
    if var.type == _VT_LOD_TENSOR_ARRAY and parent._find_var_recursive(var.name) is not None:
        return var
    out = parent.create_var(dtype=var.dtype, shape=var.shape, type=var.type)
    _assign(var, out)
    return out


# ---------------------------------------------------------------------------------- select_input
def _to_static_variable(x):
    import paddle
    if _is_var(x):
        return x
    if isinstance(x, bool):
        return paddle.full([1], x, "bool")
    if isinstance(x, int):
        return paddle.full([1], x, "int64")
    return paddle.full([1], float(x), "float32")


def _select_input(inputs, mask):
    a, b = inputs[0].shape, inputs[1].shape
    shape = [x if x == y else -1 for x, y in zip(a, b)] if len(a) == len(b) else list(b)
    block = default_main_program().current_block()
    out = block.create_var(dtype=inputs[1].dtype, shape=shape, type=inputs[1].type)
    block.append_op(type="select_input", inputs={"X": list(inputs), "Mask": [mask]}, outputs={"Out": [out]})
    return out


def _select_with_builtin(false_var, true_var, mask):
    if _is_var(false_var) and _is_var(true_var):
        return _select_input([false_var, true_var], mask)
    if isinstance(false_var, _BUILTIN_RET) and isinstance(false_var, type(true_var)):
        if false_var == true_var:
            return false_var
    elif (isinstance(false_var, _BUILTIN_RET) and _is_var(true_var)) or \
            (isinstance(true_var, _BUILTIN_RET) and _is_var(false_var)):
        warnings.warn("Return results from different branches in cond are not same type: false_var returned by "
                      f"false_fn is '{type(false_var)}' and true_var of true_fn is '{type(true_var)}'")
    else:
        raise TypeError("Unsupported return type of true_fn and false_fn in cond: false_var returned by false_fn "
                        f"is '{type(false_var)}' and true_var of true_fn is '{type(true_var)}'")
    return _select_input([_to_static_variable(false_var), _to_static_variable(true_var)], mask)


# ---------------------------------------------------------------------------------- cond
def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Runs true_fn() if pred (a bool tensor of one element) is True, else false_fn(); both
    must return the same nested structure (or both None). Static mode builds both branches into
    conditional blocks and merges their results with select_input."""
    if in_dynamic_mode():
        assert isinstance(pred, Tensor), "The pred in cond must be Variable"
        assert pred.size == 1, "condition input's numel should be 1"
        if bool(pred.numpy().reshape(-1)[0]):
            if true_fn is not None:
                if not callable(true_fn):
                    raise TypeError(f"The true_fn in cond must be callable, but received {type(true_fn).__name__}")
                return true_fn()
        elif false_fn is not None:
            if not callable(false_fn):
                raise TypeError(f"The false_fn in cond must be callable, but received {type(false_fn).__name__}")
            return false_fn()
        return None

    _check_var(pred, "pred", "paddle.static.nn.cond", ["bool"])
    if name is not None and not isinstance(name, str):
        raise TypeError(f"The type of 'name' in paddle.static.nn.cond must be (<class 'str'>, <class "
                        f"'NoneType'>), but received {type(name)}. ")
    import paddle
    true_output = false_output = None
    if true_fn is not None:
        if not callable(true_fn):
            raise TypeError(f"The true_fn in cond must be callable, but received {type(true_fn).__name__}")
        with ConditionalBlock([pred], is_scalar_condition=True).block():
            out = true_fn()
            if out is not None:
                true_output = _map_structure(_copy_to_parent, out)
    if false_fn is not None:
        if not callable(false_fn):
            raise TypeError(f"The false_fn in cond must be callable, but received {type(false_fn).__name__}")
        with ConditionalBlock([paddle.logical_not(pred)], is_scalar_condition=True).block():
            out = false_fn()
            if out is not None:
                false_output = _map_structure(_copy_to_parent, out)
    if true_output is None and false_output is None:
        return None
    if true_output is None:
        raise ValueError("Incompatible return values of true_fn and false_fn in cond: "
                         "true_fn returns None while false_fn returns non-None")
    if false_output is None:
        raise ValueError("Incompatible return values of true_fn and false_fn in cond: "
                         "true_fn returns non-None while false_fn returns None")
    if return_names is None:
        return_names = ["no name"] * len(_to_sequence(true_output))
    if len(_to_sequence(true_output)) != len(_to_sequence(false_output)):
        raise ValueError(f"true fn returns {len(_to_sequence(true_output))} vars, but false fn returns "
                         f"{len(_to_sequence(false_output))} vars, which is not equals")
    for t, f, n in zip(_to_sequence(true_output), _to_sequence(false_output), _to_sequence(return_names)):
        try:
            _assert_same_structure(t, f)
        except ValueError as e:
            raise ValueError(f"Incompatible return values of `{n}` in true_fn and false_fn in cond: {e}")
    mask = paddle.cast(pred, "int32")
    return _map_structure(lambda f, t: _select_with_builtin(f, t, mask), false_output, true_output)


# ---------------------------------------------------------------------------------- while_loop
def _assign_loop_var(out, var):
    """Writes a body result into its loop variable (tensor arrays made outside stay shared)."""
    if not _is_var(out):
        if _is_var(var) and isinstance(out, _BUILTIN_RET):
            import paddle
            paddle.assign(out, var)
        return
    if out.type == _VT_LOD_TENSOR_ARRAY:
        program = default_main_program()
        parent = program.block(program.current_block().parent_idx)
        if parent._find_var_recursive(out.name) is not None:
            return
    _assign(out, var)


def _eager_assign(out, var):
    """Dynamic mode: the loop variable takes the body's result in place when it can (Paddle's
    assign(output, loop_var)); a leaf that needs a gradient is replaced instead."""
    import paddle
    if isinstance(var, Tensor) and isinstance(out, Tensor):
        if out is var:
            return var
        try:
            paddle.assign(out, var)
            return var
        except (RuntimeError, ValueError):
            return out
    if isinstance(var, Tensor) and isinstance(out, _BUILTIN_RET):
        paddle.assign(out, var)
        return var
    return out


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Repeats loop_vars = body(*loop_vars) while cond(*loop_vars) (a bool tensor of one element)
    is True; returns the final loop_vars. Static mode builds a while op over a sub-block."""
    if not callable(cond):
        raise TypeError("cond in while_loop should be callable")
    if not callable(body):
        raise TypeError("body in while_loop should be callable")
    dynamic = in_dynamic_mode()
    if not dynamic and not isinstance(loop_vars, (list, tuple)):
        raise TypeError(f"The type of 'loop_vars' in paddle.static.nn.while_loop must be (<class 'list'>, "
                        f"<class 'tuple'>), but received {type(loop_vars)}. ")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars in while_loop should not be empty")
    pre_cond = cond(*loop_vars)
    if not dynamic:
        _check_var(pre_cond, "var of cond returned", "paddle.static.nn.while_loop", ["bool"])
    if reduce(lambda a, b: a * b, pre_cond.shape, 1) != 1:
        raise TypeError("the shape of the variable returned by cond should be [1],"
                        f"but given shape as {list(pre_cond.shape)}.")

    if dynamic:
        now = bool(pre_cond.numpy().reshape(-1)[0])
        cur = list(loop_vars)
        while now:
            outs = body(*cur)
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            if len(outs) != len(cur):
                raise ValueError("body in while_loop should return the same arity "
                                 "(length and structure) and types as loop_vars")
            now = bool(cond(*outs).numpy().reshape(-1)[0])
            new = [_eager_assign(o, v) for o, v in zip(_flatten(list(outs)), _flatten(cur))]
            cur = _pack_sequence_as(cur, new)
        if isinstance(loop_vars, list):
            loop_vars[:] = cur
            return loop_vars
        return type(loop_vars)(cur)

    loop = While(pre_cond, is_test, name)
    with loop.block():
        outs = body(*loop_vars)
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        try:
            if len(outs) != len(loop_vars):
                raise ValueError("The length of loop_vars should be the same.")
            _assert_same_structure(outs, loop_vars)
        except ValueError as e:
            raise ValueError(f"body in while_loop should return the same arity (length and structure) as "
                             f"loop_vars: {e}")
        now_cond = cond(*outs)
        _map_structure(_assign_loop_var, outs, loop_vars)
        _assign(now_cond, pre_cond)
    return loop_vars


# ---------------------------------------------------------------------------------- case, switch_case
def case(pred_fn_pairs, default=None, name=None):
    """if pred_0: fn_0() elif pred_1: fn_1() ... else default() (default None: the last fn)."""
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"The type of 'pred_fn_pairs' in case must be (<class 'list'>, <class 'tuple'>), but "
                        f"received {type(pred_fn_pairs)}. ")
    for pred_fn in pred_fn_pairs:
        if not isinstance(pred_fn, tuple):
            raise TypeError(_error_message("The elements' type", "pred_fn_pairs", "case", tuple, type(pred_fn)))
        if len(pred_fn) != 2:
            raise TypeError(_error_message("The tuple's size", "pred_fn_pairs", "case", "2",
                                           str(len(pred_fn)) + "-tuple"))
        pred, fn = pred_fn
        if not isinstance(pred, Tensor):
            raise TypeError(_error_message("The pred's type", "pred_fn_pairs", "case", "boolean Variable",
                                           type(pred)))
        if not callable(fn):
            raise TypeError(f"The fn for {getattr(pred, 'name', pred)} of pred_fn_pairs in Op(case) must be callable.")
    if default is None:
        default = pred_fn_pairs[-1][1]
        pred_fn_pairs = pred_fn_pairs[:-1]
    elif not callable(default):
        raise TypeError("The default in Op(case) must be callable.")
    false_fn = default
    for pred, true_fn in reversed(pred_fn_pairs):
        false_fn = partial(cond, pred=pred, true_fn=true_fn, false_fn=false_fn)
    return false_fn()


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Runs branch_fns[branch_index] (a dict {int: fn}, a list of (int, fn) pairs or of fns), or
    default() when no key matches (default None: the fn with the largest key)."""
    import paddle
    if not in_dynamic_mode():
        _check_var(branch_index, "branch_index", "paddle.static.nn.switch_case", ["uint8", "int32", "int64"])
    if _dtype_str(branch_index.dtype) != "int64":
        branch_index = paddle.cast(branch_index, "int64")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError(f"The type of 'branch_fns' in switch_case must be (<class 'list'>, <class 'tuple'>, "
                        f"<class 'dict'>), but received {type(branch_fns)}. ")
    branch_fns = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    keys = []
    for pair in branch_fns:
        if not isinstance(pair, tuple):
            raise TypeError(_error_message("The elements' type", "branch_fns", "switch_case", tuple, type(branch_fns)))
        if len(pair) != 2:
            raise TypeError(_error_message("The tuple's size", "branch_fns", "switch_case", "2",
                                           str(len(pair)) + "-tuple"))
        key, fn = pair
        if not isinstance(key, numbers.Integral) or isinstance(key, bool):
            raise TypeError(_error_message("The key's type", "branch_fns", "switch_case", int, type(key)))
        if key in keys:
            raise ValueError(f"The key in 'branch_fns' must be unique, but '{key}' appears more than once.")
        keys.append(key)
        if not callable(fn):
            raise TypeError(_error_message(f"The type of function for key {key}", "branch_fns", "switch_case",
                                           "callable", type(fn)))
    ordered = sorted(branch_fns, key=lambda p: p[0])
    if default is None:
        default = ordered[-1][1]
        branch_fns = ordered[:-1]
    elif not callable(default):
        raise TypeError("The default in Op(case) must be callable.")
    pred_fn_pairs = []
    for index, fn in branch_fns:
        pred = paddle.equal(branch_index, paddle.full([1], int(index), "int64"))
        pred_fn_pairs.append((pred, fn))
    false_fn = default
    for pred, true_fn in pred_fn_pairs:
        false_fn = partial(cond, pred=pred, true_fn=true_fn, false_fn=false_fn)
    return false_fn()
