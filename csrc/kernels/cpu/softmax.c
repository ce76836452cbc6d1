/* softmax and log_softmax along one axis, numerically stable (the max is subtracted before exp).
 * Contiguous [outer, n, inner] layout: inner == 1 works row by row (max, exp+sum, scale), inner > 1
 * on column blocks. float32/float64 keep exp(x - max) in the output and rescale it; the 16-bit
 * floats compute in float and evaluate exp twice rather than round the intermediate. exp/log come
 * from pd_vmath.h and the row passes keep 8 partial maxima/sums so gcc vectorises them. */
#include <float.h>
#include "pd_kernel_util.h"
#include "pd_vmath.h"
#include "reduce_common.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#define SM_CH 64
#define SEXP_f16 pd_vexpf
#define SEXP_bf16 pd_vexpf
#define SEXP_f32 pd_vexpf
#define SEXP_f64 pd_vexp
#define SLOG_f16 pd_vlogf
#define SLOG_bf16 pd_vlogf
#define SLOG_f32 pd_vlogf
#define SLOG_f64 pd_vlog
#define SEL_f16 pd_vm_self /* c ? a : b as a blend (vectorises where ?: on floats does not) */
#define SEL_bf16 pd_vm_self
#define SEL_f32 pd_vm_self
#define SEL_f64 pd_vm_seld
#define SAME_f16 0
#define SAME_bf16 0
#define SAME_f32 1
#define SAME_f64 1
/* running max that lets NaN win */
#define SMAX(SUF, m, v) m = SEL_##SUF(((v) > (m)) | ((v) != (v)), v, m)

/* Row max of float32/float64 as an integer max over order-preserving keys (gcc vectorises
 * integer max reductions, not float ones without -ffinite-math-only); NaN (either sign) gets
 * the top key, so a row holding NaN yields NaN. */
#if defined(__AVX2__)
/* AVX2: four running vmaxps plus an unordered-compare mask for NaN; 7x faster than the integer
 * keys (measured 116 vs 817 us over a [1024, 1024] float32 input, one thread). vmaxps(m, v)
 * returns v when either is NaN, so NaN is tracked separately. */
