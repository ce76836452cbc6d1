/* The executor's ops that call back into Python through pd_exec_callback (set by the extension,
 * csrc/python/exec_callback_py.c): print (Paddle's Print: formats its input in Python when the
 * phase and first_n allow, then passes it on with its LoD) and py_func (runs the registered
 * Python function on its inputs; its outputs become the Out variables). Also py_func's program
 * reader (its compat loader), used when append_backward replays a program. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "pd_compat.h"
#include "pd_exec_callback.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

static int64_t attr_int(const pd_opdesc *op, const char *name, int64_t dflt) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  int64_t v = dflt;
  if (a && pd_attr_as_int(op, a, &v) != PD_OK) {
    pd_clear_error();
    v = dflt;
  }
  return v;
}

static const char *attr_str(const pd_opdesc *op, const char *name, const char *dflt) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  return a && a->type == PD_AT_STRING && a->s ? a->s : dflt;
}

/* one special instruction reading the args of input slot `in` and writing those of `out` */
static pd_status emit(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op, const char *in_slot,
                      const char *out_slot, pd_special_run_fn fn, pd_instr **out) {
  const pd_opslot *is = pd_opdesc_slot(op, 0, in_slot), *os = pd_opdesc_slot(op, 1, out_slot);
  int ni = is ? is->n : 0, no = os ? os->n : 0;
  int *ins = (int *)malloc(sizeof(int) * (size_t)(ni ? ni : 1)), *outs = (int *)malloc(sizeof(int) * (size_t)(no ? no : 1));
  pd_status s = ins && outs ? PD_OK : oom();
  for (int k = 0; s == PD_OK && k < ni; k++) s = pd_plan_slot(p, b, is->args[k], &ins[k]);
  for (int k = 0; s == PD_OK && k < no; k++) s = pd_plan_slot(p, b, os->args[k], &outs[k]);
  pd_instr *in = NULL;
  if (s == PD_OK) s = pd_plan_add_instr(p, list, &in);
  if (s != PD_OK) {
    free(ins);
    free(outs);
    return s;
  }
  in->special = fn;
  in->desc = op;
  in->ins = ins;
  in->n_ins = ni;
  in->out = outs;
  in->n_out = no;
  *out = in;
  return PD_OK;
}

static pd_status need_value(const pd_exec *r, const pd_instr *in, int k, pd_value **v) {
  *v = r->bound[in->ins[k]];
  if ((*v)->kind != PD_VAL_TENSOR || !(*v)->t)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] its input %s has no value: it is neither fed nor "
                        "computed before", in->desc->type, in->desc->in[0].n > k ? in->desc->in[0].args[k] : "?");
  return PD_OK;
}

/* ---------------------------------------------------------------- print */
typedef struct {
  int64_t times;  /* runs so far (first_n) */
} print_state;

static pd_status run_print(pd_exec *r, const pd_instr *in) {
  const pd_opdesc *op = in->desc;
  pd_value *src;
  PD_TRY(need_value(r, in, 0, &src));
  print_state *ps = (print_state *)in->extra;
  const char *phase = attr_str(op, "print_phase", "BOTH");
  int fwd = attr_int(op, "is_forward", 1) != 0;
  int show = strcasecmp(phase, "BOTH") == 0 || strcasecmp(phase, fwd ? "FORWARD" : "BACKWARD") == 0;
  int64_t first_n = attr_int(op, "first_n", -1);
  if (show && first_n > 0 && ++ps->times > first_n) show = 0;
  if (show) {
    if (!pd_exec_callback)
      return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[print] no Python callback is installed (import paddle)");
    pd_tensor *t = src->t;
    const pd_lod *l = &src->lod;
    PD_TRY(pd_exec_callback(op, &t, &l, 1, NULL, 0));
  }
  pd_value *dst = in->n_out ? r->bound[in->out[0]] : NULL;
  return dst && dst != src ? pd_value_copy(dst, src) : PD_OK;
}

pd_status pd_exec_compile_print(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  const pd_opslot *is = pd_opdesc_slot(op, 0, "In"), *os = pd_opdesc_slot(op, 1, "Out");
  if (!is || is->n != 1 || (os && os->n > 1))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[print] expected one input In and at most one output Out");
  pd_instr *in;
  PD_TRY(emit(p, list, b, op, "In", "Out", run_print, &in));
  in->extra = calloc(1, sizeof(print_state));
  if (!in->extra) return oom();
  in->extra_free = free;
  return PD_OK;
}

