"""The static-graph program model of paddle.static: Program, Block, Variable, Parameter, Operator,
the default main/startup programs, program_guard, static/dynamic mode, data and parameters.

The program itself lives in C (csrc/graph, paddle._C.ProgramDesc and friends); these classes are
Paddle's Python view of it. In static mode every paddle op records into the current block: the
C op runner hands ops to the recorder (csrc/graph/pd_trace.c), which appends them under Paddle's
operator names and returns Variables (meta tensors standing for program variables)."""
import contextlib
import copy
import weakref

from .. import _C

Tensor = _C.Tensor

# ---------------------------------------------------------------------------------- mode state
_state = {"static": False, "main": None, "startup": None, "dygraph_guard": 0}
_programs = weakref.WeakValueDictionary()  # desc pointer -> Program


def in_dynamic_mode():
    """True unless paddle.enable_static() is in effect."""
    return not _state["static"] or _state["dygraph_guard"] > 0


def in_pir_mode():
    """Paddle 2.6 (paddle.base.framework.in_pir_mode): whether static mode records PIR programs.
    Paddle-C's programs are ProgramDesc-shaped (paddle.framework.use_pir_api() is False), so this is
    False, as in Paddle 2.6 by default."""
    return False


def _in_static():
    return not in_dynamic_mode()


def _sync_target():
    """Points the C recorder at the current block of the main program (or nowhere)."""
    if _in_static():
        p = default_main_program()
        _C._static_target(p.desc, p.current_block_idx)
    else:
        _C._static_target(None, 0)


def enable_static():
    """Switches to static-graph mode: paddle ops append to the default main program."""
    _state["static"] = True
    _sync_target()


def disable_static(place=None):
    """Switches back to dynamic (eager) mode."""
    _state["static"] = False
    _sync_target()


@contextlib.contextmanager
def _dygraph_guard():
    """Runs eagerly inside static mode (paddle.fluid.dygraph.guard, DataLoader collation)."""
    _state["dygraph_guard"] += 1
    _sync_target()
    try:
        yield
    finally:
        _state["dygraph_guard"] -= 1
        _sync_target()


# ---------------------------------------------------------------------------------- programs
def default_main_program():
    """The program paddle ops record into in static mode."""
    if _state["main"] is None:
        _state["main"] = Program()
    return _state["main"]


def default_startup_program():
    """The program that initializes parameters (run it once with an Executor)."""
    if _state["startup"] is None:
        _state["startup"] = Program()
    return _state["startup"]


def switch_main_program(program):
    old = default_main_program()
    _state["main"] = program
    _sync_target()
    return old


def switch_startup_program(program):
    old = default_startup_program()
    _state["startup"] = program
    return old


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Ops and parameters created inside go to main_program (and startup_program)."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: main_program must be a paddle.static.Program, received "
                        f"{type(main_program).__name__}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard: startup_program must be a paddle.static.Program, received "
                        f"{type(startup_program).__name__}")
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None else None
    try:
        yield
    finally:
        switch_main_program(old_main)
        if old_startup is not None:
            switch_startup_program(old_startup)


