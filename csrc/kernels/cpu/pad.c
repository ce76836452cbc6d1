/* pad kernels (ops/common.yaml): constant, reflect, replicate and circular padding of any
 * number of dims, and pad_grad (the adjoint: gradients of reflected/replicated/wrapped
 * positions are added back onto their source). Each dim gets a table out index -> source
 * index (-1: the constant); rows of the last dim are then copied through their tables. */
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "../../ops/infer_meta_common.h"

static int64_t src_index(int mode, int64_t o, int64_t b, int64_t n) {
  int64_t i = o - b;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case 0: return -1;
    case 1: return i < 0 ? -i : 2 * (n - 1) - i;
    case 2: return i < 0 ? 0 : n - 1;
    default: return ((i % n) + n) % n;
  }
}

/* tables: one int64 block, tab[d] of out_shape[d] entries (contiguous source strides applied). */
static pd_status build_tables(const pd_tensor *x, pd_int_array pads, int mode, const int64_t *oshape,
                              int64_t **buf, int64_t *tab[PD_MAX_DIMS]) {
  int64_t tot = 0, st[PD_MAX_DIMS];
  pd_contiguous_strides(x->ndim, x->shape, st);
  for (int d = 0; d < x->ndim; d++) tot += oshape[d];
  *buf = (int64_t *)malloc(sizeof(int64_t) * (size_t)(tot + 1));
  if (!*buf) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t *p = *buf;
  for (int d = 0; d < x->ndim; d++) {
    tab[d] = p;
    for (int64_t o = 0; o < oshape[d]; o++) {
      int64_t s = src_index(mode, o, pads.data[2 * d], x->shape[d]);
      p[o] = s < 0 ? -1 : s * st[d];
    }
    p += oshape[d];
  }
  return PD_OK;
}

/* source offset of the row r of the outer dims (all but the last), or -1 */
static int64_t row_base(int nd, const int64_t *oshape, int64_t *const *tab, int64_t r) {
  int64_t base = 0;
  for (int d = nd - 2; d >= 0; d--) {
    int64_t i = r % oshape[d];
    r /= oshape[d];
    if (tab[d][i] < 0) return -1;
    base += tab[d][i];
  }
  return base;
}

#define DEF_PAD(SUF, T)                                                                        \
  pd_status pd_kernel_pad_##SUF(const void *args, pd_tensor **out, int n_out) {                \
    (void)n_out;                                                                               \
    const pd_pad_args *a = (const pd_pad_args *)args;                                          \
    int mode, nd = a->x->ndim;                                                                 \
    PD_TRY(pd_pad_mode("pad", a->mode, &mode));                                                \
    pd_tensor *o = out[0], *x;                                                                 \
    if (o->numel == 0) return PD_OK;                                                           \
    if (nd == 0 || a->x->numel == 0) return pd_tensor_fill_(o, a->value, 0);                   \
    int64_t *buf, *tab[PD_MAX_DIMS];                                                           \
    PD_TRY(build_tables(a->x, a->paddings, mode, o->shape, &buf, tab));                        \
    pd_status s = pd_tensor_contiguous(a->x, &x);                                              \
    if (s == PD_OK) {                                                                          \
      const T *xd = (const T *)pd_tensor_data(x);                                              \
      T *od = (T *)pd_tensor_data(o);                                                          \
      const T v = (T)a->value;                                                                 \
      int64_t w = o->shape[nd - 1], rows = o->numel / w;                                       \
      const int64_t *last = tab[nd - 1];                                                       \
      _Pragma("omp parallel for if (o->numel >= 32768) schedule(static)")                      \
      for (int64_t r = 0; r < rows; r++) {                                                     \
        int64_t b = row_base(nd, o->shape, tab, r);                                            \
        T *dst = od + r * w;                                                                   \
        if (b < 0) {                                                                           \
          for (int64_t j = 0; j < w; j++) dst[j] = v;                                          \
          continue;                                                                            \
        }                                                                                      \
        const T *src = xd + b;                                                                 \
        for (int64_t j = 0; j < w; j++) dst[j] = last[j] < 0 ? v : src[last[j]];               \
      }                                                                                        \
      pd_tensor_release(x);                                                                    \
    }                                                                                          \
    free(buf);                                                                                 \
    return s;                                                                                  \
  }

#define DEF_PAD_GRAD(SUF, T)                                                                   \
  pd_status pd_kernel_pad_grad_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                               \
    const pd_pad_grad_args *a = (const pd_pad_grad_args *)args;                                \
    int mode, nd = a->x->ndim;                                                                 \
    PD_TRY(pd_pad_mode("pad_grad", a->mode, &mode));                                           \
    pd_tensor *o = out[0], *g;                                                                 \
    PD_TRY(pd_tensor_fill_(o, 0, 0));                                                          \
    if (o->numel == 0 || nd == 0) return PD_OK;                                                \
    int64_t *buf, *tab[PD_MAX_DIMS];                                                           \
    PD_TRY(build_tables(a->x, a->paddings, mode, a->dout->shape, &buf, tab));                  \
    pd_status s = pd_tensor_contiguous(a->dout, &g);                                           \
    if (s == PD_OK) {                                                                          \
      const T *gd = (const T *)pd_tensor_data(g);                                              \
      T *od = (T *)pd_tensor_data(o);                                                          \
      int64_t w = g->shape[nd - 1], rows = w ? g->numel / w : 0;                               \
      const int64_t *last = tab[nd - 1];                                                       \
      for (int64_t r = 0; r < rows; r++) {                                                     \
        int64_t b = row_base(nd, g->shape, tab, r);                                            \
        if (b < 0) continue;                                                                   \
        const T *src = gd + r * w;                                                             \
        T *dst = od + b;                                                                       \
        for (int64_t j = 0; j < w; j++)                                                        \
          if (last[j] >= 0) dst[last[j]] += src[j];                                            \
      }                                                                                        \
      pd_tensor_release(g);                                                                    \
    }                                                                                          \
    free(buf);                                                                                 \
    return s;                                                                                  \
  }
DEF_PAD(f32, float)
DEF_PAD(f64, double)
DEF_PAD(i32, int32_t)
DEF_PAD(i64, int64_t)
DEF_PAD(c64, pd_complex64)
DEF_PAD(c128, pd_complex128)
DEF_PAD_GRAD(f32, float)
DEF_PAD_GRAD(f64, double)
DEF_PAD_GRAD(c64, pd_complex64)
DEF_PAD_GRAD(c128, pd_complex128)
