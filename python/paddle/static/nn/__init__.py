"""paddle.static.nn: layers and control flow for static programs. Control flow (cond, while_loop,
case, switch_case) is in control_flow.py; the other layers come from their own modules."""
from .control_flow import case, cond, switch_case, while_loop  # noqa: F401

__all__ = ["case", "cond", "switch_case", "while_loop"]
