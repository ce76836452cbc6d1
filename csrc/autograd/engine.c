/* The backward pass: finds the nodes reachable from the roots (pruned to those that lead to the
 * requested inputs for paddle.grad), counts dependencies, and runs nodes whose every consumer
 * has delivered its gradient. Gradients for one output slot are summed; hooks run on a slot's
 * total; leaves accumulate (in place when the graph is not being recorded; row-sparse gradients
 * of embedding(sparse=True) stay row-sparse on a leaf: sparse_grad.c). Saved tensors are freed
 * after a node runs unless retain_graph. */
#include "../core/pd_device.h"
#include <stdlib.h>
#include <string.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"
#include "../ops/pd_amp.h"
#include "../core/pd_prof.h"

void pd_node_release_saved(pd_node *n);

typedef struct {
  pd_node *node;
  int deps;         /* consumers that have not delivered yet */
  int useful;       /* leads to a requested input (paddle.grad) */
  pd_tensor **grads; /* per output slot, summed */
} entry;

typedef struct {
  entry *e;
  int n, cap;
} entries;

static int add_entry(entries *es, pd_node *n) {
  if (n->engine_idx >= 0 && n->engine_idx < es->n && es->e[n->engine_idx].node == n)
    return n->engine_idx;
  if (es->n == es->cap) {
    int nc = es->cap ? es->cap * 2 : 64;
    entry *ne = (entry *)realloc(es->e, sizeof(entry) * (size_t)nc);
    if (!ne) return -1;
    es->e = ne;
    es->cap = nc;
  }
  entry *x = &es->e[es->n];
  memset(x, 0, sizeof *x);
  x->node = n;
  x->grads = (pd_tensor **)calloc((size_t)(n->n_out > 0 ? n->n_out : 1), sizeof(pd_tensor *));
  if (!x->grads) return -1;
  n->engine_idx = es->n;
  return es->n++;
}

static pd_status accumulate(pd_tensor **slot, pd_tensor *g) {
  /* *slot += g (g is a new reference, consumed) */
  if (!*slot) {
    *slot = g;
    return PD_OK;
  }
  pd_add_args a = {*slot, g};
  if (a.x->dtype != a.y->dtype)
    return pd_set_error(PD_ERR_FATAL, "gradient dtype mismatch (%s vs %s)",
                        pd_dtype_name(a.x->dtype), pd_dtype_name(a.y->dtype));
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  pd_status s = pd_op_run(PD_OP_ADD, &a, &o, &n);
  pd_tensor_release(g);
  if (s != PD_OK) return s;
  pd_tensor_release(*slot);
  *slot = o[0];
  return PD_OK;
}

static pd_status run_hooks(pd_hook *h, pd_tensor **g) {
  for (; h; h = h->next) {
    pd_tensor *rep = NULL;
    PD_TRY(h->fn(h->ctx, *g, &rep));
    if (rep) {
      pd_tensor_release(*g);
      *g = rep;
    }
  }
  return PD_OK;
}

static pd_status ones_like_meta(const pd_tensor *t, pd_tensor **out) { return pd_bw_ones_like(t, out); }

/* zeros for output k of n that got no gradient: a tensor in eager mode; while a program is
 * being built (a tracer is active) an op, shaped like the output's variable */
static pd_status zeros_for(const pd_node *n, int k, pd_tensor **out) {
  const pd_meta *m = &n->out_meta[k];
  if (n->out_like && n->out_like[k]) return pd_bw_zeros_like(n->out_like[k], out);
  if (pd_trace_current().fn) {
    for (int d = 0; d < m->ndim; d++)
      if (m->shape[d] < 0)
        return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] backward: an output of unknown shape got no "
                            "gradient and no variable to take its shape from", n->name);
    pd_tensor *like;
    PD_TRY(pd_tensor_meta(m->dtype, m->ndim, m->shape, &like));
    pd_status s = pd_bw_zeros_like(like, out);
    pd_tensor_release(like);
    return s;
  }
  return pd_tensor_zeros(m->dtype, m->ndim, m->shape, out);
}

