/* Hand-written backward rules of the reduction and matrix-product families (ops/reduce.yaml,
 * ops/matmul.yaml): prod (exact when x has zeros), p_norm (porder 0 / inf / -inf / other,
 * zero-norm safe) and matmul (transposes, 1-D promotion, broadcast batch dims). Every step is a
 * forward op (pd_bw_run1), so create_graph records the rules and higher orders follow.
 * Complex inputs follow the convention of multiply's rule: grad_x = grad * conj(d out / d x). */
#include <math.h>
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_prod(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_p_norm(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_matmul(pd_node *n, pd_tensor **gout, pd_tensor **gin);

#define NTMP 24
/* Temporaries of one rule: every new reference lands in T[k++] and is released at the end. */
typedef struct {
  pd_tensor *T[NTMP];
  int k;
} tmps;

static pd_tensor **slot(tmps *t) { return &t->T[t->k++]; }
static void tmps_free(tmps *t) {
  for (int i = 0; i < t->k; i++) pd_tensor_release(t->T[i]);
}
static int needs(const pd_node *n, int i) { return n->edges[i].node || n->edges[i].leaf; }

/* Binary (x, y) and unary (x) ops share their argument layouts. */
static pd_status bin(tmps *t, int op, pd_tensor *x, pd_tensor *y, pd_tensor **out) {
  pd_multiply_args a = {x, y};
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_run1(op, &a, o));
  *out = *o;
  return PD_OK;
}
static pd_status un(tmps *t, int op, pd_tensor *x, pd_tensor **out) {
  pd_abs_args a = {x};
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_run1(op, &a, o));
  *out = *o;
  return PD_OK;
}
static pd_status where3(tmps *t, pd_tensor *c, pd_tensor *x, pd_tensor *y, pd_tensor **out) {
  pd_where_args a = {c, x, y};
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_run1(PD_OP_WHERE, &a, o));
  *out = *o;
  return PD_OK;
}
static pd_status scalar(tmps *t, double v, const pd_tensor *like, pd_tensor **out) {
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_scalar(v, like, o));
  *out = *o;
  return PD_OK;
}
static pd_status castto(tmps *t, pd_tensor *x, pd_dtype dt, pd_tensor **out) {
  pd_cast_args a = {x, (int)dt};
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_run1(PD_OP_CAST, &a, o));
  *out = *o;
  return PD_OK;
}
static pd_status reshape(tmps *t, pd_tensor *x, const int64_t *shape, int ndim, pd_tensor **out) {
  pd_reshape_args a = {x, {shape, ndim}};
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_run1(PD_OP_RESHAPE, &a, o));
  *out = *o;
  return PD_OK;
}
static pd_status expand_red(tmps *t, pd_tensor *g, const pd_tensor *like, pd_int_array axis,
                            int keepdim, pd_tensor **out) {
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_expand_reduced(g, like, axis, keepdim, o));
  *out = *o;
  return PD_OK;
}
static pd_status conj1(tmps *t, pd_tensor *x, pd_tensor **out) {
  pd_tensor **o = slot(t);
  PD_TRY(pd_bw_conj(x, o));
  *out = *o;
  return PD_OK;
}
/* Hands the temporary r over to gin (it stays in T but T's reference moves). */
static void give(tmps *t, pd_tensor *r, pd_tensor **gin) {
  for (int i = 0; i < t->k; i++)
    if (t->T[i] == r) {
      t->T[i] = NULL;
      *gin = r;
      return;
    }
  pd_tensor_retain(r);
  *gin = r;
}

/* prod: d out / d x_i = product of the other elements of x_i's reduction group. With z zeros in
 * a group: z == 0 -> out / x_i; z == 1 -> the product of the nonzeros at the zero, 0 elsewhere;
 * z >= 2 -> 0. Computed from pnz = prod(where(x == 0, 1, x)) and the zero count, so it is exact
 * with zeros (and differentiable through forward ops; second order is exact without zeros). */
