/* Hand-written backward rules of the convolution family (ops/conv.yaml). Each rule resolves the
 * geometry once (SAME/VALID become explicit asymmetric pads and dilations) and runs forward ops:
 * conv <-> conv_transpose are each other's data gradients and conv2d_grad_filter gives the filter
 * gradient; all three are linear in each input, so the rules are closed and differentiate again.
 * The optional conv bias gets the sum of the gradient over batch and space. */
#include <stdlib.h>
#include <string.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"
#include "../kernels/cpu/conv_geom.h"

pd_status pd_bw_conv(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_conv_transpose(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_conv_grad_filter(pd_node *n, pd_tensor **gout, pd_tensor **gin);

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

typedef struct {
  int64_t pads[6], dil[3], osz[3];
} explicit_geom;

static void mk_explicit(const pd_conv_geom *g, explicit_geom *e) {
  for (int i = 0; i < g->nsp; i++) {
    e->pads[2 * i] = g->pl[i];
    e->pads[2 * i + 1] = g->pr[i];
    e->dil[i] = g->d[i];
    e->osz[i] = g->in[i];
  }
}

/* out = conv(x, w) */
static pd_status run_conv(pd_tensor *x, pd_tensor *w, pd_int_array strides, const explicit_geom *e,
                          const pd_conv_geom *g, const char *fmt, pd_tensor **out) {
  pd_conv2d_args c = {x, w, strides, {e->pads, 2 * g->nsp}, "EXPLICIT", g->G, {e->dil, g->nsp}, fmt, NULL};
  return pd_bw_run1(PD_OP_CONV2D, &c, out);
}
/* out = conv_transpose(y, w) with the conv input's spatial size */
static pd_status run_tr(pd_tensor *y, pd_tensor *w, pd_int_array strides, const explicit_geom *e,
                        const pd_conv_geom *g, const char *fmt, pd_tensor **out) {
  pd_conv2d_transpose_args c = {y,        w, strides, {e->pads, 2 * g->nsp}, {NULL, 0}, {e->osz, g->nsp},
                                "EXPLICIT", g->G, {e->dil, g->nsp}, fmt};
  return pd_bw_run1(PD_OP_CONV2D_TRANSPOSE, &c, out);
}
/* out = d conv(x, w) / d w contracted with y */
static pd_status run_gf(pd_tensor *x, pd_tensor *y, const pd_tensor *wlike, pd_int_array strides,
                        const explicit_geom *e, const pd_conv_geom *g, const char *fmt, pd_tensor **out) {
  pd_conv2d_grad_filter_args c = {x, y, {wlike->shape, wlike->ndim}, strides, {e->pads, 2 * g->nsp},
                                  "EXPLICIT", g->G, {e->dil, g->nsp}, fmt};
  return pd_bw_run1(PD_OP_CONV2D_GRAD_FILTER, &c, out);
}

pd_status pd_bw_conv(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_conv2d_args *a = (const pd_conv2d_args *)n->args;
  pd_tensor *x, *w;
  pd_conv_geom g;
  explicit_geom e;
  if (!gout[0]) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &w));
  PD_TRY(pd_conv_geom_fwd("conv backward", x, w->shape, w->ndim, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  mk_explicit(&g, &e);
  if (NEEDS(n, 0)) PD_TRY(run_tr(gout[0], w, a->strides, &e, &g, a->data_format, &gin[0]));
  if (NEEDS(n, 1)) PD_TRY(run_gf(x, gout[0], w, a->strides, &e, &g, a->data_format, &gin[1]));
  if (n->n_edges > 2 && NEEDS(n, 2)) {
    /* bias: sum over every axis but the channel one */
    int64_t axes[PD_MAX_DIMS];
    int na = 0, nd = gout[0]->ndim;
    for (int i = 0; i < nd; i++)
      if (i != (g.nhwc ? nd - 1 : 1)) axes[na++] = i;
    pd_sum_args sa = {.x = gout[0], .axis = {axes, na}, .keepdim = 0, .dtype = -1};
    PD_TRY(pd_bw_run1(PD_OP_SUM, &sa, &gin[2]));
  }
  return PD_OK;
}

pd_status pd_bw_conv_transpose(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_conv2d_transpose_args *a = (const pd_conv2d_transpose_args *)n->args;
  pd_tensor *x, *w;
  pd_conv_geom g;
  explicit_geom e;
  if (!gout[0]) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &w));
  PD_TRY(pd_conv_geom_tr("conv_transpose backward", x, w, a->strides, a->paddings, a->output_padding,
                         a->output_size, a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  mk_explicit(&g, &e);
  if (NEEDS(n, 0)) PD_TRY(run_conv(gout[0], w, a->strides, &e, &g, a->data_format, &gin[0]));
  if (NEEDS(n, 1)) PD_TRY(run_gf(gout[0], x, w, a->strides, &e, &g, a->data_format, &gin[1]));
  return PD_OK;
}

pd_status pd_bw_conv_grad_filter(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_conv2d_grad_filter_args *a = (const pd_conv2d_grad_filter_args *)n->args;
  pd_tensor *x, *dy;
  pd_conv_geom g;
  explicit_geom e;
  if (!gout[0]) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &dy));
  PD_TRY(pd_conv_geom_fwd("conv2d_grad_filter backward", x, a->filter_shape.data, (int)a->filter_shape.n,
                          a->strides, a->paddings, a->padding_algorithm, a->groups, a->dilations,
                          a->data_format, &g));
  mk_explicit(&g, &e);
  if (NEEDS(n, 0)) PD_TRY(run_tr(dy, gout[0], a->strides, &e, &g, a->data_format, &gin[0]));
  if (NEEDS(n, 1)) PD_TRY(run_conv(x, gout[0], a->strides, &e, &g, a->data_format, &gin[1]));
  return PD_OK;
}