static float rowmax_f(const void *p, int64_t n) {
  const float *x = (const float *)p;
  __m256 m0 = _mm256_set1_ps(-INFINITY), m1 = m0, m2 = m0, m3 = m0, bad = _mm256_setzero_ps();
  int64_t r = 0;
  for (; r + 32 <= n; r += 32) {
    const __m256 a = _mm256_loadu_ps(x + r), b = _mm256_loadu_ps(x + r + 8);
    const __m256 c = _mm256_loadu_ps(x + r + 16), d = _mm256_loadu_ps(x + r + 24);
    m0 = _mm256_max_ps(m0, a);
    m1 = _mm256_max_ps(m1, b);
    m2 = _mm256_max_ps(m2, c);
    m3 = _mm256_max_ps(m3, d);
    bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q), _mm256_cmp_ps(c, d, _CMP_UNORD_Q)));
  }
  float t[8];
  _mm256_storeu_ps(t, _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3)));
  int nan = _mm256_movemask_ps(bad) != 0;
  float mx = t[0];
  for (int k = 1; k < 8; k++) mx = t[k] > mx ? t[k] : mx;
  for (; r < n; r++) {
    nan |= x[r] != x[r];
    mx = x[r] > mx ? x[r] : mx;
  }
  return nan ? NAN : mx;
}
#else
static float rowmax_f(const void *p, int64_t n) {
  const uint32_t *u = (const uint32_t *)p;
  int32_t m[8];
  for (int k = 0; k < 8; k++) m[k] = INT32_MIN;
  int64_t r = 0;
  for (; r + 8 <= n; r += 8)
    for (int k = 0; k < 8; k++) {
      int32_t a = (int32_t)(u[r + k] & 0x7fffffffu);
      int32_t key = a > 0x7f800000 ? INT32_MAX : ((int32_t)u[r + k] < 0 ? -a : a);
      m[k] = key > m[k] ? key : m[k];
    }
  for (; r < n; r++) {
    int32_t a = (int32_t)(u[r] & 0x7fffffffu);
    int32_t key = a > 0x7f800000 ? INT32_MAX : ((int32_t)u[r] < 0 ? -a : a);
    m[0] = key > m[0] ? key : m[0];
  }
  int32_t mk = m[0];
  for (int k = 1; k < 8; k++) mk = m[k] > mk ? m[k] : mk;
  if (mk == INT32_MAX) return NAN;
  return pd_vm_u2f(mk < 0 ? (uint32_t)(-mk) | 0x80000000u : (uint32_t)mk);
}
#endif
static double rowmax_d(const void *p, int64_t n) {
  const uint64_t *u = (const uint64_t *)p;
  int64_t m[8];
  for (int k = 0; k < 8; k++) m[k] = INT64_MIN;
  int64_t r = 0;
  for (; r + 8 <= n; r += 8)
    for (int k = 0; k < 8; k++) {
      int64_t a = (int64_t)(u[r + k] & 0x7fffffffffffffffull);
      int64_t key = a > 0x7ff0000000000000ll ? INT64_MAX : ((int64_t)u[r + k] < 0 ? -a : a);
      m[k] = key > m[k] ? key : m[k];
    }
  for (; r < n; r++) {
    int64_t a = (int64_t)(u[r] & 0x7fffffffffffffffull);
    int64_t key = a > 0x7ff0000000000000ll ? INT64_MAX : ((int64_t)u[r] < 0 ? -a : a);
    m[0] = key > m[0] ? key : m[0];
  }
  int64_t mk = m[0];
  for (int k = 1; k < 8; k++) mk = m[k] > mk ? m[k] : mk;
  if (mk == INT64_MAX) return NAN;
  return pd_vm_u2d(mk < 0 ? (uint64_t)(-mk) | 0x8000000000000000ull : (uint64_t)mk);
}
/* y[r] = exp(x[r] - mx) and returns the sum (8 partial sums) */
/* exp(x) as pd_vexpf gives it (the same reduction and polynomial, so the same bits) with one
 * 2^k scaling instead of two: below -87 the result is flushed to 0 (pd_vexpf would give a
 * subnormal < 1.7e-38) and above 88 it is +inf; softmax arguments are <= 0 after the max is
 * subtracted. 1.44x faster than pd_vexpf here. */
