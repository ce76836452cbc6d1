"""What paddle.static.nn's layer functions share (Paddle's LayerHelper): the layer's unique name
(fc_0 ...), parameters named after it (fc_0.w_0, fc_0.b_0) made by paddle.create_parameter (in
static mode a persistable Parameter of the main program initialised by the startup program),
the activation given by name, the static-only guard and the LoD level of outputs."""
import copy
import functools

from ...framework.param_attr import ParamAttr
from ...utils import unique_name
from ..callback import static_only  # noqa: F401
from ..framework import _in_static, _vdesc


def sequence_only(fn):
    """The sequence layers refuse dygraph mode, as Paddle's do."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        assert _in_static(), "sequence layer is not supported in dygraph mode yet."
        return fn(*args, **kwargs)
    return wrapper


def _set_counter(key, value):
    from ... import _C
    t = _C.unique_name_table(None)
    t[key] = value
    _C.unique_name_table(t)


class Helper:
    """One layer call: helper = Helper('fc', name); helper.param(attr, shape, dtype); ...;
    return helper.done(out). The layer is named key_N (conv2d_0) as in Paddle, where the layer's
    own op output is key_N.tmp_0: the recorder names op outputs from the same counters, so the
    counter is handed back until the layer ends (done), and one layer call takes one number."""

    def __init__(self, layer_type, name=None):
        self.layer_type = layer_type
        self._n = None
        if name is not None:
            self.name = name
        else:
            self.name = unique_name.generate(layer_type)
            self._n = int(self.name.rsplit("_", 1)[1])
            _set_counter(layer_type, self._n)

    def done(self, out=None):
        """Ends the layer: its number stays taken whether or not an op of its type was recorded."""
        if self._n is not None:
            from ... import _C
            t = _C.unique_name_table(None)
            if t.get(self.layer_type, 0) < self._n + 1:
                t[self.layer_type] = self._n + 1
            _C.unique_name_table(t)
            self._n = None
        return out

    def param(self, attr, shape, dtype, is_bias=False, default_initializer=None):
        """A parameter for attr (None: default; False: none, returns None)."""
        import paddle
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        attr = copy.copy(attr)
        if attr.name is None:
            attr.name = unique_name.generate(self.name + (".b" if is_bias else ".w"))
        return paddle.create_parameter([int(s) for s in shape], dtype, attr=attr, is_bias=is_bias,
                                       default_initializer=default_initializer)


def dtype_name(x):
    return x.dtype.name if hasattr(x.dtype, "name") else str(x.dtype)


def append_act(x, act):
    """x through the activation named act (a name, or {'type': name, ...attrs}), or x itself."""
    if act is None:
        return x
    import paddle
    from ...nn import functional as F
    kwargs = {}
    if isinstance(act, dict):
        kwargs = {k: v for k, v in act.items() if k not in ("type", "use_cudnn", "use_mkldnn")}
        act = act["type"]
    fn = getattr(F, act, None) or getattr(paddle, act, None)
    if fn is None:
        raise ValueError(f"unknown activation {act!r}")
    return fn(x, **kwargs)


def set_lod_level(var, level):
    """The lod_level a program variable declares (static mode; a no-op eagerly)."""
    if _in_static() and hasattr(var, "desc"):
        try:
            _vdesc(var).set_lod_level(int(level))
        except (AttributeError, TypeError):
            pass
    return var


def lod_level(var):
    try:
        return int(var.lod_level)
    except (AttributeError, TypeError):
        return 0


def as_list(v, n, name):
    """An int or a list/tuple of n ints as a list."""
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"{name} should have {n} elements, received {list(v)}")
        return [int(e) for e in v]
    return [int(v)] * n
