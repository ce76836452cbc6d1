/* Shape helpers shared by the movement/index/sort infer_meta rules (infer_meta_manip.c) and
 * their CPU kernels, so a view kernel builds exactly the geometry its infer_meta reported. */
#ifndef PD_INFER_META_MANIP_H
#define PD_INFER_META_MANIP_H
#include "generated/pd_ops_gen.h"

/* The view of x selected by (axes, starts, ends, steps) with Python slicing clamps; steps may
 * be NULL (all 1). Writes shape, strides (elements) and offset relative to x's storage. */
pd_status pd_slice_geometry(const char *op, const pd_tensor *x, pd_int_array axes,
                            pd_int_array starts, pd_int_array ends, const pd_int_array *steps,
                            int64_t *shape, int64_t *strides, int64_t *offset);
/* reshape's target shape (0 copies the input dim, one -1 inferred); no entries: the scalar rule. */
pd_status pd_reshape_shape(const char *op, const pd_tensor *x, pd_int_array shape, int *ndim,
                           int64_t *out);
/* split's section sizes along axis (one -1 allowed); n sections into sizes[]. */
pd_status pd_split_sizes(const pd_tensor *x, pd_int_array sections, int axis, int64_t *sizes);

#endif
