"""The AST transformation of to_static: a function's source becomes code whose control flow and
operators call the `_jst` runtime (convert_operators, convert_loops, convert_builtins), so that
the same code runs Python control flow on Python values and builds program control flow on
program Variables. Passes, in order: expressions (and/or/not, comparison chains, `a if c else
b`, .shape, calls, print, len, assert, list.append), returns (a flag and a value variable),
break/continue (flags and guards), then if/while/for into helper functions that share the
function's variables through nonlocal declarations and get_args/set_args."""
import ast
import copy

JST = "_jst"
RV = "_jst_rv"          # return value (prefix: convert_operators.RETURN_VALUE_PREFIX)
RF = "_jst_rf"          # returned flag
_HELPERS = ("true_fn", "false_fn", "get_args", "set_args", "loop_cond", "loop_body")
_KEEP_CALLS = {"super", "range", "enumerate", "zip", "isinstance", "issubclass", "locals", "globals", "vars",
               "type", "getattr", "setattr", "hasattr", "id", "callable", "iter", "next", "repr", "str",
               "hash", "dir", "NotImplementedError", "ValueError", "TypeError", "RuntimeError", "AssertionError",
               "KeyError", "IndexError", "Exception", "StopIteration", "object", "min", "max", "sum", "abs",
               "round", "sorted", "reversed", "map", "filter", "any", "all", "divmod", "format", "open",
               "int", "float", "bool", "list", "tuple", "dict", "set", "frozenset"}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


# ---------------------------------------------------------------------------------- builders
def _jst(attr):
    return ast.Attribute(value=ast.Name(id=JST, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _call(fn, args=(), keywords=()):
    if isinstance(fn, str):
        fn = _jst(fn)
    return ast.Call(func=fn, args=list(args), keywords=list(keywords))


def _load(n):
    return ast.Name(id=n, ctx=ast.Load())


def _store(n):
    return ast.Name(id=n, ctx=ast.Store())


def _assign(n, value):
    return ast.Assign(targets=[_store(n)], value=value)


def _const(v):
    return ast.Constant(value=v)


def _lambda(expr):
    return ast.Lambda(args=_no_args(), body=expr)


def _no_args(names=()):
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _def(name, body, args=()):
    d = ast.FunctionDef(name=name, args=_no_args(args), body=body or [ast.Pass()], decorator_list=[],
                        returns=None, type_comment=None)
    d._jst_helper = True
    return d


def _located(nodes, src):
    """Gives every node without a position src's position (tracebacks then name the user's line)."""
    for n in nodes:
        for sub in ast.walk(n):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                sub.lineno, sub.col_offset = src.lineno, src.col_offset
                sub.end_lineno = getattr(src, "end_lineno", src.lineno)
                sub.end_col_offset = getattr(src, "end_col_offset", src.col_offset)
    return nodes


# ---------------------------------------------------------------------------------- analysis
class _Assigned(ast.NodeVisitor):
    """Names a statement list binds in its own scope (nested functions count by their name and
    by the names they declare nonlocal)."""

    def __init__(self):
        self.names = {}

    def add(self, n):
        self.names[n] = None

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.add(node.id)

    def _nested_def(self, node):
        if not getattr(node, "_jst_helper", False):
            self.add(node.name)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Nonlocal):
                for n in sub.names:
                    self.add(n)
        for d in getattr(node, "decorator_list", []):
            self.visit(d)

    visit_FunctionDef = visit_AsyncFunctionDef = _nested_def

    def visit_ClassDef(self, node):
        self.add(node.name)

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Import(self, node):
        for a in node.names:
            self.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self.add(node.name)
        self.generic_visit(node)


def appended_names(stmts):
    """Names X of `X = _jst.convert_append(X, v)` (a list's append, converted) anywhere in stmts."""
    out = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                    isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) and \
                    n.value.func.attr == "convert_append" and isinstance(n.value.func.value, ast.Name) and \
                    n.value.func.value.id == "_jst" and n.targets[0].id not in out:
                out.append(n.targets[0].id)
    return out


def assigned_names(stmts):
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return list(v.names)


