/* Gradients through control flow (append_backward's special replays, pd_replay.h). Each control
 * op is one custom autograd node; run by the engine (recorder installed), it replays its sub-block
 * into eager autograd nodes (the same converters and rules as every op), runs the engine over them
 * into a new gradient block, and records the op running that block: conditional_block_grad under
 * the same condition, while_grad over the recorded iterations; select_input's records select_output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_names.h"
#include "pd_replay.h"
#include "pd_trace.h"
#include "../autograd/pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory in a control-flow gradient"); }

/* ---------------------------------------------------------------- helpers */
static const char *const k_empty = "@EMPTY@";

static int slot_n(const pd_opdesc *op, int is_out, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(op, is_out, slot);
  return s ? s->n : 0;
}

static const char *slot_arg(const pd_opdesc *op, int is_out, const char *slot, int k) {
  const pd_opslot *s = pd_opdesc_slot(op, is_out, slot);
  return s && k < s->n ? s->args[k] : NULL;
}

static int sub_block_of(const pd_opdesc *op) {
  const pd_attr *a = pd_opdesc_attr(op, "sub_block");
  return a && a->type == PD_AT_BLOCK ? (int)a->i : -1;
}

/* a variable by name: visible from b, else anywhere in the program (gradient blocks of nested
 * control flow read their enclosing gradient block's variables) */
static pd_var *find_var(const pd_block *b, const char *name) {
  pd_var *v = pd_block_find_var_recursive(b, name);
  for (int i = 0; !v && i < b->prog->n_blocks; i++) v = pd_block_find_var(b->prog->blocks[i], name);
  return v;
}

/* a meta tensor bound to v, without history */
static pd_status var_meta(pd_var *v, pd_tensor **out) {
  PD_TRY(pd_var_tensor_new(v, out));
  (*out)->stop_gradient = 1;
  return PD_OK;
}

/* variable base.tmp_k of b, with like's dtype and dims */
static pd_status new_var(pd_block *b, const char *base, int k, const pd_tensor *like, pd_var **out) {
  char name[320];
  snprintf(name, sizeof name, "%s.tmp_%d", base, k);
  pd_var *v;
  PD_TRY(pd_block_var(b, name, &v));
  v->dtype = like->dtype;
  v->ndim = like->ndim;
  for (int d = 0; d < like->ndim; d++) v->dims[d] = like->shape[d] < 0 ? -1 : like->shape[d];
  v->stop_gradient = 1;
  pd_var_sync_tensor(v);
  *out = v;
  return PD_OK;
}

/* records `dst = assign(src)` into b, dst an existing variable */
static pd_status assign_to(pd_block *b, pd_tensor *src, const char *dst) {
  pd_assign_args a = {src};
  pd_tensor **o = NULL;
  int n = 0;
  PD_TRY(pd_record_op(b, PD_OP_ASSIGN, &a, &o, &n));
  char tmp[320];
  snprintf(tmp, sizeof tmp, "%s", o[0]->var->name);
  for (int i = 0; i < n; i++) pd_tensor_release(o[i]);
  free(o);
  pd_status s = pd_opdesc_set_slot(b->ops[b->n_ops - 1], 1, "Out", 1, &dst);
  if (s == PD_OK && pd_block_find_var(b, tmp)) s = pd_block_remove_var(b, tmp);
  return s;
}

/* the gradient g bound to its variable (recorded as a copy when it has none), shaped as like
 * for the engine's checks (the same values at run time) */
static pd_status grad_root(pd_tensor *g, const pd_tensor *like, pd_tensor **out) {
  pd_tensor *v = g;
  if (!g->var) PD_TRY(pd_bw_run1(PD_OP_ASSIGN, &(pd_assign_args){g}, &v));
  pd_status s = pd_tensor_meta_like_var(v, out);
  if (v != g) pd_tensor_release(v);
  PD_TRY(s);
  (*out)->ndim = like->ndim;
  (*out)->numel = 1;
  for (int d = 0; d < like->ndim; d++) {
    (*out)->shape[d] = like->shape[d];
    (*out)->numel *= like->shape[d];
  }
  return PD_OK;
}

static pd_status set_slot(pd_opdesc *od, int is_out, const char *slot, int n, const char **names) {
  return pd_opdesc_set_slot(od, is_out, slot, n, names);
}

