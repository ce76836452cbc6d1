"""paddle.inference (Paddle 2.3's 12 names) over Paddle-C's C inference API: Config, Predictor,
Tensor and PredictorPool are thin wrappers around PD_Config / PD_Predictor / PD_Tensor reached
through paddle._C (csrc/python/inference_py.c -> csrc/api/pd_inference_api.h), so Python and C
users run the same loader, analysis passes and executor. enable_use_gpu runs the predictor on a
GPU where the CUDA backend finds one (float32). Switches Paddle-C cannot honour (a GPU where none
is found, TensorRT, ONNX Runtime, oneDNN int8, bfloat16 on a CPU without it) warn and change
nothing."""
import enum
import warnings

import numpy as np

from .. import _C

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor", "create_predictor",
           "get_version", "get_trt_compile_version", "get_trt_runtime_version", "get_num_bytes_of_data_type",
           "PredictorPool"]


class DataType(enum.IntEnum):
    """Paddle's paddle_infer::DataType codes (PaddleDType)."""
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7


class PlaceType(enum.IntEnum):
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class PrecisionType(enum.IntEnum):
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


# DataType <-> the C API's PD_DataType codes <-> numpy
_TO_C = {DataType.FLOAT32: 0, DataType.INT32: 1, DataType.INT64: 2, DataType.UINT8: 3, DataType.INT8: 4,
         DataType.FLOAT16: 5, DataType.BOOL: 6, DataType.FLOAT64: 7}
_FROM_C = {v: k for k, v in _TO_C.items()}
_NP = {DataType.FLOAT32: np.float32, DataType.INT64: np.int64, DataType.INT32: np.int32, DataType.UINT8: np.uint8,
       DataType.INT8: np.int8, DataType.FLOAT16: np.float16, DataType.BOOL: np.bool_, DataType.FLOAT64: np.float64}
_FROM_NP = {np.dtype(v): k for k, v in _NP.items()}


def get_version():
    """The version text (Paddle's format: "version: ...\\ncommit: ...\\nbranch: ...")."""
    return _C.infer_version()


def get_num_bytes_of_data_type(dtype):
    return _C.infer_num_bytes(_TO_C[DataType(dtype)])


def get_trt_compile_version():
    """(0, 0, 0): Paddle-C is built without TensorRT."""
    return (0, 0, 0)


def get_trt_runtime_version():
    """(0, 0, 0): Paddle-C is built without TensorRT."""
    return (0, 0, 0)


def _or_warn(call, *args):
    """call(*args); what this build or machine lacks (the C API's UNAVAILABLE, a RuntimeError)
    becomes a RuntimeWarning at the user's call, as Paddle's CPU build warns; a request Paddle-C does
    not implement (NotImplementedError) still raises."""
    try:
        return call(*args)
    except NotImplementedError:
        raise
    except RuntimeError as e:
        warnings.warn(str(e), RuntimeWarning, stacklevel=3)


def _warn_absent(what):
    warnings.warn(f"{what}: Paddle-C has no such backend; the setting is ignored and the predictor runs on the CPU",
                  RuntimeWarning, stacklevel=3)


class _PassBuilder:
    def __init__(self, cfg):
        self._cfg = cfg

    def all_passes(self):
        return _C.infer_config_all_passes(self._cfg._c)

    def delete_pass(self, name):
        self._cfg._call("delete_pass", name)

    def append_pass(self, name):
        self._cfg._call("append_pass", name)

    def insert_pass(self, idx, name):
        self._cfg._call("insert_pass", idx, name)

    def turn_on_debug(self):
        self._cfg.switch_ir_debug(True)