def _contains(stmts, kinds, into_loops=False):
    """Does a statement list hold a node of kinds (not inside nested functions, nor inside nested
    loops unless into_loops)?"""
    def rec(node):
        if isinstance(node, kinds):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if not into_loops and isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            return any(rec(s) for s in node.orelse)
        return any(rec(c) for c in ast.iter_child_nodes(node))
    return any(rec(s) for s in stmts)


# ---------------------------------------------------------------------------------- pass 1: expressions
class _Expressions(ast.NodeTransformer):
    def __init__(self, self_name):
        self.self_name = self_name
        self.locals = set()

    def visit_FunctionDef(self, node):
        saved = self.self_name, self.locals
        self.self_name = node.args.args[0].arg if node.args.args else None
        g, nl = _function_scope_decls(node)
        self.locals = (set(_params(node)) | set(assigned_names(node.body))) - g - nl
        node.body = [self.visit(s) for s in node.body]
        node.body = [s for s in node.body if s is not None]
        self.self_name, self.locals = saved
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "convert_logical_and" if isinstance(node.op, ast.And) else "convert_logical_or"
        expr = node.values[-1]
        for v in reversed(node.values[:-1]):
            expr = _call(fn, [_lambda(v), _lambda(expr)])
        return ast.copy_location(expr, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("convert_logical_not", [node.operand]), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) < 2 or not all(type(o) in _CMP for o in node.ops):
            return node
        parts = [_lambda(node.left)]
        for op, c in zip(node.ops, node.comparators):
            parts += [_const(_CMP[type(op)]), _lambda(c)]
        return ast.copy_location(_call("convert_compare_chain", parts), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call("convert_ifelse_expr", [node.test, _lambda(node.body), _lambda(node.orelse)]),
                                 node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, ast.Load):
            return ast.copy_location(_call("convert_shape", [node.value]), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name):
            if f.id == "print":
                node.func = _jst("convert_print")
                return node
            if f.id == "len" and len(node.args) == 1 and not node.keywords:
                node.func = _jst("convert_len")
                return node
            if f.id == "super" and not node.args and self.self_name:
                node.args = [_load("__class__"), _load(self.self_name)]
                return node
            if f.id in _KEEP_CALLS:
                return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == JST:
            return node
        node.func = ast.copy_location(_call("convert_call", [f]), f)
        return node

    def visit_Expr(self, node):
        v = node.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "append" and \
                isinstance(v.func.value, ast.Name) and v.func.value.id in self.locals and len(v.args) == 1 and \
                not v.keywords:
            arg = self.visit(v.args[0])
            new = _assign(v.func.value.id, _call("convert_append", [_load(v.func.value.id), arg]))
            return ast.copy_location(new, node)
        self.generic_visit(node)
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        args = [node.test] + ([node.msg] if node.msg is not None else [])
        return ast.copy_location(ast.Expr(value=_call("convert_assert", args)), node)


