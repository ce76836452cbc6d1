/* Normalization kernels: batch_norm (training: batch statistics + in-place running-stat update
 * with momentum; eval/use_global_stats: running statistics), layer_norm, and their fused
 * gradients. Statistics accumulate in double. NCHW runs channel-parallel over [N, C, S] planes;
 * NHWC over [rows, C]. Group/instance norm are layer_norm on a reshaped input (Python). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"

static int is_nhwc(const char *f) { return f && (!strcmp(f, "NHWC") || !strcmp(f, "NLC") || !strcmp(f, "NDHWC")); }

/* x as [N, C, S] (NCHW) or [N*S, C] (NHWC: N' = rows, S = 1, channel stride 1) */
typedef struct {
  int64_t N, C, S, nstride, cstride, sstride;
} bn_shape;
static pd_status bn_geom(const char *op, const pd_tensor *x, const char *fmt, bn_shape *b) {
  if (x->ndim < 2) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x with >= 2 dims, received %d", op, x->ndim);
  int64_t sp = 1;
  if (is_nhwc(fmt) && x->ndim > 2) {
    for (int i = 1; i < x->ndim - 1; i++) sp *= x->shape[i];
    b->C = x->shape[x->ndim - 1];
    b->N = x->shape[0] * sp;
    b->S = 1;
    b->nstride = b->C;
    b->cstride = 1;
  } else {
    for (int i = 2; i < x->ndim; i++) sp *= x->shape[i];
    b->C = x->shape[1];
    b->N = x->shape[0];
    b->S = sp;
    b->nstride = b->C * sp;
    b->cstride = sp;
  }
  b->sstride = 1;
  return PD_OK;
}

