/* Shape/dtype rules of the elementwise family whose output dtype differs from the input's:
 * atan2 (integers -> float64), abs (complex -> real), cast (the dtype attribute), and the
 * logical ops (any two equal dtypes -> bool). Shared ones live in infer_meta.c. */
#include "generated/pd_ops_gen.h"

typedef struct { pd_tensor *x, *y; } xy_args;
typedef struct { pd_tensor *x; } x_args;

/* (Tensor x, Tensor y): same dtype, broadcast; integer inputs give float64 (Paddle's atan2). */
pd_status pd_infer_atan2(const void *args, pd_meta_list *out) {
  const xy_args *a = (const xy_args *)args;
  PD_TRY(pd_check_same_dtype("atan2", "x", a->x, "y", a->y));
  pd_meta *m = pd_meta_list_resize(out, 1);
  PD_TRY(pd_broadcast_shapes("atan2", a->x->ndim, a->x->shape, a->y->ndim, a->y->shape, &m->ndim,
                             m->shape));
  m->dtype = pd_dtype_is_int(a->x->dtype) ? PD_FLOAT64 : a->x->dtype;
  return PD_OK;
}

/* (Tensor x): x's shape; complex64 -> float32, complex128 -> float64, else x's dtype. */
pd_status pd_infer_abs(const void *args, pd_meta_list *out) {
  const x_args *a = (const x_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_like(m, a->x);
  if (a->x->dtype == PD_COMPLEX64) m->dtype = PD_FLOAT32;
  if (a->x->dtype == PD_COMPLEX128) m->dtype = PD_FLOAT64;
  return PD_OK;
}

/* cast(Tensor x, DataType dtype): x's shape, the requested dtype. */
pd_status pd_infer_cast(const void *args, pd_meta_list *out) {
  const pd_cast_args *a = (const pd_cast_args *)args;
  if (!pd_dtype_is_valid(a->dtype))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[cast] expected a target dtype, received an undefined dtype (%d)",
                        a->dtype);
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_like(m, a->x);
  m->dtype = (pd_dtype)a->dtype;
  return PD_OK;
}