/* ---------------------------------------------------------------- py_func */
static pd_status run_py_func(pd_exec *r, const pd_instr *in) {
  if (!pd_exec_callback)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[py_func] no Python callback is installed (import paddle)");
  int ni = in->n_ins, no = in->n_out;
  pd_tensor **ts = (pd_tensor **)calloc((size_t)(ni + no + 1), sizeof(pd_tensor *));
  const pd_lod **ls = (const pd_lod **)calloc((size_t)(ni + 1), sizeof(pd_lod *));
  pd_status s = ts && ls ? PD_OK : oom();
  for (int k = 0; s == PD_OK && k < ni; k++) {
    pd_value *v;
    s = need_value(r, in, k, &v);
    if (s == PD_OK) {
      ts[k] = v->t;
      ls[k] = &v->lod;
    }
  }
  pd_tensor **outs = ts ? ts + ni : NULL;
  if (s == PD_OK) s = pd_exec_callback(in->desc, ts, ls, ni, outs, no);
  for (int k = 0; s == PD_OK && k < no; k++)
    if (!outs[k] || !outs[k]->storage)
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[py_func] the function returned no value for output %s",
                       in->desc->out[0].n > k ? in->desc->out[0].args[k] : "?");
  for (int k = 0; k < no && outs; k++) {
    if (s == PD_OK) pd_value_set(r->bound[in->out[k]], outs[k]);
    else pd_tensor_release(outs[k]);
  }
  free(ts);
  free(ls);
  return s;
}

pd_status pd_exec_compile_py_func(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  pd_instr *in;
  return emit(p, list, b, op, "X", "Out", run_py_func, &in);
}

/* reading a py_func program op as our op (append_backward's replay): the outputs' metas from
 * the Out variables, backward_skip_vars as positions in X and Out */
pd_status pd_cv_load_py_func(pd_convert_ctx *c) {
  const pd_opdesc *op = pd_cv_op(c);
  const pd_opslot *xs = pd_opdesc_slot(op, 0, "X"), *os = pd_opdesc_slot(op, 1, "Out");
  int nx = xs ? xs->n : 0, no = os ? os->n : 0;
  pd_tensor **x = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(nx + 1));
  pd_tensor **o = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(no + 1));
  int64_t *dts = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * (size_t)(no + 1));
  int64_t *nds = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * (size_t)(no + 1));
  int64_t *dims = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * (size_t)(no * PD_MAX_DIMS + 1));
  const pd_attr *sk = pd_opdesc_attr(op, "backward_skip_vars");
  int64_t nsk = sk && sk->type == PD_AT_STRINGS ? sk->n : 0;
  int64_t *skx = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * (size_t)(nsk + 1));
  int64_t *sko = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * (size_t)(nsk + 1));
  if (!x || !o || !dts || !nds || !dims || !skx || !sko) return oom();
  for (int i = 0; i < nx; i++)
    if (!(x[i] = pd_cv_in(c, "X", i)))
      return pd_set_error(PD_ERR_NOT_FOUND, "[py_func] input %s is not declared", xs->args[i]);
  int64_t nd = 0, nskx = 0, nsko = 0;
  for (int k = 0; k < no; k++) {
    const pd_var *v = pd_block_find_var_recursive(op->block, os->args[k]);
    if (!v) return pd_set_error(PD_ERR_NOT_FOUND, "[py_func] output %s is not declared", os->args[k]);
    dts[k] = pd_dtype_is_valid(v->dtype) ? v->dtype : PD_FLOAT32;
    nds[k] = v->ndim < 0 ? 0 : v->ndim;
    for (int d = 0; d < nds[k]; d++) dims[nd++] = v->dims[d];
  }
  for (int64_t q = 0; q < nsk; q++) {
    for (int i = 0; i < nx; i++)
      if (strcmp(xs->args[i], sk->strings[q]) == 0) skx[nskx++] = i;
    for (int k = 0; k < no; k++)
      if (strcmp(os->args[k], sk->strings[q]) == 0) sko[nsko++] = k;
  }
  pd_status st = PD_OK;
  int64_t fid = pd_cv_int(c, "forward_callable_id", -1, &st), bid = pd_cv_int(c, "backward_callable_id", -1, &st);
  PD_TRY(st);
  pd_py_func_args a = {.x = {x, nx}, .forward_callable_id = fid, .backward_callable_id = bid,
                       .out_dtypes = {dts, no}, .out_ndims = {nds, no}, .out_dims = {dims, nd},
                       .skip_x = {skx, nskx}, .skip_out = {sko, nsko}};
  int n = 0;
  PD_TRY(pd_cv_run(c, PD_OP_PY_FUNC, &a, o, no, &n));
  for (int k = 0; k < n; k++) {
    if (st == PD_OK) st = pd_cv_out(c, "Out", k, o[k]);
    pd_tensor_release(o[k]);
  }
  return st;
}
