"""Control flow: to_static's if / else on a tensor (two conditional_blocks, one per branch, and
a select_input per variable the branches assign) becomes an ONNX If per select_input, whose
then / else subgraphs are the two sub-blocks converted by the same converters (they read outer
values by name, as ONNX subgraphs may). A conditional_block whose result is not merged by a
select_input (an if without else that assigns an outer variable), a non-scalar condition, and
while loops (ONNX Loop) are not converted: NotImplementedError."""
import copy

from .op_mapper import CONVERTERS, _in, _out, reg


@reg("conditional_block")
def _conditional_block(g, op):
    if not op.attr("is_scalar_condition"):
        raise NotImplementedError("conditional_block with a tensor condition (is_scalar_condition=False) has no "
                                  "ONNX If form")
    for name in op.output("Out"):
        g.cond_producers[name] = op  # converted when a select_input merges it


def _branch(g, cb, names):
    """the subgraph of conditional_block cb's sub-block whose outputs are the values of names"""
    from .export import _value_info
    h = g.helper
    blk = cb.attr("sub_block")
    sub = copy.copy(g)  # shares initializers, constants, names; its own nodes and block
    sub.nodes, sub.block, sub.cond_producers = [], blk, {}
    failures = []
    for op in blk.ops:
        conv = CONVERTERS.get(op.type)
        if conv is None:
            raise NotImplementedError(f"no ONNX conversion for op type {op.type} inside an if branch")
        try:
            conv(sub, op)
        except NotImplementedError as e:
            failures.append(f"{op.type}: {e}")
    if failures:
        raise NotImplementedError("; ".join(failures))
    outs = []
    for name in names:
        out = sub.tmp("branch_out")
        sub.node("Identity", [name], out)
        vi = _value_info(sub, name)
        vi.name = out
        outs.append(vi)
    g._k = sub._k
    return h.make_graph(sub.nodes, sub.tmp("branch"), [], outs)


@reg("select_input")
def _select_input(g, op):
    if op in g.merged:  # already an output of the If made for its branches
        return
    xs, mask = op.input("X"), _in(op, "Mask")
    if len(xs) != 2:
        raise NotImplementedError(f"select_input over {len(xs)} inputs (an ONNX If has two branches)")
    f_cb, t_cb = (g.cond_producers.get(n) for n in xs)
    if f_cb is None or t_cb is None:
        raise NotImplementedError("select_input whose inputs do not both come from if / else branches")
    # every select_input merging the same two branches with the same mask: one If, one output each
    group = [o for o in g.block.ops if o.type == "select_input" and len(o.input("X")) == 2
             and o.input("Mask") == op.input("Mask")
             and g.cond_producers.get(o.input("X")[0]) is f_cb and g.cond_producers.get(o.input("X")[1]) is t_cb]
    then_g = _branch(g, t_cb, [o.input("X")[1] for o in group])
    else_g = _branch(g, f_cb, [o.input("X")[0] for o in group])
    cond = g.node("Cast", [mask], to=g.onnx.TensorProto.BOOL)
    if g.rank(mask) != 0:
        cond = g.node("Reshape", [cond, g.ints([])])
    g.node("If", [cond], [_out(o, "Out") for o in group], then_branch=then_g, else_branch=else_g)
    g.merged.update(group)
    g.merged.update((f_cb, t_cb))
