/* Custom converters of ops/compat.yaml: Paddle ops whose attributes need more than renaming.
 * Loaders read a program op into our ops; savers write extra attributes when we record. */
#include <stdlib.h>
#include <string.h>
#include "pd_compat.h"
#include "pd_trace.h"
#include "../ops/generated/pd_ops_gen.h"

/* elementwise_*: Paddle's axis puts y's dims at x's dim `axis` (-1: aligned right, numpy) */
pd_status pd_cv_load_elementwise(pd_convert_ctx *c) {
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  pd_status st = PD_OK;
  int64_t axis = pd_cv_int(c, "axis", -1, &st);
  PD_TRY(st);
  pd_tensor *x = pd_cv_in(c, "X", 0), *y = pd_cv_in(c, "Y", 0);
  if (!x || !y)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] needs inputs X and Y", pd_cv_op(c)->type);
  if (axis < 0 || x->ndim == y->ndim || axis == x->ndim - y->ndim) return pd_cv_generic(c, def, our);
  /* trailing 1s of y beyond x's rank are dropped, then y is unsqueezed around `axis` */
  int yn = y->ndim;
  while (yn > 0 && axis + yn > x->ndim && y->shape[yn - 1] == 1) yn--;
  if (axis + yn > x->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] axis %lld with Y of rank %d does not fit X of "
                        "rank %d", pd_cv_op(c)->type, (long long)axis, y->ndim, x->ndim);
  pd_tensor *yy = y;
  pd_tensor_retain(y);
  if (yn != y->ndim) {
    int64_t shp[PD_MAX_DIMS];
    for (int i = 0; i < yn; i++) shp[i] = y->shape[i] < 0 ? 0 : y->shape[i];
    pd_reshape_args ra = {y, {shp, yn}};
    pd_tensor *o[1];
    int n;
    pd_status s = pd_cv_run(c, PD_OP_RESHAPE, &ra, o, 1, &n);
    pd_tensor_release(yy);
    PD_TRY(s);
    yy = o[0];
  }
  int64_t axes[PD_MAX_DIMS];
  int na = 0;
  for (int i = 0; i < axis; i++) axes[na++] = i;
  for (int i = (int)axis + yn; i < x->ndim; i++) axes[na++] = i;
  pd_unsqueeze_args ua = {yy, {axes, na}};
  pd_tensor *u[1];
  int n;
  pd_status s = pd_cv_run(c, PD_OP_UNSQUEEZE, &ua, u, 1, &n);
  pd_tensor_release(yy);
  PD_TRY(s);
  void *args;
  s = pd_cv_fill(c, def, our, &args);
  if (s == PD_OK) {
    *(pd_tensor **)pd_cv_field(our, args, "y") = u[0];
    s = pd_cv_finish(c, def, our, args);
  }
  pd_tensor_release(u[0]);
  return s;
}

/* cast: Paddle also records the input dtype */
pd_status pd_cv_save_cast(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                          const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_cast_args *a = (const pd_cast_args *)args;
  return pd_opdesc_set_attr_int(op, "in_dtype", PD_AT_INT, pd_vt_from_dtype((int)a->x->dtype));
}

/* reduce_*: reduce_all (or an empty dim) reduces every axis */
pd_status pd_cv_load_reduce(pd_convert_ctx *c) {
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  void *args;
  PD_TRY(pd_cv_fill(c, def, our, &args));
  pd_status st = PD_OK;
  int64_t all = pd_cv_int(c, "reduce_all", 0, &st);
  PD_TRY(st);
  if (all) {
    pd_int_array *ax = (pd_int_array *)pd_cv_field(our, args, "axis");
    ax->n = 0;
  }
  return pd_cv_finish(c, def, our, args);
}

pd_status pd_cv_save_reduce(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                            const char *const *out_names) {
  (void)in_names;
  (void)out_names;
  const pd_int_array *ax = (const pd_int_array *)pd_cv_field(our_op, (void *)args, "axis");
  PD_TRY(pd_opdesc_set_attr_int(op, "reduce_all", PD_AT_BOOLEAN, ax->n == 0));
  if (!pd_opdesc_attr(op, "out_dtype")) PD_TRY(pd_opdesc_set_attr_int(op, "out_dtype", PD_AT_INT, -1));
  return pd_opdesc_set_attr_int(op, "in_dtype", PD_AT_INT, -1);
}

/* reshape2: the shape from the Shape tensor, the ShapeTensor list (one [1] int each) or the
 * shape attribute, in that order (Paddle's precedence) */
pd_status pd_cv_load_reshape(pd_convert_ctx *c) {
  pd_tensor *x = pd_cv_in(c, "X", 0);
  if (!x) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[reshape2] needs input X");
  pd_tensor *shape = pd_cv_in(c, "Shape", 0);
  pd_tensor *made = NULL;
  int nl = pd_cv_in_count(c, "ShapeTensor");
  if (!shape && nl > 0) {
    pd_tensor **items = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)nl);
    if (!items) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    for (int k = 0; k < nl; k++) items[k] = pd_cv_in(c, "ShapeTensor", k);
    pd_concat_args ca = {{items, nl}, 0};
    int n;
    PD_TRY(pd_cv_run(c, PD_OP_CONCAT, &ca, &made, 1, &n));
    shape = made;
  }
  pd_tensor *o[1];
  int n;
  pd_status s;
  if (shape) {
    pd_status st = PD_OK;
    int64_t k;
    const int64_t *v = pd_cv_ints(c, "shape", &k, &st);
    PD_TRY(st);
    pd_reshape_dyn_args a = {x, shape, {v, k < 0 ? 0 : k}};
    s = pd_cv_run(c, PD_OP_RESHAPE_DYN, &a, o, 1, &n);
  } else {
    pd_status st = PD_OK;
    int64_t k;
    const int64_t *v = pd_cv_ints(c, "shape", &k, &st);
    PD_TRY(st);
    if (k < 0) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[reshape2] has neither a Shape input nor a shape attribute");
    pd_reshape_args a = {x, {v, k}};
    s = pd_cv_run(c, PD_OP_RESHAPE, &a, o, 1, &n);
  }
  pd_tensor_release(made);
  PD_TRY(s);
  s = pd_cv_out(c, "Out", 0, o[0]);
  pd_tensor_release(o[0]);
  return s;
}
