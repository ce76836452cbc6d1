/* Backward rules of batch_norm / layer_norm (ops/norm.yaml); group_norm and instance_norm are
 * layer_norm on a reshaped input plus an affine in Python, so they follow.
 *
 * Ordinary backward (create_graph off): the fused batch_norm_grad / layer_norm_grad kernels (one
 * or two passes over x). Those grad ops are nondiff, so under create_graph the rules instead build
 * the same gradients from differentiable forward ops (sum/mean reductions, multiply, subtract,
 * scale, rsqrt, reshape) over x, scale, the incoming gradients and the saved statistics. The saved
 * statistics are outputs of this very node: pd_node_saved re-attaches them to it while a
 * create_graph backward runs, so the second-order terms through mean / invstd (variance) flow back
 * through this rule's own gradients for those outputs (dsaved_mean / dsaved_invstd, dmean /
 * dvariance), which the fused kernels implement. The composed rule is itself made of
 * differentiable ops, so every order works.
 *
 * Both ops take NULL for outputs that got no gradient (null_grads in the op table). */
#include <stdlib.h>
#include <string.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_batch_norm(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_layer_norm(pd_node *n, pd_tensor **gout, pd_tensor **gin);

#define NEEDS(n, i) ((n)->n_edges > (i) && ((n)->edges[i].node || (n)->edges[i].leaf))

static int is_nhwc(const char *f) { return f && (!strcmp(f, "NHWC") || !strcmp(f, "NLC") || !strcmp(f, "NDHWC")); }

