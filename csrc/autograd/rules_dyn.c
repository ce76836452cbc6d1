/* Gradients through attr_dyn (ops/dyn.yaml): an op whose int / float / bool attributes come
 * from one-element tensors when it runs. The node saves attr_dyn's tensors (x, then values);
 * its rule runs attr_dyn_grad, whose kernel reads the values, runs the target op on leaves
 * standing for x and the target's own backward rule over it. In a program the rule's
 * attr_dyn_grad is recorded (append_backward's replay), so the values are read when the
 * gradient program runs. A nondiff target (argmax, bincount, eye) makes no node. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "pd_autograd.h"
#include "../ops/dyn_ops.h"

static void free_args_attr_dyn(void *p) {
  pd_attr_dyn_args *c = (pd_attr_dyn_args *)p;
  free((void *)c->op);
  free((void *)c->slots.data);
  free((void *)c->attrs.data);
  free((void *)c->absent.data);
  free(c);
}

static void *dup_mem(const void *src, size_t n) {
  void *d = malloc(n ? n : 1);
  if (d && n) memcpy(d, src, n);
  return d;
}

static pd_status apply_no_rule(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  (void)gout;
  (void)gin;
  const pd_attr_dyn_args *a = (const pd_attr_dyn_args *)n->args;
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[attr_dyn] the backward rule of %s is not implemented yet, so "
                      "gradients cannot flow through it", a->op);
}

pd_status pd_bw_attr_dyn(pd_node *n, pd_tensor **gout, pd_tensor **gin);

pd_status pd_rec_attr_dyn(pd_node *n, const void *args, pd_tensor **outs, int n_out) {
  (void)outs;
  (void)n_out;
  const pd_attr_dyn_args *in = (const pd_attr_dyn_args *)args;
  int op = in->op ? pd_op_lookup(in->op) : -1;
  if (op < 0 || (pd_op_defs[op].flags & PD_OP_NONDIFF)) return PD_OK; /* apply NULL: no node */
  for (int64_t i = 0; i < in->x.n; i++) PD_TRY(pd_node_save(n, (int)i, in->x.data[i], 0, -1));
  for (int64_t j = 0; j < in->values.n; j++) PD_TRY(pd_node_save(n, (int)(in->x.n + j), in->values.data[j], 0, -1));
  pd_attr_dyn_args *c = (pd_attr_dyn_args *)calloc(1, sizeof *c);
  if (!c) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  c->x.n = in->x.n; /* the tensors are the saved ones */
  c->values.n = in->values.n;
  c->op = in->op ? strdup(in->op) : NULL;
  c->slots = (pd_int_array){(int64_t *)dup_mem(in->slots.data, sizeof(int64_t) * (size_t)in->slots.n), in->slots.n};
  c->attrs = (pd_float_array){(double *)dup_mem(in->attrs.data, sizeof(double) * (size_t)in->attrs.n), in->attrs.n};
  c->absent = (pd_int_array){(int64_t *)dup_mem(in->absent.data, sizeof(int64_t) * (size_t)in->absent.n), in->absent.n};
  n->args = c;
  n->free_args = free_args_attr_dyn;
  if (!c->op || !c->slots.data || !c->attrs.data || !c->absent.data)
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  extern const pd_record_fn pd_record_fns[];
  n->apply = pd_record_fns[op] ? pd_bw_attr_dyn : apply_no_rule;
  return PD_OK;
}

pd_status pd_bw_attr_dyn(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_attr_dyn_args *a = (const pd_attr_dyn_args *)n->args;
  int64_t nx = a->x.n, nv = a->values.n, nw = 0;
  pd_tensor **t = (pd_tensor **)calloc((size_t)(nx + nv + 1), sizeof(pd_tensor *));
  int64_t *wrt = (int64_t *)calloc((size_t)(nx + 1), sizeof(int64_t));
  pd_status st = t && wrt ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; st == PD_OK && i < nx + nv; i++) st = pd_node_saved(n, (int)i, &t[i]);
  for (int64_t i = 0; st == PD_OK && i < nx; i++)
    if (n->edges[i].node || n->edges[i].leaf) wrt[nw++] = i;
  /* a gradient that is itself differentiated (create_graph) would need attr_dyn_grad's own
   * rule: refused rather than a silent zero */
  int higher = 0;
  for (int64_t i = 0; st == PD_OK && pd_grad_enabled() && i < nx; i++) higher |= pd_requires_grad(t[i]);
  for (int k = 0; st == PD_OK && pd_grad_enabled() && k < n->n_out; k++) higher |= gout[k] && pd_requires_grad(gout[k]);
  if (st == PD_OK && higher)
    st = pd_set_error(PD_ERR_UNIMPLEMENTED, "[attr_dyn] higher-order gradients through %s with an attribute given "
                      "as a tensor are not implemented", a->op);
  if (st == PD_OK && nw > 0) {
    pd_attr_dyn_grad_args g = {.x = {t, nx}, .values = {t + nx, nv}, .grads = {gout, n->n_out}, .op = a->op,
                               .slots = a->slots, .attrs = a->attrs, .absent = a->absent, .wrt = {wrt, nw}};
    pd_tensor **o = NULL;
    int no = 0;
    st = pd_op_run(PD_OP_ATTR_DYN_GRAD, &g, &o, &no);
    for (int k = 0; k < no; k++) {
      if (st == PD_OK && k < nw) gin[wrt[k]] = o[k];
      else pd_tensor_release(o[k]);
    }
    free(o);
  }
  free(t);
  free(wrt);
  return st;
}

