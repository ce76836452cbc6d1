/* Deformable convolution (ops/vision.yaml deformable_conv / deformable_conv_grad; DCN v1 without
 * mask, v2 with mask): per image, a bilinear im2col at the offset positions (corners outside
 * the input read 0, points outside (-1, H) x (-1, W) give 0), scaled by the mask, then one GEMM
 * per group. The backward gives d input (scatter of the bilinear taps, channels in parallel),
 * d offset / d mask (per deformable group and kernel tap, in parallel) and d filter (GEMM). */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vision_util.h"

typedef struct {
  int64_t N, C, H, W, M, kh, kw, K, Ho, Wo, L, dg, G, Cg, Mg;
  int64_t sh, sw, ph, pw, dh, dw;
} dcn_geom;

static void dcn_setup(const pd_tensor *x, const pd_tensor *filter, pd_int_array s, pd_int_array p, pd_int_array d,
                      int64_t dg, int64_t groups, dcn_geom *g) {
  g->N = x->shape[0];
  g->C = x->shape[1];
  g->H = x->shape[2];
  g->W = x->shape[3];
  g->M = filter->shape[0];
  g->kh = filter->shape[2];
  g->kw = filter->shape[3];
  g->K = g->kh * g->kw;
  g->sh = s.data[0];
  g->sw = s.data[1];
  g->ph = p.data[0];
  g->pw = p.data[1];
  g->dh = d.data[0];
  g->dw = d.data[1];
  g->Ho = (g->H + 2 * g->ph - (g->dh * (g->kh - 1) + 1)) / g->sh + 1;
  g->Wo = (g->W + 2 * g->pw - (g->dw * (g->kw - 1) + 1)) / g->sw + 1;
  g->L = g->Ho * g->Wo;
  g->dg = dg;
  g->G = groups;
  g->Cg = g->C / groups;
  g->Mg = g->M / groups;
}

/* Sample position of tap k at output l for deformable group gd (offset plane of image n). */
#define DCN_POS(g, off, gd, k, l, h, w)                                                             \
  do {                                                                                              \
    const int64_t ho_ = (l) / (g)->Wo, wo_ = (l) % (g)->Wo, i_ = (k) / (g)->kw, j_ = (k) % (g)->kw; \
    h = (double)(ho_ * (g)->sh - (g)->ph + i_ * (g)->dh) +                                          \
        (double)(off)[((gd) * 2 * (g)->K + 2 * (k)) * (g)->L + (l)];                                \
    w = (double)(wo_ * (g)->sw - (g)->pw + j_ * (g)->dw) +                                          \
        (double)(off)[((gd) * 2 * (g)->K + 2 * (k) + 1) * (g)->L + (l)];                            \
  } while (0)

static void gemm_f32(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                     int64_t ldb, float beta, float *C, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K,
              1.0f, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}
