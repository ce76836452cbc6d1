"""paddle.static's model files, in Paddle's formats (Paddle 2.3's API):

- the program: `.pdmodel` (or the 1.x `__model__`), Paddle's ProgramDesc protobuf, read and written
  by C (csrc/graph/pd_program_io.c; byte-compatible with Paddle's own files);
- the persistable variables: `.pdiparams`, the LoDTensor stream of every persistable variable in
  sorted-name order (save_combine's layout), or one stream file per variable (the 1.x
  `save_vars`/`save_persistables` layout), read and written by csrc/graph/pd_tensor_stream.c;
- `paddle.static.save/load`: `.pdparams` (pickle of the parameters), `.pdopt` (pickle of the other
  persistables), `.pdmodel`.

save_inference_model = normalize_program (prune to what the fetches need, clone for test, append
the `scale` ops and the feed/fetch ops) + the program bytes + the persistables' bytes. Values come
from and go to the global scope (paddle.static.global_scope()), as in Paddle."""
import errno
import functools
import io
import logging
import os
import pickle
import warnings

import numpy as np

from .. import _C
from .executor import CompiledProgram, global_scope
from .framework import (Parameter, Program, Variable, _in_static, default_main_program,
                        program_guard)

_logger = logging.getLogger("paddle.static.io")

# framework.proto VarType.Type codes
_VT_SELECTED_ROWS, _VT_LOD_TENSOR, _VT_FEED_MINIBATCH, _VT_FETCH_LIST = 8, 7, 9, 10
_VT_READER, _VT_RAW = 15, 17
_PROGRAM_VERSION = 2003000  # the Paddle version programs written here claim (2.3.0)

__all__ = [
    "save_inference_model", "load_inference_model", "serialize_program", "serialize_persistables",
    "save_to_file", "deserialize_program", "deserialize_persistables", "load_from_file",
    "normalize_program", "save", "load", "load_program_state", "set_program_state",
]


