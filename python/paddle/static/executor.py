"""paddle.static's runtime: Executor (runs a Program against a Scope through the C executor,
csrc/graph/pd_executor.c), Scope / global_scope / scope_guard, the LoDTensor feed/fetch type,
CompiledProgram, BuildStrategy, ExecutionStrategy, ParallelExecutor and the place lists."""
import contextlib
import os
import warnings

import numpy as np

from .. import _C
from ..framework.place import CPUPlace
from .framework import Program, Variable, default_main_program

Tensor = _C.Tensor


# ---------------------------------------------------------------------------------- LoDTensor
class LoDTensor:
    """A tensor with its level-of-detail offsets (Paddle's LoDTensor) for feeds and fetches."""

    def __init__(self, array=None, lod=None):
        self._array = None if array is None else np.asarray(array)
        self._lod = [list(map(int, lv)) for lv in (lod or [])]

    def set(self, array, place=None):
        self._array = np.ascontiguousarray(np.asarray(array))

    def shape(self):
        return list(self._array.shape) if self._array is not None else []

    def _dtype(self):
        return self._array.dtype

    def lod(self):
        return [list(lv) for lv in self._lod]

    def set_lod(self, lod):
        self._lod = [list(map(int, lv)) for lv in lod]

    def recursive_sequence_lengths(self):
        return [[b - a for a, b in zip(lv[:-1], lv[1:])] for lv in self._lod]

    def set_recursive_sequence_lengths(self, lengths):
        lod = []
        for lv in lengths:
            off = [0]
            for n in lv:
                off.append(off[-1] + int(n))
            lod.append(off)
        self._lod = lod

    def has_valid_recursive_sequence_lengths(self):
        if not self._lod:
            return True
        rows = self._array.shape[0] if self._array is not None and self._array.ndim else 0
        for i, lv in enumerate(self._lod):
            if not lv or lv[0] != 0 or any(b < a for a, b in zip(lv[:-1], lv[1:])):
                return False
            end = len(self._lod[i + 1]) - 1 if i + 1 < len(self._lod) else rows
            if lv[-1] != end:
                return False
        return True

    def __array__(self, dtype=None, copy=None):
        a = self._array
        return a if dtype is None else a.astype(dtype)

    def numpy(self):
        return self._array

    def _numel(self):
        return int(self._array.size)

    def __repr__(self):
        return f"LoDTensor(lod={self._lod}, data={self._array!r})"


def create_lod_tensor(data, recursive_seq_lens, place=None):
    """A LoDTensor from data (numpy array or list of sequences) and sequence lengths."""
    if isinstance(data, list) and data and isinstance(data[0], (list, tuple)):
        flat = [x for seq in data for x in seq]
        arr = np.array(flat).reshape(len(flat), 1)
        if arr.dtype == np.int32 or arr.dtype == np.int64:
            arr = arr.astype("int64")
    else:
        arr = np.asarray(data.numpy() if isinstance(data, (Tensor, LoDTensor)) else data)
    t = LoDTensor(arr)
    t.set_recursive_sequence_lengths(recursive_seq_lens)
    if not t.has_valid_recursive_sequence_lengths():
        raise ValueError(f"create_lod_tensor: the sequence lengths {recursive_seq_lens} do not match the "
                         f"data of shape {list(arr.shape)}")
    return t


# ---------------------------------------------------------------------------------- scopes
class _ScopeTensor:
    """The tensor of a scope variable (Paddle's LoDTensor view of scope.find_var(n).get_tensor())."""

    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def _t(self):
        return self._scope._core._get(self._name)

    def set(self, array, place=None):
        lod = self._scope._core._get_lod(self._name)
        arr = np.asarray(array.numpy() if isinstance(array, (Tensor, LoDTensor)) else array)
        t = _C.from_buffer(_contiguous(arr))
        keep = lod if (lod and arr.ndim and lod[-1][-1] == arr.shape[0]) else None
        self._scope._core._set(self._name, t, keep)

    def set_lod(self, lod):
        t = self._t()
        if t is None:
            raise RuntimeError(f"variable {self._name} holds no tensor")
        self._scope._core._set(self._name, t, [list(lv) for lv in lod])

    def lod(self):
        return self._scope._core._get_lod(self._name)

    def recursive_sequence_lengths(self):
        return [[b - a for a, b in zip(lv[:-1], lv[1:])] for lv in self.lod()]

    def set_recursive_sequence_lengths(self, lengths):
        lod = []
        for lv in lengths:
            off = [0]
            for n in lv:
                off.append(off[-1] + int(n))
            lod.append(off)
        self.set_lod(lod)

    def shape(self):
        t = self._t()
        return [] if t is None else list(t.shape)

    def _dtype(self):
        t = self._t()
        return None if t is None else t.dtype

    def _is_initialized(self):
        return self._t() is not None

    def __array__(self, dtype=None, copy=None):
        t = self._t()
        if t is None:
            raise RuntimeError(f"variable {self._name} holds no tensor (not initialized)")
        a = np.array(t)
        return a if dtype is None else a.astype(dtype)

    def numpy(self):
        return np.asarray(self)

    def _numel(self):
        t = self._t()
        return 0 if t is None else int(np.prod(t.shape))


