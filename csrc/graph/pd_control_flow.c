/* The executor's conditional ops: conditional_block (runs its sub-block's list when the condition
 * holds), conditional_block_grad (the same over a gradient block; when the condition fails it
 * writes zeros, or passes an output's gradient through for a variable the block overwrites),
 * select_input / select_output (cond's merge and its gradient), increment and the tensor-array
 * ops (write_to_array, read_from_array, lod_array_length). Helpers shared with while. */
#include "../core/pd_device.h"
#include "pd_control_flow.h"
#include <stdlib.h>
#include <string.h>
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory compiling control flow"); }

static int empty_name(const char *n) { return !n || !n[0] || strcmp(n, "@EMPTY@") == 0; }

/* a variable read by sub that neither the plan nor sub's ancestors know: declared in a block off
 * sub's parent chain (the enclosing gradient block of a nested gradient block) */
static pd_status make_visible(pd_plan *p, const pd_block *sub, const char *name) {
  if (empty_name(name) || pd_plan_find_slot(p, name) >= 0 || pd_block_find_var_recursive(sub, name)) return PD_OK;
  for (int bi = 0; bi < p->prog->n_blocks; bi++) {
    const pd_block *x = p->prog->blocks[bi];
    if (pd_block_find_var(x, name)) {
      int s;
      return pd_plan_slot(p, x, name, &s);
    }
  }
  return PD_OK; /* pd_plan_slot reports it when the op is compiled */
}

pd_status pd_cf_slots(pd_plan *p, const pd_block *b, const pd_opdesc *op, int is_out, const char *slot,
                      int **out, int *n) {
  const pd_opslot *s = pd_opdesc_slot(op, is_out, slot);
  int k = s ? s->n : 0;
  int *v = (int *)malloc(sizeof(int) * (size_t)(k ? k : 1));
  if (!v) return oom();
  for (int i = 0; i < k; i++) {
    v[i] = -1;
    if (empty_name(s->args[i])) continue;
    pd_status st = make_visible(p, b, s->args[i]);
    if (st == PD_OK) st = pd_plan_slot(p, b, s->args[i], &v[i]);
    if (st != PD_OK) {
      free(v);
      return st;
    }
  }
  *out = v;
  *n = k;
  return PD_OK;
}

pd_status pd_cf_compile_sub(pd_plan *p, const pd_opdesc *op, const char *attr, int *list, int *block_idx) {
  const pd_attr *a = pd_opdesc_attr(op, attr);
  if (!a || a->type != PD_AT_BLOCK || a->i < 0 || a->i >= p->prog->n_blocks)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] needs a block attribute %s", op->type, attr);
  const pd_block *sub = p->prog->blocks[a->i];
  for (int i = 0; i < sub->n_ops; i++) {
    const pd_opdesc *o = sub->ops[i];
    for (int j = 0; j < o->n_in; j++)
      for (int k = 0; k < o->in[j].n; k++) PD_TRY(make_visible(p, sub, o->in[j].args[k]));
  }
  if (block_idx) *block_idx = (int)a->i;
  return pd_plan_compile_block(p, (int)a->i, list);
}

pd_status pd_cf_add(pd_plan *p, int list, const pd_opdesc *op, pd_special_run_fn fn, const int *ins,
                    int n_ins, const int *outs, int n_outs, pd_instr **out) {
  int *ci = (int *)malloc(sizeof(int) * (size_t)(n_ins ? n_ins : 1));
  int *co = (int *)malloc(sizeof(int) * (size_t)(n_outs ? n_outs : 1));
  if (!ci || !co) {
    free(ci);
    free(co);
    return oom();
  }
  if (n_ins) memcpy(ci, ins, sizeof(int) * (size_t)n_ins);
  if (n_outs) memcpy(co, outs, sizeof(int) * (size_t)n_outs);
  pd_instr *in;
  pd_status s = pd_plan_add_instr(p, list, &in);
  if (s != PD_OK) {
    free(ci);
    free(co);
    return s;
  }
  in->special = fn;
  in->desc = op;
  in->ins = ci;
  in->n_ins = n_ins;
  in->out = co;
  in->n_out = n_outs;
  *out = in;
  return PD_OK;
}

static const char *in_name(const pd_instr *in, const char *slot, int k) {
  const pd_opslot *s = pd_opdesc_slot(in->desc, 0, slot);
  return s && k < s->n ? s->args[k] : "?";
}

