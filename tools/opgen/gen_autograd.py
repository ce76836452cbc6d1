"""Compiles the backward rules of the op table into C (csrc/autograd/generated/rules_gen.c).

An op's `backward` is either
  - a mapping {input_name: formula}: each formula is a Python-syntax expression over forward
    ops (by op name, positional or keyword args in the op's order), the helpers below, the
    names `grad` (gradient of output 0) / `grad_<output name>`, the op's inputs, its outputs
    (`out` ...), its attributes, and numbers / lists of ints / dtype strings;
  - {func: C function, save: [names]}: a hand-written apply (csrc/autograd/rules_*.c) with the
    listed tensors saved in that order (outputs allowed; `name:shape` saves the shape only; a
    Tensor[] input, which must come last, saves its elements from that position on; a Tensor[]
    output saves all outputs there and shifts the later positions by their count);
    `record: C function` replaces the generated record function (it saves what the apply needs,
    copies the args and sets n->apply; n->apply left NULL: no node, the outputs stay outside the
    graph);
    `null_grads: true` hands the apply NULL for outputs that got no gradient instead of zeros
    (for ops with large auxiliary outputs whose rule treats NULL as zero);
  - a plain string (a grad op name only): no rule yet; backward through the op raises
    NotImplementedError.
A tensor used only where its shape is needed (2nd arg of unbroadcast/expand_reduced/scalar,
arg of zeros_like/ones_like, dtype_of) is saved without its data."""
import ast

HELPERS = {
    # name: (C function, param kinds); T tensor, S shape-only tensor, I int[], B bool, F float
    "unbroadcast": ("pd_bw_unbroadcast", ["T", "S"]),
    "zeros_like": ("pd_bw_zeros_like", ["S"]),
    "ones_like": ("pd_bw_ones_like", ["S"]),
    "expand_reduced": ("pd_bw_expand_reduced", ["T", "S", "I", "B"]),
    "scalar": ("pd_bw_scalar", ["F", "S"]),
    "conj": ("pd_bw_conj", ["T"]),
    "sgn": ("pd_bw_sgn", ["T"]),  # helpers_elem.c: sign(x), or x/|x| for complex
    "reshape_like": ("pd_bw_reshape_to", ["T", "S"]),  # csrc/autograd/helpers_reduce.c
}
C_PARAM = {"T": "pd_tensor *", "S": "const pd_tensor *", "I": "pd_int_array", "B": "int", "F": "double",
           "I1": "int64_t"}
SHAPE_FUNCS = {"dtype_of", "numel", "dim"}
DTYPE_ENUM = {"bool": "PD_BOOL", "uint8": "PD_UINT8", "int8": "PD_INT8", "int16": "PD_INT16",
              "int32": "PD_INT32", "int64": "PD_INT64", "float16": "PD_FLOAT16",
              "bfloat16": "PD_BFLOAT16", "float32": "PD_FLOAT32", "float64": "PD_FLOAT64",
              "complex64": "PD_COMPLEX64", "complex128": "PD_COMPLEX128"}


class RuleError(SystemExit):
    pass