def _static_only(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        assert _in_static(), (
            "In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and '%s()' is only supported "
            "in static graph mode. So if you want to use this api, please call 'paddle.enable_static()' "
            "before this api to enter static graph mode." % func.__name__)
        return func(*args, **kwargs)
    return wrapper


# ---------------------------------------------------------------------------------- predicates
def is_persistable(var):
    """A variable whose value lives in the scope between runs (feed/fetch holders and readers
    excluded)."""
    t = var.desc.type()
    if t in (_VT_FEED_MINIBATCH, _VT_FETCH_LIST, _VT_READER):
        return False
    return bool(var.persistable)


def is_parameter(var):
    return isinstance(var, Parameter)


def is_belong_to_optimizer(var):
    """A persistable variable that is neither a parameter nor a feed target (optimizer state,
    learning rate, counters)."""
    if not (isinstance(var, Parameter) or var.desc.need_check_feed()):
        return is_persistable(var)
    return False


def _check_vars(name, var_list):
    if not isinstance(var_list, list):
        var_list = [var_list]
    if not var_list or not all(isinstance(v, Variable) for v in var_list):
        raise ValueError(f"'{name}' should be a Variable or a list of Variable.")


def _get_valid_program(program=None):
    if program is None:
        program = default_main_program()
    elif isinstance(program, CompiledProgram):
        program = program._program
        if program is None:
            raise TypeError("The type of input program is invalid, expected type is Program, but received None")
        warnings.warn("The input is a CompiledProgram, this is not recommended.")
    if not isinstance(program, Program):
        raise TypeError(f"The type of input program is invalid, expected type is fluid.Program, but received "
                        f"{type(program)}")
    return program


def _normalize_path_prefix(path_prefix):
    if not isinstance(path_prefix, str):
        raise ValueError("'path_prefix' should be a string.")
    if path_prefix.endswith("/"):
        raise ValueError("'path_prefix' should not be a directory")
    return os.path.abspath(os.path.normpath(path_prefix))


def _persistables(program):
    return [v for v in program.list_vars() if is_persistable(v) and v.desc.type() != _VT_RAW]


# ---------------------------------------------------------------------------------- bytes <-> files
def save_to_file(path, content):
    """Writes bytes (serialize_program / serialize_persistables output) to path."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    with open(path, "wb") as f:
        f.write(content)


def load_from_file(path):
    """The bytes of the file at path."""
    if not os.path.isfile(path):
        raise ValueError(f"There is no file named {path}")
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------------------------- normalize
def _prune_with_input(program, feeded_var_names, targets):
    names = []
    for t in targets:
        if isinstance(t, Variable):
            names.append(t.name)
        elif isinstance(t, str):
            names.append(t)
        else:
            raise ValueError(f"All targets of Program._prune_with_input() can only be Variable or Operator, but "
                             f"received {type(t)}.")
    res = Program(_C.program_prune(program.desc, list(feeded_var_names), names))
    res._seed = program._seed
    return res


def _prepend_feed_ops(program, feed_target_names, feed_holder_name="feed"):
    if not feed_target_names:
        return
    gb = program.global_block()
    feed_var = gb.create_var(name=feed_holder_name, type=_VT_FEED_MINIBATCH, persistable=True)
    for i, name in enumerate(feed_target_names):
        if not gb.has_var(name):
            raise ValueError(
                f"The feeded_var_names[{i}]: '{name}' doesn't exist in pruned inference program. Please check "
                f"whether '{name}' is a valid feed_var name, or remove it from feeded_var_names if '{name}' "
                "is not involved in the target_vars calculation.")
        gb._prepend_op(type="feed", inputs={"X": [feed_var]}, outputs={"Out": [name]}, attrs={"col": i})


def _append_fetch_ops(program, fetch_target_names, fetch_holder_name="fetch"):
    gb = program.global_block()
    fetch_var = gb.create_var(name=fetch_holder_name, type=_VT_FETCH_LIST, persistable=True)
    for i, name in enumerate(fetch_target_names):
        gb.append_op(type="fetch", inputs={"X": [name]}, outputs={"Out": [fetch_var]}, attrs={"col": i})


def _append_scale(program, var, i):
    """out = scale(var, 1.0) named save_infer_model/scale_<i>.tmp_<k> (what Paddle appends so that an
    activation's output that is also a fetch target survives inference optimizations)."""
    from ..utils import unique_name
    block = var.block if var.block.program is program else program.global_block()
    out = block.create_var(name=unique_name.generate(f"save_infer_model/scale_{i}.tmp"), shape=var.shape,
                           dtype=var.dtype, lod_level=var.lod_level, persistable=False)
    block.append_op(type="scale", inputs={"X": [var]}, outputs={"Out": [out]},
                    attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True})
    return out


@_static_only
def normalize_program(program, feed_vars, fetch_vars):
    """An inference copy of program: the ops the fetch variables need given the feed variables,
    cloned for test, with feed ops (col i <- feed_vars[i]) in front and fetch ops at the end.
    Like Paddle, it first appends a `scale` op (scale 1.0) to program for each non-bool fetch
    variable, and the copy fetches those outputs."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `fluid.Program`, but received `{type(program)}`")
    if not isinstance(feed_vars, list):
        feed_vars = [feed_vars]
    if not all(isinstance(v, Variable) for v in feed_vars):
        raise TypeError("feed_vars type must be a Variable or a list of Variable.")
    if not isinstance(fetch_vars, list):
        fetch_vars = [fetch_vars]
    if not all(isinstance(v, Variable) for v in fetch_vars):
        raise TypeError("fetch_vars type must be a Variable or a list of Variable.")
    for op in program.global_block().ops:
        if op.has_attr("op_device"):
            op._set_attr("op_device", "")
        if op.type == "auc":
            warnings.warn("Be sure that you have set auc states to 0 before saving inference model.")
            break
    with program_guard(program):
        uniq = []
        for i, var in enumerate(fetch_vars):
            if var.dtype is None or var.dtype.name != "bool":
                var = _append_scale(program, var, i)
            uniq.append(var)
        fetch_vars = uniq
    copy = program.clone()
    gb = copy.global_block()
    for i in reversed(range(gb.desc.op_size())):
        od = gb.desc.op(i)
        od.set_is_target(False)
        if od.type() in ("feed", "fetch"):
            gb.desc._remove_op(i, i + 1)
    feed_var_names = [v.name for v in feed_vars]
    copy = _prune_with_input(copy, feed_var_names, fetch_vars)
    copy = copy._inference_optimize(prune_read_op=True)
    fetch_var_names = [v.name for v in fetch_vars]
    _prepend_feed_ops(copy, feed_var_names)
    _append_fetch_ops(copy, fetch_var_names)
    copy.desc._set_version(_PROGRAM_VERSION)
    return copy


# ---------------------------------------------------------------------------------- programs
def _serialize_program(program):
    return program.desc.serialize_to_string()


@_static_only
def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The bytes of the inference program for feed_vars -> fetch_vars (kwargs: program)."""
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = _get_valid_program(kwargs.get("program", None))
    program = normalize_program(program, feed_vars, fetch_vars)
    return _serialize_program(program)


@_static_only
def deserialize_program(data):
    """A Program from the bytes of a .pdmodel file."""
    return Program.parse_from_string(data)


# ---------------------------------------------------------------------------------- persistables
def _scope_items(vars_, scope, what):
    items = []
    for v in vars_:
        t = scope._get(v.name)
        if t is None:
            raise RuntimeError(f"{what}: variable {v.name} has no value in the scope (run the startup program, or "
                               "load the parameters, before saving)")
        lod = scope._core._get_lod(v.name)
        items.append((t, lod) if lod else t)
    return items


def _serialize_persistables(program, executor=None, scope=None):
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `fluid.Program`, but received `{type(program)}`")
    vars_ = _persistables(program)
    if not vars_:
        warnings.warn("no variable in your model, please ensure there are any variables in your model to save")
        return None
    by_name = {}
    for v in vars_:
        by_name.setdefault(v.name, v)
    ordered = [by_name[n] for n in sorted(by_name)]
    return _C.tensor_stream_dump(_scope_items(ordered, scope or global_scope(), "serialize_persistables"))


@_static_only
def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The bytes of the persistable variables the inference program for feed_vars -> fetch_vars
    needs (a .pdiparams file), read from the global scope (kwargs: program)."""
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = _get_valid_program(kwargs.get("program", None))
    program = normalize_program(program, feed_vars, fetch_vars)
    return _serialize_persistables(program, executor)


def _check_loaded(var, t, where):
    want = tuple(var.shape)
    got = tuple(t.shape)
    if var.dtype is not None and t.dtype != var.dtype:
        raise ValueError(f"{where}: variable {var.name} is {var.dtype.name} in the program, but the file holds "
                         f"{t.dtype.name}")
    same = len(want) == len(got) and all(w < 0 or w == g for w, g in zip(want, got))
    if not same and not (want == () and got == (1,)):
        raise ValueError(f"Shape mismatch, program needs a parameter with shape ({want}), but the loaded parameter "
                         f"('{var.name}') has a shape of ({got}). ({where})")


def _load_combined(vars_, data, where, scope):
    """Sets vars_ (any order; read in sorted-name order) from one LoDTensor stream."""
    by_name = {}
    for v in vars_:
        by_name.setdefault(v.name, v)
    names = sorted(by_name)
    items = _C.tensor_stream_load(data, str(where), with_lod=True, count=len(names))
    tensors, end = items
    if end != len(data):
        raise ValueError(f"{where}: {len(data) - end} bytes are left after the {len(names)} variables the program "
                         "loads (the file does not belong to this program, or is corrupt)")
    for name, (t, lod) in zip(names, tensors):
        _check_loaded(by_name[name], t, where)
    for name, (t, lod) in zip(names, tensors):
        scope._set(name, t, lod or None)


def _load_separate(vars_, dirname, scope):
    for v in vars_:
        path = os.path.join(dirname, v.name)
        if not os.path.isfile(path):
            raise ValueError(f"There is no file named {path} (the saved value of variable {v.name})")
        data = load_from_file(path)
        tensors, end = _C.tensor_stream_load(data, path, with_lod=True, count=1)
        if end != len(data):
            raise ValueError(f"{path}: {len(data) - end} bytes are left after the tensor of {v.name}")
        t, lod = tensors[0]
        _check_loaded(v, t, path)
        scope._set(v.name, t, lod or None)


def _save_separate(vars_, dirname, scope):
    for v, item in zip(vars_, _scope_items(vars_, scope, "save_vars")):
        path = os.path.join(dirname, v.name)
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        save_to_file(path, _C.tensor_stream_dump([item]))


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Saves variables of main_program from the global scope: one LoDTensor stream file per variable
    under dirname, or all of them (sorted by name) in dirname/filename (Paddle 1.x's save_vars)."""
    program = _get_valid_program(main_program)
    if vars is None:
        vars = [v for v in program.list_vars() if (predicate or is_persistable)(v)]
    vars = [v for v in vars if v.desc.type() != _VT_RAW]
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    scope = global_scope()
    if filename:
        by_name = {}
        for v in vars:
            by_name.setdefault(v.name, v)
        ordered = [by_name[n] for n in sorted(by_name)]
        save_to_file(os.path.join(dirname, filename), _C.tensor_stream_dump(_scope_items(ordered, scope, "save_vars")))
    else:
        _save_separate(vars, dirname, scope)


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Loads variables into the global scope from what save_vars wrote (one file per variable, or
    the combined dirname/filename)."""
    program = _get_valid_program(main_program) if vars is None else None
    if vars is None:
        vars = [v for v in program.list_vars() if (predicate or is_persistable)(v)]
    vars = [v for v in vars if v.desc.type() not in (_VT_RAW, _VT_SELECTED_ROWS)]
    scope = global_scope()
    if filename:
        path = os.path.join(dirname, filename)
        _load_combined(vars, load_from_file(path), path, scope)
    else:
        _load_separate(vars, dirname, scope)


@_static_only
def deserialize_persistables(program, data, executor):
    """Sets program's persistable variables in the global scope from the bytes of a .pdiparams file."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `fluid.Program`, but received `{type(program)}`")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"deserialize_persistables: data must be bytes, received {type(data).__name__}")
    vars_ = [v for v in _persistables(program) if v.desc.type() != _VT_SELECTED_ROWS]
    if vars_:
        _load_combined(vars_, bytes(data), "deserialize_persistables", global_scope())


# ---------------------------------------------------------------------------------- inference models
@_static_only
def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Writes path_prefix.pdmodel (the inference program feed_vars -> fetch_vars) and
    path_prefix.pdiparams (its persistable variables from the global scope).
    kwargs: program (default: the default main program), clip_extra (default False: keep the
    bookkeeping attributes op_namescope/op_callstack/op_device/with_quant_attr)."""
    path_prefix = _normalize_path_prefix(path_prefix)
    try:
        os.makedirs(os.path.dirname(path_prefix))
    except OSError as e:
        if e.errno != errno.EEXIST:
            raise
    model_path = path_prefix + ".pdmodel"
    params_path = path_prefix + ".pdiparams"
    if os.path.isdir(model_path):
        raise ValueError(f"'{model_path}' is an existing directory.")
    if os.path.isdir(params_path):
        raise ValueError(f"'{params_path}' is an existing directory.")
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = _get_valid_program(kwargs.get("program", None))
    clip_extra = kwargs.get("clip_extra", False)
    program = normalize_program(program, feed_vars, fetch_vars)
    program_bytes = _serialize_program(program._remove_training_info(clip_extra=clip_extra))
    params_bytes = _serialize_persistables(program, executor)
    save_to_file(model_path, program_bytes)
    if params_bytes is not None:
        save_to_file(params_path, params_bytes)


@_static_only
def load_inference_model(path_prefix, executor, **kwargs):
    """Reads an inference model: returns [program, feed_target_names, fetch_targets] and sets its
    persistable variables in the global scope.

    path_prefix: the prefix of path_prefix.pdmodel / .pdiparams; or, with model_filename /
    params_filename, a directory holding them (Paddle 1.x: `__model__` and one file per
    variable when they are None); or None to read from memory (model_filename and params_filename
    are then the bytes). A directory with `__model__` (and separate parameter files, or a combined
    `__params__`) also loads without kwargs."""
    supported = ("model_filename", "params_filename")
    for k in kwargs:
        if k not in supported:
            raise ValueError(f"The additional config ({k}) of `load_inference_model` is not supported.")
    scope = global_scope()
    if path_prefix is None:
        _logger.warning("Load inference model from memory is deprecated.")
        model_bytes = kwargs.get("model_filename", None)
        params_bytes = kwargs.get("params_filename", None)
        if params_bytes is None:
            raise ValueError("params_filename cannot be None when path_prefix is None.")
        program = deserialize_program(model_bytes)
        deserialize_persistables(program, params_bytes, executor)
    else:
        path_prefix = _normalize_path_prefix(path_prefix)
        dir_path = os.path.dirname(path_prefix)
        if not os.path.isdir(dir_path):
            raise ValueError(f"There is no directory named {dir_path}")
        separate_dir = None
        if not kwargs:
            model_path = path_prefix + ".pdmodel"
            params_path = path_prefix + ".pdiparams"
            if not os.path.exists(model_path) and os.path.isdir(path_prefix) and \
                    os.path.isfile(os.path.join(path_prefix, "__model__")):
                # the 1.x layout: dirname/__model__ and a file per variable (or __params__)
                model_path = os.path.join(path_prefix, "__model__")
                params_path = os.path.join(path_prefix, "__params__")
                if not os.path.isfile(params_path):
                    separate_dir = path_prefix
        else:
            model_filename = kwargs.get("model_filename", None)
            params_filename = kwargs.get("params_filename", None)
            if model_filename is None:
                model_path = os.path.join(path_prefix, "__model__")
            else:
                model_path = os.path.join(path_prefix, model_filename + ".pdmodel")
                if not os.path.exists(model_path):
                    model_path = os.path.join(path_prefix, model_filename)
            if params_filename is None:
                separate_dir = path_prefix
                params_path = None
            else:
                params_path = os.path.join(path_prefix, params_filename + ".pdiparams")
                if not os.path.exists(params_path):
                    params_path = os.path.join(path_prefix, params_filename)
            _logger.warning(f"The old way to load inference model is deprecated. model path: {model_path}, params "
                            f"path: {params_path if params_path else path_prefix}")
        program = deserialize_program(load_from_file(model_path))
        vars_ = [v for v in _persistables(program) if v.desc.type() != _VT_SELECTED_ROWS]
        if vars_:
            if separate_dir is not None:
                _load_separate(vars_, separate_dir, scope)
            else:
                _load_combined(vars_, load_from_file(params_path), params_path, scope)
    gb = program.global_block()
    feed_target_names = program.desc.get_feed_target_names()
    fetch_target_names = program.desc.get_fetch_target_names()
    fetch_targets = [gb.var(name) for name in fetch_target_names]
    return [program, feed_target_names, fetch_targets]


# ---------------------------------------------------------------------------------- save / load
def _pickle_load(path):
    from ..framework.io import _unpickle, _unslice_big
    raw = load_from_file(path)
    data = _unpickle(raw, str(path))
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a dict of variables (found {type(data).__name__})")
    return _unslice_big(data)


def _model_prefix(model_path):
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        if model_path.endswith(ext):
            return model_path[:-len(ext)]
    return model_path


def _set_var(var, value, scope):
    arr = np.asarray(value.numpy() if isinstance(value, _C.Tensor) else value)
    t = scope._get(var.name)
    if t is not None and tuple(t.shape) != tuple(arr.shape):
        raise RuntimeError(f"Shape mismatch, program needs a parameter with shape ({tuple(t.shape)}), but the loaded "
                           f"parameter ('{var.name}') has a shape of ({tuple(arr.shape)}).")
    scope._set(var.name, _C.from_buffer(np.ascontiguousarray(arr)))


@_static_only
def save(program, model_path, protocol=4, **configs):
    """Writes model_path.pdparams (the parameters), model_path.pdopt (the other persistable
    variables: optimizer state) as pickles of {name: ndarray}, and model_path.pdmodel (the program)."""
    from ..framework.io import _slice_big
    base_name = os.path.basename(model_path)
    assert base_name != "", ("The input model_path MUST be format of dirname/filename [dirname\\filename in Windows "
                             "system], but received model_path is empty string.")
    if "pickle_protocol" in configs:
        protocol = configs["pickle_protocol"]
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' instead.")
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    dir_name = os.path.dirname(model_path)
    if dir_name and not os.path.exists(dir_name):
        os.makedirs(dir_name)
    scope = global_scope()

    def value(v):
        t = scope._get(v.name)
        if t is None:
            raise RuntimeError(f"paddle.static.save: variable {v.name} has no value in the scope (run the startup "
                               "program first)")
        return np.array(t)

    params = {p.name: value(p) for p in program.list_vars() if is_parameter(p)}
    with open(model_path + ".pdparams", "wb") as f:
        pickle.dump(_slice_big(params, protocol), f, protocol=protocol)
    opt = {p.name: value(p) for p in program.list_vars() if is_belong_to_optimizer(p)}
    with open(model_path + ".pdopt", "wb") as f:
        pickle.dump(opt, f, protocol=protocol)
    main_program = program.clone()
    if not main_program.desc._has_version():
        main_program.desc._set_version(_PROGRAM_VERSION)
    with open(model_path + ".pdmodel", "wb") as f:
        f.write(main_program.desc.serialize_to_string())


@_static_only
def load(program, model_path, executor=None, var_list=None):
    """Sets program's parameters and optimizer variables in the global scope from what
    paddle.static.save wrote (model_path with or without the .pdparams/.pdopt/.pdmodel suffix), or
    from files of save_vars/save_params/save_persistables (a directory, or one combined file with
    var_list)."""
    from .executor import Executor
    assert executor is None or isinstance(executor, Executor)
    scope = global_scope()
    model_prefix = _model_prefix(model_path)
    parameter_file_name = model_prefix + ".pdparams"
    if not os.path.exists(parameter_file_name):
        if executor is None:
            raise ValueError("executor is required when loading model file saved with [ save_params, "
                             "save_persistables, save_vars ]")
        names = None if var_list is None else [v.name for v in var_list]
        if os.path.isdir(model_path):
            files = set()
            for root, _, fs in os.walk(model_path, topdown=False):
                for f in fs:
                    files.add(os.path.join(root, f).replace("\\", "/"))
            loaded = []
            for v in program.list_vars():
                p = os.path.join(model_path, v.name).replace("\\", "/")
                if p in files and (names is None or v.name in names):
                    loaded.append(v)
                    files.remove(p)
            if files:
                _logger.warning("variable file [ %s ] not used" % " ".join(sorted(files)))
            _load_separate(loaded, model_path, scope)
            return
        if os.path.isfile(model_path):
            if var_list is None:
                raise ValueError("var_list is required when loading model file saved with [ save_params, "
                                 "save_persistables, save_vars ]")
            known = {v.name for v in program.list_vars()}
            for v in var_list:
                if v.name not in known:
                    raise LookupError(f"loaded var [{v.name}] is not in program variable list")
            _load_combined(list(var_list), load_from_file(model_path), model_path, scope)
            return
        raise ValueError(f"There is no file named {parameter_file_name}, nor a directory or file {model_path}")
    params = [v for v in program.list_vars() if is_parameter(v)]
    d = _pickle_load(parameter_file_name)
    for v in params:
        assert v.name in d, f"Can not find [{v.name}] in model file [{parameter_file_name}]"
        _set_var(v, d[v.name], scope)
    opt = [v for v in program.list_vars() if is_belong_to_optimizer(v)]
    if opt:
        opt_file_name = model_prefix + ".pdopt"
        assert os.path.exists(opt_file_name), f"Optimizer file [{opt_file_name}] not exits"
        d = _pickle_load(opt_file_name)
        for v in opt:
            assert v.name in d, f"Can not find [{v.name}] in model file [{opt_file_name}]"
            _set_var(v, d[v.name], scope)


def load_program_state(model_path, var_list=None):
    """{name: ndarray} of what paddle.static.save wrote (parameters and optimizer variables), or of
    save_vars-style files (a directory of per-variable files, or a combined file with var_list)."""
    model_prefix = _model_prefix(model_path)
    parameter_file_name = model_prefix + ".pdparams"
    if not os.path.exists(parameter_file_name):
        if var_list is None and os.path.isfile(model_path):
            raise ValueError("var_list can not be None when model_path is a file type")
        res = {}
        if os.path.isfile(model_path):
            data = load_from_file(model_path)
            by_name = {}
            for v in var_list:
                if not isinstance(v, Variable):
                    raise TypeError("value in var_list must be variable")
                by_name.setdefault(v.name, v)
            names = sorted(by_name)
            try:
                tensors, end = _C.tensor_stream_load(data, model_path, with_lod=True, count=len(names))
                if end != len(data):
                    raise ValueError("extra bytes")
            except (ValueError, NotImplementedError, MemoryError) as e:
                raise RuntimeError(f"Failed to load model/variables `{model_path}`, please make sure model/variables "
                                   f"file is saved with the following APIs: save_params, save_persistables, "
                                   f"save_vars. ({e})") from None
            for n, (t, _) in zip(names, tensors):
                res[n] = np.array(t)
            return res
        if not os.path.isdir(model_path):
            raise ValueError(f"Parameter file [{parameter_file_name}] not exits")
        if var_list is not None:
            wanted = []
            for v in var_list:
                if not isinstance(v, Variable):
                    raise TypeError("value in var_list must be variable")
                wanted.append(v.name)
            strict = True
        else:
            wanted = []
            for root, _, fs in os.walk(model_path, topdown=False):
                for f in fs:
                    wanted.append(os.path.relpath(os.path.join(root, f), model_path).replace("\\", "/"))
            strict = False
        for name in wanted:
            path = os.path.join(model_path, name)
            try:
                data = load_from_file(path)
                tensors, end = _C.tensor_stream_load(data, path, with_lod=True, count=1)
                if end != len(data):
                    raise ValueError("extra bytes")
            except (ValueError, NotImplementedError, MemoryError) as e:
                msg = (f"Failed to load model/variables `{name}`, please make sure model/variables file is saved "
                       f"with the following APIs: save_params, save_persistables, save_vars. ({e})")
                if strict:
                    raise RuntimeError(msg) from None
                warnings.warn(msg, RuntimeWarning)
                continue
            res[name] = np.array(tensors[0][0])
        return res
    para_dict = _pickle_load(parameter_file_name)
    opt_file_name = model_prefix + ".pdopt"
    if os.path.exists(opt_file_name):
        para_dict.update(_pickle_load(opt_file_name))
    return para_dict


@_static_only
def set_program_state(program, state_dict):
    """Sets program's persistable variables in the global scope from state_dict ({name: ndarray}, e.g.
    load_program_state's result); shapes and dtypes must match the current values."""
    from ..framework.io import _unslice_big
    state_dict = _unslice_big(dict(state_dict))
    scope = global_scope()
    used = set()
    for para in _persistables(program):
        cur = scope._get(para.name)
        assert cur is not None, f"Variable [ {para.name} ] Not found, Please make sure run startup program"
        if para.name not in state_dict:
            continue
        orig = np.array(cur)
        new = np.asarray(state_dict[para.name].numpy() if isinstance(state_dict[para.name], _C.Tensor)
                         else state_dict[para.name])
        assert orig.shape == new.shape, (
            f"Parameter's shape does not match, the Program requires a parameter with the shape of ({orig.shape}), "
            f"while the loaded parameter (namely [ {para.name} ]) has a shape of  ({new.shape}).")
        assert orig.dtype == new.dtype, (
            f"Parameter's data type does not match, the Program requires a parameter with a dtype of ({orig.dtype}), "
            f"while the loaded parameter (namely [ {para.name} ]) has a dtype of  ({new.dtype}).")
        scope._set(para.name, _C.from_buffer(np.ascontiguousarray(new)))
        used.add(para.name)
    unused = [k for k in state_dict if k not in used]
    if unused:
        warnings.warn("This list is not set, Because of Paramerter not found in program. There are: {}".format(
            " ".join(unused)))
