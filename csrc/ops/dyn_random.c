/* Random ops whose shape comes from a tensor when they run (ops/dyn_random.yaml): gaussian_dyn
 * reads its int shape tensor and runs gaussian (same generator, same numbers). While a program
 * is built the shape tensor has no data: the output has its rank (the shape's length) with
 * unknown dims. */
#include <math.h>
#include <stdlib.h>
#include "generated/pd_ops_gen.h"
#include "../core/pd_device.h"
#include "dyn_ops.h"

static pd_status shape_values(const pd_tensor *t, int64_t *dst, int64_t *n) {
  if (t->dtype != PD_INT32 && t->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[gaussian] expected an int32 or int64 shape tensor, received %s",
                        pd_dtype_name(t->dtype));
  if (t->ndim > 1 || t->numel > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[gaussian] expected a 1-D shape tensor of at most %d "
                        "entries, received shape of %d dims and %lld entries", PD_MAX_DIMS, t->ndim,
                        (long long)t->numel);
  for (int64_t i = 0; i < t->numel; i++) {
    unsigned char buf[16];
    const void *p;
    PD_TRY(pd_elem_host(t, t->offset + i * (t->ndim ? t->strides[0] : 0), buf, &p));
    dst[i] = pd_load_as_int64(p, t->dtype);
  }
  *n = t->numel;
  return PD_OK;
}

static void resolve(const pd_gaussian_dyn_args *a, int64_t *sh, int64_t n, pd_gaussian_args *g) {
  g->shape.data = sh;
  g->shape.n = n;
  g->mean = a->mean;
  g->std = a->std;
  g->seed = a->seed;
  g->dtype = a->dtype;
}

pd_status pd_infer_gaussian_dyn(const void *args, pd_meta_list *out) {
  const pd_gaussian_dyn_args *a = (const pd_gaussian_dyn_args *)args;
  int64_t sh[PD_MAX_DIMS], n = 0;
  if (!a->shape->storage) { /* a program being built: the rank only */
    if (a->shape->ndim > 1 || a->shape->numel > PD_MAX_DIMS)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[gaussian] expected a 1-D shape tensor of at most %d entries",
                          PD_MAX_DIMS);
    if (!(a->std >= 0) || !isfinite(a->std) || !isfinite(a->mean))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[gaussian] expected finite mean and std >= 0, "
                          "received mean=%g, std=%g", a->mean, a->std);
    pd_meta *m = pd_meta_list_resize(out, 1);
    m->dtype = a->dtype >= 0 ? a->dtype : PD_FLOAT32;
    m->ndim = a->shape->numel < 0 ? -1 : (int)a->shape->numel;
    for (int i = 0; i < m->ndim; i++) m->shape[i] = -1;
    return PD_OK;
  }
  PD_TRY(shape_values(a->shape, sh, &n));
  pd_gaussian_args g;
  resolve(a, sh, n, &g);
  return pd_op_defs[PD_OP_GAUSSIAN].infer_meta(&g, out);
}

static pd_status gaussian_dyn_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_gaussian_dyn_args *a = (const pd_gaussian_dyn_args *)args;
  int64_t sh[PD_MAX_DIMS], n = 0;
  PD_TRY(shape_values(a->shape, sh, &n));
  pd_gaussian_args g;
  resolve(a, sh, n, &g);
  return pd_dyn_forward(PD_OP_GAUSSIAN, &g, out, n_out);
}

pd_status pd_kernel_gaussian_dyn_f16(const void *args, pd_tensor **out, int n_out) { return gaussian_dyn_impl(args, out, n_out); }
pd_status pd_kernel_gaussian_dyn_bf16(const void *args, pd_tensor **out, int n_out) { return gaussian_dyn_impl(args, out, n_out); }
pd_status pd_kernel_gaussian_dyn_f32(const void *args, pd_tensor **out, int n_out) { return gaussian_dyn_impl(args, out, n_out); }
pd_status pd_kernel_gaussian_dyn_f64(const void *args, pd_tensor **out, int n_out) { return gaussian_dyn_impl(args, out, n_out); }
