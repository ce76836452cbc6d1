/* Convolution kernels (conv2d/conv3d, conv2d_transpose/conv3d_transpose, conv2d_grad_filter) for
 * 1-3 spatial dims, groups (incl. depthwise), dilations and asymmetric pads: im2col / col2im + GEMM
 * on NCHW buffers (NHWC is permuted in and out) for float64 and as the fallback when oneDNN
 * declines; float32 runs oneDNN primitives (conv_dnnl.c). The transposed convolution is the data
 * gradient. conv2d/conv3d add an optional bias after the convolution, one rounded add per element
 * (add_bias), so that conv(x, w, b) is bit for bit conv(x, w) + b: Paddle's programs hold the
 * bias as a separate elementwise_add and must compute what eager computes (oneDNN's fused bias
 * rounds differently). */
#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "../../core/pd_alloc.h"
#include "conv_dnnl.h"
#include "../../core/pd_isa.h"

static void sgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                  const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if ((M < 256 || N < 256 || K < 256) &&
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc) == dnnl_success)
    return;
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
              (int)K, 1.0f, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}
static void dgemm(int ta, int tb, int64_t M, int64_t N, int64_t K, const double *A, int64_t lda,
                  const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
              (int)K, 1.0, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

/* [N, A, B] -> [N, B, A] (element size esz) */
void pd_permute_nc(const char *src, char *dst, int64_t N, int64_t A, int64_t B, size_t esz) {
#pragma omp parallel for collapse(2) if (N * A * B * (int64_t)esz > 262144)
  for (int64_t n = 0; n < N; n++)
    for (int64_t b = 0; b < B; b++) {
      const char *s = src + (n * A * B + b) * esz;
      char *d = dst + (n * B + b) * A * esz;
      for (int64_t a = 0; a < A; a++) memcpy(d + a * esz, s + a * B * esz, esz);
    }
}

static int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }
static int is_1x1(const pd_conv_geom *g) {
  for (int i = 0; i < 3; i++)
    if (g->k[i] != 1 || g->s[i] != 1 || g->pl[i] || g->pr[i]) return 0;
  return 1;
}

