"""Names Paddle exports under paddle.nn that live in paddle.framework."""
from ..framework.param_attr import ParamAttr  # noqa: F401

__all__ = []
