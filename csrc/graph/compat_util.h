/* Small expression builders shared by the custom converters (compat_ops.c, compat_manip.c,
 * compat_nn.c): each runs one of our ops through pd_cv_run and returns a new reference. */
#ifndef PD_COMPAT_UTIL_H
#define PD_COMPAT_UTIL_H
#include "pd_compat.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_cvx_unary(pd_convert_ctx *c, int op, pd_tensor *x, pd_tensor **o);
pd_status pd_cvx_binary(pd_convert_ctx *c, int op, pd_tensor *x, pd_tensor *y, pd_tensor **o);
/* x * s + b (bias after the scale) */
pd_status pd_cvx_scale(pd_convert_ctx *c, pd_tensor *x, double s, double b, pd_tensor **o);
pd_status pd_cvx_clip(pd_convert_ctx *c, pd_tensor *x, double lo, double hi, pd_tensor **o);
/* a tensor like x filled with v (dtype -1: x's) */
pd_status pd_cvx_full_like(pd_convert_ctx *c, pd_tensor *x, double v, int dtype, pd_tensor **o);
pd_status pd_cvx_cast(pd_convert_ctx *c, pd_tensor *x, int dtype, pd_tensor **o);
pd_status pd_cvx_reshape(pd_convert_ctx *c, pd_tensor *x, const int64_t *shape, int n, pd_tensor **o);
/* the tensors of a list slot (one value each) as one 1-D tensor; *o = NULL when the slot is empty */
pd_status pd_cvx_list(pd_convert_ctx *c, const char *slot, pd_tensor **o);
/* x unsqueezed so that y (rank ry) broadcasts against it from axis (Paddle's elementwise axis) */
pd_status pd_cvx_align(pd_convert_ctx *c, pd_tensor *y, int rx, int64_t axis, pd_tensor **o);
/* the int list attribute, or NULL with *n = -1 */
const int64_t *pd_cvx_ints(pd_convert_ctx *c, const char *name, int64_t *n, pd_status *st);
/* our data_format for a Paddle layout string ("AnyLayout" is channel-first) and rank */
const char *pd_cvx_format(const char *layout, int ndim);

#endif