pd_status pd_bw_prod(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_prod_args *a = (const pd_prod_args *)n->args;
  if (!needs(n, 0)) return PD_OK;
  tmps t = {{0}, 0};
  pd_status st;
  pd_tensor *x, *zero, *one, *z, *xnz, *pnz, *zf, *cnt, *c0, *c1, *q, *on, *oz, *oth, *ge, *r;
  if ((st = pd_node_saved(n, 0, &x)) != PD_OK) goto done;
  if ((st = scalar(&t, 0.0, x, &zero)) != PD_OK) goto done;
  if ((st = scalar(&t, 1.0, x, &one)) != PD_OK) goto done;
  if ((st = bin(&t, PD_OP_EQUAL, x, zero, &z)) != PD_OK) goto done;
  if ((st = where3(&t, z, one, x, &xnz)) != PD_OK) goto done;
  {
    pd_prod_args p = {xnz, a->axis, 1};
    pd_tensor **o = slot(&t);
    if ((st = pd_bw_run1(PD_OP_PROD, &p, o)) != PD_OK) goto done;
    pnz = *o;
  }
  if ((st = castto(&t, z, x->dtype, &zf)) != PD_OK) goto done;
  {
    pd_sum_args s = {zf, a->axis, 1, -1};
    pd_tensor **o = slot(&t);
    if ((st = pd_bw_run1(PD_OP_SUM, &s, o)) != PD_OK) goto done;
    cnt = *o;
  }
  if ((st = bin(&t, PD_OP_EQUAL, cnt, zero, &c0)) != PD_OK) goto done;
  if ((st = bin(&t, PD_OP_EQUAL, cnt, one, &c1)) != PD_OK) goto done;
  /* integer x (Paddle's integer gradients): the quotient is exact, keep x's dtype */
  if ((st = bin(&t, pd_dtype_is_int(x->dtype) ? PD_OP_FLOOR_DIVIDE : PD_OP_DIVIDE, pnz, xnz, &q)) != PD_OK)
    goto done;
  if ((st = where3(&t, c0, q, zero, &on)) != PD_OK) goto done;   /* no zero in the group */
  if ((st = where3(&t, c1, pnz, zero, &oz)) != PD_OK) goto done;  /* at a zero */
  if ((st = where3(&t, z, oz, on, &oth)) != PD_OK) goto done;
  if ((st = conj1(&t, oth, &oth)) != PD_OK) goto done;
  if ((st = expand_red(&t, gout[0], x, a->axis, a->keepdim, &ge)) != PD_OK) goto done;
  if ((st = bin(&t, PD_OP_MULTIPLY, ge, oth, &r)) != PD_OK) goto done;
  give(&t, r, &gin[0]);
done:
  tmps_free(&t);
  return st;
}

/* p_norm (Paddle 2.3's p_norm_grad): porder 0 -> zero gradient; inf / -inf -> grad * sign(x) at
 * every position where |x| equals the norm (ties all get it, like max); otherwise
 * grad * sign(x) * |x|^(p-1) / out^(p-1), with out == 0 replaced by 1 (x is then all zeros, so
 * the gradient is 0, not nan). p == 2 uses x / out directly (smoother higher orders). epsilon is
 * not used by the forward kernel, so the rule does not use it either. */