class Config:
    """Config(), Config(model_dir) or Config(prog_file, params_file)."""

    def __init__(self, model_dir_or_prog_file=None, params_file=None):
        self._c = _C.infer_config_new()
        if model_dir_or_prog_file is not None:
            self.set_model(model_dir_or_prog_file, params_file)

    def _call(self, name, *args):
        return _C.infer_config_call(self._c, name, *args)

    def _call_list(self, name, op_list):
        warnings.warn(f"{name}: Paddle-C has one kernel per op type and no per-op precision lists; the list "
                      "changes nothing", RuntimeWarning, stacklevel=3)

    # ---- the model
    def set_model(self, model_dir_or_prog_file, params_file=None):
        if params_file is None:
            self._call("set_model_dir", str(model_dir_or_prog_file))
        else:
            self._call("set_model", str(model_dir_or_prog_file), str(params_file))

    def set_model_dir(self, model_dir):
        self._call("set_model_dir", str(model_dir))

    def set_prog_file(self, path):
        self._call("set_prog_file", str(path))

    def set_params_file(self, path):
        self._call("set_params_file", str(path))

    def set_optim_cache_dir(self, path):
        self._call("set_optim_cache_dir", str(path))

    def prog_file(self):
        return self._call("prog_file")

    def params_file(self):
        return self._call("params_file")

    def model_dir(self):
        return self._call("model_dir")

    def set_model_buffer(self, prog_buffer, prog_buffer_size=None, params_buffer=None, params_buffer_size=None):
        def as_bytes(b, n):
            b = b.encode("latin-1") if isinstance(b, str) else bytes(b)
            return b if n is None else b[:n]
        _C.infer_config_set_model_buffer(self._c, as_bytes(prog_buffer, prog_buffer_size),
                                         as_bytes(params_buffer or b"", params_buffer_size))

    def model_from_memory(self):
        return self._call("model_from_memory")

    # ---- devices
    def disable_gpu(self):
        self._call("disable_gpu")

    def enable_use_gpu(self, memory_pool_init_size_mb=100, device_id=0, precision_mode=PrecisionType.Float32):
        """Runs the predictor on GPU device_id (float32) where a CUDA GPU is found; elsewhere it warns
        and the predictor stays on the CPU (as Paddle's CPU build). Half / Bfloat16 / Int8 raise
        NotImplementedError; a device_id the machine lacks raises ValueError."""
        _or_warn(_C.infer_config_enable_use_gpu, self._c, int(memory_pool_init_size_mb), int(device_id),
                 int(precision_mode))

    def enable_cudnn(self):
        _or_warn(self._call, "enable_cudnn")

    def cudnn_enabled(self):
        return self._call("cudnn_enabled")

    def use_gpu(self):
        return self._call("use_gpu")

    def gpu_device_id(self):
        return self._call("gpu_device_id")

    def memory_pool_init_size_mb(self):
        return self._call("memory_pool_init_size_mb")

    def fraction_of_gpu_memory_for_pool(self):
        """memory_pool_init_size_mb over the GPU's memory in MB (0.0 off the GPU), as Paddle."""
        if not self.use_gpu():
            return 0.0
        total = _C.cuda_props(self.gpu_device_id()).get("total_memory", 0)
        return float(self.memory_pool_init_size_mb()) / (total / 1048576.0) if total else 0.0

    def use_xpu(self):
        return self._call("use_xpu")

    def enable_xpu(self, *args, **kwargs):
        _warn_absent("enable_xpu")

    def enable_tensorrt_engine(self, *args, **kwargs):
        _warn_absent("enable_tensorrt_engine")

    def tensorrt_engine_enabled(self):
        return False

    def enable_onnxruntime(self):
        _warn_absent("enable_onnxruntime")

    def disable_onnxruntime(self):
        self._call("disable_onnxruntime")

    def onnxruntime_enabled(self):
        return False

    def enable_lite_engine(self, *args, **kwargs):
        _warn_absent("enable_lite_engine")

    def lite_engine_enabled(self):
        return False

    # ---- passes
    def switch_ir_optim(self, x=True):
        self._call("switch_ir_optim", bool(x))

    def ir_optim(self):
        return self._call("ir_optim")

    def switch_ir_debug(self, x=True):
        self._call("switch_ir_debug", bool(x))

    def delete_pass(self, name):
        self._call("delete_pass", name)

    def pass_builder(self):
        return _PassBuilder(self)

    # ---- CPU
    def enable_mkldnn(self):
        self._call("enable_mkldnn")

    def disable_mkldnn(self):
        warnings.warn("disable_mkldnn: Paddle-C's convolutions always run through oneDNN; the setting changes nothing",
                      RuntimeWarning, stacklevel=2)

    def mkldnn_enabled(self):
        return self._call("mkldnn_enabled")

    def set_mkldnn_cache_capacity(self, capacity=0):
        self._call("set_mkldnn_cache_capacity", int(capacity))

    def set_mkldnn_op(self, op_list):
        """Recorded by Paddle to pick oneDNN kernels per op type; Paddle-C has one kernel per op."""
        self._call_list("set_mkldnn_op", op_list)

    def enable_mkldnn_bfloat16(self):
        _or_warn(self._call, "enable_mkldnn_bfloat16")

    def mkldnn_bfloat16_enabled(self):
        return self._call("mkldnn_bfloat16_enabled")

    def set_bfloat16_op(self, op_list):
        self._call_list("set_bfloat16_op", op_list)

    def enable_mkldnn_int8(self, op_list=None):
        self._call("enable_mkldnn_int8")

    def mkldnn_int8_enabled(self):
        return False

    def enable_quantizer(self):
        self._call("enable_quantizer")

    def set_cpu_math_library_num_threads(self, n):
        self._call("set_cpu_math_library_num_threads", int(n))

    def cpu_math_library_num_threads(self):
        return self._call("cpu_math_library_num_threads")

    def enable_memory_optim(self, x=True):
        self._call("enable_memory_optim", bool(x))

    def memory_optim_enabled(self):
        return self._call("memory_optim_enabled")

    # ---- misc
    def enable_profile(self):
        self._call("enable_profile")

    def profile_enabled(self):
        return self._call("profile_enabled")

    def disable_glog_info(self):
        self._call("disable_glog_info")

    def glog_info_disabled(self):
        return self._call("glog_info_disabled")

    def switch_specify_input_names(self, x=True):
        self._call("switch_specify_input_names", bool(x))

    def specify_input_name(self):
        return self._call("specify_input_name")

    def switch_use_feed_fetch_ops(self, x=True):
        self._call("switch_use_feed_fetch_ops", bool(x))

    def use_feed_fetch_ops_enabled(self):
        return self._call("use_feed_fetch_ops_enabled")

    def summary(self):
        return _C.infer_config_summary(self._c)

    def __repr__(self):
        return self.summary()


