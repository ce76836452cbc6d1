/* Formula helpers for the reduction family's backward rules (see helpers_reduce.h). */
#include "helpers_reduce.h"
#include "../graph/pd_program.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_reshape_to(pd_tensor *t, const pd_tensor *like, pd_tensor **out) {
  int same = t->ndim == like->ndim;
  for (int d = 0; same && d < t->ndim; d++) same = t->shape[d] == like->shape[d];
  if (same) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  if (pd_bw_has_unknown(like)) { /* the shape as data: shape(like) -> reshape_dyn */
    pd_shape_args sa = {(pd_tensor *)like};
    pd_tensor *sh;
    PD_TRY(pd_bw_run1(PD_OP_SHAPE, &sa, &sh));
    pd_reshape_dyn_args rd = {t, sh, {like->shape, like->ndim}};
    pd_status s = pd_bw_run1(PD_OP_RESHAPE_DYN, &rd, out);
    pd_tensor_release(sh);
    /* the result has like's shape: its known dims are known in the program too */
    if (s == PD_OK) pd_meta_refine_dims(*out, like->ndim, like->shape);
    return s;
  }
  pd_reshape_args r = {t, {like->shape, like->ndim}};
  return pd_bw_run1(PD_OP_RESHAPE, &r, out);
}
