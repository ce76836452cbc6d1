"""paddle.onnx: export a Layer to an ONNX model (paddle.onnx.export).

The layer goes through paddle.jit's dynamic-to-static machinery to an inference Program (the
program jit.save would write), and each op of that program becomes ONNX nodes built with the
`onnx` package's protobuf classes (export.py drives, op_mapper.py holds one converter per
Paddle op type). `onnx` is imported only when export runs."""
from .export import export  # noqa: F401

__all__ = ["export"]