#define DEF_CONV(SUF, T, GEMM)                                                                      \
  static void im2col_##SUF(const T *x, T *col, const pd_conv_geom *g, int64_t Cg) {                \
    const int64_t L = prod3(g->out), K = prod3(g->k);                                              \
    _Pragma("omp parallel for collapse(2) if (Cg * K * L > 32768)")                               \
    for (int64_t c = 0; c < Cg; c++)                                                               \
      for (int64_t kk = 0; kk < K; kk++) {                                                         \
        int64_t kd = kk / (g->k[1] * g->k[2]), kh = (kk / g->k[2]) % g->k[1], kw = kk % g->k[2];   \
        const T *src = x + c * prod3(g->in);                                                       \
        T *dst = col + (c * K + kk) * L;                                                           \
        for (int64_t od = 0; od < g->out[0]; od++) {                                               \
          int64_t id = od * g->s[0] - g->pl[0] + kd * g->d[0];                                     \
          for (int64_t oh = 0; oh < g->out[1]; oh++) {                                             \
            int64_t ih = oh * g->s[1] - g->pl[1] + kh * g->d[1];                                   \
            T *drow = dst + (od * g->out[1] + oh) * g->out[2];                                     \
            if (id < 0 || id >= g->in[0] || ih < 0 || ih >= g->in[1]) {                           \
              for (int64_t ow = 0; ow < g->out[2]; ow++) drow[ow] = 0;                             \
              continue;                                                                            \
            }                                                                                      \
            const T *srow = src + (id * g->in[1] + ih) * g->in[2];                                 \
            const int64_t s2 = g->s[2], off = kw * g->d[2] - g->pl[2], W = g->in[2];               \
            for (int64_t ow = 0; ow < g->out[2]; ow++) {                                           \
              int64_t iw = ow * s2 + off;                                                          \
              drow[ow] = (iw >= 0 && iw < W) ? srow[iw] : (T)0;                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
  }                                                                                                \
  static void col2im_##SUF(const T *col, T *x, const pd_conv_geom *g, int64_t Cg) {                \
    const int64_t L = prod3(g->out), K = prod3(g->k);                                              \
    _Pragma("omp parallel for if (Cg * K * L > 32768)")                                           \
    for (int64_t c = 0; c < Cg; c++)                                                               \
      for (int64_t kk = 0; kk < K; kk++) {                                                         \
        int64_t kd = kk / (g->k[1] * g->k[2]), kh = (kk / g->k[2]) % g->k[1], kw = kk % g->k[2];   \
        T *dstx = x + c * prod3(g->in);                                                            \
        const T *src = col + (c * K + kk) * L;                                                     \
        for (int64_t od = 0; od < g->out[0]; od++) {                                               \
          int64_t id = od * g->s[0] - g->pl[0] + kd * g->d[0];                                     \
          if (id < 0 || id >= g->in[0]) continue;                                                  \
          for (int64_t oh = 0; oh < g->out[1]; oh++) {                                             \
            int64_t ih = oh * g->s[1] - g->pl[1] + kh * g->d[1];                                   \
            if (ih < 0 || ih >= g->in[1]) continue;                                                \
            const T *srow = src + (od * g->out[1] + oh) * g->out[2];                               \
            T *xrow = dstx + (id * g->in[1] + ih) * g->in[2];                                      \
            const int64_t s2 = g->s[2], off = kw * g->d[2] - g->pl[2], W = g->in[2];               \
            for (int64_t ow = 0; ow < g->out[2]; ow++) {                                           \
              int64_t iw = ow * s2 + off;                                                          \
              if (iw >= 0 && iw < W) xrow[iw] += srow[ow];                                         \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
  }                                                                                                \
  /* mode 0: y = conv(x, w); 1: x = conv_data_grad(y, w); 2: w = conv_filter_grad(x, y) */        \
  static pd_status run_##SUF(const pd_conv_geom *g, int mode, T *x, T *w, T *y) {                   \
    const int64_t Cg = g->C / g->G, Og = g->O / g->G, K = prod3(g->k), L = prod3(g->out);          \
    const int64_t IS = prod3(g->in), CK = Cg * K;                                                  \
    const int direct = is_1x1(g);                                                                  \
    T *col = NULL;                                                                                 \
    if (!direct) {                                                                                 \
      col = (T *)pd_alloc((size_t)(CK * L) * sizeof(T));                                           \
      if (!col) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv] out of memory");            \
    }                                                                                              \
    if (mode == 1) memset(x, 0, (size_t)(g->N * g->C * IS) * sizeof(T));                           \
    for (int64_t n = 0; n < g->N; n++)                                                             \
      for (int64_t gi = 0; gi < g->G; gi++) {                                                      \
        T *xg = x + (n * g->C + gi * Cg) * IS, *yg = y + (n * g->O + gi * Og) * L;                 \
        T *wg = w + gi * Og * CK;                                                                  \
        if (mode == 0) {                                                                           \
          if (!direct) im2col_##SUF(xg, col, g, Cg);                                               \
          GEMM(0, 0, Og, L, CK, wg, CK, direct ? xg : col, L, 0, yg, L);                           \
        } else if (mode == 1) {                                                                    \
          if (direct) {                                                                            \
            GEMM(1, 0, CK, L, Og, wg, CK, yg, L, 0, xg, L);                                        \
          } else {                                                                                 \
            GEMM(1, 0, CK, L, Og, wg, CK, yg, L, 0, col, L);                                       \
            col2im_##SUF(col, xg, g, Cg);                                                          \
          }                                                                                        \
        } else {                                                                                   \
          if (!direct) im2col_##SUF(xg, col, g, Cg);                                               \
          GEMM(0, 1, Og, CK, L, yg, L, direct ? xg : col, L, n > 0 ? 1 : 0, wg, CK);               \
        }                                                                                          \
      }                                                                                            \
    if (col) pd_free(col);                                                                         \
    return PD_OK;                                                                                  \
  }

DEF_CONV(f32, float, sgemm)
DEF_CONV(f64, double, dgemm)

/* An activation tensor as an NCHW buffer: *buf is the data to use, *own a buffer to free. */
static pd_status act_in(pd_tensor *t, const pd_conv_geom *g, int64_t ch, const int64_t *sp, pd_tensor **c,
                        void **buf, void **own) {
  PD_TRY(pd_tensor_contiguous(t, c));
  *own = NULL;
  *buf = pd_tensor_data(*c);
  if (!g->nhwc) return PD_OK;
  size_t esz = pd_dtype_size(t->dtype);
  *own = pd_alloc((size_t)(g->N * ch * prod3(sp)) * esz);
  if (!*own) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv] out of memory");
  pd_permute_nc((const char *)*buf, (char *)*own, g->N, prod3(sp), ch, esz);
  *buf = *own;
  return PD_OK;
}
static pd_status act_out(pd_tensor *out, const pd_conv_geom *g, int64_t ch, const int64_t *sp, void **buf) {
  if (!g->nhwc) {
    *buf = pd_tensor_data(out);
    return PD_OK;
  }
  *buf = pd_alloc((size_t)(g->N * ch * prod3(sp)) * pd_dtype_size(out->dtype));
  return *buf ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv] out of memory");
}
static void act_out_done(pd_tensor *out, const pd_conv_geom *g, int64_t ch, const int64_t *sp, void *buf) {
  if (!g->nhwc) return;
  pd_permute_nc((const char *)buf, (char *)pd_tensor_data(out), g->N, ch, prod3(sp), pd_dtype_size(out->dtype));
  pd_free(buf);
}

static pd_status run_any(const pd_conv_geom *g, int mode, pd_dtype dt, void *x, void *w, void *y) {
  if (dt == PD_FLOAT32) return run_f32(g, mode, (float *)x, (float *)w, (float *)y);
  return run_f64(g, mode, (double *)x, (double *)w, (double *)y);
}

/* float32 through oneDNN on the caller's buffers (no permutes, no bias); *done = 0 when it declined. */
static pd_status conv_dnnl(const pd_conv_geom *g, int mode, pd_tensor *a, pd_tensor *b, pd_tensor *out, int *done) {
  pd_tensor *ac = NULL, *bc = NULL;
  pd_status st;
  int r = 0;
  if ((st = pd_tensor_contiguous(a, &ac)) != PD_OK || (st = pd_tensor_contiguous(b, &bc)) != PD_OK) goto done;
  float *A = (float *)pd_tensor_data(ac), *B = (float *)pd_tensor_data(bc), *O = (float *)pd_tensor_data(out);
  if (mode == 0) r = pd_conv_dnnl(g, 0, A, B, O, NULL);
  else if (mode == 1) r = pd_conv_dnnl(g, 1, O, B, A, NULL);
  else r = pd_conv_dnnl(g, 2, A, O, B, NULL);
  if (r < 0) st = PD_ERR_RESOURCE_EXHAUSTED;
done:
  *done = r != 0;
  if (ac) pd_tensor_release(ac);
  if (bc) pd_tensor_release(bc);
  return st;
}

/* out (contiguous conv output of g) += bias per output channel */
#define DEF_BIAS(SUF, T)                                                                            \
  static void add_bias_##SUF(const pd_conv_geom *g, T *restrict y, const T *restrict b) {           \
    const int64_t L = prod3(g->out), O = g->O;                                                     \
    if (g->nhwc) {                                                                                 \
      _Pragma("omp parallel for if (g->N * L * O > 65536)")                                       \
      for (int64_t r = 0; r < g->N * L; r++)                                                       \
        for (int64_t c = 0; c < O; c++) y[r * O + c] += b[c];                                      \
    } else {                                                                                       \
      _Pragma("omp parallel for if (g->N * L * O > 65536)")                                       \
      for (int64_t p = 0; p < g->N * O; p++) {                                                     \
        const T v = b[p % O];                                                                      \
        for (int64_t i = 0; i < L; i++) y[p * L + i] += v;                                         \
      }                                                                                            \
    }                                                                                              \
  }
DEF_BIAS(f32, float)
DEF_BIAS(f64, double)
static pd_status add_bias(const pd_conv_geom *g, pd_tensor *out, pd_tensor *bias) {
  pd_tensor *bc;
  PD_TRY(pd_tensor_contiguous(bias, &bc));
  if (out->dtype == PD_FLOAT32) add_bias_f32(g, (float *)pd_tensor_data(out), (const float *)pd_tensor_data(bc));
  else add_bias_f64(g, (double *)pd_tensor_data(out), (const double *)pd_tensor_data(bc));
  pd_tensor_release(bc);
  return PD_OK;
}

static pd_status conv_exec_bf16(const pd_conv_geom *g, int mode, pd_tensor *a, pd_tensor *b, pd_tensor *bias,
                                pd_tensor *out);

/* mode 0: out = conv(a=x, b=w) [+ bias]; 1: out = transpose conv(a=y, b=w); 2: out = dW(a=x, b=y) */
static pd_status conv_exec(const pd_conv_geom *g, int mode, pd_tensor *a, pd_tensor *b, pd_tensor *bias,
                           pd_tensor *out) {
  if (out->dtype == PD_BFLOAT16) return conv_exec_bf16(g, mode, a, b, bias, out);
  if (out->dtype == PD_FLOAT32) {
    int done = 0;
    pd_status st = conv_dnnl(g, mode, a, b, out, &done);
    if (st != PD_OK) return st;
    if (done) return mode == 0 && bias ? add_bias(g, out, bias) : PD_OK;
  }
  pd_tensor *ac = NULL, *bc = NULL;
  void *abuf, *aown = NULL, *bbuf, *bown = NULL, *obuf = NULL;
  pd_status st;
  const int64_t *asp = mode == 1 ? g->out : g->in;
  int64_t ach = mode == 1 ? g->O : g->C;
  if ((st = act_in(a, g, ach, asp, &ac, &abuf, &aown)) != PD_OK) goto done;
  if (mode == 2) {
    if ((st = act_in(b, g, g->O, g->out, &bc, &bbuf, &bown)) != PD_OK) goto done;
    st = run_any(g, 2, out->dtype, abuf, pd_tensor_data(out), bbuf);
  } else {
    if ((st = pd_tensor_contiguous(b, &bc)) != PD_OK) goto done;
    bbuf = pd_tensor_data(bc);
    if (mode == 0) {
      if ((st = act_out(out, g, g->O, g->out, &obuf)) != PD_OK) goto done;
      st = run_any(g, 0, out->dtype, abuf, bbuf, obuf);
      act_out_done(out, g, g->O, g->out, obuf);
    } else {
      if ((st = act_out(out, g, g->C, g->in, &obuf)) != PD_OK) goto done;
      st = run_any(g, 1, out->dtype, obuf, bbuf, abuf);
      act_out_done(out, g, g->C, g->in, obuf);
    }
  }
done:
  if (aown) pd_free(aown);
  if (bown) pd_free(bown);
  if (ac) pd_tensor_release(ac);
  if (bc) pd_tensor_release(bc);
  if (st == PD_OK && mode == 0 && bias) st = add_bias(g, out, bias);
  return st;
}

/* bfloat16 on the CPU's bf16 units: oneDNN's bf16 primitives on the bf16 buffers (f32 accumulation,
 * each output rounded once, the bias added before that rounding). */
static int conv_units_bf16(const pd_conv_geom *g, int mode, pd_tensor *a, pd_tensor *b, pd_tensor *bias,
                           pd_tensor *out, pd_status *st) {
  pd_tensor *ac = NULL, *bc = NULL, *biasc = NULL;
  int r = 0;
  if ((*st = pd_tensor_contiguous(a, &ac)) != PD_OK || (*st = pd_tensor_contiguous(b, &bc)) != PD_OK ||
      (bias && (*st = bias->dtype == PD_BFLOAT16 ? pd_tensor_contiguous(bias, &biasc)
                                                 : pd_tensor_cast(bias, PD_BFLOAT16, &biasc)) != PD_OK))
    goto done;
  void *A = pd_tensor_data(ac), *B = pd_tensor_data(bc), *O = pd_tensor_data(out);
  if (mode == 0) r = pd_conv_dnnl_bf16(g, 0, A, B, O, biasc ? pd_tensor_data(biasc) : NULL);
  else if (mode == 1) r = pd_conv_dnnl_bf16(g, 1, O, B, A, NULL);
  else r = pd_conv_dnnl_bf16(g, 2, A, O, B, NULL);
  if (r < 0) *st = PD_ERR_RESOURCE_EXHAUSTED;
done:
  if (ac) pd_tensor_release(ac);
  if (bc) pd_tensor_release(bc);
  if (biasc) pd_tensor_release(biasc);
  return r;
}

/* bfloat16 convolutions (auto_cast's white list; docs/arch/autograd_training.md "bfloat16 convolutions"):
 * the units' path where pd_bf16_units_enabled() (PADDLE_C_BF16_UNITS=0 turns it off); otherwise,
 * or where oneDNN declines, the float32 kernels on the widened inputs with the output rounded once
 * (the numerics of the units' path up to the order of the f32 sums). */
static pd_status conv_exec_bf16(const pd_conv_geom *g, int mode, pd_tensor *a, pd_tensor *b, pd_tensor *bias,
                                pd_tensor *out) {
  pd_status st = PD_OK;
  if (out->numel > 0 && pd_bf16_units_enabled() && conv_units_bf16(g, mode, a, b, bias, out, &st) != 0) return st;
  PD_TRY(st);
  pd_tensor *af = NULL, *bf = NULL, *biasf = NULL, *of = NULL;
  if ((st = pd_tensor_cast(a, PD_FLOAT32, &af)) == PD_OK && (st = pd_tensor_cast(b, PD_FLOAT32, &bf)) == PD_OK &&
      (!bias || (st = pd_tensor_cast(bias, PD_FLOAT32, &biasf)) == PD_OK) &&
      (st = pd_tensor_empty(PD_FLOAT32, out->ndim, out->shape, &of)) == PD_OK &&
      (st = conv_exec(g, mode, af, bf, biasf, of)) == PD_OK)
    st = pd_tensor_copy_(out, of);
  if (af) pd_tensor_release(af);
  if (bf) pd_tensor_release(bf);
  if (biasf) pd_tensor_release(biasf);
  if (of) pd_tensor_release(of);
  return st;
}

static pd_status conv_fwd(const void *args, pd_tensor **out) {
  const pd_conv2d_args *a = (const pd_conv2d_args *)args;
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_fwd("conv", a->input, a->filter->shape, a->filter->ndim, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  return conv_exec(&g, 0, a->input, a->filter, a->bias, out[0]);
}
static pd_status conv_tr(const void *args, pd_tensor **out) {
  const pd_conv2d_transpose_args *a = (const pd_conv2d_transpose_args *)args;
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_tr("conv_transpose", a->x, a->filter, a->strides, a->paddings, a->output_padding,
                         a->output_size, a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  return conv_exec(&g, 1, a->x, a->filter, NULL, out[0]);
}
static pd_status conv_gf(const void *args, pd_tensor **out) {
  const pd_conv2d_grad_filter_args *a = (const pd_conv2d_grad_filter_args *)args;
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_fwd("conv2d_grad_filter", a->input, a->filter_shape.data, (int)a->filter_shape.n,
                          a->strides, a->paddings, a->padding_algorithm, a->groups, a->dilations,
                          a->data_format, &g));
  return conv_exec(&g, 2, a->input, a->dout, NULL, out[0]);
}

#define DEF_ENTRY(SUF)                                                                              \
  pd_status pd_kernel_conv2d_##SUF(const void *args, pd_tensor **out, int n_out) {                 \
    (void)n_out;                                                                                   \
    return conv_fwd(args, out);                                                                    \
  }                                                                                                \
  pd_status pd_kernel_conv2d_transpose_##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                                   \
    return conv_tr(args, out);                                                                     \
  }                                                                                                \
  pd_status pd_kernel_conv2d_grad_filter_##SUF(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                                   \
    return conv_gf(args, out);                                                                     \
  }
DEF_ENTRY(f32)
DEF_ENTRY(f64)
DEF_ENTRY(bf16)
