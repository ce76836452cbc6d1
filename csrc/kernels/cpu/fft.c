/* Kernels of ops/fft.yaml (c2c, r2c, c2r and their gradients): shapes, axes, norms, the
 * strided-input copies and the one pass that scales / conjugates / doubles the output. The
 * transforms themselves (FFTW plans and their cache, the six-step and half-length r2c forms, the
 * threading) are fft_engine.c's, reached through pd_fft_exec. */
#include <fftw3.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_alloc.h"
#include "../../core/pd_iter.h"
#include "../../ops/infer_meta_fft.h"
#include "fft_engine.h"

/* ---- one pass over an output viewed as [outer, len, inner] (contiguous): multiply by scale
 * (twice that for lo <= k < hi along len), conjugate if conj (complex), or keep the real part of
 * complex src into real dst (re = 1). ---- */
#define DEF_POST(SUF, R)                                                                                   \
  static void post_##SUF(R *d, int64_t outer, int64_t len, int64_t inner, double scale, int conj, int64_t lo, \
                         int64_t hi) {                                                                     \
    int64_t rows = outer * len;                                                                            \
    _Pragma("omp parallel for if (rows * inner >= 65536) schedule(static)") for (int64_t r = 0; r < rows; r++) { \
      int64_t k = r % len;                                                                                 \
      R s = (R)(k >= lo && k < hi ? 2 * scale : scale);                                                    \
      R sc = conj ? -s : s;                                                                                \
      R *p = d + 2 * r * inner;                                                                            \
      for (int64_t j = 0; j < inner; j++) {                                                                \
        p[2 * j] *= s;                                                                                     \
        p[2 * j + 1] *= sc;                                                                                \
      }                                                                                                    \
    }                                                                                                      \
  }                                                                                                        \
  static void scale_real_##SUF(R *d, int64_t n, double scale) {                                            \
    R s = (R)scale;                                                                                        \
    _Pragma("omp parallel for if (n >= 65536) schedule(static)") for (int64_t i = 0; i < n; i++) d[i] *= s; \
  }                                                                                                        \
  static void real_part_##SUF(R *dst, const R *src, int64_t n, double scale) {                             \
    R s = (R)scale;                                                                                        \
    _Pragma("omp parallel for if (n >= 65536) schedule(static)") for (int64_t i = 0; i < n; i++) dst[i] =   \
        src[2 * i] * s;                                                                                    \
  }
DEF_POST(f, float)
DEF_POST(d, double)

static void post(int dbl, void *d, int64_t outer, int64_t len, int64_t inner, double scale, int conj, int64_t lo,
                 int64_t hi) {
  if (scale == 1.0 && !conj && lo >= hi) return;
  if (dbl)
    post_d((double *)d, outer, len, inner, scale, conj, lo, hi);
  else
    post_f((float *)d, outer, len, inner, scale, conj, lo, hi);
}

/* Hermitian completion of a full spectrum whose entries k <= n/2 along axis L were written:
 * X[k] = conj(X[-k mod n]) over every transformed axis, for k_L > n_L/2 (contiguous out). */
#define DEF_HERM(SUF, R)                                                                                    \
  static void herm_fill_##SUF(R *o, int ndim, const int64_t *sh, const int *isax, int L) {                 \
    int64_t st[PD_MAX_DIMS];                                                                                \
    pd_contiguous_strides(ndim, sh, st);                                                                    \
    int64_t nL = sh[L], h = nL / 2 + 1, outer = 1;                                                          \
    for (int d = 0; d < ndim; d++)                                                                          \
      if (d != L) outer *= sh[d];                                                                           \
    if (h >= nL) return;                                                                                    \
    _Pragma("omp parallel for if (outer * nL >= 65536) schedule(static)") for (int64_t r = 0; r < outer; r++) { \
      int64_t rem = r, own = 0, mir = 0;                                                                    \
      for (int d = ndim - 1; d >= 0; d--) {                                                                 \
        if (d == L) continue;                                                                               \
        int64_t i = rem % sh[d];                                                                            \
        rem /= sh[d];                                                                                       \
        own += i * st[d];                                                                                   \
        mir += (isax[d] ? (sh[d] - i) % sh[d] : i) * st[d];                                                 \
      }                                                                                                     \
      for (int64_t k = h; k < nL; k++) {                                                                    \
        const R *s = o + 2 * (mir + (nL - k) * st[L]);                                                      \
        R *t = o + 2 * (own + k * st[L]);                                                                   \
        t[0] = s[0];                                                                                        \
        t[1] = -s[1];                                                                                       \
      }                                                                                                     \
    }                                                                                                       \
  }