static int is_diff_dtype(pd_dtype t) { return pd_dtype_is_float(t) || pd_dtype_is_complex(t); }

/* leaf accumulation: in place into an existing grad when the graph is not recorded */
static pd_status accumulate_leaf(pd_tensor *leaf, pd_tensor *g, int create_graph) {
  pd_autograd_meta *m = pd_autograd_meta_get(leaf, 1);
  if (!m) {
    pd_tensor_release(g);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  PD_TRY(run_hooks(m->hooks, &g));
  if (m->sp_rows) { /* a row-sparse gradient so far: the sum becomes dense */
    pd_status s = pd_leaf_fold_sparse(leaf);
    if (s != PD_OK) {
      pd_tensor_release(g);
      return s;
    }
  }
  if (!m->grad) {
    if (!create_graph && (g->storage->refcount > 1 || g->pyobj)) {
      /* never alias a tensor someone else holds */
      pd_tensor *c;
      pd_status s = pd_tensor_clone(g, &c);
      pd_tensor_release(g);
      if (s != PD_OK) return s;
      g = c;
    }
    if (!create_graph) g->stop_gradient = 1;
    m->grad = g;
    return PD_OK;
  }
  if (m->grad_zero_pending && !create_graph && m->grad->dtype == g->dtype &&
      m->grad->numel == g->numel && m->grad->ndim == g->ndim) {
    /* cleared with set_to_zero: the new gradient replaces the stale one. When nobody but this
     * meta can see the old tensor (no Python wrapper, no other reference, no view of its
     * storage) and nobody else holds g, g itself becomes the gradient (the copy was ~7% of the
     * seed MLP's fwd+bwd: 5.3 MB per step); otherwise it is copied in, so a held p.grad sees
     * the new values as Paddle's in-place clear promises. */
    pd_tensor *old = m->grad;
    if (atomic_load(&old->refcount) == 1 && !old->pyobj && atomic_load(&old->storage->refcount) == 1 &&
        atomic_load(&g->refcount) == 1 && !g->pyobj && atomic_load(&g->storage->refcount) == 1 &&
        pd_tensor_is_contiguous(g) && memcmp(old->shape, g->shape, sizeof(int64_t) * (size_t)g->ndim) == 0) {
      g->stop_gradient = 1;
      m->grad = g;
      m->grad_zero_pending = 0;
      pd_tensor_release(old);
      return PD_OK;
    }
    pd_status s = pd_tensor_copy_(m->grad, g);
    pd_tensor_release(g);
    m->grad_zero_pending = 0;
    pd_tensor_bump_version(m->grad);
    return s;
  }
  if (m->grad_zero_pending) {
    pd_tensor *gz = pd_tensor_grad(leaf); /* materialise, then accumulate normally */
    (void)gz;
  }
  if (!create_graph && m->grad->dtype == g->dtype && m->grad->numel == g->numel &&
      pd_tensor_is_contiguous(m->grad) && m->grad->ndim == g->ndim && !pd_tensor_on_gpu(m->grad) &&
      !pd_tensor_on_gpu(g)) { /* the CPU add kernel in place (a GPU grad accumulates through the op) */
    const pd_op_def *d = &pd_op_defs[PD_OP_ADD];
    pd_add_args a = {m->grad, g};
    pd_tensor *out = m->grad;
    pd_status s = d->kernels[g->dtype] ? d->kernels[g->dtype](&a, &out, 1)
                                        : pd_set_error(PD_ERR_TYPE, "cannot accumulate %s grads",
                                                       pd_dtype_name(g->dtype));
    pd_tensor_release(g);
    pd_tensor_bump_version(m->grad);
    return s;
  }
  pd_status s = accumulate(&m->grad, g);
  if (s == PD_OK && !create_graph) m->grad->stop_gradient = 1;
  return s;
}

/* ---- one backward pass, in steps ---- */
typedef struct {
  entries es;
  pd_node **stack;
  int sp, cap;
  pd_tensor **inputs;  /* paddle.grad: the tensors asked for (NULL: Tensor.backward) */
  int n_inputs;
  pd_tensor **results;
  int retain_graph, create_graph;
} run_ctx;

static pd_status push(run_ctx *c, pd_node *n) {
  if (c->sp == c->cap) {
    int nc = c->cap ? c->cap * 2 : 64;
    pd_node **ns = (pd_node **)realloc(c->stack, sizeof(pd_node *) * (size_t)nc);
    if (!ns) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    c->stack = ns;
    c->cap = nc;
  }
  c->stack[c->sp++] = n;
  return PD_OK;
}

static entry *entry_of(run_ctx *c, const pd_node *n) { return &c->es.e[n->engine_idx]; }

/* 1. every root needs a graph; given root gradients must match their outputs */
static pd_status check_roots(pd_tensor **roots, pd_tensor **grad_roots, int n_roots) {
  for (int r = 0; r < n_roots; r++) {
    pd_tensor *t = roots[r];
    if (!pd_requires_grad(t))
      return pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                          "backward: output %d has stop_gradient=True, so there is no graph to run "
                          "backward through", r);
    if (grad_roots && grad_roots[r]) {
      pd_tensor *g = grad_roots[r];
      int same = g->ndim == t->ndim && g->dtype == t->dtype;
      for (int d = 0; same && d < t->ndim; d++) same = g->shape[d] == t->shape[d];
      if (!same) {
        char a[128], b[128];
        return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                            "backward: grad_tensor %d must match its output: expected %s %s, "
                            "received %s %s", r, pd_dtype_name(t->dtype),
                            pd_shape_str(t->ndim, t->shape, a, sizeof a), pd_dtype_name(g->dtype),
                            pd_shape_str(g->ndim, g->shape, b, sizeof b));
      }
    }
  }
  return PD_OK;
}

