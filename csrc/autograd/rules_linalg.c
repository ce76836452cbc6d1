/* Hand-written backward rules of the linear algebra ops (ops/linalg.yaml): inverse, determinant,
 * slogdeterminant, solve, cholesky, triangular_solve. Each runs forward ops (matmul, transpose,
 * solves), so create_graph records them and higher-order gradients follow. */
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

/* swaps the last two dims (a view op) */
static pd_status mT(pd_tensor *t, pd_tensor **out) {
  int64_t perm[PD_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++) perm[d] = d;
  perm[t->ndim - 1] = t->ndim - 2;
  perm[t->ndim - 2] = t->ndim - 1;
  pd_transpose_args a = {.x = t, .perm = {perm, t->ndim}};
  return pd_bw_run1(PD_OP_TRANSPOSE, &a, out);
}

static pd_status mm(pd_tensor *x, pd_tensor *y, int tx, int ty, pd_tensor **out) {
  pd_matmul_args a = {.x = x, .y = y, .transpose_x = tx, .transpose_y = ty};
  return pd_bw_run1(PD_OP_MATMUL, &a, out);
}

static pd_status scale(pd_tensor *x, double v, pd_tensor **out) {
  pd_scale_args a = {.x = x, .scale = pd_scalar_float(v), .bias = pd_scalar_float(0), .bias_after_scale = 1};
  return pd_bw_run1(PD_OP_SCALE, &a, out);
}

static pd_status binop(int op, pd_tensor *x, pd_tensor *y, pd_tensor **out) {
  pd_add_args a = {.x = x, .y = y}; /* add/multiply share the (x, y) layout */
  return pd_bw_run1(op, &a, out);
}

static pd_status tri(pd_tensor *x, int64_t diagonal, int lower, pd_tensor **out) {
  pd_tril_triu_args a = {.x = x, .diagonal = diagonal, .lower = lower};
  return pd_bw_run1(PD_OP_TRIL_TRIU, &a, out);
}

static pd_status trsolve(pd_tensor *x, pd_tensor *y, int upper, int trans, int unit, pd_tensor **out) {
  pd_triangular_solve_args a = {.x = x, .y = y, .upper = upper, .transpose = trans, .unitriangular = unit};
  return pd_bw_run1(PD_OP_TRIANGULAR_SOLVE, &a, out);
}

#define REL(t) do { if (t) pd_tensor_release(t); (t) = NULL; } while (0)

/* inverse: dX = -out^T G out^T */
pd_status pd_bw_inverse(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *o, *t1 = NULL, *t2 = NULL;
  PD_TRY(pd_node_saved(n, 0, &o));
  pd_status s = mm(o, gout[0], 1, 0, &t1);
  if (s == PD_OK) s = mm(t1, o, 0, 1, &t2);
  if (s == PD_OK) s = scale(t2, -1.0, &gin[0]);
  REL(t1);
  REL(t2);
  return s;
}

/* c [batch...] (or [1] for one matrix) times inverse(x)^T, c reshaped to [batch..., 1, 1] */
static pd_status times_inv_t(pd_tensor *x, pd_tensor *c, pd_tensor **out) {
  int64_t sh[PD_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < x->ndim - 2; d++) sh[nd++] = x->shape[d];
  sh[nd++] = 1;
  sh[nd++] = 1;
  pd_tensor *cr = NULL, *inv = NULL, *invt = NULL;
  pd_reshape_args ra = {.x = c, .shape = {sh, nd}};
  pd_status s = pd_bw_run1(PD_OP_RESHAPE, &ra, &cr);
  pd_inverse_args ia = {.x = x};
  if (s == PD_OK) s = pd_bw_run1(PD_OP_INVERSE, &ia, &inv);
  if (s == PD_OK) s = mT(inv, &invt);
  if (s == PD_OK) s = binop(PD_OP_MULTIPLY, cr, invt, out);
  REL(cr);
  REL(inv);
  REL(invt);
  return s;
}

/* determinant: dX = G det inverse(x)^T */
pd_status pd_bw_determinant(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x, *o, *c = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &o));
  pd_status s = binop(PD_OP_MULTIPLY, gout[0], o, &c);
  if (s == PD_OK) s = times_inv_t(x, c, &gin[0]);
  REL(c);
  return s;
}

