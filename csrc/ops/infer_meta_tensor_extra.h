/* Shape helpers shared by the infer_meta rules of ops/tensor_extra.yaml and their kernels, so
 * the diagonal view a kernel builds is exactly the geometry infer_meta reported. */
#ifndef PD_INFER_META_TENSOR_EXTRA_H
#define PD_INFER_META_TENSOR_EXTRA_H
#include "generated/pd_ops_gen.h"

/* The view of x's diagonal (offset, axis1, axis2): x's other dims in order, then the diagonal.
 * Writes ndim, shape, strides (elements) and offset relative to x's storage. */
pd_status pd_diagonal_geometry(const char *op, const pd_tensor *x, int64_t offset, int64_t axis1,
                               int64_t axis2, int *ndim, int64_t *shape, int64_t *strides,
                               int64_t *off);
/* The real dtype of a complex one (complex64 -> float32), or -1. */
int pd_complex_part_dtype(pd_dtype t);

/* Number of (i, j) in a rows x cols matrix with j - i <= offset (lower) or j - i >= offset. */
int64_t pd_tri_count(int64_t rows, int64_t cols, int64_t offset, int lower);
/* The sliding-window view of tensor_unfold: writes ndim + 1 dims of shape (and strides when
 * strides/ost are given). */
pd_status pd_window_geometry(const char *op, int ndim, const int64_t *shape, const int64_t *strides,
                             int64_t axis, int64_t size, int64_t step, int64_t *osh, int64_t *ost);

#endif
