/* Kernels of ops/index_grad.yaml: take_along_axis (byte-generic gather) and put_along_axis_add
 * (per-dtype accumulation). Both walk indices in row-major order; x is read/written through a
 * contiguous copy; negative indices count from the end, out-of-range ones raise IndexError. */
#include <stdlib.h>
#include "manip_util.h"

pd_status pd_along_axis_offsets(const char *op, const pd_tensor *x, pd_tensor *indices,
                                int64_t axis, int64_t **offs) {
  int ax;
  PD_TRY(pd_norm_axis(op, axis, x->ndim, &ax));
  pd_tensor *ix;
  PD_TRY(pd_index_i64(op, indices, &ix));
  const int64_t *iv = (const int64_t *)pd_tensor_data(ix);
  int64_t n = ix->numel, xst[PD_MAX_DIMS], pos[PD_MAX_DIMS] = {0};
  pd_contiguous_strides(x->ndim, x->shape, xst);
  int64_t *o = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
  pd_status s = o ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; s == PD_OK && i < n; i++) {
    int64_t v = iv[i], dim = x->ndim ? x->shape[ax] : 1; /* a 0-D x: one element */
    if (v < -dim || v >= dim) {
      s = pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] index %lld is out of bounds for axis %d with size %lld",
                       op, (long long)v, ax, (long long)dim);
      break;
    }
    if (v < 0) v += dim;
    int64_t off = 0;
    for (int d = 0; d < x->ndim; d++) off += (d == ax ? v : pos[d]) * xst[d];
    o[i] = off;
    for (int d = ix->ndim - 1; d >= 0; d--) {
      if (++pos[d] < ix->shape[d]) break;
      pos[d] = 0;
    }
  }
  pd_tensor_release(ix);
  if (s != PD_OK) {
    free(o);
    return s;
  }
  *offs = o;
  return PD_OK;
}

static pd_status take_along_axis_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_take_along_axis_args *a = (const pd_take_along_axis_args *)args;
  (void)n_out;
  int64_t *offs;
  PD_TRY(pd_along_axis_offsets("take_along_axis", a->x, a->indices, a->axis, &offs));
  pd_tensor *xc;
  pd_status s = pd_tensor_contiguous(a->x, &xc);
  if (s == PD_OK) {
    size_t isz = pd_dtype_size(xc->dtype);
    const char *src = (const char *)pd_tensor_data(xc);
    char *dst = (char *)pd_tensor_data(out[0]);
    for (int64_t i = 0; i < out[0]->numel; i++) memcpy(dst + (size_t)i * isz, src + (size_t)offs[i] * isz, isz);
    pd_tensor_release(xc);
  }
  free(offs);
  return s;
}
PD_STAMP_ALL(take_along_axis, take_along_axis_impl)

#define PUT_ADD(SUF, T, CT)                                                                     \
  pd_status pd_kernel_put_along_axis_add_##SUF(const void *args, pd_tensor **out, int n_out) {  \
    const pd_put_along_axis_add_args *a = (const pd_put_along_axis_add_args *)args;             \
    (void)n_out;                                                                                \
    int64_t *offs;                                                                              \
    PD_TRY(pd_along_axis_offsets("put_along_axis_add", a->x, a->indices, a->axis, &offs));              \
    pd_tensor *vc = NULL;                                                                       \
    pd_status s = pd_tensor_copy_(out[0], a->x);                                                \
    if (s == PD_OK) s = pd_tensor_contiguous(a->values, &vc);                                   \
    if (s == PD_OK) {                                                                           \
      T *dst = (T *)pd_tensor_data(out[0]);                                                     \
      const T *src = (const T *)pd_tensor_data(vc);                                             \
      for (int64_t i = 0; i < vc->numel; i++) {                                                 \
        CT v = PD_LD_##SUF(dst + offs[i]) + PD_LD_##SUF(src + i);                               \
        PD_ST_##SUF(dst + offs[i], v);                                                          \
      }                                                                                         \
    }                                                                                           \
    pd_tensor_release(vc);                                                                      \
    free(offs);                                                                                 \
    return s;                                                                                   \
  }
PD_FOR_REAL(PUT_ADD)
PD_FOR_COMPLEX(PUT_ADD)