class _ScopeVar:
    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return _ScopeTensor(self._scope, self._name)

    def get_lod_tensor_array(self):
        return self._scope._core._get_array(self._name) or []

    def is_initialized(self):
        return self._scope._core._kind(self._name) not in (None, 0)

    def name(self):
        return self._name


class Scope:
    """Where a program's persistable variables live between runs (Paddle's Scope)."""

    def __init__(self, _core=None):
        self._core = _core if _core is not None else _C.Scope()

    def var(self, name):
        self._core._create(name)
        return _ScopeVar(self, name)

    def find_var(self, name):
        return _ScopeVar(self, name) if self._core._has(name) else None

    def new_scope(self):
        return Scope(self._core.new_scope())

    def drop_kids(self):
        self._core.drop_kids()

    def local_var_names(self):
        return self._core.local_var_names()

    def erase(self, names):
        for n in ([names] if isinstance(names, str) else names):
            self._core.erase(n)

    # convenience used across paddle.static
    def _get(self, name):
        return self._core._get(name)

    def _set(self, name, tensor, lod=None):
        self._core._set(name, tensor, lod)


_global_scope = [Scope()]


def global_scope():
    """The scope Executor.run uses by default."""
    return _global_scope[-1]


def _switch_scope(scope):
    old = _global_scope[-1]
    _global_scope[-1] = scope
    return old