/* ---- the fused path ---- */
static pd_status run_fused(int op, const void *args, pd_tensor **r, const int *want) {
  pd_tensor **o = NULL;
  int no = 0;
  PD_TRY(pd_op_run(op, args, &o, &no));
  for (int i = 0; i < no; i++) {
    if (i < 5 && want[i]) r[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  free(o);
  return PD_OK;
}

/* ---- the composed path: temporaries of one rule call, released together ---- */
#define SCR_MAX 48
typedef struct {
  pd_tensor *t[SCR_MAX];
  int n;
} scratch;

static void scr_free(scratch *s) {
  for (int i = 0; i < s->n; i++) pd_tensor_release(s->t[i]);
  s->n = 0;
}
/* takes the new reference r (from a successful op) into the scratch list */
static pd_status scr_put(scratch *s, pd_tensor *r, pd_tensor **out) {
  if (s->n == SCR_MAX) {
    pd_tensor_release(r);
    return pd_set_error(PD_ERR_FATAL, "[norm backward] too many temporaries");
  }
  s->t[s->n++] = r;
  *out = r;
  return PD_OK;
}
static pd_status s_run(scratch *s, int op, const void *args, pd_tensor **out) {
  pd_tensor *r;
  PD_TRY(pd_bw_run1(op, args, &r));
  return scr_put(s, r, out);
}
static pd_status s_mul(scratch *s, pd_tensor *a, pd_tensor *b, pd_tensor **out) {
  pd_multiply_args m = {a, b};
  return s_run(s, PD_OP_MULTIPLY, &m, out);
}
static pd_status s_sub(scratch *s, pd_tensor *a, pd_tensor *b, pd_tensor **out) {
  pd_subtract_args m = {a, b};
  return s_run(s, PD_OP_SUBTRACT, &m, out);
}
static pd_status s_add(scratch *s, pd_tensor *a, pd_tensor *b, pd_tensor **out) {
  pd_add_args m = {a, b};
  return s_run(s, PD_OP_ADD, &m, out);
}
/* k * a + b */
static pd_status s_scale(scratch *s, pd_tensor *a, double k, double b, pd_tensor **out) {
  pd_scale_args m = {a, pd_scalar_float(k), pd_scalar_float(b), 1};
  return s_run(s, PD_OP_SCALE, &m, out);
}
static pd_status s_sum(scratch *s, pd_tensor *a, const int64_t *axes, int na, int keepdim, pd_tensor **out) {
  pd_sum_args m = {a, {(int64_t *)axes, na}, keepdim, -1};
  return s_run(s, PD_OP_SUM, &m, out);
}
static pd_status s_mean(scratch *s, pd_tensor *a, const int64_t *axes, int na, pd_tensor **out) {
  pd_mean_args m = {a, {(int64_t *)axes, na}, 1};
  return s_run(s, PD_OP_MEAN, &m, out);
}
static pd_status s_reshape(scratch *s, pd_tensor *a, const int64_t *shape, int nd, pd_tensor **out) {
  int same = a->ndim == nd;
  for (int d = 0; same && d < nd; d++) same = a->shape[d] == shape[d];
  if (same) {
    *out = a;
    return PD_OK;
  }
  pd_reshape_args m = {a, {(int64_t *)shape, nd}};
  return s_run(s, PD_OP_RESHAPE, &m, out);
}
/* hands t to the caller (a new reference) */
static pd_tensor *give(pd_tensor *t) {
  pd_tensor_retain(t);
  return t;
}

/* batch_norm, composed. x: input; sc: scale or NULL; sm, si: saved mean / invstd [C] (attached to
 * the node); g: gradient of out; gm, gi: gradients of saved_mean / saved_invstd or NULL.
 * gin: x, mean, variance, scale, bias. Formulas (xh = (x - sm) si, k = scale si, sums over every
 * axis but the channel one, M elements per channel):
 *   dscale = sum(g xh), dbias = sum(g)
 *   training:     dx = k (g - sum(g)/M - xh sum(g xh)/M) + gm/M - gi si^2 xh / M
 *   global stats: dx = k g, dmean = -k sum(g) + gm, dvariance = -si^2/2 (scale sum(g xh) + si gi) */
static pd_status bn_composed(pd_node *n, const pd_batch_norm_args *a, pd_tensor *x, pd_tensor *sc, pd_tensor *sm,
                             pd_tensor *si, pd_tensor *g, pd_tensor *gm, pd_tensor *gi, pd_tensor **gin) {
  const int nd = x->ndim, cax = (is_nhwc(a->data_layout) && nd > 2) ? nd - 1 : 1;
  const int global = a->is_test || a->use_global_stats;
  const int64_t C = x->shape[cax];
  const double M = C > 0 ? (double)(x->numel / C) : 0.0, rM = M > 0 ? 1.0 / M : 0.0;
  int64_t bshape[PD_MAX_DIMS], axes[PD_MAX_DIMS];
  int na = 0;
  for (int d = 0; d < nd; d++) {
    bshape[d] = d == cax ? C : 1;
    if (d != cax) axes[na++] = d;
  }
  scratch s = {.n = 0};
  pd_status st;
  pd_tensor *smb = NULL, *sib = NULL, *xc = NULL, *xh = NULL, *sd = NULL, *gxh = NULL, *sx = NULL, *k = NULL,
            *t = NULL, *u = NULL, *scb = NULL;
#define TRY(e)                                                                                     \
  do {                                                                                             \
    if ((st = (e)) != PD_OK) goto fail;                                                            \
  } while (0)
  TRY(s_reshape(&s, g, x->shape, nd, &g));
  TRY(s_reshape(&s, sm, bshape, nd, &smb));
  TRY(s_reshape(&s, si, bshape, nd, &sib));
  TRY(s_sub(&s, x, smb, &xc));
  TRY(s_mul(&s, xc, sib, &xh));
  TRY(s_sum(&s, g, axes, na, 1, &sd));
  TRY(s_mul(&s, g, xh, &gxh));
  TRY(s_sum(&s, gxh, axes, na, 1, &sx));
  if (NEEDS(n, 3)) {
    TRY(s_reshape(&s, sx, &C, 1, &t));
    gin[3] = give(t);
  }
  if (NEEDS(n, 4)) {
    TRY(s_reshape(&s, sd, &C, 1, &t));
    gin[4] = give(t);
  }
  if (sc) TRY(s_reshape(&s, sc, bshape, nd, &scb));
  k = sib;
  if (scb) TRY(s_mul(&s, scb, sib, &k));
  if (global) {
    if (NEEDS(n, 0)) {
      TRY(s_mul(&s, k, g, &t));
      gin[0] = give(t);
    }
    if (NEEDS(n, 1)) {
      TRY(s_mul(&s, k, sd, &t));
      TRY(s_scale(&s, t, -1.0, 0.0, &t));
      TRY(s_reshape(&s, t, &C, 1, &t));
      if (gm) TRY(s_add(&s, t, gm, &t));
      gin[1] = give(t);
    }
    if (NEEDS(n, 2)) {
      t = sx;
      if (scb) TRY(s_mul(&s, scb, sx, &t));
      if (gi) {
        TRY(s_reshape(&s, gi, bshape, nd, &u));
        TRY(s_mul(&s, sib, u, &u));
        TRY(s_add(&s, t, u, &t));
      }
      TRY(s_mul(&s, sib, sib, &u));
      TRY(s_mul(&s, u, t, &t));
      TRY(s_scale(&s, t, -0.5, 0.0, &t));
      TRY(s_reshape(&s, t, &C, 1, &t));
      gin[2] = give(t);
    }
  } else {
    if (NEEDS(n, 0)) {
      /* g - sum(g)/M - xh sum(g xh)/M */
      TRY(s_scale(&s, sd, rM, 0.0, &u));
      TRY(s_sub(&s, g, u, &t));
      TRY(s_scale(&s, sx, rM, 0.0, &u));
      TRY(s_mul(&s, xh, u, &u));
      TRY(s_sub(&s, t, u, &t));
      TRY(s_mul(&s, k, t, &t));
      if (gm) {
        TRY(s_reshape(&s, gm, bshape, nd, &u));
        TRY(s_scale(&s, u, rM, 0.0, &u));
        TRY(s_add(&s, t, u, &t));
      }
      if (gi) {
        TRY(s_reshape(&s, gi, bshape, nd, &u));
        TRY(s_mul(&s, u, sib, &u));
        TRY(s_mul(&s, u, sib, &u));
        TRY(s_scale(&s, u, rM, 0.0, &u));
        TRY(s_mul(&s, xh, u, &u));
        TRY(s_sub(&s, t, u, &t));
      }
      gin[0] = give(t);
    }
    /* the running statistics get no gradient in training (the fused kernel's zeros) */
    if (NEEDS(n, 1)) TRY(pd_bw_zeros_like(sm, &gin[1]));
    if (NEEDS(n, 2)) TRY(pd_bw_zeros_like(sm, &gin[2]));
  }
  scr_free(&s);
  return PD_OK;
fail:
  scr_free(&s);
  for (int i = 0; i < 5 && i < n->n_edges; i++) {
    pd_tensor_release(gin[i]);
    gin[i] = NULL;
  }
  return st;
}

/* layer_norm, composed over x as [R, D] (rows before begin_norm_axis). m, v: saved mean /
 * variance [R] (attached to the node); gm, gv: their gradients or NULL. inv = rsqrt(v + eps),
 * xh = (x - m) inv, gs = g scale:
 *   dx = inv (gs - mean(gs) - xh mean(gs xh)) + gm/D + 2 gv (x - m)/D   (means over a row)
 *   dscale = sum over rows of g xh, dbias = sum over rows of g */
static pd_status ln_composed(pd_node *n, const pd_layer_norm_args *a, pd_tensor *x, pd_tensor *sc, pd_tensor *m,
                             pd_tensor *v, pd_tensor *g, pd_tensor *gm, pd_tensor *gv, pd_tensor **gin) {
  int64_t R = 1, D = 1;
  for (int i = 0; i < x->ndim; i++) *(i < a->begin_norm_axis ? &R : &D) *= x->shape[i];
  const double rD = D > 0 ? 1.0 / (double)D : 0.0;
  const int64_t s2[2] = {R, D}, col[2] = {R, 1}, row[2] = {1, D}, ax0 = 0, ax1 = 1;
  scratch s = {.n = 0};
  pd_status st;
  pd_tensor *x2 = NULL, *g2 = NULL, *m2 = NULL, *v2 = NULL, *inv = NULL, *xc = NULL, *xh = NULL, *t = NULL, *u = NULL;
  TRY(s_reshape(&s, x, s2, 2, &x2));
  TRY(s_reshape(&s, g, s2, 2, &g2));
  TRY(s_reshape(&s, m, col, 2, &m2));
  TRY(s_reshape(&s, v, col, 2, &v2));
  TRY(s_scale(&s, v2, 1.0, a->epsilon, &t));
  {
    pd_rsqrt_args r = {t};
    TRY(s_run(&s, PD_OP_RSQRT, &r, &inv));
  }
  TRY(s_sub(&s, x2, m2, &xc));
  TRY(s_mul(&s, xc, inv, &xh));
  if (sc && NEEDS(n, 1)) {
    TRY(s_mul(&s, g2, xh, &t));
    TRY(s_sum(&s, t, &ax0, 1, 0, &t));
    gin[1] = give(t);
  }
  if (NEEDS(n, 2)) {
    TRY(s_sum(&s, g2, &ax0, 1, 0, &t));
    gin[2] = give(t);
  }
  if (NEEDS(n, 0)) {
    pd_tensor *gs = g2, *mg = NULL, *mgx = NULL;
    if (sc) {
      TRY(s_reshape(&s, sc, row, 2, &t));
      TRY(s_mul(&s, g2, t, &gs));
    }
    TRY(s_mean(&s, gs, &ax1, 1, &mg));
    TRY(s_mul(&s, gs, xh, &t));
    TRY(s_mean(&s, t, &ax1, 1, &mgx));
    TRY(s_sub(&s, gs, mg, &t));
    TRY(s_mul(&s, xh, mgx, &u));
    TRY(s_sub(&s, t, u, &t));
    TRY(s_mul(&s, inv, t, &t));
    if (gm) {
      TRY(s_reshape(&s, gm, col, 2, &u));
      TRY(s_scale(&s, u, rD, 0.0, &u));
      TRY(s_add(&s, t, u, &t));
    }
    if (gv) {
      TRY(s_reshape(&s, gv, col, 2, &u));
      TRY(s_scale(&s, u, 2.0 * rD, 0.0, &u));
      TRY(s_mul(&s, xc, u, &u));
      TRY(s_add(&s, t, u, &t));
    }
    TRY(s_reshape(&s, t, x->shape, x->ndim, &t));
    gin[0] = give(t);
  }
  scr_free(&s);
  return PD_OK;
fail:
  scr_free(&s);
  for (int i = 0; i < 3 && i < n->n_edges; i++) {
    pd_tensor_release(gin[i]);
    gin[i] = NULL;
  }
  return st;
#undef TRY
}

/* Shared prologue of both rules: the saved x, scale (may be NULL) and the two statistics, and the
 * output gradient (zeros when only the statistics' outputs got gradients; *zg owns them). */
static pd_status norm_saved(pd_node *n, pd_tensor **gout, pd_tensor **x, pd_tensor **sc, pd_tensor **s2,
                            pd_tensor **s3, pd_tensor **g, pd_tensor **zg) {
  *g = gout[0];
  *zg = NULL;
  PD_TRY(pd_node_saved(n, 0, x));
  PD_TRY(pd_node_saved(n, 2, s2));
  PD_TRY(pd_node_saved(n, 3, s3));
  *sc = n->saved[1];
  if (*sc) PD_TRY(pd_node_saved(n, 1, sc));
  if (!*g) {
    PD_TRY(pd_bw_zeros_like(*x, zg));
    *g = *zg;
  }
  return PD_OK;
}

/* batch_norm edges: x, mean, variance, scale, bias; saved: x, scale, saved_mean, saved_invstd */
pd_status pd_bw_batch_norm(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_batch_norm_args *a = (const pd_batch_norm_args *)n->args;
  pd_tensor *x, *sc, *sm, *si, *g, *zg;
  if (!gout[0] && !gout[1] && !gout[2]) return PD_OK;
  PD_TRY(norm_saved(n, gout, &x, &sc, &sm, &si, &g, &zg));
  pd_status st;
  if (pd_grad_enabled() && x->dtype == PD_BFLOAT16) {
    /* create_graph on bfloat16 x (auto_cast): composed in float32 on the widened x and dy (the
     * statistics are float32), dx rounded back to x's dtype; all three casts are recorded */
    pd_tensor *xf = NULL, *gf = NULL, *dxf = NULL;
    pd_cast_args cx = {x, (int)PD_FLOAT32}, cg = {g, (int)PD_FLOAT32};
    st = pd_bw_run1(PD_OP_CAST, &cx, &xf);
    if (st == PD_OK) st = pd_bw_run1(PD_OP_CAST, &cg, &gf);
    if (st == PD_OK) st = bn_composed(n, a, xf, sc, sm, si, gf, gout[1], gout[2], gin);
    if (st == PD_OK && gin[0]) {
      dxf = gin[0];
      pd_cast_args cd = {dxf, (int)PD_BFLOAT16};
      gin[0] = NULL;
      st = pd_bw_run1(PD_OP_CAST, &cd, &gin[0]);
    }
    pd_tensor_release(dxf);
    pd_tensor_release(xf);
    pd_tensor_release(gf);
  } else if (pd_grad_enabled()) {
    st = bn_composed(n, a, x, sc, sm, si, g, gout[1], gout[2], gin);
  } else {
    pd_batch_norm_grad_args b = {x, sc, sm, si, g, a->epsilon, a->data_layout, a->is_test || a->use_global_stats,
                                 gout[1], gout[2]};
    pd_tensor *r[5] = {NULL, NULL, NULL, NULL, NULL};
    int want[5] = {NEEDS(n, 0), NEEDS(n, 3), NEEDS(n, 4), NEEDS(n, 1), NEEDS(n, 2)};
    st = run_fused(PD_OP_BATCH_NORM_GRAD, &b, r, want);
    if (st == PD_OK) {
      gin[0] = r[0];
      if (n->n_edges > 1) gin[1] = r[3];
      if (n->n_edges > 2) gin[2] = r[4];
      if (n->n_edges > 3) gin[3] = r[1];
      if (n->n_edges > 4) gin[4] = r[2];
    }
  }
  pd_tensor_release(zg);
  return st;
}

/* layer_norm edges: x, scale, bias; saved: x, scale, mean, variance */
pd_status pd_bw_layer_norm(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_layer_norm_args *a = (const pd_layer_norm_args *)n->args;
  pd_tensor *x, *sc, *m, *v, *g, *zg;
  if (!gout[0] && !gout[1] && !gout[2]) return PD_OK;
  PD_TRY(norm_saved(n, gout, &x, &sc, &m, &v, &g, &zg));
  pd_status st;
  if (pd_grad_enabled()) {
    st = ln_composed(n, a, x, sc, m, v, g, gout[1], gout[2], gin);
  } else {
    pd_layer_norm_grad_args b = {x, sc, m, v, g, a->epsilon, a->begin_norm_axis, gout[1], gout[2]};
    pd_tensor *r[5] = {NULL, NULL, NULL, NULL, NULL};
    int want[5] = {NEEDS(n, 0), NEEDS(n, 1), NEEDS(n, 2), 0, 0};
    st = run_fused(PD_OP_LAYER_NORM_GRAD, &b, r, want);
    if (st == PD_OK) {
      gin[0] = r[0];
      if (n->n_edges > 1) gin[1] = r[1];
      if (n->n_edges > 2) gin[2] = r[2];
    }
  }
  pd_tensor_release(zg);
  return st;
}
