"""paddle.save / paddle.load in Paddle 2.x's file format: a pickle (protocol 2-4) of
{structured name: numpy array} plus the 'StructuredToParameterName@@' table for state dicts;
Tensors nested in other containers are (name, ndarray) tuples; a single Tensor is one such
tuple. Loading uses a restricted unpickler that only rebuilds numpy arrays (and the bytes
helper protocol 2 needs), so a file can never run code; corrupt files raise errors. Writes go
to a temporary file that is renamed into place (atomic)."""
import collections
import io
import os
import pickle

import numpy as np

from .. import _C

try:  # numpy >= 2 keeps these in numpy._core (numpy.core is a deprecated alias there)
    from numpy._core.multiarray import _reconstruct as _np_reconstruct, scalar as _np_scalar
except ImportError:  # numpy 1.x
    from numpy.core.multiarray import _reconstruct as _np_reconstruct, scalar as _np_scalar

Tensor = _C.Tensor
NAME_TABLE = "StructuredToParameterName@@"
BIG_PARAM = "UnpackBigParamInfor@@"
_MAX_BYTES_PROTO23 = 2 ** 30  # arrays bigger than this are sliced for protocols 2/3


def _np_of(t):
    return t.numpy()


def _to_saveable(obj, top=True):
    if isinstance(obj, Tensor):
        return (obj.name, _np_of(obj))
    if isinstance(obj, dict):
        items = obj.items()
        if top and obj and all(isinstance(v, Tensor) for v in obj.values()):
            out = collections.OrderedDict() if isinstance(obj, collections.OrderedDict) else {}
            table = {}
            for k, v in items:
                out[k] = _np_of(v)
                table[k] = v.name
            out[NAME_TABLE] = table
            return out
        return type(obj)((k, _to_saveable(v, False)) for k, v in items) if isinstance(
            obj, collections.OrderedDict) else {k: _to_saveable(v, False) for k, v in items}
    if isinstance(obj, list):
        return [_to_saveable(v, False) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_to_saveable(v, False) for v in obj)
    if hasattr(obj, "state_dict") and callable(obj.state_dict) and not isinstance(obj, type):
        raise TypeError(f"paddle.save: pass {type(obj).__name__}.state_dict(), not the object itself")
    return obj


