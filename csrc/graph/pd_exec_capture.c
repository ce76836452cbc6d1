/* Compiling a block into a plan's instruction list (pd_executor.c runs it): every op goes through
 * its converter (pd_convert.c) with a capture tracer installed, so each of our ops the converter
 * runs becomes an instruction (op id, a deep copy of its args, the slots that feed its tensor
 * arguments and LoD, the slots that take its outputs); the converter's outputs are bound to the
 * op's output variables by aliasing the temporary slots, or by a share instruction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_convert.h"
#include "pd_exec_internal.h"
#include "pd_executor.h"
#include "pd_trace.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory compiling a program"); }

/* ---------------------------------------------------------------- capture tracer */
typedef struct {
  pd_plan *p;
  int list;
  const pd_block *block;
  const pd_opdesc *op;
  int first_new_slot;  /* slots >= this were made while converting the current op */
  int n_made;          /* outputs the conversion made so far (PD_CV_TEMPS_SLOT ordinals) */
} capture;

static int tensor_slot(const pd_tensor *t) { return t && t->var ? (int)t->var->aux : -1; }

static pd_status const_slot(pd_plan *p, pd_tensor *t, int *out) {
  int s;
  PD_TRY(pd_plan_new_slot(p, NULL, NULL, t, &s));
  pd_tensor_retain(t);
  p->slot_const[s] = t;
  *out = s;
  return PD_OK;
}

static pd_status bind_tensor(pd_plan *p, pd_tensor *t, int *slot) {
  if (!t) {
    *slot = -1;
    return PD_OK;
  }
  if (t->var) {
    *slot = tensor_slot(t);
    return PD_OK;
  }
  if (t->storage) return const_slot(p, t, slot);
  return pd_set_error(PD_ERR_FATAL, "executor: a converter passed a tensor that is neither a plan "
                      "variable nor data");
}

/* ---------------------------------------------------------------- LoD
 * The one place that decides how LoD (sequence offsets, pd_scope.h) flows through kernels:
 * 1. an op argument `<x>_lod` (Tensor?) a converter left empty is bound at run time to the
 *    offsets of level `<x>_lod_level` (an int argument; default the last) of x's value, or to
 *    nothing when that value has no LoD (compile: lod_binding; run: pd_exec_lod_tensor);
 * 2. an op output `<o>_lod` (int64 offsets) gives output o that LoD level (none if empty), under
 *    the outer levels of the op's first LoD input when they fit (pd_exec_lod_flow, pd_exec_lod.c);
 * 3. other outputs keep the first input's LoD when they have its rows (Paddle's ShareLoD), and
 *    a sequence op's output with one row per sequence keeps the outer levels (sequence_pool). */
static const pd_arg_def *arg_named(const pd_op_def *d, const char *name, size_t n) {
  for (int i = 0; i < d->n_args; i++)
    if (strlen(d->args[i].name) == n && strncmp(d->args[i].name, name, n) == 0) return &d->args[i];
  return NULL;
}

static pd_status lod_binding(pd_plan *p, const pd_op_def *d, const void *args, const pd_arg_def *a, pd_binding *b,
                             pd_instr *in, int bi) {
  size_t L = strlen(a->name);
  if (L <= 4 || strcmp(a->name + L - 4, "_lod") != 0) return PD_OK;
  const pd_arg_def *x = arg_named(d, a->name, L - 4);
  if (!x || (x->kind != PD_ARG_TENSOR && x->kind != PD_ARG_TENSOR_OPT)) return PD_OK;
  PD_TRY(bind_tensor(p, *(pd_tensor *const *)((const char *)args + x->offset), &b->slots[0]));
  b->lod_of = 1;
  b->lod_level = -1;
  char lv[128];
  snprintf(lv, sizeof lv, "%s_level", a->name);
  const pd_arg_def *l = arg_named(d, lv, strlen(lv));
  if (l && l->kind == PD_ARG_INT) b->lod_level = (int)*(const int64_t *)((const char *)args + l->offset);
  if (in->lod_src < 0) in->lod_src = bi;
  return PD_OK;
}