DEF_HERM(f, float)
DEF_HERM(d, double)

static double signal_size(const int64_t *sh, const int *ax, int nax) {
  double n = 1;
  for (int i = 0; i < nax; i++) n *= (double)sh[ax[i]];
  return n;
}

static void outer_len_inner(const pd_tensor *t, int L, int64_t *outer, int64_t *inner) {
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < L; d++) *outer *= t->shape[d];
  for (int d = L + 1; d < t->ndim; d++) *inner *= t->shape[d];
}

/* ---- c2c (and its grad: the other direction, same scale) ---- */
static pd_status c2c_run(const char *op, pd_tensor *x, pd_int_array axes, const char *norm, int forward, int flip,
                         pd_tensor *o) {
  int ax[PD_MAX_DIMS], nax, mode;
  PD_TRY(pd_fft_axes(op, axes, x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode(op, norm, forward, &mode));
  if (o->numel == 0) return PD_OK;
  int dir = flip ? !forward : forward;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(x, &xc));
  int dbl = x->dtype == PD_COMPLEX128;
  double sc = pd_fft_scale(mode, signal_size(x->shape, ax, nax));
  pd_status s = pd_fft_exec(K_C2C, dbl, dir ? FFTW_FORWARD : FFTW_BACKWARD, x->ndim, x->shape, xc->strides, o->strides,
                         ax, nax, pd_tensor_data(xc), pd_tensor_data(o), &sc);
  pd_tensor_release(xc);
  if (s == PD_OK) post(dbl, pd_tensor_data(o), o->numel, 1, 1, sc, 0, 0, 0);
  return s;
}

static pd_status fft_c2c_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2c_args *a = (const pd_fft_c2c_args *)args;
  (void)n_out;
  return c2c_run("fft_c2c", a->x, a->axes, a->normalization, a->forward, 0, out[0]);
}
static pd_status fft_c2c_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2c_grad_args *a = (const pd_fft_c2c_grad_args *)args;
  (void)n_out;
  return c2c_run("fft_c2c_grad", a->out_grad, a->axes, a->normalization, a->forward, 1, out[0]);
}

/* ---- r2c: forward (e^-i) onesided transform into o (onesided or full: the half is written with
 * o's strides, the rest completed by symmetry), conjugated for forward=false ---- */
static pd_status r2c_into(pd_tensor *x, const int *ax, int nax, int onesided, int conj, double scale, pd_tensor *o) {
  if (o->numel == 0) return PD_OK;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(x, &xc));
  int dbl = x->dtype == PD_FLOAT64;
  pd_status s = pd_fft_exec(K_R2C, dbl, 0, x->ndim, x->shape, xc->strides, o->strides, ax, nax, pd_tensor_data(xc),
                         pd_tensor_data(o), NULL);
  pd_tensor_release(xc);
  if (s != PD_OK) return s;
  int L = ax[nax - 1];
  if (!onesided) {
    int isax[PD_MAX_DIMS] = {0};
    for (int i = 0; i < nax; i++) isax[ax[i]] = 1;
    if (dbl)
      herm_fill_d((double *)pd_tensor_data(o), o->ndim, o->shape, isax, L);
    else
      herm_fill_f((float *)pd_tensor_data(o), o->ndim, o->shape, isax, L);
  }
  post(dbl, pd_tensor_data(o), o->numel, 1, 1, scale, conj, 0, 0);
  return PD_OK;
}

