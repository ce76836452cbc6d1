"""Program rewrites of paddle.static.amp (Paddle 2.3's fp16_utils), for float16 and bfloat16:
rewrite_program (mixed precision: white ops and the gray ops a white op feeds run in the low
dtype, the others in float32, with cast ops inserted before the ops whose inputs have the other
dtype), cast_model_to_fp16 (pure low precision: every op outside the float32 lists, parameters
included, feed variables excepted; float32 ops get casts around them), cast_parameters_to_fp16 (the scope's values) and
fp16_guard (marks the ops a pure-mode rewrite may convert). An op given the low dtype whose
kernel lacks it runs as eager auto_cast runs it: inputs rounded to the low dtype, the float32
kernel, outputs rounded (cast ops around it)."""
import contextlib

from ... import _C
from ...utils import unique_name

_VT = {"float16": 4, "float32": 5, "float64": 6, "bfloat16": 22}
_SHORT = {"float16": "fp16", "float32": "fp32", "bfloat16": "bf16"}
_X_ONLY = ("batch_norm", "fused_bn_add_activation", "layer_norm")
_LOD_TENSOR = 7
_GUARD = "__paddle_fp16_guard__"


def _var(block, name):
    return block.desc.find_var_recursive(name)


def _dtype(vd):
    d = vd.dtype()
    return d.name if d is not None else None


def _float_tensor(vd):
    return vd is not None and vd.type() == _LOD_TENSOR and _dtype(vd) in ("float16", "bfloat16", "float32")


def _ops(block):
    return [block.desc.op(i) for i in range(block.desc.op_size())]


def _set_attr_if(od, name, old, new):
    if od.has_attr(name) and od.attr(name) == _VT[old]:
        od._set_attr(name, _VT[new])


def _insert_cast(block, idx, src_name, dst_name, src, dst, role):
    od = block.desc._insert_op(idx)
    od.set_type("cast")
    od.set_input("X", [src_name])
    od.set_output("Out", [dst_name])
    od._set_attr("in_dtype", _VT[src])
    od._set_attr("out_dtype", _VT[dst])
    od._set_attr("op_role", role)
    return od


def _new_var(block, name, like, dtype):
    d = block.desc.var(name)
    d.set_shape(list(like.shape()))
    d.set_dtype(dtype)
    d.set_persistable(False)
    d.set_stop_gradient(bool(like.stop_gradient()))
    return d


def _role(od):
    return od.attr("op_role") if od.has_attr("op_role") else 0


def _insert_cast_op(block, od, idx, src, dst):
    """Casts od's inputs of dtype src to dst (cast ops inserted before index idx, reused per
    variable as Paddle names them: <var>.cast_<dtype>); with src float32, the float32 outputs
    become dst. Returns the number of ops inserted."""
    n = 0
    x_only = od.type() in _X_ONLY
    for slot in od.input_names():
        if src == "float32" and x_only and slot not in ("X", "Z"):
            continue
        for name in od.input(slot):
            vd = _var(block, name)
            if not _float_tensor(vd) or _dtype(vd) == dst:
                continue
            if _dtype(vd) != src:
                continue
            cast_name = f"{name}.cast_{_SHORT[dst]}"
            cv = block.desc.find_var(cast_name)
            if cv is None or _dtype(cv) != dst:
                _new_var(block, cast_name, vd, dst)
                _insert_cast(block, idx + n, name, cast_name, src, dst, _role(od))
                n += 1
            od._rename_input(name, cast_name)
    if src == "float32":
        for slot in od.output_names():
            if x_only and slot != "Y":
                continue
            for name in od.output(slot):
                vd = _var(block, name)
                if _float_tensor(vd) and _dtype(vd) == "float32":
                    vd.set_dtype(dst)
        _set_attr_if(od, "out_dtype", "float32", dst)
    return n