static pd_status copy_slot(pd_opdesc *od, const pd_opdesc *from, int is_out, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(from, is_out, slot);
  return s ? pd_opdesc_set_slot(od, is_out, slot, s->n, (const char *const *)s->args) : PD_OK;
}

/* makes the differentiable outputs (variables vars[k]) outputs of n */
static pd_status attach(pd_node *n, pd_tensor **outs, pd_var **vars, int n_out) {
  for (int k = 0; k < n_out; k++) {
    if (!outs[k]) continue;
    pd_meta_like(&n->out_meta[k], outs[k]);
    if (!pd_replay_var_is_diff(vars[k])) continue;
    pd_autograd_meta *m = pd_autograd_meta_get(outs[k], 1);
    if (!m) return oom();
    pd_node_retain(n);
    m->node = n;
    m->slot = k;
    outs[k]->stop_gradient = 0;
  }
  return PD_OK;
}

typedef struct {
  const pd_opdesc *op;         /* the forward op (the program keeps it) */
  const char *const *no_grad;  /* the replay's (valid while append_backward runs) */
  int n_no_grad;
} cf_ctx;

/* The common forward replay: inputs from slot in_slot become edges, outputs of out_slot become
 * tensors bound to their variables (outputs of a new node when any input needs a gradient). */
static pd_status replay_node(pd_replay *r, const pd_opdesc *op, const char *in_slot, const char *out_slot,
                             const char *name, pd_node_apply_fn apply) {
  int ni = slot_n(op, 0, in_slot), no = slot_n(op, 1, out_slot);
  pd_tensor **ins = (pd_tensor **)calloc((size_t)(ni + no + 1), sizeof(pd_tensor *));
  pd_var **vars = (pd_var **)calloc((size_t)(no + 1), sizeof(pd_var *));
  cf_ctx *c = (cf_ctx *)calloc(1, sizeof *c);
  pd_status s = ins && vars && c ? PD_OK : oom();
  pd_tensor **outs = ins ? ins + ni : NULL;
  int need = 0;
  for (int i = 0; s == PD_OK && i < ni; i++) {
    ins[i] = pd_replay_in(r, slot_arg(op, 0, in_slot, i));
    if (!ins[i])
      s = pd_set_error(PD_ERR_NOT_FOUND, "[%s] input %s is not declared", op->type, slot_arg(op, 0, in_slot, i));
    else need |= pd_requires_grad(ins[i]);
  }
  for (int k = 0; s == PD_OK && k < no; k++) {
    vars[k] = pd_block_find_var_recursive(r->block, slot_arg(op, 1, out_slot, k));
    if (!vars[k]) s = pd_set_error(PD_ERR_NOT_FOUND, "[%s] output %s is not declared", op->type, slot_arg(op, 1, out_slot, k));
    else s = var_meta(vars[k], &outs[k]);
  }
  pd_node *n = NULL;
  if (s == PD_OK && need) {
    n = pd_node_new(name, -1, ni, no);
    if (!n) s = oom();
  }
  if (n) {
    for (int i = 0; i < ni; i++) pd_node_set_edge(n, i, ins[i]);
    c->op = op;
    c->no_grad = r->no_grad;
    c->n_no_grad = r->n_no_grad;
    n->custom = c;
    n->free_custom = free;
    n->apply = apply;
    n->null_grads = 1;
    c = NULL;
    s = attach(n, outs, vars, no);
    pd_node_release(n); /* the outputs hold it */
  }
  for (int k = 0; s == PD_OK && k < no; k++) s = pd_replay_out(r, slot_arg(op, 1, out_slot, k), outs[k]);
  for (int k = 0; outs && k < no; k++) pd_tensor_release(outs[k]);
  free(ins);
  free(vars);
  free(c);
  return s;
}

/* ---------------------------------------------------------------- nested replay + engine */
typedef struct {
  pd_replay r;
  pd_tensor **leaves;   /* per name given: its leaf (owned) */
  int n;
} sub_replay;

static void sub_free(sub_replay *x) {
  for (int i = 0; i < x->n; i++) pd_tensor_release(x->leaves[i]);
  free(x->leaves);
  pd_replay_free(&x->r);
}