# ---------------------------------------------------------------------------------- pass 2: returns
class _Returns:
    """return e -> rv = e; rf = True (and `break` inside loops); statements after a statement
    that may have returned run under `if not rf`; the function ends with `return rv`."""

    def __init__(self, k):
        self.rv, self.rf = f"{RV}_{k}", f"{RF}_{k}"

    @staticmethod
    def needed(fdef):
        body = fdef.body
        rets = [n for n in _walk_no_defs_body(fdef) if isinstance(n, ast.Return)]
        if not rets:
            return False
        return not (len(rets) == 1 and isinstance(body[-1], ast.Return) and rets[0] is body[-1])

    def apply(self, fdef):
        new = self.block(fdef.body, False)
        init = [_assign(self.rv, _const(None)), _assign(self.rf, _const(False))]
        end = ast.Return(value=_load(self.rv))
        first = fdef.body[0]
        _located(init, first)
        _located([end], fdef.body[-1])
        fdef.body = init + new + [end]

    def _ret(self, node, in_loop):
        out = [_assign(self.rv, node.value if node.value is not None else _const(None)),
               _assign(self.rf, _const(True))]
        if in_loop:
            out.append(ast.Break())
        return _located(out, node)

    def block(self, stmts, in_loop):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                out += self._ret(s, in_loop)
                return out
            has = _contains([s], ast.Return, into_loops=True)
            tb = fb = False
            if has and isinstance(s, ast.If):
                tb, fb = _terminates(s.body), _terminates(s.orelse)
            if has:
                self._children(s, in_loop)
            out.append(s)
            if not has:
                continue
            rest = stmts[i + 1:]
            if isinstance(s, (ast.For, ast.While)) and in_loop:
                out.append(_located([ast.If(test=_load(self.rf), body=[ast.Break()], orelse=[])], s)[0])
                continue
            if in_loop:
                continue  # the `break` after the assignment ends the iteration (pass 3 guards the rest)
            if isinstance(s, ast.If) and (tb or fb):
                # the rest of the block runs only where the if did not return: move it into that branch
                if tb and fb:
                    return out
                if rest:
                    if tb:
                        s.orelse = [x for x in s.orelse if not isinstance(x, ast.Pass)] + self.block(rest, in_loop)
                    else:
                        s.body = [x for x in s.body if not isinstance(x, ast.Pass)] + self.block(rest, in_loop)
                return out
            if rest:
                guard = ast.If(test=_call("convert_logical_not", [_load(self.rf)]), body=self.block(rest, in_loop),
                               orelse=[])
                out.append(_located([guard], rest[0])[0])
            return out
        return out

    def _children(self, s, in_loop):
        if isinstance(s, (ast.For, ast.While)):
            s.body = self.block(s.body, True)
            s.orelse = self.block(s.orelse, in_loop) if s.orelse else s.orelse
        elif isinstance(s, ast.If):
            s.body = self.block(s.body, in_loop) or [ast.Pass()]
            s.orelse = self.block(s.orelse, in_loop)
        elif isinstance(s, ast.With):
            s.body = self.block(s.body, in_loop)
        elif isinstance(s, ast.Try):
            s.body = self.block(s.body, in_loop)
            for h in s.handlers:
                h.body = self.block(h.body, in_loop)
            s.orelse = self.block(s.orelse, in_loop)
            s.finalbody = self.block(s.finalbody, in_loop)


def _terminates(stmts):
    """Does every path through stmts end in return/raise?"""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


def _walk_no_defs(node):
    yield node
    for c in ast.iter_child_nodes(node):
        if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield from _walk_no_defs(c)


# ---------------------------------------------------------------------------------- pass 3: break / continue
class _BreakContinue:
    def __init__(self, counter):
        self.counter = counter

    def stmts(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, (ast.For, ast.While)):
            s.body = self.stmts(s.body)
            s.orelse = self.stmts(s.orelse)
            return self.loop(s)
        if isinstance(s, ast.If):
            s.body, s.orelse = self.stmts(s.body), self.stmts(s.orelse)
        elif isinstance(s, ast.With):
            s.body = self.stmts(s.body)
        elif isinstance(s, ast.Try):
            s.body, s.orelse, s.finalbody = self.stmts(s.body), self.stmts(s.orelse), self.stmts(s.finalbody)
            for h in s.handlers:
                h.body = self.stmts(h.body)
        return [s]

    def loop(self, loop):
        has_b = _contains(loop.body, ast.Break)
        has_c = _contains(loop.body, ast.Continue)
        s_orelse = loop.orelse
        if not (has_b or has_c):
            if s_orelse:
                loop.orelse = []
                return [loop] + s_orelse
            return [loop]
        k = self.counter()
        brk = f"brk_{k}" if has_b else None
        cont = f"cont_{k}" if has_c else None
        flags = [f for f in (brk, cont) if f]
        body = self.guard(loop.body, brk, cont, flags)
        if cont:
            body = _located([_assign(cont, _const(False))], loop.body[0]) + body
        loop.body = body
        loop.orelse = []
        loop._jst_flags = [brk] if brk else []
        pre = _located([_assign(brk, _const(False))], loop) if brk else []
        post = []
        if s_orelse:
            post = [ast.If(test=_call("not_any", [_load(brk)]), body=s_orelse, orelse=[])] if brk else s_orelse
            _located(post, s_orelse[0])
        return pre + [loop] + post

    def guard(self, stmts, brk, cont, flags):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Break):
                out += _located([_assign(brk, _const(True))], s)
                return out
            if isinstance(s, ast.Continue):
                out += _located([_assign(cont, _const(True))], s)
                return out
            has = _contains([s], (ast.Break, ast.Continue))
            if has:
                if isinstance(s, ast.If):
                    s.body = self.guard(s.body, brk, cont, flags) or [ast.Pass()]
                    s.orelse = self.guard(s.orelse, brk, cont, flags)
                elif isinstance(s, ast.With):
                    s.body = self.guard(s.body, brk, cont, flags)
                elif isinstance(s, ast.Try):
                    s.body = self.guard(s.body, brk, cont, flags)
                    for h in s.handlers:
                        h.body = self.guard(h.body, brk, cont, flags)
                    s.orelse = self.guard(s.orelse, brk, cont, flags)
            out.append(s)
            rest = stmts[i + 1:]
            if has and rest:
                g = ast.If(test=_call("not_any", [_load(f) for f in flags]),
                           body=self.guard(rest, brk, cont, flags), orelse=[])
                out.append(_located([g], rest[0])[0])
                return out
        return out


