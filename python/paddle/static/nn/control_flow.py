"""PLACEHOLDER (helper `snn` branch only): the control-flow helper writes the real module
(cond, while_loop, case, switch_case); this stub exists only so paddle.static.nn imports before
that branch is merged. The lead keeps the other branch's file when merging."""


def _not_merged(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"paddle.static.nn.{name}: control flow is not merged into this branch yet")
    f.__name__ = name
    return f


cond = _not_merged("cond")
while_loop = _not_merged("while_loop")
case = _not_merged("case")
switch_case = _not_merged("switch_case")
