"""paddle.jit.to_static: StaticFunction (a function or Layer.forward converted by AST and traced
into a Program per input signature), its program cache (keyed by the inputs' shape class,
dtype and name, non-tensor arguments and the layer's train/eval mode), ConcreteProgram (the
program, its feed/fetch variables and the layer parameters it reads), ProgramTranslator,
not_to_static. Running in dygraph mode goes through partial_program.ProgramRunner."""
import collections
import inspect
import threading
import types
import weakref

import numpy as np

from .. import _C
from ..static import framework as _fw
from ..static.input import InputSpec
from .dy2static import function_converter as _fc
from .dy2static.convert_builtins import TraceContext
from .dy2static.convert_operators import UndefinedVar, VariadicReturn, is_var

Tensor = _C.Tensor
_MAX_CACHE = 64
_AMP = [None]


def _amp_module():
    import importlib
    _AMP[0] = importlib.import_module("paddle.amp.auto_cast")  # its auto_cast function shadows the module name
    return _AMP[0]


# ---------------------------------------------------------------------------------- modes
class _static_mode:
    """Static recording into (main, startup) whatever the current mode (dygraph guards too)."""

    def __init__(self, main, startup):
        self.main, self.startup = main, startup

    def __enter__(self):
        st = _fw._state
        self.saved = (st["static"], st["dygraph_guard"], st["main"], st["startup"])
        st["static"], st["dygraph_guard"], st["main"], st["startup"] = True, 0, self.main, self.startup
        self.main.current_block_idx = 0
        _fw._sync_target()

    def __exit__(self, *a):
        st = _fw._state
        st["static"], st["dygraph_guard"], st["main"], st["startup"] = self.saved
        _fw._sync_target()
        return False


class ParamMapper:
    """While a program is built: eager parameters/buffers reached through Layer attributes become
    persistable variables of the program (same names); remembers which tensor backs each."""

    def __init__(self, program):
        self.program = program
        self.by_id = {}
        self.params = collections.OrderedDict()  # var name -> eager tensor

    def __call__(self, t):
        if not isinstance(t, Tensor) or _C._is_variable(t):
            return t
        hit = self.by_id.get(id(t))
        if hit is not None:
            return hit[0]
        from ..framework.param import Parameter
        gb = self.program.global_block()
        name = getattr(t, "name", None) or "_jst_buffer"
        base, k = name, 0
        while gb.desc.has_var(name) and self.params.get(name) is not t:
            k += 1
            name = f"{base}_{k}"
        d = gb.desc.var(name)
        d.set_shape(list(t.shape))
        d.set_dtype(t.dtype.name)
        d.set_persistable(True)
        is_param = isinstance(t, Parameter)
        d.set_is_parameter(is_param)
        d.set_stop_gradient(bool(t.stop_gradient))
        v = d._tensor()
        if is_param:
            v = _fw._as_parameter(v, None, trainable=not t.stop_gradient)
            v.optimize_attr = getattr(t, "optimize_attr", {"learning_rate": 1.0})
            self.program._params[name] = v
        v.stop_gradient = bool(t.stop_gradient)
        self.by_id[id(t)] = (v, t)
        self.params[name] = t
        return v

    def __enter__(self):
        from ..nn.layer import layers
        self._prev = layers._jit_param_hook[0]
        layers._jit_param_hook[0] = self
        return self

    def __exit__(self, *a):
        from ..nn.layer import layers
        layers._jit_param_hook[0] = self._prev
        return False


def _tracing():
    from ..nn.layer import layers
    return layers._jit_param_hook[0] is not None