@contextlib.contextmanager
def scope_guard(scope):
    """Makes scope the global scope inside the block."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard expects a paddle.static.Scope, received {type(scope).__name__}")
    _global_scope.append(scope)
    try:
        yield
    finally:
        _global_scope.pop()


# ---------------------------------------------------------------------------------- places
def cpu_places(device_count=None):
    """device_count CPUPlaces (CPU_NUM environment variable, else 1)."""
    if device_count is None:
        device_count = int(os.environ.get("CPU_NUM", "1"))
    return [CPUPlace() for _ in range(int(device_count))]


def cuda_places(device_ids=None):
    """CUDAPlaces of device_ids (default: FLAGS_selected_gpus, else every GPU found; none where
    the CUDA backend finds no GPU)."""
    from ..framework.place import CUDAPlace, _gpu_count
    n = _gpu_count()
    if device_ids is None:
        sel = os.environ.get("FLAGS_selected_gpus", "")
        device_ids = [int(x) for x in sel.split(",") if x.strip()] if sel else list(range(n))
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    for i in device_ids:
        if not 0 <= int(i) < n:
            raise ValueError(f"cuda_places: GPU {i} does not exist ({n} GPU{'s' if n != 1 else ''} found)")
    return [CUDAPlace(int(i)) for i in device_ids]


def _not_compiled(what):
    def f(*a, **k):
        raise RuntimeError(f"Cannot use {what} because Paddle-C is not compiled with {what.split('_')[0].upper()} support")
    return f


xpu_places = _not_compiled("xpu_places")
npu_places = _not_compiled("npu_places")
mlu_places = _not_compiled("mlu_places")


# ---------------------------------------------------------------------------------- strategies
class BuildStrategy:
    """Graph build options (accepted; the C executor plans every program the same way)."""

    class ReduceStrategy:
        AllReduce = 0
        Reduce = 1

    class GradientScaleStrategy:
        CoeffNumDevice = 0
        One = 1
        Customized = 2

    def __init__(self):
        self.reduce_strategy = 0
        self.gradient_scale_strategy = 0
        self.debug_graphviz_path = ""
        self.enable_sequential_execution = False
        self.fuse_elewise_add_act_ops = False
        self.fuse_bn_act_ops = False
        self.fuse_bn_add_act_ops = True
        self.fuse_relu_depthwise_conv = False
        self.fuse_broadcast_ops = False
        self.fuse_all_optimizer_ops = False
        self.fuse_all_reduce_ops = False
        self.enable_inplace = False
        self.memory_optimize = None
        self.sync_batch_norm = False
        self.num_trainers = 1
        self.trainer_id = 0
        self.enable_auto_fusion = False
        self.enable_addto = False
        self.fix_op_run_order = False
        self.allow_cuda_graph_capture = False


class ExecutionStrategy:
    """Execution options (accepted; the executor uses the one OpenMP pool)."""

    def __init__(self):
        self.num_threads = 0
        self.use_thread_barrier = False
        self.num_iteration_per_drop_scope = 100
        self.num_iteration_per_run = 1
        self.allow_op_delay = False


class CompiledProgram:
    """A program with build options; Executor.run runs it like the program itself."""

    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError(f"CompiledProgram expects a paddle.static.Program, received {type(program_or_graph).__name__}")
        self._program = program_or_graph
        self._build_strategy = build_strategy or BuildStrategy()
        self._exec_strategy = None
        self._loss_name = None
        self._places = None

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        self._loss_name = loss_name
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._places = places
        return self

    def _with_inference_optimize(self, config):
        return self


# ---------------------------------------------------------------------------------- executor
def _to_feed(value, var, name):
    """A feed value as (contiguous Tensor, lod or None)."""
    lod = None
    if isinstance(value, LoDTensor):
        lod = value.lod() or None
        value = value.numpy()
    elif isinstance(value, _ScopeTensor):
        lod = value.lod() or None
        value = np.asarray(value)
    if isinstance(value, Tensor):
        if _C._is_variable(value):
            raise TypeError(f"feed {name}: a Variable has no data; feed numpy arrays or Tensors")
        arr = np.asarray(value)
    else:
        arr = np.asarray(value)
        if arr.dtype == object:
            raise TypeError(f"feed {name}: cannot feed an object array")
        if var is not None:
            want = var.dtype.name if var.dtype is not None else None
            if want and arr.dtype.kind in "fiub" and want not in ("bfloat16",):
                # Python numbers and lists take the variable's dtype, as Paddle does for lists
                if not isinstance(value, np.ndarray) and arr.dtype.name != want:
                    arr = arr.astype(want)
                elif arr.dtype == np.float64 and want == "float32" and not isinstance(value, np.ndarray):
                    arr = arr.astype(want)
    return _C.from_buffer(_contiguous(arr)), lod


def _contiguous(arr):
    """A C-contiguous copy for from_buffer: a 0-D array stays 0-D with FLAGS_set_to_1d off (numpy's
    ascontiguousarray makes it [1], the Paddle 2.3 shape of a fed scalar)."""
    c = np.ascontiguousarray(arr)
    return c.reshape(()) if arr.ndim == 0 and not _C.set_to_1d() else c


class Executor:
    """Runs programs (Paddle's Executor) on place: CPUPlace, or CUDAPlace(n) / 'gpu:n' (the scope's
    parameters and the feeds move to the GPU, the ops run there, fetches come back as numpy).
    None: paddle.set_device's place, as Paddle's Executor() takes the expected place."""

    def __init__(self, place=None):
        from ..framework.place import _current_place, _device_of_place, _place_of_device
        if place is None:
            place = _current_place()
        if isinstance(place, (list, tuple)):  # Paddle 1.x passed a list of places; one device here
            if len(place) != 1:
                raise ValueError("Executor: one place at a time (received a list of several)")
            place = place[0]
        dev = _device_of_place(place)
        self._core = _C.ExecutorCore()
        if dev >= 0:
            try:
                self._core._set_device(dev)
            except RuntimeError as e:
                raise ValueError(f"Executor({place!r}): {e}") from None
        self.place = _place_of_device(dev) if isinstance(place, str) else place
        self._closed = False

    def close(self):
        self._closed = True
        self._core._clear()

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True, use_program_cache=False, return_merged=True, use_prune=False):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Executor")
        if program is None:
            program = default_main_program()
        if isinstance(program, CompiledProgram):
            program = program._program
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: program must be a paddle.static.Program or CompiledProgram, "
                            f"received {type(program).__name__}")
        if scope is None:
            scope = global_scope()
        if not isinstance(scope, Scope):
            raise TypeError(f"Executor.run: scope must be a paddle.static.Scope, received {type(scope).__name__}")
        if feed is None:
            feed = {}
        if isinstance(feed, (list, tuple)):
            if len(feed) != 1:
                raise ValueError("Executor.run: a list feed is only supported with one entry per device (one here)")
            feed = feed[0]
        if not isinstance(feed, dict):
            raise TypeError(f"Executor.run: feed must be a dict of name -> array, received {type(feed).__name__}")
        fetch_list = [] if fetch_list is None else fetch_list
        if not isinstance(fetch_list, (list, tuple)):
            fetch_list = [fetch_list]
        fetch_names = []
        flat = []
        for f in fetch_list:  # one level of nesting is flattened, as Paddle 2.6 (gradients() gives lists)
            if isinstance(f, (list, tuple)) and all(isinstance(v, (str, Tensor)) for v in f):
                flat.extend(f)
            else:
                flat.append(f)
        for f in flat:
            if isinstance(f, str):
                fetch_names.append(f)
            elif isinstance(f, Tensor) and _C._is_variable(f):
                fetch_names.append(f.name)
            elif isinstance(f, (list, tuple)):
                raise TypeError("Executor.run: fetch_list must be a list of Variables or names (or of lists of them)")
            else:
                raise TypeError(f"Executor.run: fetch_list entries must be Variables or names, received "
                                f"{type(f).__name__}")
        gb = program.global_block()
        names, tensors, lods = [], [], []
        for k, v in feed.items():
            name = k.name if isinstance(k, Variable) else k
            var = gb._find_var_recursive(name) if gb.desc.find_var_recursive(name) is not None else None
            if var is None:  # as Paddle: a name the program does not have is left out, with a warning
                warnings.warn(f"The variable {name} is not found in program. It is not declared or is pruned.")
                continue
            t, lod = _to_feed(v, var, name)
            names.append(name)
            tensors.append(t)
            lods.append(lod or [])
        self._update_lr(program, scope)
        res = self._core._run(program.desc, 0, scope._core, names, tensors, lods, fetch_names)
        out = []
        for val, lod in res:
            if isinstance(val, list):
                out.append([np.array(x) if x is not None else None for x in val] if return_numpy else val)
            elif return_numpy:
                out.append(np.array(val))
            else:
                out.append(LoDTensor(np.array(val), lod))
        return out

    @staticmethod
    def _update_lr(program, scope):
        """Writes the program's LRScheduler value into its learning-rate variable (as Paddle's
        Executor does before each run: program.lr_sheduler, the scheduler's _var_name)."""
        sched = getattr(program, "lr_sheduler", None)
        if sched is None:
            return
        name = getattr(sched, "_var_name", None)
        d = program.global_block().desc.find_var(name) if name else None
        if d is None:
            return
        dt = d.dtype()
        lr = np.array([sched()], dtype=dt.name if dt is not None else "float32")
        scope._set(name, _C.from_buffer(lr))

    def infer_from_dataset(self, *a, **k):
        raise NotImplementedError("Executor.infer_from_dataset: the Dataset/Trainer pipeline (paddle.distributed.fleet "
                                  "datasets) is not part of Paddle-C")

    train_from_dataset = infer_from_dataset