# ---------------------------------------------------------------------------------- pass 4: control flow
class _ControlFlow:
    """if/while/for -> helper functions + a _jst call, innermost first."""

    def __init__(self, counter, globals_):
        self.counter = counter
        self.globals = set(globals_)

    def decls(self, names):
        g = [n for n in names if n in self.globals]
        nl = [n for n in names if n not in self.globals]
        out = []
        if g:
            out.append(ast.Global(names=g))
        if nl:
            out.append(ast.Nonlocal(names=nl))
        return out

    def args_fns(self, k, names):
        get = _def(f"get_args_{k}", [ast.Return(value=ast.Tuple(elts=[_load(n) for n in names], ctx=ast.Load()))])
        if names:
            tgt = ast.Tuple(elts=[_store(n) for n in names], ctx=ast.Store())
            sbody = self.decls(names) + [ast.Assign(targets=[tgt], value=_load("_jst_args"))]
        else:
            sbody = [ast.Pass()]
        put = _def(f"set_args_{k}", sbody, args=("_jst_args",))
        return get, put

    def stmts(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, ast.If):
            s.body, s.orelse = self.stmts(s.body), self.stmts(s.orelse)
            return _located(self.if_(s), s)
        if isinstance(s, ast.While):
            s.body = self.stmts(s.body)
            return _located(self.while_(s), s)
        if isinstance(s, ast.For):
            s.body = self.stmts(s.body)
            return _located(self.for_(s), s)
        if isinstance(s, ast.With):
            s.body = self.stmts(s.body)
        elif isinstance(s, ast.Try):
            s.body, s.orelse, s.finalbody = self.stmts(s.body), self.stmts(s.orelse), self.stmts(s.finalbody)
            for h in s.handlers:
                h.body = self.stmts(h.body)
        return [s]

    def names_tuple(self, names):
        return ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load())

    def if_(self, s):
        k = self.counter()
        names = assigned_names(s.body + s.orelse)
        tf = _def(f"true_fn_{k}", self.decls(names) + s.body)
        ff = _def(f"false_fn_{k}", self.decls(names) + s.orelse)
        get, put = self.args_fns(k, names)
        args = [s.test, _load(tf.name), _load(ff.name), _load(get.name), _load(put.name), self.names_tuple(names)]
        pushed = [n for n in appended_names(s.body + s.orelse) if n in names]
        if pushed:  # Paddle's push_pop_names: lists the branches append to
            args.append(self.names_tuple(pushed))
        call = ast.Expr(value=_call("convert_ifelse", args))
        return [tf, ff, get, put, call]

    def _loop(self, k, cond_expr, body, names, flags):
        test = cond_expr
        if flags:
            test = _call("loop_cond", [_lambda(cond_expr)] + [_load(f) for f in flags])
        cond = _def(f"loop_cond_{k}", [ast.Return(value=test)])
        bod = _def(f"loop_body_{k}", self.decls(names) + body)
        get, put = self.args_fns(k, names)
        call = ast.Expr(value=_call("convert_while_loop", [_load(cond.name), _load(bod.name), _load(get.name),
                                                          _load(put.name), self.names_tuple(names)]))
        return [cond, bod, get, put, call]

    def while_(self, s):
        k = self.counter()
        names = assigned_names(s.body)
        out = self._loop(k, s.test, s.body, names, getattr(s, "_jst_flags", []))
        return out + s.orelse

    def for_(self, s):
        k = self.counter()
        it, idx = f"for_iter_{k}", f"for_idx_{k}"
        src = s.iter
        if isinstance(src, ast.Call) and isinstance(src.func, ast.Name) and not src.keywords and \
                src.func.id in ("range", "enumerate", "zip"):
            make = _call(f"for_{src.func.id}", src.args)
        else:
            make = _call("for_iter", [src])
        pre = [_assign(it, make),
               _assign(idx, ast.Call(func=ast.Attribute(value=_load(it), attr="start", ctx=ast.Load()), args=[],
                                     keywords=[]))]
        head = [ast.Assign(targets=[s.target],
                           value=ast.Call(func=ast.Attribute(value=_load(it), attr="item", ctx=ast.Load()),
                                          args=[_load(idx)], keywords=[])),
                _assign(idx, ast.Call(func=ast.Attribute(value=_load(it), attr="step", ctx=ast.Load()),
                                      args=[_load(idx)], keywords=[]))]
        body = head + s.body
        names = assigned_names(body)
        has = ast.Call(func=ast.Attribute(value=_load(it), attr="has", ctx=ast.Load()), args=[_load(idx)],
                       keywords=[])
        return pre + self._loop(k, has, body, names, getattr(s, "_jst_flags", [])) + s.orelse