/* replays block `blk`, names[i] starting as leaves that need a gradient when need[i] */
static pd_status sub_run(sub_replay *x, pd_block *blk, const cf_ctx *c, int n, const char *const *names,
                         const int *need) {
  memset(x, 0, sizeof *x);
  x->r.block = blk;
  x->r.no_grad = c->no_grad;
  x->r.n_no_grad = c->n_no_grad;
  x->leaves = (pd_tensor **)calloc((size_t)(n ? n : 1), sizeof(pd_tensor *));
  if (!x->leaves) return oom();
  x->n = n;
  for (int i = 0; i < n; i++) {
    pd_var *v = find_var(blk, names[i]);
    if (!v) return pd_set_error(PD_ERR_NOT_FOUND, "[control flow] variable %s is not declared", names[i]);
    PD_TRY(var_meta(v, &x->leaves[i]));
    x->leaves[i]->stop_gradient = !(need[i] && pd_replay_var_is_diff(v));
    PD_TRY(pd_replay_put(&x->r, names[i], x->leaves[i]));
  }
  return pd_replay_ops(&x->r, 0, blk->n_ops);
}

/* the gradient block of forward block fwd, a child of P (the block its gradient op goes to, as
 * Paddle's backward makes it), made the recording target (prev returned) */
static pd_status grad_block(pd_program *prog, const pd_block *P, int fwd, pd_block **g, pd_program **prev,
                            int *prev_b) {
  PD_TRY(pd_program_append_block(prog, P->idx, g));
  (*g)->forward_block_idx = fwd;
  return pd_recorder_set(prog, (*g)->idx, prev, prev_b);
}

static void restore_recorder(pd_program *prev, int prev_b) {
  pd_recorder_set(prev, prev_b, NULL, NULL);
  pd_program_release(prev);
}

static pd_status recording(pd_program **prog, pd_block **blk, const char *what) {
  int b;
  *prog = pd_recorder_program(&b);
  if (!*prog)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] its gradient can only be built by "
                        "paddle.static.append_backward / gradients", what);
  *blk = (*prog)->blocks[b];
  return PD_OK;
}