static void gemm_f64(int ta, int tb, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, const double *B,
                     int64_t ldb, double beta, double *C, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K,
              1.0, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

#define DEF_DCN(SUF, T)                                                                                    \
  /* Bilinear value at (h, w) of plane img; *dh / *dw (if non-NULL) get its derivatives. */             \
  static double bil_##SUF(const T *img, int64_t H, int64_t W, double h, double w, double *dh, double *dw) { \
    if (dh) *dh = *dw = 0;                                                                              \
    if (!(h > -1.0 && w > -1.0 && h < (double)H && w < (double)W)) return 0.0;                          \
    const double fh = floor(h), fw = floor(w);                                                          \
    const int64_t h0 = (int64_t)fh, w0 = (int64_t)fw;                                                   \
    const double lh = h - fh, lw = w - fw;                                                              \
    double v[4] = {0, 0, 0, 0};                                                                         \
    if (h0 >= 0 && w0 >= 0) v[0] = (double)img[h0 * W + w0];                                           \
    if (h0 >= 0 && w0 + 1 < W) v[1] = (double)img[h0 * W + w0 + 1];                                     \
    if (h0 + 1 < H && w0 >= 0) v[2] = (double)img[(h0 + 1) * W + w0];                                   \
    if (h0 + 1 < H && w0 + 1 < W) v[3] = (double)img[(h0 + 1) * W + w0 + 1];                            \
    if (dh) {                                                                                           \
      *dh = -(1 - lw) * v[0] - lw * v[1] + (1 - lw) * v[2] + lw * v[3];                                 \
      *dw = -(1 - lh) * v[0] + (1 - lh) * v[1] - lh * v[2] + lh * v[3];                                 \
    }                                                                                                   \
    return (1 - lh) * (1 - lw) * v[0] + (1 - lh) * lw * v[1] + lh * (1 - lw) * v[2] + lh * lw * v[3];  \
  }                                                                                                     \
  /* Adds g times the bilinear taps at (h, w) into plane img. */                                        \
  static void bil_add_##SUF(T *img, int64_t H, int64_t W, double h, double w, double g) {              \
    if (!(h > -1.0 && w > -1.0 && h < (double)H && w < (double)W)) return;                              \
    const double fh = floor(h), fw = floor(w);                                                          \
    const int64_t h0 = (int64_t)fh, w0 = (int64_t)fw;                                                   \
    const double lh = h - fh, lw = w - fw;                                                              \
    if (h0 >= 0 && w0 >= 0) img[h0 * W + w0] += (T)(g * (1 - lh) * (1 - lw));                          \
    if (h0 >= 0 && w0 + 1 < W) img[h0 * W + w0 + 1] += (T)(g * (1 - lh) * lw);                         \
    if (h0 + 1 < H && w0 >= 0) img[(h0 + 1) * W + w0] += (T)(g * lh * (1 - lw));                        \
    if (h0 + 1 < H && w0 + 1 < W) img[(h0 + 1) * W + w0 + 1] += (T)(g * lh * lw);                       \
  }                                                                                                     \
  /* col[(c * K + k) * L + l] = x_c(pos) * mask for image n */                                          \
  static void im2col_##SUF(const dcn_geom *g, const T *x, const T *off, const T *mask, T *col) {       \
    const int64_t cpd = g->C / g->dg;                                                                   \
    _Pragma("omp parallel for if (g->C * g->K * g->L > 32768)")                                         \
    for (int64_t c = 0; c < g->C; c++) {                                                                \
      const int64_t gd = c / cpd;                                                                       \
      const T *img = x + c * g->H * g->W;                                                               \
      for (int64_t k = 0; k < g->K; k++) {                                                              \
        T *cp = col + (c * g->K + k) * g->L;                                                            \
        for (int64_t l = 0; l < g->L; l++) {                                                            \
          double h, w;                                                                                  \
          DCN_POS(g, off, gd, k, l, h, w);                                                              \
          const double m = mask ? (double)mask[(gd * g->K + k) * g->L + l] : 1.0;                       \
          cp[l] = (T)(bil_##SUF(img, g->H, g->W, h, w, NULL, NULL) * m);                                \
        }                                                                                               \
      }                                                                                                 \
    }                                                                                                   \
  }                                                                                                     \
  pd_status pd_kernel_deformable_conv_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    const pd_deformable_conv_args *a = (const pd_deformable_conv_args *)args;                           \
    dcn_geom g;                                                                                         \
    dcn_setup(a->x, a->filter, a->strides, a->paddings, a->dilations, a->deformable_groups, a->groups, &g); \
    pd_tensor *t[4] = {NULL, NULL, NULL, NULL};                                                         \
    pd_tensor *in[4] = {a->x, a->offset, a->filter, a->mask};                                           \
    pd_status st = PD_OK;                                                                               \
    for (int i = 0; i < 4 && st == PD_OK; i++)                                                          \
      if (in[i]) st = pd_tensor_contiguous(in[i], &t[i]);                                               \
    T *col = st == PD_OK ? (T *)malloc(sizeof(T) * (size_t)(g.C * g.K * g.L + 1)) : NULL;               \
    if (st == PD_OK && !col) st = pd_vision_oom("deformable_conv");                                     \
    if (st == PD_OK) {                                                                                  \
      const T *x = (const T *)pd_tensor_data(t[0]), *off = (const T *)pd_tensor_data(t[1]);             \
      const T *f = (const T *)pd_tensor_data(t[2]), *mk = t[3] ? (const T *)pd_tensor_data(t[3]) : NULL; \
      T *y = (T *)pd_tensor_data(out[0]);                                                               \
      for (int64_t n = 0; n < g.N; n++) {                                                               \
        im2col_##SUF(&g, x + n * g.C * g.H * g.W, off + n * g.dg * 2 * g.K * g.L,                       \
                     mk ? mk + n * g.dg * g.K * g.L : NULL, col);                                       \
        for (int64_t gi = 0; gi < g.G; gi++)                                                            \
          gemm_##SUF(0, 0, g.Mg, g.L, g.Cg * g.K, f + gi * g.Mg * g.Cg * g.K, g.Cg * g.K,               \
                     col + gi * g.Cg * g.K * g.L, g.L, 0, y + (n * g.M + gi * g.Mg) * g.L, g.L);        \
      }                                                                                                 \
    }                                                                                                   \
    free(col);                                                                                          \
    for (int i = 0; i < 4; i++)                                                                         \
      if (t[i]) pd_tensor_release(t[i]);                                                                \
    return st;                                                                                          \
  }                                                                                                     \
  pd_status pd_kernel_deformable_conv_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    const pd_deformable_conv_grad_args *a = (const pd_deformable_conv_grad_args *)args;                 \
    dcn_geom g;                                                                                         \
    dcn_setup(a->x, a->filter, a->strides, a->paddings, a->dilations, a->deformable_groups, a->groups, &g); \
    pd_tensor *t[5] = {NULL, NULL, NULL, NULL, NULL};                                                   \
    pd_tensor *in[5] = {a->x, a->offset, a->filter, a->mask, a->out_grad};                              \
    pd_status st = PD_OK;                                                                               \
    for (int i = 0; i < 5 && st == PD_OK; i++)                                                          \
      if (in[i]) st = pd_tensor_contiguous(in[i], &t[i]);                                               \
    const size_t csz = sizeof(T) * (size_t)(g.C * g.K * g.L + 1);                                       \
    T *col = st == PD_OK ? (T *)malloc(csz) : NULL, *dcol = st == PD_OK ? (T *)malloc(csz) : NULL;      \
    if (st == PD_OK && (!col || !dcol)) st = pd_vision_oom("deformable_conv_grad");                     \
    if (st == PD_OK) {                                                                                  \
      const T *x = (const T *)pd_tensor_data(t[0]), *off = (const T *)pd_tensor_data(t[1]);             \
      const T *f = (const T *)pd_tensor_data(t[2]), *mk = t[3] ? (const T *)pd_tensor_data(t[3]) : NULL; \
      const T *dy = (const T *)pd_tensor_data(t[4]);                                                    \
      T *dx = (T *)pd_tensor_data(out[0]), *doff = (T *)pd_tensor_data(out[1]);                         \
      T *df = (T *)pd_tensor_data(out[2]), *dm = (T *)pd_tensor_data(out[3]);                           \
      memset(dx, 0, sizeof(T) * (size_t)out[0]->numel);                                                 \
      memset(df, 0, sizeof(T) * (size_t)out[2]->numel);                                                 \
      const int64_t cpd = g.C / g.dg;                                                                   \
      for (int64_t n = 0; n < g.N; n++) {                                                               \
        const T *xn = x + n * g.C * g.H * g.W, *on = off + n * g.dg * 2 * g.K * g.L;                    \
        const T *mn = mk ? mk + n * g.dg * g.K * g.L : NULL, *dyn = dy + n * g.M * g.L;                 \
        im2col_##SUF(&g, xn, on, mn, col);                                                              \
        for (int64_t gi = 0; gi < g.G; gi++) {                                                          \
          const T *fg = f + gi * g.Mg * g.Cg * g.K, *dyg = dyn + gi * g.Mg * g.L;                       \
          gemm_##SUF(0, 1, g.Mg, g.Cg * g.K, g.L, dyg, g.L, col + gi * g.Cg * g.K * g.L, g.L, 1,          \
                     df + gi * g.Mg * g.Cg * g.K, g.Cg * g.K);                                          \
          gemm_##SUF(1, 0, g.Cg * g.K, g.L, g.Mg, fg, g.Cg * g.K, dyg, g.L, 0,                           \
                     dcol + gi * g.Cg * g.K * g.L, g.L);                                                \
        }                                                                                               \
        T *dxn = dx + n * g.C * g.H * g.W;                                                              \
        _Pragma("omp parallel for if (g.C * g.K * g.L > 32768)")                                        \
        for (int64_t c = 0; c < g.C; c++) {                                                             \
          const int64_t gd = c / cpd;                                                                   \
          for (int64_t k = 0; k < g.K; k++)                                                             \
            for (int64_t l = 0; l < g.L; l++) {                                                         \
              double h, w;                                                                              \
              DCN_POS(&g, on, gd, k, l, h, w);                                                          \
              const double m = mn ? (double)mn[(gd * g.K + k) * g.L + l] : 1.0;                         \
              bil_add_##SUF(dxn + c * g.H * g.W, g.H, g.W, h, w, (double)dcol[(c * g.K + k) * g.L + l] * m); \
            }                                                                                           \
        }                                                                                               \
        T *don = doff + n * g.dg * 2 * g.K * g.L, *dmn = dm + n * g.dg * g.K * g.L;                     \
        _Pragma("omp parallel for collapse(2) if (g.C * g.K * g.L > 32768)")                            \
        for (int64_t gd = 0; gd < g.dg; gd++)                                                           \
          for (int64_t k = 0; k < g.K; k++)                                                             \
            for (int64_t l = 0; l < g.L; l++) {                                                         \
              double h, w, ah = 0, aw = 0, am = 0;                                                      \
              DCN_POS(&g, on, gd, k, l, h, w);                                                          \
              const double m = mn ? (double)mn[(gd * g.K + k) * g.L + l] : 1.0;                         \
              for (int64_t c = gd * cpd; c < (gd + 1) * cpd; c++) {                                     \
                double vh, vw;                                                                          \
                const double v = bil_##SUF(xn + c * g.H * g.W, g.H, g.W, h, w, &vh, &vw);               \
                const double gc = (double)dcol[(c * g.K + k) * g.L + l];                                \
                ah += gc * m * vh;                                                                      \
                aw += gc * m * vw;                                                                      \
                am += gc * v;                                                                           \
              }                                                                                         \
              don[(gd * 2 * g.K + 2 * k) * g.L + l] = (T)ah;                                            \
              don[(gd * 2 * g.K + 2 * k + 1) * g.L + l] = (T)aw;                                        \
              dmn[(gd * g.K + k) * g.L + l] = (T)am;                                                    \
            }                                                                                           \
      }                                                                                                 \
    }                                                                                                   \
    free(col);                                                                                          \
    free(dcol);                                                                                         \
    for (int i = 0; i < 5; i++)                                                                         \
      if (t[i]) pd_tensor_release(t[i]);                                                                \
    return st;                                                                                          \
  }

DEF_DCN(f32, float)
DEF_DCN(f64, double)