def _low_kernel(op_type, low):
    info = _C._op_kernel_dtypes(op_type)
    if info is None:
        return True  # not ours to judge: the executor reports it
    return [d.name for d in _C.dtypes].index(low) in info[1]


def _emulate(block, od, idx, low):
    """od was given the low dtype but its kernel lacks it: cast its low inputs to float32 before
    it and its low outputs back after it. Returns (ops inserted before, ops inserted after)."""
    x_only = od.type() in _X_ONLY
    before = 0
    for slot in od.input_names():
        if x_only and slot not in ("X", "Z"):
            continue
        for name in od.input(slot):
            vd = _var(block, name)
            if _float_tensor(vd) and _dtype(vd) == low:
                up = unique_name.generate(f"{name}.cast_fp32_emu")
                _new_var(block, up, vd, "float32")
                _insert_cast(block, idx + before, name, up, low, "float32", _role(od))
                od._rename_input(name, up)
                before += 1
    after = 0
    for slot in od.output_names():
        if x_only and slot != "Y":
            continue
        for name in od.output(slot):
            vd = _var(block, name)
            if _float_tensor(vd) and _dtype(vd) == low:
                f32 = unique_name.generate(f"{name}.fp32_emu")
                _new_var(block, f32, vd, "float32")
                od._rename_output(name, f32)
                _insert_cast(block, idx + before + 1 + after, f32, name, "float32", low, _role(od))
                after += 1
    _set_attr_if(od, "out_dtype", low, "float32")
    return before, after


def _producers(ops):
    """For op i, {input var: the op that last wrote it before i}."""
    last, out = {}, []
    for od in ops:
        out.append({n: last.get(n) for n in od.input_arg_names()})
        for n in od.output_arg_names():
            last[n] = od
    return out


def _in_black_varnames(od, names):
    if not names:
        return False
    return any(n in names for n in od.input_arg_names() + od.output_arg_names())


def _classify(block, white, black, gray, black_varnames=None):
    """Paddle's rewrite_program classification: (low op ids, float32 op ids)."""
    ops = _ops(block)
    prods = _producers(ops)
    low, f32 = set(), set()
    for od, prod in zip(ops, prods):
        t = od.type()
        if _in_black_varnames(od, black_varnames):
            f32.add(od.id())
        elif t in black:
            f32.add(od.id())
        elif t in white:
            low.add(od.id())
        elif t in gray:
            is_black = is_white = False
            for name in od.input_arg_names():
                p = prod.get(name)
                if p is None:
                    continue
                if p.id() in f32 or p.type() in black:
                    is_black = True
                elif p.id() in low or p.type() in white:
                    is_white = True
            if is_black:
                f32.add(od.id())
            elif is_white:
                low.add(od.id())
        else:
            f32.add(od.id())  # undetermined ops run in float32 (numerically safe)
    return low, f32


def _apply(block, low_ids, f32_ids, low):
    """Inserts the casts for the classification, then emulates low ops without a low kernel."""
    idx = 0
    while idx < block.desc.op_size():
        od = block.desc.op(idx)
        n = 0
        if od.id() in f32_ids:
            n = _insert_cast_op(block, od, idx, low, "float32")
        elif od.id() in low_ids:
            n = _insert_cast_op(block, od, idx, "float32", low)
            if not _low_kernel(od.type(), low):
                b, a = _emulate(block, od, idx + n, low)
                n += b + a
        idx += n + 1
    block.program._op_cache.clear()


def rewrite_program(main_prog, amp_lists=None, dtype="float16"):
    """Mixed precision (AMP O1) on main_prog's global block."""
    from .fp16_lists import AutoMixedPrecisionLists
    amp_lists = amp_lists or AutoMixedPrecisionLists()
    block = main_prog.global_block()
    low, f32 = _classify(block, amp_lists.white_list, amp_lists.black_list, amp_lists.gray_list,
                         amp_lists.black_varnames)
    _apply(block, low, f32, dtype)


