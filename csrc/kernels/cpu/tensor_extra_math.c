/* Kernels of ops/tensor_extra.yaml, third part: the special functions lgamma / digamma /
 * polygamma, logcumsumexp and its two gradient scans, logaddexp, tril/triu_indices, the
 * sliding-window view tensor_unfold and its gradient, and the gradients of put_along_axis_mul
 * with respect to values (products of the other values: no division, so zeros are fine). */
#include <complex.h>
#include <stdlib.h>
#include "manip_util.h"
#include "../../ops/infer_meta_tensor_extra.h"

static pd_status oom(const char *op) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op); }

/* ---- lgamma, digamma (recurrence up to x >= 6, then the asymptotic series; reflection for
 * negative x) and polygamma (n >= 1: (-1)^(n+1) n! zeta(n + 1, x)); poles give NaN or inf ---- */
static double digamma_d(double x) {
  if (x <= 0 && floor(x) == x) return NAN;
  if (x < 0) return digamma_d(1 - x) - M_PI / tan(M_PI * x);
  double r = 0;
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

/* Hurwitz zeta(s, q) for an integer s >= 2 and q not a non-positive integer: the terms
 * (q + k)^-s summed directly until q + k >= w0, then Euler-Maclaurin with B2 .. B20. */
static double hurwitz_zeta_int(int s, double q) {
  static const double b2k[10] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6,
                                 -3617.0 / 510, 43867.0 / 798, -174611.0 / 330};
  const double w0 = 12.0 + s; /* the Bernoulli terms shrink like (s / (2 pi w))^(2k) */
  double sum = 0, a = q;
  while (a < w0) {
    sum += pow(a, -s);
    a += 1;
  }
  /* tail: sum over k >= 0 of (a + k)^-s */
  double tail = pow(a, 1.0 - s) / (s - 1) + 0.5 * pow(a, -s);
  double rise = s, apow = pow(a, -s - 1.0), fact = 2.0; /* rise: s (s+1)...(s+2k-2); fact: (2k)! */
  for (int k = 1; k <= 10; k++) {
    double t = b2k[k - 1] / fact * rise * apow;
    tail += t;
    if (fabs(t) < 1e-17 * fabs(tail)) break;
    rise *= (double)(s + 2 * k - 1) * (double)(s + 2 * k);
    apow /= a * a;
    fact *= (double)(2 * k + 1) * (double)(2 * k + 2);
  }
  return sum + tail;
}

static double polygamma_d(int64_t n, double x) {
  if (n == 0) return digamma_d(x);
  if (isnan(x)) return x;
  if (x <= 0 && floor(x) == x) return n % 2 ? INFINITY : NAN;
  if (n > 170) return x > 0 ? (n % 2 ? INFINITY : -INFINITY) : NAN; /* n! overflows */
  double fact = 1;
  for (int64_t k = 2; k <= n; k++) fact *= (double)k;
  return (n % 2 ? 1.0 : -1.0) * fact * hurwitz_zeta_int((int)n + 1, x);
}

static double lgamma_d(double x) {
  int sg;
  return lgamma_r(x, &sg);
}

typedef struct { int64_t n; } poly_ctx;

#define DEF_SPECIAL(NAME, EXPR, SUF, T, CT)                                                        \
  static void NAME##_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) {              \
    const poly_ctx *c = (const poly_ctx *)ctx;                                                     \
    (void)c;                                                                                       \
    char *const d[2] = {dd[0], dd[1]};                                                             \
    const int64_t s0 = st[0], s1 = st[1];                                                          \
    for (int64_t i = 0; i < n; i++) {                                                              \
      double v = (double)PD_LD_##SUF(d[1] + i * s1);                                               \
      PD_ST_##SUF(d[0] + i * s0, (EXPR));                                                          \
    }                                                                                              \
  }
#define DEF_LGAMMA(SUF, T, CT)                                                                     \
  DEF_SPECIAL(lgamma, lgamma_d(v), SUF, T, CT)                                                     \
  pd_status pd_kernel_lgamma_##SUF(const void *args, pd_tensor **out, int n_out) {                 \
    (void)n_out;                                                                                   \
    return pd_run_unary("lgamma", out[0], ((const pd_lgamma_args *)args)->x, lgamma_loop_##SUF, NULL); \
  }
