/* Normalization kernels: batch_norm (training: batch statistics + in-place running-stat update
 * with momentum; eval/use_global_stats: running statistics), layer_norm, and their fused
 * gradients. Statistics: float lanes per block of a row, blocks and rows added in double. NCHW runs
 * channel-parallel over [N, C, S] planes; NHWC (or small S) splits rows across threads with
 * per-thread column sums. Group/instance norm are layer_norm on a reshaped input (Python). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "../../core/pd_alloc.h"

static int is_nhwc(const char *f) { return f && (!strcmp(f, "NHWC") || !strcmp(f, "NLC") || !strcmp(f, "NDHWC")); }

/* x as a contiguous [A, C, B]: NCHW gives A = N, B = spatial; NHWC (and 2-D x) A = rows, B = 1.
 * B >= BN_ROWS: channels in parallel, each summing its A rows of B values (vectorised rows);
 * else "column" mode: threads take blocks of the A rows of C*B values and keep per-column partial
 * sums (double), folded per channel afterwards. */
typedef struct {
  int64_t A, C, B;
} bn_shape;
#define BN_ROWS 16
/* layer_norm_grad: rows in this many blocks for the dscale / dbias sums (fewer rows: one each), any thread count */
#define LN_BLOCKS 32
static pd_status bn_geom(const char *op, const pd_tensor *x, const char *fmt, bn_shape *b) {
  if (x->ndim < 2) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x with >= 2 dims, received %d", op, x->ndim);
  int64_t sp = 1;
  if (is_nhwc(fmt) && x->ndim > 2) {
    for (int i = 1; i < x->ndim - 1; i++) sp *= x->shape[i];
    b->C = x->shape[x->ndim - 1];
    b->A = x->shape[0] * sp;
    b->B = 1;
  } else {
    for (int i = 2; i < x->ndim; i++) sp *= x->shape[i];
    b->C = x->shape[1];
    b->A = x->shape[0];
    b->B = sp;
  }
  return PD_OK;
}

/* Threads for column mode over A rows of W values, and their row ranges. */
static int col_threads(int64_t A, int64_t W) {
  int nt = pd_num_threads();
  if (A * W < 32768) return 1;
  if (nt > A) nt = (int)A;
  return nt < 1 ? 1 : nt;
}

/* Row helpers: sums in 32-byte vector lanes (gcc vector extension: plain loops here were
 * vectorised across rows with permutes, 4x slower) over blocks of 4096, blocks added in double. */