pd_status pd_bw_p_norm(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_p_norm_args *a = (const pd_p_norm_args *)n->args;
  if (!needs(n, 0)) return PD_OK;
  tmps t = {{0}, 0};
  pd_status st;
  pd_tensor *x, *out, *r = NULL;
  int64_t ax1 = a->axis;
  pd_int_array axes = {&ax1, a->asvector ? 0 : 1};
  const double p = a->porder;
  if ((st = pd_node_saved(n, 0, &x)) != PD_OK) goto done;
  if ((st = pd_node_saved(n, 1, &out)) != PD_OK) goto done;
  if (p == 0.0) {
    pd_tensor **o = slot(&t);
    if ((st = pd_bw_zeros_like(x, o)) != PD_OK) goto done;
    r = *o;
  } else if (isinf(p)) {
    pd_tensor *ax, *oe, *m, *mf, *s, *ge, *sm;
    if ((st = un(&t, PD_OP_ABS, x, &ax)) != PD_OK) goto done;
    if ((st = expand_red(&t, out, x, axes, a->keepdim, &oe)) != PD_OK) goto done;
    if ((st = bin(&t, PD_OP_EQUAL, ax, oe, &m)) != PD_OK) goto done;
    if ((st = castto(&t, m, x->dtype, &mf)) != PD_OK) goto done;
    if ((st = un(&t, PD_OP_SIGN, x, &s)) != PD_OK) goto done;
    if ((st = bin(&t, PD_OP_MULTIPLY, s, mf, &sm)) != PD_OK) goto done;
    if ((st = expand_red(&t, gout[0], x, axes, a->keepdim, &ge)) != PD_OK) goto done;
    if ((st = bin(&t, PD_OP_MULTIPLY, ge, sm, &r)) != PD_OK) goto done;
  } else {
    pd_tensor *num, *zero, *one, *oz, *osafe, *den, *q, *qe;
    if (p == 2.0) {
      num = x;
    } else {
      pd_tensor *ax, *s;
      if ((st = un(&t, PD_OP_SIGN, x, &s)) != PD_OK) goto done;
      if (p == 1.0) {
        num = s;
      } else {
        pd_tensor *pw;
        if ((st = un(&t, PD_OP_ABS, x, &ax)) != PD_OK) goto done;
        pd_pow_args pa = {ax, pd_scalar_float(p - 1.0)};
        pd_tensor **o = slot(&t);
        if ((st = pd_bw_run1(PD_OP_POW, &pa, o)) != PD_OK) goto done;
        pw = *o;
        if ((st = bin(&t, PD_OP_MULTIPLY, s, pw, &num)) != PD_OK) goto done;
      }
    }
    if (p == 1.0) {
      qe = NULL;
      if ((st = expand_red(&t, gout[0], x, axes, a->keepdim, &qe)) != PD_OK) goto done;
    } else {
      if ((st = scalar(&t, 0.0, out, &zero)) != PD_OK) goto done;
      if ((st = scalar(&t, 1.0, out, &one)) != PD_OK) goto done;
      if ((st = bin(&t, PD_OP_EQUAL, out, zero, &oz)) != PD_OK) goto done;
      if ((st = where3(&t, oz, one, out, &osafe)) != PD_OK) goto done;
      if (p == 2.0) {
        den = osafe;
      } else {
        pd_pow_args pa = {osafe, pd_scalar_float(p - 1.0)};
        pd_tensor **o = slot(&t);
        if ((st = pd_bw_run1(PD_OP_POW, &pa, o)) != PD_OK) goto done;
        den = *o;
      }
      if ((st = bin(&t, PD_OP_DIVIDE, gout[0], den, &q)) != PD_OK) goto done;
      if ((st = expand_red(&t, q, x, axes, a->keepdim, &qe)) != PD_OK) goto done;
    }
    if ((st = bin(&t, PD_OP_MULTIPLY, qe, num, &r)) != PD_OK) goto done;
  }
  give(&t, r, &gin[0]);
done:
  tmps_free(&t);
  return st;
}

/* matmul (matmul_v2): with X = op(x), Y = op(y) after promoting a 1-D x to [1, K] and a 1-D y
 * to [K, 1] (their transpose flags are ignored, as in the forward), dX = G Y^H and dY = X^H G,
 * written with matmul's own transpose flags; the results are summed over broadcast batch dims
 * (unbroadcast) and reshaped back to the inputs' shapes. */
/* PADDLE_C_MATMUL_BW_BATCHED=1: the old batched weight gradient (for A/B timing only) */
static int batched_wgrad(void) {
  static int v = -1;
  if (v < 0) v = getenv("PADDLE_C_MATMUL_BW_BATCHED") != NULL;
  return v;
}