pd_status pd_cf_truth(const pd_instr *in, const pd_value *v, int is_scalar, int *out) {
  if (!v || v->kind != PD_VAL_TENSOR || !v->t)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] its condition %s has no value", in->desc->type,
                        in_name(in, strcmp(in->desc->type, "while") == 0 ? "Condition" : "Cond", 0));
  const pd_tensor *t = v->t;
  if (!is_scalar) {
    *out = t->numel != 0;
    return PD_OK;
  }
  if (t->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the condition must hold exactly one element, but "
                        "it has %lld", in->desc->type, (long long)t->numel);
  unsigned char buf[16];
  const void *e;
  PD_TRY(pd_elem_host(t, t->offset, buf, &e)); /* a GPU plan's condition is read back */
  *out = pd_load_as_double(e, t->dtype) != 0.0;
  return PD_OK;
}

/* ---------------------------------------------------------------- conditional_block */
typedef struct cb_info {
  int n_cond, is_scalar, sub_block;
  int n_in;          /* conditional_block_grad: Input entries (ins after the conds) */
  int *pass;         /* per Input: index into ins of an Out@GRAD to pass through, or -1 */
  /* conditional_block: the inputs its branch overwrites and private slots keeping their values
   * from before it ran (slots, so that a loop around it records them per iteration) */
  int n_keep;
  int *keep, *kept;
  struct cb_info *fwd; /* conditional_block_grad: its forward's (owned by the forward) */
} cb_info;

static void cb_free(void *x) {
  cb_info *c = (cb_info *)x;
  if (!c) return;
  free(c->kept);
  free(c->keep);
  free(c->pass);
  free(c);
}

static pd_status cond_holds(pd_exec *r, const pd_instr *in, const cb_info *c, int *ok) {
  *ok = 1;
  for (int k = 0; k < c->n_cond && *ok; k++) {
    int slot = in->ins[k];
    PD_TRY(pd_cf_truth(in, slot >= 0 ? r->bound[slot] : NULL, c->is_scalar, ok));
  }
  return PD_OK;
}

static pd_status run_cond_block(pd_exec *r, const pd_instr *in) {
  cb_info *c = (cb_info *)in->extra;
  int ok;
  PD_TRY(cond_holds(r, in, c, &ok));
  for (int k = 0; k < c->n_keep; k++) {
    pd_value_clear(r->bound[c->kept[k]]);
    if (ok) PD_TRY(pd_value_copy(r->bound[c->kept[k]], r->bound[c->keep[k]]));
  }
  return ok ? pd_exec_list(r, in->sub[0]) : PD_OK;
}

/* runs the gradient block with the inputs the branch overwrote back at their values before it */
static pd_status run_with_kept(pd_exec *r, const pd_instr *in, const cb_info *f) {
  if (!f || !f->n_keep) return pd_exec_list(r, in->sub[0]);
  pd_value *now = (pd_value *)calloc((size_t)f->n_keep, sizeof(pd_value));
  if (!now) return oom();
  pd_status s = PD_OK;
  for (int k = 0; s == PD_OK && k < f->n_keep; k++) {
    s = pd_value_copy(&now[k], r->bound[f->keep[k]]);
    if (s == PD_OK) s = pd_value_copy(r->bound[f->keep[k]], r->bound[f->kept[k]]);
  }
  if (s == PD_OK) s = pd_exec_list(r, in->sub[0]);
  for (int k = 0; k < f->n_keep; k++) {
    pd_status s2 = pd_value_copy(r->bound[f->keep[k]], &now[k]);
    if (s == PD_OK) s = s2;
    pd_value_clear(&now[k]);
  }
  free(now);
  return s;
}

static pd_status run_cond_block_grad(pd_exec *r, const pd_instr *in) {
  const cb_info *c = (const cb_info *)in->extra;
  int ok;
  PD_TRY(cond_holds(r, in, c, &ok));
  if (ok) return run_with_kept(r, in, c->fwd);
  /* the branch did not run: its inputs get zero gradients, or the gradient of the variable they
   * stayed when the branch would have overwritten them */
  for (int k = 0; k < c->n_in && k < in->n_out; k++) {
    int dst = in->out[k], src = in->ins[c->n_cond + k];
    if (dst < 0) continue;
    if (c->pass[k] >= 0) {
      int ps = in->ins[c->pass[k]];
      if (ps >= 0 && r->bound[ps]->kind != PD_VAL_EMPTY && r->bound[ps] != r->bound[dst])
        PD_TRY(pd_value_copy(r->bound[dst], r->bound[ps]));
      continue;
    }
    const pd_value *x = src >= 0 ? r->bound[src] : NULL;
    if (!x || x->kind != PD_VAL_TENSOR || !x->t) continue;
    pd_tensor *z;
    PD_TRY(pd_tensor_zeros(x->t->dtype, x->t->ndim, x->t->shape, &z));
    pd_value_set(r->bound[dst], z);
  }
  return PD_OK;
}