#define DEF_ROWOPS(SUF, T)                                                                          \
  typedef T v_##SUF __attribute__((vector_size(32)));                                             \
  enum { VL_##SUF = 32 / sizeof(T) };                                                              \
  static inline v_##SUF vld_##SUF(const T *p) {                                                    \
    v_##SUF v;                                                                                     \
    memcpy(&v, p, sizeof(v));                                                                      \
    return v;                                                                                      \
  }                                                                                                \
  /* what 0: sum p; 1: sum (p - m)^2; 2: sum q * (p - m); pf / pfq (may be NULL): the same offsets  \
   * of the rows read next, prefetched one line per iteration (2L values are 64 bytes) */          \
  static inline double rred_##SUF(const T *restrict p, const T *restrict q, int64_t n, T m, int what, \
                                  const T *pf, const T *pfq) {                                    \
    const int L = VL_##SUF;                                                                        \
    const v_##SUF vm = (v_##SUF){0} + m;                                                           \
    double tot = 0;                                                                                \
    for (int64_t b0 = 0; b0 < n; b0 += 4096) {                                                     \
      const int64_t e = b0 + 4096 < n ? b0 + 4096 : n;                                             \
      v_##SUF a0 = {0}, a1 = {0};                                                                  \
      T r = 0;                                                                                     \
      int64_t i = b0;                                                                              \
      if (what == 0) {                                                                             \
        for (; i + 2 * L <= e; i += 2 * L) {                                                       \
          if (pf) __builtin_prefetch(pf + i, 0, 3);                                                \
          if (pfq) __builtin_prefetch(pfq + i, 0, 3);                                              \
          a0 += vld_##SUF(p + i);                                                                  \
          a1 += vld_##SUF(p + i + L);                                                              \
        }                                                                                          \
        for (; i < e; i++) r += p[i];                                                              \
      } else if (what == 1) {                                                                      \
        for (; i + 2 * L <= e; i += 2 * L) {                                                       \
          v_##SUF d0 = vld_##SUF(p + i) - vm, d1 = vld_##SUF(p + i + L) - vm;                      \
          a0 += d0 * d0;                                                                           \
          a1 += d1 * d1;                                                                           \
        }                                                                                          \
        for (; i < e; i++) r += (p[i] - m) * (p[i] - m);                                           \
      } else {                                                                                     \
        for (; i + 2 * L <= e; i += 2 * L) {                                                       \
          if (pf) __builtin_prefetch(pf + i, 0, 3);                                                \
          if (pfq) __builtin_prefetch(pfq + i, 0, 3);                                              \
          a0 += vld_##SUF(q + i) * (vld_##SUF(p + i) - vm);                                        \
          a1 += vld_##SUF(q + i + L) * (vld_##SUF(p + i + L) - vm);                                \
        }                                                                                          \
        for (; i < e; i++) r += q[i] * (p[i] - m);                                                 \
      }                                                                                            \
      a0 += a1;                                                                                    \
      for (int j = 0; j < L; j++) r += a0[j];                                                      \
      tot += r;                                                                                    \
    }                                                                                              \
    return tot;                                                                                    \
  }                                                                                                \
  static double rsum_##SUF(const T *p, int64_t n) { return rred_##SUF(p, NULL, n, 0, 0, NULL, NULL); } \
  /* sum (p - m)^2 (q == NULL) or sum q * (p - m) */                                               \
  static double rdev_##SUF(const T *p, const T *q, int64_t n, T m) {                               \
    return rred_##SUF(p, q, n, m, q ? 2 : 1, NULL, NULL);                                          \
  }                                                                                                \
  /* y = k1 * u + k2 * v + k3 over n values (v may be NULL) */                                     \
  static void raxpy_##SUF(T *restrict y, const T *restrict u, const T *restrict v, int64_t n, T k1, T k2, \
                          T k3) {                                                                  \
    if (v)                                                                                         \
      for (int64_t i = 0; i < n; i++) y[i] = k1 * u[i] + k2 * v[i] + k3;                           \
    else                                                                                           \
      for (int64_t i = 0; i < n; i++) y[i] = k1 * u[i] + k3;                                       \
  }                                                                                                \
  /* Column mode: per-channel sums of p (what 0), (p - m_c)^2 (1) or q * (p - m_c) (2) into      \
   * out[C] (double) and, for what 2, sums of q into out2. Each thread adds blocks of 32 rows in  \
   * T lanes, then folds the block into its double partials. */                                   \
  static pd_status csum_##SUF(const bn_shape *b, const T *x, const T *q, const double *m, int what,  \
                              double *out, double *out2) {                                         \
    const int64_t A = b->A, C = b->C, B = b->B, W = C * B;                                         \
    const int nt = col_threads(A, W);                                                              \
    double *part = (double *)calloc((size_t)(nt * W * 2), sizeof(double));                         \
    T *tmp = (T *)malloc((size_t)(W * (1 + 2 * nt)) * sizeof(T));                                  \
    if (!part || !tmp) {                                                                           \
      free(part);                                                                                  \
      free(tmp);                                                                                   \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[batch_norm] out of memory");                \
    }                                                                                              \
    for (int64_t j = 0; j < W; j++) tmp[j] = m ? (T)m[j / B] : (T)0;                               \
    _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static, 1)")                    \
    for (int t = 0; t < nt; t++) {                                                                 \
      double *restrict ps = part + (int64_t)t * W * 2, *restrict pq = ps + W;                      \
      T *restrict bs = tmp + W * (1 + 2 * t), *restrict bq = bs + W;                               \
      const T *restrict mm = tmp;                                                                  \
      const int64_t a1 = A * (t + 1) / nt;                                                         \
      for (int64_t a0 = A * t / nt; a0 < a1; a0 += 32) {                                           \
        const int64_t ae = a0 + 32 < a1 ? a0 + 32 : a1;                                            \
        for (int64_t j = 0; j < W; j++) bs[j] = bq[j] = 0;                                         \
        for (int64_t a = a0; a < ae; a++) {                                                        \
          const T *restrict p = x + a * W;                                                         \
          if (what == 0) {                                                                         \
            for (int64_t j = 0; j < W; j++) bs[j] += p[j];                                         \
          } else if (what == 1) {                                                                  \
            for (int64_t j = 0; j < W; j++) bs[j] += (p[j] - mm[j]) * (p[j] - mm[j]);              \
          } else {                                                                                 \
            const T *restrict qq = q + a * W;                                                      \
            for (int64_t j = 0; j < W; j++) {                                                      \
              bs[j] += qq[j] * (p[j] - mm[j]);                                                     \
              bq[j] += qq[j];                                                                      \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
        for (int64_t j = 0; j < W; j++) {                                                          \
          ps[j] += bs[j];                                                                          \
          pq[j] += bq[j];                                                                          \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (int64_t c = 0; c < C; c++) out[c] = 0;                                                    \
    if (out2)                                                                                      \
      for (int64_t c = 0; c < C; c++) out2[c] = 0;                                                 \
    for (int t = 0; t < nt; t++)                                                                   \
      for (int64_t j = 0; j < W; j++) {                                                            \
        out[j / B] += part[(int64_t)t * W * 2 + j];                                                \
        if (out2) out2[j / B] += part[(int64_t)t * W * 2 + W + j];                                 \
      }                                                                                            \
    free(part);                                                                                    \
    free(tmp);                                                                                     \
    return PD_OK;                                                                                  \
  }                                                                                                \
  /* y[a, c, :] = k1[c] * u + k2[c] * v + k3[c] (v may be NULL); rows of C*B columns with         \
   * per-column coefficients when B is short */                                                   \
  static pd_status apply_##SUF(const bn_shape *b, T *y, const T *u, const T *v, const T *k1, const T *k2, \
                               const T *k3) {                                                      \
    const int64_t A = b->A, C = b->C, B = b->B, W = C * B;                                         \
    if (B >= BN_ROWS) {                                                                            \
      _Pragma("omp parallel for collapse(2) if (A * C * B > 32768)")                               \
      for (int64_t a = 0; a < A; a++)                                                              \
        for (int64_t c = 0; c < C; c++) {                                                          \
          const int64_t o = (a * C + c) * B;                                                       \
          raxpy_##SUF(y + o, u + o, v ? v + o : NULL, B, k1[c], k2 ? k2[c] : 0, k3[c]);            \
        }                                                                                          \
      return PD_OK;                                                                                \
    }                                                                                              \
    T *kc = (T *)malloc((size_t)(3 * W + 1) * sizeof(T));                                          \
    if (!kc) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[batch_norm] out of memory");         \
    for (int64_t j = 0; j < W; j++) {                                                              \
      kc[j] = k1[j / B];                                                                           \
      kc[W + j] = k2 ? k2[j / B] : 0;                                                              \
      kc[2 * W + j] = k3[j / B];                                                                   \
    }                                                                                              \
    _Pragma("omp parallel for if (A * W > 32768)")                                                 \
    for (int64_t a = 0; a < A; a++) {                                                              \
      T *restrict yy = y + a * W;                                                                  \
      const T *restrict uu = u + a * W, *restrict c1 = kc, *restrict c2 = kc + W, *restrict c3 = kc + 2 * W; \
      if (v) {                                                                                     \
        const T *restrict vv = v + a * W;                                                          \
        for (int64_t j = 0; j < W; j++) yy[j] = c1[j] * uu[j] + c2[j] * vv[j] + c3[j];             \
      } else {                                                                                     \
        for (int64_t j = 0; j < W; j++) yy[j] = c1[j] * uu[j] + c3[j];                             \
      }                                                                                            \
    }                                                                                              \
    free(kc);                                                                                      \
    return PD_OK;                                                                                  \
  }

#define DEF_NORM(SUF, T)                                                                            \
  DEF_ROWOPS(SUF, T)                                                                               \
  /* channel c's mean and biased variance over its A planes of B values (B >= BN_ROWS); the first  \
   * pass prefetches channel c + 1's planes: each plane is a short stream (6 KB at 56x56, 1.6 MB from \
   * the next) the hardware prefetcher barely starts on ([16, 256, 56, 56] forward 1.5x faster) */ \
  static void chan_stats_##SUF(const bn_shape *b, const T *x, int64_t c, double *mean, double *var) { \
    const int64_t A = b->A, C = b->C, B = b->B;                                                    \
    const double M = (double)(A * B);                                                              \
    double s = 0, s2 = 0;                                                                          \
    for (int64_t a = 0; a < A; a++) {                                                              \
      const T *p = x + (a * C + c) * B;                                                            \
      s += rred_##SUF(p, NULL, B, 0, 0, c + 1 < C ? p + B : NULL, NULL);                           \
    }                                                                                              \
    const double m = M > 0 ? s / M : 0;                                                            \
    for (int64_t a = 0; a < A; a++) s2 += rdev_##SUF(x + (a * C + c) * B, NULL, B, (T)m);          \
    *mean = m;                                                                                     \
    *var = M > 0 ? s2 / M : 0;                                                                     \
  }                                                                                                \
  /* channel c's sums of dy and of dy (x - mean) (B >= BN_ROWS; the first pass prefetches channel  \
   * c + 1's dy and x) */                                                                          \
  static void chan_sums_##SUF(const bn_shape *b, const T *x, const T *dy, T mean, int64_t c, double *sdy, \
                              double *sdyx) {                                                      \
    const int64_t A = b->A, C = b->C, B = b->B;                                                    \
    double s1 = 0, s2 = 0;                                                                         \
    for (int64_t a = 0; a < A; a++) {                                                              \
      const int64_t o = (a * C + c) * B;                                                           \
      s1 += rred_##SUF(dy + o, NULL, B, 0, 0, c + 1 < C ? dy + o + B : NULL, c + 1 < C ? x + o + B : NULL); \
    }                                                                                              \
    for (int64_t a = 0; a < A; a++) {                                                              \
      const int64_t o = (a * C + c) * B;                                                           \
      s2 += rdev_##SUF(x + o, dy + o, B, mean);                                                    \
    }                                                                                              \
    *sdy = s1;                                                                                     \
    *sdyx = s2;                                                                                    \
  }                                                                                                \
  /* batch statistics: mean[c], biased var[c] */                                                   \
  static pd_status bn_stats_##SUF(const bn_shape *b, const T *x, double *mean, double *var) {      \
    const int64_t A = b->A, C = b->C, B = b->B;                                                    \
    const double M = (double)(A * B);                                                              \
    if (B >= BN_ROWS) {                                                                            \
      _Pragma("omp parallel for if (A * C * B > 32768)")                                           \
      for (int64_t c = 0; c < C; c++) chan_stats_##SUF(b, x, c, mean + c, var + c);                \
      return PD_OK;                                                                                \
    }                                                                                              \
    PD_TRY(csum_##SUF(b, x, NULL, NULL, 0, mean, NULL));                                           \
    for (int64_t c = 0; c < C; c++) mean[c] = M > 0 ? mean[c] / M : 0;                             \
    PD_TRY(csum_##SUF(b, x, NULL, mean, 1, var, NULL));                                            \
    for (int64_t c = 0; c < C; c++) var[c] = M > 0 ? var[c] / M : 0;                               \
    return PD_OK;                                                                                  \
  }                                                                                                \
  /* per-channel y = k[c] x + k[C + c] from the batch statistics st (mean[C], var[C]; the running   \
   * statistics take them with momentum) or, not training, from the running statistics */           \
  static void bn_coef_fwd_##SUF(int64_t C, const double *st, T *rm, T *rv, const T *sc, const T *bi, T *smean, \
                                T *svar, T *k, int train, double mom, double eps) {                 \
    for (int64_t c = 0; c < C; c++) {                                                              \
      double mean, var;                                                                            \
      if (train) {                                                                                 \
        mean = st[c];                                                                              \
        var = st[C + c];                                                                           \
        rm[c] = (T)(mom * rm[c] + (1 - mom) * mean);                                               \
        rv[c] = (T)(mom * rv[c] + (1 - mom) * var);                                                \
      } else {                                                                                     \
        mean = rm[c];                                                                              \
        var = rv[c];                                                                               \
      }                                                                                            \
      const double inv = 1.0 / sqrt(var + eps), g = sc ? sc[c] : 1;                                \
      smean[c] = (T)mean;                                                                          \
      svar[c] = (T)inv;                                                                            \
      k[c] = (T)(g * inv);                                                                         \
      k[C + c] = (T)((bi ? bi[c] : 0) - mean * g * inv);                                           \
    }                                                                                              \
  }                                                                                                 \
  static pd_status bn_fwd_##SUF(const bn_shape *b, const T *x, T *rm, T *rv, const T *sc, const T *bi, \
                                T *y, T *smean, T *svar, int train, double mom, double eps) {      \
    const int64_t A = b->A, C = b->C, B = b->B;                                                    \
    if (train && B >= BN_ROWS && C >= pd_num_threads()) {                                          \
      /* per channel (threads take channels): statistics, coefficients, then the channel's planes  \
       * while they are still in cache (the two-phase path below reads x from memory twice). The   \
       * same sums and coefficients as that path. */                                               \
      _Pragma("omp parallel for if (A * C * B > 32768)")                                           \
      for (int64_t c = 0; c < C; c++) {                                                            \
        double st[2];                                                                              \
        chan_stats_##SUF(b, x, c, st, st + 1);                                                     \
        T k[2];                                                                                    \
        bn_coef_fwd_##SUF(1, st, rm + c, rv + c, sc ? sc + c : NULL, bi ? bi + c : NULL, smean + c, svar + c, k, \
                          train, mom, eps);                                                        \
        for (int64_t a = 0; a < A; a++) {                                                          \
          const int64_t o = (a * C + c) * B;                                                       \
          raxpy_##SUF(y + o, x + o, NULL, B, k[0], 0, k[1]);                                       \
        }                                                                                          \
      }                                                                                            \
      return PD_OK;                                                                                \
    }                                                                                              \
    double *st = (double *)malloc((size_t)(2 * C + 1) * sizeof(double));                           \
    T *k = (T *)malloc((size_t)(2 * C + 1) * sizeof(T));                                           \
    pd_status s = PD_OK;                                                                           \
    if (!st || !k) {                                                                               \
      s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[batch_norm] out of memory");                   \
      goto done;                                                                                   \
    }                                                                                              \
    if (train && (s = bn_stats_##SUF(b, x, st, st + C)) != PD_OK) goto done;                       \
    bn_coef_fwd_##SUF(C, st, rm, rv, sc, bi, smean, svar, k, train, mom, eps);                      \
    s = apply_##SUF(b, y, x, NULL, k, NULL, k + C);                                                \
  done:                                                                                            \
    free(st);                                                                                      \
    free(k);                                                                                       \
    return s;                                                                                      \
  }                                                                                                \
  /* dscale, dbias, the statistics' gradients and dx = k[c] dy + k[C + c] x + k[2C + c] from the    \
   * per-channel sums of dy (sdy) and dy (x - mean) (sdyx) over M values */                         \
  static void bn_coef_bwd_##SUF(int64_t C, double M, const T *sinv, const T *sc, const double *sdy, \
                                const double *sdyx, const double *mean, int global, const T *gm, const T *gi, \
                                T *dsc, T *dbi, T *dm, T *dv, T *k) {                               \
    for (int64_t c = 0; c < C; c++) {                                                              \
      const double inv = sinv[c], g = sc ? sc[c] : 1, sd = sdy[c], sx = sdyx[c] * inv;             \
      const double em = gm ? gm[c] : 0, ei = gi ? gi[c] : 0;                                       \
      dsc[c] = (T)sx;                                                                              \
      dbi[c] = (T)sd;                                                                              \
      dm[c] = (T)(global ? -g * inv * sd + em : 0);                                                \
      dv[c] = (T)(global ? -0.5 * inv * inv * (g * sx + inv * ei) : 0);                            \
      const double k1 = g * inv, k2 = global ? 0 : g * inv * sd / M - em / M,                      \
                   k3 = global ? 0 : g * inv * inv * sx / M + ei * inv * inv * inv / M;            \
      /* dx = k1 dy - k2 - k3 (x - mean) */                                                        \
      k[c] = (T)k1;                                                                                \
      k[C + c] = (T)(-k3);                                                                         \
      k[2 * C + c] = (T)(k3 * mean[c] - k2);                                                       \
    }                                                                                              \
  }                                                                                                 \
  static pd_status bn_bwd_##SUF(const bn_shape *b, const T *x, const T *sc, const T *smean, const T *sinv, \
                                const T *dy, T *dx, T *dsc, T *dbi, int global, const T *gm, const T *gi, \
                                T *dm, T *dv) {                                                    \
    const int64_t A = b->A, C = b->C, B = b->B;                                                    \
    const double M = (double)(A * B);                                                              \
    double *st = (double *)malloc((size_t)(3 * C + 1) * sizeof(double));                           \
    T *k = (T *)malloc((size_t)(3 * C + 1) * sizeof(T));                                           \
    pd_status s = PD_OK;                                                                           \
    if (!st || !k) {                                                                               \
      s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[batch_norm_grad] out of memory");              \
      goto done;                                                                                   \
    }                                                                                              \
    double *sdy = st, *sdyx = st + C, *mean = st + 2 * C;                                          \
    for (int64_t c = 0; c < C; c++) mean[c] = smean[c];                                            \
    if (B >= 128 && C >= pd_num_threads()) {                                                       \
      /* per channel, as the forward: sums, coefficients, then dx over the channel's planes while  \
       * they are in cache. Not for planes under 128 values: [16, 2048, 7, 7] took 1.14x the       \
       * two-phase path's time (its dx pass streams whole rows where this one hops between       \
       * 196-byte planes) */                                                                                \
      _Pragma("omp parallel for if (A * C * B > 32768)")                                           \
      for (int64_t c = 0; c < C; c++) {                                                            \
        chan_sums_##SUF(b, x, dy, smean[c], c, sdy + c, sdyx + c);                                 \
        T kc[3];                                                                                   \
        bn_coef_bwd_##SUF(1, M, sinv + c, sc ? sc + c : NULL, sdy + c, sdyx + c, mean + c, global, \
                          gm ? gm + c : NULL, gi ? gi + c : NULL, dsc + c, dbi + c, dm + c, dv + c, kc); \
        for (int64_t a = 0; a < A; a++) {                                                          \
          const int64_t o = (a * C + c) * B;                                                       \
          raxpy_##SUF(dx + o, dy + o, x + o, B, kc[0], kc[1], kc[2]);                              \
        }                                                                                          \
      }                                                                                            \
      goto done;                                                                                   \
    }                                                                                              \
    if (B >= BN_ROWS) {                                                                            \
      _Pragma("omp parallel for if (A * C * B > 32768)")                                           \
      for (int64_t c = 0; c < C; c++) chan_sums_##SUF(b, x, dy, smean[c], c, sdy + c, sdyx + c);   \
    } else if ((s = csum_##SUF(b, x, dy, mean, 2, sdyx, sdy)) != PD_OK) {                          \
      goto done;                                                                                   \
    }                                                                                              \
    bn_coef_bwd_##SUF(C, M, sinv, sc, sdy, sdyx, mean, global, gm, gi, dsc, dbi, dm, dv, k);        \
    s = apply_##SUF(b, dx, dy, x, k, k + C, k + 2 * C);                                            \
  done:                                                                                            \
    free(st);                                                                                      \
    free(k);                                                                                       \
    return s;                                                                                      \
  }                                                                                                \
  /* Row statistics in vector lanes (rsum/rdev; plain double loops here were serial adds: 0.6 ms  \
   * for [1024, 256]); the variance is taken around the rounded mean and corrected. */            \
  static void ln_fwd_##SUF(int64_t R, int64_t D, const T *x, const T *sc, const T *bi, T *y, T *mo, T *vo, \
                           double eps) {                                                           \
    _Pragma("omp parallel for if (R * D > 32768)")                                                \
    for (int64_t r = 0; r < R; r++) {                                                              \
      const T *restrict p = x + r * D;                                                             \
      T *restrict q = y + r * D;                                                                   \
      const double mean = rsum_##SUF(p, D) / (double)D;                                            \
      const T m = (T)mean;                                                                         \
      const double dm = mean - (double)m;                                                          \
      double var = rdev_##SUF(p, NULL, D, m) / (double)D - dm * dm;                                \
      if (var < 0) var = 0;                                                                        \
      const T inv = (T)(1.0 / sqrt(var + eps));                                                    \
      mo[r] = m;                                                                                   \
      vo[r] = (T)var;                                                                              \
      if (sc && bi)                                                                                \
        for (int64_t j = 0; j < D; j++) q[j] = (p[j] - m) * inv * sc[j] + bi[j];                   \
      else if (sc)                                                                                 \
        for (int64_t j = 0; j < D; j++) q[j] = (p[j] - m) * inv * sc[j];                           \
      else if (bi)                                                                                 \
        for (int64_t j = 0; j < D; j++) q[j] = (p[j] - m) * inv + bi[j];                           \
      else                                                                                         \
        for (int64_t j = 0; j < D; j++) q[j] = (p[j] - m) * inv;                                   \
    }                                                                                              \
  }                                                                                                \
  /* dx = inv (g - mean(g) - xh mean(g xh)) (+ the dmean / dvariance terms), g = dy * scale, per row \
   * in lanes; dscale / dbias as column sums over blocks of rows, folded in double in block order.  \
   * The blocks do not depend on the thread count (LN_BLOCKS of them, or 1 for small inputs), so    \
   * the sums have the same bits on one thread as on many (they were per-thread partial sums: a    \
   * thread governor window changed them). */                                                     \
  static pd_status ln_bwd_##SUF(int64_t R, int64_t D, const T *x, const T *sc, const T *mo, const T *vo, \
                                const T *dy, T *dx, T *dsc, T *dbi, double eps, const T *gm, const T *gv) { \
    const int64_t nb = R * D <= 32768 ? 1 : (R < LN_BLOCKS ? (R > 0 ? R : 1) : LN_BLOCKS);          \
    int nt = pd_num_threads();                                                                     \
    if (nb == 1 || nt < 1) nt = 1;                                                                 \
    if (nt > nb) nt = (int)nb;                                                                     \
    T *buf = (T *)pd_alloc(((size_t)nb * 2 + (size_t)nt) * (size_t)D * sizeof(T)); /* cached: no faults */ \
    if (!buf) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[layer_norm_grad] out of memory");  \
    _Pragma("omp parallel num_threads(nt) if (nt > 1)")                                            \
    {                                                                                              \
      T *restrict gs = buf + ((int64_t)nb * 2 + omp_get_thread_num()) * D;                         \
      _Pragma("omp for schedule(static)")                                                          \
      for (int64_t bk = 0; bk < nb; bk++) {                                                        \
        T *restrict ps = buf + bk * 2 * D, *restrict pb = ps + D;                                  \
        for (int64_t j = 0; j < D; j++) ps[j] = pb[j] = 0;                                         \
        const int64_t r1 = R * (bk + 1) / nb;                                                      \
        for (int64_t r = R * bk / nb; r < r1; r++) {                                               \
          const T *restrict p = x + r * D, *restrict d = dy + r * D;                               \
          T *restrict q = dx + r * D;                                                              \
          const T inv = (T)(1.0 / sqrt((double)vo[r] + eps)), mean = mo[r];                        \
          const T *g = d;                                                                          \
          if (sc) {                                                                                \
            for (int64_t j = 0; j < D; j++) gs[j] = d[j] * sc[j];                                  \
            g = gs;                                                                                \
          }                                                                                        \
          const double a = rsum_##SUF(g, D) / (double)D;                                           \
          const double bsum = rdev_##SUF(p, g, D, mean) * (double)inv / (double)D;                 \
          const double ii = (double)inv, mm = (double)mean;                                        \
          const double ex = gm ? (double)gm[r] / (double)D : 0, ev = gv ? 2.0 * (double)gv[r] / (double)D : 0; \
          /* dx = ii g + (ev - ii^2 bsum) p + (ii^2 bsum mean - ii a + ex - ev mean) */            \
          raxpy_##SUF(q, g, p, D, inv, (T)(ev - ii * ii * bsum), (T)(ii * ii * bsum * mm - ii * a + ex - ev * mm)); \
          for (int64_t j = 0; j < D; j++) {                                                        \
            ps[j] += d[j] * ((p[j] - mean) * inv);                                                 \
            pb[j] += d[j];                                                                         \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (int64_t j = 0; j < D; j++) {                                                              \
      double s1 = 0, s2 = 0;                                                                       \
      for (int64_t bk = 0; bk < nb; bk++) {                                                        \
        s1 += buf[bk * 2 * D + j];                                                                 \
        s2 += buf[bk * 2 * D + D + j];                                                             \
      }                                                                                            \
      if (dsc) dsc[j] = (T)s1;                                                                     \
      if (dbi) dbi[j] = (T)s2;                                                                     \
    }                                                                                              \
    pd_free(buf);                                                                                     \
    return PD_OK;                                                                                  \
  }
DEF_NORM(f32, float)
DEF_NORM(f64, double)

/* ---- batch_norm on bfloat16 x / y / dy / dx with float32 scale, bias and statistics (auto_cast's
 * batch_norm: float32 statistics and sums, one rounding per output). Planes of B >= BN_ROWS values
 * (NCHW) are summed straight from bf16 in the float32 row helpers' lanes, blocks and order, so
 * statistics, dscale and dbias equal the float32 kernel's on the widened input and the outputs
 * are its outputs rounded; the normalisation widens, applies and rounds in one pass (half the
 * float32 kernel's memory traffic). Short planes (NHWC, 2-D x, tiny
 * maps) widen whole tensors and run the float32 kernel. */
/* 8 bf16 values widened to float lanes */
typedef uint16_t v8h_bf16 __attribute__((vector_size(16)));
typedef uint32_t v8u_bf16 __attribute__((vector_size(32)));
static inline v_f32 wld_bf16(const uint16_t *p) {
  v8h_bf16 h;
  memcpy(&h, p, sizeof(h));
  const v8u_bf16 u = __builtin_convertvector(h, v8u_bf16) << 16;
  v_f32 f;
  memcpy(&f, &u, sizeof(f));
  return f;
}
/* rred_f32's sums read straight from bf16 (same lanes, blocks and order, so the same values as
 * rred_f32 on the widened input): what 0: sum p; 1: sum (p - m)^2; 2: sum q (p - m) into *tot
 * and sum q into *tot2 (one pass over both); pf (and pfq for q) as rred's: the next channel's
 * planes, prefetched one line per 32 values ([16, 256, 56, 56] forward and backward 1.6x faster) */
static void bsum_bf16(const uint16_t *restrict p, const uint16_t *restrict q, int64_t n, float m, int what,
                      double *tot, double *tot2, const uint16_t *pf, const uint16_t *pfq) {
  const int L = VL_f32;
  const v_f32 vm = (v_f32){0} + m;
  double t1 = 0, t2 = 0;
  for (int64_t b0 = 0; b0 < n; b0 += 4096) {
    const int64_t e = b0 + 4096 < n ? b0 + 4096 : n;
    v_f32 a0 = {0}, a1 = {0}, c0 = {0}, c1 = {0};
    float r = 0, r2 = 0;
    int64_t i = b0;
    if (what == 0) {
      for (; i + 2 * L <= e; i += 2 * L) {
        if (pf && !(i & 31)) __builtin_prefetch(pf + i, 0, 3);
        a0 += wld_bf16(p + i);
        a1 += wld_bf16(p + i + L);
      }
      for (; i < e; i++) r += pd_bf16_bits_to_f32(p[i]);
    } else if (what == 1) {
      for (; i + 2 * L <= e; i += 2 * L) {
        const v_f32 d0 = wld_bf16(p + i) - vm, d1 = wld_bf16(p + i + L) - vm;
        a0 += d0 * d0;
        a1 += d1 * d1;
      }
      for (; i < e; i++) r += (pd_bf16_bits_to_f32(p[i]) - m) * (pd_bf16_bits_to_f32(p[i]) - m);
    } else {
      for (; i + 2 * L <= e; i += 2 * L) {
        if (pf && !(i & 31)) {
          __builtin_prefetch(pf + i, 0, 3);
          __builtin_prefetch(pfq + i, 0, 3);
        }
        const v_f32 g0 = wld_bf16(q + i), g1 = wld_bf16(q + i + L);
        a0 += g0 * (wld_bf16(p + i) - vm);
        a1 += g1 * (wld_bf16(p + i + L) - vm);
        c0 += g0;
        c1 += g1;
      }
      for (; i < e; i++) {
        r += pd_bf16_bits_to_f32(q[i]) * (pd_bf16_bits_to_f32(p[i]) - m);
        r2 += pd_bf16_bits_to_f32(q[i]);
      }
    }
    a0 += a1;
    c0 += c1;
    for (int j = 0; j < L; j++) {
      r += a0[j];
      r2 += c0[j];
    }
    t1 += r;
    t2 += r2;
  }
  *tot = t1;
  if (tot2) *tot2 = t2;
}
/* one plane: y = c1 u + c2 v + c3 (v may be NULL), widened, applied and rounded in one pass */
static void plane_bf16(uint16_t *restrict y, const uint16_t *restrict u, const uint16_t *restrict v, int64_t B,
                       float c1, float c2, float c3) {
  if (v) {
    for (int64_t i = 0; i < B; i++)
      y[i] = pd_f32_to_bf16_bits(c1 * pd_bf16_bits_to_f32(u[i]) + c2 * pd_bf16_bits_to_f32(v[i]) + c3);
  } else {
    for (int64_t i = 0; i < B; i++) y[i] = pd_f32_to_bf16_bits(c1 * pd_bf16_bits_to_f32(u[i]) + c3);
  }
}
static pd_status bn_fwd_bf16(const bn_shape *b, const uint16_t *x, float *rm, float *rv, const float *sc,
                             const float *bi, uint16_t *y, float *smean, float *svar, int train, double mom,
                             double eps) {
  const int64_t A = b->A, C = b->C, B = b->B, n = A * C * B; /* B >= BN_ROWS (k_bn) */
  /* per channel (threads take channels): statistics, coefficients, then the channel's planes
   * while they are still in cache */
  const double M = (double)(A * B);
#pragma omp parallel for if (n > 32768)
  for (int64_t c = 0; c < C; c++) {
    double st[2] = {0, 0};
    if (train) {
      double s1 = 0, s2 = 0;
      for (int64_t a = 0; a < A; a++) {
        double t;
        const uint16_t *p = x + (a * C + c) * B;
        bsum_bf16(p, NULL, B, 0, 0, &t, NULL, c + 1 < C ? p + B : NULL, NULL);
        s1 += t;
      }
      const double m = M > 0 ? s1 / M : 0;
      for (int64_t a = 0; a < A; a++) {
        double t;
        bsum_bf16(x + (a * C + c) * B, NULL, B, (float)m, 1, &t, NULL, NULL, NULL);
        s2 += t;
      }
      st[0] = m;
      st[1] = M > 0 ? s2 / M : 0;
    }
    float k[2];
    bn_coef_fwd_f32(1, st, rm + c, rv + c, sc ? sc + c : NULL, bi ? bi + c : NULL, smean + c, svar + c, k, train,
                    mom, eps);
    for (int64_t a = 0; a < A; a++) plane_bf16(y + (a * C + c) * B, x + (a * C + c) * B, NULL, B, k[0], 0, k[1]);
  }
  return PD_OK;
}

static pd_status bn_bwd_bf16(const bn_shape *b, const uint16_t *x, const float *sc, const float *smean,
                             const float *sinv, const uint16_t *dy, uint16_t *dx, float *dsc, float *dbi, int global,
                             const float *gm, const float *gi, float *dm, float *dv) {
  const int64_t A = b->A, C = b->C, B = b->B, n = A * C * B; /* B >= BN_ROWS (k_bn_grad) */
  const double M = (double)(A * B);
#pragma omp parallel for if (n > 32768)
  for (int64_t c = 0; c < C; c++) {
    double sdy = 0, sdyx = 0, mean = smean[c];
    for (int64_t a = 0; a < A; a++) {
      const int64_t o = (a * C + c) * B;
      double t1, t2;
      bsum_bf16(x + o, dy + o, B, smean[c], 2, &t2, &t1, c + 1 < C ? x + o + B : NULL, dy + o + B);
      sdy += t1;
      sdyx += t2;
    }
    float k[3];
    bn_coef_bwd_f32(1, M, sinv + c, sc ? sc + c : NULL, &sdy, &sdyx, &mean, global, gm ? gm + c : NULL,
                    gi ? gi + c : NULL, dsc + c, dbi + c, dm + c, dv + c, k);
    for (int64_t a = 0; a < A; a++) {
      const int64_t o = (a * C + c) * B;
      plane_bf16(dx + o, dy + o, x + o, B, k[0], k[1], k[2]);
    }
  }
  return PD_OK;
}

#define D(t) ((t) ? pd_tensor_data(t) : NULL)
static pd_status contig(pd_tensor *t, pd_tensor **c) {
  *c = NULL;
  return t ? pd_tensor_contiguous(t, c) : PD_OK;
}

/* bfloat16 with short planes (NHWC, 2-D x, tiny maps): the float32 kernel on float32 copies of the
 * bf16 tensors, its outputs rounded once into the bf16 ones (pd_tensor_cast / pd_tensor_copy_) */
static pd_status bn_fwd_bf16_short(const bn_shape *b, pd_tensor *x, float *rm, float *rv, const float *sc,
                                   const float *bi, pd_tensor *y, float *smean, float *svar, int train, double mom,
                                   double eps) {
  pd_tensor *xf = NULL, *yf = NULL;
  pd_status s = pd_tensor_cast(x, PD_FLOAT32, &xf);
  if (s == PD_OK) s = pd_tensor_empty(PD_FLOAT32, y->ndim, y->shape, &yf);
  if (s == PD_OK) s = bn_fwd_f32(b, D(xf), rm, rv, sc, bi, D(yf), smean, svar, train, mom, eps);
  if (s == PD_OK) s = pd_tensor_copy_(y, yf);
  if (xf) pd_tensor_release(xf);
  if (yf) pd_tensor_release(yf);
  return s;
}
static pd_status bn_bwd_bf16_short(const bn_shape *b, pd_tensor *x, const float *sc, const float *smean,
                                   const float *sinv, pd_tensor *dy, pd_tensor *dx, float *dsc, float *dbi, int global,
                                   const float *gm, const float *gi, float *dm, float *dv) {
  pd_tensor *xf = NULL, *df = NULL, *gf = NULL;
  pd_status s = pd_tensor_cast(x, PD_FLOAT32, &xf);
  if (s == PD_OK) s = pd_tensor_cast(dy, PD_FLOAT32, &df);
  if (s == PD_OK) s = pd_tensor_empty(PD_FLOAT32, dx->ndim, dx->shape, &gf);
  if (s == PD_OK) s = bn_bwd_f32(b, D(xf), sc, smean, sinv, D(df), D(gf), dsc, dbi, global, gm, gi, dm, dv);
  if (s == PD_OK) s = pd_tensor_copy_(dx, gf);
  if (xf) pd_tensor_release(xf);
  if (df) pd_tensor_release(df);
  if (gf) pd_tensor_release(gf);
  return s;
}

static pd_status k_bn(const void *args, pd_tensor **out) {
  const pd_batch_norm_args *a = (const pd_batch_norm_args *)args;
  bn_shape b;
  PD_TRY(bn_geom("batch_norm", a->x, a->data_layout, &b));
  if (!pd_tensor_is_contiguous(a->mean) || !pd_tensor_is_contiguous(a->variance))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[batch_norm] running mean/variance must be contiguous");
  pd_tensor *xc, *sc, *bc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  contig(a->scale, &sc);
  contig(a->bias, &bc);
  int train = !a->is_test && !a->use_global_stats;
  pd_status st;
  if (a->x->dtype == PD_BFLOAT16 && b.B < BN_ROWS)
    st = bn_fwd_bf16_short(&b, xc, D(a->mean), D(a->variance), D(sc), D(bc), out[0], D(out[1]), D(out[2]), train,
                           a->momentum, a->epsilon);
  else if (a->x->dtype == PD_BFLOAT16)
    st = bn_fwd_bf16(&b, D(xc), D(a->mean), D(a->variance), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), train,
                     a->momentum, a->epsilon);
  else if (a->x->dtype == PD_FLOAT32)
    st = bn_fwd_f32(&b, D(xc), D(a->mean), D(a->variance), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), train,
                    a->momentum, a->epsilon);
  else
    st = bn_fwd_f64(&b, D(xc), D(a->mean), D(a->variance), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), train,
                    a->momentum, a->epsilon);
  if (train && st == PD_OK) {
    pd_tensor_bump_version(a->mean);
    pd_tensor_bump_version(a->variance);
  }
  pd_tensor_release(xc);
  if (sc) pd_tensor_release(sc);
  if (bc) pd_tensor_release(bc);
  return st;
}

