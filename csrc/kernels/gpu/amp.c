/* GPU kernels of ops/amp.yaml (paddle.amp's loss scaling): the glue between the args structs and
 * the launchers at the end of the 'misc' table (csrc/cuda/amp_unscale.cu). The CPU kernels
 * (csrc/kernels/cpu/amp.c) are the reference: a non-contiguous gradient is unscaled through a
 * contiguous copy that is copied back, every gradient's version is bumped, found_inf is [1] bool. */
#include <stdlib.h>
#include "../../core/pd_device.h"
#include "../../ops/pd_op.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../../cuda/pd_cuda_misc.h"
#include "pd_gpu_extra.h"

#define MISC (pd_cuda->misc)

static pd_status gpu_check_finite_and_unscale_(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "check_finite_and_unscale_";
  const pd_check_finite_and_unscale__args *a = (const pd_check_finite_and_unscale__args *)args;
  if (!pd_cuda || !MISC || !MISC->amp_unscale)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
  if (a->scale->dtype != PD_FLOAT32) return pd_cu_unsupported(op, a->scale->dtype);
  const int64_t n = a->x.n;
  if (n > 0x7fffffff) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] too many tensors", op);
  for (int64_t i = 0; i < n; i++) {
    pd_dtype dt = a->x.data[i]->dtype;
    if (dt != PD_FLOAT16 && dt != PD_BFLOAT16 && dt != PD_FLOAT32 && dt != PD_FLOAT64) return pd_cu_unsupported(op, dt);
  }
  size_t m = (size_t)(n > 0 ? n : 1);
  void **data = malloc(m * sizeof *data);
  int64_t *numel = malloc(m * sizeof *numel);
  int *dtype = malloc(m * sizeof *dtype);
  pd_tensor **c = calloc(m, sizeof *c);
  pd_status s = PD_OK;
  if (!data || !numel || !dtype || !c) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
  for (int64_t i = 0; s == PD_OK && i < n; i++) {
    pd_tensor *t = a->x.data[i];
    c[i] = t;
    if (!pd_tensor_is_contiguous(t)) s = pd_tensor_contiguous(t, &c[i]);
    if (s != PD_OK) {
      c[i] = NULL;
      break;
    }
    data[i] = pd_tensor_data(c[i]);
    numel[i] = c[i]->numel;
    dtype[i] = (int)c[i]->dtype;
  }
  if (s == PD_OK)
    s = pd_cu_status(MISC->amp_unscale((int)n, data, numel, dtype, pd_tensor_data(a->scale), pd_tensor_data(out[0])), op);
  for (int64_t i = 0; c && i < n; i++) {
    pd_tensor *t = a->x.data[i];
    if (c[i] && c[i] != t) {
      if (s == PD_OK) s = pd_tensor_copy_(t, c[i]);
      pd_tensor_release(c[i]);
    }
    if (s == PD_OK) pd_tensor_bump_version(t);
  }
  free(data);
  free(numel);
  free(dtype);
  free(c);
  return s;
}

static pd_status gpu_update_loss_scaling_(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "update_loss_scaling_";
  const pd_update_loss_scaling__args *a = (const pd_update_loss_scaling__args *)args;
  if (!pd_cuda || !MISC || !MISC->amp_update_scaling)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
  /* the CPU kernel: *scale * (float)ratio, in float32 */
  PD_TRY(pd_cu_status(MISC->amp_update_scaling(pd_tensor_data(a->loss_scaling), pd_tensor_data(a->found_inf),
                                               pd_tensor_data(a->good_steps), pd_tensor_data(a->bad_steps),
                                               a->incr_every_n_steps, a->decr_every_n_nan_or_inf,
                                               (float)a->incr_ratio, (float)a->decr_ratio),
                      op));
  out[0] = a->loss_scaling; /* in place, as the CPU kernel */
  return PD_OK;
}

void pd_gpu_register_amp(void) {
  if (!pd_cuda || !MISC) return;
  /* the CPU kernels' dtype (the scale's / loss_scaling's: float32); the gradients may be
   * float16 / bfloat16 / float32 / float64 */
  if (MISC->amp_unscale) pd_gpu_register("check_finite_and_unscale_", PD_FLOAT32, gpu_check_finite_and_unscale_);
  if (MISC->amp_update_scaling) pd_gpu_register("update_loss_scaling_", PD_FLOAT32, gpu_update_loss_scaling_);
}