class Program:
    """A static program: blocks of variables and ops (Paddle's Program)."""

    def __init__(self, _desc=None):
        self.desc = _desc if _desc is not None else _C.ProgramDesc()
        self.current_block_idx = 0
        self._seed = 0
        self._blocks = {}
        self._params = {}          # name -> Parameter object (keeps its Python attributes)
        self._op_cache = {}
        self.lr_sheduler = None
        self._is_start_up_program_ = False
        self._appending_grad_times = 0
        _programs[self.desc._ptr()] = self

    # -- blocks
    def global_block(self):
        return self.block(0)

    def block(self, index):
        if index < 0 or index >= self.desc.num_blocks():
            raise IndexError(f"block {index} out of range [0, {self.desc.num_blocks()})")
        b = self._blocks.get(index)
        if b is None:
            b = self._blocks[index] = Block(self, index)
        return b

    def current_block(self):
        return self.block(self.current_block_idx)

    @property
    def blocks(self):
        return [self.block(i) for i in range(self.desc.num_blocks())]

    @property
    def num_blocks(self):
        return self.desc.num_blocks()

    def _create_block(self, parent_idx=None):
        parent = self.current_block() if parent_idx is None else self.block(parent_idx)
        d = self.desc.append_block(parent.desc)
        self.current_block_idx = d.id
        if self is default_main_program():
            _sync_target()
        return self.current_block()

    def _rollback(self):
        self.current_block_idx = self.current_block().parent_idx
        if self is default_main_program():
            _sync_target()

    # -- seeds
    @property
    def random_seed(self):
        return self._seed

    @random_seed.setter
    def random_seed(self, seed):
        if not isinstance(seed, int):
            raise ValueError(f"Program.random_seed must be an int, received {type(seed).__name__}")
        self._seed = seed

    # -- listing
    def list_vars(self):
        for b in self.blocks:
            for v in b.vars.values():
                yield v

    def all_parameters(self):
        out = []
        for b in self.blocks:
            out.extend(b.all_parameters())
        return out

    # -- copies
    def clone(self, for_test=False):
        """A copy; for_test=True drops backward/optimizer ops and sets is_test on the rest."""
        p = Program(self.desc.clone())
        p._seed = self._seed
        p.lr_sheduler = self.lr_sheduler
        for name, par in self._params.items():
            p._params[name] = par
        if for_test:
            p._prune_for_test()
        return p

    def _prune_for_test(self):
        """Drops backward and optimizer ops (op_role bits 1 and 2) and sets is_test."""
        for b in self.blocks:
            i = 0
            while i < b.desc.op_size():
                od = b.desc.op(i)
                role = od.attr("op_role") if od.has_attr("op_role") else 0
                if role & (1 | 2):
                    b.desc._remove_op(i, i + 1)
                    continue
                if od.has_attr("is_test"):
                    od._set_attr("is_test", True)
                i += 1
            b._prune_unused_vars()
        self._op_cache.clear()

    def _inference_optimize(self, prune_read_op=True):
        p = self.clone(for_test=True)
        return p

    # -- model files (paddle.static.io)
    @staticmethod
    def parse_from_string(binary_str):
        """A Program from Paddle's ProgramDesc bytes (a .pdmodel / __model__ file)."""
        if not isinstance(binary_str, (bytes, bytearray, memoryview)):
            raise TypeError(f"Program.parse_from_string expects bytes, received {type(binary_str).__name__}")
        p = Program(_C.program_desc_parse(bytes(binary_str)))
        p._register_parameters()
        return p

    def serialize_to_string(self):
        return self.desc.serialize_to_string()

    def _register_parameters(self):
        """Parameter objects for the global block's is_parameter vars (a program read from a file)."""
        gb = self.global_block()
        for d in gb.desc.all_vars():
            if d.is_parameter() and d.name() not in self._params:
                self._params[d.name()] = _as_parameter(d._tensor(), None, not d.stop_gradient())

    def _remove_training_info(self, clip_extra=True):
        """A copy without what only training needs: VarDescs lose is_parameter/stop_gradient, and
        with clip_extra ops lose the bookkeeping attributes (name scope, call stack, device)."""
        res = Program(self.desc.clone())
        res._seed = self._seed
        for bi in range(res.desc.num_blocks()):
            bd = res.desc.block(bi)
            for d in bd.all_vars():
                d.clear_is_parameter()
                d.clear_stop_gradient()
            if not clip_extra:
                continue
            for i in range(bd.op_size()):
                od = bd.op(i)
                for name in ("op_namescope", "op_callstack", "op_device", "with_quant_attr"):
                    if od.has_attr(name):
                        od.remove_attr(name)
        return res

    # -- text
    def to_string(self, throw_on_error=False, with_details=False):
        return self.desc.to_string()

    def __str__(self):
        return self.desc.to_string()

    __repr__ = __str__

    def _version(self):
        return self.desc._version()

    # -- state (Program.state_dict / set_state_dict, Paddle 2.x)
    def state_dict(self, mode="all", scope=None):
        from .executor import global_scope
        scope = scope or global_scope()
        out = {}
        for v in self.list_vars():
            if not v.persistable or v.type != _VT_LOD_TENSOR:
                continue
            if mode == "param" and not v.is_parameter:
                continue
            if mode == "opt" and v.is_parameter:
                continue
            t = scope._get(v.name)
            if t is not None:
                out[v.name] = t
        return out

    def set_state_dict(self, state_dict, scope=None):
        from .executor import global_scope
        import numpy as np
        scope = scope or global_scope()
        names = {v.name for v in self.list_vars() if v.persistable}
        for k, v in state_dict.items():
            if k in names:
                scope._set(k, _C.from_buffer(np.ascontiguousarray(np.asarray(v))))