#define DEF_DIGAMMA(SUF, T, CT)                                                                    \
  DEF_SPECIAL(digamma, digamma_d(v), SUF, T, CT)                                                   \
  pd_status pd_kernel_digamma_##SUF(const void *args, pd_tensor **out, int n_out) {                \
    (void)n_out;                                                                                   \
    return pd_run_unary("digamma", out[0], ((const pd_digamma_args *)args)->x, digamma_loop_##SUF, NULL); \
  }
#define DEF_POLYGAMMA(SUF, T, CT)                                                                  \
  DEF_SPECIAL(polygamma, polygamma_d(c->n, v), SUF, T, CT)                                         \
  pd_status pd_kernel_polygamma_##SUF(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                                   \
    const pd_polygamma_args *a = (const pd_polygamma_args *)args;                                  \
    poly_ctx c = {a->n};                                                                           \
    return pd_run_unary("polygamma", out[0], a->x, polygamma_loop_##SUF, &c);                      \
  }
PD_FOR_FLOAT(DEF_LGAMMA)
PD_FOR_FLOAT(DEF_DIGAMMA)
PD_FOR_FLOAT(DEF_POLYGAMMA)

/* ---- log-add-exp and the logcumsumexp scans ---- */
/* log(exp(a) + exp(b)) without overflow; -inf is the identity, NaN propagates */
static inline double lae(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  if (a == b) return a + M_LN2; /* also inf + inf */
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}
/* exp(a - b), 0 when a is -inf (its term is absent even when b is -inf too) */
static inline double ex(double a, double b) { return a == -INFINITY ? 0.0 : exp(a - b); }

/* a contiguous tensor seen as outer x len x inner along axis: line l starts at base(l), step inner */
typedef struct { int64_t len, inner, lines; } axis_lines;
static pd_status lines_of(const char *op, const pd_tensor *t, int64_t axis, axis_lines *L) {
  int ax;
  PD_TRY(pd_norm_axis(op, axis, t->ndim, &ax));
  L->len = t->shape[ax];
  L->inner = 1;
  for (int d = ax + 1; d < t->ndim; d++) L->inner *= t->shape[d];
  L->lines = L->len ? t->numel / L->len : 0;
  return PD_OK;
}
static inline int64_t line_base(const axis_lines *L, int64_t l) {
  return (l / L->inner) * L->len * L->inner + l % L->inner;
}

#define DEF_LCSE(SUF, T, CT)                                                                       \
  pd_status pd_kernel_logcumsumexp_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                                   \
    const pd_logcumsumexp_args *a = (const pd_logcumsumexp_args *)args;                            \
    axis_lines L;                                                                                  \
    PD_TRY(lines_of("logcumsumexp", a->x, a->axis, &L));                                           \
    pd_tensor *xc;                                                                                 \
    PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                       \
    const T *x = (const T *)pd_tensor_data(xc);                                                    \
    T *o = (T *)pd_tensor_data(out[0]);                                                            \
    _Pragma("omp parallel for if (xc->numel >= 32768) schedule(static)")                           \
    for (int64_t l = 0; l < L.lines; l++) {                                                        \
      const int64_t b = line_base(&L, l);                                                          \
      double acc = -INFINITY;                                                                      \
      for (int64_t k = 0; k < L.len; k++) {                                                        \
        acc = lae(acc, (double)PD_LD_##SUF(x + b + k * L.inner));                                  \
        PD_ST_##SUF(o + b + k * L.inner, acc);                                                     \
      }                                                                                            \
    }                                                                                              \
    pd_tensor_release(xc);                                                                         \
    return PD_OK;                                                                                  \
  }
PD_FOR_FLOAT(DEF_LCSE)

