/* Grad nodes and autograd metas: lifetime (refcounts; graphs are released iteratively so deep
 * chains do not overflow the C stack), edges, saved tensors with version checks, hooks, and
 * the recording hook the runner calls after each differentiable op. */
#include <stdlib.h>
#include <string.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

static _Thread_local int tl_grad_disabled = 0;
int pd_grad_enabled(void) { return !tl_grad_disabled; }
void pd_set_grad_enabled(int on) { tl_grad_disabled = !on; }

static int64_t g_hook_id = 0;
extern void (*pd_autograd_meta_free_hook)(struct pd_autograd_meta *);

static void free_hooks(pd_hook *h) {
  while (h) {
    pd_hook *nx = h->next;
    if (h->free_ctx) h->free_ctx(h->ctx);
    free(h);
    h = nx;
  }
}

static void remove_hook_from(pd_hook **list, int64_t id, int *found) {
  for (pd_hook **p = list; *p; p = &(*p)->next) {
    if ((*p)->id == id) {
      pd_hook *h = *p;
      *p = h->next;
      h->next = NULL;
      free_hooks(h);
      *found = 1;
      return;
    }
  }
}

static void meta_free(pd_autograd_meta *m) {
  if (!m) return;
  if (m->retain_hook_id && m->node) {
    int f = 0;
    remove_hook_from(&m->node->slot_hooks[m->slot], m->retain_hook_id, &f);
  }
  pd_tensor_release(m->grad);
  pd_tensor_release(m->sp_rows);
  pd_tensor_release(m->sp_values);
  free_hooks(m->hooks);
  pd_node_release(m->node);
  free(m);
}

pd_autograd_meta *pd_autograd_meta_get(pd_tensor *t, int create) {
  if (!t->autograd && create) {
    t->autograd = (pd_autograd_meta *)calloc(1, sizeof(pd_autograd_meta));
    pd_autograd_meta_free_hook = meta_free;
  }
  return t->autograd;
}

int pd_requires_grad(const pd_tensor *t) { return t && !t->stop_gradient; }

pd_tensor *pd_tensor_grad_dense(pd_tensor *t) {
  pd_autograd_meta *m = t->autograd;
  if (!m || !m->grad) return NULL;
  if (m->grad_zero_pending) {
    if (pd_tensor_fill_(m->grad, 0.0, 0.0) != PD_OK) return NULL;
    pd_tensor_bump_version(m->grad);
    m->grad_zero_pending = 0;
  }
  return m->grad;
}

pd_node *pd_node_new(const char *name, int op, int n_edges, int n_out) {
  pd_node *n = (pd_node *)calloc(1, sizeof *n);
  if (!n) return NULL;
  atomic_init(&n->refcount, 1);
  n->name = name;
  n->op = op;
  n->n_edges = n_edges;
  n->n_out = n_out;
  n->edges = (pd_edge *)calloc((size_t)(n_edges > 0 ? n_edges : 1), sizeof(pd_edge));
  n->out_meta = (pd_meta *)calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(pd_meta));
  n->slot_hooks = (pd_hook **)calloc((size_t)(n_out > 0 ? n_out : 1), sizeof(pd_hook *));
  if (!n->edges || !n->out_meta || !n->slot_hooks) {
    free(n->edges);
    free(n->out_meta);
    free(n->slot_hooks);
    free(n);
    return NULL;
  }
  n->engine_idx = -1;
  return n;
}

void pd_node_retain(pd_node *n) {
  if (n) atomic_fetch_add_explicit(&n->refcount, 1, memory_order_relaxed);
}

static void free_saved(pd_node *n) {
  for (int i = 0; i < n->n_saved; i++) pd_tensor_release(n->saved[i]);
  free(n->saved);
  free(n->saved_version);
  free(n->saved_is_output);
  n->saved = NULL;
  n->saved_version = NULL;
  n->saved_is_output = NULL;
  n->n_saved = 0;
  if (n->args && n->free_args) n->free_args(n->args);
  else free(n->args);
  n->args = NULL;
}

void pd_node_release_saved(pd_node *n) {
  free_saved(n);
  n->released = 1;
}

