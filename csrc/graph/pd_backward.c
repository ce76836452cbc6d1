/* append_backward and gradients: the program's ops are replayed through their converters with
 * a replay tracer that makes, for every op, the autograd node eager mode would make (same
 * record functions, same backward rules), over meta tensors standing for the program's
 * variables. The eager engine then runs backward from the targets with the program recorder
 * installed, so every op a rule runs is appended to the block: gradients come from the one
 * set of rules eager autograd uses, and higher orders work the same way. Ops no converter
 * expresses (control flow) have special replays (k_replay_specials, pd_control_flow_grad.c). */
#include "pd_backward.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_convert.h"
#include "pd_replay.h"
#include "pd_trace.h"
#include "../autograd/pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory in append_backward"); }

static int find(const pd_replay *r, const char *name) {
  for (int i = r->n - 1; i >= 0; i--)
    if (strcmp(r->names[i], name) == 0) return i;
  return -1;
}

pd_status pd_replay_put(pd_replay *r, const char *name, pd_tensor *t) {
  int i = find(r, name);
  if (i >= 0) {
    pd_tensor_retain(t);
    pd_tensor_release(r->tensors[i]);
    r->tensors[i] = t;
    return PD_OK;
  }
  if (r->n == r->cap) {
    int nc = r->cap ? r->cap * 2 : 64;
    char **nn = (char **)realloc(r->names, sizeof(char *) * (size_t)nc);
    if (!nn) return oom();
    r->names = nn;
    pd_tensor **nt = (pd_tensor **)realloc(r->tensors, sizeof(pd_tensor *) * (size_t)nc);
    if (!nt) return oom();
    r->tensors = nt;
    r->cap = nc;
  }
  size_t L = strlen(name) + 1;
  r->names[r->n] = (char *)malloc(L);
  if (!r->names[r->n]) return oom();
  memcpy(r->names[r->n], name, L);
  pd_tensor_retain(t);
  r->tensors[r->n++] = t;
  return PD_OK;
}

void pd_replay_free(pd_replay *r) {
  for (int i = 0; i < r->n; i++) {
    free(r->names[i]);
    pd_tensor_release(r->tensors[i]);
  }
  free(r->names);
  free(r->tensors);
}

pd_tensor *pd_replay_lookup(const pd_replay *r, const char *name) {
  int i = find(r, name);
  return i >= 0 ? r->tensors[i] : NULL;
}

static int in_no_grad(const pd_replay *r, const char *name) {
  for (int i = 0; i < r->n_no_grad; i++)
    if (strcmp(r->no_grad[i], name) == 0) return 1;
  return 0;
}

static int is_diff(int dt) { return pd_dtype_is_valid(dt) && (pd_dtype_is_float((pd_dtype)dt) || pd_dtype_is_complex((pd_dtype)dt)); }

int pd_replay_var_is_diff(const pd_var *v) { return v && v->type == PD_VT_LOD_TENSOR && is_diff(v->dtype); }

/* the tensor for a variable read before any op wrote it: a leaf */
pd_tensor *pd_replay_in(pd_replay *r, const char *name) {
  int i = find(r, name);
  if (i >= 0) return r->tensors[i];
  pd_var *v = pd_block_find_var_recursive(r->block, name);
  if (!v) return NULL;
  pd_tensor *t;
  if (pd_var_tensor_new(v, &t) != PD_OK) return NULL;
  t->stop_gradient = v->stop_gradient || !is_diff(v->dtype) || in_no_grad(r, name);
  pd_status s = pd_replay_put(r, name, t);
  pd_tensor_release(t);
  return s == PD_OK ? r->tensors[find(r, name)] : NULL;
}