static pd_status fft_r2c_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_r2c_args *a = (const pd_fft_r2c_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  PD_TRY(pd_fft_axes("fft_r2c", a->axes, a->x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_r2c", a->normalization, a->forward, &mode));
  return r2c_into(a->x, ax, nax, a->onesided, !a->forward, pd_fft_scale(mode, signal_size(a->x->shape, ax, nax)),
                  out[0]);
}

/* r2c's adjoint: Re(c2c of the zero-padded out_grad in the other direction), same scale. */
static pd_status fft_r2c_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_r2c_grad_args *a = (const pd_fft_r2c_grad_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  PD_TRY(pd_fft_axes("fft_r2c_grad", a->axes, a->x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_r2c_grad", a->normalization, a->forward, &mode));
  pd_tensor *o = out[0], *g = a->out_grad;
  if (o->numel == 0) return PD_OK;
  int L = ax[nax - 1];
  for (int d = 0; d < o->ndim; d++)
    if (d != L && g->shape[d] != o->shape[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fft_r2c_grad] out_grad's dim %d is %lld, expected %lld", d,
                          (long long)g->shape[d], (long long)o->shape[d]);
  pd_tensor *full = NULL, *res = NULL, *dv = NULL, *sv = NULL;
  pd_status s = pd_tensor_zeros(g->dtype, o->ndim, o->shape, &full);
  int64_t sh[PD_MAX_DIMS];
  memcpy(sh, o->shape, sizeof(int64_t) * (size_t)o->ndim);
  sh[L] = g->shape[L] < o->shape[L] ? g->shape[L] : o->shape[L];
  if (s == PD_OK) s = pd_tensor_view(full, o->ndim, sh, full->strides, full->offset, &dv);
  if (s == PD_OK) s = pd_tensor_view(g, o->ndim, sh, g->strides, g->offset, &sv);
  if (s == PD_OK) s = pd_tensor_copy_(dv, sv);
  if (s == PD_OK) s = pd_tensor_empty(g->dtype, o->ndim, o->shape, &res);
  int dbl = g->dtype == PD_COMPLEX128;
  if (s == PD_OK)
    s = pd_fft_exec(K_C2C, dbl, a->forward ? FFTW_BACKWARD : FFTW_FORWARD, o->ndim, o->shape, full->strides, res->strides,
                 ax, nax, pd_tensor_data(full), pd_tensor_data(res), NULL);
  if (s == PD_OK) {
    double sc = pd_fft_scale(mode, signal_size(o->shape, ax, nax));
    if (dbl)
      real_part_d((double *)pd_tensor_data(o), (const double *)pd_tensor_data(res), o->numel, sc);
    else
      real_part_f((float *)pd_tensor_data(o), (const float *)pd_tensor_data(res), o->numel, sc);
  }
  if (dv) pd_tensor_release(dv);
  if (sv) pd_tensor_release(sv);
  if (full) pd_tensor_release(full);
  if (res) pd_tensor_release(res);
  return s;
}

/* ---- c2r: the half spectrum (x's first n/2+1 entries along the last axis, zero-padded) into a
 * scratch copy, conjugated for forward=true, then FFTW's c2r (e^+i) ---- */
static pd_status fft_c2r_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2r_args *a = (const pd_fft_c2r_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  pd_tensor *x = a->x, *o = out[0];
  PD_TRY(pd_fft_axes("fft_c2r", a->axes, x->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_c2r", a->normalization, a->forward, &mode));
  if (o->numel == 0) return PD_OK;
  int L = ax[nax - 1];
  int64_t h = o->shape[L] / 2 + 1, sh[PD_MAX_DIMS], cp[PD_MAX_DIMS];
  memcpy(sh, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  sh[L] = h;
  memcpy(cp, sh, sizeof cp);
  cp[L] = x->shape[L] < h ? x->shape[L] : h;
  pd_tensor *half = NULL, *dv = NULL, *sv = NULL;
  pd_status s = cp[L] < h ? pd_tensor_zeros(x->dtype, x->ndim, sh, &half) : pd_tensor_empty(x->dtype, x->ndim, sh, &half);
  if (s == PD_OK) s = pd_tensor_view(half, x->ndim, cp, half->strides, half->offset, &dv);
  if (s == PD_OK) s = pd_tensor_view(x, x->ndim, cp, x->strides, x->offset, &sv);
  if (s == PD_OK) s = pd_tensor_copy_(dv, sv);
  int dbl = x->dtype == PD_COMPLEX128;
  if (s == PD_OK && a->forward) post(dbl, pd_tensor_data(half), half->numel, 1, 1, 1.0, 1, 0, 0);
  if (s == PD_OK)
    s = pd_fft_exec(K_C2R, dbl, 0, o->ndim, o->shape, half->strides, o->strides, ax, nax, pd_tensor_data(half),
                 pd_tensor_data(o), NULL);
  if (s == PD_OK) {
    double sc = pd_fft_scale(mode, signal_size(o->shape, ax, nax));
    if (sc != 1.0) {
      if (dbl)
        scale_real_d((double *)pd_tensor_data(o), o->numel, sc);
      else
        scale_real_f((float *)pd_tensor_data(o), o->numel, sc);
    }
  }
  if (dv) pd_tensor_release(dv);
  if (sv) pd_tensor_release(sv);
  if (half) pd_tensor_release(half);
  return s;
}

/* c2r's adjoint (Paddle's rule): r2c of out_grad in the other direction with the same scale,
 * entries 1 .. n - (n/2+1) along the last axis doubled (they stand for two conjugate entries),
 * written into x's shape (zeros past n/2+1). */
static pd_status fft_c2r_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fft_c2r_grad_args *a = (const pd_fft_c2r_grad_args *)args;
  (void)n_out;
  int ax[PD_MAX_DIMS], nax, mode;
  pd_tensor *g = a->out_grad, *o = out[0];
  PD_TRY(pd_fft_axes("fft_c2r_grad", a->axes, g->ndim, ax, &nax));
  PD_TRY(pd_fft_norm_mode("fft_c2r_grad", a->normalization, a->forward, &mode));
  if (o->numel == 0) return PD_OK;
  int L = ax[nax - 1];
  for (int d = 0; d < o->ndim; d++)
    if (d != L && g->shape[d] != o->shape[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fft_c2r_grad] out_grad's dim %d is %lld, expected %lld", d,
                          (long long)g->shape[d], (long long)o->shape[d]);
  int64_t n = g->shape[L], h = n / 2 + 1, m = o->shape[L];
  double sc = pd_fft_scale(mode, signal_size(g->shape, ax, nax));
  int dbl = g->dtype == PD_FLOAT64;
  int64_t outer, inner;
  outer_len_inner(o, L, &outer, &inner);
  if (m == h) {
    PD_TRY(r2c_into(g, ax, nax, 1, 0, 1.0, o));
    post(dbl, pd_tensor_data(o), outer, m, inner, sc, a->forward, 1, n - h + 1);
    return PD_OK;
  }
  int64_t sh[PD_MAX_DIMS];
  memcpy(sh, o->shape, sizeof(int64_t) * (size_t)o->ndim);
  sh[L] = h;
  pd_tensor *hb = NULL, *dv = NULL, *sv = NULL;
  pd_status s = pd_tensor_empty(o->dtype, o->ndim, sh, &hb);
  if (s == PD_OK) s = r2c_into(g, ax, nax, 1, 0, 1.0, hb);
  if (s == PD_OK) {
    int64_t ho, hi;
    outer_len_inner(hb, L, &ho, &hi);
    post(dbl, pd_tensor_data(hb), ho, h, hi, sc, a->forward, 1, n - h + 1);
    s = pd_tensor_fill_(o, 0, 0);
  }
  sh[L] = m < h ? m : h;
  if (s == PD_OK) s = pd_tensor_view(o, o->ndim, sh, o->strides, o->offset, &dv);
  if (s == PD_OK) s = pd_tensor_view(hb, o->ndim, sh, hb->strides, hb->offset, &sv);
  if (s == PD_OK) s = pd_tensor_copy_(dv, sv);
  if (dv) pd_tensor_release(dv);
  if (sv) pd_tensor_release(sv);
  if (hb) pd_tensor_release(hb);
  return s;
}

#define STAMP(OP, IMPL)                                                                                  \
  pd_status pd_kernel_##OP##_c64(const void *args, pd_tensor **out, int n_out) { return IMPL(args, out, n_out); } \
  pd_status pd_kernel_##OP##_c128(const void *args, pd_tensor **out, int n_out) { return IMPL(args, out, n_out); }
STAMP(fft_c2c, fft_c2c_impl)
STAMP(fft_c2c_grad, fft_c2c_grad_impl)
STAMP(fft_r2c, fft_r2c_impl)
STAMP(fft_r2c_grad, fft_r2c_grad_impl)
STAMP(fft_c2r, fft_c2r_impl)
STAMP(fft_c2r_grad, fft_c2r_grad_impl)