/* 2. the nodes reachable from the roots (DFS) and how many consumers each waits for */
static pd_status discover(run_ctx *c, pd_tensor **roots, int n_roots) {
  for (int r = 0; r < n_roots; r++) {
    pd_autograd_meta *m = roots[r]->autograd;
    if (!m || !m->node) continue;
    int before = c->es.n;
    if (add_entry(&c->es, m->node) < 0) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    if (c->es.n > before) PD_TRY(push(c, m->node));
  }
  while (c->sp) {
    pd_node *n = c->stack[--c->sp];
    for (int i = 0; i < n->n_edges; i++) {
      pd_node *p = n->edges[i].node;
      if (!p) continue;
      int before = c->es.n;
      int idx = add_entry(&c->es, p);
      if (idx < 0) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      c->es.e[idx].deps++;
      if (c->es.n > before) PD_TRY(push(c, p));
    }
  }
  return PD_OK;
}

/* 3. paddle.grad runs only the nodes from which a requested input is reachable (fixed point:
 * discovery order is not a topological order) */
static void mark_useful(run_ctx *c) {
  entries *es = &c->es;
  if (!c->inputs) {
    for (int k = 0; k < es->n; k++) es->e[k].useful = 1;
    return;
  }
  for (int i = 0; i < c->n_inputs; i++) {
    pd_autograd_meta *m = c->inputs[i]->autograd;
    if (m && m->node && m->node->engine_idx >= 0 && m->node->engine_idx < es->n &&
        es->e[m->node->engine_idx].node == m->node)
      es->e[m->node->engine_idx].useful = 1;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int k = es->n - 1; k >= 0; k--) {
      entry *e = &es->e[k];
      if (e->useful) continue;
      pd_node *n = e->node;
      for (int i = 0; i < n->n_edges && !e->useful; i++) {
        if (n->edges[i].leaf) {
          for (int j = 0; j < c->n_inputs; j++)
            if (n->edges[i].leaf == c->inputs[j]) e->useful = 1;
        } else if (n->edges[i].node && es->e[n->edges[i].node->engine_idx].useful) {
          e->useful = 1;
        }
      }
      if (e->useful) changed = 1;
    }
  }
}