#define DEF_NORM(SUF, T)                                                                            \
  static void bn_fwd_##SUF(const bn_shape *b, const T *x, T *rm, T *rv, const T *sc, const T *bi, T *y, \
                           T *smean, T *svar, int train, double mom, double eps) {                 \
    _Pragma("omp parallel for if (b->N * b->C * b->S > 32768)")                                   \
    for (int64_t c = 0; c < b->C; c++) {                                                           \
      double mean, var;                                                                            \
      if (train) {                                                                                 \
        double s = 0, s2 = 0;                                                                      \
        for (int64_t n = 0; n < b->N; n++) {                                                       \
          const T *p = x + n * b->nstride + c * b->cstride;                                        \
          for (int64_t i = 0; i < b->S; i++) s += p[i];                                            \
        }                                                                                          \
        const double M = (double)(b->N * b->S);                                                    \
        mean = M > 0 ? s / M : 0;                                                                  \
        for (int64_t n = 0; n < b->N; n++) {                                                       \
          const T *p = x + n * b->nstride + c * b->cstride;                                        \
          for (int64_t i = 0; i < b->S; i++) {                                                     \
            double d = p[i] - mean;                                                                \
            s2 += d * d;                                                                           \
          }                                                                                        \
        }                                                                                          \
        var = M > 0 ? s2 / M : 0;                                                                  \
        rm[c] = (T)(mom * rm[c] + (1 - mom) * mean);                                               \
        rv[c] = (T)(mom * rv[c] + (1 - mom) * var);                                                \
      } else {                                                                                     \
        mean = rm[c];                                                                              \
        var = rv[c];                                                                               \
      }                                                                                            \
      const double inv = 1.0 / sqrt(var + eps);                                                    \
      smean[c] = (T)mean;                                                                          \
      svar[c] = (T)inv;                                                                            \
      const T a = (T)((sc ? sc[c] : 1) * inv), bb = (T)((bi ? bi[c] : 0) - mean * (sc ? sc[c] : 1) * inv); \
      for (int64_t n = 0; n < b->N; n++) {                                                         \
        const T *p = x + n * b->nstride + c * b->cstride;                                          \
        T *q = y + n * b->nstride + c * b->cstride;                                                \
        for (int64_t i = 0; i < b->S; i++) q[i] = p[i] * a + bb;                                   \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static void bn_bwd_##SUF(const bn_shape *b, const T *x, const T *sc, const T *smean, const T *sinv, \
                           const T *dy, T *dx, T *dsc, T *dbi, int global, const T *gm, const T *gi, \
                           T *dm, T *dv) {                                                         \
    _Pragma("omp parallel for if (b->N * b->C * b->S > 32768)")                                   \
    for (int64_t c = 0; c < b->C; c++) {                                                           \
      const double mean = smean[c], inv = sinv[c], g = sc ? sc[c] : 1;                             \
      double sdy = 0, sdyx = 0;                                                                    \
      for (int64_t n = 0; n < b->N; n++) {                                                         \
        const T *p = x + n * b->nstride + c * b->cstride, *d = dy + n * b->nstride + c * b->cstride; \
        for (int64_t i = 0; i < b->S; i++) {                                                       \
          sdy += d[i];                                                                             \
          sdyx += d[i] * (p[i] - mean);                                                            \
        }                                                                                          \
      }                                                                                            \
      sdyx *= inv;                                                                                 \
      dsc[c] = (T)sdyx;                                                                            \
      dbi[c] = (T)sdy;                                                                             \
      const double M = (double)(b->N * b->S);                                                      \
      const double em = gm ? gm[c] : 0, ei = gi ? gi[c] : 0;                                       \
      dm[c] = (T)(global ? -g * inv * sdy + em : 0);                                               \
      dv[c] = (T)(global ? -0.5 * inv * inv * (g * sdyx + inv * ei) : 0);                         \
      const T k1 = (T)(g * inv), k2 = (T)(global ? 0 : g * inv * sdy / M - em / M),                \
              k3 = (T)(global ? 0 : g * inv * inv * sdyx / M + ei * inv * inv * inv / M);          \
      for (int64_t n = 0; n < b->N; n++) {                                                         \
        const T *p = x + n * b->nstride + c * b->cstride, *d = dy + n * b->nstride + c * b->cstride; \
        T *q = dx + n * b->nstride + c * b->cstride;                                               \
        for (int64_t i = 0; i < b->S; i++) q[i] = k1 * d[i] - k2 - k3 * (p[i] - (T)mean);          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static void ln_fwd_##SUF(int64_t R, int64_t D, const T *x, const T *sc, const T *bi, T *y, T *mo, T *vo, \
                           double eps) {                                                           \
    _Pragma("omp parallel for if (R * D > 32768)")                                                \
    for (int64_t r = 0; r < R; r++) {                                                              \
      const T *p = x + r * D;                                                                      \
      T *q = y + r * D;                                                                            \
      double s = 0, s2 = 0;                                                                        \
      for (int64_t j = 0; j < D; j++) s += p[j];                                                   \
      const double mean = s / (double)D;                                                           \
      for (int64_t j = 0; j < D; j++) {                                                            \
        double d = p[j] - mean;                                                                    \
        s2 += d * d;                                                                               \
      }                                                                                            \
      const double var = s2 / (double)D;                                                           \
      const T inv = (T)(1.0 / sqrt(var + eps)), m = (T)mean;                                       \
      mo[r] = m;                                                                                   \
      vo[r] = (T)var;                                                                              \
      for (int64_t j = 0; j < D; j++)                                                              \
        q[j] = (p[j] - m) * inv * (sc ? sc[j] : (T)1) + (bi ? bi[j] : (T)0);                       \
    }                                                                                              \
  }                                                                                                \
  static void ln_bwd_##SUF(int64_t R, int64_t D, const T *x, const T *sc, const T *mo, const T *vo,  \
                           const T *dy, T *dx, T *dsc, T *dbi, double eps, const T *gm, const T *gv) { \
    _Pragma("omp parallel for if (R * D > 32768)")                                                \
    for (int64_t r = 0; r < R; r++) {                                                              \
      const T *p = x + r * D, *d = dy + r * D;                                                     \
      T *q = dx + r * D;                                                                           \
      const double inv = 1.0 / sqrt((double)vo[r] + eps), mean = mo[r];                            \
      double a = 0, bsum = 0;                                                                      \
      for (int64_t j = 0; j < D; j++) {                                                            \
        double g = d[j] * (sc ? (double)sc[j] : 1.0);                                              \
        a += g;                                                                                    \
        bsum += g * (p[j] - mean) * inv;                                                           \
      }                                                                                            \
      a /= (double)D;                                                                              \
      bsum /= (double)D;                                                                           \
      for (int64_t j = 0; j < D; j++) {                                                            \
        double xh = (p[j] - mean) * inv, g = d[j] * (sc ? (double)sc[j] : 1.0);                    \
        q[j] = (T)(inv * (g - a - xh * bsum) + ((gm ? (double)gm[r] : 0) +                       \
                   (gv ? 2.0 * (double)gv[r] * (p[j] - mean) : 0)) / (double)D);                   \
      }                                                                                            \
    }                                                                                              \
    for (int64_t j = 0; j < D; j++) dsc[j] = dbi[j] = 0;                                           \
    for (int64_t r = 0; r < R; r++) {                                                              \
      const T *p = x + r * D, *d = dy + r * D;                                                     \
      const T inv = (T)(1.0 / sqrt((double)vo[r] + eps)), mean = mo[r];                            \
      for (int64_t j = 0; j < D; j++) {                                                            \
        dsc[j] += d[j] * (p[j] - mean) * inv;                                                      \
        dbi[j] += d[j];                                                                            \
      }                                                                                            \
    }                                                                                              \
  }
DEF_NORM(f32, float)
DEF_NORM(f64, double)

#define D(t) ((t) ? pd_tensor_data(t) : NULL)
static pd_status contig(pd_tensor *t, pd_tensor **c) {
  *c = NULL;
  return t ? pd_tensor_contiguous(t, c) : PD_OK;
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
  if (a->x->dtype == PD_FLOAT32)
    bn_fwd_f32(&b, D(xc), D(a->mean), D(a->variance), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), train,
               a->momentum, a->epsilon);
  else
    bn_fwd_f64(&b, D(xc), D(a->mean), D(a->variance), D(sc), D(bc), D(out[0]), D(out[1]), D(out[2]), train,
               a->momentum, a->epsilon);
  if (train) {
    pd_tensor_bump_version(a->mean);
    pd_tensor_bump_version(a->variance);
  }
  pd_tensor_release(xc);
  if (sc) pd_tensor_release(sc);
  if (bc) pd_tensor_release(bc);
  return PD_OK;
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
  if (a->x->dtype == PD_FLOAT32)
    bn_bwd_f32(&b, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->use_global_stats,
               D(gmc), D(gic), D(out[3]), D(out[4]));
  else
    bn_bwd_f64(&b, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->use_global_stats,
               D(gmc), D(gic), D(out[3]), D(out[4]));
  pd_tensor_release(xc);
  pd_tensor_release(dc);
  pd_tensor_release(mc);
  pd_tensor_release(vc);
  if (sc) pd_tensor_release(sc);
  if (gmc) pd_tensor_release(gmc);
  if (gic) pd_tensor_release(gic);
  return PD_OK;
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
  if (a->x->dtype == PD_FLOAT32)
    ln_bwd_f32(R, Dd, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->epsilon, D(gmc), D(gvc));
  else
    ln_bwd_f64(R, Dd, D(xc), D(sc), D(mc), D(vc), D(dc), D(out[0]), D(out[1]), D(out[2]), a->epsilon, D(gmc), D(gvc));
  pd_tensor_release(xc);
  pd_tensor_release(dc);
  pd_tensor_release(mc);
  pd_tensor_release(vc);
  if (sc) pd_tensor_release(sc);
  if (gmc) pd_tensor_release(gmc);
  if (gvc) pd_tensor_release(gvc);
  return PD_OK;
}

#define DEF_ENTRY(SUF)                                                                              \
  pd_status pd_kernel_batch_norm_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                                   \
    return k_bn(args, out);                                                                        \
  }                                                                                                \
  pd_status pd_kernel_batch_norm_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                   \
    return k_bn_grad(args, out);                                                                   \
  }                                                                                                \
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
