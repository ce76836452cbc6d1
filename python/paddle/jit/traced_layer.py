"""paddle.jit.TracedLayer: TracedLayer.trace(layer, inputs) runs the layer in dygraph and records
the same forward into a static program (the layer called on feed variables, its parameters
standing in as persistable variables); the TracedLayer runs that program with the layer's own
parameter tensors through an Executor (numpy results, as Paddle's does) and saves it as an
inference model (save_inference_model: path.pdmodel/.pdiparams, or the 1.x dirname layout)."""
import numpy as np

from .. import _C
from ..static import framework as _fw
from .program_translator import ParamMapper, _static_mode

Tensor = _C.Tensor


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class TracedLayer:
    """A static program traced from a dygraph Layer (create it with TracedLayer.trace)."""

    def __init__(self, program, parameters, feed_names, fetch_names):
        from ..static.executor import Executor, Scope
        self._program = program
        self._feed_names = feed_names
        self._fetch_names = fetch_names
        self._params = parameters
        self._scope = Scope()
        for n, t in parameters.items():
            self._scope._set(n, t)
        self._exe = Executor()
        self._build_strategy = None
        self._exec_strategy = None

    @property
    def program(self):
        return self._program

    @staticmethod
    def trace(layer, inputs):
        """(the layer's dygraph outputs, a TracedLayer of the same computation)."""
        from ..nn import Layer
        from ..utils import unique_name
        if not isinstance(layer, Layer):
            raise TypeError(f"The type of 'layer' in fluid.dygraph.jit.TracedLayer.trace must be "
                            f"fluid.dygraph.Layer, but received {type(layer)}.")
        ins = _as_list(inputs)
        for x in ins:
            if not isinstance(x, Tensor):
                raise TypeError(f"The type of each element of 'inputs' in fluid.dygraph.jit.TracedLayer.trace must "
                                f"be fluid.Variable, but received {type(x)}.")
        outs = layer(*ins)
        main, startup = _fw.Program(), _fw.Program()
        mapper = ParamMapper(main)
        with _static_mode(main, startup), unique_name.guard(), mapper:
            feeds = []
            for i, x in enumerate(ins):
                v = _fw.data(f"feed_{i}", list(x.shape), x.dtype)
                v.stop_gradient = bool(x.stop_gradient)
                feeds.append(v)
            souts = layer(*feeds)
        fetch = [v.name for v in _as_list(souts)]
        return outs, TracedLayer(main, mapper.params, [v.name for v in feeds], fetch)

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        from ..static.executor import BuildStrategy, ExecutionStrategy
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError("The type of 'build_strategy' must be BuildStrategy")
        if exec_strategy is not None and not isinstance(exec_strategy, ExecutionStrategy):
            raise TypeError("The type of 'exec_strategy' must be ExecutionStrategy")
        self._build_strategy, self._exec_strategy = build_strategy, exec_strategy

    def __call__(self, inputs):
        ins = _as_list(inputs)
        if len(ins) != len(self._feed_names):
            raise ValueError(f"TracedLayer takes {len(self._feed_names)} inputs, received {len(ins)}")
        feed = {}
        for n, x in zip(self._feed_names, ins):
            feed[n] = x if isinstance(x, (Tensor, np.ndarray)) else np.asarray(x)
        from ..static.executor import scope_guard
        with scope_guard(self._scope):
            return self._exe.run(self._program, feed=feed, fetch_list=self._fetch_names)

    def save_inference_model(self, path=None, feed=None, fetch=None, dirname=None, **kwargs):
        """Writes the traced program as an inference model: path.pdmodel/.pdiparams, or (the 1.x
        keyword dirname) dirname/__model__ with one file per parameter. feed/fetch: indices of
        the inputs/outputs to keep (default all)."""
        from ..static.executor import Executor, scope_guard
        from .api import _static_io
        if path is None and dirname is None:
            raise TypeError("save_inference_model() needs path (or the 1.x keyword dirname)")
        io = _static_io()
        prog = self._program.clone()
        gb = prog.global_block()

        def pick(names, idx, what):
            if idx is None:
                return [gb.var(n) for n in names]
            if not isinstance(idx, (list, tuple)) or not all(isinstance(i, int) for i in idx):
                raise TypeError(f"The type of '{what}' in save_inference_model must be a list of int")
            return [gb.var(names[i]) for i in idx]
        feeds = pick(self._feed_names, feed, "feed")
        fetches = pick(self._fetch_names, fetch, "fetch")
        with _static_mode(prog, _fw.Program()), scope_guard(self._scope):
            if dirname is not None:
                import os
                os.makedirs(dirname, exist_ok=True)
                infer = io.normalize_program(prog, feeds, fetches)
                with open(os.path.join(dirname, "__model__"), "wb") as f:
                    f.write(infer._remove_training_info(clip_extra=kwargs.get("clip_extra", False)).desc
                            .serialize_to_string())
                io.save_vars(Executor(), dirname, main_program=infer,
                             vars=[v for v in infer.list_vars() if io.is_persistable(v)])
            else:
                io.save_inference_model(path, feeds, fetches, Executor(), program=prog,
                                        clip_extra=kwargs.get("clip_extra", True))