# ---------------------------------------------------------------------------------- arguments
def _flatten(obj, leaves):
    """Replaces tensors in a nest of lists/tuples/dicts by ('__leaf__', i); returns the template."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("__leaf__", len(leaves) - 1)
    if isinstance(obj, InputSpec):
        leaves.append(obj)
        return ("__leaf__", len(leaves) - 1)
    if isinstance(obj, list):
        return [_flatten(x, leaves) for x in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_flatten(x, leaves) for x in obj)
    if isinstance(obj, dict):
        return {k: _flatten(v, leaves) for k, v in obj.items()}
    return obj


def _rebuild(tpl, values):
    if isinstance(tpl, tuple) and len(tpl) == 2 and tpl[0] == "__leaf__":
        return values[tpl[1]]
    if isinstance(tpl, list):
        return [_rebuild(x, values) for x in tpl]
    if isinstance(tpl, tuple):
        return tuple(_rebuild(x, values) for x in tpl)
    if isinstance(tpl, dict):
        return {k: _rebuild(v, values) for k, v in tpl.items()}
    return tpl


def _const_key(v):
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        if isinstance(v, np.ndarray):
            return ("ndarray", v.shape, str(v.dtype), v.tobytes())
        if isinstance(v, (list, tuple)):
            return tuple(_const_key(x) for x in v)
        if isinstance(v, dict):
            return tuple((k, _const_key(x)) for k, x in sorted(v.items(), key=lambda kv: str(kv[0])))
        return ("id", id(v))


def _tpl_key(tpl):
    if isinstance(tpl, list):
        return ("L",) + tuple(_tpl_key(x) for x in tpl)
    if isinstance(tpl, tuple) and not (len(tpl) == 2 and tpl[0] == "__leaf__"):
        return ("T",) + tuple(_tpl_key(x) for x in tpl)
    if isinstance(tpl, dict):
        return ("D",) + tuple((k, _tpl_key(v)) for k, v in tpl.items())
    if isinstance(tpl, tuple):
        return tpl
    return _const_key(tpl)


class FunctionSpec:
    """The signature of the converted function and its input_spec."""

    def __init__(self, func, input_spec=None):
        self.func = func
        sig = inspect.signature(func)
        self.params = [p for p in sig.parameters.values()]
        if input_spec is not None:
            if not isinstance(input_spec, (list, tuple)):
                raise TypeError(f"The type of 'input_spec' should be one of (list, tuple), but received "
                                f"{type(input_spec).__name__}.")
            input_spec = list(input_spec)
        self.input_spec = input_spec

    def arg_names(self, n, skip_self):
        names = []
        ps = self.params[1:] if skip_self else self.params
        for p in ps:
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
            elif p.kind == p.VAR_POSITIONAL:
                while len(names) < n:
                    names.append(f"{p.name}_{len(names)}")
        while len(names) < n:
            names.append(f"arg_{len(names)}")
        return names[:n]

    def specs_for(self, args):
        """args with the input_spec applied: each InputSpec replaces the tensor at its position."""
        if self.input_spec is None:
            return list(args)
        out = list(args)
        for i, spec in enumerate(self.input_spec):
            if i < len(out):
                if isinstance(spec, InputSpec) or isinstance(spec, (list, tuple, dict)):
                    out[i] = spec if _has_spec(spec) else out[i]
            else:
                out.append(spec)
        return out


def _has_spec(s):
    if isinstance(s, InputSpec):
        return True
    if isinstance(s, (list, tuple)):
        return any(_has_spec(x) for x in s)
    if isinstance(s, dict):
        return any(_has_spec(x) for x in s.values())
    return False


def _leaf_key(x):
    if isinstance(x, InputSpec):
        return ("spec", tuple(x.shape), str(x.dtype), x.name, bool(x.stop_gradient))
    return ("tensor", tuple(x.shape), str(x.dtype), bool(x.stop_gradient))


# ---------------------------------------------------------------------------------- concrete programs
class ConcreteProgram:
    """One traced program: main_program (forward), startup_program (empty: the layer's
    parameters already exist), inputs (feed variables), outputs (fetch variables), parameters
    (the eager tensors behind its persistable variables), the converted function."""

    def __init__(self, main_program, startup_program, inputs, outputs, out_template, parameters, function,
                 asserts, variadic):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self.out_template = out_template
        self.parameters = parameters      # OrderedDict name -> eager tensor
        self.function = function
        self.asserts = asserts
        self.variadic = variadic
        self._runner = None

    @property
    def runner(self):
        if self._runner is None:
            from .partial_program import ProgramRunner
            self._runner = ProgramRunner(self.main_program, [v.name for v in self.inputs],
                                         [v.name for v in self.outputs], self.parameters, self.asserts)
        return self._runner

    @staticmethod
    def build(converted, bound_self, leaves, tpl_args, tpl_kwargs, names):
        main, startup = _fw.Program(), _fw.Program()
        from ..utils import unique_name
        mapper = ParamMapper(main)
        with _static_mode(main, startup), unique_name.guard(), mapper, TraceContext(main) as ctx:
            feeds = []
            for leaf, name in zip(leaves, names):
                spec = leaf if isinstance(leaf, InputSpec) else InputSpec(leaf.shape, leaf.dtype)
                v = _fw.data(name, list(spec.shape), spec.dtype)
                v.stop_gradient = bool(spec.stop_gradient) if isinstance(leaf, InputSpec) else bool(leaf.stop_gradient)
                feeds.append(v)
            args = _rebuild(tpl_args, feeds)
            kwargs = _rebuild(tpl_kwargs, feeds)
            try:
                if bound_self is not None:
                    out = converted(bound_self, *args, **kwargs)
                else:
                    out = converted(*args, **kwargs)
            except Exception as e:  # noqa: BLE001
                raise _fc.attach_user_location(e)
            variadic = isinstance(out, VariadicReturn)
            if variadic:
                out = list(out.items)
            if isinstance(out, UndefinedVar):
                out._fail()
            out_leaves = []
            tpl = _flatten_out(out, out_leaves)
            outputs = []
            for o in out_leaves:
                if not is_var(o):
                    o = _make_var(o)
                outputs.append(o)
        return ConcreteProgram(main, startup, feeds, outputs, tpl, mapper.params, converted, ctx.asserts, variadic)


def _flatten_out(obj, leaves):
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("__leaf__", len(leaves) - 1)
    if isinstance(obj, VariadicReturn):
        return [_flatten_out(x, leaves) for x in obj.items]
    if isinstance(obj, list):
        return [_flatten_out(x, leaves) for x in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_flatten_out(x, leaves) for x in obj)
    if isinstance(obj, dict):
        return {k: _flatten_out(v, leaves) for k, v in obj.items()}
    return obj


def _make_var(t):
    import paddle
    return paddle.assign(t)


# ---------------------------------------------------------------------------------- StaticFunction
class StaticFunction:
    """A function or Layer method converted to static programs (what @to_static returns)."""

    def __init__(self, function, input_spec=None, build_strategy=None, **kwargs):
        if inspect.ismethod(function):
            self._dygraph_function = function.__func__
            self._class_instance = function.__self__
        else:
            self._dygraph_function = function
            self._class_instance = None
        if isinstance(self._dygraph_function, StaticFunction):
            self._dygraph_function = self._dygraph_function._dygraph_function
        self._input_spec = input_spec
        self._spec = FunctionSpec(self._dygraph_function, input_spec)
        self._build_strategy = build_strategy
        self._cache = collections.OrderedDict()
        self._last = None
        self._bound = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()
        self._owner_attr = None  # set when to_static(layer) patched layer.forward
        self.__name__ = getattr(self._dygraph_function, "__name__", "static_function")
        self.__qualname__ = getattr(self._dygraph_function, "__qualname__", self.__name__)
        self.__doc__ = getattr(self._dygraph_function, "__doc__", None)
        self.__wrapped__ = self._dygraph_function

    # -- binding (a decorated method)
    def __get__(self, instance, owner):
        if instance is None:
            return self
        try:
            b = self._bound.get(instance)
        except TypeError:
            b = None
        if b is None:
            b = StaticFunction(types.MethodType(self._dygraph_function, instance), self._input_spec,
                               self._build_strategy)
            try:
                self._bound[instance] = b
            except TypeError:
                pass
        return b

    @property
    def dygraph_function(self):
        if self._class_instance is not None:
            return types.MethodType(self._dygraph_function, self._class_instance)
        return self._dygraph_function

    def _converted(self):
        return _fc.convert_function(self._dygraph_function)

    def __call__(self, *args, **kwargs):
        if not ProgramTranslator().enable_to_static:
            return self.dygraph_function(*args, **kwargs)
        if not _fw.in_dynamic_mode() or _tracing():
            fn = self._converted()
            if self._class_instance is not None:
                return fn(self._class_instance, *args, **kwargs)
            return fn(*args, **kwargs)
        cp = self._cached_plain(args) if not kwargs and self._spec.input_spec is None else None
        if cp is None:
            cp, inputs = self._concrete(args, kwargs, for_call=True)
        else:
            inputs = list(args)
        outs = cp.runner(inputs)
        if cp.variadic:
            outs = _drop_placeholders(outs)
            if not outs:
                return None
            return outs[0] if len(outs) == 1 else tuple(outs)
        return _rebuild(cp.out_template, outs)

    # -- programs
    def _cached_plain(self, args):
        """The steady-state call with tensors only: the key _concrete would compute for them, without
        flattening templates (None when an argument is not a tensor or no program is cached yet)."""
        for a in args:
            if not isinstance(a, Tensor):
                return None
        inst = self._class_instance
        _amp = _AMP[0] or _amp_module()
        key = (("T",) + tuple(("__leaf__", i) for i in range(len(args))), ("D",),
               tuple(("tensor", tuple(a.shape), str(a.dtype), bool(a.stop_gradient)) for a in args),
               bool(getattr(inst, "training", False)) if inst is not None else None, _amp._current())
        cp = self._cache.get(key)
        if cp is not None:
            self._cache.move_to_end(key)
            self._last = cp
        return cp

    def _concrete(self, args, kwargs, for_call):
        leaves = []
        spec_args = self._spec.specs_for(args) if self._spec.input_spec is not None else list(args)
        tpl_args = _flatten(tuple(spec_args), leaves)
        tpl_kwargs = _flatten(dict(kwargs), leaves)
        inst = self._class_instance
        _amp = _AMP[0] or _amp_module()
        key = (_tpl_key(tpl_args), _tpl_key(tpl_kwargs), tuple(_leaf_key(x) for x in leaves),
               bool(getattr(inst, "training", False)) if inst is not None else None, _amp._current())
        cp = self._cache.get(key)
        if cp is None:
            with self._lock:
                names = self._feed_names(leaves, tpl_args, tpl_kwargs)
                _fc.log(1, f"building a program for {self.__qualname__} (inputs {[_leaf_key(x) for x in leaves]})")
                cp = ConcreteProgram.build(self._converted(), inst, leaves, tpl_args, tpl_kwargs, names)
                self._cache[key] = cp
                if len(self._cache) > _MAX_CACHE:
                    self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        self._last = cp
        if for_call:
            run_leaves = []
            _flatten((tuple(args), dict(kwargs)), run_leaves)
            run_leaves = [x for x in run_leaves if isinstance(x, Tensor)]
            if len(run_leaves) != len(cp.inputs):
                raise ValueError(f"{self.__qualname__}: the call passes {len(run_leaves)} tensors but the program "
                                 f"built from input_spec takes {len(cp.inputs)}")
            return cp, run_leaves
        return cp, leaves

    def _feed_names(self, leaves, tpl_args, tpl_kwargs):
        n_args = len(tpl_args)
        arg_names = self._spec.arg_names(n_args, skip_self=self._class_instance is not None)
        names, used = [], set()

        def walk(tpl, base):
            if isinstance(tpl, tuple) and len(tpl) == 2 and tpl[0] == "__leaf__":
                leaf = leaves[tpl[1]]
                n = leaf.name if isinstance(leaf, InputSpec) and leaf.name else base
                k, cand = 0, n
                while cand in used:
                    k += 1
                    cand = f"{n}_{k}"
                used.add(cand)
                names.append((tpl[1], cand))
            elif isinstance(tpl, (list, tuple)):
                for i, x in enumerate(tpl):
                    walk(x, f"{base}_{i}")
            elif isinstance(tpl, dict):
                for k2, x in tpl.items():
                    walk(x, f"{base}_{k2}")
        for tpl, n in zip(tpl_args, arg_names):
            walk(tpl, n)
        for k2, tpl in tpl_kwargs.items():
            walk(tpl, k2)
        names.sort()
        return [n for _, n in names]

    @property
    def concrete_program(self):
        return self.concrete_program_specify_input_spec()

    def concrete_program_specify_input_spec(self, input_spec=None):
        if input_spec is not None:
            cp, _ = self._concrete(tuple(input_spec), {}, for_call=False)
            return cp
        if self._spec.input_spec is not None:
            cp, _ = self._concrete(tuple(self._spec.input_spec), {}, for_call=False)
            return cp
        if self._last is not None:
            return self._last
        raise ValueError(f"No valid transformed program for {self.__qualname__}: call it once with inputs, or give "
                         "input_spec to to_static")

    def get_concrete_program(self, *args, **kwargs):
        cp, _ = self._concrete(args, kwargs, for_call=False)
        return cp, cp.runner

    @property
    def main_program(self):
        return self.concrete_program.main_program

    @property
    def inputs(self):
        return self.concrete_program.inputs

    @property
    def outputs(self):
        return self.concrete_program.outputs

    @property
    def code(self):
        return _fc.converted_source(self._dygraph_function)

    @property
    def program_cache(self):
        return self._cache

    @property
    def function_spec(self):
        return self._spec

    def rollback(self):
        """Stops converting: a Layer's forward goes back to its dygraph function; returns it."""
        inst = self._class_instance
        if inst is not None:
            d = inst.__dict__
            if d.get("forward") is self or isinstance(d.get("forward"), StaticFunction):
                d.pop("forward", None)
            if self._dygraph_function.__name__ == "forward" and isinstance(type(inst).__dict__.get("forward"),
                                                                           StaticFunction):
                d["forward"] = types.MethodType(self._dygraph_function, inst)
        return self.dygraph_function

    def __deepcopy__(self, memo):
        return self