def _slice_big(d, protocol):
    """Protocols 2/3 cannot pickle huge arrays in one piece: split them as Paddle does."""
    if protocol >= 4 or not isinstance(d, dict):
        return d
    info = {}
    out = type(d)()
    for k, v in d.items():
        if isinstance(v, np.ndarray) and v.nbytes > _MAX_BYTES_PROTO23:
            flat = v.reshape(-1)
            per = max(1, _MAX_BYTES_PROTO23 // v.itemsize)
            names = []
            for i in range(0, flat.size, per):
                key = f"{k}@@.{i // per}"
                out[key] = flat[i:i + per]
                names.append(key)
            info[k] = {"OriginShape": v.shape, "slices": names}
        else:
            out[k] = v
    if info:
        out[BIG_PARAM] = info
    return out


def save(obj, path, protocol=4, **configs):
    """Saves a state dict, Tensor or nested container of Tensors/numbers to path (pickle)."""
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 2 <= protocol <= 4:
        raise ValueError(f"paddle.save: protocol must be an int in [2, 4], received {protocol!r}")
    unknown = sorted(set(configs) - {"use_binary_format", "pickle_protocol"})
    if unknown:
        raise ValueError(f"paddle.save: the additional config ({', '.join(unknown)}) is not supported")
    if configs.get("use_binary_format"):
        _save_binary(obj, path)
        return
    if not isinstance(path, (str, os.PathLike)):
        if hasattr(path, "write"):
            pickle.dump(_slice_big(_to_saveable(obj), protocol), path, protocol=protocol)
            return
        raise TypeError(f"paddle.save: path must be a str or a file object, received {type(path).__name__}")
    path = os.fspath(path)
    if path == "" or path.endswith(("/", os.sep)):
        raise ValueError(f"paddle.save: path must be a file name, received {path!r}")
    data = _slice_big(_to_saveable(obj), protocol)
    _atomic_write(path, lambda f: pickle.dump(data, f, protocol=protocol))


def _atomic_write(path, write):
    """Writes through a temporary file, fsync and rename: a crash never leaves a truncated file."""
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _save_binary(obj, path):
    """use_binary_format=True: one Tensor as Paddle's LoDTensor stream (the .pdiparams layout)."""
    from .. import _C
    if not isinstance(obj, _C.Tensor):
        raise NotImplementedError("paddle.save(use_binary_format=True) expects a Tensor, but received "
                                  f"{type(obj).__name__}")
    blob = _C.tensor_stream_dump([obj])
    if hasattr(path, "write"):
        path.write(blob)
        return
    path = os.fspath(path)
    if path == "" or path.endswith(("/", os.sep)):
        raise ValueError(f"paddle.save: path must be a file name, received {path!r}")
    _atomic_write(path, lambda f: f.write(blob))


def _load_binary(raw, where, return_numpy):
    """A file that starts like a LoDTensor stream (u32 version 0), not a pickle."""
    from .. import _C
    ts = _C.tensor_stream_load(raw, str(where))
    if len(ts) != 1:
        raise ValueError(f"paddle.load: {where} holds {len(ts)} tensors in Paddle's binary stream (a combined "
                         "parameter file such as .pdiparams); load it together with its program "
                         "(paddle.static.load_inference_model / paddle.jit.load)")
    return ts[0].numpy() if return_numpy else ts[0]


_PLAIN_KINDS = frozenset("biufc")  # bool, int, uint, float, complex


class _DtypeSpec:
    """What the restricted unpickler builds for `numpy.dtype(...)` + BUILD(state): the arguments
    and the state, kept as plain data. numpy's own dtype.__setstate__ is never given file data
    (it trusts its input: a state with a str where it expects names, or fields with offsets past
    the item, crashes it or makes a dtype that reads outside a buffer); _plain_dtype turns a spec
    into a real dtype only after checking it describes a plain number type."""

    def __init__(self, *args):
        self.args = args
        self.state = None

    def __setstate__(self, state):
        self.state = state


def _dtype_of_spec(spec, where):
    bad = ValueError(f"{where}: refusing an array dtype that is not a plain numeric dtype (malformed "
                     "numpy.dtype in the file)")
    if not spec.args or not isinstance(spec.args[0], str) or len(spec.args) > 3:
        raise bad
    try:
        d = np.dtype(spec.args[0])
    except (TypeError, ValueError):
        raise bad from None
    st = spec.state
    if st is None:
        return d
    # numpy writes (3, byteorder, subarray, names, fields, elsize, alignment, flags) (version 4
    # adds metadata); a plain number type has no subarray, names or fields
    if not isinstance(st, tuple) or len(st) not in (8, 9) or st[0] not in (3, 4) \
            or st[1] not in ("<", ">", "|", "=") or st[2] is not None or st[3] is not None \
            or st[4] is not None:
        raise ValueError(f"{where}: refusing to load an array of dtype {spec.args[0]!r} with structured, "
                         "subarray or malformed state: only plain numeric dtypes (bool, integers, floats, "
                         "complex) are accepted (no structured, subarray, object or void dtypes)")
    if st[1] in ("<", ">") and d.itemsize > 1:
        d = d.newbyteorder(st[1])
    return d  # elsize/alignment/flags of the file are ignored: rebuilt from the type code


def _plain_dtype(d, where="paddle.load"):
    """The canonical numpy dtype equal to d when d is a plain number type (bool, integer, float,
    complex; any byte order); ValueError otherwise. A pickle can hand numpy.dtype any state
    (structured fields with offsets outside the item, subarrays, object or void items): such a
    dtype could read memory outside an array's buffer, so it never reaches an array or scalar."""
    if isinstance(d, _DtypeSpec):
        d = _dtype_of_spec(d, where)
    if not isinstance(d, np.dtype):
        try:
            d = np.dtype(d) if isinstance(d, (str, bytes)) else None
        except (TypeError, ValueError):
            d = None
        if d is None:
            raise ValueError(f"{where}: refusing an array dtype that is not a numpy dtype")
    if d.kind not in _PLAIN_KINDS or d.fields is not None or d.subdtype is not None or d.hasobject \
            or d.names is not None:
        raise ValueError(f"{where}: refusing to load an array of dtype {d!r}: only plain numeric dtypes "
                         "(bool, integers, floats, complex) are accepted (no structured, subarray, object "
                         "or void dtypes)")
    canon = np.dtype(d.str)  # rebuilt from its type code: no state from the file survives
    if canon.itemsize != d.itemsize or canon.kind != d.kind or canon.str != d.str:
        raise ValueError(f"{where}: refusing to load an array of dtype {d!r} (inconsistent item size)")
    return canon


class _SafeArray(np.ndarray):
    """What the restricted unpickler builds arrays as: its __setstate__ checks the dtype in the
    state before numpy uses it (ndarray.__setstate__ would accept any). Viewed back as a plain
    ndarray after loading."""

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            raise ValueError("paddle.load: malformed array state in the file")
        st = list(state)
        i = 2 if len(st) == 5 else 1
        st[i] = _plain_dtype(st[i])
        np.ndarray.__setstate__(self, tuple(st))


def _safe_reconstruct(cls, shape, dtype):
    if cls is not np.ndarray and cls is not _SafeArray:
        raise pickle.UnpicklingError("paddle.load: refusing to rebuild an array of a type other than "
                                     "numpy.ndarray")
    if not isinstance(shape, tuple) or len(shape) != 1 or shape[0] != 0:
        raise ValueError("paddle.load: malformed array in the file (numpy writes arrays as an empty array "
                         "and its state)")
    return _np_reconstruct(_SafeArray, shape, _plain_dtype(dtype))


def _safe_scalar(dtype, *args):
    return _np_scalar(_plain_dtype(dtype), *args)


def _safe_ndarray(*args, **kwargs):
    raise pickle.UnpicklingError("paddle.load: refusing to call numpy.ndarray directly from a pickle")


class _SafeUnpickler(pickle.Unpickler):
    _ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
        ("collections", "OrderedDict"), ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "scalar"), ("__builtin__", "bytes"), ("builtins", "bytes"),
    }

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            if module.startswith("numpy") and name == "_reconstruct":
                return _safe_reconstruct
            if module.startswith("numpy") and name == "scalar":
                return _safe_scalar
            if module == "numpy" and name == "ndarray":
                return np.ndarray  # only ever passed to _reconstruct (which checks it)
            if module == "numpy":
                return _DtypeSpec  # a real dtype only once _plain_dtype has checked it
            if module == "_codecs":
                return _codecs_encode
            if name == "bytes":
                return _empty_bytes  # protocol 2 writes b'' as bytes()
            return collections.OrderedDict
        raise pickle.UnpicklingError(
            f"paddle.load: refusing to load {module}.{name}: the file references code other than "
            "numpy arrays (paddle.load never executes code from a pickle)")

    def load(self):
        return _plain_result(super().load())


