/* Shape rules of the forward ops that backward rules are built from (ops/manip_grad.yaml,
 * ops/index_grad.yaml). */
#include "infer_meta_manip.h"
#include "generated/pd_ops_gen.h"

static pd_status same_shape(const char *op, const char *what, const pd_tensor *t, int ndim,
                            const int64_t *shape) {
  int ok = t->ndim == ndim;
  for (int d = 0; ok && d < ndim; d++) ok = t->shape[d] == shape[d];
  if (ok) return PD_OK;
  char b1[128], b2[128];
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s of shape %s, received %s", op,
                      what, pd_shape_str(ndim, shape, b1, sizeof b1),
                      pd_shape_str(t->ndim, t->shape, b2, sizeof b2));
}

static pd_status same_dtype(const char *op, const pd_tensor *x, const pd_tensor *v) {
  if (x->dtype == v->dtype) return PD_OK;
  return pd_set_error(PD_ERR_TYPE, "[%s] expected the values to have x's dtype %s, received %s",
                      op, pd_dtype_name(x->dtype), pd_dtype_name(v->dtype));
}

pd_status pd_infer_slice_scatter(const void *args, pd_meta_list *out) {
  const pd_slice_scatter_args *a = (const pd_slice_scatter_args *)args;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_slice_geometry("slice_scatter", a->x, a->axes, a->starts, a->ends, &a->strides, sh,
                           st, &off));
  PD_TRY(same_dtype("slice_scatter", a->x, a->value));
  /* a program's unknown dims: the region's extent (from x's placeholder) and value's own
   * placeholder differ; the rank still has to match */
  if (pd_trace_placeholders_active() && a->value->ndim == a->x->ndim) {
  } else {
    PD_TRY(same_shape("slice_scatter", "value", a->value, a->x->ndim, sh));
  }
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

/* indices: int32/int64, x's ndim, sizes <= x's except along axis. */
static pd_status check_along(const char *op, const pd_tensor *x, const pd_tensor *ix, int64_t axis,
                             int *ax) {
  if (ix->dtype != PD_INT32 && ix->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected indices to be int32 or int64, received %s", op,
                        pd_dtype_name(ix->dtype));
  if (ix->ndim != x->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected indices with x's ndim %d, received %d",
                        op, x->ndim, ix->ndim);
  PD_TRY(pd_norm_axis(op, axis, x->ndim, ax));
  for (int d = 0; d < x->ndim; d++)
    if (d != *ax && ix->shape[d] > x->shape[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] indices.shape[%d] (%lld) exceeds x.shape[%d] (%lld)", op, d,
                          (long long)ix->shape[d], d, (long long)x->shape[d]);
  return PD_OK;
}

pd_status pd_infer_take_along_axis(const void *args, pd_meta_list *out) {
  const pd_take_along_axis_args *a = (const pd_take_along_axis_args *)args;
  int ax;
  PD_TRY(check_along("take_along_axis", a->x, a->indices, a->axis, &ax));
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, a->indices->ndim, a->indices->shape);
  return PD_OK;
}

pd_status pd_infer_put_along_axis_add(const void *args, pd_meta_list *out) {
  const pd_put_along_axis_add_args *a = (const pd_put_along_axis_add_args *)args;
  int ax;
  PD_TRY(check_along("put_along_axis_add", a->x, a->indices, a->axis, &ax));
  PD_TRY(same_dtype("put_along_axis_add", a->x, a->values));
  PD_TRY(same_shape("put_along_axis_add", "values", a->values, a->indices->ndim, a->indices->shape));
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}
