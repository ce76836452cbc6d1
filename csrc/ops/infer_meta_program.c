/* Shape/dtype rules of the program-support ops (ops/program.yaml): assign_value, shape,
 * full_like, expand_as. */
#include "generated/pd_ops_gen.h"
#include "../core/pd_device.h"
#include "infer_meta_manip.h"

pd_status pd_infer_assign_value(const void *args, pd_meta_list *out) {
  const pd_assign_value_args *a = (const pd_assign_value_args *)args;
  if (a->shape.n > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[assign_value] expected at most %d dims, received %lld",
                        PD_MAX_DIMS, (long long)a->shape.n);
  int64_t n = 1;
  for (int64_t i = 0; i < a->shape.n; i++) {
    if (a->shape.data[i] < 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[assign_value] expected shape[%lld] >= 0, received %lld",
                          (long long)i, (long long)a->shape.data[i]);
    n *= a->shape.data[i];
  }
  if (n != a->values.n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[assign_value] shape holds %lld elements but %lld "
                        "values were given", (long long)n, (long long)a->values.n);
  if (!pd_dtype_is_valid(a->dtype) || pd_dtype_is_complex((pd_dtype)a->dtype))
    return pd_set_error(PD_ERR_TYPE, "[assign_value] expected a bool, integer or float dtype, received code %d",
                        a->dtype);
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, (pd_dtype)a->dtype, (int)a->shape.n, a->shape.data);
  return PD_OK;
}

pd_status pd_infer_shape_op(const void *args, pd_meta_list *out) {
  const pd_shape_args *a = (const pd_shape_args *)args;
  int64_t nd = a->x->ndim;
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, PD_INT32, 1, &nd);
  return PD_OK;
}

pd_status pd_infer_full_like(const void *args, pd_meta_list *out) {
  const pd_full_like_args *a = (const pd_full_like_args *)args;
  if (a->dtype >= 0 && !pd_dtype_is_valid(a->dtype))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[full_like] unknown dtype code %d", a->dtype);
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, a->dtype >= 0 ? (pd_dtype)a->dtype : a->x->dtype, a->x->ndim, a->x->shape);
  return PD_OK;
}

pd_status pd_infer_expand_as(const void *args, pd_meta_list *out) {
  const pd_expand_as_args *a = (const pd_expand_as_args *)args;
  int nd = a->y->ndim, xd = a->x->ndim;
  if (nd < xd) {
    char b1[128], b2[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[expand_as] cannot expand x of shape %s to the "
                        "shape %s of y: y has fewer dims", pd_shape_str(xd, a->x->shape, b1, sizeof b1),
                        pd_shape_str(nd, a->y->shape, b2, sizeof b2));
  }
  for (int i = 0; i < xd; i++) {
    int64_t xs = a->x->shape[i], ys = a->y->shape[i + nd - xd];
    if (xs != 1 && xs != ys) {
      char b1[128], b2[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[expand_as] cannot expand x of shape %s to the "
                          "shape %s of y (dim %d: %lld vs %lld)", pd_shape_str(xd, a->x->shape, b1, sizeof b1),
                          pd_shape_str(nd, a->y->shape, b2, sizeof b2), i, (long long)xs, (long long)ys);
    }
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, a->x->dtype, nd, a->y->shape);
  return PD_OK;
}

/* reshape_dyn: the shape comes from a 1-D int tensor (Paddle's reshape2 "Shape" input); while a
 * program is built it has no data, so the output has its rank and unknown dims */
pd_status pd_infer_reshape_dyn(const void *args, pd_meta_list *out) {
  const pd_reshape_dyn_args *a = (const pd_reshape_dyn_args *)args;
  const pd_tensor *s = a->shape;
  if (s->dtype != PD_INT32 && s->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[reshape_dyn] expected shape to be int32 or int64, received %s",
                        pd_dtype_name(s->dtype));
  /* a shape tensor of run-time length (squeeze's kept dims, a masked_select): while a program is
   * built the recorder's placeholder stands for its length; the rank is the caller's known list */
  int run_len = !s->storage && a->known.n && pd_trace_placeholders_active();
  if (run_len) {
    pd_meta *m = pd_meta_list_resize(out, 1);
    m->dtype = a->x->dtype;
    m->ndim = (int)a->known.n;
    for (int i = 0; i < m->ndim; i++) m->shape[i] = a->known.data[i] >= 0 ? a->known.data[i] : -1;
    return PD_OK;
  }
  if (s->ndim > 1 || (s->numel >= 0 && s->numel > PD_MAX_DIMS))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[reshape_dyn] expected a 1-D shape of at most %d "
                        "entries, received %d dims", PD_MAX_DIMS, s->ndim);
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  if (!s->storage) { /* building a program: the dims known so far */
    m->ndim = s->numel < 0 ? (a->known.n ? (int)a->known.n : -1) : (int)s->numel;
    for (int i = 0; i < m->ndim; i++) m->shape[i] = a->known.n == m->ndim && a->known.data[i] >= 0 ? a->known.data[i] : -1;
    return PD_OK;
  }
  int64_t dims[PD_MAX_DIMS];
  for (int64_t i = 0; i < s->numel; i++) {
    unsigned char buf[16];
    const void *p;
    PD_TRY(pd_elem_host(s, s->offset + i * (s->ndim ? s->strides[0] : 0), buf, &p));
    dims[i] = pd_load_as_int64(p, s->dtype);
  }
  pd_int_array sh = {dims, s->numel};
  return pd_reshape_shape("reshape_dyn", a->x, sh, &m->ndim, m->shape);
}

pd_status pd_infer_scale_numel(const void *args, pd_meta_list *out) {
  const pd_scale_numel_args *a = (const pd_scale_numel_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_like(m, a->x);
  return PD_OK;
}

/* full_dyn: the shape's values when it has data (the executor), else its rank with unknown dims */
pd_status pd_infer_full_dyn(const void *args, pd_meta_list *out) {
  const pd_full_dyn_args *a = (const pd_full_dyn_args *)args;
  const pd_tensor *s = a->shape;
  if (s->dtype != PD_INT32 && s->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[full_dyn] expected shape to be int32 or int64, received %s",
                        pd_dtype_name(s->dtype));
  if (s->ndim != 1 || (s->numel >= 0 && s->numel > PD_MAX_DIMS))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[full_dyn] expected a 1-D shape of at most %d entries, "
                        "received %d dims", PD_MAX_DIMS, s->ndim);
  if (!pd_dtype_is_valid(a->dtype))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[full_dyn] unknown dtype code %d", a->dtype);
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = (pd_dtype)a->dtype;
  if (!s->storage) {
    m->ndim = s->shape[0] < 0 ? -1 : (int)s->shape[0];
    for (int i = 0; i < m->ndim; i++) m->shape[i] = -1;
    return PD_OK;
  }
  m->ndim = (int)s->numel;
  for (int64_t i = 0; i < s->numel; i++) {
    unsigned char buf[16];
    const void *p;
    PD_TRY(pd_elem_host(s, s->offset + i * s->strides[0], buf, &p)); /* a GPU shape is read back */
    m->shape[i] = pd_load_as_int64(p, s->dtype);
    if (m->shape[i] < 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[full_dyn] expected shape[%lld] >= 0, received %lld",
                          (long long)i, (long long)m->shape[i]);
  }
  return PD_OK;
}