_VT_LOD_TENSOR = 7
_VT_NAMES = {0: "BOOL", 1: "INT16", 2: "INT32", 3: "INT64", 4: "FP16", 5: "FP32", 6: "FP64", 7: "LOD_TENSOR",
             8: "SELECTED_ROWS", 9: "FEED_MINIBATCH", 10: "FETCH_LIST", 11: "STEP_SCOPES",
             12: "LOD_RANK_TABLE", 13: "LOD_TENSOR_ARRAY", 14: "PLACE_LIST", 15: "READER", 17: "RAW"}


def _program_of(desc_ptr):
    return _programs.get(desc_ptr)


class Block:
    """A block of a Program: variables and ops."""

    def __init__(self, program, idx):
        self.program = program
        self.idx = idx
        self.desc = program.desc.block(idx)

    @property
    def parent_idx(self):
        return self.desc.parent

    @property
    def forward_block_idx(self):
        return self.desc.forward_block_idx

    def _set_forward_block_idx(self, idx):
        self.desc._set_forward_block_idx(idx)

    @property
    def vars(self):
        import collections
        return collections.OrderedDict((d.name(), self._wrap_var(d)) for d in self.desc.all_vars())

    def _wrap_var(self, vdesc):
        p = self.program._params.get(vdesc.name())
        if p is not None and _C._var_of(p) is not None and _C._var_of(p).id() == vdesc.id():
            return p
        if vdesc.is_parameter() and self.idx == 0:
            # a parameter of a cloned program: a Parameter of this program's variable with the
            # original's optimizer attributes (learning rate, regularizer, clip flag)
            q = _as_parameter(vdesc._tensor(), _ParamAttrs(p), not vdesc.stop_gradient())
            self.program._params[vdesc.name()] = q
            return q
        return vdesc._tensor()

    def var(self, name):
        if not isinstance(name, str):
            raise TypeError(f"var(name): name must be a str, received {type(name).__name__}")
        d = self.desc.find_var(name)
        if d is None:
            raise ValueError(f"var {name} not in this block")
        return self._wrap_var(d)

    def has_var(self, name):
        return self.desc.has_var(name)

    def _find_var_recursive(self, name):
        d = self.desc.find_var_recursive(name)
        if d is None:
            return None
        blk = self.program.block(d.block().id) if d.block() is not None else self
        return blk._wrap_var(d)

    def _var_recursive(self, name):
        v = self._find_var_recursive(name)
        if v is None:
            raise ValueError(f"Var {name} is not found recursively")
        return v

    def all_parameters(self):
        return [v for v in self.vars.values() if getattr(v, "is_parameter", False)]

    def iter_parameters(self):
        return iter(self.all_parameters())

    def create_var(self, name=None, shape=None, dtype=None, type=None, lod_level=None,
                   persistable=None, stop_gradient=False, need_check_feed=False, **kwargs):
        from ..utils import unique_name
        name = name or unique_name.generate("_generated_var")
        d = self.desc.var(name)
        if type is not None:
            d.set_type(_vartype_code(type))
        if shape is not None:
            d.set_shape([-1 if s is None else int(s) for s in shape])
        if dtype is not None:
            d.set_dtype(_dtype_name(dtype))
        if lod_level is not None:
            d.set_lod_level(int(lod_level))
        if persistable is not None:
            d.set_persistable(bool(persistable))
        d.set_stop_gradient(bool(stop_gradient))
        d.set_need_check_feed(bool(need_check_feed))
        return d._tensor()

    def create_parameter(self, shape, dtype="float32", name=None, attr=None, is_bias=False,
                         default_initializer=None, **kwargs):
        return _create_static_parameter(shape, dtype, name, attr, is_bias, default_initializer, block=self)

    def _rename_var(self, name, new_name):
        self.desc._rename_var(name, new_name)
        if name in self.program._params:
            self.program._params[new_name] = self.program._params.pop(name)
        return self.var(new_name)

    def _remove_var(self, name, sync=True):
        self.desc._remove_var(name)

    def _prune_unused_vars(self):
        used = set()
        for i in range(self.desc.op_size()):
            od = self.desc.op(i)
            used.update(od.input_arg_names())
            used.update(od.output_arg_names())
        for d in self.desc.all_vars():
            if d.name() not in used and not d.persistable() and not d.need_check_feed():
                self.desc._remove_var(d.name())

    # -- ops
    @property
    def ops(self):
        return [self._wrap_op(self.desc.op(i)) for i in range(self.desc.op_size())]

    def _wrap_op(self, od):
        cache = self.program._op_cache
        op = cache.get(od.id())
        if op is None or op.desc != od:
            op = cache[od.id()] = Operator(self, od)
        return op

    def append_op(self, type, inputs=None, outputs=None, attrs=None, **kwargs):
        return self._add_op(self.desc.append_op(), type, inputs, outputs, attrs)

    def _prepend_op(self, type, inputs=None, outputs=None, attrs=None, **kwargs):
        return self._add_op(self.desc._prepend_op(), type, inputs, outputs, attrs)

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None, **kwargs):
        return self._add_op(self.desc._insert_op(index), type, inputs, outputs, attrs)

    def _remove_op(self, index, sync=True):
        self.desc._remove_op(index, index + 1)

    def _add_op(self, od, type, inputs, outputs, attrs):
        od.set_type(type)
        for slot, vs in (inputs or {}).items():
            od.set_input(slot, _var_names(vs))
        for slot, vs in (outputs or {}).items():
            od.set_output(slot, _var_names(vs))
        for k, v in (attrs or {}).items():
            if isinstance(v, Block):
                v = v.desc
            elif isinstance(v, (list, tuple)) and v and isinstance(v[0], Block):
                v = [b.desc for b in v]
            if v is None:
                continue
            od._set_attr(k, v)
        return self._wrap_op(od)

    def __str__(self):
        return self.to_string(True)

    def to_string(self, throw_on_error=False, with_details=False):
        text = self.program.desc.to_string()
        parts = text.split("{ // block ")
        for p in parts:
            if p.startswith(f"{self.idx}\n"):
                return "{ // block " + p
        return text


