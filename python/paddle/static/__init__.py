"""paddle.static: static-graph programs (Paddle 2.3's 47 names). Programs, their executor,
gradients and model files are C (csrc/graph); see framework.py, executor.py, backward.py, io.py."""
from .backward import append_backward, gradients  # noqa: F401
from .callback import Print, py_func  # noqa: F401
from .executor import (BuildStrategy, CompiledProgram, ExecutionStrategy, Executor,  # noqa: F401
                       IpuCompiledProgram, IpuStrategy, ParallelExecutor, Scope, cpu_places,
                       cuda_places, global_scope, ipu_shard_guard, mlu_places, npu_places,
                       scope_guard, xpu_places)
from .framework import (Operator, Parameter, Program, Variable, create_global_var,  # noqa: F401
                        data, default_main_program, default_startup_program, device_guard,
                        name_scope, program_guard)
from .framework import _create_static_parameter
from .input import InputSpec  # noqa: F401
from . import nn  # noqa: F401
from . import amp  # noqa: F401
from .ema import ExponentialMovingAverage  # noqa: F401
from .metrics import accuracy, auc  # noqa: F401
from .weight_norm import WeightNormParamAttr  # noqa: F401
from .io import (deserialize_persistables, deserialize_program, load, load_from_file,  # noqa: F401
                 load_inference_model, load_program_state, normalize_program, save, save_inference_model,
                 save_to_file, serialize_persistables, serialize_program, set_program_state)


def setitem(x, index, value):
    """x with x[index] = value as a new variable (Paddle 2.6's paddle.static.setitem); x itself
    is unchanged. (x[index] = value also works on Variables and rewrites x, as in Paddle 2.3.)"""
    from ..tensor import indexing_static
    return indexing_static.updated(x, index, value)


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A parameter of the default main program (initialized by the startup program)."""
    return _create_static_parameter(shape, dtype, name, attr, is_bias, default_initializer)


__all__ = [
    "append_backward", "gradients", "Executor", "global_scope", "scope_guard", "BuildStrategy",
    "CompiledProgram", "ExecutionStrategy", "ParallelExecutor", "IpuCompiledProgram", "IpuStrategy",
    "ipu_shard_guard", "Program", "default_startup_program", "default_main_program", "program_guard",
    "name_scope", "device_guard", "cpu_places", "cuda_places", "xpu_places", "npu_places", "mlu_places",
    "Variable", "Parameter", "Operator", "create_global_var", "create_parameter", "data", "InputSpec",
    "Scope", "accuracy", "auc", "ExponentialMovingAverage", "WeightNormParamAttr",
    "save_inference_model", "load_inference_model", "serialize_program", "serialize_persistables",
    "save_to_file", "deserialize_program", "deserialize_persistables", "load_from_file", "normalize_program",
    "save", "load", "load_program_state", "set_program_state", "Print", "py_func",
]