/* transpose 0: out[i] = sum_{j >= i} dout[j] exp(x[i] - lse[j])
 *            = exp(x[i] - lse[i]) S[i],  S[i] = dout[i] + exp(lse[i] - lse[i+1]) S[i+1]
 * transpose 1: out[j] = sum_{i <= j} dout[i] exp(x[i] - lse[j])
 *            = dout[j] exp(x[j] - lse[j]) + exp(lse[j-1] - lse[j]) out[j-1]
 * (with lse the running log-sum-exp of x every exponent is <= 0) */
#define DEF_LCSE_GRAD(SUF, T, CT)                                                                  \
  static pd_status lcse_grad_##SUF(const pd_logcumsumexp_grad_args *a, pd_tensor *out, int tr) {   \
    axis_lines L;                                                                                  \
    PD_TRY(lines_of("logcumsumexp_grad", a->x, a->axis, &L));                                      \
    pd_tensor *c[3] = {NULL, NULL, NULL}, *in[3] = {a->x, a->lse, a->dout};                        \
    pd_status s = PD_OK;                                                                           \
    for (int i = 0; i < 3 && s == PD_OK; i++) s = pd_tensor_contiguous(in[i], &c[i]);              \
    if (s == PD_OK) {                                                                              \
      const T *x = (const T *)pd_tensor_data(c[0]), *lse = (const T *)pd_tensor_data(c[1]);        \
      const T *g = (const T *)pd_tensor_data(c[2]);                                                \
      T *o = (T *)pd_tensor_data(out);                                                             \
      const int64_t inner = L.inner, len = L.len;                                                  \
      _Pragma("omp parallel for if (out->numel >= 32768) schedule(static)")                        \
      for (int64_t l = 0; l < L.lines; l++) {                                                      \
        const int64_t b = line_base(&L, l);                                                        \
        double acc = 0, prev = 0;                                                                  \
        for (int64_t t = 0; t < len; t++) {                                                        \
          const int64_t k = tr ? t : len - 1 - t, i = b + k * inner;                               \
          const double lk = (double)PD_LD_##SUF(lse + i), gk = (double)PD_LD_##SUF(g + i);         \
          const double xk = (double)PD_LD_##SUF(x + i);                                            \
          if (tr) {                                                                                \
            acc = gk * ex(xk, lk) + (t ? ex(prev, lk) * acc : 0.0);                                \
            PD_ST_##SUF(o + i, acc);                                                               \
          } else {                                                                                 \
            acc = gk + (t ? ex(lk, prev) * acc : 0.0);                                             \
            PD_ST_##SUF(o + i, ex(xk, lk) * acc);                                                  \
          }                                                                                        \
          prev = lk;                                                                               \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (int i = 0; i < 3; i++) pd_tensor_release(c[i]);                                           \
    return s;                                                                                      \
  }                                                                                                \
  pd_status pd_kernel_logcumsumexp_grad_##SUF(const void *args, pd_tensor **out, int n_out) {      \
    (void)n_out;                                                                                   \
    return lcse_grad_##SUF((const pd_logcumsumexp_grad_args *)args, out[0], 0);                    \
  }                                                                                                \
  pd_status pd_kernel_logcumsumexp_grad_t_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                                   \
    return lcse_grad_##SUF((const pd_logcumsumexp_grad_args *)args, out[0], 1);                    \
  }
PD_FOR_FLOAT(DEF_LCSE_GRAD)

#define DEF_LOGADDEXP(SUF, T, CT)                                                                  \
  static void logaddexp_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) {           \
    (void)ctx;                                                                                     \
    char *o = dd[0];                                                                               \
    const char *px = dd[1], *py = dd[2];                                                           \
    for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2])                          \
      PD_ST_##SUF(o, lae((double)PD_LD_##SUF(px), (double)PD_LD_##SUF(py)));                       \
  }                                                                                                \
  pd_status pd_kernel_logaddexp_##SUF(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                                   \
    const pd_logaddexp_args *a = (const pd_logaddexp_args *)args;                                  \
    return pd_run_binary("logaddexp", out[0], a->x, a->y, logaddexp_loop_##SUF, NULL);             \
  }
PD_FOR_FLOAT(DEF_LOGADDEXP)