class Tensor:
    """An input or output of a Predictor (Paddle's paddle.inference.Tensor)."""

    def __init__(self, handle, keep=None):
        self._h = handle
        self._keep = keep  # the predictor (outputs/inputs stay valid without it, kept for clarity)
        self._shared = None

    def name(self):
        return _C.infer_tensor_name(self._h)

    def reshape(self, shape):
        _C.infer_tensor_reshape(self._h, [int(d) for d in shape])

    def shape(self):
        return _C.infer_tensor_shape(self._h)

    def type(self):
        return _FROM_C[_C.infer_tensor_type(self._h)]

    def _set(self, data, share):
        if not isinstance(data, np.ndarray):
            if hasattr(data, "numpy"):
                data = data.numpy()
            else:
                data = np.asarray(data)
        dt = _FROM_NP.get(data.dtype)
        if dt is None:
            raise TypeError(f"Tensor: unsupported data type {data.dtype} (float32, float16, float64, int64, int32, "
                            "uint8, int8 or bool)")
        data = np.ascontiguousarray(data)
        _C.infer_tensor_copy_from(self._h, data if data.size else b"", _TO_C[dt], list(data.shape), share)
        self._shared = data if share else None

    def copy_from_cpu(self, data):
        """Reshapes this input to data's shape and copies data (a numpy array) in."""
        self._set(data, False)

    def share_external_data(self, data):
        """Makes this input read data (numpy array or paddle.Tensor on the CPU) without a copy."""
        self._set(data, True)

    def copy_to_cpu(self):
        out = np.empty(self.shape(), dtype=_NP[self.type()])
        _C.infer_tensor_copy_to(self._h, out if out.size else bytearray(0))
        return out

    def set_lod(self, lod):
        _C.infer_tensor_set_lod(self._h, [list(map(int, lv)) for lv in lod])

    def lod(self):
        return _C.infer_tensor_lod(self._h)