pd_status pd_replay_out(pd_replay *r, const char *name, pd_tensor *t) {
  pd_var *v = pd_block_find_var_recursive(r->block, name);
  if (!v) return pd_set_error(PD_ERR_NOT_FOUND, "append_backward: output variable %s is not declared", name);
  if (t->var != v && t->var && !t->var->block) {
    /* the placeholder the replay tracer made now names this variable: every tensor sharing it
     * (the node's saved copies included) stands for the variable; dims the program knows (set
     * after recording, e.g. full_dyn's from Python) refine the replayed ones */
    pd_meta_refine_dims(t, v->ndim, v->dims);
    size_t L = strlen(name) + 1;
    char *nm = (char *)malloc(L);
    if (!nm) return oom();
    memcpy(nm, name, L);
    free(t->var->name);
    t->var->name = nm;
  } else if (t->var != v) {
    /* an existing variable's tensor bound to a second name (e.g. assign-like conversions) */
    pd_tensor *c;
    PD_TRY(pd_tensor_meta_like_var(t, &c));
    pd_var_retain(v);
    pd_var_release(c->var);
    c->var = v;
    c->stop_gradient = t->stop_gradient;
    pd_status s = pd_replay_put(r, name, c);
    pd_tensor_release(c);
    return s;
  }
  pd_autograd_meta *am = t->autograd;
  if (am && am->node && am->node->out_like && am->slot < am->node->n_out && !am->node->out_like[am->slot])
    PD_TRY(pd_tensor_meta_like_var(t, &am->node->out_like[am->slot])); /* no history: no cycle */
  if (in_no_grad(r, name) && !t->stop_gradient) {
    /* stop_gradient variables cut the graph: later ops see a leaf without history */
    pd_tensor *c;
    PD_TRY(pd_tensor_meta_like_var(t, &c));
    c->stop_gradient = 1;
    pd_status s = pd_replay_put(r, name, c);
    pd_tensor_release(c);
    return s;
  }
  return pd_replay_put(r, name, t);
}

static pd_tensor *io_in(void *impl, const char *name) { return pd_replay_in((pd_replay *)impl, name); }
static pd_status io_out(void *impl, const char *name, pd_tensor *t) { return pd_replay_out((pd_replay *)impl, name, t); }
static const pd_convert_io k_replay_io = {io_in, io_out};

/* ---- intermediates of conversions (PD_CV_TEMPS_SLOT, pd_convert.h): every output a conversion
 * makes is remembered (its placeholder variable, the op, the output's ordinal); a gradient op
 * that reads one (pd_record_op calls pd_replay_name_temp) gives it a variable of the op's block
 * and the op a name at that ordinal, which the executor then binds. */
typedef struct {
  pd_var *v;
  pd_opdesc *op;
  pd_block *block;
  int k;
} temp_rec;
static _Thread_local temp_rec *g_temps;
static _Thread_local int g_n_temps, g_cap_temps, g_temps_depth;
static _Thread_local pd_opdesc *g_cur_op;   /* the op being converted by the replay, or NULL */
static _Thread_local pd_block *g_cur_block;
static _Thread_local int g_cur_count;       /* outputs its conversion made so far */

static const char *temp_name_at(const pd_opdesc *op, int k) {
  const pd_opslot *sl = pd_opdesc_slot(op, 1, PD_CV_TEMPS_SLOT);
  return sl && k < sl->n && sl->args[k][0] ? sl->args[k] : NULL;
}

static pd_status rename_var(pd_var *v, const char *name) {
  size_t L = strlen(name) + 1;
  char *nm = (char *)malloc(L);
  if (!nm) return oom();
  memcpy(nm, name, L);
  free(v->name);
  v->name = nm;
  return PD_OK;
}

/* output ordinal k of the op being converted, bound to placeholder v: named now when the op
 * already names it (a second gradient, a control-flow block replayed again), else remembered */
static pd_status note_temp(pd_var *v, int k) {
  const char *nm = temp_name_at(g_cur_op, k);
  if (nm) return rename_var(v, nm);
  if (g_temps_depth <= 0) return PD_OK;
  if (g_n_temps == g_cap_temps) {
    int nc = g_cap_temps ? 2 * g_cap_temps : 64;
    temp_rec *nt = (temp_rec *)realloc(g_temps, sizeof(temp_rec) * (size_t)nc);
    if (!nt) return oom();
    g_temps = nt;
    g_cap_temps = nc;
  }
  pd_var_retain(v);
  g_temps[g_n_temps++] = (temp_rec){v, g_cur_op, g_cur_block, k};
  return PD_OK;
}