/* ---- tril_indices / triu_indices: row i's columns of the triangle, row by row ---- */
static void tri_fill(int64_t rows, int64_t cols, int64_t offset, int lower, pd_tensor *o) {
  const int64_t cnt = o->shape[1];
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t lo = lower ? 0 : i + offset, hi = lower ? i + offset + 1 : cols;
    if (lo < 0) lo = 0;
    if (hi > cols) hi = cols;
    for (int64_t j = lo; j < hi; j++, k++) {
      if (o->dtype == PD_INT32) {
        ((int32_t *)pd_tensor_data(o))[k] = (int32_t)i;
        ((int32_t *)pd_tensor_data(o))[cnt + k] = (int32_t)j;
      } else {
        ((int64_t *)pd_tensor_data(o))[k] = i;
        ((int64_t *)pd_tensor_data(o))[cnt + k] = j;
      }
    }
  }
}
static pd_status tril_indices_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_tril_indices_args *a = (const pd_tril_indices_args *)args;
  tri_fill(a->rows, a->cols, a->offset, 1, out[0]);
  return PD_OK;
}
static pd_status triu_indices_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_triu_indices_args *a = (const pd_triu_indices_args *)args;
  tri_fill(a->rows, a->cols, a->offset, 0, out[0]);
  return PD_OK;
}
PD_STAMP1(tril_indices, tril_indices_impl, i32) PD_STAMP1(tril_indices, tril_indices_impl, i64)
PD_STAMP1(triu_indices, triu_indices_impl, i32) PD_STAMP1(triu_indices, triu_indices_impl, i64)

/* ---- tensor_unfold (a view) and its gradient (every window added back in place) ---- */
static pd_status tensor_unfold_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_tensor_unfold_args *a = (const pd_tensor_unfold_args *)args;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS];
  PD_TRY(pd_window_geometry("tensor_unfold", a->x->ndim, a->x->shape, a->x->strides, a->axis, a->size,
                            a->step, sh, st));
  return pd_tensor_view(a->x, a->x->ndim + 1, sh, st, a->x->offset, &out[0]);
}
PD_STAMP_ALL(tensor_unfold, tensor_unfold_impl)

static pd_status tensor_unfold_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_tensor_unfold_grad_args *a = (const pd_tensor_unfold_grad_args *)args;
  pd_tensor *o = out[0], *g = a->dout;
  const int nd = o->ndim;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS];
  PD_TRY(pd_window_geometry("tensor_unfold_grad", nd, o->shape, o->strides, a->axis, a->size, a->step, sh, st));
  PD_TRY(pd_tensor_fill_(o, 0, 0));
  pd_kernel_fn add = pd_op_defs[PD_OP_ADD].kernels[o->dtype];
  const int ax = (int)(a->axis < 0 ? a->axis + nd : a->axis);
  pd_status s = PD_OK;
  /* window element k of every window: o's positions w * step + k (no overlap for one k) */
  for (int64_t k = 0; k < a->size && s == PD_OK && g->numel > 0; k++) {
    pd_tensor *ov = NULL, *gv = NULL;
    s = pd_tensor_view(o, nd, sh, st, o->offset + k * o->strides[ax], &ov);
    if (s == PD_OK) s = pd_tensor_view(g, nd, g->shape, g->strides, g->offset + k * g->strides[nd], &gv);
    if (s == PD_OK) {
      pd_add_args aa = {.x = ov, .y = gv};
      s = add(&aa, &ov, 1);
    }
    pd_tensor_release(ov);
    pd_tensor_release(gv);
  }
  return s;
}
PD_STAMP_REAL(tensor_unfold_grad, tensor_unfold_grad_impl)
PD_STAMP1(tensor_unfold_grad, tensor_unfold_grad_impl, c64)
PD_STAMP1(tensor_unfold_grad, tensor_unfold_grad_impl, c128)

/* ---- put_along_axis_mul_grad: out[j] = dout[p] conj(x[p] prod_{k != j, p(k) = p} values[k]),
 * entries grouped by target offset p (stable sort), the product of the others from prefix and
 * suffix products of the group. ---- */
typedef struct { int64_t off, j; } off_pair;
static int off_cmp(const void *p, const void *q) {
  const off_pair *a = (const off_pair *)p, *b = (const off_pair *)q;
  if (a->off != b->off) return a->off < b->off ? -1 : 1;
  return (a->j > b->j) - (a->j < b->j);
}