/* ---------------------------------------------------------------- conditional_block */
static pd_status cb_apply(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  cf_ctx *c = (cf_ctx *)n->custom;
  const pd_opdesc *op = c->op;
  int any = 0;
  for (int k = 0; k < n->n_out; k++) any |= gout[k] != NULL;
  if (!any) return PD_OK;
  pd_program *prog = NULL;
  pd_block *P = NULL;
  PD_TRY(recording(&prog, &P, op->type));
  int sub = sub_block_of(op), ni = n->n_edges, no = n->n_out;
  const pd_opslot *is = pd_opdesc_slot(op, 0, "Input"), *os = pd_opdesc_slot(op, 1, "Out");
  int *need = (int *)calloc((size_t)(ni + 1), sizeof(int));
  pd_tensor **buf = (pd_tensor **)calloc((size_t)(2 * no + 2 * ni + 2), sizeof(pd_tensor *));
  const char **names = (const char **)calloc((size_t)(2 * ni + no + 2), sizeof(char *));
  int *map = (int *)calloc((size_t)(ni + 1), sizeof(int));
  pd_status s = need && buf && names && map ? PD_OK : oom();
  pd_tensor **roots = buf, **groots = buf + no, **ins = buf + 2 * no, **res = buf + 2 * no + ni;
  sub_replay x;
  memset(&x, 0, sizeof x);
  for (int i = 0; s == PD_OK && i < ni; i++) need[i] = n->edges[i].node || n->edges[i].leaf;
  if (s == PD_OK && ((ni && !is) || (no && !os))) s = pd_set_error(PD_ERR_FATAL, "[conditional_block] slots changed");
  if (s == PD_OK) s = sub_run(&x, prog->blocks[sub], c, ni, is ? (const char *const *)is->args : NULL, need);
  int nr = 0, nin = 0;
  for (int k = 0; s == PD_OK && k < no; k++) {
    pd_tensor *t = gout[k] ? pd_replay_lookup(&x.r, os->args[k]) : NULL;
    if (!t || t->stop_gradient) continue;
    roots[nr] = t;
    s = grad_root(gout[k], t, &groots[nr]);
    nr++;
  }
  for (int i = 0; s == PD_OK && i < ni; i++)
    if (!x.leaves[i]->stop_gradient) {
      map[nin] = i;
      ins[nin++] = x.leaves[i];
    }
  pd_block *G = NULL;
  pd_program *rp = NULL;
  int rb = 0, switched = 0;
  if (s == PD_OK && nr && nin) {
    s = grad_block(prog, P, sub, &G, &rp, &rb);
    switched = s == PD_OK;
  }
  if (G && s == PD_OK) s = pd_autograd_run(roots, groots, nr, ins, nin, res, 0, 0, 1);
  /* each input's gradient leaves the block through an assign to a variable of the parent */
  const char **gin_names = names, **in_names = names + ni, **og_names = names + 2 * ni;
  pd_var **gv = (pd_var **)calloc((size_t)(nin + 1), sizeof(pd_var *));
  if (!gv && s == PD_OK) s = oom();
  char base[256];
  int ng = 0;
  if (G && s == PD_OK) s = pd_unique_name("conditional_block_grad", base, sizeof base);
  for (int j = 0; G && s == PD_OK && j < nin; j++) {
    if (!res[j]) continue;
    s = new_var(P, base, ng, ins[j], &gv[j]);
    if (s == PD_OK) s = assign_to(G, res[j], gv[j]->name);
    if (s == PD_OK) {
      gin_names[ng] = gv[j]->name;
      in_names[ng++] = is->args[map[j]];
    }
  }
  if (switched) restore_recorder(rp, rb);
  if (G && s == PD_OK && ng) {
    pd_opdesc *od;
    for (int k = 0; k < no; k++) og_names[k] = gout[k] && gout[k]->var ? gout[k]->var->name : k_empty;
    s = pd_block_append_op(P, &od);
    if (s == PD_OK) s = pd_opdesc_set_type(od, "conditional_block_grad");
    if (s == PD_OK) s = copy_slot(od, op, 0, "Cond");
    if (s == PD_OK) s = set_slot(od, 0, "Input", ng, in_names);
    if (s == PD_OK) s = pd_opdesc_set_slot(od, 0, "Out", no, (const char *const *)os->args);
    if (s == PD_OK) s = set_slot(od, 0, "Out@GRAD", no, og_names);
    const pd_opslot *sc = pd_opdesc_slot(op, 1, "Scope");
    if (s == PD_OK && sc) s = pd_opdesc_set_slot(od, 0, "Scope", sc->n, (const char *const *)sc->args);
    if (s == PD_OK) s = set_slot(od, 1, "Input@GRAD", ng, gin_names);
    if (s == PD_OK) s = pd_opdesc_set_attr_int(od, "sub_block", PD_AT_BLOCK, G->idx);
    const pd_attr *sa = pd_opdesc_attr(op, "is_scalar_condition");
    if (s == PD_OK) s = pd_opdesc_set_attr_int(od, "is_scalar_condition", PD_AT_BOOLEAN, sa ? sa->i : 0);
  }
  for (int j = 0; s == PD_OK && j < nin; j++)
    if (gv[j]) s = var_meta(gv[j], &gin[map[j]]);
  for (int k = 0; k < nr; k++) pd_tensor_release(groots[k]);
  for (int j = 0; j < nin; j++) pd_tensor_release(res[j]);
  sub_free(&x);
  free(gv);
  free(need);
  free(buf);
  free(names);
  free(map);
  return s;
}

pd_status pd_cf_replay_conditional_block(pd_replay *r, const pd_opdesc *op) {
  if (sub_block_of(op) < 0) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[conditional_block] has no sub_block");
  return replay_node(r, op, "Input", "Out", "conditional_block", cb_apply);
}

/* ---------------------------------------------------------------- select_input */
/* its gradient: select_output sends the output's gradient to the input the mask chose (the
 * others stay without value, as their branches do not run) */
static pd_status si_apply(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  cf_ctx *c = (cf_ctx *)n->custom;
  const pd_opdesc *op = c->op;
  if (!gout[0]) return PD_OK;
  pd_program *prog = NULL;
  pd_block *P = NULL;
  PD_TRY(recording(&prog, &P, op->type));
  int nx = n->n_edges;
  pd_tensor *g = gout[0];
  if (!g->var) PD_TRY(pd_bw_run1(PD_OP_ASSIGN, &(pd_assign_args){gout[0]}, &g));
  else pd_tensor_retain(g);
  const char **names = (const char **)calloc((size_t)(nx + 1), sizeof(char *));
  pd_var **vars = (pd_var **)calloc((size_t)(nx + 1), sizeof(pd_var *));
  char base[256];
  pd_status s = names && vars ? pd_unique_name("select_output", base, sizeof base) : oom();
  for (int i = 0; s == PD_OK && i < nx; i++) {
    pd_var *xv = find_var(P, slot_arg(op, 0, "X", i));
    pd_tensor *like = NULL;
    s = xv ? var_meta(xv, &like) : pd_set_error(PD_ERR_NOT_FOUND, "[select_input] X %d is not declared", i);
    if (s == PD_OK) s = new_var(P, base, i, like, &vars[i]);
    pd_tensor_release(like);
    if (s == PD_OK) names[i] = vars[i]->name;
  }
  pd_opdesc *od = NULL;
  if (s == PD_OK) s = pd_block_append_op(P, &od);
  if (s == PD_OK) s = pd_opdesc_set_type(od, "select_output");
  if (s == PD_OK) s = set_slot(od, 0, "X", 1, (const char **)&g->var->name);
  if (s == PD_OK) s = copy_slot(od, op, 0, "Mask");
  if (s == PD_OK) s = set_slot(od, 1, "Out", nx, names);
  for (int i = 0; s == PD_OK && i < nx; i++)
    if (n->edges[i].node || n->edges[i].leaf) s = var_meta(vars[i], &gin[i]);
  pd_tensor_release(g);
  free(names);
  free(vars);
  return s;
}