pd_status pd_replay_name_temp(pd_var *v) {
  for (int i = g_n_temps - 1; i >= 0; i--) {
    if (g_temps[i].v != v) continue;
    temp_rec t = g_temps[i];
    if (strcmp(v->name, "@replay") != 0) return PD_OK; /* bound meanwhile */
    const pd_opslot *outs = t.op->n_out > 0 ? &t.op->out[0] : NULL;
    const char *base = outs && outs->n > 0 && outs->args[0][0] ? outs->args[0] : t.op->type;
    char nm[600];
    snprintf(nm, sizeof nm, "%s@cv_%d", base, t.k);
    for (int j = 1; pd_block_find_var_recursive(t.block, nm); j++) snprintf(nm, sizeof nm, "%s@cv_%d_%d", base, t.k, j);
    pd_var *bv;
    PD_TRY(pd_block_var(t.block, nm, &bv));
    bv->dtype = v->dtype;
    bv->ndim = v->ndim;
    memcpy(bv->dims, v->dims, sizeof bv->dims);
    bv->stop_gradient = 1;
    PD_TRY(rename_var(v, nm));
    const pd_opslot *sl = pd_opdesc_slot(t.op, 1, PD_CV_TEMPS_SLOT);
    int n0 = sl ? sl->n : 0, n = n0 > t.k + 1 ? n0 : t.k + 1;
    const char **names = (const char **)malloc(sizeof(char *) * (size_t)n);
    if (!names) return oom();
    for (int j = 0; j < n; j++) names[j] = j < n0 ? sl->args[j] : "";
    names[t.k] = nm;
    pd_status s = pd_opdesc_set_slot(t.op, 1, PD_CV_TEMPS_SLOT, n, names);
    free(names);
    PD_TRY(s);
    pd_program_touch(t.block->prog);
    return PD_OK;
  }
  return PD_OK;
}

/* after a failed gradient: names of intermediates whose variables were removed again */
static void drop_dangling_temps(pd_program *prog) {
  for (int bi = 0; bi < prog->n_blocks; bi++) {
    pd_block *blk = prog->blocks[bi];
    for (int i = 0; i < blk->n_ops; i++) {
      const pd_opslot *sl = pd_opdesc_slot(blk->ops[i], 1, PD_CV_TEMPS_SLOT);
      if (!sl) continue;
      int ok = 1;
      for (int k = 0; k < sl->n && ok; k++) ok = !sl->args[k][0] || pd_block_find_var_recursive(blk, sl->args[k]);
      if (!ok) pd_opdesc_remove_slot(blk->ops[i], 1, PD_CV_TEMPS_SLOT);
    }
  }
}

static void temps_clear(void) {
  for (int i = 0; i < g_n_temps; i++) pd_var_release(g_temps[i].v);
  free(g_temps);
  g_temps = NULL;
  g_n_temps = g_cap_temps = 0;
}

/* the replay tracer: outputs are meta tensors (bound to a placeholder until the converter binds
 * them), and the op is recorded for autograd exactly as eager mode records it */