def _var_names(vs):
    if vs is None:
        return []
    if not isinstance(vs, (list, tuple)):
        vs = [vs]
    out = []
    for v in vs:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, Tensor) and _C._is_variable(v):
            out.append(v.name)
        else:
            raise TypeError(f"an op's inputs and outputs must be Variables or names, received {type(v).__name__}")
    return out


def _vartype_code(t):
    if isinstance(t, int):
        return t
    name = getattr(t, "name", str(t)).split(".")[-1]
    for k, v in _VT_NAMES.items():
        if v == name:
            return k
    raise ValueError(f"unknown variable type {t}")


def _dtype_name(dtype):
    from ..framework.dtype import convert_dtype
    return convert_dtype(dtype)


class Operator:
    """One op of a block (Paddle's Operator)."""

    def __init__(self, block, desc):
        self.block = block
        self.desc = desc

    @property
    def type(self):
        return self.desc.type()

    def input(self, name):
        return self.desc.input(name)

    def output(self, name):
        return self.desc.output(name)

    @property
    def input_names(self):
        return self.desc.input_names()

    @property
    def output_names(self):
        return self.desc.output_names()

    @property
    def input_arg_names(self):
        return self.desc.input_arg_names()

    @property
    def output_arg_names(self):
        return self.desc.output_arg_names()

    @property
    def attr_names(self):
        return self.desc.attr_names()

    def has_attr(self, name):
        return self.desc.has_attr(name)

    def attr(self, name):
        v = self.desc.attr(name)
        if self.desc.attr_type(name) == 8:  # BLOCK
            return self.block.program.block(v)
        if self.desc.attr_type(name) == 10:  # BLOCKS
            return [self.block.program.block(i) for i in v]
        return v

    def _block_attr_id(self, name):
        return self.desc.attr(name)

    def all_attrs(self):
        return {n: self.attr(n) for n in self.attr_names}

    def _set_attr(self, name, val):
        if isinstance(val, Block):
            val = val.desc
        self.desc._set_attr(name, val)

    _update_desc_attr = _set_attr

    def _rename_input(self, old, new):
        self.desc._rename_input(old, new)

    def _rename_output(self, old, new):
        self.desc._rename_output(old, new)

    @property
    def idx(self):
        for i in range(self.block.desc.op_size()):
            if self.block.desc.op(i) == self.desc:
                return i
        raise ValueError("the op is no longer in its block")

    def __str__(self):
        outs = ", ".join(f"{k}={self.output(k)}" for k in self.output_names)
        ins = ", ".join(f"{k}={self.input(k)}" for k in self.input_names)
        attrs = ", ".join(f"{k} = {self.desc.attr(k)}" for k in sorted(self.attr_names))
        return f"{{{outs}}} = {self.type}(inputs={{{ins}}}{', ' + attrs if attrs else ''})"

    __repr__ = __str__

    def to_string(self, throw_on_error=False):
        return str(self)


