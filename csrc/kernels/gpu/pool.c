/* GPU kernels of pool2d / pool3d / pool2d_grad (ops/pool.yaml): the geometry is the CPU's
 * (pd_pool_geom_make, csrc/kernels/cpu/conv_geom.h), the launcher (csrc/cuda/pool.cu, at the end of
 * the 'misc' table) runs the CPU's generic loops (csrc/kernels/cpu/pool.c) on contiguous NCHW or
 * channels-last data in place. float32 / float64, the CPU kernel's dtypes. */
#include <string.h>
#include "../../core/pd_device.h"
#include "../../ops/pd_op.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../../cuda/pd_cuda_misc.h"
#include "../cpu/conv_geom.h"
#include "pd_gpu_extra.h"

#define MISC (pd_cuda->misc)

static pd_status run_pool(const char *op, const pd_pool_geom *pg, int mode, pd_tensor *x, pd_tensor *dout,
                          pd_tensor *y) {
  if (!pd_cuda || !MISC || !MISC->pool)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
  if (x->layout) return pd_cu_unsupported(op, x->dtype); /* blocked layouts are the CPU executor's */
  if (y->dtype != PD_FLOAT32 && y->dtype != PD_FLOAT64) return pd_cu_unsupported(op, y->dtype);
  pd_cuda_pool_geom g;
  memset(&g, 0, sizeof g);
  g.is_max = pg->is_max;
  g.exclusive = pg->exclusive;
  g.adaptive = pg->adaptive;
  g.nhwc = pg->nhwc;
  g.N = pg->N;
  g.C = pg->C;
  for (int i = 0; i < 3; i++) {
    g.in[i] = pg->in[i];
    g.out[i] = pg->out[i];
    g.k[i] = pg->k[i];
    g.s[i] = pg->s[i];
    g.pl[i] = pg->pl[i];
    g.pr[i] = pg->pr[i];
  }
  pd_tensor *xc = NULL, *dc = NULL;
  pd_status s = pd_tensor_contiguous(x, &xc);
  if (s == PD_OK && dout) s = pd_tensor_contiguous(dout, &dc);
  pd_tensor *yc = y;
  if (s == PD_OK && !pd_tensor_is_contiguous(y)) s = pd_tensor_empty(y->dtype, y->ndim, y->shape, &yc);
  if (s == PD_OK)
    s = pd_cu_status(MISC->pool((int)y->dtype, mode, &g, pd_tensor_data(xc), dc ? pd_tensor_data(dc) : NULL,
                                pd_tensor_data(yc)),
                     op);
  if (yc != y) {
    if (s == PD_OK) s = pd_tensor_copy_(y, yc);
    pd_tensor_release(yc);
  }
  if (xc) pd_tensor_release(xc);
  if (dc) pd_tensor_release(dc);
  return s;
}

#define GEOM(a, op, g)                                                                              \
  PD_TRY(pd_pool_geom_make(op, (a)->x, (a)->kernel_size, (a)->strides, (a)->paddings, (a)->ceil_mode, \
                           (a)->exclusive, (a)->data_format, (a)->pooling_type, (a)->global_pooling, \
                           (a)->adaptive, (a)->padding_algorithm, g))

static pd_status gpu_pool2d(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_pool2d_args *a = (const pd_pool2d_args *)args;
  pd_pool_geom g;
  GEOM(a, "pool2d", &g);
  return run_pool("pool2d", &g, 0, a->x, NULL, out[0]);
}
static pd_status gpu_pool3d(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_pool3d_args *a = (const pd_pool3d_args *)args;
  pd_pool_geom g;
  GEOM(a, "pool3d", &g);
  return run_pool("pool3d", &g, 0, a->x, NULL, out[0]);
}
static pd_status gpu_pool2d_grad(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_pool2d_grad_args *a = (const pd_pool2d_grad_args *)args;
  pd_pool_geom g;
  GEOM(a, "pool2d_grad", &g);
  return run_pool("pool2d_grad", &g, 1, a->x, a->dout, out[0]);
}

void pd_gpu_register_pool(void) {
  if (!pd_cuda || !MISC || !MISC->pool) return;
  const unsigned f3264 = PD_DT_BIT(PD_FLOAT32) | PD_DT_BIT(PD_FLOAT64); /* the CPU kernel's dtypes */
  pd_gpu_register_mask("pool2d", f3264, gpu_pool2d);
  pd_gpu_register_mask("pool3d", f3264, gpu_pool3d);
  pd_gpu_register_mask("pool2d_grad", f3264, gpu_pool2d_grad);
}