/* entries of indices sorted by the offset they write to (caller frees *pairs) */
static pd_status sorted_targets(const char *op, const pd_tensor *x, pd_tensor *indices, int64_t axis,
                                off_pair **pairs, int64_t *n) {
  int64_t *offs;
  PD_TRY(pd_along_axis_offsets(op, x, indices, axis, &offs));
  *n = indices->numel;
  off_pair *p = (off_pair *)malloc(sizeof(off_pair) * (size_t)(*n + 1));
  if (!p) {
    free(offs);
    return oom(op);
  }
  for (int64_t j = 0; j < *n; j++) p[j] = (off_pair){offs[j], j};
  free(offs);
  qsort(p, (size_t)*n, sizeof *p, off_cmp);
  *pairs = p;
  return PD_OK;
}

/* the largest number of entries of indices that write one position */
pd_status pd_put_along_axis_max_repeat(const pd_tensor *x, pd_tensor *indices, int64_t axis, int64_t *most) {
  off_pair *p;
  int64_t n;
  PD_TRY(sorted_targets("put_along_axis", x, indices, axis, &p, &n));
  *most = n > 0;
  for (int64_t g0 = 0; g0 < n;) {
    int64_t g1 = g0 + 1;
    while (g1 < n && p[g1].off == p[g0].off) g1++;
    if (g1 - g0 > *most) *most = g1 - g0;
    g0 = g1;
  }
  free(p);
  return PD_OK;
}

#define PD_CONJ_f16(v) (v)
#define PD_CONJ_bf16(v) (v)
#define PD_CONJ_f32(v) (v)
#define PD_CONJ_f64(v) (v)
#define PD_CONJ_c64(v) conjf(v)
#define PD_CONJ_c128(v) conj(v)
#define DEF_PUT_MUL_GRAD(SUF, T, CT)                                                               \
  pd_status pd_kernel_put_along_axis_mul_grad_##SUF(const void *args, pd_tensor **out, int n_out) { \
    (void)n_out;                                                                                   \
    const pd_put_along_axis_mul_grad_args *a = (const pd_put_along_axis_mul_grad_args *)args;      \
    off_pair *p;                                                                                   \
    int64_t n;                                                                                     \
    PD_TRY(sorted_targets("put_along_axis_mul_grad", a->x, a->indices, a->axis, &p, &n));          \
    pd_tensor *c[3] = {NULL, NULL, NULL}, *in[3] = {a->x, a->values, a->dout};                     \
    pd_status s = PD_OK;                                                                           \
    for (int i = 0; i < 3 && s == PD_OK; i++) s = pd_tensor_contiguous(in[i], &c[i]);              \
    CT *suf = s == PD_OK ? (CT *)malloc(sizeof(CT) * (size_t)(n + 1)) : NULL;                      \
    if (s == PD_OK && !suf) s = oom("put_along_axis_mul_grad");                                    \
    if (s == PD_OK) {                                                                              \
      const T *x = (const T *)pd_tensor_data(c[0]), *v = (const T *)pd_tensor_data(c[1]);          \
      const T *g = (const T *)pd_tensor_data(c[2]);                                                \
      T *o = (T *)pd_tensor_data(out[0]);                                                          \
      for (int64_t g0 = 0; g0 < n;) {                                                              \
        int64_t g1 = g0 + 1;                                                                       \
        while (g1 < n && p[g1].off == p[g0].off) g1++;                                             \
        suf[g1 - 1] = (CT)1;                                                                       \
        for (int64_t t = g1 - 1; t > g0; t--) suf[t - 1] = suf[t] * PD_LD_##SUF(v + p[t].j);       \
        const int64_t off = p[g0].off;                                                             \
        const CT xg = PD_LD_##SUF(x + off), gg = PD_LD_##SUF(g + off);                             \
        CT pre = (CT)1;                                                                            \
        for (int64_t t = g0; t < g1; t++) {                                                        \
          CT others = xg * pre * suf[t];                                                           \
          PD_ST_##SUF(o + p[t].j, gg * PD_CONJ_##SUF(others));                                     \
          pre = pre * PD_LD_##SUF(v + p[t].j);                                                     \
        }                                                                                          \
        g0 = g1;                                                                                   \
      }                                                                                            \
    }                                                                                              \
    free(suf);                                                                                     \
    free(p);                                                                                       \
    for (int i = 0; i < 3; i++) pd_tensor_release(c[i]);                                           \
    return s;                                                                                      \
  }