pd_status pd_infer_attr_dyn_grad(const void *args, pd_meta_list *out) {
  const pd_attr_dyn_grad_args *g = (const pd_attr_dyn_grad_args *)args;
  for (int64_t k = 0; k < g->wrt.n; k++)
    if (g->wrt.data[k] < 0 || g->wrt.data[k] >= g->x.n)
      return pd_set_error(PD_ERR_OUT_OF_RANGE, "[attr_dyn_grad] wrt entry %lld is not an index of x (%lld tensors)",
                          (long long)g->wrt.data[k], (long long)g->x.n);
  pd_meta *m = pd_meta_list_resize(out, (int)g->wrt.n);
  if (!m && g->wrt.n) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t k = 0; k < g->wrt.n; k++) pd_meta_like(&out->m[k], g->x.data[g->wrt.data[k]]);
  return PD_OK;
}

/* The target run on leaves standing for x[wrt] (grad mode on, no tracer: an executor's compile
 * or the recorder must not see it), then the engine from its outputs with the given gradients. */
static pd_status grad_run(const pd_attr_dyn_grad_args *g, pd_tensor **xs, pd_tensor **leaves, pd_tensor **res) {
  pd_attr_dyn_args a = {.x = {xs, g->x.n}, .values = g->values, .op = g->op, .slots = g->slots,
                        .attrs = g->attrs, .absent = g->absent};
  int op, known;
  _Alignas(max_align_t) unsigned char buf[PD_ATTR_DYN_ARGS_MAX];
  PD_TRY(pd_attr_dyn_target(&a, &op, buf, &known));
  if (!known) return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] an attribute tensor holds no data", g->op);
  pd_tensor **o = NULL, **roots = NULL, **groots = NULL;
  int no = 0, nr = 0, gm = pd_grad_enabled();
  pd_set_grad_enabled(1);
  pd_status st = pd_op_run(op, buf, &o, &no);
  pd_set_grad_enabled(gm);
  if (st == PD_OK) {
    roots = (pd_tensor **)calloc((size_t)no + 1, sizeof(pd_tensor *));
    groots = (pd_tensor **)calloc((size_t)no + 1, sizeof(pd_tensor *));
    if (!roots || !groots) st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int j = 0; st == PD_OK && j < no && j < g->grads.n; j++)
    if (g->grads.data[j] && pd_requires_grad(o[j])) {
      roots[nr] = o[j];
      groots[nr++] = g->grads.data[j];
    }
  if (st == PD_OK && nr > 0) st = pd_autograd_run(roots, groots, nr, leaves, (int)g->wrt.n, res, 0, 0, 1);
  for (int j = 0; j < no; j++) pd_tensor_release(o[j]);
  free(o);
  free(roots);
  free(groots);
  return st;
}

static pd_status attr_dyn_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_attr_dyn_grad_args *g = (const pd_attr_dyn_grad_args *)args;
  int64_t nx = g->x.n, nw = g->wrt.n;
  pd_tensor **xs = (pd_tensor **)calloc((size_t)(nx + 2 * nw + 1), sizeof(pd_tensor *));
  if (!xs) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_tensor **leaves = xs + nx, **res = leaves + nw;
  pd_status st = PD_OK;
  for (int64_t i = 0; i < nx; i++) xs[i] = g->x.data[i];
  for (int64_t k = 0; st == PD_OK && k < nw; k++) {
    pd_tensor *x = g->x.data[g->wrt.data[k]];
    st = pd_tensor_view(x, x->ndim, x->shape, x->strides, x->offset, &leaves[k]);
    if (st == PD_OK) {
      leaves[k]->stop_gradient = 0;
      xs[g->wrt.data[k]] = leaves[k];
    }
  }
  pd_tracer old = pd_trace_swap((pd_tracer){NULL, NULL});
  if (st == PD_OK) st = grad_run(g, xs, leaves, res);
  pd_trace_swap(old);
  for (int64_t k = 0; st == PD_OK && k < nw && k < n_out; k++) {
    const pd_tensor *x = g->x.data[g->wrt.data[k]];
    pd_tensor *r = res[k];
    res[k] = NULL;
    if (!r) st = pd_tensor_zeros(x->dtype, x->ndim, x->shape, &r); /* x does not reach the outputs */
    if (st == PD_OK) {
      pd_tensor_release(out[k]);
      out[k] = r;
    }
  }
  for (int64_t k = 0; k < nw; k++) {
    pd_tensor_release(leaves[k]);
    pd_tensor_release(res[k]);
  }
  free(xs);
  return st;
}

#define STAMP(SUF) \
  pd_status pd_kernel_attr_dyn_grad_##SUF(const void *args, pd_tensor **out, int n_out) { \
    return attr_dyn_grad_impl(args, out, n_out);                                           \
  }
STAMP(bool) STAMP(u8) STAMP(i8) STAMP(i16) STAMP(i32) STAMP(i64) STAMP(f16) STAMP(bf16) STAMP(f32) STAMP(f64)
STAMP(c64) STAMP(c128)