static pd_status k_bn_grad(const void *args, pd_tensor **out) {
  const pd_batch_norm_grad_args *a = (const pd_batch_norm_grad_args *)args;
  bn_shape b;
  PD_TRY(bn_geom("batch_norm_grad", a->x, a->data_layout, &b));
  pd_tensor *xc, *sc, *dc, *mc, *vc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  contig(a->scale, &sc);
  pd_tensor_contiguous(a->dout, &dc);
  pd_tensor_contiguous(a->saved_mean, &mc);
  pd_tensor_contiguous(a->saved_invstd, &vc);
  pd_tensor *gmc, *gic;
  contig(a->dsaved_mean, &gmc);
  contig(a->dsaved_invstd, &gic);
  pd_status st;
  if (a->x->dtype == PD_BFLOAT16 && b.B < BN_ROWS)
    st = bn_bwd_bf16_short(&b, xc, D(sc), D(mc), D(vc), dc, out[0], D(out[1]), D(out[2]), a->use_global_stats,
                           D(gmc), D(gic), D(out[3]), D(out[4]));
  else if (a->x->dtype == PD_BFLOAT16)
    st = bn_bwd_bf16(&b, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->use_global_stats,
                     D(gmc), D(gic), D(out[3]), D(out[4]));
  else if (a->x->dtype == PD_FLOAT32)
    st = bn_bwd_f32(&b, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->use_global_stats,
                    D(gmc), D(gic), D(out[3]), D(out[4]));
  else
    st = bn_bwd_f64(&b, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->use_global_stats,
                    D(gmc), D(gic), D(out[3]), D(out[4]));
  pd_tensor_release(xc);
  pd_tensor_release(dc);
  pd_tensor_release(mc);
  pd_tensor_release(vc);
  if (sc) pd_tensor_release(sc);
  if (gmc) pd_tensor_release(gmc);
  if (gic) pd_tensor_release(gic);
  return st;
}

