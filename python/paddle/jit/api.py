"""paddle.jit.save / paddle.jit.load: a to_static Layer (or function) -> path.pdmodel (the
inference program, Paddle's ProgramDesc), path.pdiparams (its persistable variables, one
LoDTensor stream sorted by name) and path.pdiparams.info (a protocol-2 pickle: var name ->
structured_name / stop_gradient / trainable, what Paddle writes); other converted methods go
to path.<method>.pdmodel/.pdiparams. load reads them back into a TranslatedLayer."""
import glob
import os
import pickle

from .. import _C
from ..static import framework as _fw
from ..static.input import InputSpec
from .program_translator import StaticFunction, _static_mode, to_static

Tensor = _C.Tensor
INFER_MODEL_SUFFIX = ".pdmodel"
INFER_PARAMS_SUFFIX = ".pdiparams"
INFER_PARAMS_INFO_SUFFIX = ".pdiparams.info"
_SUPPORTED_SAVE = ("output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward",
                   "input_names_after_prune", "skip_prune_program")
_SUPPORTED_LOAD = ("model_filename", "params_filename")


def _static_io():
    """paddle.static's model-file functions (program serialization is C: pd_program_io)."""
    from .. import static
    if not hasattr(static, "save_inference_model") or not hasattr(_fw.Program, "parse_from_string"):
        raise NotImplementedError("paddle.jit.save/load need Paddle's program files (.pdmodel/.pdiparams: "
                                  "paddle.static.save_inference_model / Program.parse_from_string), which this "
                                  "build does not have yet")
    from ..static import io
    return io


def _check_path(path):
    if not isinstance(path, str):
        raise TypeError(f"The input path MUST be format of string, but received {type(path).__name__}.")
    if path == "" or os.path.basename(path) == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in Windows "
                         "system], but received file_prefix is empty string.")
    d = os.path.dirname(path)
    if d and not os.path.exists(d):
        os.makedirs(d)


def _to_specs(input_spec):
    if input_spec is None:
        return None
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"The input input_spec should be 'list', but received input_spec's type is "
                        f"{type(input_spec).__name__}.")
    out = []
    for s in input_spec:
        if isinstance(s, Tensor) and not _C._is_variable(s):
            out.append(InputSpec.from_tensor(s, name=getattr(s, "name", None)))
        elif isinstance(s, (list, tuple)):
            out.append(type(s)(_to_specs(s)))
        else:
            out.append(s)
    return out


def _methods(layer, input_spec):
    """[(method name, StaticFunction)] to save from a Layer."""
    out = []
    own = layer.__dict__.get("forward")
    for name in dir(type(layer)):
        attr = getattr(type(layer), name, None)
        if isinstance(attr, StaticFunction):
            out.append((name, getattr(layer, name)))
    if isinstance(own, StaticFunction):
        out = [(n, f) for n, f in out if n != "forward"] + [("forward", own)]
    names = [n for n, _ in out]
    if "forward" not in names and input_spec is not None:
        out.append(("forward", StaticFunction(layer.forward, input_spec)))
    return out


def _state_names(layer):
    names = {}
    if layer is None:
        return names
    for k, v in layer.state_dict().items():  # a tensor under several keys (RNN's flat and per-cell
        n = getattr(v, "name", None)          # names) takes the last one, as Paddle's jit.save does
        if n is not None:
            names[n] = k
    return names


def save(layer, path, input_spec=None, **configs):
    """Saves a Layer (its to_static methods; forward converted with input_spec when given) or a
    to_static function as an inference model at path."""
    from ..nn import Layer
    from ..static.executor import Executor, Scope, scope_guard
    for k in configs:
        if k not in _SUPPORTED_SAVE:
            raise ValueError(f"The additional config ({k}) of `paddle.jit.save` is not supported.")
    from .program_translator import ProgramTranslator
    if not ProgramTranslator().enable_to_static:
        raise RuntimeError("The paddle.jit.save doesn't work when setting ProgramTranslator.enable to False.")
    if not (isinstance(layer, (Layer, StaticFunction)) or callable(layer)):
        raise TypeError(f"The input of paddle.jit.save should be 'Layer' or 'Function', but received input type "
                        f"is {type(layer).__name__}.")
    _check_path(path)
    io = _static_io()
    specs = _to_specs(input_spec)
    if isinstance(layer, Layer):
        methods = _methods(layer, specs)
        if not methods:
            raise RuntimeError("paddle.jit.save: the Layer has no to_static method and no input_spec was given; "
                               "decorate forward with @paddle.jit.to_static or pass input_spec")
        owner = layer
    else:
        sf = layer if isinstance(layer, StaticFunction) else to_static(layer)
        methods = [("forward", sf)]
        owner = sf._class_instance
    state_names = _state_names(owner)
    output_spec = configs.get("output_spec")
    clip_extra = configs.get("clip_extra", True)
    info = {}
    for name, sf in methods:
        if name == "forward" and specs is not None:
            cp = sf.concrete_program_specify_input_spec(specs)
        else:
            cp = sf.concrete_program
        prog = cp.main_program.clone()
        gb = prog.global_block()
        feeds = [gb.var(v.name) for v in cp.inputs]
        names_after = configs.get("input_names_after_prune")
        if names_after is not None:
            feeds = [v for v in feeds if v.name in names_after]
        outs = cp.outputs
        if output_spec is not None and name == "forward":
            wanted = {getattr(v, "name", None) for v in output_spec}
            outs = [v for v in outs if v.name in wanted]
            if not outs:
                raise ValueError("paddle.jit.save: none of output_spec is an output of the program")
        fetches = [gb.var(v.name) for v in outs]
        prefix = path if name == "forward" else f"{path}.{name}"
        scope = Scope()
        for n, t in cp.parameters.items():
            scope._set(n, t)
        with _static_mode(prog, _fw.Program()), scope_guard(scope):
            io.save_inference_model(prefix, feeds, fetches, Executor(), program=prog, clip_extra=clip_extra)
        for n, t in cp.parameters.items():
            from ..framework.param import Parameter
            e = {}
            if n in state_names:
                e["structured_name"] = state_names[n]
            e["stop_gradient"] = bool(t.stop_gradient)
            if isinstance(t, Parameter):
                e["trainable"] = not bool(t.stop_gradient)
            info[n] = e
    if info and (isinstance(layer, Layer) or any(True for _ in info)):
        with open(path + INFER_PARAMS_INFO_SUFFIX, "wb") as f:
            pickle.dump(info, f, protocol=2)