/* the conditional_block whose branch is block fwd */
static cb_info *find_forward_cb(const pd_plan *p, int fwd) {
  for (int l = 0; l < p->n_lists; l++)
    for (int i = 0; i < p->lists[l].n; i++) {
      const pd_instr *in = &p->lists[l].v[i];
      if (in->special == run_cond_block && ((cb_info *)in->extra)->sub_block == fwd) return (cb_info *)in->extra;
    }
  return NULL;
}

static pd_status compile_cb(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op, int grad) {
  int sub, sub_block;
  PD_TRY(pd_cf_compile_sub(p, op, "sub_block", &sub, &sub_block));
  int *cond = NULL, *ins = NULL, *outs = NULL, *fo = NULL, *go = NULL, *all = NULL;
  int nc = 0, ni = 0, no = 0, nfo = 0, ngo = 0;
  cb_info *c = (cb_info *)calloc(1, sizeof *c);
  pd_status s = c ? PD_OK : oom();
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 0, "Cond", &cond, &nc);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 0, "Input", &ins, &ni);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 1, grad ? "Input@GRAD" : "Out", &outs, &no);
  if (s == PD_OK && grad) s = pd_cf_slots(p, b, op, 0, "Out", &fo, &nfo);
  if (s == PD_OK && grad) s = pd_cf_slots(p, b, op, 0, "Out@GRAD", &go, &ngo);
  if (s == PD_OK && nc < 1) s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] needs a Cond input", op->type);
  if (s == PD_OK) {
    c->pass = (int *)malloc(sizeof(int) * (size_t)(ni + 1));
    c->keep = (int *)malloc(sizeof(int) * (size_t)(ni + 1));
    c->kept = (int *)malloc(sizeof(int) * (size_t)(ni + 1));
    if (!c->pass || !c->keep || !c->kept) s = oom();
  }
  /* a forward keeps what its branch overwrites; its gradient reads those private slots too */
  for (int k = 0; s == PD_OK && !grad && k < ni; k++)
    for (int j = 0; j < no; j++)
      if (ins[k] >= 0 && outs[j] == ins[k]) {
        c->keep[c->n_keep] = ins[k];
        s = pd_plan_temp_slot(p, &c->kept[c->n_keep++]);
        break;
      }
  if (s == PD_OK && grad) c->fwd = find_forward_cb(p, p->prog->blocks[sub_block]->forward_block_idx);
  int nk = c && c->fwd ? c->fwd->n_keep : 0, nall = nc + ni + ngo + nk;
  if (s == PD_OK && !(all = (int *)malloc(sizeof(int) * (size_t)(nall + no + c->n_keep + 1)))) s = oom();
  pd_instr *in = NULL;
  if (s == PD_OK) {
    const pd_attr *sc = pd_opdesc_attr(op, "is_scalar_condition");
    c->n_cond = nc;
    c->is_scalar = sc && sc->i;
    c->n_in = ni;
    c->sub_block = sub_block;
    memcpy(all, cond, sizeof(int) * (size_t)nc);
    memcpy(all + nc, ins, sizeof(int) * (size_t)ni);
    for (int k = 0; k < ngo; k++) all[nc + ni + k] = go[k];
    for (int k = 0; k < nk; k++) all[nc + ni + ngo + k] = c->fwd->kept[k];
    for (int k = 0; k < ni; k++) {
      c->pass[k] = -1;
      for (int j = 0; j < nfo && j < ngo; j++)
        if (fo[j] >= 0 && fo[j] == ins[k] && go[j] >= 0) c->pass[k] = nc + ni + j;
    }
    /* outputs: the op's, then (forward) the private slots it writes */
    int *o = all + nall;
    memcpy(o, outs, sizeof(int) * (size_t)no);
    memcpy(o + no, c->kept, sizeof(int) * (size_t)c->n_keep);
    s = pd_cf_add(p, list, op, grad ? run_cond_block_grad : run_cond_block, all, nall, o, no + c->n_keep, &in);
  }
  if (s == PD_OK) {
    in->sub[0] = sub;
    in->extra = c;
    in->extra_free = cb_free;
    c = NULL;
  }
  cb_free(c);
  free(cond);
  free(ins);
  free(outs);
  free(fo);
  free(go);
  free(all);
  return s;
}

pd_status pd_cf_compile_conditional_block(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_cb(p, list, b, op, 0);
}

pd_status pd_cf_compile_conditional_block_grad(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_cb(p, list, b, op, 1);
}

