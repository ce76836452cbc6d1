/* Kernels of ops/tensor_extra.yaml, first part: byte-generic ones (tril_triu, diagonal,
 * fill_diagonal_tensor) and the complex views and parts (real, imag, complex, as_real,
 * as_complex), which see complex storage as float pairs. The rest (searchsorted, histogram,
 * bincount, mode, put_along_axis, poisson) is in tensor_extra_search.c. */
#include <stdlib.h>
#include "manip_util.h"
#include "../../ops/infer_meta_tensor_extra.h"

/* ---- tril_triu: copy, then zero the masked part of every matrix (zero bits = 0 in every dtype) */
static pd_status tril_triu_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_tril_triu_args *a = (const pd_tril_triu_args *)args;
  (void)n_out;
  pd_tensor *o = out[0];
  PD_TRY(pd_tensor_copy_(o, a->x));
  if (o->numel == 0) return PD_OK;
  size_t es = pd_dtype_size(o->dtype);
  int64_t rows = o->shape[o->ndim - 2], cols = o->shape[o->ndim - 1];
  int64_t nmat = o->numel / (rows * cols), diag = a->diagonal;
  int lower = a->lower;
  char *base = (char *)pd_tensor_data(o);
#pragma omp parallel for if (o->numel >= 65536) schedule(static)
  for (int64_t m = 0; m < nmat; m++) {
    char *mat = base + (size_t)(m * rows * cols) * es;
    for (int64_t i = 0; i < rows; i++) {
      char *row = mat + (size_t)(i * cols) * es;
      /* tril keeps j <= i + diag; triu keeps j >= i + diag */
      int64_t lo, hi; /* zeroed range [lo, hi) */
      if (lower) {
        lo = i + diag + 1;
        hi = cols;
      } else {
        lo = 0;
        hi = i + diag;
      }
      if (lo < 0) lo = 0;
      if (hi > cols) hi = cols;
      if (hi > lo) memset(row + (size_t)lo * es, 0, (size_t)(hi - lo) * es);
    }
  }
  return PD_OK;
}
PD_STAMP_ALL(tril_triu, tril_triu_impl)

/* ---- diagonal (a view) and fill_diagonal_tensor (a copy with the diagonal replaced) ---- */
static pd_status diagonal_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_diagonal_args *a = (const pd_diagonal_args *)args;
  (void)n_out;
  int nd;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_diagonal_geometry("diagonal", a->x, a->offset, a->axis1, a->axis2, &nd, sh, st, &off));
  return pd_tensor_view(a->x, nd, sh, st, off, &out[0]);
}
PD_STAMP_ALL(diagonal, diagonal_impl)

static pd_status fill_diagonal_tensor_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_fill_diagonal_tensor_args *a = (const pd_fill_diagonal_tensor_args *)args;
  (void)n_out;
  PD_TRY(pd_tensor_copy_(out[0], a->x));
  int nd;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_diagonal_geometry("fill_diagonal_tensor", out[0], a->offset, a->dim1, a->dim2, &nd, sh, st, &off));
  pd_tensor *v;
  PD_TRY(pd_tensor_view(out[0], nd, sh, st, off, &v));
  pd_status s = v->numel ? pd_tensor_copy_(v, a->y) : PD_OK;
  pd_tensor_release(v);
  return s;
}
PD_STAMP_ALL(fill_diagonal_tensor, fill_diagonal_tensor_impl)

/* ---- complex parts: a complex tensor seen as its float pairs ---- */
/* The view of t's (complex) real part (part 0) or imaginary part (part 1) as floats. */
static pd_status part_view(pd_tensor *t, int part, pd_tensor **out) {
  int64_t st[PD_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++) st[d] = t->strides[d] * 2;
  return pd_tensor_from_storage(t->storage, (pd_dtype)pd_complex_part_dtype(t->dtype), t->ndim, t->shape,
                                st, t->offset * 2 + part, out);
}

static pd_status part_impl(pd_tensor *x, pd_tensor *o, int part) {
  pd_tensor *v;
  PD_TRY(part_view(x, part, &v));
  pd_status s = pd_tensor_copy_(o, v);
  pd_tensor_release(v);
  return s;
}
static pd_status real_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return part_impl(((const pd_real_args *)args)->x, out[0], 0);
}
static pd_status imag_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return part_impl(((const pd_imag_args *)args)->x, out[0], 1);
}
PD_STAMP1(real, real_impl, c64) PD_STAMP1(real, real_impl, c128)
PD_STAMP1(imag, imag_impl, c64) PD_STAMP1(imag, imag_impl, c128)

static pd_status complex_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_complex_args *a = (const pd_complex_args *)args;
  (void)n_out;
  pd_status s = PD_OK;
  for (int part = 0; part < 2 && s == PD_OK; part++) {
    pd_tensor *v;
    PD_TRY(part_view(out[0], part, &v));
    s = pd_tensor_copy_(v, part ? a->y : a->x);
    pd_tensor_release(v);
  }
  return s;
}
PD_STAMP1(complex, complex_impl, c64) PD_STAMP1(complex, complex_impl, c128)

/* ---- as_real / as_complex: the same storage under the other dtype ---- */
static pd_status as_real_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_as_real_args *a = (const pd_as_real_args *)args;
  (void)n_out;
  pd_tensor *x = a->x;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    sh[d] = x->shape[d];
    st[d] = x->strides[d] * 2;
  }
  sh[x->ndim] = 2;
  st[x->ndim] = 1;
  return pd_tensor_from_storage(x->storage, (pd_dtype)pd_complex_part_dtype(x->dtype), x->ndim + 1, sh, st,
                                x->offset * 2, &out[0]);
}
PD_STAMP1(as_real, as_real_impl, c64) PD_STAMP1(as_real, as_real_impl, c128)

static pd_status as_complex_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_as_complex_args *a = (const pd_as_complex_args *)args;
  (void)n_out;
  pd_meta m;
  pd_meta_list ml = {0, NULL, {{0}}};
  PD_TRY(pd_infer_as_complex(args, &ml));
  m = ml.m[0];
  pd_meta_list_free(&ml);
  pd_tensor *x = a->x;
  /* pairs must be adjacent and every complex element aligned: else view a contiguous copy */
  int ok = x->strides[x->ndim - 1] == 1 && x->offset % 2 == 0;
  for (int d = 0; ok && d < x->ndim - 1; d++) ok = x->shape[d] == 1 || x->strides[d] % 2 == 0;
  pd_tensor *src = x;
  if (!ok) PD_TRY(pd_tensor_clone(x, &src));
  else pd_tensor_retain(src);
  int64_t st[PD_MAX_DIMS];
  for (int d = 0; d < m.ndim; d++) st[d] = src->ndim > 1 ? src->strides[d] / 2 : 1;
  pd_status s = pd_tensor_from_storage(src->storage, m.dtype, m.ndim, m.shape, st, src->offset / 2, &out[0]);
  pd_tensor_release(src);
  return s;
}
PD_STAMP1(as_complex, as_complex_impl, c64) PD_STAMP1(as_complex, as_complex_impl, c128)