pd_status pd_cf_replay_select_input(pd_replay *r, const pd_opdesc *op) {
  return replay_node(r, op, "X", "Out", "select_input", si_apply);
}

/* ---------------------------------------------------------------- increment, non-differentiable ops */
pd_status pd_cf_replay_increment(pd_replay *r, const pd_opdesc *op) {
  pd_tensor *x = pd_replay_in(r, slot_arg(op, 0, "X", 0) ? slot_arg(op, 0, "X", 0) : "");
  const char *out = slot_arg(op, 1, "Out", 0);
  if (!x || !out) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[increment] needs X and Out");
  double step = 1.0;
  const pd_attr *a = pd_opdesc_attr(op, "step");
  if (a) PD_TRY(pd_attr_as_double(op, a, &step));
  int is_int = !(pd_dtype_is_float(x->dtype) || pd_dtype_is_complex(x->dtype));
  pd_scale_args sa = {x, pd_scalar_float(1.0), is_int ? pd_scalar_int((int64_t)step) : pd_scalar_float(step), 1};
  pd_tensor *o;
  PD_TRY(pd_bw_run1(PD_OP_SCALE, &sa, &o));
  pd_status s = pd_replay_out(r, out, o);
  pd_tensor_release(o);
  return s;
}

pd_status pd_cf_replay_no_grad(pd_replay *r, const pd_opdesc *op) {
  for (int i = 0; i < op->n_out; i++)
    for (int k = 0; k < op->out[i].n; k++) {
      pd_var *v = pd_block_find_var_recursive(r->block, op->out[i].args[k]);
      if (!v) continue;
      pd_tensor *t;
      PD_TRY(var_meta(v, &t));
      pd_status s = pd_replay_out(r, v->name, t);
      pd_tensor_release(t);
      PD_TRY(s);
    }
  return PD_OK;
}

/* The gradient ops of control flow (conditional_block_grad, while_grad, select_output) met by a
 * later append_backward: their outputs depend on their inputs through a node that refuses to run
 * (gradients of gradients through control flow are not built). */
static pd_status apply_unsupported(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  (void)gout;
  (void)gin;
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] gradients of gradients through control flow are not "
                      "supported", n->name);
}

pd_status pd_cf_replay_grad_op(pd_replay *r, const pd_opdesc *op) {
  int ni = 0, no = 0;
  for (int i = 0; i < op->n_in; i++) ni += op->in[i].n;
  for (int i = 0; i < op->n_out; i++) no += op->out[i].n;
  pd_tensor **t = (pd_tensor **)calloc((size_t)(ni + no + 1), sizeof(pd_tensor *));
  pd_var **vars = (pd_var **)calloc((size_t)(no + 1), sizeof(pd_var *));
  pd_status s = t && vars ? PD_OK : oom();
  int need = 0, k = 0;
  for (int i = 0; s == PD_OK && i < op->n_in; i++)
    for (int j = 0; j < op->in[i].n; j++, k++) {
      t[k] = strcmp(op->in[i].args[j], k_empty) ? pd_replay_in(r, op->in[i].args[j]) : NULL;
      need |= t[k] && pd_requires_grad(t[k]);
    }
  pd_tensor **outs = t ? t + ni : NULL;
  k = 0;
  for (int i = 0; s == PD_OK && i < op->n_out; i++)
    for (int j = 0; s == PD_OK && j < op->out[i].n; j++, k++) {
      vars[k] = pd_block_find_var_recursive(r->block, op->out[i].args[j]);
      if (vars[k]) s = var_meta(vars[k], &outs[k]);
    }
  pd_node *n = s == PD_OK && need ? pd_node_new(op->type, -1, ni, no) : NULL;
  if (s == PD_OK && need && !n) s = oom();
  if (n) {
    for (int i = 0; i < ni; i++) pd_node_set_edge(n, i, t[i]);
    n->apply = apply_unsupported;
    n->null_grads = 1;
    s = attach(n, outs, vars, no);
    pd_node_release(n);
  }
  for (int j = 0; s == PD_OK && j < no; j++)
    if (outs[j]) s = pd_replay_out(r, vars[j]->name, outs[j]);
  for (int j = 0; outs && j < no; j++) pd_tensor_release(outs[j]);
  free(t);
  free(vars);
  return s;
}