/* ---------------------------------------------------------------- select_input / select_output */
static pd_status mask_index(pd_exec *r, const pd_instr *in, int n, int *idx) {
  const pd_value *m = in->ins[0] >= 0 ? r->bound[in->ins[0]] : NULL;
  if (!m || m->kind != PD_VAL_TENSOR || !m->t || m->t->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] Mask must be a tensor of one element",
                        in->desc->type);
  unsigned char buf[16];
  const void *e;
  PD_TRY(pd_elem_host(m->t, m->t->offset, buf, &e));
  int64_t k = pd_load_as_int64(e, m->t->dtype);
  if (k < 0 || k >= n)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] Mask is %lld, expected a value in [0, %d)",
                        in->desc->type, (long long)k, n);
  *idx = (int)k;
  return PD_OK;
}

static pd_status run_select_input(pd_exec *r, const pd_instr *in) {
  int k = 0;
  PD_TRY(mask_index(r, in, in->n_ins - 1, &k));
  int src = in->ins[1 + k], dst = in->out[0];
  if (src < 0 || r->bound[src]->kind == PD_VAL_EMPTY)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[select_input] the selected input %s has no value",
                        in_name(in, "X", k));
  return r->bound[src] == r->bound[dst] ? PD_OK : pd_value_copy(r->bound[dst], r->bound[src]);
}

static pd_status run_select_output(pd_exec *r, const pd_instr *in) {
  int k = 0;
  PD_TRY(mask_index(r, in, in->n_out, &k));
  int src = in->ins[1], dst = in->out[k];
  if (dst < 0) return PD_OK;
  if (src < 0 || r->bound[src]->kind == PD_VAL_EMPTY)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[select_output] its input %s has no value",
                        in_name(in, "X", 0));
  return r->bound[src] == r->bound[dst] ? PD_OK : pd_value_copy(r->bound[dst], r->bound[src]);
}

static pd_status compile_select(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op, int is_input) {
  int *mask = NULL, *xs = NULL, *outs = NULL, *all = NULL;
  int nm = 0, nx = 0, no = 0;
  pd_status s = pd_cf_slots(p, b, op, 0, "Mask", &mask, &nm);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 0, "X", &xs, &nx);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 1, "Out", &outs, &no);
  if (s == PD_OK && (nm != 1 || nx < 1 || no < 1))
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] needs one Mask, X and Out", op->type);
  if (s == PD_OK && !(all = (int *)malloc(sizeof(int) * (size_t)(nx + 1)))) s = oom();
  pd_instr *in;
  if (s == PD_OK) {
    all[0] = mask[0];
    memcpy(all + 1, xs, sizeof(int) * (size_t)nx);
    s = pd_cf_add(p, list, op, is_input ? run_select_input : run_select_output, all, nx + 1, outs, no, &in);
  }
  free(mask);
  free(xs);
  free(outs);
  free(all);
  return s;
}

pd_status pd_cf_compile_select_input(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_select(p, list, b, op, 1);
}

pd_status pd_cf_compile_select_output(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_select(p, list, b, op, 0);
}

/* ---------------------------------------------------------------- increment */
static pd_status run_increment(pd_exec *r, const pd_instr *in) {
  const pd_value *x = in->ins[0] >= 0 ? r->bound[in->ins[0]] : NULL;
  if (!x || x->kind != PD_VAL_TENSOR || !x->t)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[increment] its input %s has no value", in_name(in, "X", 0));
  if (x->t->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[increment] X must hold one element, it has %lld",
                        (long long)x->t->numel);
  double step = *(const double *)in->extra;
  int is_int = !(pd_dtype_is_float(x->t->dtype) || pd_dtype_is_complex(x->t->dtype));
  pd_scale_args a = {x->t, pd_scalar_float(1.0), is_int ? pd_scalar_int((int64_t)step) : pd_scalar_float(step), 1};
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  PD_TRY(pd_op_exec(PD_OP_SCALE, &a, &o, &n));
  pd_value_set(r->bound[in->out[0]], o[0]);
  for (int k = 1; k < n; k++) pd_tensor_release(o[k]);
  return PD_OK;
}

pd_status pd_cf_compile_increment(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  int *x = NULL, *o = NULL, nx = 0, no = 0;
  double *step = (double *)malloc(sizeof(double));
  pd_status s = step ? PD_OK : oom();
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 0, "X", &x, &nx);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 1, "Out", &o, &no);
  if (s == PD_OK && (nx != 1 || no != 1 || x[0] < 0 || o[0] < 0))
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[increment] needs one X and one Out");
  const pd_attr *a = pd_opdesc_attr(op, "step");
  if (s == PD_OK) {
    *step = 1.0;
    if (a) s = pd_attr_as_double(op, a, step);
  }
  pd_instr *in;
  if (s == PD_OK) s = pd_cf_add(p, list, op, run_increment, x, 1, o, 1, &in);
  if (s == PD_OK) {
    in->extra = step;
    in->extra_free = free;
    step = NULL;
  }
  free(step);
  free(x);
  free(o);
  return s;
}

