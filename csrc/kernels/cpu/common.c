/* Common nn kernels (ops/common.yaml): embedding (row gather) and its fused backward
 * (scatter-add of rows, padding_idx skipped), dropout (Philox mask, saved as uint8) and its
 * fused backward, unfold (im2col) and fold (col2im, its adjoint). float32/float64; inputs are
 * made contiguous first; outputs come contiguous from the runner. */
#include <stdlib.h>
#include "manip_util.h"
#include "../../core/pd_random.h"
#include "../../ops/infer_meta_common.h"

#define PAR_MIN 32768

/* Runs body with xc = contiguous x; releases it after. */
static pd_status contig(pd_tensor *t, pd_tensor **c) { return pd_tensor_contiguous(t, c); }

/* ---------------- embedding ---------------- */
static pd_status ids_checked(const char *op, pd_tensor *x, int64_t rows, pd_tensor **ix) {
  PD_TRY(pd_index_i64(op, x, ix));
  const int64_t *iv = (const int64_t *)pd_tensor_data(*ix);
  for (int64_t i = 0; i < (*ix)->numel; i++)
    if (iv[i] < 0 || iv[i] >= rows) {
      int64_t v = iv[i];
      pd_tensor_release(*ix);
      *ix = NULL;
      return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] id %lld is out of range [0, %lld)", op,
                          (long long)v, (long long)rows);
    }
  return PD_OK;
}

#define DEF_EMB(SUF, T)                                                                        \
  pd_status pd_kernel_embedding_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                               \
    const pd_embedding_args *a = (const pd_embedding_args *)args;                              \
    pd_tensor *ix, *w;                                                                         \
    int64_t rows = a->weight->shape[0], dim = a->weight->shape[1];                             \
    PD_TRY(ids_checked("embedding", a->x, rows, &ix));                                         \
    pd_status s = contig(a->weight, &w);                                                       \
    if (s == PD_OK) {                                                                          \
      const int64_t *iv = (const int64_t *)pd_tensor_data(ix);                                 \
      const T *wd = (const T *)pd_tensor_data(w);                                              \
      T *od = (T *)pd_tensor_data(out[0]);                                                     \
      int64_t n = ix->numel, pad = a->padding_idx;                                             \
      _Pragma("omp parallel for if (n * dim >= PAR_MIN) schedule(static)")                     \
      for (int64_t i = 0; i < n; i++) {                                                        \
        if (iv[i] == pad) memset(od + i * dim, 0, sizeof(T) * (size_t)dim);                    \
        else memcpy(od + i * dim, wd + iv[i] * dim, sizeof(T) * (size_t)dim);                  \
      }                                                                                        \
      pd_tensor_release(w);                                                                    \
    }                                                                                          \
    pd_tensor_release(ix);                                                                     \
    return s;                                                                                  \
  }                                                                                            \
  pd_status pd_kernel_embedding_grad_##SUF(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                               \
    const pd_embedding_grad_args *a = (const pd_embedding_grad_args *)args;                    \
    pd_tensor *ix, *g;                                                                         \
    int64_t rows = a->weight->shape[0], dim = a->weight->shape[1];                             \
    PD_TRY(ids_checked("embedding_grad", a->x, rows, &ix));                                    \
    pd_status s = contig(a->dout, &g);                                                         \
    if (s == PD_OK) {                                                                          \
      const int64_t *iv = (const int64_t *)pd_tensor_data(ix);                                 \
      const T *gd = (const T *)pd_tensor_data(g);                                              \
      T *od = (T *)pd_tensor_data(out[0]);                                                     \
      memset(od, 0, sizeof(T) * (size_t)(rows * dim));                                         \
      int64_t n = ix->numel, pad = a->padding_idx;                                             \
      /* threads own column blocks, so rows are added in id order with no races */            \
      int64_t nb = (dim + 63) / 64;                                                            \
      _Pragma("omp parallel for if (n * dim >= PAR_MIN && nb > 1) schedule(static)")           \
      for (int64_t b = 0; b < nb; b++) {                                                       \
        int64_t j0 = b * 64, j1 = j0 + 64 < dim ? j0 + 64 : dim;                               \
        for (int64_t i = 0; i < n; i++) {                                                      \
          if (iv[i] == pad) continue;                                                          \
          T *dst = od + iv[i] * dim;                                                           \
          const T *src = gd + i * dim;                                                         \
          for (int64_t j = j0; j < j1; j++) dst[j] += src[j];                                  \
        }                                                                                      \
      }                                                                                        \
      pd_tensor_release(g);                                                                    \
    }                                                                                          \
    pd_tensor_release(ix);                                                                     \
    return s;                                                                                  \
  }
