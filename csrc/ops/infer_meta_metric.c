/* Argument checks of the metric ops (ops/metric.yaml): auc takes a 2-D float predict with
 * one row per label, int64 stat buckets large enough for num_thresholds and slide_steps, and
 * gives a [1] float64 AUC. */
#include "generated/pd_ops_gen.h"

static int64_t auc_stat_len(int64_t nt, int64_t slide) {
  return slide == 0 ? nt + 1 : (1 + slide) * (nt + 1) + 1;
}

pd_status pd_infer_auc(const void *args, pd_meta_list *out) {
  const pd_auc_args *a = (const pd_auc_args *)args;
  const char *op = "auc";
  if (a->num_thresholds < 1 || a->num_thresholds > (int64_t)1 << 30)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected num_thresholds in [1, 2^30], received %lld",
                        op, (long long)a->num_thresholds);
  if (a->slide_steps < 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected slide_steps >= 0, received %lld", op,
                        (long long)a->slide_steps);
  if (a->predict->ndim != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected predict to be 2-D [batch, classes], received %d dims",
                        op, a->predict->ndim);
  if (a->label->dtype != PD_INT64 && a->label->dtype != PD_INT32)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected label to be int32 or int64, received %s", op,
                        pd_dtype_name(a->label->dtype));
  int64_t rows = a->predict->shape[0];
  if (rows >= 0 && a->label->numel >= 0 && a->label->numel != rows)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected one label per predict row (%lld), received %lld labels",
                        op, (long long)rows, (long long)a->label->numel);
  int64_t need = auc_stat_len(a->num_thresholds, a->slide_steps);
  const pd_tensor *st[2] = {a->stat_pos, a->stat_neg};
  const char *nm[2] = {"stat_pos", "stat_neg"};
  for (int i = 0; i < 2; i++)
    if (st[i]->dtype != PD_INT64 || st[i]->numel < need || !pd_tensor_is_contiguous(st[i]))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to be a contiguous int64 tensor of at least %lld "
                          "elements (num_thresholds %lld, slide_steps %lld), received %s with %lld", op, nm[i],
                          (long long)need, (long long)a->num_thresholds, (long long)a->slide_steps,
                          pd_dtype_name(st[i]->dtype), (long long)st[i]->numel);
  if (a->ins_tag_weight && (!pd_dtype_is_float(a->ins_tag_weight->dtype) || a->ins_tag_weight->numel < 1))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected ins_tag_weight to be a float tensor of 1 element", op);
  int64_t one = 1;
  pd_meta_set(pd_meta_list_resize(out, 1), PD_FLOAT64, 1, &one);
  return PD_OK;
}