def _empty_bytes(*args):
    if args:
        raise ValueError("paddle.load: malformed bytes object in the file")
    return b""


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    """Protocol 2 writes bytes as _codecs.encode(str, 'latin1'); only text encodings are honoured
    (codecs.encode would also run any codec a file names)."""
    import codecs
    if not isinstance(obj, str) or not isinstance(encoding, str) or not isinstance(errors, str):
        raise ValueError("paddle.load: malformed bytes object in the file")
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"paddle.load: unknown text encoding {encoding!r} in the file") from None
    if not getattr(info, "_is_text_encoding", True):
        raise ValueError(f"paddle.load: refusing the non-text codec {encoding!r} in the file")
    try:
        return codecs.encode(obj, encoding, errors)
    except (UnicodeError, LookupError) as e:
        raise ValueError(f"paddle.load: malformed bytes object in the file ({e})") from None


def _plain_result(obj, depth=0):
    """Turns every _SafeArray back into a plain ndarray and refuses what the checks above could
    not see (a dtype object with fields returned on its own)."""
    if depth > 200:
        raise ValueError("paddle.load: the file nests containers too deeply")
    if isinstance(obj, np.ndarray):
        _plain_dtype(obj.dtype)
        return obj.view(np.ndarray) if type(obj) is not np.ndarray else obj
    if isinstance(obj, (np.dtype, _DtypeSpec)):
        return _plain_dtype(obj)
    if isinstance(obj, np.generic):
        _plain_dtype(obj.dtype)
        return obj
    if isinstance(obj, dict):
        for k in list(obj.keys()):
            obj[k] = _plain_result(obj[k], depth + 1)
        return obj
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            obj[i] = _plain_result(v, depth + 1)
        return obj
    if isinstance(obj, tuple):
        return tuple(_plain_result(v, depth + 1) for v in obj)
    return obj


_PROTO5_OPS = frozenset(("BYTEARRAY8", "NEXT_BUFFER", "READONLY_BUFFER"))


def _check_opcodes(raw, allow=()):
    """Walks the opcodes once before unpickling: Paddle writes protocols 2-4, and CPython's
    unpickler mishandles a protocol-5 BYTEARRAY8 with a length past the end (it frees a bytearray
    that still has a buffer exported), and it grows its memo table to twice the largest index a
    PUT names (a 70-byte file asking for memo slot 2^31 makes it allocate and clear 32 GiB).
    Pickle writers number memo slots from 0 as they store them, so an index beyond the number of
    stores so far (with a margin) is refused. `allow`: protocol-5 opcodes a reader accepts (CIFAR
    batches written with protocol 5 hold BYTEARRAY8; genops has checked its length by then)."""
    import pickletools
    stores = 0
    for op, arg, _pos in pickletools.genops(io.BytesIO(raw)):
        if op.name in _PROTO5_OPS and op.name not in allow:
            raise ValueError(f"opcode {op.name} (pickle protocol 5) is not in any Paddle file format")
        if op.name in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"):
            if op.name != "MEMOIZE" and not (isinstance(arg, int) and 0 <= arg <= stores + 1024):
                raise ValueError(f"memo index {arg} of {op.name} is out of range ({stores} objects stored "
                                 "before it)")
            stores += 1