# ---------------------------------------------------------------------------------- load
def _read(path):
    with open(path, "rb") as f:
        return f.read()


def load_program_files(model_path, params_path):
    """(Program, feed names, fetch names, {persistable name: tensor}) of one saved model."""
    _static_io()
    program = _fw.Program.parse_from_string(_read(model_path))
    feed_names = list(program.desc.get_feed_target_names())
    fetch_names = list(program.desc.get_fetch_target_names())
    gb = program.global_block().desc
    names = sorted({d.name() for d in gb.all_vars() if d.persistable() and d.type() not in (9, 10, 17, 8)})
    tensors = {}
    if names:
        if params_path is None or not os.path.exists(params_path):
            raise ValueError(f"The parameter file {params_path} of the model {model_path} does not exist")
        data = _read(params_path)
        items, end = _C.tensor_stream_load(data, str(params_path), with_lod=True, count=len(names))
        if end != len(data):
            raise ValueError(f"{params_path}: {len(data) - end} bytes are left after the {len(names)} variables "
                             f"the program {model_path} loads")
        for n, (t, _) in zip(names, items):
            tensors[n] = t
    return program, feed_names, fetch_names, tensors


def load(path, **configs):
    """Loads what paddle.jit.save (or save_inference_model) wrote at path: a TranslatedLayer."""
    from .translated_layer import TranslatedLayer
    for k in configs:
        if k not in _SUPPORTED_LOAD:
            raise ValueError(f"The additional config ({k}) of `paddle.jit.load` is not supported.")
    mf, pf = configs.get("model_filename"), configs.get("params_filename")
    if os.path.isdir(path) and (mf or pf or os.path.exists(os.path.join(path, "__model__"))):
        model_path = os.path.join(path, mf or "__model__")
        params_path = os.path.join(path, pf) if pf else None
        methods = {"forward": (model_path, params_path)}
        info_path = None
    else:
        model_path = path + INFER_MODEL_SUFFIX
        if not os.path.exists(model_path):
            raise ValueError(f"The ``path`` ({path}) to load model not exists. Please make sure that *.pdmodel "
                             "exists.")
        methods = {"forward": (model_path, path + INFER_PARAMS_SUFFIX)}
        for f in glob.glob(glob.escape(path) + ".*" + INFER_MODEL_SUFFIX):
            method = f[len(path) + 1:-len(INFER_MODEL_SUFFIX)]
            if method and "." not in method:
                methods[method] = (f, f[:-len(INFER_MODEL_SUFFIX)] + INFER_PARAMS_SUFFIX)
        info_path = path + INFER_PARAMS_INFO_SUFFIX
    info = {}
    if info_path and os.path.exists(info_path):
        from ..framework.io import _SafeUnpickler
        import io as _io
        info = _SafeUnpickler(_io.BytesIO(_read(info_path)), encoding="latin1").load()
        if not isinstance(info, dict):
            raise ValueError(f"{info_path} does not hold a dict")
    loaded = {}
    for m, (mp, pp) in methods.items():
        if pp is not None and not os.path.exists(pp) and m == "forward" and os.path.isdir(path):
            pp = None
        loaded[m] = load_program_files(mp, pp) if pp is not None or m != "forward" or not os.path.isdir(path) \
            else _load_separate(mp, path)
    return TranslatedLayer._construct(loaded, info)


def _load_separate(model_path, dirname):
    """1.x layout: dirname/__model__ and one file per persistable variable."""
    _static_io()
    program = _fw.Program.parse_from_string(_read(model_path))
    gb = program.global_block().desc
    tensors = {}
    for d in gb.all_vars():
        if d.persistable() and d.type() not in (9, 10, 17, 8):
            p = os.path.join(dirname, d.name())
            data = _read(p)
            items, _ = _C.tensor_stream_load(data, p, with_lod=True, count=1)
            tensors[d.name()] = items[0][0]
    return (program, list(program.desc.get_feed_target_names()), list(program.desc.get_fetch_target_names()),
            tensors)