class Emitter:
    def __init__(self, op, ops_by_name, c_default):
        self.op = op
        self.ops = ops_by_name
        self.c_default = c_default
        self.args = {a["name"]: a for a in op["args_p"]}
        self.tensor_args = [a for a in op["args_p"] if a["type"] in ("Tensor", "Tensor?", "Tensor[]")]
        self.outs = [o["name"] for o in op["outs_p"]]
        self.lines = []
        self.ntemp = 0
        self.statics = []
        self.used_tensors = {}   # name -> "data" | "shape"

    def err(self, msg):
        raise RuleError(f"{self.op['_file']}: op {self.op['op']}: backward: {msg}")

    # ---- analysis: which tensors are used, and how ----
    def scan(self, node, shape_pos=False):
        if isinstance(node, ast.Name):
            n = node.id
            if n in self.args and self.args[n]["type"].startswith("Tensor") or n in self.outs:
                prev = self.used_tensors.get(n)
                kind = "shape" if shape_pos else "data"
                self.used_tensors[n] = "data" if "data" in (prev, kind) else "shape"
            return
        if isinstance(node, ast.Call):
            fname = node.func.id if isinstance(node.func, ast.Name) else None
            kinds = HELPERS[fname][1] if fname in HELPERS else None
            for i, a in enumerate(node.args):
                sp = (kinds is not None and i < len(kinds) and kinds[i] == "S") or fname in SHAPE_FUNCS
                self.scan(a, sp)
            for k in node.keywords:
                self.scan(k.value)
            return
        for c in ast.iter_child_nodes(node):
            self.scan(c, shape_pos)

    # ---- value emitters ----
    def num(self, node):
        """C double expression."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return repr(float(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{self.num(node.operand)})"
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}.get(type(node.op))
            if not op:
                self.err("only + - * / in numeric expressions")
            return f"({self.num(node.left)} {op} {self.num(node.right)})"
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "numel":
            return f"(double){self.tensor(node.args[0])}->numel"
        if isinstance(node, ast.Name) and node.id in self.args:
            t = self.args[node.id]["type"]
            if t == "Scalar":
                return f"a->{node.id}.f"
            if t in ("int", "float", "bool"):
                return f"(double)a->{node.id}"
        self.err(f"cannot use {ast.dump(node)} as a number")

    def intexpr(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int)):
            return str(int(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{self.intexpr(node.operand)})"
        if isinstance(node, ast.Name) and node.id in self.args:
            t = self.args[node.id]["type"]
            if t in ("int", "bool"):
                return f"a->{node.id}"
            if t == "Scalar":
                return f"a->{node.id}.i"
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dim":
            return f"(int64_t){self.tensor(node.args[0])}->ndim"
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}.get(type(node.op))
            return f"({self.intexpr(node.left)} {op} {self.intexpr(node.right)})"
        self.err(f"cannot use {ast.dump(node)} as an int")

    def intarray(self, node):
        if isinstance(node, ast.Name) and node.id in self.args and self.args[node.id]["type"] == "int[]":
            return f"a->{node.id}"
        if isinstance(node, (ast.List, ast.Tuple)):
            vals = [self.intexpr(v) for v in node.elts]
            name = f"arr_{self.op['op']}_{len(self.statics)}"  # unique per op: statics share one file
            if all(v.lstrip("-(").rstrip(")").isdigit() for v in vals):
                self.statics.append(f"static const int64_t {name}[] = {{{', '.join(vals) or '0'}}};")
                return f"(pd_int_array){{{name}, {len(vals)}}}"
            self.lines.append(f"int64_t {name}_{self.ntemp}[] = {{{', '.join(vals)}}};")
            self.statics.append("")
            return f"(pd_int_array){{{name}_{self.ntemp}, {len(vals)}}}"
        self.err(f"cannot use {ast.dump(node)} as int[]")

    def scalar(self, node):
        if isinstance(node, ast.Name) and node.id in self.args and self.args[node.id]["type"] == "Scalar":
            return f"a->{node.id}"
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return f"pd_scalar_int({node.value})"
        return f"pd_scalar_float({self.num(node)})"

    def dtype(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return DTYPE_ENUM[node.value]
        if isinstance(node, ast.Constant) and node.value is None:
            return "-1"
        if isinstance(node, ast.Name) and node.id in self.args and self.args[node.id]["type"] == "DataType":
            return f"a->{node.id}"
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dtype_of":
            return f"(int){self.tensor(node.args[0])}->dtype"
        self.err(f"cannot use {ast.dump(node)} as a dtype")

    def value(self, node, kind):
        if kind in ("Tensor", "Tensor?", "T", "S"):
            return self.tensor(node)
        if kind in ("int", "I1"):
            return self.intexpr(node)
        if kind in ("bool", "B"):
            return self.intexpr(node)
        if kind in ("float", "F"):
            return self.num(node)
        if kind in ("int[]", "I"):
            return self.intarray(node)
        if kind == "Scalar":
            return self.scalar(node)
        if kind == "DataType":
            return self.dtype(node)
        if kind == "str":
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return '"' + node.value + '"'
            if isinstance(node, ast.Name) and node.id in self.args:
                return f"a->{node.id}"
        self.err(f"unsupported argument kind {kind}")

    def tensor(self, node):
        """Emits statements; returns a C expression of type pd_tensor*."""
        if isinstance(node, ast.Name):
            n = node.id
            if n == "grad":
                return "gout[0]"
            if n.startswith("grad_") and n[5:] in self.outs:
                return f"gout[{self.outs.index(n[5:])}]"
            if n in self.used_tensors:
                return f"v_{n}"
            self.err(f"unknown tensor name {n}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            f = node.func.id
            t = f"T[{self.ntemp}]"
            self.ntemp += 1
            if f in HELPERS:
                cfn, kinds = HELPERS[f]
                if len(node.args) != len(kinds):
                    self.err(f"{f} takes {len(kinds)} arguments")
                vals = [self.value(a, k) for a, k in zip(node.args, kinds)]
                self.lines.append(f"if ((st = {cfn}({', '.join(vals)}, &{t})) != PD_OK) goto done;")
                return t
            if f in self.ops:
                callee = self.ops[f]
                params = callee["args_p"]
                given = {}
                for i, a in enumerate(node.args):
                    if i >= len(params):
                        self.err(f"too many arguments for {f}")
                    given[params[i]["name"]] = a
                for k in node.keywords:
                    given[k.arg] = k.value
                fields = []
                for p in params:
                    if p["name"] in given:
                        fields.append(self.value(given[p["name"]], p["type"]))
                    elif p["default"] is not None:
                        d = self.c_default(p)
                        if p["type"] in ("int[]", "float[]"):
                            vals = p["default"].strip().strip("{}[]").strip()
                            cnt = len([v for v in vals.split(",") if v.strip()]) if vals else 0
                            ctype = "int64_t" if p["type"] == "int[]" else "double"
                            nm = f"dflt{len(self.statics)}"
                            self.statics.append(f"static const {ctype} {nm}[] = {{{vals or '0'}}};")
                            ty = "pd_int_array" if p["type"] == "int[]" else "pd_float_array"
                            d = f"({ty}){{{nm}, {cnt}}}"
                        fields.append(d)
                    else:
                        self.err(f"call of {f} misses argument {p['name']}")
                body = ", ".join(fields) if fields else "0"
                if f == "cast":  # to the dtype it has already (float sums of float inputs): no copy
                    self.lines.append(f"{{ pd_cast_args c_ = {{{body}}}; "
                                      f"if (c_.x->dtype == (pd_dtype)c_.dtype) {{ pd_tensor_retain(c_.x); {t} = c_.x; }} "
                                      f"else if ((st = pd_bw_run1(PD_OP_CAST, &c_, &{t})) != PD_OK) goto done; }}")
                    return t
                self.lines.append(f"{{ pd_{f}_args c_ = {{{body}}}; "
                                  f"if ((st = pd_bw_run1(PD_OP_{f.upper()}, &c_, &{t})) != PD_OK) goto done; }}")
                return t
            self.err(f"unknown function {f}")
        self.err(f"unsupported expression {ast.dump(node)}")


def emit_rules(ops, c_default):
    by_name = {o["op"]: o for o in ops}
    out = ['/* GENERATED by tools/opgen/gen.py (gen_autograd.py) from the backward rules in ops/ -- do not edit. */\n',
           '#include <stdlib.h>\n#include <string.h>\n#include "../pd_autograd.h"\n#include "../../ops/generated/pd_ops_gen.h"\n\n',
           "pd_status pd_bw_run1(int op, const void *args, pd_tensor **out);\n"]
    # prototypes of every helper (those outside pd_autograd.h need no include)
    for cfn, kinds in HELPERS.values():
        out.append(f"pd_status {cfn}({', '.join(C_PARAM[k] for k in kinds)}, pd_tensor **out);\n")
    out.append("\n")
    table = []
    for op in ops:
        bw = op.get("backward")
        name = op["op"]
        if not isinstance(bw, dict):
            table.append("NULL")
            continue
        if "record" in bw:  # a hand-written record function (it saves, copies args, sets apply)
            out.append(f"pd_status {bw['func']}(pd_node *n, pd_tensor **gout, pd_tensor **gin);\n")
            out.append(f"pd_status {bw['record']}(pd_node *n, const void *args, pd_tensor **outs, int n_out);\n")
            table.append(bw["record"])
            continue
        if "func" in bw:
            saves = [str(s).split(":")[0] for s in bw.get("save", [])]
            used = {str(s).split(":")[0]: ("shape" if str(s).endswith(":shape") else "data")
                    for s in bw.get("save", [])}
            out.append(f"pd_status {bw['func']}(pd_node *n, pd_tensor **gout, pd_tensor **gin);\n")
            out.append(emit_record(op, used, bw["func"], saves, bool(bw.get("null_grads"))))
            table.append(f"rec_{name}")
            continue
        em = Emitter(op, by_name, c_default)
        formulas = {}
        for inp, f in bw.items():
            if inp not in em.args or not em.args[inp]["type"].startswith("Tensor"):
                em.err(f"{inp} is not a tensor input")
            if em.args[inp]["type"] == "Tensor[]":
                em.err("formulas cannot target Tensor[] inputs; use func:")
            tree = ast.parse(str(f), mode="eval").body
            formulas[inp] = tree
            em.scan(tree)
        saves = sorted(em.used_tensors, key=lambda n: ([a["name"] for a in op["args_p"]] + em.outs).index(n))
        body = []
        for inp, tree in formulas.items():
            idx = [a["name"] for a in em.tensor_args].index(inp)
            em.lines = []
            res = em.tensor(tree)
            body.append(f"  if (n->edges[{idx}].node || n->edges[{idx}].leaf) {{\n")
            for ln in em.lines:
                body.append(f"    {ln}\n")
            if res.startswith("T["):
                body.append(f"    gin[{idx}] = {res}; {res} = NULL;\n")
            else:
                body.append(f"    pd_tensor_retain({res}); gin[{idx}] = {res};\n")
            body.append("  }\n")
        out.extend(s + "\n" for s in em.statics if s)
        out.append(f"static pd_status bw_{name}(pd_node *n, pd_tensor **gout, pd_tensor **gin) {{\n")
        out.append(f"  const pd_{name}_args *a = (const pd_{name}_args *)n->args;\n  (void)a;\n")
        out.append("  pd_status st = PD_OK;\n")
        out.append(f"  pd_tensor *T[{max(em.ntemp, 1)}] = {{0}};\n")
        for k, s in enumerate(saves):
            out.append(f"  pd_tensor *v_{s} = NULL;\n  if ((st = pd_node_saved(n, {k}, &v_{s})) != PD_OK) goto done;\n")
        out.extend(body)
        out.append("  goto done; /* rules without fallible steps still use the label */\ndone:\n")
        out.append(f"  for (int i = 0; i < {max(em.ntemp, 1)}; i++) pd_tensor_release(T[i]);\n  return st;\n}}\n")
        out.append(emit_record(op, em.used_tensors, f"bw_{name}", saves))
        table.append(f"rec_{name}")
    out.append("\nconst pd_record_fn pd_record_fns[] = {\n")
    for t in table:
        out.append(f"  {t},\n")
    out.append("};\n")
    return "".join(out)


def emit_record(op, used, apply_fn, saves, null_grads=False):
    name = op["op"]
    outs = [o["name"] for o in op["outs_p"]]
    lines = [f"static void free_args_{name}(void *p) {{\n", f"  pd_{name}_args *c = (pd_{name}_args *)p;\n  (void)c;\n"]
    copy = [f"  pd_{name}_args *c = (pd_{name}_args *)malloc(sizeof *c);\n",
            "  if (!c) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, \"out of memory\");\n",
            f"  *c = *(const pd_{name}_args *)args;\n"]
    for a in op["args_p"]:
        t, nm = a["type"], a["name"]
        if t in ("Tensor", "Tensor?"):
            copy.append(f"  c->{nm} = NULL;\n")
        elif t == "Tensor[]":
            copy.append(f"  c->{nm}.data = NULL; c->{nm}.n = 0;\n")
        elif t in ("int[]", "float[]"):
            ct = "int64_t" if t == "int[]" else "double"
            copy.append(f"  {{ {ct} *d_ = ({ct} *)malloc(sizeof({ct}) * (size_t)(c->{nm}.n + 1));\n"
                        f"    if (!d_) {{ free(c); return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, \"out of memory\"); }}\n"
                        f"    if (c->{nm}.n) memcpy(d_, c->{nm}.data, sizeof({ct}) * (size_t)c->{nm}.n);\n"
                        f"    c->{nm}.data = d_; }}\n")
            lines.append(f"  free((void *)c->{nm}.data);\n")
        elif t == "str":
            copy.append(f"  c->{nm} = c->{nm} ? strdup(c->{nm}) : NULL;\n")
            lines.append(f"  free((void *)c->{nm});\n")
    lines.append("  free(c);\n}\n")
    rec = [f"static pd_status rec_{name}(pd_node *n, const void *args, pd_tensor **outs, int n_out) {{\n",
           f"  const pd_{name}_args *in = (const pd_{name}_args *)args;\n  (void)in; (void)outs; (void)n_out;\n"]
    list_outs = {o["name"] for o in op["outs_p"] if o["list"]}
    dyn = ""  # a Tensor[] output saved before: later positions shift by its count
    for k, s in enumerate(saves):
        if s in list_outs:
            rec.append(f"  for (int i_ = 0; i_ < n_out; i_++)\n"
                       f"    PD_TRY(pd_node_save(n, {k}{dyn} + i_, outs[i_], 0, i_));\n")
            dyn += " - 1 + n_out"
        elif s in outs:
            rec.append(f"  PD_TRY(pd_node_save(n, {k}{dyn}, outs[{outs.index(s)}], 0, {outs.index(s)}));\n")
        else:
            a = next(x for x in op["args_p"] if x["name"] == s)
            if a["type"] == "Tensor[]":
                if k != len(saves) - 1:
                    raise RuleError(f"op {name}: the Tensor[] {s} must be saved last")
                rec.append(f"  for (int64_t i_ = 0; i_ < in->{s}.n; i_++)\n"
                           f"    PD_TRY(pd_node_save(n, {k}{dyn} + (int)i_, in->{s}.data[i_], "
                           f"{1 if used.get(s) == 'shape' else 0}, -1));\n")
                continue
            rec.append(f"  PD_TRY(pd_node_save(n, {k}{dyn}, in->{s}, {1 if used.get(s) == 'shape' else 0}, -1));\n")
    rec.extend(copy)
    if null_grads:
        rec.append("  n->null_grads = 1;\n")
    rec.append(f"  n->args = c;\n  n->free_args = free_args_{name};\n  n->apply = {apply_fn};\n  return PD_OK;\n}}\n\n")
    return "".join(lines) + "".join(rec)