pd_status pd_bw_matmul(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_matmul_args *a = (const pd_matmul_args *)n->args;
  int nx = needs(n, 0), ny = needs(n, 1);
  if (!nx && !ny) return PD_OK;
  tmps t = {{0}, 0};
  pd_status st;
  pd_tensor *x, *y, *x2, *y2, *g2, *g = gout[0];
  if ((st = pd_node_saved(n, 0, &x)) != PD_OK) goto done;
  if ((st = pd_node_saved(n, 1, &y)) != PD_OK) goto done;
  int tx = a->transpose_x, ty = a->transpose_y;
  int64_t sh[PD_MAX_DIMS + 2];
  x2 = x;
  y2 = y;
  if (x->ndim == 1) {
    tx = 0;
    sh[0] = 1;
    sh[1] = x->shape[0];
    if ((st = reshape(&t, x, sh, 2, &x2)) != PD_OK) goto done;
  }
  if (y->ndim == 1) {
    ty = 0;
    sh[0] = y->shape[0];
    sh[1] = 1;
    if ((st = reshape(&t, y, sh, 2, &y2)) != PD_OK) goto done;
  }
  g2 = g;
  if (x->ndim == 1 || y->ndim == 1) {
    int gn = 0;
    if (x->ndim == 1 && y->ndim == 1) {
      sh[0] = sh[1] = 1;
      gn = 2;
    } else if (x->ndim == 1) { /* [..., N] -> [..., 1, N] */
      for (int d = 0; d < g->ndim - 1; d++) sh[gn++] = g->shape[d];
      sh[gn++] = 1;
      sh[gn++] = g->shape[g->ndim - 1];
    } else { /* [..., M] -> [..., M, 1] */
      for (int d = 0; d < g->ndim; d++) sh[gn++] = g->shape[d];
      sh[gn++] = 1;
    }
    if ((st = reshape(&t, g, sh, gn, &g2)) != PD_OK) goto done;
  }
  if (nx) {
    pd_tensor *yc, *d, *du, *r;
    if ((st = conj1(&t, y2, &yc)) != PD_OK) goto done;
    pd_matmul_args m = tx ? (pd_matmul_args){yc, g2, ty, 1} : (pd_matmul_args){g2, yc, 0, !ty};
    pd_tensor **o = slot(&t);
    if ((st = pd_bw_run1(PD_OP_MATMUL, &m, o)) != PD_OK) goto done;
    d = *o;
    o = slot(&t);
    if ((st = pd_bw_unbroadcast(d, x2, o)) != PD_OK) goto done;
    du = *o;
    r = du;
    if (x->ndim == 1 && (st = reshape(&t, du, x->shape, 1, &r)) != PD_OK) goto done;
    give(&t, r, &gin[0]);
  }
  if (ny && y2->ndim == 2 && x2->ndim > 2 && !tx && x2->shape[x2->ndim - 1] >= 0 &&
      g2->shape[g2->ndim - 1] >= 0 && !batched_wgrad()) {
    /* y shared by every batch (a Linear's weight on [B, T, in]): dY = sum_b X_b^H G_b is one
     * GEMM over the flattened rows, X [B*M, K]^H G [B*M, N], instead of B products and a sum
     * over B (2x the time measured on [16, 64, 256] -> 1024). */
    pd_tensor *xc, *xf, *gf, *r;
    if ((st = conj1(&t, x2, &xc)) != PD_OK) goto done;
    int64_t fx[2] = {-1, x2->shape[x2->ndim - 1]}, fg[2] = {-1, g2->shape[g2->ndim - 1]};
    if ((st = reshape(&t, xc, fx, 2, &xf)) != PD_OK) goto done;
    if ((st = reshape(&t, g2, fg, 2, &gf)) != PD_OK) goto done;
    pd_matmul_args m = ty ? (pd_matmul_args){gf, xf, 1, 0} : (pd_matmul_args){xf, gf, 1, 0};
    pd_tensor **o = slot(&t);
    if ((st = pd_bw_run1(PD_OP_MATMUL, &m, o)) != PD_OK) goto done;
    r = *o;
    if (y->ndim == 1 && (st = reshape(&t, *o, y->shape, 1, &r)) != PD_OK) goto done;
    give(&t, r, &gin[1]);
  } else if (ny) {
    pd_tensor *xc, *d, *du, *r;
    if ((st = conj1(&t, x2, &xc)) != PD_OK) goto done;
    pd_matmul_args m = ty ? (pd_matmul_args){g2, xc, 1, tx} : (pd_matmul_args){xc, g2, !tx, 0};
    pd_tensor **o = slot(&t);
    if ((st = pd_bw_run1(PD_OP_MATMUL, &m, o)) != PD_OK) goto done;
    d = *o;
    o = slot(&t);
    if ((st = pd_bw_unbroadcast(d, y2, o)) != PD_OK) goto done;
    du = *o;
    r = du;
    if (y->ndim == 1 && (st = reshape(&t, du, y->shape, 1, &r)) != PD_OK) goto done;
    give(&t, r, &gin[1]);
  }
done:
  tmps_free(&t);
  return st;
}
