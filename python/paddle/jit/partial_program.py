"""Running a static program from dygraph code (to_static layers, TranslatedLayer): the executor
runs the forward program against a scope bound to the layer's own parameter tensors (shared,
not copied: optimizer steps are seen by the next run); when a gradient is needed, the outputs
get one autograd node whose backward runs the program's appended backward part. Programs
without control flow are split into a forward part (which also fetches what the backward
reads) and a backward part; programs with control flow run forward+backward again at backward
time (same random state, running statistics left as the first run set them)."""
import numpy as np

from .. import _C
from ..static import framework as _fw
from ..static.executor import Scope

Tensor = _C.Tensor
_CONTROL_OPS = {"conditional_block", "while", "select_input", "write_to_array", "read_from_array",
                "lod_array_length", "conditional_block_grad", "while_grad", "select_output"}
_FLOATS = {"float16", "bfloat16", "float32", "float64", "complex64", "complex128"}


def _dt(v):
    d = v.dtype
    return d.name if d is not None else None


class _Grads:
    """The gradient program of a forward program for one set of inputs needing gradients."""

    def __init__(self, runner, wrt_inputs):
        prog = runner.program.clone()
        gb = prog.global_block()
        n_fwd = gb.desc.op_size()
        blocks_before = prog.desc.num_blocks()
        outs = []
        seen = set()
        for n in runner.fetch_names:
            if n in seen:
                continue
            seen.add(n)
            v = gb.var(n)
            if _dt(v) in _FLOATS and not v.stop_gradient:
                outs.append(n)
        self.targets = outs
        params = [n for n, t in runner.params.items() if not t.stop_gradient and _dt(gb.var(n)) in _FLOATS]
        self.wrt = [runner.feed_names[i] for i in wrt_inputs] + params
        self.wrt_inputs = list(wrt_inputs)
        self.wrt_params = params
        self.grad_feeds = []
        from ..utils import unique_name
        with _fw.program_guard(prog, _fw.Program()), unique_name.guard(_name_table(prog)):
            from ..static.backward import gradients
            tg = []
            for n in outs:
                v = gb.var(n)
                gname = n + "@GRAD_IN"
                d = gb.desc.var(gname)
                d.set_shape(list(v.shape))
                d.set_dtype(_dt(v))
                d.set_stop_gradient(True)
                tg.append(d._tensor())
                self.grad_feeds.append(gname)
            prev = (_fw._state["static"], _fw._state["dygraph_guard"])
            _fw._state["static"], _fw._state["dygraph_guard"] = True, 0
            try:
                grads = gradients([gb.var(n) for n in outs], [gb.var(n) for n in self.wrt], target_gradients=tg) \
                    if outs and self.wrt else [None] * len(self.wrt)
            finally:
                _fw._state["static"], _fw._state["dygraph_guard"] = prev
                _fw._sync_target()
        self.grad_names = [None if g is None else g.name for g in grads]
        self.program = prog
        _check_grad_reads(prog, n_fwd)
        fwd_types = {gb.desc.op(i).type() for i in range(n_fwd)}
        self.split = blocks_before == 1 and not (fwd_types & _CONTROL_OPS)
        if self.split:
            self._split(prog, n_fwd, runner)
        # persistables the forward writes (running statistics): the recomputing run writes copies
        self.written = sorted(_written_persistables(runner.program))

    def _split(self, prog, n_fwd, runner):
        fwd = prog.clone()
        fb = fwd.global_block().desc
        fb._remove_op(n_fwd, fb.op_size())
        bwd = prog.clone()
        bb = bwd.global_block().desc
        bb._remove_op(0, n_fwd)
        produced, read = set(), []
        for i in range(bb.op_size()):
            od = bb.op(i)
            for n in od.input_arg_names():
                if n not in produced and n not in read:
                    read.append(n)
            produced.update(od.output_arg_names())
        gbd = prog.global_block().desc
        feeds = set(self.grad_feeds)
        saved = []
        for n in read:
            if n in feeds:
                continue
            vd = gbd.find_var(n)
            if vd is not None and vd.persistable():
                continue
            saved.append(n)
        self.fwd, self.bwd, self.saved = fwd, bwd, saved


