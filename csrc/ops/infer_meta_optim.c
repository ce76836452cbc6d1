/* Argument checks for the optimizer update ops (ops/optim.yaml): every accumulator must be a
 * contiguous tensor with the parameter's element count and the accumulator dtype (the parameter's
 * for float32/float64, float32 for float16/bfloat16), beta powers [1] float tensors, the master
 * copy float32 and only for 16-bit parameters. The output is the parameter itself (in place).
 * check_finite_and_unscale_ (ops/amp.yaml): a [1] float32 scale and float gradients;
 * update_loss_scaling_: [1] float32 scale, bool found_inf, int32 step counters.
 * Also the row-sparse gradient ops (ops/sparse.yaml): rows int64 [n], values [n, *row shape]. */
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

/* the optional learning_rate ([1] float) and skip_update ([1] bool) tensors of static programs */
static pd_status check_lr(const char *op, const pd_tensor *lr, const pd_tensor *skip) {
  if (lr && ((lr->dtype != PD_FLOAT32 && lr->dtype != PD_FLOAT64) || lr->numel != 1))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected learning_rate to be a float32/float64 tensor of 1 element, "
                        "received %s with %lld elements", op, pd_dtype_name(lr->dtype),
                        (long long)lr->numel);
  if (skip && (skip->dtype != PD_BOOL || skip->numel != 1))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected skip_update to be a bool tensor of 1 element, received %s "
                        "with %lld elements", op, pd_dtype_name(skip->dtype), (long long)skip->numel);
  return PD_OK;
}

static pd_status done(const pd_tensor *param, pd_meta_list *out) {
  pd_meta_like(pd_meta_list_resize(out, 1), param);
  return PD_OK;
}