def _unpickle(raw, what):
    """The restricted unpickler over raw bytes: refusals stay pickle.UnpicklingError, every other
    failure of a malformed file (truncation, bad opcodes, unknown encodings, huge sizes ...) is a
    ValueError naming `what`."""
    try:
        _check_opcodes(raw)
        return _SafeUnpickler(io.BytesIO(raw), encoding="latin1").load()
    except pickle.UnpicklingError as e:
        if "refusing" in str(e):
            raise
        raise ValueError(f"{what} is not a valid Paddle file (corrupt pickle: {e})") from None
    except ValueError as e:
        if "refusing" in str(e):
            raise
        raise ValueError(f"{what} is not a valid Paddle file ({e})") from None
    except RecursionError:
        raise ValueError(f"{what} is not a valid Paddle file (nested too deeply)") from None
    except Exception as e:  # EOFError, TypeError, LookupError, struct.error, MemoryError ...
        raise ValueError(f"{what} is not a valid Paddle file ({type(e).__name__}: {e})") from None


def _unslice_big(d):
    if not isinstance(d, dict) or BIG_PARAM not in d:
        return d
    info = d.pop(BIG_PARAM)
    for k, meta in info.items():
        parts = [d.pop(s) for s in meta["slices"]]
        d[k] = np.concatenate(parts).reshape(meta["OriginShape"])
    return d


def _loaded_tensor(a):
    """A loaded array as a Tensor holding its data. In static mode too: Paddle's load gives a
    LoDTensor there, while paddle.to_tensor would record a constant of the program (a Variable)."""
    from ..tensor.to_tensor import to_tensor, _from_numpy
    if _C._static_active() is None:
        return to_tensor(a)
    t = _from_numpy(a)
    t.stop_gradient = True
    return t


def _from_loaded(obj, return_numpy, top=True):
    if isinstance(obj, np.ndarray):
        return obj if return_numpy else _loaded_tensor(obj)
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray):
        if return_numpy:
            return obj[1]
        t = _loaded_tensor(obj[1])
        t.name = obj[0]
        return t
    if isinstance(obj, dict):
        items = [(k, _from_loaded(v, return_numpy, False)) for k, v in obj.items()]
        return collections.OrderedDict(items) if isinstance(obj, collections.OrderedDict) else dict(items)
    if isinstance(obj, list):
        return [_from_loaded(v, return_numpy, False) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_from_loaded(v, return_numpy, False) for v in obj)
    return obj


def load(path, **configs):
    """Loads what paddle.save wrote (Tensors, or numpy arrays with return_numpy=True)."""
    unknown = sorted(set(configs) - {"model_filename", "params_filename", "keep_name_table", "return_numpy"})
    if unknown:
        raise ValueError(f"paddle.load: the additional config ({', '.join(unknown)}) is not supported")
    return_numpy = bool(configs.get("return_numpy", False))
    keep_names = bool(configs.get("keep_name_table", False))
    if hasattr(path, "read"):
        raw = path.read()
        where = "the file object"
    else:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"paddle.load: path must be a str, received {type(path).__name__}")
        path = os.fspath(path)
        if not os.path.exists(path):
            raise ValueError(f"paddle.load: the path ({path}) to load does not exist")
        if os.path.isdir(path):
            raise ValueError(f"paddle.load: {path} is a directory; pass the file (e.g. model.pdparams)")
        with open(path, "rb") as f:
            raw = f.read()
        where = path
    if raw[:4] == b"\0\0\0\0":
        return _load_binary(raw, where, return_numpy)
    data = _unpickle(raw, f"paddle.load: {where}")
    data = _unslice_big(data)
    if isinstance(data, dict) and NAME_TABLE in data and not keep_names:
        data = type(data)((k, v) for k, v in data.items() if k != NAME_TABLE)
    if isinstance(data, dict) and NAME_TABLE in data:
        table = data.pop(NAME_TABLE)
        out = _from_loaded(data, return_numpy)
        out[NAME_TABLE] = table
        return out
    return _from_loaded(data, return_numpy)


__all__ = ["save", "load"]
