"""paddle.onnx.export: Layer -> inference Program (paddle.jit's to_static path, the program
jit.save writes) -> ONNX graph, one op at a time (op_mapper.py), parameters as initializers."""
import os

import numpy as np

MIN_OPSET = 9
MAX_OPSET = 17

# Paddle's VarType codes (attributes such as fill_constant.dtype / cast.out_dtype) -> numpy
_VARTYPE_NP = {0: np.bool_, 1: np.int16, 2: np.int32, 3: np.int64, 4: np.float16, 5: np.float32,
               6: np.float64, 20: np.uint8, 21: np.int8}


def _import_onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("paddle.onnx.export needs the `onnx` package (pip install onnx); "
                          f"importing it failed: {e}") from e
    return onnx


def np_dtype(d):
    """numpy dtype of a paddle dtype / dtype name / VarType code."""
    if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
        if int(d) not in _VARTYPE_NP:
            raise NotImplementedError(f"paddle.onnx.export: data type code {int(d)} has no ONNX mapping")
        return np.dtype(_VARTYPE_NP[int(d)])
    name = getattr(d, "name", d)
    name = str(name).replace("paddle.", "")
    if name == "bool":
        return np.dtype(np.bool_)
    if name == "bfloat16":
        raise NotImplementedError("paddle.onnx.export: bfloat16 tensors are not supported")
    return np.dtype(name)