pd_status pd_infer_sgd_(const void *args, pd_meta_list *out) {
  const pd_sgd__args *a = (const pd_sgd__args *)args;
  PD_TRY(check_core("sgd_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("sgd_", a->learning_rate, a->skip_update));
  return done(a->param, out);
}

pd_status pd_infer_momentum_(const void *args, pd_meta_list *out) {
  const pd_momentum__args *a = (const pd_momentum__args *)args;
  PD_TRY(check_core("momentum_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("momentum_", a->learning_rate, a->skip_update));
  PD_TRY(check_acc("momentum_", "velocity", a->velocity, a->param));
  return done(a->param, out);
}

pd_status pd_infer_adam_(const void *args, pd_meta_list *out) {
  const pd_adam__args *a = (const pd_adam__args *)args;
  PD_TRY(check_core("adam_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("adam_", a->learning_rate, a->skip_update));
  PD_TRY(check_acc("adam_", "moment1", a->moment1, a->param));
  PD_TRY(check_acc("adam_", "moment2", a->moment2, a->param));
  PD_TRY(check_pow("adam_", "beta1_pow", a->beta1_pow));
  PD_TRY(check_pow("adam_", "beta2_pow", a->beta2_pow));
  return done(a->param, out);
}

pd_status pd_infer_adamax_(const void *args, pd_meta_list *out) {
  const pd_adamax__args *a = (const pd_adamax__args *)args;
  PD_TRY(check_core("adamax_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("adamax_", a->learning_rate, a->skip_update));
  PD_TRY(check_acc("adamax_", "moment", a->moment, a->param));
  PD_TRY(check_acc("adamax_", "inf_norm", a->inf_norm, a->param));
  PD_TRY(check_pow("adamax_", "beta1_pow", a->beta1_pow));
  return done(a->param, out);
}

pd_status pd_infer_adagrad_(const void *args, pd_meta_list *out) {
  const pd_adagrad__args *a = (const pd_adagrad__args *)args;
  PD_TRY(check_core("adagrad_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("adagrad_", a->learning_rate, a->skip_update));
  PD_TRY(check_acc("adagrad_", "moment", a->moment, a->param));
  return done(a->param, out);
}

pd_status pd_infer_adadelta_(const void *args, pd_meta_list *out) {
  const pd_adadelta__args *a = (const pd_adadelta__args *)args;
  PD_TRY(check_core("adadelta_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("adadelta_", a->learning_rate, a->skip_update));
  PD_TRY(check_acc("adadelta_", "avg_squared_grad", a->avg_squared_grad, a->param));
  PD_TRY(check_acc("adadelta_", "avg_squared_update", a->avg_squared_update, a->param));
  return done(a->param, out);
}

pd_status pd_infer_rmsprop_(const void *args, pd_meta_list *out) {
  const pd_rmsprop__args *a = (const pd_rmsprop__args *)args;
  PD_TRY(check_core("rmsprop_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("rmsprop_", a->learning_rate, a->skip_update));
  PD_TRY(check_acc("rmsprop_", "mean_square", a->mean_square, a->param));
  PD_TRY(check_acc("rmsprop_", "mean_grad", a->mean_grad, a->param));
  PD_TRY(check_acc("rmsprop_", "moment", a->moment, a->param));
  return done(a->param, out);
}

pd_status pd_infer_lamb_(const void *args, pd_meta_list *out) {
  const pd_lamb__args *a = (const pd_lamb__args *)args;
  PD_TRY(check_core("lamb_", a->param, a->grad, a->master_param));
  PD_TRY(check_lr("lamb_", a->learning_rate, a->skip_update));
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
pd_status pd_infer_update_loss_scaling_(const void *args, pd_meta_list *out) {
  const pd_update_loss_scaling__args *a = (const pd_update_loss_scaling__args *)args;
  const char *op = "update_loss_scaling_";
  if (a->loss_scaling->dtype != PD_FLOAT32 || a->loss_scaling->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected loss_scaling to be a float32 tensor of 1 element",
                        op);
  if (a->found_inf->dtype != PD_BOOL || a->found_inf->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected found_inf to be a bool tensor of 1 element", op);
  if (a->good_steps->dtype != PD_INT32 || a->good_steps->numel != 1 || a->bad_steps->dtype != PD_INT32 ||
      a->bad_steps->numel != 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected good_steps and bad_steps to be int32 tensors of 1 "
                        "element", op);
  if (a->incr_every_n_steps < 1 || a->decr_every_n_nan_or_inf < 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected incr_every_n_steps and decr_every_n_nan_or_inf >= 1",
                        op);
  return done(a->loss_scaling, out);
}
/* ---- row-sparse gradients ---- */
static pd_status check_rows(const char *op, const pd_tensor *rows, const pd_tensor *values,
                            const char *like_name, const pd_tensor *like) {
  char a[128], b[128];
  if (rows->dtype != PD_INT64 || rows->ndim != 1)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected rows to be a 1-D int64 tensor, received %s %s",
                        op, pd_dtype_name(rows->dtype),
                        pd_shape_str(rows->ndim, rows->shape, a, sizeof a));
  int ok = values->ndim >= 1 && values->shape[0] == rows->numel;
  if (like) {
    ok = ok && like->ndim == values->ndim;
    for (int d = 1; ok && d < values->ndim; d++) ok = values->shape[d] == like->shape[d];
  }
  if (!ok)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected values to hold %lld rows (one per row index)%s%s%s, "
                        "received values of shape %s", op, (long long)rows->numel,
                        like ? " shaped like the rows of " : "", like ? like_name : "",
                        like ? pd_shape_str(like->ndim, like->shape, a, sizeof a) : "",
                        pd_shape_str(values->ndim, values->shape, b, sizeof b));
  if (like) PD_TRY(pd_check_same_dtype(op, like_name, like, "values", values));
  return PD_OK;
}

pd_status pd_infer_embedding_sparse_grad(const void *args, pd_meta_list *out) {
  const pd_embedding_sparse_grad_args *a = (const pd_embedding_sparse_grad_args *)args;
  if (a->weight->ndim != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[embedding_sparse_grad] expected a 2-D weight, received %d dims",
                        a->weight->ndim);
  int64_t n = -1, vs[2] = {-1, a->weight->shape[1]};
  pd_meta_list_resize(out, 2);
  pd_meta_set(&out->m[0], PD_INT64, 1, &n);
  pd_meta_set(&out->m[1], a->dout->dtype, 2, vs);
  return PD_OK;
}

pd_status pd_infer_merge_selected_rows(const void *args, pd_meta_list *out) {
  const pd_merge_selected_rows_args *a = (const pd_merge_selected_rows_args *)args;
  PD_TRY(check_rows("merge_selected_rows", a->rows, a->values, NULL, NULL));
  int64_t n = -1, vs[PD_MAX_DIMS];
  for (int d = 0; d < a->values->ndim; d++) vs[d] = d == 0 ? -1 : a->values->shape[d];
  pd_meta_list_resize(out, 2);
  pd_meta_set(&out->m[0], PD_INT64, 1, &n);
  pd_meta_set(&out->m[1], a->values->dtype, a->values->ndim, vs);
  return PD_OK;
}

pd_status pd_infer_selected_rows_add_(const void *args, pd_meta_list *out) {
  const pd_selected_rows_add__args *a = (const pd_selected_rows_add__args *)args;
  if (!pd_tensor_is_contiguous(a->x))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[selected_rows_add_] expected x to be contiguous");
  PD_TRY(check_rows("selected_rows_add_", a->rows, a->values, "x", a->x));
  return done(a->x, out);
}

pd_status pd_infer_sgd_sparse_(const void *args, pd_meta_list *out) {
  const pd_sgd_sparse__args *a = (const pd_sgd_sparse__args *)args;
  if (!pd_tensor_is_contiguous(a->param))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sgd_sparse_] expected param to be contiguous");
  PD_TRY(check_rows("sgd_sparse_", a->rows, a->values, "param", a->param));
  return done(a->param, out);
}

pd_status pd_infer_adam_sparse_(const void *args, pd_meta_list *out) {
  const pd_adam_sparse__args *a = (const pd_adam_sparse__args *)args;
  if (!pd_tensor_is_contiguous(a->param))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[adam_sparse_] expected param to be contiguous");
  PD_TRY(check_rows("adam_sparse_", a->rows, a->values, "param", a->param));
  PD_TRY(check_acc("adam_sparse_", "moment1", a->moment1, a->param));
  PD_TRY(check_acc("adam_sparse_", "moment2", a->moment2, a->param));
  PD_TRY(check_pow("adam_sparse_", "beta1_pow", a->beta1_pow));
  PD_TRY(check_pow("adam_sparse_", "beta2_pow", a->beta2_pow));
  return done(a->param, out);
}