class ParallelExecutor:
    """Runs a program like Executor (one CPU device here)."""

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None, exec_strategy=None,
                 build_strategy=None, num_trainers=1, trainer_id=0, scope=None):
        self._program = main_program or default_main_program()
        self._scope = scope or global_scope()
        if use_cuda:
            from ..framework.place import CUDAPlace, _gpu_count
            if _gpu_count() == 0:
                raise RuntimeError("ParallelExecutor: use_cuda=True but no CUDA GPU is available to Paddle-C")
            self._exe = Executor(CUDAPlace(0))
        else:
            self._exe = Executor(CPUPlace())

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        feed = feed if feed is not None else (feed_dict or {})
        return self._exe.run(self._program, feed=feed, fetch_list=fetch_list, scope=self._scope,
                             return_numpy=return_numpy)

    @property
    def device_count(self):
        return 1

    def drop_local_exe_scopes(self):
        pass


class IpuStrategy:
    def __init__(self, *a, **k):
        raise RuntimeError("Can not use IpuStrategy because Paddle-C is not compiled with IPU support")


class IpuCompiledProgram:
    def __init__(self, *a, **k):
        raise RuntimeError("Can not use IpuCompiledProgram because Paddle-C is not compiled with IPU support")


@contextlib.contextmanager
def ipu_shard_guard(index=-1, stage=-1):
    raise RuntimeError("Can not use ipu_shard_guard because Paddle-C is not compiled with IPU support")
    yield