/* the outputs `<o>_lod` of op: lod_out[k] = index of o (NULL when there are none) */
static pd_status lod_outputs(const pd_op_def *d, int n, pd_instr *in) {
  if (d->n_outputs < 0) return PD_OK;
  for (int k = 0; k < n && k < d->n_outputs; k++) {
    const char *nm = d->output_names[k];
    size_t L = strlen(nm);
    if (L <= 4 || strcmp(nm + L - 4, "_lod") != 0) continue;
    for (int j = 0; j < d->n_outputs; j++)
      if (j != k && strlen(d->output_names[j]) == L - 4 && strncmp(d->output_names[j], nm, L - 4) == 0) {
        if (!in->lod_out) {
          in->lod_out = (int *)malloc(sizeof(int) * (size_t)n);
          if (!in->lod_out) return oom();
          for (int q = 0; q < n; q++) in->lod_out[q] = -1;
        }
        in->lod_out[k] = j;
      }
  }
  return PD_OK;
}

static pd_status capture_out(void *impl, const char *name, pd_tensor *t);

static pd_status capture_trace(void *ctx, int op, const void *args, pd_tensor ***outs, int *n_out) {
  capture *c = (capture *)ctx;
  pd_plan *p = c->p;
  const pd_op_def *d = &pd_op_defs[op];
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  PD_TRY(pd_trace_infer(op, args, &ml));
  pd_instr *in;
  pd_status s = pd_plan_add_instr(p, c->list, &in);
  if (s != PD_OK) {
    pd_meta_list_free(&ml);
    return s;
  }
  in->op = op;
  in->desc = c->op;
  s = pd_args_clone(op, args, &in->args);
  /* tensor bindings */
  int nb = 0, nlist = 0;
  for (int i = 0; i < d->n_args; i++) {
    pd_arg_kind k = d->args[i].kind;
    if (k == PD_ARG_TENSOR || k == PD_ARG_TENSOR_OPT) nb++;
    if (k == PD_ARG_TENSOR_LIST) {
      nb++;
      nlist += (int)((const pd_tensor_list *)((const char *)args + d->args[i].offset))->n;
    }
  }
  if (s == PD_OK) {
    in->bind = (pd_binding *)calloc((size_t)(nb ? nb : 1), sizeof(pd_binding));
    in->list_buf = (pd_tensor **)calloc((size_t)(nlist ? nlist : 1), sizeof(pd_tensor *));
    if (!in->bind || !in->list_buf) s = oom();
  }
  int lb = 0;
  for (int i = 0; s == PD_OK && i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *fp = (const char *)args + a->offset;
    if (a->kind != PD_ARG_TENSOR && a->kind != PD_ARG_TENSOR_OPT && a->kind != PD_ARG_TENSOR_LIST) continue;
    pd_binding *b = &in->bind[in->n_bind++];
    b->offset = a->offset;
    b->optional = a->kind == PD_ARG_TENSOR_OPT;
    if (a->kind == PD_ARG_TENSOR_LIST) {
      const pd_tensor_list *l = (const pd_tensor_list *)fp;
      b->is_list = 1;
      b->n = (int)l->n;
      b->list_off = lb;
      lb += b->n;
      b->slots = (int *)malloc(sizeof(int) * (size_t)(b->n ? b->n : 1));
      if (!b->slots) {
        s = oom();
        break;
      }
      for (int j = 0; s == PD_OK && j < b->n; j++) s = bind_tensor(p, l->data[j], &b->slots[j]);
    } else {
      b->n = 1;
      b->slots = (int *)malloc(sizeof(int));
      if (!b->slots) {
        s = oom();
        break;
      }
      s = bind_tensor(p, *(pd_tensor *const *)fp, &b->slots[0]);
      if (s == PD_OK && a->kind == PD_ARG_TENSOR_OPT && b->slots[0] < 0)
        s = lod_binding(p, d, args, a, b, in, in->n_bind - 1);
    }
  }
  /* outputs: temporary slots (the converter binds them to variables) */
  int n = ml.n;
  pd_tensor **o = NULL;
  if (s == PD_OK) {
    in->out = (int *)malloc(sizeof(int) * (size_t)(n ? n : 1));
    o = (pd_tensor **)calloc((size_t)(n ? n : 1), sizeof(pd_tensor *));
    if (!in->out || !o) s = oom();
  }
  const pd_opslot *temps = c->op ? pd_opdesc_slot(c->op, 1, PD_CV_TEMPS_SLOT) : NULL;
  int ord0 = c->n_made;
  c->n_made += n;
  for (int k = 0; s == PD_OK && k < n; k++) {
    if (k == 0 && (d->flags & PD_OP_INPLACE) && in->n_bind && in->bind[0].slots[0] >= 0) {
      in->out[k] = in->bind[0].slots[0];
      in->n_out++;
      o[k] = p->slot_meta[in->out[k]];
      pd_tensor_retain(o[k]);
      continue;
    }
    int slot;
    pd_tensor like;
    memset(&like, 0, sizeof like);
    const pd_meta *m = &ml.m[k];
    like.dtype = m->dtype;
    like.ndim = m->ndim < 0 ? 0 : m->ndim;
    for (int dd = 0; dd < like.ndim; dd++) like.shape[dd] = m->shape[dd];
    s = pd_plan_new_slot(p, NULL, NULL, &like, &slot);
    if (s != PD_OK) break;
    in->out[k] = slot;
    in->n_out++;
    o[k] = p->slot_meta[slot];
    pd_tensor_retain(o[k]);
  }
  pd_meta_list_free(&ml);
  if (s == PD_OK) s = lod_outputs(d, n, in);
  /* intermediates a gradient reads: bound to the variables append_backward named */
  for (int k = 0; s == PD_OK && temps && k < n; k++) {
    int ord = ord0 + k;
    if (ord < temps->n && temps->args[ord][0] && !(k == 0 && (d->flags & PD_OP_INPLACE)))
      s = capture_out(c, temps->args[ord], o[k]);
  }
  if (s != PD_OK) {
    for (int k = 0; o && k < n; k++) pd_tensor_release(o[k]);
    free(o);
    return s;
  }
  if (*n_out == -4 && n <= 4) {
    for (int k = 0; k < n; k++) (*outs)[k] = o[k];
    free(o);
  } else {
    *outs = o;
  }
  *n_out = n;
  return PD_OK;
}

