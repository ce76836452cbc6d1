/* Kernels of ops/api26.yaml: the modified Bessel functions I0, I1 (and e^-|x| I0, e^-|x| I1),
 * and cummax / cummin with their indices.
 *
 * Bessel: for |x| <= 30 the power series I_nu(x) = sum_k (x/2)^(2k+nu) / (k! (k+nu)!), whose
 * terms are all positive (no cancellation; ~60 terms at 30); beyond, Hankel's asymptotic
 * expansion e^x / sqrt(2 pi x) * sum_k (-1)^k a_k(nu) / x^k with a_k = prod_{j<=k} (4nu^2 -
 * (2j-1)^2) / (k! 8^k), summed while its terms shrink (at x > 30 they fall below 1e-17 before
 * they would grow). The scaled forms use the expansion without e^x, so they never overflow. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "manip_util.h"

#define BESSEL_SERIES_MAX 30.0

/* the series of e^-a I_nu(a) for a = |x| <= 30 (scaled: multiplied by e^-a at the end) */
static double bessel_series(int nu, double a) {
  double h = 0.5 * a, h2 = h * h;
  double term = nu ? h : 1.0, sum = term;
  for (int k = 1; k < 500; k++) {
    term *= h2 / ((double)k * (double)(k + nu));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/* e^-a I_nu(a) for a > 30 by the asymptotic expansion */
static double bessel_asym_scaled(int nu, double a) {
  double mu = 4.0 * nu * nu, term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; k++) {
    double f = (2.0 * k - 1.0);
    double next = -term * (mu - f * f) / ((double)k * 8.0 * a);
    if (fabs(next) >= fabs(term)) break;
    term = next;
    sum += term;
    if (fabs(term) < 1e-17 * fabs(sum)) break;
  }
  return sum / sqrt(2.0 * M_PI * a);
}

/* I_nu(x) (scaled: e^-|x| I_nu(x)) for nu = 0, 1; I_1 is odd, I_0 even */
static double bessel_i(int nu, int scaled, double x) {
  if (isnan(x)) return x;
  double a = fabs(x), r;
  if (a <= BESSEL_SERIES_MAX) {
    r = bessel_series(nu, a);
    if (scaled) r *= exp(-a);
  } else if (isinf(a)) {
    r = scaled ? 0.0 : INFINITY;
  } else {
    r = bessel_asym_scaled(nu, a);
    if (!scaled) r = a < 709.0 ? r * exp(a) : (r > 0 ? exp(a + log(r)) : 0.0);
  }
  return nu && x < 0 ? -r : r;
}

#define DEF_BESSEL(NAME, NU, SCALED, SUF, T)                                                       \
  static void NAME##_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {               \
    (void)ctx;                                                                                     \
    for (int64_t i = 0; i < n; i++)                                                                \
      *(T *)(d[0] + i * st[0]) = (T)bessel_i(NU, SCALED, (double)*(const T *)(d[1] + i * st[1]));  \
  }                                                                                                \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                                   \
    return pd_run_unary(#NAME, out[0], ((const pd_##NAME##_args *)args)->x, NAME##_loop_##SUF, NULL); \
  }
#define DEF_BESSEL_ALL(SUF, T)                                                                     \
  DEF_BESSEL(i0, 0, 0, SUF, T)                                                                     \
  DEF_BESSEL(i0e, 0, 1, SUF, T)                                                                    \
  DEF_BESSEL(i1, 1, 0, SUF, T)                                                                     \
  DEF_BESSEL(i1e, 1, 1, SUF, T)
DEF_BESSEL_ALL(f32, float)
DEF_BESSEL_ALL(f64, double)

/* ---- cummax / cummin: one pass along the axis per (outer, inner) line; a NaN, once met, stays
 * the running value with its index; otherwise a value >= (<=) the running one takes over (ties:
 * the later index) */
#define IS_NAN_f32(v) isnan(v)
#define IS_NAN_f64(v) isnan(v)
#define IS_NAN_i32(v) 0
#define IS_NAN_i64(v) 0
#define DEF_CUMEXT(NAME, CMP, SUF, T)                                                              \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {               \
    const pd_##NAME##_args *a = (const pd_##NAME##_args *)args;                                    \
    (void)n_out;                                                                                   \
    int ax = 0;                                                                                    \
    if (a->x->ndim) PD_TRY(pd_norm_axis(#NAME, a->axis, a->x->ndim, &ax));                         \
    if (a->x->numel == 0) return PD_OK;                                                            \
    pd_tensor *xc;                                                                                 \
    PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                       \
    int64_t len = xc->ndim ? xc->shape[ax] : 1, inner = 1;                                         \
    for (int d = ax + 1; d < xc->ndim; d++) inner *= xc->shape[d];                                 \
    int64_t outer = xc->numel / (len * inner);                                                     \
    const T *x = (const T *)pd_tensor_data(xc);                                                    \
    T *ov = (T *)pd_tensor_data(out[0]);                                                           \
    int i32 = out[1]->dtype == PD_INT32;                                                           \
    int64_t *oi64 = (int64_t *)pd_tensor_data(out[1]);                                             \
    int32_t *oi32 = (int32_t *)pd_tensor_data(out[1]);                                             \
    for (int64_t o = 0; o < outer; o++)                                                            \
      for (int64_t in = 0; in < inner; in++) {                                                     \
        int64_t base = o * len * inner + in, best = 0;                                             \
        T cur = x[base];                                                                           \
        int nan = IS_NAN_##SUF(cur);                                                               \
        for (int64_t k = 0; k < len; k++) {                                                        \
          int64_t p = base + k * inner;                                                            \
          T v = x[p];                                                                              \
          if (!nan && k > 0) {                                                                     \
            if (IS_NAN_##SUF(v)) {                                                                 \
              nan = 1;                                                                             \
              cur = v;                                                                             \
              best = k;                                                                            \
            } else if (v CMP cur) {                                                                \
              cur = v;                                                                             \
              best = k;                                                                            \
            }                                                                                      \
          }                                                                                        \
          ov[p] = cur;                                                                             \
          if (i32) oi32[p] = (int32_t)best;                                                        \
          else oi64[p] = best;                                                                     \
        }                                                                                          \
      }                                                                                            \
    pd_tensor_release(xc);                                                                         \
    return PD_OK;                                                                                  \
  }
#define DEF_CUMEXT_ALL(SUF, T) DEF_CUMEXT(cummax, >=, SUF, T) DEF_CUMEXT(cummin, <=, SUF, T)
DEF_CUMEXT_ALL(i32, int32_t)
DEF_CUMEXT_ALL(i64, int64_t)
DEF_CUMEXT_ALL(f32, float)
DEF_CUMEXT_ALL(f64, double)

/* ---- nextafter (broadcast) */
#define DEF_NEXTAFTER(SUF, T, FN)                                                                  \
  static void nextafter_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {            \
    (void)ctx;                                                                                     \
    for (int64_t i = 0; i < n; i++)                                                                \
      *(T *)(d[0] + i * st[0]) = FN(*(const T *)(d[1] + i * st[1]), *(const T *)(d[2] + i * st[2])); \
  }                                                                                                \
  pd_status pd_kernel_nextafter_##SUF(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                                   \
    const pd_nextafter_args *a = (const pd_nextafter_args *)args;                                  \
    return pd_run_binary("nextafter", out[0], a->x, a->y, nextafter_loop_##SUF, NULL);             \
  }
DEF_NEXTAFTER(f32, float, nextafterf)
DEF_NEXTAFTER(f64, double, nextafter)