PD_FOR_FLOAT(DEF_PUT_MUL_GRAD)
PD_FOR_COMPLEX(DEF_PUT_MUL_GRAD)

/* ---- put_along_axis_mul_pairs: out[k] = sum over j != k writing k's position p of
 * h[j] dout[p] x[p] prod_{l != j, k at p} values[l] (the derivative of put_along_axis_mul_grad
 * with respect to values; real dtypes). Per group: for each k the products with k left out,
 * from prefix / suffix products over the group without k. ---- */
#define DEF_PUT_MUL_PAIRS(SUF, T, CT)                                                              \
  pd_status pd_kernel_put_along_axis_mul_pairs_##SUF(const void *args, pd_tensor **out, int n_out) { \
    (void)n_out;                                                                                   \
    const pd_put_along_axis_mul_pairs_args *a = (const pd_put_along_axis_mul_pairs_args *)args;    \
    off_pair *p;                                                                                   \
    int64_t n;                                                                                     \
    PD_TRY(sorted_targets("put_along_axis_mul_pairs", a->x, a->indices, a->axis, &p, &n));         \
    pd_tensor *c[4] = {NULL, NULL, NULL, NULL}, *in[4] = {a->x, a->values, a->dout, a->h};         \
    pd_status s = PD_OK;                                                                           \
    for (int i = 0; i < 4 && s == PD_OK; i++) s = pd_tensor_contiguous(in[i], &c[i]);              \
    double *suf = s == PD_OK ? (double *)malloc(sizeof(double) * (size_t)(n + 1)) : NULL;          \
    if (s == PD_OK && !suf) s = oom("put_along_axis_mul_pairs");                                   \
    if (s == PD_OK) {                                                                              \
      const T *x = (const T *)pd_tensor_data(c[0]), *v = (const T *)pd_tensor_data(c[1]);          \
      const T *g = (const T *)pd_tensor_data(c[2]), *h = (const T *)pd_tensor_data(c[3]);          \
      T *o = (T *)pd_tensor_data(out[0]);                                                          \
      for (int64_t g0 = 0; g0 < n;) {                                                              \
        int64_t g1 = g0 + 1;                                                                       \
        while (g1 < n && p[g1].off == p[g0].off) g1++;                                             \
        const double xg = (double)PD_LD_##SUF(x + p[g0].off) * (double)PD_LD_##SUF(g + p[g0].off); \
        for (int64_t k = g0; k < g1; k++) {                                                        \
          /* suffix products of the group without k, then a forward pass over j != k */            \
          double run = 1;                                                                          \
          for (int64_t t = g1 - 1; t >= g0; t--) {                                                 \
            suf[t] = run;                                                                          \
            if (t != k) run *= (double)PD_LD_##SUF(v + p[t].j);                                    \
          }                                                                                        \
          double pre = 1, acc = 0;                                                                 \
          for (int64_t t = g0; t < g1; t++) {                                                      \
            if (t == k) continue;                                                                  \
            acc += (double)PD_LD_##SUF(h + p[t].j) * pre * suf[t];                                 \
            pre *= (double)PD_LD_##SUF(v + p[t].j);                                                \
          }                                                                                        \
          PD_ST_##SUF(o + p[k].j, xg * acc);                                                       \
        }                                                                                          \
        g0 = g1;                                                                                   \
      }                                                                                            \
    }                                                                                              \
    free(suf);                                                                                     \
    free(p);                                                                                       \
    for (int i = 0; i < 4; i++) pd_tensor_release(c[i]);                                           \
    return s;                                                                                      \
  }
PD_FOR_FLOAT(DEF_PUT_MUL_PAIRS)