/* slogdeterminant: out = [sign, log|det|]; dX = G[1] inverse(x)^T (sign is piecewise constant) */
pd_status pd_bw_slogdeterminant(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x, *g1 = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  int64_t ax = 0, st = 1, en = 2;
  pd_slice_args sa = {.x = gout[0], .axes = {&ax, 1}, .starts = {&st, 1}, .ends = {&en, 1}};
  pd_status s = pd_bw_run1(PD_OP_SLICE, &sa, &g1);
  if (s == PD_OK) s = times_inv_t(x, g1, &gin[0]);
  REL(g1);
  return s;
}

/* solve: dY = solve(x^T, G); dX = -dY out^T */
pd_status pd_bw_solve(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 1)) return PD_OK;
  pd_tensor *x, *o, *xt = NULL, *gy = NULL, *t = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &o));
  pd_status s = mT(x, &xt);
  pd_solve_args sa = {.x = xt, .y = gout[0]};
  if (s == PD_OK) s = pd_bw_run1(PD_OP_SOLVE, &sa, &gy);
  if (s == PD_OK && NEEDS(n, 0)) {
    s = mm(gy, o, 0, 1, &t);
    if (s == PD_OK) s = scale(t, -1.0, &gin[0]);
  }
  if (s == PD_OK && NEEDS(n, 1)) {
    gin[1] = gy;
    gy = NULL;
  }
  REL(xt);
  REL(gy);
  REL(t);
  return s;
}

/* cholesky (A = L L^T): phi = tril(L^T G) with a halved diagonal; dA = sym(L^-T phi L^-1). */
pd_status pd_bw_cholesky(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_cholesky_args *a = (const pd_cholesky_args *)n->args;
  pd_tensor *o, *L = NULL, *G = NULL, *P = NULL, *p0 = NULL, *p1 = NULL, *ps = NULL, *phi = NULL;
  pd_tensor *X = NULL, *Xt = NULL, *Yt = NULL, *Y = NULL, *S = NULL;
  PD_TRY(pd_node_saved(n, 0, &o));
  pd_status s = PD_OK;
  if (a->upper) {
    s = mT(o, &L);
    if (s == PD_OK) s = mT(gout[0], &G);
  } else {
    pd_tensor_retain(o);
    L = o;
    pd_tensor_retain(gout[0]);
    G = gout[0];
  }
  if (s == PD_OK) s = mm(L, G, 1, 0, &P);
  if (s == PD_OK) s = tri(P, 0, 1, &p0);
  if (s == PD_OK) s = tri(P, -1, 1, &p1);
  if (s == PD_OK) s = binop(PD_OP_ADD, p0, p1, &ps);
  if (s == PD_OK) s = scale(ps, 0.5, &phi);
  if (s == PD_OK) s = trsolve(L, phi, 0, 1, 0, &X);   /* L^-T phi */
  if (s == PD_OK) s = mT(X, &Xt);
  if (s == PD_OK) s = trsolve(L, Xt, 0, 1, 0, &Yt);   /* (X L^-1)^T */
  if (s == PD_OK) s = mT(Yt, &Y);
  if (s == PD_OK) s = binop(PD_OP_ADD, Y, Yt, &S);
  if (s == PD_OK) s = scale(S, 0.5, &gin[0]);
  REL(L); REL(G); REL(P); REL(p0); REL(p1); REL(ps); REL(phi);
  REL(X); REL(Xt); REL(Yt); REL(Y); REL(S);
  return s;
}

/* triangular_solve: dY = solve with the other transpose; dX = -dY out^T (or -out dY^T when
 * transposed), restricted to the triangle that was read. */
pd_status pd_bw_triangular_solve(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 1)) return PD_OK;
  const pd_triangular_solve_args *a = (const pd_triangular_solve_args *)n->args;
  pd_tensor *x, *o, *gy = NULL, *t = NULL, *t2 = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &o));
  pd_status s = trsolve(x, gout[0], a->upper, !a->transpose, a->unitriangular, &gy);
  if (s == PD_OK && NEEDS(n, 0)) {
    s = a->transpose ? mm(o, gy, 0, 1, &t) : mm(gy, o, 0, 1, &t);
    if (s == PD_OK) s = scale(t, -1.0, &t2);
    const int64_t dg = a->upper ? (a->unitriangular ? 1 : 0) : (a->unitriangular ? -1 : 0);
    if (s == PD_OK) s = tri(t2, dg, !a->upper, &gin[0]);
  }
  if (s == PD_OK && NEEDS(n, 1)) {
    gin[1] = gy;
    gy = NULL;
  }
  REL(gy);
  REL(t);
  REL(t2);
  return s;
}