/* ---------------------------------------------------------------- while */
/* One iteration maps the carried variables (the loop's differentiable outputs) at its start, and
 * the invariants (inputs it does not write), to the carried variables at its end. The gradient
 * block takes the carried gradients Gx (the outputs' gradients before the first backward
 * iteration) to the gradients at the iteration's start, and adds the invariants' gradients into
 * Gc (zeros first). while_grad runs it once per recorded iteration, last first. */
typedef struct {
  int nx, no, nn;       /* X, Out, names (X then Out names not in X) */
  const char **names;
  int *need;            /* per name: its leaf needs a gradient */
  int *carried;         /* per Out: index in names, or -1 (not differentiable) */
  int *xg;              /* per X: index of its Out (carried) or -1 */
} wh_plan;

static void wh_plan_free(wh_plan *w) {
  free(w->names);
  free(w->need);
  free(w->carried);
  free(w->xg);
}

static pd_status wh_classify(pd_node *n, const pd_opdesc *op, pd_block *W, wh_plan *w) {
  const pd_opslot *xs = pd_opdesc_slot(op, 0, "X"), *os = pd_opdesc_slot(op, 1, "Out");
  w->nx = n->n_edges;
  w->no = n->n_out;
  w->names = (const char **)calloc((size_t)(w->nx + w->no + 1), sizeof(char *));
  w->need = (int *)calloc((size_t)(w->nx + w->no + 1), sizeof(int));
  w->carried = (int *)calloc((size_t)(w->no + 1), sizeof(int));
  w->xg = (int *)calloc((size_t)(w->nx + 1), sizeof(int));
  if (!w->names || !w->need || !w->carried || !w->xg) return oom();
  if ((w->nx && !xs) || (w->no && !os)) return pd_set_error(PD_ERR_FATAL, "[while] slots changed");
  for (int i = 0; i < w->nx; i++) {
    w->names[i] = xs->args[i];
    w->need[i] = n->edges[i].node || n->edges[i].leaf;
    w->xg[i] = -1;
  }
  w->nn = w->nx;
  for (int k = 0; k < w->no; k++) {
    w->carried[k] = -1;
    if (!pd_replay_var_is_diff(find_var(W, os->args[k]))) continue;
    int at = -1;
    for (int i = 0; i < w->nx && at < 0; i++)
      if (strcmp(xs->args[i], os->args[k]) == 0) at = i;
    if (at < 0) {
      at = w->nn++;
      w->names[at] = os->args[k];
    } else {
      w->xg[at] = k;
    }
    w->need[at] = 1;
    w->carried[k] = at;
  }
  return PD_OK;
}

/* tensors of one while gradient: borrowed roots and leaves, the rest owned */
typedef struct {
  pd_tensor **roots, **groots, **gx, **vals; /* per Out */
  pd_tensor **ins, **res, **gc, **cvals;     /* per name that needs a gradient */
  int *map;                                  /* ins[j] is the leaf of names[map[j]] */
  int nin;
  const char **xg_names;                     /* X@GRAD, then Out@GRAD */
} wh_bufs;