class Graph:
    """The ONNX graph under construction: nodes, initializers, known constant values and the
    program's variable shapes/dtypes (ONNX value names are the program's variable names)."""

    def __init__(self, opset, block, onnx):
        self.opset = opset
        self.block = block
        self.onnx = onnx
        self.helper = onnx.helper
        self.nodes = []
        self.initializers = []
        self.consts = {}      # name -> numpy value known at export time
        self._pending = {}    # parameters: made initializers when a node first reads them
        self._names = set()
        self._k = 0
        self.cond_producers = {}  # control flow (op_mapper_flow.py): branch outputs -> conditional_block
        self.merged = set()       # the conditional_blocks an If took in

    # -- program variables
    def var(self, name):
        return self.block._var_recursive(name)  # an if branch's sub-block reads outer variables

    def shape(self, name):
        return [int(d) for d in self.var(name).shape]

    def rank(self, name):
        return len(self.var(name).shape)

    def dtype(self, name):
        return np_dtype(self.var(name).dtype)

    # -- building
    def tmp(self, base="t"):
        while True:
            self._k += 1
            n = f"_onnx_{base}_{self._k}"
            if n not in self._names:
                self._names.add(n)
                return n

    def node(self, op_type, inputs, outputs=None, n_out=1, **attrs):
        if outputs is None:
            outputs = [self.tmp(op_type.lower()) for _ in range(n_out)]
        elif isinstance(outputs, str):
            outputs = [outputs]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        for i in inputs:
            if i in self._pending:
                self.initializers.append((i, self._pending.pop(i)))
        self.nodes.append(self.helper.make_node(op_type, list(inputs), list(outputs),
                                                name=self.tmp("node"), **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const(self, value, dtype=None, name=None):
        arr = np.asarray(value, dtype=dtype)
        if name is None:
            name = self.tmp("const")
        self._names.add(name)
        self.consts[name] = arr
        self.initializers.append((name, arr))
        return name

    def param(self, name, arr):
        """A parameter's value: an initializer once some node reads it as it is (converters that
        rearrange it, such as the recurrent ones, make their own constants instead)."""
        self._names.add(name)
        self.consts[name] = arr
        self._pending[name] = arr

    def ints(self, values):
        return self.const(np.asarray(values, dtype=np.int64))

    # -- opset-dependent building blocks
    def unsqueeze(self, x, axes, out=None):
        axes = [int(a) for a in axes]
        if x in self.consts and out is None:
            v = self.consts[x]
            for a in sorted(a if a >= 0 else a + v.ndim + len(axes) for a in axes):
                v = np.expand_dims(v, a)
            return self.const(v)
        if self.opset >= 13:
            return self.node("Unsqueeze", [x, self.ints(axes)], out)
        return self.node("Unsqueeze", [x], out, axes=axes)

    def squeeze(self, x, axes, out=None):
        axes = [int(a) for a in axes]
        if self.opset >= 13:
            return self.node("Squeeze", [x, self.ints(axes)], out)
        return self.node("Squeeze", [x], out, axes=axes)

    def reduce(self, op_type, x, axes=None, keepdims=1, out=None):
        if op_type == "ReduceSum" and self.opset >= 13:
            ins = [x] if axes is None else [x, self.ints(axes)]
            return self.node(op_type, ins, out, keepdims=keepdims)
        return self.node(op_type, [x], out, axes=None if axes is None else [int(a) for a in axes],
                         keepdims=keepdims)

    def split(self, x, axis, sizes, outs=None):
        outs = outs or [self.tmp("split") for _ in sizes]
        if self.opset >= 13:
            self.node("Split", [x, self.ints(sizes)], outs, axis=int(axis))
        else:
            self.node("Split", [x], outs, axis=int(axis), split=[int(s) for s in sizes])
        return outs

    def slice(self, x, axes, starts, ends, steps=None, out=None):
        if self.opset < 10:
            if steps is not None and any(s != 1 for s in steps):
                raise NotImplementedError("strided slices need opset_version >= 10")
            return self.node("Slice", [x], out, axes=list(axes), starts=list(starts), ends=list(ends))
        ins = [x, self.ints(starts), self.ints(ends), self.ints(axes)]
        if steps is not None:
            ins.append(self.ints(steps))
        return self.node("Slice", ins, out)

    def clip(self, x, lo, hi, out=None, dtype=None):
        dt = np.dtype(dtype if dtype is not None else (self.dtype(x) if self._is_var(x) else np.float32))
        if dt != np.float32 and self.opset < 12:  # Clip before 12 is float-only in onnxruntime
            t = x if lo is None else self.node("Max", [x, self.const(np.asarray(lo, dtype=dt))])
            t = t if hi is None else self.node("Min", [t, self.const(np.asarray(hi, dtype=dt))])
            return self.node("Identity", [t], out)
        if self.opset < 11:
            return self.node("Clip", [x], out, min=None if lo is None else float(lo),
                             max=None if hi is None else float(hi))
        ins = [x, "" if lo is None else self.const(np.asarray(lo, dtype=dt)),
               "" if hi is None else self.const(np.asarray(hi, dtype=dt))]
        while ins and ins[-1] == "":
            ins.pop()
        return self.node("Clip", ins, out)

    def reshape(self, x, shape, out=None):
        return self.node("Reshape", [x, self.ints(shape)], out)

    def cast(self, x, np_dt, out=None):
        return self.node("Cast", [x], out, to=int(self.helper.np_dtype_to_tensor_dtype(np.dtype(np_dt))))

    def _is_var(self, name):
        try:
            return self.block.has_var(name)
        except Exception:
            return False


def _restore_modes(layer):
    from ..nn import Layer
    if not isinstance(layer, Layer):
        return lambda: None
    saved = [(sub, sub.training) for sub in layer.sublayers(include_self=True)]

    def restore():
        for sub, t in saved:
            sub.training = t
    return restore


def _inference_program(layer, input_spec, output_spec):
    """(program, parameters, feed names, fetch names): the inference program of layer.forward
    (to_static with input_spec), pruned to the outputs, as jit.save builds it."""
    from ..jit.api import _methods, _to_specs
    from ..jit.program_translator import StaticFunction, _static_mode, to_static
    from ..nn import Layer
    from ..static import framework as _fw
    from ..static import io
    specs = _to_specs(input_spec)
    if isinstance(layer, Layer):
        sf = dict(_methods(layer, specs)).get("forward")
        if sf is None:
            raise RuntimeError("paddle.onnx.export: the Layer's forward is not a to_static function and no "
                               "input_spec was given; pass input_spec (a list of InputSpec or Tensors)")
    elif isinstance(layer, StaticFunction):
        sf = layer
    elif callable(layer):
        sf = to_static(layer)
    else:
        raise TypeError(f"The input of paddle.onnx.export should be 'Layer' or 'Function', but received input "
                        f"type is {type(layer).__name__}.")
    cp = sf.concrete_program_specify_input_spec(specs) if specs is not None else sf.concrete_program
    prog = cp.main_program.clone()
    gb = prog.global_block()
    feeds = [gb.var(v.name) for v in cp.inputs]
    outs = list(cp.outputs)
    if output_spec is not None:
        wanted = {getattr(v, "name", None) for v in output_spec}
        outs = [v for v in outs if v.name in wanted]
        if not outs:
            raise ValueError("paddle.onnx.export: none of output_spec is an output of the program")
    fetches = [gb.var(v.name) for v in outs]
    with _static_mode(prog, _fw.Program()):
        infer = io.normalize_program(prog, feeds, fetches)
    return infer, cp.parameters


def _feeds_fetches(block):
    feeds, fetches, body = {}, {}, []
    for op in block.ops:
        if op.type == "feed":
            feeds[int(op.attr("col"))] = op.output("Out")[0]
        elif op.type == "fetch":
            fetches[int(op.attr("col"))] = op.input("X")[0]
        else:
            body.append(op)
    return [feeds[k] for k in sorted(feeds)], [fetches[k] for k in sorted(fetches)], body


def _value_info(g, name, dim_prefix=None):
    h = g.helper
    shape = []
    for i, d in enumerate(g.shape(name)):
        if d >= 0:
            shape.append(d)
        else:
            shape.append(f"{dim_prefix}_d{i}" if dim_prefix else None)
    return h.make_tensor_value_info(name, int(h.np_dtype_to_tensor_dtype(g.dtype(name))), shape)


_CONTROL_FLOW = {"select_output", "while", "recurrent"}


def _all_ops(block, program):
    """the ops of block and of the sub-blocks its control-flow ops run"""
    for op in block.ops:
        yield op
        if op.type == "conditional_block":
            yield from _all_ops(op.attr("sub_block"), program)


def build_model(program, parameters, opset_version, onnx):
    """An onnx ModelProto for an inference program (feed/fetch ops give inputs/outputs)."""
    from . import op_mapper
    h = onnx.helper
    block = program.global_block()
    g = Graph(opset_version, block, onnx)
    feed_names, fetch_names, body = _feeds_fetches(block)
    every = [op for op in _all_ops(block, program) if op.type not in ("feed", "fetch")]
    unknown = sorted({op.type for op in every if op.type not in op_mapper.CONVERTERS})
    if unknown:
        flow = sorted(set(unknown) & _CONTROL_FLOW)
        hint = (f"; {', '.join(flow)} come from loops (paddle.static.nn.while_loop, or a Python while on a "
                f"tensor under to_static), which have no ONNX Loop conversion yet (if / else becomes "
                f"an ONNX If): keep tensor-dependent loops out of the exported forward (e.g. a fixed "
                f"trip count)") if flow else ""
        raise NotImplementedError(f"paddle.onnx.export: no ONNX conversion for op type(s) {', '.join(unknown)} "
                                  f"(opset_version {opset_version}){hint}")
    # parameters / buffers read by the program become initializers
    used = set()
    for op in every:
        for slot in op.input_names:
            used.update(op.input(slot))
    for name in sorted(used):
        if name in parameters and block.has_var(name) and block.var(name).persistable:
            arr = np.asarray(parameters[name])  # the tensor's buffer, no copy
            g.param(name, arr.astype(np_dtype(block.var(name).dtype), copy=False))
    failures = []
    for op in body:
        try:
            op_mapper.CONVERTERS[op.type](g, op)
        except NotImplementedError as e:
            failures.append(f"{op.type}: {e}")
    stray = [op for op in set(g.cond_producers.values()) if op not in g.merged]
    if stray:
        failures.append("conditional_block: an if without an else branch that assigns an outer variable "
                        "(no select_input merges it) has no ONNX If form")
    if failures:
        raise NotImplementedError("paddle.onnx.export: these ops cannot be converted at opset_version "
                                  f"{opset_version}:\n  " + "\n  ".join(dict.fromkeys(failures)))
    inputs = [_value_info(g, n, dim_prefix=n) for n in feed_names]
    outputs = []
    for n in fetch_names:
        if n in feed_names or n in g.consts:  # an output must be produced by a node
            n2 = g.tmp("out")
            g.node("Identity", [n], n2)
            outputs.append(h.make_tensor_value_info(n2, int(h.np_dtype_to_tensor_dtype(g.dtype(n))), g.shape(n)))
        else:
            outputs.append(_value_info(g, n))
    model = onnx.ModelProto()
    opsets = [h.make_opsetid("", opset_version)]
    model.ir_version = h.find_min_ir_version_for(opsets)
    model.producer_name = "PaddlePaddle"
    model.opset_import.extend(opsets)
    graph = model.graph
    graph.name = "paddle_model"
    graph.node.extend(g.nodes)
    graph.input.extend(inputs)
    graph.output.extend(outputs)
    for name, arr in g.initializers:  # filled in place: a large model's weights are copied once
        t = graph.initializer.add()
        t.name = name
        t.data_type = int(h.np_dtype_to_tensor_dtype(arr.dtype))
        t.dims.extend(arr.shape)
        t.raw_data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return model


def export(layer, path, input_spec=None, opset_version=9, **configs):
    """Exports layer (its forward, converted with paddle.jit.to_static and input_spec) to the ONNX
    model `path + '.onnx'`. opset_version 9..17. configs: output_spec (the outputs to keep)."""
    onnx = _import_onnx()
    if not isinstance(path, str):
        raise TypeError(f"The input path MUST be format of string, but received {type(path).__name__}.")
    if path == "" or os.path.basename(path) == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in Windows "
                         "system], but received file_prefix is empty string.")
    if isinstance(opset_version, bool) or not isinstance(opset_version, int):
        raise TypeError(f"opset_version should be an int, but received {type(opset_version).__name__}")
    if not MIN_OPSET <= opset_version <= MAX_OPSET:
        raise ValueError(f"paddle.onnx.export supports opset_version {MIN_OPSET}..{MAX_OPSET}, but received "
                         f"{opset_version}")
    for k in configs:
        if k not in ("output_spec", "enable_onnx_checker", "verbose"):
            raise ValueError(f"The additional config ({k}) of `paddle.onnx.export` is not supported.")
    restore = _restore_modes(layer)
    try:
        if hasattr(layer, "eval"):
            layer.eval()
        program, params = _inference_program(layer, input_spec, configs.get("output_spec"))
    finally:
        restore()
    model = build_model(program, params, opset_version, onnx)
    data = model.SerializeToString()
    del model
    if configs.get("enable_onnx_checker", True):
        onnx.checker.check_model(data)
    d = os.path.dirname(path)
    if d and not os.path.exists(d):
        os.makedirs(d)
    with open(path + ".onnx", "wb") as f:
        f.write(data)
    if configs.get("verbose", False):
        print(f"paddle.onnx.export: ONNX model saved in {path}.onnx (opset {opset_version})")
