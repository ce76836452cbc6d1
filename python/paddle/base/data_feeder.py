"""paddle.base.data_feeder (Paddle 2.6): dtype conversion and the argument checks Paddle's
Python API and user layers call. As in Paddle, the checks run only while a static program is
built (dygraph reports a wrong argument at the op itself)."""
import numpy as np

from ..framework.dtype import convert_dtype as _to_dtype


def convert_dtype(dtype):
    """Any dtype spelling -> its name, as Paddle's data_feeder.convert_dtype returns
    ('float32', 'int64', ...)."""
    return _to_dtype(dtype).name


def _dygraph():
    from ..static.framework import in_dynamic_mode
    return in_dynamic_mode()


def check_type(input, input_name, expected_type, op_name, extra_message=""):  # noqa: A002
    if _dygraph():
        return
    if not isinstance(input, expected_type):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be {expected_type}, but "
                        f"received {type(input)}. {extra_message}")


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    if _dygraph():
        return
    if isinstance(expected_dtype, str):
        expected_dtype = [expected_dtype]
    if convert_dtype(input_dtype) not in [convert_dtype(d) for d in expected_dtype]:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be {list(expected_dtype)}, "
                        f"but received {convert_dtype(input_dtype)}. {extra_message}")


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):  # noqa: A002
    from .._C import Tensor
    check_type(input, input_name, Tensor, op_name, extra_message)
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)


def check_shape(shape, op_name, expected_shape_type=(list, tuple), expected_element_type=(int,),
                expected_tensor_dtype=("int32", "int64")):
    from .._C import Tensor
    if isinstance(shape, Tensor):
        check_dtype(shape.dtype, "shape", expected_tensor_dtype, op_name)
        return
    check_type(shape, "shape", expected_shape_type, op_name)
    for item in shape:
        if not isinstance(item, Tensor):
            check_type(item, "element of shape", expected_element_type + (np.integer,), op_name)
