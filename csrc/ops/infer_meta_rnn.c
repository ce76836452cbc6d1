/* Shape/dtype rules of the recurrent-network ops (ops/rnn.yaml): the fused LSTM cell
 * (gates [B, 4H], c_prev [B, H] -> h, c [B, H]) and its fused gradient. */
#include <stdio.h>
#include "pd_op.h"
#include "generated/pd_ops_gen.h"

static pd_status check_cell(const char *op, const pd_tensor *gates, const pd_tensor *c_prev) {
  PD_TRY(pd_check_same_dtype(op, "gates", gates, "c_prev", c_prev));
  if (gates->ndim != 2 || c_prev->ndim != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected gates [B, 4H] and c_prev [B, H] to be 2-D, received %d-D and %d-D",
                        op, gates->ndim, c_prev->ndim);
  if (gates->shape[0] != c_prev->shape[0] || gates->shape[1] != 4 * c_prev->shape[1])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected gates of shape [B, 4H] = [%lld, %lld] for c_prev [%lld, %lld], "
                        "received [%lld, %lld]", op, (long long)c_prev->shape[0],
                        (long long)(4 * c_prev->shape[1]), (long long)c_prev->shape[0],
                        (long long)c_prev->shape[1], (long long)gates->shape[0], (long long)gates->shape[1]);
  return PD_OK;
}

pd_status pd_infer_lstm_cell(const void *args, pd_meta_list *out) {
  const pd_lstm_cell_fused_args *a = (const pd_lstm_cell_fused_args *)args;
  PD_TRY(check_cell("lstm_cell_fused", a->gates, a->c_prev));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->c_prev);
  pd_meta_like(&m[1], a->c_prev);
  return PD_OK;
}

pd_status pd_infer_lstm_cell_grad(const void *args, pd_meta_list *out) {
  const pd_lstm_cell_fused_grad_args *a = (const pd_lstm_cell_fused_grad_args *)args;
  const char *op = "lstm_cell_fused_grad";
  PD_TRY(check_cell(op, a->gates, a->c_prev));
  const pd_tensor *same[3] = {a->c, a->dh, a->dc};
  const char *names[3] = {"c", "dh", "dc"};
  for (int k = 0; k < 3; k++) {
    PD_TRY(pd_check_same_dtype(op, "c_prev", a->c_prev, names[k], same[k]));
    if (same[k]->ndim != 2 || same[k]->shape[0] != a->c_prev->shape[0] ||
        same[k]->shape[1] != a->c_prev->shape[1])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to have c_prev's shape [%lld, %lld]",
                          op, names[k], (long long)a->c_prev->shape[0], (long long)a->c_prev->shape[1]);
  }
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->gates);
  pd_meta_like(&m[1], a->c_prev);
  return PD_OK;
}