/* g (consumed) for requested input j: summed into results[j] */
static pd_status capture(run_ctx *c, int j, pd_tensor *g) {
  if (!c->results[j]) {
    c->results[j] = g;
    return PD_OK;
  }
  return accumulate(&c->results[j], g);
}

/* 4. the roots' gradients (ones unless given) go to their nodes, or straight to a leaf root */
static pd_status seed_roots(run_ctx *c, pd_tensor **roots, pd_tensor **grad_roots, int n_roots) {
  for (int r = 0; r < n_roots; r++) {
    pd_tensor *t = roots[r], *g;
    if (grad_roots && grad_roots[r]) {
      g = grad_roots[r];
      pd_tensor_retain(g);
    } else {
      PD_TRY(ones_like_meta(t, &g));
    }
    pd_autograd_meta *m = t->autograd;
    if (m && m->node) {
      PD_TRY(accumulate(&entry_of(c, m->node)->grads[m->slot], g));
      continue;
    }
    /* a leaf root: its gradient is g itself */
    if (!c->inputs) {
      PD_TRY(accumulate_leaf(t, g, c->create_graph));
      continue;
    }
    pd_status s = PD_OK;
    for (int j = 0; j < c->n_inputs && s == PD_OK; j++)
      if (c->inputs[j] == t) {
        pd_tensor_retain(g);
        s = capture(c, j, g);
      }
    pd_tensor_release(g);
    PD_TRY(s);
  }
  return PD_OK;
}

/* hooks on each output slot's total, then captures of non-leaf inputs (paddle.grad) */
static pd_status slot_hooks_and_captures(run_ctx *c, pd_node *n, entry *e) {
  for (int k = 0; k < n->n_out; k++) {
    if (e->grads[k] && n->slot_hooks[k]) PD_TRY(run_hooks(n->slot_hooks[k], &e->grads[k]));
    for (int j = 0; j < c->n_inputs; j++) {
      pd_autograd_meta *m = c->inputs[j]->autograd;
      if (m && m->node == n && m->slot == k && e->grads[k]) {
        pd_tensor_retain(e->grads[k]);
        PD_TRY(capture(c, j, e->grads[k]));
      }
    }
  }
  return PD_OK;
}

/* the profiler's event for a node run: Paddle's names (matmul -> MatmulGradNode) */
static __attribute__((noinline)) pd_status apply_profiled(pd_node *n, pd_tensor **grads, pd_tensor **gin) {
  int h = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
  pd_status s = n->apply(n, grads, gin);
  char name[160];
  size_t k = 0;
  int up = 1;
  for (const char *p = n->name ? n->name : "Unknown"; *p && k + 16 < sizeof name; p++) {
    if (*p == '_') {
      up = 1;
      continue;
    }
    name[k++] = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
    up = 0;
  }
  memcpy(name + k, "GradNode", 9);
  pd_prof_end(h, name, NULL);
  return s;
}