DEF_EMB(f32, float)
DEF_EMB(f64, double)

/* ---------------- dropout ---------------- */
/* mask[i] = (u_i >= p), four 24-bit uniforms per Philox counter: reserves the counters and
 * returns the key, the first counter and the keep threshold (pd_philox_mask). */
static void dropout_stream(int64_t n, double p, int64_t seed, uint64_t *key, uint64_t *first, uint32_t *thr) {
  int64_t nc = (n + 3) / 4;
  *first = 0;
  if (seed != 0) *key = pd_random_seed_key(seed);
  else pd_random_reserve((uint64_t)nc, key, first);
  *thr = pd_philox_keep_threshold(p);
}

/* mask and output a block at a time (8192 elements: the mask stays in L1 for the apply loop) */
#define DROP_BLOCK 8192
#define DEF_DROP(SUF, T)                                                                        \
  pd_status pd_kernel_dropout_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                                \
    const pd_dropout_args *a = (const pd_dropout_args *)args;                                   \
    int up;                                                                                     \
    PD_TRY(pd_dropout_mode("dropout", a->mode, &up));                                           \
    pd_tensor *x;                                                                               \
    PD_TRY(contig(a->x, &x));                                                                   \
    int64_t n = x->numel;                                                                       \
    uint8_t *m = (uint8_t *)pd_tensor_data(out[1]);                                            \
    uint64_t key, first;                                                                        \
    uint32_t thr;                                                                               \
    dropout_stream(n, a->p, a->seed, &key, &first, &thr);                                       \
    const T *xd = (const T *)pd_tensor_data(x);                                                 \
    T *od = (T *)pd_tensor_data(out[0]);                                                        \
    const T sc = (T)(up ? (a->p < 1.0 ? 1.0 / (1.0 - a->p) : 0.0) : 1.0);                       \
    const int64_t nb = (n + DROP_BLOCK - 1) / DROP_BLOCK;                                       \
    _Pragma("omp parallel for if (n >= PAR_MIN) schedule(static)")                              \
    for (int64_t b = 0; b < nb; b++) {                                                          \
      const int64_t i0 = b * DROP_BLOCK, i1 = i0 + DROP_BLOCK < n ? i0 + DROP_BLOCK : n;        \
      pd_philox_mask(m, n, key, first, thr, i0 / 4, (i1 + 3) / 4);                              \
      const uint8_t *mb = m;                                                                    \
      const T *xb = xd;                                                                         \
      T *ob = od;                                                                               \
      for (int64_t i = i0; i < i1; i++) ob[i] = mb[i] ? xb[i] * sc : (T)0;                      \
    }                                                                                           \
    pd_tensor_release(x);                                                                       \
    return PD_OK;                                                                               \
  }                                                                                             \
  pd_status pd_kernel_dropout_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                \
    const pd_dropout_grad_args *a = (const pd_dropout_grad_args *)args;                         \
    int up;                                                                                     \
    PD_TRY(pd_dropout_mode("dropout_grad", a->mode, &up));                                      \
    pd_tensor *g, *mk, *m8;                                                                     \
    PD_TRY(pd_tensor_cast(a->mask, PD_UINT8, &mk));                                             \
    pd_status s = contig(mk, &m8);                                                              \
    pd_tensor_release(mk);                                                                      \
    if (s != PD_OK) return s;                                                                   \
    if ((s = contig(a->dout, &g)) != PD_OK) {                                                   \
      pd_tensor_release(m8);                                                                    \
      return s;                                                                                 \
    }                                                                                           \
    const uint8_t *m = (const uint8_t *)pd_tensor_data(m8);                                     \
    const T *gd = (const T *)pd_tensor_data(g);                                                 \
    T *od = (T *)pd_tensor_data(out[0]);                                                        \
    int64_t n = g->numel;                                                                       \
    T sc = (T)(up ? (a->p < 1.0 ? 1.0 / (1.0 - a->p) : 0.0) : 1.0);                             \
    _Pragma("omp parallel for if (n >= PAR_MIN) schedule(static)")                              \
    for (int64_t i = 0; i < n; i++) od[i] = m[i] ? gd[i] * sc : (T)0;                           \
    pd_tensor_release(g);                                                                       \
    pd_tensor_release(m8);                                                                      \
    return PD_OK;                                                                               \
  }
DEF_DROP(f32, float)
DEF_DROP(f64, double)