def _check_grad_reads(prog, n_fwd):
    """The appended gradient ops may only read variables the program has. A Paddle op that loads
    as several of our ops (rnn, slice with decrease_axis ...) has intermediates the program does not
    name; a gradient rule reading one gets the replay's placeholder (\"@replay\"), which no run has."""
    bad = []
    for b in range(prog.desc.num_blocks()):
        bd = prog.desc.block(b)
        for i in range(n_fwd if b == 0 else 0, bd.op_size()):
            od = bd.op(i)
            if "@replay" in od.input_arg_names() and od.type() not in bad:
                bad.append(od.type())
    if bad:
        raise NotImplementedError(
            "the gradient of this program reads values internal to how one of its loaded Paddle ops "
            f"runs here (gradient ops {', '.join(bad)}: the op is converted into several of our ops "
            "whose intermediates the program does not name, and the backward does not recompute them)")


def _name_table(program):
    """Name counters (paddle.utils.unique_name) past every name the program already has, so the
    variables the gradient adds never take an existing name (programs are built, or were saved,
    with counters of their own)."""
    import re
    from ..utils import unique_name
    table = dict(unique_name.switch(None) or {})
    unique_name.switch(table)
    pat = re.compile(r"^(.*?)_(\d+)(?:\.|$)")
    for b in range(program.desc.num_blocks()):
        for d in program.desc.block(b).all_vars():
            m = pat.match(d.name())
            if m:
                k, n = m.group(1), int(m.group(2)) + 1
                if table.get(k, 0) < n:
                    table[k] = n
    return table


def _written_persistables(program):
    out = set()
    gb = program.global_block().desc
    for b in range(program.desc.num_blocks()):
        bd = program.desc.block(b)
        for i in range(bd.op_size()):
            for n in bd.op(i).output_arg_names():
                vd = gb.find_var(n)
                if vd is not None and vd.persistable():
                    out.add(n)
    return out