static void ln_rows(const pd_tensor *x, int64_t axis, int64_t *R, int64_t *Dd) {
  *R = 1;
  *Dd = 1;
  for (int i = 0; i < x->ndim; i++) *(i < axis ? R : Dd) *= x->shape[i];
}

static pd_status k_ln(const void *args, pd_tensor **out) {
  const pd_layer_norm_args *a = (const pd_layer_norm_args *)args;
  int64_t R, Dd;
  ln_rows(a->x, a->begin_norm_axis, &R, &Dd);
  pd_tensor *xc, *sc, *bc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  contig(a->scale, &sc);
  contig(a->bias, &bc);
  if (a->x->dtype == PD_FLOAT32)
    ln_fwd_f32(R, Dd, D(xc), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), a->epsilon);
  else
    ln_fwd_f64(R, Dd, D(xc), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), a->epsilon);
  pd_tensor_release(xc);
  if (sc) pd_tensor_release(sc);
  if (bc) pd_tensor_release(bc);
  return PD_OK;
}

static pd_status k_ln_grad(const void *args, pd_tensor **out) {
  const pd_layer_norm_grad_args *a = (const pd_layer_norm_grad_args *)args;
  int64_t R, Dd;
  ln_rows(a->x, a->begin_norm_axis, &R, &Dd);
  pd_tensor *xc, *sc, *dc, *mc, *vc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  contig(a->scale, &sc);
  pd_tensor_contiguous(a->dout, &dc);
  pd_tensor_contiguous(a->mean, &mc);
  pd_tensor_contiguous(a->variance, &vc);
  pd_tensor *gmc, *gvc;
  contig(a->dmean, &gmc);
  contig(a->dvariance, &gvc);
  pd_status st;
  if (a->x->dtype == PD_FLOAT32)
    st = ln_bwd_f32(R, Dd, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->epsilon, D(gmc), D(gvc));
  else
    st = ln_bwd_f64(R, Dd, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->epsilon, D(gmc), D(gvc));
  pd_tensor_release(xc);
  pd_tensor_release(dc);
  pd_tensor_release(mc);
  pd_tensor_release(vc);
  if (sc) pd_tensor_release(sc);
  if (gmc) pd_tensor_release(gmc);
  if (gvc) pd_tensor_release(gvc);
  return st;
}

#define DEF_BN_ENTRY(SUF)                                                                           \
  pd_status pd_kernel_batch_norm_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                                   \
    return k_bn(args, out);                                                                        \
  }                                                                                                \
  pd_status pd_kernel_batch_norm_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                   \
    return k_bn_grad(args, out);                                                                   \
  }
#define DEF_ENTRY(SUF)                                                                              \
  DEF_BN_ENTRY(SUF)                                                                                \
  pd_status pd_kernel_layer_norm_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                                   \
    return k_ln(args, out);                                                                        \
  }                                                                                                \
  pd_status pd_kernel_layer_norm_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                   \
    return k_ln_grad(args, out);                                                                   \
  }
DEF_ENTRY(f32)
DEF_ENTRY(f64)
DEF_BN_ENTRY(bf16)
