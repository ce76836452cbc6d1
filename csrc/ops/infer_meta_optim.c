/* Argument checks for the optimizer update ops (ops/optim.yaml): every accumulator must be a
 * contiguous tensor with the parameter's element count and the accumulator dtype (the parameter's
 * for float32/float64, float32 for float16/bfloat16), beta powers [1] float tensors, the master
 * copy float32 and only for 16-bit parameters. The output is the parameter itself (in place).
 * check_finite_and_unscale_ (ops/amp.yaml): a [1] float32 scale and float gradients. */
#include "generated/pd_ops_gen.h"

static pd_dtype acc_dtype(pd_dtype p) { return p == PD_FLOAT64 ? PD_FLOAT64 : PD_FLOAT32; }

static pd_status check_core(const char *op, const pd_tensor *param, const pd_tensor *grad,
                            const pd_tensor *master) {
  if (!pd_tensor_is_contiguous(param))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected param to be contiguous", op);
  if (grad->numel != param->numel)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected grad to have %lld elements like param, received %lld", op,
                        (long long)param->numel, (long long)grad->numel);
  PD_TRY(pd_check_same_dtype(op, "param", param, "grad", grad));
  if (master) {
    if (param->dtype != PD_FLOAT16 && param->dtype != PD_BFLOAT16)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] master_param is only used with float16/bfloat16 params, received "
                          "a %s param", op, pd_dtype_name(param->dtype));
    if (master->dtype != PD_FLOAT32 || master->numel != param->numel ||
        !pd_tensor_is_contiguous(master))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected master_param to be a contiguous float32 tensor of %lld "
                          "elements, received %s with %lld", op, (long long)param->numel,
                          pd_dtype_name(master->dtype), (long long)master->numel);
  }
  return PD_OK;
}

static pd_status check_acc(const char *op, const char *name, const pd_tensor *a,
                           const pd_tensor *param) {
  pd_dtype want = acc_dtype(param->dtype);
  if (a->dtype != want || a->numel != param->numel || !pd_tensor_is_contiguous(a))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected %s to be a contiguous %s tensor of %lld elements, received "
                        "%s with %lld elements", op, name, pd_dtype_name(want),
                        (long long)param->numel, pd_dtype_name(a->dtype), (long long)a->numel);
  return PD_OK;
}

static pd_status check_pow(const char *op, const char *name, const pd_tensor *a) {
  if ((a->dtype != PD_FLOAT32 && a->dtype != PD_FLOAT64) || a->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected %s to be a float32/float64 tensor of 1 element, received "
                        "%s with %lld elements", op, name, pd_dtype_name(a->dtype),
                        (long long)a->numel);
  return PD_OK;
}

static pd_status done(const pd_tensor *param, pd_meta_list *out) {
  pd_meta_like(pd_meta_list_resize(out, 1), param);
  return PD_OK;
}

pd_status pd_infer_sgd_(const void *args, pd_meta_list *out) {
  const pd_sgd__args *a = (const pd_sgd__args *)args;
  PD_TRY(check_core("sgd_", a->param, a->grad, a->master_param));
  return done(a->param, out);
}

pd_status pd_infer_momentum_(const void *args, pd_meta_list *out) {
  const pd_momentum__args *a = (const pd_momentum__args *)args;
  PD_TRY(check_core("momentum_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("momentum_", "velocity", a->velocity, a->param));
  return done(a->param, out);
}

pd_status pd_infer_adam_(const void *args, pd_meta_list *out) {
  const pd_adam__args *a = (const pd_adam__args *)args;
  PD_TRY(check_core("adam_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("adam_", "moment1", a->moment1, a->param));
  PD_TRY(check_acc("adam_", "moment2", a->moment2, a->param));
  PD_TRY(check_pow("adam_", "beta1_pow", a->beta1_pow));
  PD_TRY(check_pow("adam_", "beta2_pow", a->beta2_pow));
  return done(a->param, out);
}

pd_status pd_infer_adamax_(const void *args, pd_meta_list *out) {
  const pd_adamax__args *a = (const pd_adamax__args *)args;
  PD_TRY(check_core("adamax_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("adamax_", "moment", a->moment, a->param));
  PD_TRY(check_acc("adamax_", "inf_norm", a->inf_norm, a->param));
  PD_TRY(check_pow("adamax_", "beta1_pow", a->beta1_pow));
  return done(a->param, out);
}

pd_status pd_infer_adagrad_(const void *args, pd_meta_list *out) {
  const pd_adagrad__args *a = (const pd_adagrad__args *)args;
  PD_TRY(check_core("adagrad_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("adagrad_", "moment", a->moment, a->param));
  return done(a->param, out);
}

pd_status pd_infer_adadelta_(const void *args, pd_meta_list *out) {
  const pd_adadelta__args *a = (const pd_adadelta__args *)args;
  PD_TRY(check_core("adadelta_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("adadelta_", "avg_squared_grad", a->avg_squared_grad, a->param));
  PD_TRY(check_acc("adadelta_", "avg_squared_update", a->avg_squared_update, a->param));
  return done(a->param, out);
}

pd_status pd_infer_rmsprop_(const void *args, pd_meta_list *out) {
  const pd_rmsprop__args *a = (const pd_rmsprop__args *)args;
  PD_TRY(check_core("rmsprop_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("rmsprop_", "mean_square", a->mean_square, a->param));
  PD_TRY(check_acc("rmsprop_", "mean_grad", a->mean_grad, a->param));
  PD_TRY(check_acc("rmsprop_", "moment", a->moment, a->param));
  return done(a->param, out);
}

pd_status pd_infer_lamb_(const void *args, pd_meta_list *out) {
  const pd_lamb__args *a = (const pd_lamb__args *)args;
  PD_TRY(check_core("lamb_", a->param, a->grad, a->master_param));
  PD_TRY(check_acc("lamb_", "moment1", a->moment1, a->param));
  PD_TRY(check_acc("lamb_", "moment2", a->moment2, a->param));
  PD_TRY(check_pow("lamb_", "beta1_pow", a->beta1_pow));
  PD_TRY(check_pow("lamb_", "beta2_pow", a->beta2_pow));
  return done(a->param, out);
}

pd_status pd_infer_check_finite_and_unscale_(const void *args, pd_meta_list *out) {
  const pd_check_finite_and_unscale__args *a = (const pd_check_finite_and_unscale__args *)args;
  const char *op = "check_finite_and_unscale_";
  if (a->scale->dtype != PD_FLOAT32 || a->scale->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected scale to be a float32 tensor of 1 element, received %s "
                        "with %lld elements", op, pd_dtype_name(a->scale->dtype),
                        (long long)a->scale->numel);
  for (int64_t i = 0; i < a->x.n; i++)
    if (!pd_dtype_is_float(a->x.data[i]->dtype))
      return pd_set_error(PD_ERR_TYPE, "[%s] expected x[%lld] to be a float tensor, received %s",
                          op, (long long)i, pd_dtype_name(a->x.data[i]->dtype));
  int64_t one = 1;
  pd_meta_set(pd_meta_list_resize(out, 1), PD_BOOL, 1, &one);
  return PD_OK;
}