def _in_guard(od, marker=_GUARD):
    return od.has_attr("op_namescope") and marker in str(od.attr("op_namescope"))


def cast_model_to_fp16(program, amp_lists=None, use_fp16_guard=True, dtype="float16", _guard=_GUARD):
    """Pure low precision (AMP O2): every op not kept in float32 (unsupported or black list, or
    outside fp16_guard when use_fp16_guard) runs in the low dtype, its float32 inputs
    (parameters included) and outputs becoming low; float32 ops get casts around them. Returns
    the names of the variables made low (the parameters cast_parameters_to_fp16 converts)."""
    from .fp16_lists import AutoMixedPrecisionLists
    amp_lists = amp_lists or AutoMixedPrecisionLists()
    keep = set(amp_lists.unsupported_list) | set(amp_lists.black_list)
    block = program.global_block()
    to_low = set()
    keep_ids, low_ids = set(), set()
    for od in _ops(block):
        if od.type() in keep or _in_black_varnames(od, amp_lists.black_varnames) or \
                (use_fp16_guard and not _in_guard(od, _guard)):
            keep_ids.add(od.id())
            continue
        low_ids.add(od.id())
        x_only = od.type() in _X_ONLY
        for slot in od.input_names():
            if x_only and slot not in ("X", "Z"):
                continue
            for name in od.input(slot):
                vd = _var(block, name)
                # feed variables stay float32 (a cast follows them; Paddle would demand low feeds)
                if _float_tensor(vd) and _dtype(vd) == "float32" and not vd.need_check_feed():
                    vd.set_dtype(dtype)
                    to_low.add(name)
        for slot in od.output_names():
            if x_only and slot != "Y":
                continue
            for name in od.output(slot):
                vd = _var(block, name)
                if _float_tensor(vd) and _dtype(vd) == "float32":
                    vd.set_dtype(dtype)
        for a in ("in_dtype", "out_dtype", "dtype"):
            _set_attr_if(od, a, "float32", dtype)
    # float32 ops: low inputs cast up; their outputs stay float32, consumers that run low read
    # them through a cast (Paddle's post casts)
    idx = 0
    while idx < block.desc.op_size():
        od = block.desc.op(idx)
        n = 0
        if od.id() in keep_ids:
            n = _insert_cast_op(block, od, idx, dtype, "float32")
            for name in od.output_arg_names():
                vd = _var(block, name)
                if _float_tensor(vd) and _dtype(vd) == dtype:
                    vd.set_dtype("float32")
        elif od.id() in low_ids:
            n = _insert_cast_op(block, od, idx, "float32", dtype)
            if not _low_kernel(od.type(), dtype):
                b, a = _emulate(block, od, idx + n, dtype)
                n += b + a
        idx += n + 1
    program._op_cache.clear()
    return to_low


def cast_parameters_to_fp16(place, program, scope=None, to_fp16_var_names=None, dtype="float16"):
    """Converts the scope's values of program's parameters named in to_fp16_var_names."""
    from ..executor import global_scope
    from ..framework import _dygraph_guard
    scope = scope or global_scope()
    names = set(to_fp16_var_names or ())
    for p in program.all_parameters():
        if p.name not in names:
            continue
        t = scope._get(p.name)
        if t is None or t.dtype.name == dtype:
            continue
        with _dygraph_guard():
            scope._set(p.name, t.astype(dtype))


@contextlib.contextmanager
def fp16_guard(_marker=_GUARD):
    """Ops recorded inside may run in float16 in pure float16 mode with use_fp16_guard (their
    op_namescope attribute marks them, as Paddle's name scope does)."""
    from ..framework import default_main_program
    block = default_main_program().current_block()
    start = block.desc.op_size()
    try:
        yield
    finally:
        for i in range(start, block.desc.op_size()):
            block.desc.op(i)._set_attr("op_namescope", f"/{_marker}/")