def _drop_placeholders(outs):
    from .dy2static.convert_operators import RETURN_NO_VALUE_MAGIC_NUM
    kept = []
    for o in outs:
        if isinstance(o, Tensor) and o.dtype.name == "float64" and list(o.shape) == [1]:
            if float(np.asarray(o).reshape(-1)[0]) == RETURN_NO_VALUE_MAGIC_NUM:
                continue
        kept.append(o)
    return kept


# ---------------------------------------------------------------------------------- the public API
class ProgramTranslator:
    """The dygraph-to-static switch (a singleton): enable(False) makes every to_static function
    run its plain dygraph code."""
    _instance = None

    def __new__(cls, *a, **k):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.enable_to_static = True
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    @classmethod
    def reset(cls):
        cls._instance = None

    def enable(self, enable_to_static):
        if not isinstance(enable_to_static, bool):
            raise TypeError(f"The type of 'enable_to_static' in ProgramTranslator.enable must be bool, but received "
                            f"{type(enable_to_static).__name__}.")
        self.enable_to_static = enable_to_static

    def get_output(self, dygraph_func, *args, **kwargs):
        if not self.enable_to_static:
            return dygraph_func(*args, **kwargs)
        sf = dygraph_func if isinstance(dygraph_func, StaticFunction) else StaticFunction(dygraph_func)
        return sf(*args, **kwargs)

    def get_func(self, dygraph_func):
        if not callable(dygraph_func):
            raise TypeError("dygraph_func must be callable")
        if not self.enable_to_static:
            return dygraph_func
        return _fc.convert_function(_unwrap(dygraph_func))

    def get_program(self, dygraph_func, *args, **kwargs):
        sf = dygraph_func if isinstance(dygraph_func, StaticFunction) else StaticFunction(dygraph_func)
        cp, _ = sf.get_concrete_program(*args, **kwargs)
        return cp.main_program, cp.startup_program, cp.inputs, cp.outputs

    def get_code(self, dygraph_func):
        return _fc.converted_source(_unwrap(dygraph_func))

    def get_program_cache(self):
        return {}


