/* Loss-scaling kernel of paddle.amp.GradScaler (ops/amp.yaml): check_finite_and_unscale_
 * multiplies every gradient by 1/scale in place and reports whether any element was inf or nan,
 * in one pass per tensor (float16/bfloat16 computed in float32), split across the OpenMP pool
 * for large tensors. Like Paddle's kernel, the gradients are unscaled even when inf is found.
 * update_loss_scaling_: static AMP's dynamic loss-scale rule. */
#include "pd_kernel_util.h"

#define AMP_GRAIN 65536

/* x * 0 is nan exactly when x is inf or nan; the loop stays branch-free and vectorises */
#define DEF_UNSCALE(SUF, T, CT)                                                      \
  static int unscale_##SUF(T *restrict p, int64_t n, CT inv) {                       \
    int bad = 0;                                                                     \
    _Pragma("omp parallel for schedule(static) reduction(| : bad) if (n >= AMP_GRAIN)") \
    for (int64_t i = 0; i < n; i++) {                                                \
      CT v = (CT)PD_LD_##SUF(p + i);                                                 \
      CT z = v * (CT)0;                                                              \
      bad |= z != z;                                                                 \
      PD_ST_##SUF(p + i, v * inv);                                                   \
    }                                                                                \
    return bad;                                                                      \
  }
DEF_UNSCALE(f16, pd_float16, float)
DEF_UNSCALE(bf16, pd_bfloat16, float)
DEF_UNSCALE(f32, float, float)
DEF_UNSCALE(f64, double, double)

static pd_status unscale_one(pd_tensor *t, float inv, int *bad) {
  pd_tensor *c = t;
  if (!pd_tensor_is_contiguous(t)) PD_TRY(pd_tensor_contiguous(t, &c));
  void *p = pd_tensor_data(c);
  switch (c->dtype) {
    case PD_FLOAT16: *bad |= unscale_f16((pd_float16 *)p, c->numel, inv); break;
    case PD_BFLOAT16: *bad |= unscale_bf16((pd_bfloat16 *)p, c->numel, inv); break;
    case PD_FLOAT32: *bad |= unscale_f32((float *)p, c->numel, inv); break;
    default: *bad |= unscale_f64((double *)p, c->numel, (double)inv); break;
  }
  pd_status s = PD_OK;
  if (c != t) {
    s = pd_tensor_copy_(t, c);
    pd_tensor_release(c);
  }
  pd_tensor_bump_version(t);
  return s;
}

pd_status pd_kernel_check_finite_and_unscale__f32(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_check_finite_and_unscale__args *a = (const pd_check_finite_and_unscale__args *)args;
  float scale = *(const float *)pd_tensor_data(a->scale);
  float inv = 1.0f / scale;
  int bad = 0;
  for (int64_t i = 0; i < a->x.n; i++) PD_TRY(unscale_one(a->x.data[i], inv, &bad));
  *(uint8_t *)pd_tensor_data(out[0]) = (uint8_t)(bad != 0);
  return PD_OK;
}

/* update_loss_scaling_ (static AMP, Paddle's update_loss_scaling): the scale changes in float32 */
pd_status pd_kernel_update_loss_scaling__f32(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_update_loss_scaling__args *a = (const pd_update_loss_scaling__args *)args;
  float *scale = (float *)pd_tensor_data(a->loss_scaling);
  int32_t *good = (int32_t *)pd_tensor_data(a->good_steps);
  int32_t *bad = (int32_t *)pd_tensor_data(a->bad_steps);
  const int found = *(const uint8_t *)pd_tensor_data(a->found_inf) != 0;
  if (found) {
    *good = 0;
    *bad += 1;
    if (*bad == a->decr_every_n_nan_or_inf) {
      float s = *scale * (float)a->decr_ratio;
      *scale = s < 1.0f ? 1.0f : s;
      *bad = 0;
    }
  } else {
    *bad = 0;
    *good += 1;
    if (*good == a->incr_every_n_steps) {
      float s = *scale * (float)a->incr_ratio;
      if (isfinite(s)) *scale = s;
      *good = 0;
    }
  }
  out[0] = a->loss_scaling;
  return PD_OK;
}