class ProgramRunner:
    """Runs `program` (feeds -> fetches) with `params` (var name -> eager tensor) bound in its
    own scope, recording one autograd node when gradients are needed."""

    def __init__(self, program, feed_names, fetch_names, params, asserts=()):
        self.program = program
        self.feed_names = list(feed_names)
        self.fetch_names = list(fetch_names)
        self.params = params
        self.asserts = list(asserts)
        self.assert_names = [n for n, _ in self.asserts]
        self.scope = Scope()
        for n, t in params.items():
            self.scope._set(n, t)
        self.exe = _C.ExecutorCore()
        self._place(list(params.values()))
        self._grads = {}
        self._uniq = list(dict.fromkeys(self.fetch_names))
        self._pos = [self._uniq.index(n) for n in self.fetch_names]

    def rebind(self, params):
        self.params = params
        for n, t in params.items():
            self.scope._set(n, t)
        self._place(list(params.values()))

    def _place(self, tensors):
        """The executor runs where the layer's parameters (else its inputs) are, so the scope keeps
        the layer's own tensors (an executor moves scope values to its device)."""
        devs = {t._device() for t in tensors if isinstance(t, Tensor) and not _C._is_variable(t)}
        if len(devs) == 1:
            dev = devs.pop()
            if dev != self.exe._device():
                self.exe._set_device(dev)

    def _check_asserts(self, vals):
        for (name, msg), v in zip(self.asserts, vals):
            if not bool(np.asarray(v).reshape(-1)[0]):
                raise AssertionError(msg if msg is not None else f"assertion failed in the converted program "
                                     f"(flag {name})")

    def _run(self, program, names, tensors, fetch, scope=None):
        res = self.exe._run(program.desc, 0, (scope or self.scope)._core, names, tensors, None, fetch)
        return [v for v, _ in res]

    def __call__(self, inputs):
        inputs = list(inputs)
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"input {self.feed_names[i]} must be a paddle.Tensor, received {type(t).__name__}")
        if not self.params:
            self._place(inputs)
        need = _C._is_grad_enabled() and (any(not t.stop_gradient for t in inputs) or
                                       any(not t.stop_gradient for t in self.params.values()))
        if not need:
            vals = self._run(self.program, self.feed_names, inputs, self._uniq + self.assert_names)
            n = len(self._uniq)
            self._check_asserts(vals[n:])
            return self._expand(self._outputs(vals[:n], inputs))
        mask = tuple(i for i, t in enumerate(inputs) if not t.stop_gradient and t.dtype.name in _FLOATS)
        g = self._grads.get(mask)
        if g is None:
            try:
                g = _Grads(self, mask)
            except (NotImplementedError, ValueError, TypeError, RuntimeError) as e:
                g = e  # no gradient program (an op without a backward replay): forward only, backward raises
            self._grads[mask] = g
        if isinstance(g, Exception):
            return self._forward_only(inputs, g)
        n = len(self._uniq)
        if g.split:
            vals = self._run(g.fwd, self.feed_names, inputs, self._uniq + self.assert_names + g.saved)
            self._check_asserts(vals[n:n + len(self.assert_names)])
            # detached: a saved value may be an output itself, and the node must not hold its own
            # outputs (output -> node -> saved output is a cycle of C references no GC can see)
            saved = [v.detach() for v in vals[n + len(self.assert_names):]]
            ctx = (g, saved, None, None)
        else:
            rng = _C.get_rng_state() if hasattr(_C, "get_rng_state") else None
            snap = {name: self.scope._get(name).clone() if self.scope._get(name) is not None else None
                    for name in g.written}
            vals = self._run(self.program, self.feed_names, inputs, self._uniq + self.assert_names)
            self._check_asserts(vals[n:])
            ctx = (g, list(inputs), rng, snap)
        outs = self._outputs(vals[:n], inputs)
        targets = [outs[self._uniq.index(t)] for t in g.targets]
        if not targets or not g.wrt:
            return self._expand(outs)
        edge_tensors = [inputs[i] for i in g.wrt_inputs] + [self.params[n] for n in g.wrt_params]
        # what a missing output gradient is zeros of; never the outputs themselves (see above)
        metas = [(t.shape, t.dtype) for t in targets]

        def backward(c, *grads):
            return self._backward(ctx, metas, grads)
        _C._pylayer_record("RunProgram", backward, None, edge_tensors, targets)
        return self._expand(outs)

    def _forward_only(self, inputs, err):
        vals = self._run(self.program, self.feed_names, inputs, self._uniq + self.assert_names)
        n = len(self._uniq)
        self._check_asserts(vals[n:])
        outs = self._outputs(vals[:n], inputs)
        targets = [o for o in outs if o.dtype.name in _FLOATS]
        edges = [t for t in inputs if not t.stop_gradient] + [t for t in self.params.values() if not t.stop_gradient]
        if targets and edges:
            def backward(c, *grads):
                cls = NotImplementedError if isinstance(err, NotImplementedError) else RuntimeError
                raise cls(f"the gradient of this program cannot be built: {err}")
            _C._pylayer_record("RunProgram", backward, None, edges, targets)
        return self._expand(outs)

    def _outputs(self, vals, inputs):
        """Fetched values; an output that is an input or a parameter itself gets its own view."""
        ids = {id(t) for t in inputs} | {id(t) for t in self.params.values()}
        out = []
        for v in vals:
            if id(v) in ids:
                v = v._share_as(Tensor)
            out.append(v)
        return out

    def _expand(self, uniq_vals):
        return [uniq_vals[p] for p in self._pos]

    def _backward(self, ctx, metas, grads):
        import paddle
        g, saved, rng, snap = ctx
        gvals = []
        for (shape, dtype), gr in zip(metas, grads):
            gvals.append(paddle.zeros(shape, dtype) if gr is None else gr)
        if g.split:
            res = self._run(g.bwd, g.saved + g.grad_feeds, list(saved) + gvals,
                            [n for n in g.grad_names if n is not None])
        else:
            scope = self.scope
            if snap:
                scope = Scope(self.scope._core.new_scope())
                for name, t in snap.items():
                    if t is not None:
                        scope._set(name, t.clone())
            cur = _C.get_rng_state() if rng is not None else None
            if rng is not None:
                _C.set_rng_state(*rng)
            try:
                res = self._run(g.program, self.feed_names + g.grad_feeds, list(saved) + gvals,
                                [n for n in g.grad_names if n is not None], scope)
            finally:
                if rng is not None:
                    _C.set_rng_state(*cur)
                if snap:
                    self.scope._core.drop_kids()
        it = iter(res)
        return tuple(None if n is None else next(it) for n in g.grad_names)
