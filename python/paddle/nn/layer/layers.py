"""paddle.nn.Layer: the base of every layer. Holds parameters, sublayers and buffers in
insertion order, gives them structured names for state_dict ('0.weight', 'linear.bias'),
runs forward pre/post hooks, switches train/eval, casts with to()/astype(), and prints a nested
repr. Parameter naming follows Paddle: a layer is 'linear_0', its weight 'linear_0.w_0'."""
import collections
import copy
import re

import numpy as np

from ... import _C
from ...profiler import utils as _prof_utils
from ...framework.dtype import convert_dtype, get_default_dtype
from ...framework.param import Parameter, create_parameter, make_parameter
from ...framework.param_attr import ParamAttr
from ...utils import unique_name
from ...framework.lazy_init import _state as _lazy_state, check_layer as _lazy_check


def _is_param(v):
    """An eager Parameter, or a static program's Parameter (layers built in static mode)."""
    if isinstance(v, Parameter):
        return True
    if isinstance(v, _C.Tensor) and _C._is_variable(v):
        from ...static.framework import Parameter as StaticParameter
        return isinstance(v, StaticParameter)
    return False

Tensor = _C.Tensor
# set by paddle.jit while it builds a program from a Layer: maps an eager parameter or buffer to
# the program variable standing for it (Paddle's param_guard)
_jit_param_hook = [None]


def _camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class HookRemoveHelper:
    """Handle returned by register_forward_*_hook; remove() unregisters the hook."""
    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = HookRemoveHelper._next_id
        HookRemoveHelper._next_id += 1

    def remove(self):
        self._hooks.pop(self._id, None)


