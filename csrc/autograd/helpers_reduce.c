/* Formula helpers for the reduction family's backward rules (see helpers_reduce.h). */
#include "helpers_reduce.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_reshape_to(pd_tensor *t, const pd_tensor *like, pd_tensor **out) {
  int same = t->ndim == like->ndim;
  for (int d = 0; same && d < t->ndim; d++) same = t->shape[d] == like->shape[d];
  if (same) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  pd_reshape_args r = {t, {like->shape, like->ndim}};
  return pd_bw_run1(PD_OP_RESHAPE, &r, out);
}