/* runs n's rule: gradients for its inputs in *gin (calloc'd; NULL entries where none) */
static pd_status apply_node(run_ctx *c, pd_node *n, entry *e, pd_tensor ***gin_out) {
  /* missing grads of float/complex outputs become zeros (unless the rule takes NULL); integer
   * and bool outputs stay NULL beside them (topk's indices). A node whose outputs are all
   * integer/bool (Paddle's integer gradients) gets zeros for the missing ones when another got a
   * gradient (split of an int tensor), and passes nothing on when none did (a cast to int64
   * used only as gather's index: its input gets no gradient, None) */
  int has_float = 0, any = n->null_grads || n->n_out == 0;
  for (int k = 0; k < n->n_out; k++) {
    has_float |= is_diff_dtype(n->out_meta[k].dtype);
    any |= e->grads[k] != NULL;
  }
  for (int k = 0; k < n->n_out; k++)
    if (!e->grads[k] && !n->null_grads && (is_diff_dtype(n->out_meta[k].dtype) || (!has_float && any)))
      PD_TRY(zeros_for(n, k, &e->grads[k]));
  any |= has_float;
  pd_tensor **gin = (pd_tensor **)calloc((size_t)(n->n_edges > 0 ? n->n_edges : 1), sizeof(pd_tensor *));
  if (!gin) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (!any) {
    if (!c->retain_graph) pd_node_release_saved(n);
    *gin_out = gin;
    return PD_OK;
  }
  pd_status s;
  if (n->released)
    s = pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                     "[%s] trying to run backward through the graph a second time, but its "
                     "saved tensors were already freed; call backward(retain_graph=True) or "
                     "paddle.grad(..., retain_graph=True) the first time", n->name);
  else if (__builtin_expect(pd_prof_on != 0, 0))
    s = apply_profiled(n, e->grads, gin);
  else
    s = n->apply(n, e->grads, gin);
  /* saved outputs were re-attached to n for create_graph: drop that self-reference */
  for (int k = 0; k < n->n_saved; k++) {
    pd_tensor *t = n->saved ? n->saved[k] : NULL;
    if (t && n->saved_is_output[k] >= 0 && t->autograd && t->autograd->node == n) {
      pd_node *self = t->autograd->node;
      t->autograd->node = NULL;
      t->stop_gradient = 1;
      pd_node_release(self);
    }
  }
  if (s != PD_OK) {
    for (int i = 0; i < n->n_edges; i++) pd_tensor_release(gin[i]);
    free(gin);
    return s;
  }
  if (!c->retain_graph) pd_node_release_saved(n);
  *gin_out = gin;
  return PD_OK;
}

/* g (consumed) for edge ed of a node: to the producer's slot (queueing the producer once all
 * its consumers delivered), a leaf's .grad, or a paddle.grad capture */
static pd_status deliver_one(run_ctx *c, pd_edge *ed, pd_tensor *g) {
  pd_status s = PD_OK;
  if (pd_grad_is_sparse(g)) {
    /* row-sparse (embedding sparse=True): a leaf keeps it as is, everything else gets it dense */
    pd_autograd_meta *lm = ed->leaf ? ed->leaf->autograd : NULL;
    if (ed->leaf && !c->inputs && !c->create_graph && !(lm && lm->hooks))
      return pd_leaf_accumulate_sparse(ed->leaf, g);
    pd_tensor *d = NULL;
    s = pd_sparse_grad_densify(g, &d);
    pd_tensor_release(g);
    PD_TRY(s);
    g = d;
  }
  if (ed->node) {
    entry *pe = entry_of(c, ed->node);
    if (g) {
      if (!c->create_graph) g->stop_gradient = 1;
      PD_TRY(accumulate(&pe->grads[ed->slot], g));
    }
    if (--pe->deps == 0) {
      pe->deps = -1;
      PD_TRY(push(c, ed->node));
    }
    return PD_OK;
  }
  if (!ed->leaf || !g) {
    pd_tensor_release(g);
    return PD_OK;
  }
  if (!c->inputs) return accumulate_leaf(ed->leaf, g, c->create_graph);
  for (int j = 0; j < c->n_inputs && s == PD_OK; j++)
    if (c->inputs[j] == ed->leaf) {
      pd_tensor_retain(g);
      s = capture(c, j, g);
    }
  pd_tensor_release(g);
  return s;
}