void pd_node_release(pd_node *n) {
  /* iterative: a chain of thousands of nodes must not recurse */
  pd_node *stack_buf[64];
  pd_node **stack = stack_buf;
  size_t sp = 0, cap = 64;
  if (!n) return;
  stack[sp++] = n;
  while (sp) {
    pd_node *x = stack[--sp];
    if (atomic_fetch_sub_explicit(&x->refcount, 1, memory_order_acq_rel) != 1) continue;
    for (int i = 0; i < x->n_edges; i++) {
      pd_tensor_release(x->edges[i].leaf);
      if (x->edges[i].node) {
        if (sp == cap) {
          size_t nc = cap * 2;
          pd_node **ns = (pd_node **)malloc(nc * sizeof *ns);
          if (!ns) continue; /* leak rather than crash under OOM */
          memcpy(ns, stack, sp * sizeof *ns);
          if (stack != stack_buf) free(stack);
          stack = ns;
          cap = nc;
        }
        stack[sp++] = x->edges[i].node;
      }
    }
    free_saved(x);
    for (int k = 0; k < x->n_out; k++) free_hooks(x->slot_hooks[k]);
    if (x->custom && x->free_custom) x->free_custom(x->custom);
    if (x->out_like) {
      for (int k = 0; k < x->n_out; k++) pd_tensor_release(x->out_like[k]);
      free(x->out_like);
    }
    free(x->edges);
    free(x->out_meta);
    free(x->slot_hooks);
    free(x);
  }
  if (stack != stack_buf) free(stack);
}

void pd_node_set_edge(pd_node *n, int i, pd_tensor *t) {
  if (!t || !pd_requires_grad(t) || i < 0 || i >= n->n_edges) return;
  pd_autograd_meta *m = t->autograd;
  if (m && m->node) {
    pd_node_retain(m->node);
    n->edges[i].node = m->node;
    n->edges[i].slot = m->slot;
  } else {
    pd_tensor_retain(t);
    n->edges[i].leaf = t;
  }
}

static pd_status ensure_saved_cap(pd_node *n, int k) {
  if (k < n->n_saved) return PD_OK;
  int nn = k + 1;
  pd_tensor **s = (pd_tensor **)realloc(n->saved, sizeof(pd_tensor *) * (size_t)nn);
  if (!s) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory saving tensors");
  n->saved = s;
  uint64_t *v = (uint64_t *)realloc(n->saved_version, sizeof(uint64_t) * (size_t)nn);
  if (!v) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory saving tensors");
  n->saved_version = v;
  int *o = (int *)realloc(n->saved_is_output, sizeof(int) * (size_t)nn);
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory saving tensors");
  n->saved_is_output = o;
  for (int i = n->n_saved; i < nn; i++) {
    s[i] = NULL;
    v[i] = UINT64_MAX;
    o[i] = -1;
  }
  n->n_saved = nn;
  return PD_OK;
}

pd_status pd_node_save(pd_node *n, int k, pd_tensor *t, int shape_only, int out_slot) {
  PD_TRY(ensure_saved_cap(n, k));
  if (!t) return PD_OK;
  pd_tensor *v;
  if (t->var && !t->storage) {
    /* a program variable (append_backward's replay): the saved tensor stands for the same
     * variable; inputs keep their place in the graph as in eager */
    PD_TRY(pd_tensor_meta_like_var(t, &v));
    if (out_slot < 0 && pd_requires_grad(t) && !shape_only) {
      v->stop_gradient = 0;
      pd_autograd_meta *m = t->autograd;
      if (m && m->node) {
        pd_autograd_meta *vm = pd_autograd_meta_get(v, 1);
        if (!vm) {
          pd_tensor_release(v);
          return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
        }
        pd_node_retain(m->node);
        vm->node = m->node;
        vm->slot = m->slot;
      } else {
        pd_tensor_release(v);
        pd_tensor_retain(t);
        v = t;
      }
    }
  } else if (shape_only || !t->storage) {
    PD_TRY(pd_tensor_meta(t->dtype, t->ndim, t->shape, &v));
  } else {
    PD_TRY(pd_tensor_view(t, t->ndim, t->shape, t->strides, t->offset, &v));
    n->saved_version[k] = t->storage->version;
    /* the saved input keeps its place in the graph (create_graph needs its grad path) */
    if (out_slot < 0 && pd_requires_grad(t)) {
      v->stop_gradient = 0;
      pd_autograd_meta *m = t->autograd;
      if (m && m->node) {
        pd_autograd_meta *vm = pd_autograd_meta_get(v, 1);
        if (!vm) {
          pd_tensor_release(v);
          return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
        }
        pd_node_retain(m->node);
        vm->node = m->node;
        vm->slot = m->slot;
      } else {
        /* a leaf: the view must route gradients to the leaf itself */
        pd_tensor_release(v);
        pd_tensor_retain(t);
        v = t;
      }
    }
  }
  n->saved[k] = v;
  n->saved_is_output[k] = out_slot;
  return PD_OK;
}