/* ---- pooling (ops/pool.yaml) ----
 * pool2d -> pool2d_grad(x, grad). pool2d_grad is linear in dout: its dout-gradient is pool2d(g)
 * for avg and pool_gather(g, argmax mask) for max; its x-gradient is zero (piecewise constant).
 * max_pool2d_with_index -> unpool(accumulate); unpool <-> pool_gather are adjoint. */
pd_status pd_bw_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_pool_grad(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_pool_index(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_unpool(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_pool_gather(pd_node *n, pd_tensor **gout, pd_tensor **gin);

static void spatial(const pd_tensor *x, const char *fmt, int64_t *sp, int *nsp) {
  int nhwc = fmt && (!strcmp(fmt, "NHWC") || !strcmp(fmt, "NLC") || !strcmp(fmt, "NDHWC"));
  *nsp = x->ndim - 2;
  for (int i = 0; i < *nsp; i++) sp[i] = x->shape[nhwc ? 1 + i : 2 + i];
}
static pd_status run_unpool(pd_tensor *g, pd_tensor *idx, const pd_tensor *xlike, const char *fmt, pd_tensor **out) {
  int64_t sp[3];
  int nsp;
  spatial(xlike, fmt, sp, &nsp);
  pd_unpool_args u = {g, idx, {sp, nsp}, fmt, 1};
  return pd_bw_run1(PD_OP_UNPOOL, &u, out);
}

pd_status pd_bw_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_pool2d_args *a = (const pd_pool2d_args *)n->args;
  pd_tensor *x;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  pd_pool2d_grad_args g = {x,           gout[0],        a->kernel_size,  a->strides,
                           a->paddings, a->ceil_mode,   a->exclusive,    a->data_format,
                           a->pooling_type, a->global_pooling, a->adaptive, a->padding_algorithm};
  return pd_bw_run1(PD_OP_POOL2D_GRAD, &g, &gin[0]);
}

pd_status pd_bw_pool_grad(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_pool2d_grad_args *a = (const pd_pool2d_grad_args *)n->args;
  pd_tensor *x;
  if (!gout[0]) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  if (NEEDS(n, 0)) PD_TRY(pd_bw_zeros_like(x, &gin[0]));
  if (!NEEDS(n, 1)) return PD_OK;
  if (strcmp(a->pooling_type, "max")) {
    pd_pool2d_args p = {gout[0],     a->kernel_size, a->strides,      a->paddings,
                        a->ceil_mode, a->exclusive,  a->data_format,  a->pooling_type,
                        a->global_pooling, a->adaptive, a->padding_algorithm};
    return pd_bw_run1(PD_OP_POOL2D, &p, &gin[1]);
  }
  pd_max_pool2d_with_index_args mi = {x, a->kernel_size, a->strides, a->paddings, a->global_pooling,
                                      a->adaptive, a->ceil_mode, a->data_format, a->padding_algorithm};
  pd_tensor *buf[4], **o = buf;
  int no = -4;
  PD_TRY(pd_op_run(PD_OP_MAX_POOL2D_WITH_INDEX, &mi, &o, &no));
  pd_pool_gather_args pg = {gout[0], o[1], a->data_format};
  pd_status st = pd_bw_run1(PD_OP_POOL_GATHER, &pg, &gin[1]);
  for (int i = 0; i < no; i++) pd_tensor_release(o[i]);
  if (o != buf) free(o);
  return st;
}

pd_status pd_bw_pool_index(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_max_pool2d_with_index_args *a = (const pd_max_pool2d_with_index_args *)n->args;
  pd_tensor *x, *mask;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &mask));
  return run_unpool(gout[0], mask, x, a->data_format, &gin[0]);
}

pd_status pd_bw_unpool(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_unpool_args *a = (const pd_unpool_args *)n->args;
  pd_tensor *idx;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &idx));
  pd_pool_gather_args pg = {gout[0], idx, a->data_format};
  return pd_bw_run1(PD_OP_POOL_GATHER, &pg, &gin[0]);
}

pd_status pd_bw_pool_gather(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_pool_gather_args *a = (const pd_pool_gather_args *)n->args;
  pd_tensor *x, *idx;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &idx));
  return run_unpool(gout[0], idx, x, a->data_format, &gin[0]);
}
