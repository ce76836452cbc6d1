/* Helpers shared by the reduction family (csrc/ops/infer_meta_reduce.c, reduce*.c, scan.c,
 * softmax.c): axis-list normalisation, the reduced output shape (a full reduction follows
 * the API level's scalar rule, pd_scalar_dims), and the [outer, red, inner] contiguous layout kernels work on. */
#ifndef PD_REDUCE_COMMON_H
#define PD_REDUCE_COMMON_H
#include "../../ops/pd_op.h"

typedef struct { int64_t outer, red, inner; } pd_rshape;

/* Bitmask of the reduced axes; an empty list means all axes; negative axes allowed. */
pd_status pd_reduce_mask(const char *op, int ndim, pd_int_array axis, unsigned *mask);
/* The output shape of reducing `mask` (size-1 dims with keepdim, the scalar rule if nothing is left). */
void pd_reduce_out_shape(int ndim, const int64_t *shape, unsigned mask, int keepdim, int *ondim,
                         int64_t *oshape);
/* A contiguous tensor *xc (caller releases) laid out so that the reduction is over the middle
 * dim of [outer, red, inner]: x itself when already contiguous and the reduced axes form one
 * block, else a copy with the kept axes moved first (inner = 1). */
pd_status pd_reduce_prepare(pd_tensor *x, unsigned mask, pd_tensor **xc, pd_rshape *rs);
/* Same for a single axis (scans, softmax, arg-reductions): always [outer, n, inner]. */
pd_status pd_axis_prepare(pd_tensor *x, int axis, pd_tensor **xc, pd_rshape *rs);
/* matmul_v2 shape rule (csrc/ops/infer_meta_reduce.c): M, N, K of one product and the output
 * shape (batch dims broadcast; a 1-D operand's dim removed). */
pd_status pd_matmul_shapes(const pd_tensor *x, const pd_tensor *y, int tx, int ty, int64_t *M,
                           int64_t *N, int64_t *K, int *ondim, int64_t *oshape);

#endif
