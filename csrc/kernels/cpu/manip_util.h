/* Byte-generic helpers for the movement and index kernels (manip.c, index.c, sort.c): one
 * implementation serves every dtype, and PD_STAMP_ALL gives it the per-dtype kernel names the
 * op table expects (pd_kernel_<op>_<suffix>). */
#ifndef PD_MANIP_UTIL_H
#define PD_MANIP_UTIL_H
#include "pd_kernel_util.h"
#include "../../ops/infer_meta_manip.h"

#define PD_STAMP1(OP, IMPL, SUF)                                                   \
  pd_status pd_kernel_##OP##_##SUF(const void *args, pd_tensor **out, int n_out) { \
    return IMPL(args, out, n_out);                                                 \
  }
#define PD_STAMP_REAL(OP, IMPL)                                                          \
  PD_STAMP1(OP, IMPL, u8) PD_STAMP1(OP, IMPL, i8) PD_STAMP1(OP, IMPL, i16)              \
  PD_STAMP1(OP, IMPL, i32) PD_STAMP1(OP, IMPL, i64) PD_STAMP1(OP, IMPL, f16)            \
  PD_STAMP1(OP, IMPL, bf16) PD_STAMP1(OP, IMPL, f32) PD_STAMP1(OP, IMPL, f64)
#define PD_STAMP_ALL(OP, IMPL) \
  PD_STAMP1(OP, IMPL, bool) PD_STAMP_REAL(OP, IMPL) PD_STAMP1(OP, IMPL, c64) PD_STAMP1(OP, IMPL, c128)

/* out[i...] = x[tables[0][i0], tables[1][i1], ...]: out is contiguous, x any strides, both of
 * ndim dims; tables[d] has out->shape[d] entries, each a valid index into x's dim d. */
void pd_gather_dims(pd_tensor *out, const pd_tensor *x, int64_t *const *tables);
/* index as a contiguous int64 tensor (int32/int64 accepted). */
pd_status pd_index_i64(const char *op, pd_tensor *index, pd_tensor **out);
/* For every element of indices (row-major): its element offset into a contiguous x, with the
 * index replacing the coordinate on axis (take/put_along_axis). Negative indices count from
 * the end; out-of-range ones raise IndexError. *offs is malloc'd (caller frees). */
pd_status pd_along_axis_offsets(const char *op, const pd_tensor *x, pd_tensor *indices,
                                int64_t axis, int64_t **offs);
/* A view of t with dims a and b swapped. */
pd_status pd_swap_view(pd_tensor *t, int a, int b, pd_tensor **out);

#endif