/* 5. run nodes as they become ready (all consumers delivered) */
static pd_status run_ready(run_ctx *c, pd_tensor **roots, int n_roots) {
  c->sp = 0;
  for (int r = 0; r < n_roots; r++) {
    pd_autograd_meta *m = roots[r]->autograd;
    if (!m || !m->node) continue;
    entry *e = entry_of(c, m->node);
    if (e->deps == 0 && e->node->engine_idx >= 0) {
      e->deps = -1; /* queued */
      PD_TRY(push(c, e->node));
    }
  }
  while (c->sp) {
    pd_node *n = c->stack[--c->sp];
    entry *e = entry_of(c, n);
    PD_TRY(slot_hooks_and_captures(c, n, e));
    pd_tensor **gin = NULL;
    if (e->useful) PD_TRY(apply_node(c, n, e, &gin));
    for (int k = 0; k < n->n_out; k++) {
      pd_tensor_release(e->grads[k]);
      e->grads[k] = NULL;
    }
    pd_status s = PD_OK;
    for (int i = 0; i < n->n_edges; i++) {
      pd_tensor *g = gin ? gin[i] : NULL;
      if (s == PD_OK) s = deliver_one(c, &n->edges[i], g);
      else pd_tensor_release(g);
    }
    free(gin);
    PD_TRY(s);
  }
  return PD_OK;
}

/* 6. paddle.grad: every input needs a gradient unless allow_unused */
static pd_status check_results(run_ctx *c, int allow_unused) {
  for (int j = 0; j < c->n_inputs; j++) {
    if (!c->results[j] && !allow_unused)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "paddle.grad: input %d is not reachable from the outputs (its gradient "
                          "would be None); pass allow_unused=True to get None", j);
    if (c->results[j] && !c->create_graph) c->results[j]->stop_gradient = 1;
  }
  return PD_OK;
}

pd_status pd_autograd_run(pd_tensor **roots, pd_tensor **grad_roots, int n_roots,
                          pd_tensor **inputs, int n_inputs, pd_tensor **results,
                          int retain_graph, int create_graph, int allow_unused) {
  run_ctx c;
  memset(&c, 0, sizeof c);
  c.inputs = inputs;
  c.n_inputs = inputs ? n_inputs : 0;
  c.results = results;
  c.retain_graph = retain_graph;
  c.create_graph = create_graph;
  int prev_mode = pd_grad_enabled();
  int prev_amp = pd_amp_suspend(); /* backward ops are never auto-cast (as in Paddle) */
  /* gradients made without a tensor input (seeds, zeros) go where the first root lives */
  int prev_dev = pd_device_swap_current(n_roots > 0 && roots[0] ? pd_tensor_device(roots[0]) : PD_CPU);
  for (int i = 0; i < c.n_inputs; i++) results[i] = NULL;
  pd_status s = check_roots(roots, grad_roots, n_roots);
  if (s == PD_OK) s = discover(&c, roots, n_roots);
  if (s == PD_OK) {
    mark_useful(&c);
    pd_set_grad_enabled(create_graph);
    s = seed_roots(&c, roots, grad_roots, n_roots);
  }
  if (s == PD_OK) s = run_ready(&c, roots, n_roots);
  if (s == PD_OK && inputs) s = check_results(&c, allow_unused);
  pd_set_grad_enabled(prev_mode);
  pd_amp_resume(prev_amp);
  pd_device_swap_current(prev_dev);
  for (int k = 0; k < c.es.n; k++) {
    entry *e = &c.es.e[k];
    for (int j = 0; j < e->node->n_out; j++) pd_tensor_release(e->grads[j]);
    free(e->grads);
    e->node->engine_idx = -1;
  }
  if (s != PD_OK)
    for (int j = 0; j < c.n_inputs; j++) {
      pd_tensor_release(results[j]);
      results[j] = NULL;
    }
  free(c.es.e);
  free(c.stack);
  return s;
}