# ---------------------------------------------------------------------------------- Variables
def _vdesc(t):
    d = _C._var_of(t)
    if d is None:
        raise RuntimeError("this Variable no longer belongs to a program block")
    return d


class Variable(Tensor):
    """A variable of a static program. It is a paddle.Tensor without data: paddle ops on it
    record into the current program block."""

    @property
    def desc(self):
        return _vdesc(self)

    @property
    def name(self):
        return _vdesc(self).name()

    @name.setter
    def name(self, new):
        d = _vdesc(self)
        if new != d.name():
            d.block()._rename_var(d.name(), new)

    @property
    def block(self):
        d = _vdesc(self)
        prog = _program_of(d.block().program()._ptr())
        if prog is None:
            prog = Program(d.block().program())
        return prog.block(d.block().id)

    @property
    def shape(self):
        return tuple(_vdesc(self).shape())

    @property
    def dtype(self):
        return _vdesc(self).dtype()

    @property
    def type(self):
        return _vdesc(self).type()

    @property
    def lod_level(self):
        return _vdesc(self).lod_level()

    @property
    def persistable(self):
        return bool(_vdesc(self).persistable())

    @persistable.setter
    def persistable(self, v):
        _vdesc(self).set_persistable(bool(v))

    @property
    def is_parameter(self):
        return bool(_vdesc(self).is_parameter())

    @property
    def need_check_feed(self):
        return bool(_vdesc(self).need_check_feed())

    @property
    def grad_name(self):
        return self.name + "@GRAD"

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def numel(self):
        import paddle
        return paddle.numel(self)

    def __repr__(self):
        d = _vdesc(self)
        kind = _VT_NAMES.get(d.type(), str(d.type()))
        shape = ", ".join(str(s) for s in d.shape())
        dt = d.dtype()
        dts = dt.name if dt is not None else "None"
        return (f"var {d.name()} : {kind}.shape({shape}).dtype({dts}).stop_gradient({bool(d.stop_gradient())})")

    __str__ = __repr__

    def to_string(self, throw_on_error=False, with_details=False):
        return repr(self)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise TypeError("a static Variable has no value while the program is built; its truth value "
                        "is not defined (use paddle.static.nn.cond for data-dependent branches)")

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-D Variable")
        return s[0]

    def __array__(self, *a, **k):
        raise TypeError(f"Variable {self.name} has no value while the program is built: run the program "
                        "with paddle.static.Executor and fetch it")

    def numpy(self, *a, **k):
        raise TypeError(f"Variable {self.name} has no value while the program is built: fetch it "
                        "with paddle.static.Executor.run(fetch_list=[...])")

    def item(self, *a):
        self.numpy()

    def tolist(self):
        self.numpy()

    def __index__(self):
        raise TypeError("a static Variable cannot be used as a Python index")

    def __float__(self):
        self.numpy()

    def __int__(self):
        self.numpy()

    def _copy_(self, src):
        """self = src inside the program (an assign op writing this variable); like the eager
        in-place copy, src is cast to self's dtype and broadcast to its shape."""
        if not isinstance(src, Tensor):
            import paddle
            src = paddle.to_tensor(src, dtype=self.dtype)
        if src.dtype != self.dtype:
            src = _C._C_ops.cast(src, self.dtype)
        if tuple(src.shape) != tuple(self.shape) and src.ndim <= self.ndim:
            src = _C._C_ops.expand_as(src, self)
        return _C._static_assign(self, src)

    def _set_view_of(self, src):
        """In-place shape ops (reshape_, flatten_ ...): self's variable takes src's value and shape."""
        _C._static_assign(self, src)
        _vdesc(self).set_shape(list(src.shape))
        return self

    def set_value(self, value, scope=None):
        """Writes value into this variable in the scope (global_scope() by default)."""
        import numpy as np
        from .executor import global_scope
        scope = scope or global_scope()
        arr = np.asarray(value.numpy() if isinstance(value, Tensor) and not _C._is_variable(value) else value)
        if list(arr.shape) != [s for s in self.shape] and -1 not in self.shape:
            raise ValueError(f"set_value: {self.name} has shape {list(self.shape)}, the value has {list(arr.shape)}")
        from ..framework.dtype import to_numpy_dtype
        if self.dtype.name == "bfloat16":
            if arr.dtype != np.uint16:  # values, not bits: round to bfloat16
                from ..tensor.to_tensor import _bf16_bits
                arr = _bf16_bits(arr)
        else:
            arr = arr.astype(to_numpy_dtype(self.dtype))
        arr = np.ascontiguousarray(arr)
        scope._set(self.name, _C.from_buffer(arr))

    def get_value(self, scope=None):
        """The variable's current value in the scope (a Tensor), or None."""
        from .executor import global_scope
        scope = scope or global_scope()
        return scope._get(self.name)

    def detach(self):
        import paddle
        out = paddle.assign(self)
        out.stop_gradient = True
        return out

    def _detach_(self):
        """In place: no gradient flows through this variable (append_backward skips it)."""
        self.stop_gradient = True
        return self

    def backward(self, grad_tensor=None, retain_graph=False):
        raise RuntimeError(f"Variable {self.name}: backward() runs eagerly; in a static program append the "
                           "gradient ops with paddle.static.append_backward(loss) (or an optimizer's "
                           "minimize(loss)) and run the program")

    def register_hook(self, hook):
        raise NotImplementedError(f"Variable {self.name}: gradient hooks run eagerly; a static program's "
                                  "gradients are variables (paddle.static.gradients)")

    _register_hook = register_hook

    def clone(self):
        import paddle
        return paddle.assign(self)

    def __deepcopy__(self, memo):
        return self