/* records the gradient block and while_grad (the recorder is on P) */
static pd_status wh_build(pd_node *n, pd_tensor **gout, pd_tensor **gin, const pd_opdesc *op, pd_program *prog,
                          pd_block *P, const wh_plan *w, sub_replay *x, wh_bufs *b) {
  int no = w->no, nn = w->nn, sub = sub_block_of(op);
  const pd_opslot *os = pd_opdesc_slot(op, 1, "Out");
  pd_status s = PD_OK;
  /* in the parent: the carried gradients start as the outputs' (zeros where none came), the
   * invariants' as zeros */
  for (int k = 0; s == PD_OK && k < no; k++) {
    if (w->carried[k] < 0) continue;
    if (gout[k]) {
      s = pd_bw_run1(PD_OP_ASSIGN, &(pd_assign_args){gout[k]}, &b->gx[k]);
    } else {
      pd_tensor *like;
      s = var_meta(find_var(P, os->args[k]), &like);
      if (s == PD_OK) s = pd_bw_zeros_like(like, &b->gx[k]);
      pd_tensor_release(like);
    }
  }
  for (int i = 0; s == PD_OK && i < nn; i++) {
    if (x->leaves[i]->stop_gradient) continue;
    b->map[b->nin] = i;
    b->ins[b->nin] = x->leaves[i];
    if (i >= w->nx || w->xg[i] < 0) s = pd_bw_zeros_like(x->leaves[i], &b->gc[b->nin]);
    b->nin++;
  }
  int nr = 0;
  for (int k = 0; s == PD_OK && k < no; k++) {
    pd_tensor *t = w->carried[k] >= 0 ? pd_replay_lookup(&x->r, os->args[k]) : NULL;
    if (!t || t->stop_gradient) continue;
    b->roots[nr] = t;
    s = grad_root(b->gx[k], t, &b->groots[nr]);
    nr++;
  }
  pd_block *GW = NULL;
  pd_program *rp = NULL;
  int rb = 0, switched = 0;
  if (s == PD_OK) {
    s = grad_block(prog, P, sub, &GW, &rp, &rb);
    switched = s == PD_OK;
  }
  if (s == PD_OK) s = pd_autograd_run(b->roots, b->groots, nr, b->ins, b->nin, b->res, 0, 0, 1);
  /* the new gradients, all computed before any is written back (a loop may swap variables) */
  for (int k = 0; s == PD_OK && k < no; k++) {
    int at = w->carried[k];
    if (at < 0) continue;
    pd_tensor *r = NULL;
    for (int j = 0; j < b->nin; j++)
      if (b->map[j] == at) r = b->res[j];
    int is_g = 0;
    for (int j = 0; r && j < no; j++) is_g |= b->gx[j] && r->var == b->gx[j]->var;
    for (int j = 0; r && j < b->nin; j++) is_g |= b->gc[j] && r->var == b->gc[j]->var;
    if (!r) s = pd_bw_zeros_like(b->gx[k], &b->vals[k]);
    else if (is_g || !r->var) s = pd_bw_run1(PD_OP_ASSIGN, &(pd_assign_args){r}, &b->vals[k]);
    else pd_tensor_retain(b->vals[k] = r);
  }
  for (int j = 0; s == PD_OK && j < b->nin; j++)
    if (b->gc[j] && b->res[j]) s = pd_bw_run1(PD_OP_ADD, &(pd_add_args){b->gc[j], b->res[j]}, &b->cvals[j]);
  for (int k = 0; s == PD_OK && k < no; k++)
    if (b->vals[k]) s = assign_to(GW, b->vals[k], b->gx[k]->var->name);
  for (int j = 0; s == PD_OK && j < b->nin; j++)
    if (b->cvals[j]) s = assign_to(GW, b->cvals[j], b->gc[j]->var->name);
  if (switched) restore_recorder(rp, rb);
  /* while_grad in the parent: X@GRAD are the carried gradients (loop variables) and the sums
   * (invariants) */
  const char **xg = b->xg_names;
  for (int i = 0; i < w->nx; i++) {
    xg[i] = k_empty;
    if (s == PD_OK && w->xg[i] >= 0) xg[i] = b->gx[w->xg[i]]->var->name;
    for (int j = 0; s == PD_OK && j < b->nin; j++)
      if (b->map[j] == i && b->gc[j]) xg[i] = b->gc[j]->var->name;
  }
  for (int k = 0; k < no; k++) xg[w->nx + k] = gout[k] && gout[k]->var ? gout[k]->var->name : k_empty;
  pd_opdesc *od = NULL;
  if (s == PD_OK) s = pd_block_append_op(P, &od);
  if (s == PD_OK) s = pd_opdesc_set_type(od, "while_grad");
  if (s == PD_OK) s = copy_slot(od, op, 0, "X");
  if (s == PD_OK) s = pd_opdesc_set_slot(od, 0, "Out", no, (const char *const *)os->args);
  if (s == PD_OK) s = set_slot(od, 0, "Out@GRAD", no, xg + w->nx);
  const pd_opslot *ss = pd_opdesc_slot(op, 1, "StepScopes");
  if (s == PD_OK && ss) s = pd_opdesc_set_slot(od, 0, "StepScopes", ss->n, (const char *const *)ss->args);
  if (s == PD_OK) s = set_slot(od, 1, "X@GRAD", w->nx, xg);
  if (s == PD_OK) s = pd_opdesc_set_attr_int(od, "sub_block", PD_AT_BLOCK, GW->idx);
  if (s == PD_OK) s = pd_opdesc_set_attr_int(od, "is_test", PD_AT_BOOLEAN, 0);
  for (int i = 0; s == PD_OK && i < w->nx; i++) {
    if (!(n->edges[i].node || n->edges[i].leaf) || xg[i] == k_empty) continue;
    pd_var *v = find_var(P, xg[i]);
    s = v ? var_meta(v, &gin[i]) : pd_set_error(PD_ERR_FATAL, "[while] lost gradient %s", xg[i]);
  }
  return s;
}