/* ---------------------------------------------------------------- tensor arrays */
static pd_status array_index(pd_exec *r, const pd_instr *in, int slot, int64_t *out) {
  const pd_value *v = slot >= 0 ? r->bound[slot] : NULL;
  if (!v || v->kind != PD_VAL_TENSOR || !v->t || v->t->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the index I must be a tensor of one element",
                        in->desc->type);
  unsigned char buf[16];
  const void *e;
  PD_TRY(pd_elem_host(v->t, v->t->offset, buf, &e));
  *out = pd_load_as_int64(e, v->t->dtype);
  return PD_OK;
}

/* write_to_array: Out[I] = X (the array grows as needed) */
static pd_status run_write_array(pd_exec *r, const pd_instr *in) {
  int64_t i = 0;
  PD_TRY(array_index(r, in, in->ins[1], &i));
  const pd_value *x = r->bound[in->ins[0]];
  if (x->kind != PD_VAL_TENSOR || !x->t)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[write_to_array] X %s has no value", in_name(in, "X", 0));
  pd_value *o = r->bound[in->out[0]];
  if (o->kind != PD_VAL_ARRAY) pd_value_clear(o);
  pd_tensor_retain(x->t);
  PD_TRY(pd_value_array_set(o, i, x->t));
  return x->lod.n ? pd_lod_copy(&o->arr_lod[i], &x->lod) : PD_OK;
}

/* read_from_array: Out = X[I] */
static pd_status run_read_array(pd_exec *r, const pd_instr *in) {
  int64_t i = 0;
  PD_TRY(array_index(r, in, in->ins[1], &i));
  const pd_value *a = r->bound[in->ins[0]];
  if (a->kind != PD_VAL_ARRAY || i < 0 || i >= a->n_arr || !a->arr[i])
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "[read_from_array] index %lld is out of range of the tensor "
                        "array %s (%d entries)", (long long)i, in_name(in, "X", 0),
                        a->kind == PD_VAL_ARRAY ? a->n_arr : 0);
  pd_tensor_retain(a->arr[i]);
  pd_value *o = r->bound[in->out[0]];
  pd_value_set(o, a->arr[i]);
  return a->arr_lod && a->arr_lod[i].n ? pd_lod_copy(&o->lod, &a->arr_lod[i]) : PD_OK;
}

/* lod_array_length: Out = int64 [1] holding the array's length */
static pd_status run_array_length(pd_exec *r, const pd_instr *in) {
  const pd_value *a = r->bound[in->ins[0]];
  int64_t one = 1;
  pd_tensor *t;
  PD_TRY(pd_tensor_zeros(PD_INT64, 1, &one, &t));
  *(int64_t *)pd_tensor_data(t) = a->kind == PD_VAL_ARRAY ? a->n_arr : 0;
  pd_value_set(r->bound[in->out[0]], t);
  return PD_OK;
}

static pd_status compile_array(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op, pd_special_run_fn fn,
                               int with_index) {
  int *x = NULL, *i = NULL, *o = NULL, nx = 0, ni = 0, no = 0;
  pd_status s = pd_cf_slots(p, b, op, 0, "X", &x, &nx);
  if (s == PD_OK && with_index) s = pd_cf_slots(p, b, op, 0, "I", &i, &ni);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 1, "Out", &o, &no);
  if (s == PD_OK && (nx != 1 || no != 1 || x[0] < 0 || o[0] < 0 || (with_index && (ni != 1 || i[0] < 0))))
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] needs one X%s and one Out", op->type, with_index ? ", one I" : "");
  pd_instr *in;
  if (s == PD_OK) {
    int ins[2] = {x[0], with_index ? i[0] : -1};
    s = pd_cf_add(p, list, op, fn, ins, with_index ? 2 : 1, o, 1, &in);
  }
  free(x);
  free(i);
  free(o);
  return s;
}

pd_status pd_cf_compile_write_to_array(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_array(p, list, b, op, run_write_array, 1);
}

pd_status pd_cf_compile_read_from_array(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_array(p, list, b, op, run_read_array, 1);
}

pd_status pd_cf_compile_array_length(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  return compile_array(p, list, b, op, run_array_length, 0);
}