class Layer:
    """Base class of all layers (Paddle 2.3's paddle.nn.Layer)."""

    def __init__(self, name_scope=None, dtype="float32"):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_sub_layers", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_non_persistable_buffer_names_set", set())
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_post_hooks", collections.OrderedDict())
        if name_scope is None:
            name_scope = _camel_to_snake(type(self).__name__)
        object.__setattr__(self, "_full_name", unique_name.generate(name_scope))
        object.__setattr__(self, "_dtype", convert_dtype(dtype).name if dtype is not None else get_default_dtype())
        object.__setattr__(self, "_built", False)

    # ------------------------------------------------------------------ naming, modes
    def full_name(self):
        """The unique name of this layer instance (e.g. 'linear_0')."""
        return self._full_name

    def train(self):
        """Training mode for this layer and all sublayers (dropout active, BN batch stats)."""
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self):
        """Evaluation mode (autograd still records unless under paddle.no_grad)."""
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    # ------------------------------------------------------------------ creation
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None):
        """A Parameter named '<full_name>.w_N' / '.b_N' (unless attr names it); attr=False: None."""
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        name = attr.name if attr.name else unique_name.generate(f"{self._full_name}.{'b' if is_bias else 'w'}")
        attr2 = copy.copy(attr)
        attr2.name = name
        if dtype is None:
            # Paddle's built-in layers take the global default dtype (paddle.set_default_dtype);
            # a layer constructed with another dtype keeps it
            dtype = get_default_dtype() if self._dtype == "float32" else self._dtype
        return create_parameter(shape, dtype, name=name, attr=attr2,
                                is_bias=is_bias, default_initializer=default_initializer)

    def create_variable(self, name=None, persistable=None, dtype=None):
        from ...tensor.creation import empty
        t = empty([0], dtype=dtype or self._dtype)
        t.name = name or unique_name.generate(f"{self._full_name}.var")
        t.persistable = bool(persistable)
        return t

    create_tensor = create_variable

    def add_parameter(self, name, parameter):
        """Registers parameter (a Parameter, or None) under name."""
        if not isinstance(name, str) or "." in name or name == "":
            raise KeyError(f"add_parameter: invalid parameter name {name!r}")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"add_parameter: attribute {name!r} already exists")
        if parameter is not None and not _is_param(parameter):
            raise TypeError(f"add_parameter: expected a Parameter, received {type(parameter).__name__}")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Registers sublayer (a Layer) under name and returns it."""
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError(f"add_sublayer: expected a Layer, received {type(sublayer).__name__}")
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Registers a non-parameter tensor (saved in state_dict when persistable)."""
        if not isinstance(name, str) or "." in name or name == "":
            raise KeyError(f"register_buffer: invalid buffer name {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: expected a Tensor or None, received {type(tensor).__name__}")
        if name in self._parameters or name in self._sub_layers:
            raise KeyError(f"register_buffer: {name!r} is already a parameter or sublayer")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)
        if tensor is not None:
            tensor.persistable = bool(persistable)

    # ------------------------------------------------------------------ attribute protocol
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        layers = self.__dict__.get("_sub_layers")
        buffers = self.__dict__.get("_buffers")
        if _is_param(value):
            if params is None:
                raise RuntimeError("super().__init__() must be called before assigning parameters")
            self.__dict__.pop(name, None)
            layers.pop(name, None)
            buffers.pop(name, None)
            params[name] = value
        elif isinstance(value, Layer):
            if layers is None:
                raise RuntimeError("super().__init__() must be called before assigning sublayers")
            self.__dict__.pop(name, None)
            params.pop(name, None)
            buffers.pop(name, None)
            layers[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to parameter {name!r} "
                                "(expected a Parameter or None)")
            params[name] = None
        elif layers is not None and name in layers:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to sublayer {name!r}")
            layers[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} to buffer {name!r}")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            s = d.get(store)
            if s is not None and name in s:
                v = s[name]
                if _jit_param_hook[0] is not None and store != "_sub_layers" and v is not None:
                    return _jit_param_hook[0](v)  # paddle.jit builds a program: its variable
                return v
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for store in ("_parameters", "_sub_layers", "_buffers"):
            s = self.__dict__.get(store)
            if s is not None and name in s:
                del s[name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._sub_layers) + list(self._buffers)
        return sorted(set(keys))

    # ------------------------------------------------------------------ traversal
    def named_parameters(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for lp, layer in layers:
            for n, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (lp + "." + n if lp else n), p

    def parameters(self, include_sublayers=True):
        """All parameters (each once), in registration order."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_sublayers(self, prefix="", include_self=False, layers_set=None):
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for n, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            p = prefix + "." + n if prefix else n
            yield from layer.named_sublayers(prefix=p, include_self=True, layers_set=layers_set)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for n, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield n, layer

    def children(self):
        return [layer for _, layer in self.named_children()]

    def named_buffers(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for lp, layer in layers:
            for n, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield (lp + "." + n if lp else n), b

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        """Calls fn on every sublayer (children first) and on self; returns self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    # ------------------------------------------------------------------ state
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True):
        """OrderedDict of structured name -> Tensor (parameters and persistable buffers)."""
        dest = collections.OrderedDict() if destination is None else destination
        for n, p in self._parameters.items():
            if p is not None:
                dest[structured_name_prefix + n] = p
        for n, b in self._buffers.items():
            if b is not None and n not in self._non_persistable_buffer_names_set:
                dest[structured_name_prefix + n] = b
        if include_sublayers:
            for ln, layer in self._sub_layers.items():
                if layer is not None:
                    dest = layer.state_dict(dest, True, structured_name_prefix + ln + ".", use_hook)
        if use_hook:
            for hook in list(self.__dict__.get("_state_dict_hooks", {}).values()):
                res = hook(dest)
                if res is not None:
                    dest = res
        return dest

    def register_state_dict_hook(self, hook):
        """hook(state_dict) -> None or a new dict, run by state_dict() on what it collected
        (paddle.amp.decorate's save_dtype uses it); returns a removable handle."""
        hooks = self.__dict__.get("_state_dict_hooks")
        if hooks is None:
            hooks = collections.OrderedDict()
            object.__setattr__(self, "_state_dict_hooks", hooks)
        h = HookRemoveHelper(hooks)
        hooks[h._id] = hook
        return h

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Loads values (Tensors or numpy arrays) into the parameters and buffers in place.
        Returns (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict expects a dict, received {type(state_dict).__name__}")
        own = self.state_dict()
        missing, used = [], set()
        from ... import no_grad
        from ...tensor.to_tensor import to_tensor
        for key, t in own.items():
            k = key if use_structured_name else t.name
            if k not in state_dict:
                missing.append(key)
                continue
            used.add(k)
            v = state_dict[k]
            src = v if isinstance(v, Tensor) else to_tensor(np.asarray(v))
            if list(src.shape) != list(t.shape):
                raise ValueError(f"set_state_dict: {key} expects shape {t.shape}, received {src.shape}")
            with no_grad():
                t._copy_(src)
        unexpected = [k for k in state_dict if k not in used]
        if missing:
            import warnings
            warnings.warn(f"set_state_dict: {len(missing)} keys not found in the given dict: {missing[:5]}")
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # ------------------------------------------------------------------ dtype/device
    def to(self, device=None, dtype=None, blocking=None):
        """Moves parameters and buffers to device (in place: the same Parameter objects, so an
        optimizer made before still holds them) and casts the floating ones to dtype."""
        if device is not None:
            from ...framework.place import _device_of_place, _gpu_count
            dev = _device_of_place(device)
            if dev >= 0 and dev >= _gpu_count():
                raise ValueError(f"Layer.to: device {device!r} is not available to Paddle-C "
                                 f"({_gpu_count()} GPU(s) found)")
            for t in self.parameters() + self.buffers():
                if t._device() != dev:
                    t._move_to_device_(dev)
        if dtype is not None:
            d = convert_dtype(dtype)
            from ... import no_grad
            with no_grad():
                for t in self.parameters() + self.buffers():
                    if t.dtype.name in ("float16", "bfloat16", "float32", "float64") and t.dtype != d:
                        t._set_view_of(t.astype(d))
            for layer in self.sublayers(include_self=True):
                object.__setattr__(layer, "_dtype", d.name)
        return self

    def astype(self, dtype=None):
        return self.to(dtype=dtype)

    def float(self):
        return self.to(dtype="float32")

    def double(self):
        return self.to(dtype="float64")

    def half(self):
        return self.to(dtype="float16")

    # ------------------------------------------------------------------ calling
    def register_forward_pre_hook(self, hook):
        """hook(layer, inputs) -> None or new inputs; returns a removable handle."""
        h = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[h._id] = hook
        return h

    def register_forward_post_hook(self, hook):
        """hook(layer, inputs, outputs) -> None or new outputs; returns a removable handle."""
        h = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[h._id] = hook
        return h

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def __call__(self, *inputs, **kwargs):
        if _lazy_state.pending:  # a parameter made under paddle.LazyGuard is not initialized yet
            _lazy_check(self)
        for hook in list(self._forward_pre_hooks.values()):
            r = hook(self, inputs)
            if r is not None:
                inputs = r if isinstance(r, tuple) else (r,)
        if _prof_utils._is_profiler_used:  # Paddle records a Forward range per layer call
            with _prof_utils.RecordEvent(self.__class__.__name__, _prof_utils.TracerEventType.Forward):
                out = self.forward(*inputs, **kwargs)
        else:
            out = self.forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            r = hook(self, inputs, out)
            if r is not None:
                out = r
        return out

    # ------------------------------------------------------------------ printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        for n, layer in self._sub_layers.items():
            r = repr(layer).replace("\n", "\n  ")
            lines.append(f"  ({n}): {r}")
        if not lines:
            return f"{type(self).__name__}({extra})"
        head = f"{type(self).__name__}(" + (f"{extra}" if extra else "")
        return head + "\n" + "\n".join(lines) + "\n)"

    def __deepcopy__(self, memo):
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            object.__setattr__(new, k, copy.deepcopy(v, memo))
        return new

    def deepcopy(self):
        return copy.deepcopy(self)


__all__ = ["Layer"]