from ..framework.param import Parameter as _ParamBase  # noqa: E402


class Parameter(Variable, _ParamBase):
    """A trainable persistable variable of a static program (Paddle's framework.Parameter). It
    is also a paddle's dygraph Parameter class instance, so layers built in static mode register
    it (layer.parameters(), state_dict) as in dygraph."""

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, v):
        self.stop_gradient = not bool(v)

    def __repr__(self):
        kind = "persist trainable param " if self.trainable else "persist param "
        return Variable.__repr__(self).replace("var ", kind, 1)

    __str__ = __repr__


_C._set_variable_type(Variable)


class _ParamAttrs:
    """The optimizer attributes of Parameter p (defaults when p is None), as _as_parameter reads them."""

    def __init__(self, p):
        self.learning_rate = (getattr(p, "optimize_attr", None) or {}).get("learning_rate", 1.0)
        self.regularizer = getattr(p, "regularizer", None)
        self.need_clip = getattr(p, "need_clip", True)
        self.do_model_average = getattr(p, "do_model_average", True)


def _as_parameter(var, attr, trainable=True):
    """Makes the Variable object of a parameter var a Parameter with its optimizer attributes."""
    p = var if isinstance(var, Parameter) else None
    if p is None:
        var.__class__ = Parameter
        p = var
    p.optimize_attr = {"learning_rate": float(getattr(attr, "learning_rate", 1.0))}
    p.regularizer = getattr(attr, "regularizer", None)
    p.need_clip = getattr(attr, "need_clip", True)
    p.do_model_average = getattr(attr, "do_model_average", True)
    p.is_distributed = False
    p.stop_gradient = not trainable
    return p