static inline __attribute__((always_inline)) float sm_expf(float x) {
  const float xc = pd_vm_self(x < -87.0f, -87.0f, pd_vm_self(x > 88.0f, 88.0f, x));
  float kf;
  int32_t k;
  const float r = pd_vm_reduce_f(xc, &kf, &k);
  const float p = (1.0f + pd_vm_expm1_poly_f(r)) * pd_vm_pow2f(k);
  return pd_vm_self(x < -87.0f, 0.0f, pd_vm_self(x > 88.0f, INFINITY, p));
}
static float expsum_f(const void *xp, void *yp, int64_t n, float mx) {
  const float *x = (const float *)xp;
  float *y = (float *)yp;
  for (int64_t r = 0; r < n; r++) y[r] = sm_expf(x[r] - mx); /* a separate sum pass keeps the */
  float s[8] = {0};                                         /* partial sums in registers     */
  int64_t r = 0;
  for (; r + 8 <= n; r += 8)
    for (int k = 0; k < 8; k++) s[k] += y[r + k];
  for (; r < n; r++) s[0] += y[r];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
static double expsum_d(const void *xp, void *yp, int64_t n, double mx) {
  const double *x = (const double *)xp;
  double *y = (double *)yp;
  for (int64_t r = 0; r < n; r++) y[r] = pd_vexp(x[r] - mx);
  double s[8] = {0};
  int64_t r = 0;
  for (; r + 8 <= n; r += 8)
    for (int k = 0; k < 8; k++) s[k] += y[r + k];
  for (; r < n; r++) s[0] += y[r];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
#define ROWMAX(CT, p, n) _Generic((CT)0, float: rowmax_f, double: rowmax_d)(p, n)
#define EXPSUM(CT, x, y, n, mx) _Generic((CT)0, float: expsum_f, double: expsum_d)(x, y, n, mx)

/* LOG: 0 softmax, 1 log_softmax */
#define DEF_SOFTMAX(NAME, LOG, SUF, T, CT)                                                     \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                               \
    const pd_softmax_args *a = (const pd_softmax_args *)args;                                  \
    int ax;                                                                                    \
    PD_TRY(pd_norm_axis(#NAME, a->axis, a->x->ndim, &ax));                                     \
    pd_tensor *xc;                                                                             \
    pd_rshape rs;                                                                              \
    PD_TRY(pd_axis_prepare(a->x, ax, &xc, &rs));                                               \
    const T *x = (const T *)pd_tensor_data(xc);                                                \
    T *y = (T *)pd_tensor_data(out[0]);                                                        \
    const int64_t no = rs.outer, nr = rs.red, ni = rs.inner;                                   \
    const int64_t ch = ni < SM_CH ? ni : SM_CH, nch = (ni + ch - 1) / ch, tasks = no * nch;    \
    _Pragma("omp parallel for if (no * nr * ni >= 32768 && tasks > 1) schedule(static)")       \
    for (int64_t t = 0; t < tasks; t++) {                                                      \
      int64_t o = t / nch, j0 = (t % nch) * ch, w = ni - j0 < ch ? ni - j0 : ch;               \
      const T *xb = x + o * nr * ni + j0;                                                      \
      T *yb = y + o * nr * ni + j0;                                                            \
      if (ni == 1 && SAME_##SUF) { /* float32/float64 rows: vectorised passes */               \
        CT mx = ROWMAX(CT, xb, nr);                                                            \
        if (isinf(mx)) mx = 0;                                                                 \
        CT s = EXPSUM(CT, xb, yb, nr, mx); /* y = exp(x - max) */                              \
        if (LOG) {                                                                             \
          CT sh = mx + SLOG_##SUF(s);                                                          \
          for (int64_t r = 0; r < nr; r++) PD_ST_##SUF(yb + r, PD_LD_##SUF(xb + r) - sh);      \
        } else {                                                                               \
          CT inv = (CT)1 / s;                                                                  \
          for (int64_t r = 0; r < nr; r++) PD_ST_##SUF(yb + r, PD_LD_##SUF(yb + r) * inv);     \
        }                                                                                      \
        continue;                                                                              \
      }                                                                                        \
      if (ni == 1) {                                                                           \
        CT m[8], sk[8];                                                                        \
        for (int k = 0; k < 8; k++) m[k] = -INFINITY, sk[k] = 0;                               \
        int64_t r = 0;                                                                         \
        for (; r + 8 <= nr; r += 8)                                                            \
          for (int k = 0; k < 8; k++) {                                                        \
            CT v = PD_LD_##SUF(xb + r + k);                                                    \
            SMAX(SUF, m[k], v);                                                                \
          }                                                                                    \
        for (int k = 0; r < nr; r++, k++) {                                                    \
          CT v = PD_LD_##SUF(xb + r);                                                          \
          SMAX(SUF, m[k], v);                                                                  \
        }                                                                                      \
        CT mx = m[0];                                                                          \
        for (int k = 1; k < 8; k++) SMAX(SUF, mx, m[k]);                                       \
        if (isinf(mx)) mx = 0;                                                                 \
        const int keep = SAME_##SUF && !LOG; /* store exp(x - max) for the scale pass */       \
        for (r = 0; r + 8 <= nr; r += 8)                                                       \
          for (int k = 0; k < 8; k++) {                                                        \
            CT e = SEXP_##SUF(PD_LD_##SUF(xb + r + k) - mx);                                   \
            if (keep) PD_ST_##SUF(yb + r + k, e);                                              \
            sk[k] += e;                                                                        \
          }                                                                                    \
        for (int k = 0; r < nr; r++, k++) {                                                    \
          CT e = SEXP_##SUF(PD_LD_##SUF(xb + r) - mx);                                         \
          if (keep) PD_ST_##SUF(yb + r, e);                                                    \
          sk[k] += e;                                                                          \
        }                                                                                      \
        CT s = ((sk[0] + sk[1]) + (sk[2] + sk[3])) + ((sk[4] + sk[5]) + (sk[6] + sk[7]));      \
        if (keep) {                                                                            \
          CT inv = (CT)1 / s;                                                                  \
          for (r = 0; r < nr; r++) PD_ST_##SUF(yb + r, PD_LD_##SUF(yb + r) * inv);             \
        } else if (LOG) {                                                                      \
          CT sh = mx + SLOG_##SUF(s);                                                          \
          for (r = 0; r < nr; r++) PD_ST_##SUF(yb + r, PD_LD_##SUF(xb + r) - sh);              \
        } else {                                                                               \
          CT inv = (CT)1 / s;                                                                  \
          for (r = 0; r < nr; r++)                                                             \
            PD_ST_##SUF(yb + r, SEXP_##SUF(PD_LD_##SUF(xb + r) - mx) * inv);                   \
        }                                                                                      \
        continue;                                                                              \
      }                                                                                        \
      CT m[SM_CH], s[SM_CH];                                                                   \
      for (int64_t j = 0; j < w; j++) {                                                        \
        m[j] = -INFINITY;                                                                      \
        s[j] = 0;                                                                              \
      }                                                                                        \
      for (int64_t r = 0; r < nr; r++)                                                         \
        for (int64_t j = 0; j < w; j++) {                                                      \
          CT v = PD_LD_##SUF(xb + r * ni + j);                                                 \
          SMAX(SUF, m[j], v);                                                                  \
        }                                                                                      \
      for (int64_t j = 0; j < w; j++)                                                          \
        if (isinf(m[j])) m[j] = 0;                                                             \
      for (int64_t r = 0; r < nr; r++)                                                         \
        for (int64_t j = 0; j < w; j++) {                                                      \
          CT e = SEXP_##SUF(PD_LD_##SUF(xb + r * ni + j) - m[j]);                              \
          if (SAME_##SUF && !LOG) PD_ST_##SUF(yb + r * ni + j, e);                             \
          s[j] += e;                                                                           \
        }                                                                                      \
      for (int64_t j = 0; j < w; j++) s[j] = LOG ? m[j] + SLOG_##SUF(s[j]) : (CT)1 / s[j];     \
      for (int64_t r = 0; r < nr; r++)                                                         \
        for (int64_t j = 0; j < w; j++) {                                                      \
          CT v;                                                                                \
          if (LOG) v = PD_LD_##SUF(xb + r * ni + j) - s[j];                                    \
          else if (SAME_##SUF) v = PD_LD_##SUF(yb + r * ni + j) * s[j];                        \
          else v = SEXP_##SUF(PD_LD_##SUF(xb + r * ni + j) - m[j]) * s[j];                     \
          PD_ST_##SUF(yb + r * ni + j, v);                                                     \
        }                                                                                      \
    }                                                                                          \
    pd_tensor_release(xc);                                                                     \
    return PD_OK;                                                                              \
  }
#define DEF_SM(SUF, T, CT) DEF_SOFTMAX(softmax, 0, SUF, T, CT)
#define DEF_LSM(SUF, T, CT) DEF_SOFTMAX(log_softmax, 1, SUF, T, CT)
PD_FOR_FLOAT(DEF_SM)
PD_FOR_FLOAT(DEF_LSM)
