/* Kernels of ops/manip_grad.yaml: slice_scatter (a copy of x with a strided slice overwritten;
 * byte-generic: it is two strided copies). */
#include "manip_util.h"

static pd_status slice_scatter_impl(const void *args, pd_tensor **out, int n) {
  const pd_slice_scatter_args *a = (const pd_slice_scatter_args *)args;
  (void)n;
  PD_TRY(pd_tensor_copy_(out[0], a->x));
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_slice_geometry("slice_scatter", out[0], a->axes, a->starts, a->ends, &a->strides, sh,
                           st, &off));
  pd_tensor *v;
  PD_TRY(pd_tensor_view(out[0], out[0]->ndim, sh, st, off, &v));
  pd_status s = pd_tensor_copy_(v, a->value);
  pd_tensor_release(v);
  return s;
}
PD_STAMP_ALL(slice_scatter, slice_scatter_impl)