pd_status pd_node_saved(pd_node *n, int k, pd_tensor **out) {
  if (n->released)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                        "[%s] trying to run backward through the graph a second time, but its "
                        "saved tensors were already freed; call backward(retain_graph=True) or "
                        "paddle.grad(..., retain_graph=True) the first time", n->name);
  if (k >= n->n_saved || !n->saved[k])
    return pd_set_error(PD_ERR_FATAL, "[%s] backward rule needs saved tensor %d that was not saved",
                        n->name, k);
  pd_tensor *t = n->saved[k];
  if (t->storage && n->saved_version[k] != UINT64_MAX && t->storage->version != n->saved_version[k])
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                        "[%s] one of the tensors needed for gradient computation has been modified "
                        "by an inplace operation: it is at version %llu, expected version %llu. "
                        "Avoid the in-place change or clone the tensor before it",
                        n->name, (unsigned long long)t->storage->version,
                        (unsigned long long)n->saved_version[k]);
  int os = n->saved_is_output[k];
  if (os >= 0 && pd_grad_enabled() && !(t->autograd && t->autograd->node)) {
    /* create_graph: the output becomes a non-leaf of this node again (no cycle while idle);
     * the meta stays after the engine detaches it, so test the node (a later create_graph
     * pass, e.g. third order, must re-attach it again) */
    pd_autograd_meta *m = pd_autograd_meta_get(t, 1);
    if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    pd_node_retain(n);
    m->node = n;
    m->slot = os;
    t->stop_gradient = 0;
  }
  *out = t;
  return PD_OK;
}

/* any_dtype: integer and bool outputs become non-leaves too. Paddle 2.6.2 gives every output
 * of an op that has a backward rule stop_gradient=False (int64 sum of a bool tensor, int
 * concat, topk's indices), and gradients flow into integer tensors in their own dtype; ops
 * without a rule (nondiff: compare, floor_divide, argmax ...) keep stop_gradient=True. */
static pd_status attach_outputs(pd_node *n, pd_tensor **outs, int n_out, int any_dtype) {
  for (int k = 0; k < n_out && k < n->n_out; k++) {
    pd_tensor *o = outs[k];
    pd_meta_like(&n->out_meta[k], o);
    if (!any_dtype && !(pd_dtype_is_float(o->dtype) || pd_dtype_is_complex(o->dtype))) continue;
    pd_autograd_meta *m = pd_autograd_meta_get(o, 1);
    if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    if (m->node) pd_node_release(m->node); /* in-place op: the tensor's history moves on */
    pd_node_retain(n);
    m->node = n;
    m->slot = k;
    o->stop_gradient = 0;
  }
  return PD_OK;
}

pd_status pd_node_attach_outputs(pd_node *n, pd_tensor **outs, int n_out) {
  return attach_outputs(n, outs, n_out, 0);
}

pd_status pd_node_attach_outputs_any(pd_node *n, pd_tensor **outs, int n_out) {
  return attach_outputs(n, outs, n_out, 1);
}

/* ---- hooks ---- */
int64_t pd_tensor_add_hook(pd_tensor *t, pd_hook_fn fn, void *ctx, void (*free_ctx)(void *)) {
  pd_hook *h = (pd_hook *)calloc(1, sizeof *h);
  pd_autograd_meta *m = pd_autograd_meta_get(t, 1);
  if (!h || !m) {
    free(h);
    return -1;
  }
  h->id = ++g_hook_id;
  h->fn = fn;
  h->ctx = ctx;
  h->free_ctx = free_ctx;
  pd_hook **list = m->node ? &m->node->slot_hooks[m->slot] : &m->hooks;
  while (*list) list = &(*list)->next; /* hooks run in registration order */
  *list = h;
  return h->id;
}