static pd_tensor *capture_in(void *impl, const char *name) {
  capture *c = (capture *)impl;
  int s;
  if (pd_plan_slot(c->p, c->block, name, &s) != PD_OK) return NULL;
  return c->p->slot_meta[s];
}



static pd_status capture_out(void *impl, const char *name, pd_tensor *t) {
  capture *c = (capture *)impl;
  pd_plan *p = c->p;
  int src = pd_plan_resolve_alias(p, tensor_slot(t));
  if (src < 0) return pd_set_error(PD_ERR_FATAL, "executor: output %s is not a plan value", name);
  int dst = pd_plan_find_slot(p, name);
  if (dst < 0) {
    const pd_var *v = pd_block_find_var_recursive(c->block, name);
    PD_TRY(pd_plan_new_slot(p, name, v, t, &dst));
  }
  if (dst == src) return PD_OK;
  if (!p->slot_name[src] && src >= c->first_new_slot && !p->slot_const[src]) {
    /* a temporary made by this op: it becomes the variable */
    p->alias[src] = dst;
    /* the variable's meta follows what the op produces (shape/dtype inference) */
    pd_tensor *m = p->slot_meta[src];
    pd_var *dv = p->slot_meta[dst]->var;
    if (!p->slot_persist[dst]) {
      dv->dtype = m->var->dtype;
      dv->ndim = m->var->ndim;
      memcpy(dv->dims, m->var->dims, sizeof dv->dims);
      pd_var_sync_tensor(dv);
      p->slot_meta[dst]->dtype = m->dtype;
      p->slot_meta[dst]->ndim = m->ndim;
      for (int d = 0; d < m->ndim; d++) p->slot_meta[dst]->shape[d] = m->shape[d];
      /* dims the program knows that inference cannot see (full_dyn / reshape_dyn outputs) */
      const pd_var *pv = pd_block_find_var_recursive(c->block, name);
      if (pv) pd_meta_refine_dims(p->slot_meta[dst], pv->ndim, pv->dims);
    }
    return PD_OK;
  }
  return pd_plan_emit_share(p, c->list, c->op, src, dst);
}