def _create_static_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None,
                             block=None, type_code=_VT_LOD_TENSOR):
    """A parameter in the main program's global block, initialized by ops in the startup program."""
    from ..framework.param_attr import ParamAttr
    from ..nn import initializer as I
    from ..utils import unique_name
    from .weight_norm import WeightNormParamAttr, create_weight_normalized
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if attr is None:
        attr = ParamAttr()
    if isinstance(attr, WeightNormParamAttr):
        if attr.name is None and name is not None:
            attr = copy.copy(attr)
            attr.name = name
        return create_weight_normalized([shape] if isinstance(shape, int) else shape, _dtype_name(dtype), attr,
                                        is_bias, default_initializer)
    shape = [shape] if isinstance(shape, int) else [int(s) for s in shape]
    if any(s < 0 for s in shape):
        raise ValueError(f"create_parameter: every dimension must be >= 0, received {shape}")
    dt = _dtype_name(dtype)
    pname = attr.name or name or unique_name.generate("create_parameter" + (".b" if is_bias else ".w"))
    main = block.program if block is not None else default_main_program()
    gb = main.global_block()
    if gb.desc.has_var(pname) and gb.desc.find_var(pname).is_parameter():
        p = main._params.get(pname)
        if p is not None:
            return p
    d = gb.desc.var(pname)
    d.set_shape(shape)
    d.set_dtype(dt)
    d.set_persistable(True)
    d.set_is_parameter(True)
    d.set_stop_gradient(not attr.trainable)
    p = _as_parameter(d._tensor(), attr, attr.trainable)
    main._params[pname] = p
    init = attr.initializer or default_initializer or I.base._default_initializer(is_bias)
    _init_in_startup(pname, shape, dt, init)
    return p


def _init_in_startup(name, shape, dtype, init):
    """Records init(var) into the startup program for the persistable var `name`."""
    startup = default_startup_program()
    sb = startup.global_block()
    sd = sb.desc.var(name)
    sd.set_shape(list(shape))
    sd.set_dtype(dtype)
    sd.set_persistable(True)
    sv = sd._tensor()
    prev = _C._static_target(startup.desc, 0)
    try:
        init(sv)
    finally:
        _C._static_target(*prev)


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A global variable of the main program filled with value by the startup program."""
    from ..nn.initializer import Constant
    from ..utils import unique_name
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"create_global_var: shape must be a list or tuple, received {type(shape).__name__}")
    name = name or unique_name.generate("global_var")
    dt = _dtype_name(dtype)
    gb = default_main_program().global_block()
    d = gb.desc.var(name)
    d.set_shape([int(s) for s in shape])
    d.set_dtype(dt)
    d.set_persistable(bool(persistable))
    d.set_stop_gradient(True)
    _init_in_startup(name, shape, dt, Constant(value))
    if not persistable:
        # Paddle still initializes it from the startup program into the scope
        d.set_persistable(True)
        v = d._tensor()
        return v
    return d._tensor()


def data(name, shape, dtype=None, lod_level=0):
    """A variable the program reads from the feed (None or -1 dims: any size)."""
    from ..framework.dtype import get_default_dtype
    if not isinstance(name, str):
        raise TypeError(f"paddle.static.data: name must be a str, received {type(name).__name__}")
    shape = [-1 if s is None else int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
    dt = _dtype_name(dtype if dtype is not None else get_default_dtype())
    gb = default_main_program().global_block()
    d = gb.desc.var(name)
    d.set_shape(shape)
    d.set_dtype(dt)
    d.set_lod_level(int(lod_level))
    d.set_stop_gradient(True)
    d.set_need_check_feed(True)
    d.set_persistable(False)
    return d._tensor()


@contextlib.contextmanager
def name_scope(prefix=None):
    """Groups ops under a name prefix (recorded for display only)."""
    yield


@contextlib.contextmanager
def device_guard(device=None):
    """Places ops on a device: 'cpu' (or 'gpu'/'gpu:N', accepted and run on the CPU here)."""
    if device is not None:
        dev = str(device)
        if not (dev == "cpu" or dev.startswith("gpu") or dev.startswith("xpu") or dev.startswith("npu")):
            raise ValueError(f"device_guard: the device should be 'cpu', 'gpu' or 'gpu:x', received {device!r}")
    yield