# ---------------------------------------------------------------------------------- driver
class _Counter:
    def __init__(self):
        self.n = 0

    def __call__(self):
        k = self.n
        self.n += 1
        return k


def _mangle(tree, cls):
    """Private names (__x) of a method compiled outside its class: _Cls__x, as the class body did."""
    prefix = "_" + cls.lstrip("_")

    def m(n):
        return prefix + n if n.startswith("__") and not n.endswith("__") else n
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            node.attr = m(node.attr)
        elif isinstance(node, ast.Name) and node.id != "__class__":
            node.id = m(node.id)


def _function_scope_decls(fdef):
    g, nl = set(), set()
    for node in _walk_no_defs_body(fdef):
        if isinstance(node, ast.Global):
            g.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nl.update(node.names)
    return g, nl


def _walk_no_defs_body(fdef):
    for s in fdef.body:
        if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _walk_no_defs(s)


def _params(fdef):
    a = fdef.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return names


def transform_function(fdef, counter=None, class_name=None):
    """Transforms a FunctionDef in place (and the functions defined inside it); returns it."""
    counter = counter or _Counter()
    if class_name:
        _mangle(fdef, class_name)
    _Expressions(fdef.args.args[0].arg if fdef.args.args else None).visit(fdef)
    _transform_scope(fdef, counter)
    return fdef


def _transform_scope(fdef, counter):
    # nested user functions are their own scopes
    for node in list(_walk_no_defs_body(fdef)):
        for c in ast.iter_child_nodes(node):
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)):
                _transform_scope(c, counter)
    for s in fdef.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _transform_scope(s, counter)
    if _Returns.needed(fdef):
        _Returns(counter()).apply(fdef)
    fdef.body = _BreakContinue(counter).stmts(fdef.body)
    globals_, nonlocals = _function_scope_decls(fdef)
    fdef.body = _ControlFlow(counter, globals_).stmts(fdef.body)
    # names the helpers declare nonlocal must be bound here: they start undefined
    needed = {}
    for node in fdef.body:
        if isinstance(node, ast.FunctionDef) and getattr(node, "_jst_helper", False):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Nonlocal):
                    for n in sub.names:
                        needed[n] = None
    skip = set(_params(fdef)) | globals_ | nonlocals
    init = [_assign(n, _call("UndefinedVar", [_const(n)])) for n in needed if n not in skip]
    if init:
        at = 1 if (fdef.body and isinstance(fdef.body[0], ast.Expr) and isinstance(fdef.body[0].value, ast.Constant)
                   and isinstance(fdef.body[0].value.value, str)) else 0
        _located(init, fdef.body[at] if at < len(fdef.body) else fdef)
        fdef.body[at:at] = init


def copy_tree(node):
    return copy.deepcopy(node)
