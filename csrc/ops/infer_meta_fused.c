/* Shape/dtype rules of the inference fused ops (ops/infer_fused.yaml): fused_conv2d is
 * conv2d's geometry; fc flattens input to [prod(shape[:in_num_col_dims]), K] and gives
 * shape[:in_num_col_dims] + [N] for a weight [K, N]. */
#include "generated/pd_ops_gen.h"
#include "../kernels/cpu/conv_geom.h"

pd_status pd_infer_fused_conv2d(const void *args, pd_meta_list *out) {
  const pd_fused_conv2d_args *a = (const pd_fused_conv2d_args *)args;
  pd_conv_geom g;
  PD_TRY(pd_check_same_dtype("fused_conv2d", "input", a->input, "filter", a->filter));
  PD_TRY(pd_conv_geom_fwd("fused_conv2d", a->input, a->filter->shape, a->filter->ndim, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  if (g.nsp != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fused_conv2d] expected a 4-D input, received %d dims",
                        a->input->ndim);
  if (a->bias) {
    PD_TRY(pd_check_same_dtype("fused_conv2d", "input", a->input, "bias", a->bias));
    if (a->bias->numel != g.O)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fused_conv2d] expected a bias of %lld elements, received %lld",
                          (long long)g.O, (long long)a->bias->numel);
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->input->dtype;
  pd_conv_shape(&g, g.O, g.out, &m->ndim, m->shape);
  if (a->residual_data) { /* added to the convolution's output: the same shape (no broadcasting) */
    const pd_tensor *r = a->residual_data;
    PD_TRY(pd_check_same_dtype("fused_conv2d", "input", a->input, "residual_data", r));
    int same = r->ndim == m->ndim;
    for (int i = 0; same && i < r->ndim; i++) same = r->shape[i] == m->shape[i] || r->shape[i] < 0 || m->shape[i] < 0;
    if (!same) {
      char b1[128], b2[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[fused_conv2d] expected residual_data of the output's shape %s, received %s",
                          pd_shape_str(m->ndim, m->shape, b1, sizeof b1), pd_shape_str(r->ndim, r->shape, b2, sizeof b2));
    }
  }
  return PD_OK;
}

pd_status pd_infer_fc(const void *args, pd_meta_list *out) {
  const pd_fc_args *a = (const pd_fc_args *)args;
  PD_TRY(pd_check_same_dtype("fc", "input", a->input, "w", a->w));
  if (a->w->ndim != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fc] expected a 2-D weight W, received %d dims", a->w->ndim);
  const int64_t nc = a->in_num_col_dims;
  if (nc < 1 || nc >= a->input->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fc] expected in_num_col_dims in [1, %d), received %lld",
                        a->input->ndim, (long long)nc);
  int64_t k = 1;
  for (int i = (int)nc; i < a->input->ndim; i++) k *= a->input->shape[i];
  if (k >= 0 && a->w->shape[0] >= 0 && k != a->w->shape[0])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[fc] the input's flattened width (%lld) must equal W's first dimension (%lld)", (long long)k,
                        (long long)a->w->shape[0]);
  if (a->bias) {
    PD_TRY(pd_check_same_dtype("fc", "input", a->input, "bias", a->bias));
    if (a->bias->numel != a->w->shape[1])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fc] expected a bias of %lld elements, received %lld",
                          (long long)a->w->shape[1], (long long)a->bias->numel);
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->input->dtype;
  m->ndim = (int)nc + 1;
  for (int i = 0; i < nc; i++) m->shape[i] = a->input->shape[i];
  m->shape[nc] = a->w->shape[1];
  return PD_OK;
}
