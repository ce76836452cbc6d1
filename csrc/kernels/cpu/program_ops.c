/* Kernels of the program-support ops (ops/program.yaml): assign_value writes its float list
 * (doubles hold every int32 and float32 exactly) in the output dtype; shape writes the input's
 * dims as int32; full_like fills; expand_as broadcasts x to y's shape. */
#include "manip_util.h"

static pd_status assign_value_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_assign_value_args *a = (const pd_assign_value_args *)args;
  pd_tensor *o = out[0];
  char *d = (char *)pd_tensor_data(o);
  size_t es = pd_dtype_size(o->dtype);
  for (int64_t i = 0; i < o->numel; i++) pd_store_from_double(d + i * (int64_t)es, o->dtype, a->values.data[i]);
  return PD_OK;
}
PD_STAMP1(assign_value, assign_value_impl, bool)
PD_STAMP_REAL(assign_value, assign_value_impl)

pd_status pd_kernel_shape_i32(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_shape_args *a = (const pd_shape_args *)args;
  int32_t *d = (int32_t *)pd_tensor_data(out[0]);
  for (int i = 0; i < a->x->ndim; i++) d[i] = (int32_t)a->x->shape[i];
  return PD_OK;
}

static pd_status full_like_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_full_like_args *a = (const pd_full_like_args *)args;
  /* the full kernel itself, so full_like and full give the same bits */
  pd_full_args f = {{out[0]->shape, out[0]->ndim}, a->value, (int)out[0]->dtype};
  return pd_op_defs[PD_OP_FULL].kernels[out[0]->dtype](&f, out, 1);
}
PD_STAMP_ALL(full_like, full_like_impl)

static pd_status expand_as_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_expand_as_args *a = (const pd_expand_as_args *)args;
  if (out[0]->numel == 0) return PD_OK;
  return pd_tensor_copy_(out[0], a->x);
}
PD_STAMP_ALL(expand_as, expand_as_impl)

/* the scale kernel itself with factor / (numel(a) / numel(b) - offset), computed in double as
 * the eager rules computed it, so both give the same bits */
static pd_status scale_numel_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_scale_numel_args *a = (const pd_scale_numel_args *)args;
  double n = (double)a->a->numel / (double)(a->b->numel ? a->b->numel : 1);
  double s = a->factor / (n - a->offset);
  pd_scale_args sa = {a->x, pd_scalar_float(s), pd_scalar_float(0.0), 1};
  return pd_op_defs[PD_OP_SCALE].kernels[a->x->dtype](&sa, out, 1);
}
PD_STAMP1(scale_numel, scale_numel_impl, f16)
PD_STAMP1(scale_numel, scale_numel_impl, bf16)
PD_STAMP1(scale_numel, scale_numel_impl, f32)
PD_STAMP1(scale_numel, scale_numel_impl, f64)
PD_STAMP1(scale_numel, scale_numel_impl, c64)
PD_STAMP1(scale_numel, scale_numel_impl, c128)

static pd_status full_dyn_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_full_dyn_args *a = (const pd_full_dyn_args *)args;
  pd_full_args f = {{out[0]->shape, out[0]->ndim}, a->value, (int)out[0]->dtype};
  return pd_op_defs[PD_OP_FULL].kernels[out[0]->dtype](&f, out, 1);
}
PD_STAMP_ALL(full_dyn, full_dyn_impl)
