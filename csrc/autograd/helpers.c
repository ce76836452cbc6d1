/* Helpers used by backward rules. Each runs forward ops through pd_op_run, so with
 * create_graph the rules that use them are differentiable too. */
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_run1(int op, const void *args, pd_tensor **out) {
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  PD_TRY(pd_op_run(op, args, &o, &n));
  for (int i = 1; i < n; i++) pd_tensor_release(o[i]);
  *out = o[0];
  if (o != buf) free(o);
  return PD_OK;
}

pd_status pd_bw_unbroadcast(pd_tensor *g, const pd_tensor *like, pd_tensor **out) {
  int same = g->ndim == like->ndim;
  for (int d = 0; same && d < g->ndim; d++) same = g->shape[d] == like->shape[d];
  if (same) {
    pd_tensor_retain(g);
    *out = g;
    return PD_OK;
  }
  int64_t axes[PD_MAX_DIMS];
  int na = 0, off = g->ndim - like->ndim;
  if (off < 0)
    return pd_set_error(PD_ERR_FATAL, "unbroadcast: gradient has fewer dims than its input");
  for (int d = 0; d < g->ndim; d++)
    if (d < off || (like->shape[d - off] == 1 && g->shape[d] != 1)) axes[na++] = d;
  pd_tensor *s = g;
  pd_tensor_retain(g);
  if (na > 0) {
    pd_sum_args a = {g, {axes, na}, 1, -1};
    pd_tensor_release(s);
    PD_TRY(pd_bw_run1(PD_OP_SUM, &a, &s));
  }
  pd_status st;
  if (pd_bw_has_unknown(like)) {
    /* summed with keepdim: only the leading broadcast dims (now 1) are left to drop */
    if (off > 0) {
      int64_t lead[PD_MAX_DIMS];
      for (int d = 0; d < off; d++) lead[d] = d;
      pd_squeeze_args q = {s, {lead, off}};
      st = pd_bw_run1(PD_OP_SQUEEZE, &q, out);
    } else {
      pd_tensor_retain(s);
      *out = s;
      st = PD_OK;
    }
  } else {
    pd_reshape_args r = {s, {like->shape, like->ndim}};
    st = pd_bw_run1(PD_OP_RESHAPE, &r, out);
  }
  pd_tensor_release(s);
  return st;
}

static pd_status fill_like(const pd_tensor *like, double v, pd_tensor **out) {
  if (pd_bw_has_unknown(like)) {
    pd_full_like_args f = {(pd_tensor *)like, pd_scalar_float(v), (int)like->dtype};
    return pd_bw_run1(PD_OP_FULL_LIKE, &f, out);
  }
  pd_full_args a = {{like->shape, like->ndim}, pd_scalar_float(v), (int)like->dtype};
  return pd_bw_run1(PD_OP_FULL, &a, out);
}

pd_status pd_bw_zeros_like(const pd_tensor *like, pd_tensor **out) { return fill_like(like, 0.0, out); }
pd_status pd_bw_ones_like(const pd_tensor *like, pd_tensor **out) { return fill_like(like, 1.0, out); }

pd_status pd_bw_scalar(double v, const pd_tensor *like, pd_tensor **out) {
  int64_t one = 1;
  pd_full_args a = {{&one, 1}, pd_scalar_float(v), (int)like->dtype};
  return pd_bw_run1(PD_OP_FULL, &a, out);
}

pd_status pd_bw_expand_reduced(pd_tensor *g, const pd_tensor *like, pd_int_array axis, int keepdim,
                               pd_tensor **out) {
  if (like->ndim == 0 && g->numel == 1) { /* a 0-D input gets a 0-D gradient at either level */
    pd_reshape_args r = {g, {NULL, 0}};
    pd_scalar_keep_0d++;
    pd_status s = pd_bw_run1(PD_OP_RESHAPE, &r, out);
    pd_scalar_keep_0d--;
    return s;
  }
  pd_tensor *t = g;
  pd_tensor_retain(g);
  if (!keepdim) {
    /* put back the reduced axes as size-1 dims (all axes when the list is empty) */
    int64_t shape[PD_MAX_DIMS];
    int red[PD_MAX_DIMS] = {0};
    if (axis.n == 0) {
      for (int d = 0; d < like->ndim; d++) red[d] = 1;
    } else {
      for (int64_t i = 0; i < axis.n; i++) {
        int ax;
        pd_status s = pd_norm_axis("backward", axis.data[i], like->ndim, &ax);
        if (s != PD_OK) {
          pd_tensor_release(t);
          return s;
        }
        red[ax] = 1;
      }
    }
    for (int d = 0; d < like->ndim; d++) shape[d] = red[d] ? 1 : like->shape[d];
    pd_tensor *u;
    pd_status s;
    int na = 0;
    for (int d = 0; d < like->ndim; d++) na += red[d];
    if (pd_bw_has_unknown(like) && na < like->ndim) {
      /* put the reduced axes back without naming the other (unknown) dims */
      int64_t ax[PD_MAX_DIMS];
      na = 0;
      for (int d = 0; d < like->ndim; d++)
        if (red[d]) ax[na++] = d;
      pd_unsqueeze_args ua = {t, {ax, na}};
      s = pd_bw_run1(PD_OP_UNSQUEEZE, &ua, &u);
    } else {
      pd_reshape_args r = {t, {shape, like->ndim}};
      s = pd_bw_run1(PD_OP_RESHAPE, &r, &u);
    }
    pd_tensor_release(t);
    if (s != PD_OK) return s;
    t = u;
  }
  pd_status s;
  if (pd_bw_has_unknown(like)) {
    pd_expand_as_args e = {t, (pd_tensor *)like};
    s = pd_bw_run1(PD_OP_EXPAND_AS, &e, out);
  } else {
    pd_expand_args e = {t, {like->shape, like->ndim}};
    s = pd_bw_run1(PD_OP_EXPAND, &e, out);
  }
  pd_tensor_release(t);
  return s;
}

pd_status pd_bw_conj(pd_tensor *t, pd_tensor **out) {
  if (!pd_dtype_is_complex(t->dtype)) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  pd_conj_args a = {t};
  return pd_bw_run1(PD_OP_CONJ, &a, out);
}
