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

#endif
