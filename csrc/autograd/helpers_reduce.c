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
  /* one unknown dim: a plain reshape with -1 there keeps the known dims known, when t's known
   * dims hold whole multiples of like's (so a program's unknown stays one factor) */
  int unknown = 0, zero = 0, t_unknown = 0;
  int64_t kl = 1, kt = 1;
  for (int d = 0; d < like->ndim; d++) {
    unknown += like->shape[d] < 0;
    zero |= like->shape[d] == 0;
    if (like->shape[d] > 0) kl *= like->shape[d];
  }
  for (int d = 0; d < t->ndim; d++) {
    t_unknown += t->shape[d] < 0;
    if (t->shape[d] > 0) kt *= t->shape[d];
  }
  if (unknown == 1 && !zero && (!t_unknown || (t_unknown == 1 && kt % kl == 0))) {
    pd_reshape_args r = {t, {like->shape, like->ndim}};
    return pd_bw_run1(PD_OP_RESHAPE, &r, out);
  }
  if (unknown) { /* the shape as data: shape(like) -> reshape_dyn */
    pd_shape_args sa = {(pd_tensor *)like};
    pd_tensor *sh;
    PD_TRY(pd_bw_run1(PD_OP_SHAPE, &sa, &sh));
    pd_reshape_dyn_args rd = {t, sh};
    pd_status s = pd_bw_run1(PD_OP_RESHAPE_DYN, &rd, out);
    pd_tensor_release(sh);
    return s;
  }
  pd_reshape_args r = {t, {like->shape, like->ndim}};
  return pd_bw_run1(PD_OP_RESHAPE, &r, out);
}