class Predictor:
    """Paddle's paddle.inference.Predictor: create it with create_predictor(config)."""

    def __init__(self, config=None, _handle=None):
        if _handle is None:
            if not isinstance(config, Config):
                raise TypeError("Predictor(config): config must be a paddle.inference.Config")
            _handle = _C.infer_predictor_new(config._c)
        self._p = _handle

    def get_input_names(self):
        return _C.infer_predictor_names(self._p, False)

    def get_output_names(self):
        return _C.infer_predictor_names(self._p, True)

    def get_input_handle(self, name):
        return Tensor(_C.infer_predictor_handle(self._p, name, False), self)

    def get_output_handle(self, name):
        return Tensor(_C.infer_predictor_handle(self._p, name, True), self)

    def get_input_tensor_shape(self):
        return {n: s for n, s, _ in _C.infer_predictor_infos(self._p, False)}

    def get_output_tensor_shape(self):
        return {n: s for n, s, _ in _C.infer_predictor_infos(self._p, True)}

    def get_input_types(self):
        return {n: _FROM_C.get(d) for n, _, d in _C.infer_predictor_infos(self._p, False)}

    def get_output_types(self):
        return {n: _FROM_C.get(d) for n, _, d in _C.infer_predictor_infos(self._p, True)}

    def run(self, inputs=None):
        """Runs on the inputs set through the input handles; or, given a list of arrays (in input-name
        order), sets them, runs and returns the outputs (numpy arrays, or paddle Tensors when the inputs
        were paddle Tensors)."""
        if inputs is None:
            _C.infer_predictor_run(self._p)
            return None
        names = self.get_input_names()
        if len(inputs) != len(names):
            raise ValueError(f"Predictor.run: {len(inputs)} inputs given, the model takes {len(names)} ({names})")
        as_tensor = any(isinstance(x, _C.Tensor) for x in inputs)
        for n, x in zip(names, inputs):
            self.get_input_handle(n).copy_from_cpu(x)
        _C.infer_predictor_run(self._p)
        outs = [self.get_output_handle(n).copy_to_cpu() for n in self.get_output_names()]
        if as_tensor:
            from .. import to_tensor
            outs = [to_tensor(o) for o in outs]
        return outs

    def clone(self, stream=None):
        return Predictor(_handle=_C.infer_predictor_clone(self._p))

    def clear_intermediate_tensor(self):
        _C.infer_predictor_clear(self._p)

    def try_shrink_memory(self):
        return _C.infer_predictor_shrink(self._p)


def create_predictor(config):
    return Predictor(config)


class PredictorPool:
    """size predictors sharing one model's weights: the first made from config, the others its clones."""

    def __init__(self, config, size=1):
        if size < 1:
            raise ValueError("PredictorPool: size must be >= 1")
        first = create_predictor(config)
        self._preds = [first] + [first.clone() for _ in range(size - 1)]

    def retrive(self, idx):
        if not 0 <= idx < len(self._preds):
            raise IndexError(f"PredictorPool.retrive: index {idx} out of range [0, {len(self._preds)})")
        return self._preds[idx]

    retrieve = retrive
