"""paddle.static.Print and paddle.static.py_func: program ops that call back into Python while the
executor runs (csrc/graph/pd_exec_callback.c through paddle._C._set_exec_callback). Print writes
its input in Paddle's format (name, message, LoD, place, shape, layout, dtype, the first
`summarize` values) in the phases asked for; py_func runs a registered Python function on its
inputs (LoDTensors) and its backward_func, when given, in append_backward's gradient op."""
import functools
import inspect
import sys

import numpy as np

from .. import _C
from .executor import LoDTensor
from .framework import Variable, _in_static, default_main_program

__all__ = ["Print", "py_func"]


def static_only(fn):
    """Paddle's @static_only: the function exists only in static-graph mode."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        assert _in_static(), (
            f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and '{fn.__name__}()' is only "
            f"supported in static graph mode. So if you want to use this api, please call "
            f"'paddle.enable_static()' before this api to enter static graph mode.")
        return fn(*args, **kwargs)
    return wrapper


# ---------------------------------------------------------------------------------- Print
@static_only
def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True, print_tensor_type=True,
          print_tensor_shape=True, print_tensor_layout=True, print_tensor_lod=True, print_phase="both"):
    """Prints input when the program runs (forward), its gradient (backward) or both; returns a
    variable equal to input, which the rest of the program should use."""
    dt = input.dtype.name
    if dt not in ("float32", "float64", "int32", "int64", "bool", "float16", "uint16"):
        raise TypeError(f"The data type of 'input' in Print must be one of float32, float64, int32, int64, bool, "
                        f"float16, uint16, but received {dt}.")
    phase = str(print_phase).upper()
    if phase not in ("FORWARD", "BACKWARD", "BOTH"):
        raise ValueError(f"print_phase must be one of forward, backward, both, received {print_phase!r}")
    return _C._C_ops.print(input, int(first_n), message or "", int(summarize), bool(print_tensor_name),
                           bool(print_tensor_type), bool(print_tensor_shape), bool(print_tensor_layout),
                           bool(print_tensor_lod), phase, True)


def _fmt_value(v, kind):
    if kind == "f":
        return "%g" % v
    if kind == "b":
        return "1" if v else "0"
    return str(v)


def _format(name, arr, lod, attrs):
    lines = []
    if attrs.get("print_tensor_name", True):
        lines.append(f"Variable: {name}")
    if attrs.get("message"):
        lines.append(f"  - message: {attrs['message']}")
    if attrs.get("print_tensor_lod", True):
        lines.append("  - lod: {" + ", ".join("{" + ", ".join(str(o) for o in lv) + "}" for lv in lod) + "}")
    lines.append("  - place: Place(cpu)")
    if attrs.get("print_tensor_shape", True):
        lines.append("  - shape: [" + ", ".join(str(d) for d in arr.shape) + "]")
    if attrs.get("print_tensor_layout", True):
        lines.append("  - layout: NCHW")
    if attrs.get("print_tensor_type", True):
        lines.append(f"  - dtype: {arr.dtype.name}")
    flat = arr.reshape(-1)
    n = int(attrs.get("summarize", 20))
    if 0 <= n < flat.size:
        flat = flat[:n]
    kind = "f" if arr.dtype.kind in "fc" else "b" if arr.dtype.kind == "b" else "i"
    lines.append("  - data: [" + " ".join(_fmt_value(v, kind) for v in flat.tolist()) + "]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- py_func
class _PyFuncRegistry:
    """Functions run by py_func ops, by id (Paddle's PyFuncRegistry)."""
    funcs = []

    def __init__(self, func):
        if func is None or not callable(func):
            raise TypeError("func must be a Python function")
        self._func = func
        try:
            spec = inspect.getfullargspec(func)
            self._named = None if not spec.args and spec.varargs is None and spec.varkw is None else spec.args
        except TypeError:
            self._named = []
        self.id = len(_PyFuncRegistry.funcs)
        _PyFuncRegistry.funcs.append(self)

    def __call__(self, *args):
        if self._named is None:
            ret = self._func()
        else:
            n = min(len(self._named), len(args))
            ret = self._func(*args[n:], **dict(zip(self._named[:n], args[:n])))
        return ret if isinstance(ret, (list, tuple)) else (ret,)


@static_only
def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Appends an op running func(*x) (LoDTensors in, numpy arrays or LoDTensors out) into the
    variables out (created by the caller, with their shapes); backward_func(*x, *out,
    *out_grads), minus skip_vars_in_backward_input, gives x's gradients."""
    if x is None:
        x = []
    elif isinstance(x, Variable):
        x = [x]
    elif isinstance(x, (list, tuple)):
        x = list(x)
    else:
        raise TypeError("Input must be Tensor/list(Tensor)/tuple(Tensor)")
    if out is None:
        outs = []
    elif isinstance(out, Variable):
        outs = [out]
    elif isinstance(out, (list, tuple)):
        outs = list(out)
    else:
        raise TypeError("Output must be Tensor/list(Tensor)/tuple(Tensor)")
    fid = _PyFuncRegistry(func).id
    bid = _PyFuncRegistry(backward_func).id if backward_func is not None else -1
    for o in outs:
        if len(o.shape) == 0:
            raise ValueError("Output shapes of py_func should be provided by users manually")
    skip = []
    if backward_func is not None and skip_vars_in_backward_input is not None:
        sv = skip_vars_in_backward_input
        sv = [sv] if isinstance(sv, Variable) else list(sv)
        names = {v.name for v in x} | {v.name for v in outs}
        for v in sv:
            if v.name not in names:
                raise ValueError(f"Tensor {v.name} is not found in forward inputs and outputs")
            if v.name not in skip:
                skip.append(v.name)
    block = default_main_program().current_block()
    block.append_op(type="py_func", inputs={"X": x}, outputs={"Out": outs},
                    attrs={"forward_callable_id": fid, "backward_callable_id": bid, "backward_skip_vars": skip})
    return out


py_func.registered_func = lambda idx: _PyFuncRegistry.funcs[idx]._func
py_func.registered_func_num = lambda: len(_PyFuncRegistry.funcs)


def _to_output(r, meta, like):
    dt, dims = meta
    if r is None:
        shape = list(dims)
        if any(d < 0 for d in shape) and like is not None and len(like.shape) == len(shape):
            shape = list(like.shape)
        if any(d < 0 for d in shape):
            raise ValueError("py_func: an output of unknown shape was returned as None")
        r = np.zeros(shape, dtype=dt or "float32")
    a = np.asarray(r.numpy() if isinstance(r, (LoDTensor, _C.Tensor)) else r)
    if dt and a.dtype.name != dt and dt != "bfloat16":
        a = a.astype(dt)
    return _C.from_buffer(np.ascontiguousarray(a))


# ---------------------------------------------------------------------------------- the executor's callback
def _exec_callback(op_type, attrs, in_names, ins, lods, out_names, out_metas):
    if op_type == "print":
        arr = np.array(ins[0])
        sys.stdout.write(_format(in_names[0] if in_names else "", arr, lods[0], attrs))
        sys.stdout.flush()
        return None
    if op_type == "py_func":
        fid = int(attrs.get("forward_callable_id", -1))
        if not 0 <= fid < len(_PyFuncRegistry.funcs):
            raise ValueError(f"py_func: no registered function with id {fid}")
        args = [LoDTensor(np.array(t), lod) for t, lod in zip(ins, lods)]
        ret = _PyFuncRegistry.funcs[fid](*args)
        if len(ret) == 1 and ret[0] is None and not out_metas:
            ret = ()
        if len(ret) != len(out_metas):
            raise ValueError(f"py_func: the function returned {len(ret)} values for {len(out_metas)} outputs")
        return [_to_output(r, m, np.array(ins[i]) if i < len(ins) else None) for i, (r, m) in enumerate(zip(ret, out_metas))]
    raise ValueError(f"no Python callback for op {op_type}")


_C._set_exec_callback(_exec_callback)