int pd_tensor_remove_hook(pd_tensor *t, int64_t id) {
  pd_autograd_meta *m = t->autograd;
  if (!m) return 0;
  int found = 0;
  remove_hook_from(&m->hooks, id, &found);
  if (!found && m->node) remove_hook_from(&m->node->slot_hooks[m->slot], id, &found);
  return found;
}

static pd_status retain_hook(void *ctx, pd_tensor *grad, pd_tensor **replace) {
  pd_tensor *t = (pd_tensor *)ctx; /* the meta removes this hook before t goes */
  pd_autograd_meta *m = t->autograd;
  *replace = NULL;
  if (!m) return PD_OK;
  pd_tensor *old = m->grad;
  pd_tensor_retain(grad);
  m->grad = grad;
  pd_tensor_release(old);
  return PD_OK;
}

pd_status pd_tensor_retain_grads(pd_tensor *t) {
  pd_autograd_meta *m = pd_autograd_meta_get(t, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (!m->node || m->retain_hook_id) return PD_OK; /* leaves keep grads anyway */
  m->retain_hook_id = pd_tensor_add_hook(t, retain_hook, t, NULL);
  return PD_OK;
}

/* ---- the runner hook ---- */
static int flat_tensor_inputs(const pd_op_def *d, const void *args, pd_tensor **buf, int cap) {
  int k = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      if (k < cap) buf[k] = *(pd_tensor *const *)p;
      k++;
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      const pd_tensor_list *l = (const pd_tensor_list *)p;
      for (int64_t j = 0; j < l->n; j++) {
        if (k < cap) buf[k] = l->data[j];
        k++;
      }
    }
  }
  return k;
}

static pd_status apply_missing_rule(pd_node *n, pd_tensor **go, pd_tensor **gi) {
  (void)go;
  (void)gi;
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the backward rule of this op is not implemented "
                      "yet, so gradients cannot flow through it", n->name);
}

static pd_status record(int op, const void *args, pd_tensor **outs, int n_out) {
  if (!pd_grad_enabled()) return PD_OK;
  const pd_op_def *d = &pd_op_defs[op];
  pd_tensor *inbuf[16];
  pd_tensor **ins = inbuf;
  int n_in = flat_tensor_inputs(d, args, inbuf, 16);
  if (n_in > 16) {
    ins = (pd_tensor **)malloc(sizeof(pd_tensor *) * (size_t)n_in);
    if (!ins) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    flat_tensor_inputs(d, args, ins, n_in);
  }
  int need = 0;
  for (int i = 0; i < n_in; i++) need |= pd_requires_grad(ins[i]);
  pd_status s = PD_OK;
  if (!need) goto done;
  if (d->flags & PD_OP_INPLACE) {
    pd_tensor *t = ins[0];
    if (t && pd_requires_grad(t) && !(t->autograd && t->autograd->node)) {
      s = pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                       "[%s] a leaf tensor that requires grad (stop_gradient=False) cannot be "
                       "modified in place", d->name);
      goto done;
    }
  }
  pd_node *n = pd_node_new(d->name, op, n_in, n_out);
  if (!n) {
    s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    goto done;
  }
  for (int i = 0; i < n_in; i++) pd_node_set_edge(n, i, ins[i]);
  if (pd_record_fns[op]) s = pd_record_fns[op](n, args, outs, n_out);
  else n->apply = apply_missing_rule;
  /* a record function that leaves apply NULL found nothing to differentiate for these args
   * (attr_dyn of a nondiff op): the outputs stay outside the graph */
  if (s == PD_OK && n->apply) s = attach_outputs(n, outs, n_out, pd_record_fns[op] != NULL);
  pd_node_release(n); /* the outputs hold it now */
done:
  if (ins != inbuf) free(ins);
  return s;
}

void pd_autograd_init(void) {
  pd_autograd_meta_free_hook = meta_free;
  pd_autograd_record = record;
}