static const pd_convert_io k_capture_io = {capture_in, capture_out};

/* ---------------------------------------------------------------- compiling */
static pd_status compile_op(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  if (strcmp(op->type, "feed") == 0 || strcmp(op->type, "fetch") == 0) {
    /* the executor feeds and fetches by variable name; make sure the slots exist */
    const pd_opslot *s = pd_opdesc_slot(op, strcmp(op->type, "feed") == 0, strcmp(op->type, "feed") == 0 ? "Out" : "X");
    for (int k = 0; s && k < s->n; k++) {
      int slot;
      PD_TRY(pd_plan_slot(p, b, s->args[k], &slot));
    }
    return PD_OK;
  }
  const pd_special_compile_fn sp = pd_exec_special_for(op->type);
  if (sp) return sp(p, list, b, op);
  capture c = {p, list, b, op, p->n_slots, 0};
  pd_tracer prev = pd_trace_swap((pd_tracer){capture_trace, &c});
  pd_status s = pd_convert_op(b, op, &k_capture_io, &c);
  pd_trace_swap(prev);
  if (s != PD_OK) {
    /* name the op in the message once */
    const char *m = pd_last_error();
    if (strncmp(m, "[", 1) != 0 || strncmp(m + 1, op->type, strlen(op->type)) != 0) {
      char buf[1024];
      snprintf(buf, sizeof buf, "%s", m);
      pd_set_error(pd_last_status(), "[%s] %s", op->type, buf);
    }
  }
  return s;
}

pd_status pd_plan_compile_block(pd_plan *p, int block, int *list_out) {
  if (block < 0 || block >= p->prog->n_blocks)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "block %d out of range [0, %d)", block, p->prog->n_blocks);
  int list;
  PD_TRY(pd_plan_new_list(p, &list));
  const pd_block *b = p->prog->blocks[block];
  for (int i = 0; i < b->n_ops; i++) PD_TRY(compile_op(p, list, b, b->ops[i]));
  *list_out = list;
  return PD_OK;
}

int pd_program_unsupported_ops(const pd_program *prog, char *buf, size_t n) {
  int count = 0;
  size_t k = 0;
  if (n) buf[0] = 0;
  for (int bi = 0; bi < prog->n_blocks; bi++) {
    const pd_block *b = prog->blocks[bi];
    for (int i = 0; i < b->n_ops; i++) {
      const char *t = b->ops[i]->type;
      if (!strcmp(t, "feed") || !strcmp(t, "fetch") || pd_exec_special_for(t) || pd_convert_supported(t)) continue;
      /* once per type */
      int seen = 0;
      for (int bj = 0; bj <= bi && !seen; bj++)
        for (int j = 0; j < (bj == bi ? i : prog->blocks[bj]->n_ops) && !seen; j++)
          seen = strcmp(prog->blocks[bj]->ops[j]->type, t) == 0;
      if (seen) continue;
      count++;
      if (k < n) k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", t);
    }
  }
  return count;
}