/* ---------------- unfold (im2col) / fold (col2im) ---------------- */
/* col[n, (c*kh+i)*kw+j, oy*ow+ox] <-> img[n, c, oy*sh-pt+i*dh, ox*sw-pl+j*dw] (0 outside). */
#define DEF_FOLD(SUF, T)                                                                        \
  pd_status pd_kernel_unfold_##SUF(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                                \
    const pd_unfold_args *a = (const pd_unfold_args *)args;                                     \
    pd_unfold_geom g;                                                                           \
    PD_TRY(pd_unfold_geometry("unfold", a->x->shape[2], a->x->shape[3], a->kernel_sizes,        \
                              a->strides, a->paddings, a->dilations, &g));                      \
    pd_tensor *x;                                                                               \
    PD_TRY(contig(a->x, &x));                                                                   \
    const T *xd = (const T *)pd_tensor_data(x);                                                 \
    T *od = (T *)pd_tensor_data(out[0]);                                                        \
    int64_t nc = x->shape[0] * x->shape[1], L = g.oh * g.ow;                                    \
    _Pragma("omp parallel for if (out[0]->numel >= PAR_MIN) schedule(static)")                  \
    for (int64_t q = 0; q < nc; q++) {                                                          \
      const T *img = xd + q * g.h * g.w;                                                        \
      T *col = od + q * g.kh * g.kw * L;                                                        \
      for (int64_t i = 0; i < g.kh; i++)                                                        \
        for (int64_t j = 0; j < g.kw; j++) {                                                    \
          T *row = col + (i * g.kw + j) * L;                                                    \
          for (int64_t oy = 0; oy < g.oh; oy++) {                                               \
            int64_t y = oy * g.sh - g.pt + i * g.dh;                                            \
            for (int64_t ox = 0; ox < g.ow; ox++) {                                             \
              int64_t xx = ox * g.sw - g.pl + j * g.dw;                                         \
              row[oy * g.ow + ox] =                                                             \
                  (y >= 0 && y < g.h && xx >= 0 && xx < g.w) ? img[y * g.w + xx] : (T)0;       \
            }                                                                                   \
          }                                                                                     \
        }                                                                                       \
    }                                                                                           \
    pd_tensor_release(x);                                                                       \
    return PD_OK;                                                                               \
  }                                                                                             \
  pd_status pd_kernel_fold_##SUF(const void *args, pd_tensor **out, int n_out) {                \
    (void)n_out;                                                                                \
    const pd_fold_args *a = (const pd_fold_args *)args;                                         \
    pd_unfold_geom g;                                                                           \
    PD_TRY(pd_unfold_geometry("fold", a->output_sizes.data[0], a->output_sizes.data[1],         \
                              a->kernel_sizes, a->strides, a->paddings, a->dilations, &g));     \
    pd_tensor *x;                                                                               \
    PD_TRY(contig(a->x, &x));                                                                   \
    const T *xd = (const T *)pd_tensor_data(x);                                                 \
    T *od = (T *)pd_tensor_data(out[0]);                                                        \
    int64_t nc = out[0]->shape[0] * out[0]->shape[1], L = g.oh * g.ow;                          \
    _Pragma("omp parallel for if (x->numel >= PAR_MIN) schedule(static)")                       \
    for (int64_t q = 0; q < nc; q++) {                                                          \
      T *img = od + q * g.h * g.w;                                                              \
      const T *col = xd + q * g.kh * g.kw * L;                                                  \
      memset(img, 0, sizeof(T) * (size_t)(g.h * g.w));                                          \
      for (int64_t i = 0; i < g.kh; i++)                                                        \
        for (int64_t j = 0; j < g.kw; j++) {                                                    \
          const T *row = col + (i * g.kw + j) * L;                                              \
          for (int64_t oy = 0; oy < g.oh; oy++) {                                               \
            int64_t y = oy * g.sh - g.pt + i * g.dh;                                            \
            if (y < 0 || y >= g.h) continue;                                                    \
            for (int64_t ox = 0; ox < g.ow; ox++) {                                             \
              int64_t xx = ox * g.sw - g.pl + j * g.dw;                                         \
              if (xx >= 0 && xx < g.w) img[y * g.w + xx] += row[oy * g.ow + ox];                \
            }                                                                                   \
          }                                                                                     \
        }                                                                                       \
    }                                                                                           \
    pd_tensor_release(x);                                                                       \
    return PD_OK;                                                                               \
  }
DEF_FOLD(f32, float)
DEF_FOLD(f64, double)