static pd_status replay_trace(void *ctx, int op, const void *args, pd_tensor ***outs, int *n_out) {
  (void)ctx;
  const pd_op_def *d = &pd_op_defs[op];
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  PD_TRY(pd_trace_infer(op, args, &ml));
  int n = ml.n;
  pd_tensor **o = (pd_tensor **)calloc((size_t)(n ? n : 1), sizeof(pd_tensor *));
  if (!o) {
    pd_meta_list_free(&ml);
    return oom();
  }
  pd_status s = PD_OK;
  for (int k = 0; s == PD_OK && k < n; k++) {
    int ord = g_cur_op ? g_cur_count++ : -1;
    if (k == 0 && (d->flags & PD_OP_INPLACE)) {
      const pd_tensor *x = *(pd_tensor *const *)((const char *)args + d->args[0].offset);
      pd_tensor_retain((pd_tensor *)x);
      o[k] = (pd_tensor *)x;
      continue;
    }
    pd_var *v;
    s = pd_var_new_detached("@replay", &v);
    if (s != PD_OK) break;
    if (ord >= 0) s = note_temp(v, ord);
    if (s != PD_OK) {
      pd_var_release(v);
      break;
    }
    const pd_meta *m = &ml.m[k];
    v->dtype = m->dtype;
    v->ndim = m->ndim < 0 ? 0 : m->ndim;
    for (int dd = 0; dd < v->ndim; dd++) v->dims[dd] = m->shape[dd];
    s = pd_var_tensor_new(v, &o[k]);
    pd_var_release(v);
  }
  pd_meta_list_free(&ml);
  if (s == PD_OK && pd_autograd_record && !(d->flags & PD_OP_NONDIFF)) s = pd_autograd_record(op, args, o, n);
  /* as in eager: outputs no node produced (constants, ops on tensors without gradients) carry none */
  for (int k = 0; s == PD_OK && k < n; k++)
    if (!(k == 0 && (d->flags & PD_OP_INPLACE)) && !(o[k]->autograd && o[k]->autograd->node)) o[k]->stop_gradient = 1;
  /* the node gets room for its outputs' variables (replay_out fills it) */
  pd_node *node = NULL;
  for (int k = 0; s == PD_OK && k < n && !node; k++)
    if (o[k]->autograd && o[k]->autograd->node) node = o[k]->autograd->node;
  if (s == PD_OK && node && !node->out_like) {
    node->out_like = (pd_tensor **)calloc((size_t)(node->n_out ? node->n_out : 1), sizeof(pd_tensor *));
    if (!node->out_like) s = oom();
  }
  if (s != PD_OK) {
    for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
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

/* ops the converters cannot express: control flow (pd_control_flow_grad.c) */
static const struct {
  const char *type;
  pd_replay_special_fn fn;
} k_replay_specials[] = {
    {"conditional_block", pd_cf_replay_conditional_block},
    {"select_input", pd_cf_replay_select_input},
    {"while", pd_cf_replay_while},
    {"increment", pd_cf_replay_increment},
    {"write_to_array", pd_cf_replay_no_grad},
    {"read_from_array", pd_cf_replay_no_grad},
    {"lod_array_length", pd_cf_replay_no_grad},
    {"conditional_block_grad", pd_cf_replay_grad_op},
    {"while_grad", pd_cf_replay_grad_op},
    {"select_output", pd_cf_replay_grad_op},
    {NULL, NULL},
};

static pd_replay_special_fn replay_special_for(const char *type) {
  for (int i = 0; k_replay_specials[i].type; i++)
    if (strcmp(k_replay_specials[i].type, type) == 0) return k_replay_specials[i].fn;
  return NULL;
}

pd_status pd_replay_ops(pd_replay *r, int from, int to) {
  int prev_grad = pd_grad_enabled();
  pd_autograd_init();
  pd_set_grad_enabled(1);
  pd_tracer prev = pd_trace_swap((pd_tracer){replay_trace, r});
  pd_status s = PD_OK;
  for (int i = from; s == PD_OK && i < to; i++) {
    const pd_opdesc *op = r->block->ops[i];
    if (!strcmp(op->type, "feed") || !strcmp(op->type, "fetch")) continue;
    pd_replay_special_fn sp = replay_special_for(op->type);
    if (sp) {
      s = sp(r, op);
    } else {
      pd_opdesc *pc = g_cur_op;
      pd_block *pb = g_cur_block;
      int pn = g_cur_count;
      g_cur_op = (pd_opdesc *)op;
      g_cur_block = r->block;
      g_cur_count = 0;
      s = pd_convert_op(r->block, op, &k_replay_io, r);
      g_cur_op = pc;
      g_cur_block = pb;
      g_cur_count = pn;
    }
    if (s != PD_OK && strncmp(pd_last_error(), "append_backward: ", 17) != 0) {
      char m[1024];
      snprintf(m, sizeof m, "%s", pd_last_error());
      s = pd_set_error(s, "append_backward: replaying op %d (%s) of block %d: %s", i, op->type,
                       r->block->idx, m);
    }
  }
  pd_trace_swap(prev);
  pd_set_grad_enabled(prev_grad);
  return s;
}

static pd_status unique_grad_name(pd_block *b, const char *base, char *buf, size_t n) {
  snprintf(buf, n, "%s@GRAD", base);
  for (int k = 1; pd_block_find_var_recursive(b, buf); k++) snprintf(buf, n, "%s@GRAD@%d", base, k);
  return PD_OK;
}

pd_status pd_program_gradients(pd_program *prog, int block_idx, int n_targets,
                               const char *const *targets, const char *const *target_grads,
                               int n_inputs, const char *const *inputs, int n_no_grad,
                               const char *const *no_grad, char **grad_names) {
  if (block_idx < 0 || block_idx >= prog->n_blocks)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "block %d out of range", block_idx);
  for (int i = 0; i < n_inputs; i++) grad_names[i] = NULL;
  pd_block *b = prog->blocks[block_idx];
  pd_replay r;
  memset(&r, 0, sizeof r);
  r.block = b;
  r.no_grad = no_grad;
  r.n_no_grad = n_no_grad;
  int n_fwd = b->n_ops, n_vars_before = b->n_vars;
  pd_status s = PD_OK;
  g_temps_depth++;
  /* leaves asked for must exist before the replay reads them */
  for (int i = 0; s == PD_OK && i < n_inputs; i++)
    if (!pd_block_find_var_recursive(b, inputs[i]))
      s = pd_set_error(PD_ERR_NOT_FOUND, "gradients: the program has no variable named %s", inputs[i]);
  if (s == PD_OK) s = pd_replay_ops(&r, 0, n_fwd);
  /* roots, their gradients (ones when not given), the inputs */
  int n_all = n_targets + n_inputs;
  pd_tensor **buf = (pd_tensor **)calloc((size_t)(2 * n_all + 1), sizeof(pd_tensor *));
  if (!buf && s == PD_OK) s = oom();
  pd_tensor **roots = buf, **groots = buf ? buf + n_targets : NULL, **ins = buf ? buf + 2 * n_targets : NULL;
  pd_tensor **res = NULL;
  if (s == PD_OK) {
    res = (pd_tensor **)calloc((size_t)(n_inputs ? n_inputs : 1), sizeof(pd_tensor *));
    if (!res) s = oom();
  }
  for (int i = 0; s == PD_OK && i < n_targets; i++) {
    roots[i] = pd_replay_in(&r, targets[i]);
    if (!roots[i]) s = pd_set_error(PD_ERR_NOT_FOUND, "gradients: the program has no variable named %s", targets[i]);
    else if (roots[i]->stop_gradient)
      s = pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "gradients: %s does not depend on any variable that "
                       "needs a gradient (every input has stop_gradient=True)", targets[i]);
    if (s == PD_OK && target_grads && target_grads[i]) {
      pd_var *gv = pd_block_find_var_recursive(b, target_grads[i]);
      if (!gv) s = pd_set_error(PD_ERR_NOT_FOUND, "gradients: no variable named %s", target_grads[i]);
      else s = pd_var_tensor_new(gv, &groots[i]);
    }
  }
  for (int i = 0; s == PD_OK && i < n_inputs; i++) ins[i] = pd_replay_in(&r, inputs[i]);
  /* the root gradient: Paddle's loss@GRAD, ones filled in the program */
  pd_program *rp = NULL;
  int rb = 0, installed = 0;
  if (s == PD_OK) {
    s = pd_recorder_set(prog, block_idx, &rp, &rb);
    installed = s == PD_OK;
  }
  for (int i = 0; s == PD_OK && i < n_targets; i++) {
    if (groots[i]) continue;
    s = pd_bw_ones_like(roots[i], &groots[i]);
    if (s == PD_OK && groots[i]->var) {
      char nm[512];
      unique_grad_name(b, targets[i], nm, sizeof nm);
      if (pd_block_find_var(b, groots[i]->var->name)) s = pd_block_rename_var(b, groots[i]->var->name, nm);
    }
  }
  if (s == PD_OK) {
    pd_recorder_backward(1);
    s = pd_autograd_run(roots, groots, n_targets, ins, n_inputs, res, 0, 0, 1);
    pd_recorder_backward(0);
  }
  /* name the results X@GRAD: rename a variable this backward made for that gradient alone,
   * else copy it with assign */
  for (int i = 0; s == PD_OK && i < n_inputs; i++) {
    pd_tensor *g = res[i];
    if (!g) continue;
    char nm[512];
    unique_grad_name(b, inputs[i], nm, sizeof nm);
    int fresh = 0;
    if (g->var && g->var->block == b) {
      for (int k = n_vars_before; k < b->n_vars; k++)
        if (b->vars[k] == g->var) fresh = 1;
      for (int j = 0; j < i && fresh; j++)
        if (res[j] && res[j]->var == g->var) fresh = 0;
      if (fresh && strstr(g->var->name, "@GRAD")) fresh = 0;
    }
    if (!fresh || !g->var) {
      pd_assign_args a = {g};
      pd_tensor *c;
      s = pd_bw_run1(PD_OP_ASSIGN, &a, &c);
      if (s != PD_OK) break;
      pd_tensor_release(res[i]);
      res[i] = g = c;
    }
    s = pd_block_rename_var(b, g->var->name, nm);
    if (s == PD_OK) {
      size_t L = strlen(nm) + 1;
      grad_names[i] = (char *)malloc(L);
      if (!grad_names[i]) s = oom();
      else memcpy(grad_names[i], nm, L);
    }
  }
  if (installed) {
    pd_recorder_set(rp, rb, NULL, NULL);
    pd_program_release(rp);
  }
  for (int i = 0; i < n_inputs && res; i++) pd_tensor_release(res[i]);
  for (int i = 0; buf && i < n_targets; i++) pd_tensor_release(groots[i]);
  free(res);
  free(buf);
  pd_replay_free(&r);
  if (--g_temps_depth == 0) temps_clear();
  if (s != PD_OK) {
    for (int i = 0; i < n_inputs; i++) {
      free(grad_names[i]);
      grad_names[i] = NULL;
    }
    /* leave the program as it was */
    if (b->n_ops > n_fwd) pd_block_remove_ops(b, n_fwd, b->n_ops);
    while (b->n_vars > n_vars_before) pd_block_remove_var(b, b->vars[b->n_vars - 1]->name);
    drop_dangling_temps(prog);
  }
  return s;
}