def _unwrap(fn):
    if isinstance(fn, StaticFunction):
        return fn._dygraph_function
    if inspect.ismethod(fn):
        return fn.__func__
    return fn


def to_static(function=None, input_spec=None, build_strategy=None, **kwargs):
    """Converts a function, a Layer method or a Layer (its forward) to static programs.
    Usable as @to_static, @to_static(input_spec=[...]) or to_static(layer, input_spec=[...])."""
    from ..nn import Layer

    def decorate(fn):
        if isinstance(fn, Layer):
            fwd = fn.forward
            if isinstance(fwd, StaticFunction):
                if input_spec is None:
                    return fn
                fwd = fwd.dygraph_function
            sf = StaticFunction(fwd, input_spec, build_strategy)
            object.__setattr__(fn, "forward", sf)
            return fn
        if isinstance(fn, StaticFunction):
            if input_spec is None:
                return fn
            return StaticFunction(fn.dygraph_function, input_spec, build_strategy)
        if not callable(fn):
            raise TypeError(f"to_static expects a function or a Layer, received {type(fn).__name__}")
        return StaticFunction(fn, input_spec, build_strategy)

    if function is None:
        return decorate
    return decorate(function)


def not_to_static(func=None):
    """Marks func to be called as is (never converted) inside to_static code."""
    if func is None:
        return not_to_static
    try:
        func._jst_not_to_static = True
    except AttributeError:
        pass
    return func


def enable_to_static(enable_to_static_bool):
    ProgramTranslator().enable(enable_to_static_bool)