static pd_status wh_apply(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  cf_ctx *c = (cf_ctx *)n->custom;
  const pd_opdesc *op = c->op;
  const pd_attr *test = pd_opdesc_attr(op, "is_test");
  if (test && test->i)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[while] the loop was built with is_test=True: it "
                        "keeps no step values, so no gradient can flow through it");
  pd_program *prog = NULL;
  pd_block *P = NULL;
  PD_TRY(recording(&prog, &P, op->type));
  wh_plan w;
  memset(&w, 0, sizeof w);
  sub_replay x;
  memset(&x, 0, sizeof x);
  pd_status s = wh_classify(n, op, prog->blocks[sub_block_of(op)], &w);
  if (s == PD_OK) s = sub_run(&x, prog->blocks[sub_block_of(op)], c, w.nn, w.names, w.need);
  /* roots: the carried values at the iteration's end that depend on what needs a gradient */
  int nr = 0;
  const pd_opslot *os = pd_opdesc_slot(op, 1, "Out");
  for (int k = 0; s == PD_OK && k < w.no; k++) {
    pd_tensor *t = w.carried[k] >= 0 ? pd_replay_lookup(&x.r, os->args[k]) : NULL;
    if (t && !t->stop_gradient) nr++;
  }
  int no = w.no, nn = w.nn;
  wh_bufs b;
  memset(&b, 0, sizeof b);
  pd_tensor **buf = NULL;
  if (s == PD_OK && nr) {
    buf = (pd_tensor **)calloc((size_t)(4 * no + 4 * nn + 1), sizeof(pd_tensor *));
    b.map = (int *)calloc((size_t)(nn + 1), sizeof(int));
    b.xg_names = (const char **)calloc((size_t)(w.nx + no + 1), sizeof(char *));
    if (!buf || !b.map || !b.xg_names) s = oom();
  }
  if (buf) {
    b.roots = buf;
    b.groots = buf + no;
    b.gx = buf + 2 * no;
    b.vals = buf + 3 * no;
    b.ins = buf + 4 * no;
    b.res = b.ins + nn;
    b.gc = b.res + nn;
    b.cvals = b.gc + nn;
  }
  if (s == PD_OK && buf) s = wh_build(n, gout, gin, op, prog, P, &w, &x, &b);
  for (int k = 0; buf && k < no; k++) {
    pd_tensor_release(b.groots[k]);
    pd_tensor_release(b.gx[k]);
    pd_tensor_release(b.vals[k]);
  }
  for (int j = 0; buf && j < nn; j++) {
    pd_tensor_release(b.res[j]);
    pd_tensor_release(b.gc[j]);
    pd_tensor_release(b.cvals[j]);
  }
  if (s != PD_OK)
    for (int i = 0; i < n->n_edges; i++) {
      pd_tensor_release(gin[i]);
      gin[i] = NULL;
    }
  sub_free(&x);
  wh_plan_free(&w);
  free(buf);
  free(b.map);
  free(b.xg_names);
  return s;
}

pd_status pd_cf_replay_while(pd_replay *r, const pd_opdesc *op) {
  if (sub_block_of(op) < 0) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[while] has no sub_block");
  return replay_node(r, op, "X", "Out", "while", wh_apply);
}
