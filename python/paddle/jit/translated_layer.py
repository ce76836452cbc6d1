"""TranslatedLayer: what paddle.jit.load returns. A Layer over loaded programs (the inference
program as saved, and a copy with is_test=False for train mode) whose parameters and buffers
are eager tensors holding the loaded values; calling it runs the program through
partial_program.ProgramRunner, so it trains (gradients for its parameters) like any Layer."""
import numpy as np

from .. import _C
from ..framework.param import Parameter, make_parameter
from ..nn import Layer
from .partial_program import ProgramRunner

Tensor = _C.Tensor
_VT_FEED, _VT_FETCH = 9, 10


def _strip_feed_fetch(program):
    """Removes feed/fetch ops and their holder variables; returns (feed names by col, fetch names)."""
    gb = program.global_block().desc
    feeds, fetches = {}, {}
    i = 0
    while i < gb.op_size():
        od = gb.op(i)
        t = od.type()
        if t == "feed":
            feeds[od.attr("col")] = od.output("Out")[0]
            gb._remove_op(i, i + 1)
            continue
        if t == "fetch":
            fetches[od.attr("col")] = od.input("X")[0]
            gb._remove_op(i, i + 1)
            continue
        i += 1
    for d in list(gb.all_vars()):
        if d.type() in (_VT_FEED, _VT_FETCH):
            gb._remove_var(d.name())
    program._op_cache.clear()
    return [feeds[k] for k in sorted(feeds)], [fetches[k] for k in sorted(fetches)]


def _set_is_test(program, value):
    for b in range(program.desc.num_blocks()):
        bd = program.desc.block(b)
        for i in range(bd.op_size()):
            od = bd.op(i)
            if od.has_attr("is_test"):
                od._set_attr("is_test", value)
    program._op_cache.clear()


def _written(program):
    out = set()
    for b in range(program.desc.num_blocks()):
        bd = program.desc.block(b)
        for i in range(bd.op_size()):
            out.update(bd.op(i).output_arg_names())
    return out


class _Method:
    """One loaded method: its eval program (as saved) and the train copy."""

    def __init__(self, program, feed_names, fetch_names):
        if not feed_names:
            feed_names = list(program.desc.get_feed_target_names())
        if not fetch_names:
            fetch_names = list(program.desc.get_fetch_target_names())
        f2, x2 = _strip_feed_fetch(program)
        self.feed_names = f2 or feed_names
        self.fetch_names = x2 or fetch_names
        self.infer_program = program
        self.train_program = program.clone()
        _set_is_test(self.train_program, False)
        self.runners = {}

    def runner(self, training, params):
        r = self.runners.get(training)
        if r is None:
            prog = self.train_program if training else self.infer_program
            used = {d.name() for d in prog.global_block().desc.all_vars() if d.persistable()}
            r = self.runners[training] = ProgramRunner(prog, self.feed_names, self.fetch_names,
                                                       {n: t for n, t in params.items() if n in used})
        return r


def _on_expected_place(t):
    """A loaded tensor on paddle.set_device's place (Paddle's jit.load places them there)."""
    from ..framework.place import _device_of_place
    dev = _device_of_place(None)
    return t if dev < 0 or t._device() == dev else t._to_device(dev)


class TranslatedLayer(Layer):
    """A Layer loaded by paddle.jit.load: forward (and the other saved methods) run the saved
    programs with this layer's parameters."""

    def __init__(self, programs, persistable_vars):
        super().__init__()
        self._program_holder_dict = programs
        self._persistable_var_name_dict = {}
        self._vars = {}
        for name, var in persistable_vars.items():
            if isinstance(var, Parameter):
                dy = f"param_{len([k for k in self._persistable_var_name_dict.values() if k.startswith('param')])}"
                self.add_parameter(dy, var)
            else:
                dy = f"buffer_{len([k for k in self._persistable_var_name_dict.values() if k.startswith('buffer')])}"
                self.register_buffer(dy, var)
            self._persistable_var_name_dict[name] = dy
            self._vars[name] = var
        for m in programs:
            if m != "forward":
                object.__setattr__(self, m, self._method_caller(m))

    @staticmethod
    def _construct(loaded, info):
        programs, tensors = {}, {}
        for m, (program, feeds, fetches, vals) in loaded.items():
            meth = _Method(program, feeds, fetches)
            programs[m] = meth
            written = _written(meth.infer_program)
            for n, t in vals.items():
                if n in tensors:
                    continue
                t = _on_expected_place(t)
                e = info.get(n)
                if e is not None:
                    is_param = "trainable" in e
                    trainable = bool(e.get("trainable", False))
                else:
                    is_param = n not in written
                    trainable = is_param
                if is_param:
                    v = make_parameter(t, n, trainable=trainable)
                    if e is not None:
                        v.stop_gradient = bool(e.get("stop_gradient", not trainable))
                else:
                    v = t
                    try:
                        v.name = n
                    except (AttributeError, TypeError):
                        pass
                    v.stop_gradient = True
                tensors[n] = v
        layer = TranslatedLayer(programs, tensors)
        layer._extra_info = info
        layer.eval()  # as Paddle 2.6.2's jit.load: inference until train() is called
        return layer

    def _run(self, method, inputs):
        meth = self._program_holder_dict[method]
        if len(inputs) != len(meth.feed_names):
            raise ValueError(f"The number of inputs of TranslatedLayer.{method} is {len(meth.feed_names)} "
                             f"({meth.feed_names}), but received {len(inputs)}")
        xs = []
        for x in inputs:
            if isinstance(x, np.ndarray):
                from .. import to_tensor
                x = to_tensor(x)
            elif not isinstance(x, Tensor):
                raise TypeError(f"The type of input in TranslatedLayer must be numpy array or Tensor, but received "
                                f"{type(x).__name__}.")
            xs.append(x)
        outs = meth.runner(self.training, self._vars)(xs)
        return outs[0] if len(outs) == 1 else outs

    def forward(self, *inputs):
        return self._run("forward", list(inputs))

    def _method_caller(self, m):
        def call(*inputs):
            return self._run(m, list(inputs))
        call.__name__ = m
        return call

    def program(self, method_name="forward"):
        """The method's inference program (feed/fetch ops removed)."""
        if method_name not in self._program_holder_dict:
            raise ValueError(f"The method `{method_name}` does not exist in loaded TranslatedLayer.")
        return self._program_holder_dict[method_name].infer_program

    def _input_spec(self, method_name="forward"):
        from ..static.input import InputSpec
        meth = self._program_holder_dict[method_name]
        gb = meth.infer_program.global_block()
        return [InputSpec(list(gb.var(n).shape), gb.var(n).dtype, n) for n in meth.feed_names]

    def _output_spec(self, method_name="forward"):
        from ..static.input import InputSpec
        meth = self._program_holder_dict[method_name]
        gb = meth.infer_program.global_block()
        return [InputSpec(list(gb.var(n).shape), gb.var(n).dtype, n) for n in meth.fetch_names]
