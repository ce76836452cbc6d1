/* Custom converters of ops/compat.yaml for the elementwise, reduction, scale/clip/pow and
 * activation families: Paddle ops whose attributes need more than renaming (elementwise axis,
 * reduce_all, tensor forms of scale/min/max/factor, activations we compose from our ops), and
 * the expression helpers of compat_util.h that every converter file uses. */
#include <stdlib.h>
#include <string.h>
#include "compat_util.h"
#include "pd_trace.h"

/* ---------------------------------------------------------------- helpers (compat_util.h) */
pd_status pd_cvx_unary(pd_convert_ctx *c, int op, pd_tensor *x, pd_tensor **o) {
  struct { pd_tensor *x; } a = {x};
  return pd_cv_run1(c, op, &a, o);
}

pd_status pd_cvx_binary(pd_convert_ctx *c, int op, pd_tensor *x, pd_tensor *y, pd_tensor **o) {
  struct { pd_tensor *x, *y; } a = {x, y};
  return pd_cv_run1(c, op, &a, o);
}

pd_status pd_cvx_scale(pd_convert_ctx *c, pd_tensor *x, double s, double b, pd_tensor **o) {
  pd_scale_args a = {x, pd_scalar_float(s), pd_scalar_float(b), 1};
  return pd_cv_run1(c, PD_OP_SCALE, &a, o);
}

pd_status pd_cvx_clip(pd_convert_ctx *c, pd_tensor *x, double lo, double hi, pd_tensor **o) {
  pd_clip_args a = {x, pd_scalar_float(lo), pd_scalar_float(hi)};
  return pd_cv_run1(c, PD_OP_CLIP, &a, o);
}

pd_status pd_cvx_full_like(pd_convert_ctx *c, pd_tensor *x, double v, int dtype, pd_tensor **o) {
  pd_full_like_args a = {x, pd_scalar_float(v), dtype};
  return pd_cv_run1(c, PD_OP_FULL_LIKE, &a, o);
}

pd_status pd_cvx_cast(pd_convert_ctx *c, pd_tensor *x, int dtype, pd_tensor **o) {
  pd_cast_args a = {x, dtype};
  return pd_cv_run1(c, PD_OP_CAST, &a, o);
}

pd_status pd_cvx_reshape(pd_convert_ctx *c, pd_tensor *x, const int64_t *shape, int n, pd_tensor **o) {
  pd_reshape_args a = {x, {shape, n}};
  return pd_cv_run1(c, PD_OP_RESHAPE, &a, o);
}

pd_status pd_cvx_list(pd_convert_ctx *c, const char *slot, pd_tensor **o) {
  *o = NULL;
  int nl = pd_cv_in_count(c, slot);
  if (nl <= 0) return PD_OK;
  pd_tensor **items = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)nl);
  char *owned = (char *)pd_cv_alloc(c, (size_t)nl);
  if (!items || !owned) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t one = 1;
  pd_status s = PD_OK;
  for (int k = 0; s == PD_OK && k < nl; k++) {
    pd_tensor *t = pd_cv_in(c, slot, k);
    if (!t) {
      s = pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "%s[%d] names no variable", slot, k);
      break;
    }
    items[k] = t;
    if (t->ndim != 1) { /* [1] is the rule; 0-D or [1, 1] become [1] */
      s = pd_cvx_reshape(c, t, &one, 1, &items[k]);
      owned[k] = s == PD_OK;
    }
    if (s == PD_OK && k > 0 && items[k]->dtype != items[0]->dtype) { /* one dtype: the first's */
      pd_tensor *r;
      s = pd_cvx_cast(c, items[k], (int)items[0]->dtype, &r);
      if (s == PD_OK) {
        if (owned[k]) pd_tensor_release(items[k]);
        items[k] = r;
        owned[k] = 1;
      }
    }
  }
  if (s == PD_OK) {
    pd_concat_args ca = {{items, nl}, 0};
    s = pd_cv_run1(c, PD_OP_CONCAT, &ca, o);
  }
  for (int k = 0; k < nl; k++)
    if (owned[k]) pd_tensor_release(items[k]);
  return s;
}

pd_status pd_cvx_align(pd_convert_ctx *c, pd_tensor *y, int rx, int64_t axis, pd_tensor **o) {
  /* trailing 1s of y beyond x's rank are dropped, then y is unsqueezed around `axis` */
  int yn = y->ndim;
  while (yn > 0 && axis + yn > rx && y->shape[yn - 1] == 1) yn--;
  if (axis + yn > rx)
    return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "axis %lld with Y of rank %d does not fit X of rank %d",
                       (long long)axis, y->ndim, rx);
  pd_tensor *yy = y;
  pd_tensor_retain(y);
  if (yn != y->ndim) {
    int64_t shp[PD_MAX_DIMS];
    for (int i = 0; i < yn; i++) shp[i] = y->shape[i] < 0 ? 0 : y->shape[i];
    pd_status s = pd_cvx_reshape(c, y, shp, yn, &yy);
    pd_tensor_release(y);
    PD_TRY(s);
  }
  int64_t axes[PD_MAX_DIMS];
  int na = 0;
  for (int i = 0; i < axis; i++) axes[na++] = i;
  for (int i = (int)axis + yn; i < rx; i++) axes[na++] = i;
  if (!na) {
    *o = yy;
    return PD_OK;
  }
  pd_unsqueeze_args ua = {yy, {axes, na}};
  pd_status s = pd_cv_run1(c, PD_OP_UNSQUEEZE, &ua, o);
  pd_tensor_release(yy);
  return s;
}

const int64_t *pd_cvx_ints(pd_convert_ctx *c, const char *name, int64_t *n, pd_status *st) {
  return pd_cv_ints(c, name, n, st);
}

const char *pd_cvx_format(const char *layout, int ndim) {
  int cl = layout && (strcmp(layout, "NHWC") == 0 || strcmp(layout, "NDHWC") == 0 || strcmp(layout, "NWC") == 0 ||
                      strcmp(layout, "NLC") == 0);
  static const char *const first[] = {"NCL", "NCHW", "NCDHW"}, *const last[] = {"NLC", "NHWC", "NDHWC"};
  int k = ndim - 3;
  if (k < 0 || k > 2) return layout && strcmp(layout, "AnyLayout") != 0 ? layout : "NCHW";
  return cl ? last[k] : first[k];
}

/* ---------------------------------------------------------------- elementwise */
/* elementwise_* and the comparisons: Paddle's axis puts y's dims at x's dim `axis` (-1: aligned
 * right, numpy) */
pd_status pd_cv_load_elementwise(pd_convert_ctx *c) {
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  pd_status st = PD_OK;
  int64_t axis = pd_cv_int(c, "axis", -1, &st);
  PD_TRY(st);
  pd_tensor *x, *y;
  PD_TRY(pd_cv_need(c, "X", &x));
  PD_TRY(pd_cv_need(c, "Y", &y));
  if (axis < 0 || x->ndim == y->ndim || axis == x->ndim - y->ndim) return pd_cv_generic(c, def, our);
  pd_tensor *u;
  PD_TRY(pd_cvx_align(c, y, x->ndim, axis, &u));
  void *args;
  pd_status s = pd_cv_fill(c, def, our, &args);
  if (s == PD_OK) {
    *(pd_tensor **)pd_cv_field(our, args, "y") = u;
    s = pd_cv_finish(c, def, our, args);
  }
  pd_tensor_release(u);
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

/* ---------------------------------------------------------------- reductions */
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

pd_status pd_cv_save_logsumexp(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                               const char *const *out_names) {
  (void)in_names;
  (void)out_names;
  const pd_int_array *ax = (const pd_int_array *)pd_cv_field(our_op, (void *)args, "axis");
  return pd_opdesc_set_attr_int(op, "reduce_all", PD_AT_BOOLEAN, ax->n == 0);
}

/* Paddle's mean (mean_all): the mean of every element */
pd_status pd_cv_load_mean_all(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_mean_args a = {x, {NULL, 0}, 0};
  PD_TRY(pd_cv_run1(c, PD_OP_MEAN, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

/* Paddle's sum (add_n): the sum of the X list */
pd_status pd_cv_load_add_n(pd_convert_ctx *c) {
  int n = pd_cv_in_count(c, "X");
  if (n < 1) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "needs at least one input X");
  pd_tensor *acc = pd_cv_in(c, "X", 0);
  if (!acc) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "X[0] names no variable");
  pd_tensor_retain(acc);
  if (n == 1) { /* a copy, as Paddle's sum of one tensor writes a new one */
    pd_tensor *o;
    pd_status s = pd_cvx_unary(c, PD_OP_ASSIGN, acc, &o);
    pd_tensor_release(acc);
    PD_TRY(s);
    return pd_cv_bind(c, "Out", o);
  }
  for (int k = 1; k < n; k++) {
    pd_tensor *y = pd_cv_in(c, "X", k), *o;
    if (!y) {
      pd_tensor_release(acc);
      return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "X[%d] names no variable", k);
    }
    pd_status s = pd_cvx_binary(c, PD_OP_ADD, acc, y, &o);
    pd_tensor_release(acc);
    PD_TRY(s);
    acc = o;
  }
  return pd_cv_bind(c, "Out", acc);
}

/* Paddle's old isnan/isinf/isfinite: one bool: any nan / any inf / all finite */
pd_status pd_cv_load_any_check(pd_convert_ctx *c) {
  const char *t = pd_cv_op(c)->type;
  pd_tensor *x, *m, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  int is_fin = strcmp(t, "isfinite") == 0;
  PD_TRY(pd_cvx_unary(c, strcmp(t, "isnan") == 0 ? PD_OP_ISNAN : is_fin ? PD_OP_ISFINITE : PD_OP_ISINF, x, &m));
  pd_any_args a = {m, {NULL, 0}, 0};
  pd_status s = pd_cv_run1(c, is_fin ? PD_OP_ALL : PD_OP_ANY, &a, &o);
  pd_tensor_release(m);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- scale, pow, clip, increment */
/* x and a one-element tensor t broadcast: t reshaped to [1] and cast to x's dtype */
static pd_status as_factor(pd_convert_ctx *c, pd_tensor *x, pd_tensor *t, pd_tensor **o) {
  int64_t one = 1;
  pd_tensor *r;
  PD_TRY(pd_cvx_reshape(c, t, &one, 1, &r));
  if (r->dtype == x->dtype) {
    *o = r;
    return PD_OK;
  }
  pd_status s = pd_cvx_cast(c, r, (int)x->dtype, o);
  pd_tensor_release(r);
  return s;
}

/* scale (and our neg, written as scale -1): ScaleTensor replaces the scale attribute */
pd_status pd_cv_load_scale(pd_convert_ctx *c) {
  pd_tensor *x, *st_t = pd_cv_in(c, "ScaleTensor", 0);
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  double s = pd_cv_float(c, "scale", 1.0, &st), b = pd_cv_float(c, "bias", 0.0, &st);
  int after = (int)pd_cv_int(c, "bias_after_scale", 1, &st);
  PD_TRY(st);
  pd_tensor *o;
  if (!st_t) {
    pd_scale_args a = {x, pd_scalar_float(s), pd_scalar_float(b), after};
    PD_TRY(pd_cv_run1(c, PD_OP_SCALE, &a, &o));
    return pd_cv_bind(c, "Out", o);
  }
  pd_tensor *f, *t1;
  PD_TRY(as_factor(c, x, st_t, &f));
  pd_status r;
  if (after) { /* x * s + b */
    r = pd_cvx_binary(c, PD_OP_MULTIPLY, x, f, &t1);
    if (r == PD_OK) {
      r = pd_cvx_scale(c, t1, 1.0, b, &o);
      pd_tensor_release(t1);
    }
  } else { /* (x + b) * s */
    r = pd_cvx_scale(c, x, 1.0, b, &t1);
    if (r == PD_OK) {
      r = pd_cvx_binary(c, PD_OP_MULTIPLY, t1, f, &o);
      pd_tensor_release(t1);
    }
  }
  pd_tensor_release(f);
  PD_TRY(r);
  return pd_cv_bind(c, "Out", o);
}

/* pow: FactorTensor replaces factor */
pd_status pd_cv_load_pow(pd_convert_ctx *c) {
  pd_tensor *x, *ft = pd_cv_in(c, "FactorTensor", 0), *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  if (!ft) {
    pd_status st = PD_OK;
    double f = pd_cv_float(c, "factor", 1.0, &st);
    PD_TRY(st);
    pd_pow_args a = {x, pd_scalar_float(f)};
    PD_TRY(pd_cv_run1(c, PD_OP_POW, &a, &o));
    return pd_cv_bind(c, "Out", o);
  }
  pd_tensor *f;
  PD_TRY(as_factor(c, x, ft, &f));
  pd_status s = pd_cvx_binary(c, PD_OP_ELEMENTWISE_POW, x, f, &o);
  pd_tensor_release(f);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* clip: Min / Max tensors replace the attributes */
pd_status pd_cv_load_clip(pd_convert_ctx *c) {
  pd_tensor *x, *mn = pd_cv_in(c, "Min", 0), *mx = pd_cv_in(c, "Max", 0), *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  double lo = pd_cv_float(c, "min", 0.0, &st), hi = pd_cv_float(c, "max", 0.0, &st);
  PD_TRY(st);
  if (!mn && !mx) {
    PD_TRY(pd_cvx_clip(c, x, lo, hi, &o));
    return pd_cv_bind(c, "Out", o);
  }
  /* min(max(x, lo), hi) with either bound a tensor */
  pd_tensor *cur = x, *b, *t;
  pd_tensor_retain(cur);
  pd_status s = mn ? as_factor(c, x, mn, &b) : pd_cvx_full_like(c, x, lo, -1, &b);
  if (s == PD_OK) {
    s = pd_cvx_binary(c, PD_OP_MAXIMUM, cur, b, &t);
    pd_tensor_release(b);
    pd_tensor_release(cur);
    cur = s == PD_OK ? t : NULL;
  }
  if (s == PD_OK) s = mx ? as_factor(c, x, mx, &b) : pd_cvx_full_like(c, x, hi, -1, &b);
  if (s == PD_OK) {
    s = pd_cvx_binary(c, PD_OP_MINIMUM, cur, b, &t);
    pd_tensor_release(b);
    pd_tensor_release(cur);
    cur = s == PD_OK ? t : NULL;
  }
  if (s != PD_OK) {
    pd_tensor_release(cur);
    return s;
  }
  return pd_cv_bind(c, "Out", cur);
}

/* increment: x + step (a one-element tensor) */
pd_status pd_cv_load_increment(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  double step = pd_cv_float(c, "step", 1.0, &st);
  PD_TRY(st);
  PD_TRY(pd_cvx_scale(c, x, 1.0, step, &o));
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- activations */
/* where(cond(x), a, b) with b zeros when NULL */
static pd_status select_where(pd_convert_ctx *c, pd_tensor *cond, pd_tensor *a, pd_tensor *b, pd_tensor **o) {
  pd_tensor *z = NULL;
  if (!b) {
    PD_TRY(pd_cvx_full_like(c, a, 0.0, -1, &z));
    b = z;
  }
  pd_where_args w = {cond, a, b};
  pd_status s = pd_cv_run1(c, PD_OP_WHERE, &w, o);
  pd_tensor_release(z);
  return s;
}

/* cmp(x, v) for a constant v: x compared with full_like(x, v) */
static pd_status cmp_const(pd_convert_ctx *c, int op, pd_tensor *x, double v, pd_tensor **o) {
  pd_tensor *k;
  PD_TRY(pd_cvx_full_like(c, x, v, -1, &k));
  pd_status s = pd_cvx_binary(c, op, x, k, o);
  pd_tensor_release(k);
  return s;
}

/* the Paddle activations that have no op of ours, composed */
pd_status pd_cv_load_activation(pd_convert_ctx *c) {
  const char *t = pd_cv_op(c)->type;
  pd_tensor *x, *o = NULL, *a = NULL, *b = NULL, *m = NULL;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK, s;
#define ATTR(n, d) pd_cv_float(c, n, d, &st)
  if (strcmp(t, "swish") == 0) { /* x * sigmoid(x): Paddle 2.6 ignores beta (an extra attribute) */
    s = pd_cvx_unary(c, PD_OP_SILU, x, &o);
  } else if (strcmp(t, "relu6") == 0) { /* Paddle 2.6 ignores threshold (an extra attribute): 6 */
    s = pd_cvx_clip(c, x, 0.0, 6.0, &o);
  } else if (strcmp(t, "brelu") == 0) {
    double lo = ATTR("t_min", 0.0), hi = ATTR("t_max", 24.0);
    PD_TRY(st);
    s = pd_cvx_clip(c, x, lo, hi, &o);
  } else if (strcmp(t, "hard_shrink") == 0 || strcmp(t, "thresholded_relu") == 0) {
    int hs = t[0] == 'h';
    double th = ATTR("threshold", hs ? 0.5 : 1.0);
    PD_TRY(st);
    s = hs ? pd_cvx_unary(c, PD_OP_ABS, x, &a) : PD_OK;
    if (s == PD_OK) s = cmp_const(c, PD_OP_GREATER_THAN, hs ? a : x, th, &m);
    if (s == PD_OK) s = select_where(c, m, x, NULL, &o);
  } else if (strcmp(t, "softshrink") == 0) { /* x - l (x > l), x + l (x < -l), else 0 */
    double l = ATTR("lambda", 0.5);
    PD_TRY(st);
    pd_tensor *lo = NULL, *hi = NULL, *inner = NULL;
    s = pd_cvx_scale(c, x, 1.0, -l, &hi);
    if (s == PD_OK) s = pd_cvx_scale(c, x, 1.0, l, &lo);
    if (s == PD_OK) s = cmp_const(c, PD_OP_LESS_THAN, x, -l, &m);
    if (s == PD_OK) s = select_where(c, m, lo, NULL, &inner);
    pd_tensor_release(m);
    m = NULL;
    if (s == PD_OK) s = cmp_const(c, PD_OP_GREATER_THAN, x, l, &m);
    if (s == PD_OK) s = select_where(c, m, hi, inner, &o);
    pd_tensor_release(lo);
    pd_tensor_release(hi);
    pd_tensor_release(inner);
  } else if (strcmp(t, "logsigmoid") == 0) { /* -softplus(-x) */
    s = pd_cvx_scale(c, x, -1.0, 0.0, &a);
    pd_softplus_args sp = {a, 1.0, 20.0};
    if (s == PD_OK) s = pd_cv_run1(c, PD_OP_SOFTPLUS, &sp, &b);
    if (s == PD_OK) s = pd_cvx_scale(c, b, -1.0, 0.0, &o);
  } else if (strcmp(t, "tanh_shrink") == 0) { /* x - tanh(x) */
    s = pd_cvx_unary(c, PD_OP_TANH, x, &a);
    if (s == PD_OK) s = pd_cvx_binary(c, PD_OP_SUBTRACT, x, a, &o);
  } else if (strcmp(t, "softsign") == 0) { /* x / (1 + |x|) */
    s = pd_cvx_unary(c, PD_OP_ABS, x, &a);
    if (s == PD_OK) s = pd_cvx_scale(c, a, 1.0, 1.0, &b);
    if (s == PD_OK) s = pd_cvx_binary(c, PD_OP_DIVIDE, x, b, &o);
  } else if (strcmp(t, "selu") == 0) { /* scale * elu(x, alpha) */
    double al = ATTR("alpha", 1.6732632423543772), sc = ATTR("scale", 1.0507009873554805);
    PD_TRY(st);
    pd_elu_args e = {x, al};
    s = pd_cv_run1(c, PD_OP_ELU, &e, &a);
    if (s == PD_OK) s = pd_cvx_scale(c, a, sc, 0.0, &o);
  } else if (strcmp(t, "celu") == 0) { /* alpha * elu(x / alpha, 1) */
    double al = ATTR("alpha", 1.0);
    PD_TRY(st);
    s = pd_cvx_scale(c, x, 1.0 / al, 0.0, &a);
    pd_elu_args e = {a, 1.0};
    if (s == PD_OK) s = pd_cv_run1(c, PD_OP_ELU, &e, &b);
    if (s == PD_OK) s = pd_cvx_scale(c, b, al, 0.0, &o);
  } else if (strcmp(t, "stanh") == 0) { /* scale_b * tanh(scale_a * x) */
    double sa = ATTR("scale_a", 0.67), sb = ATTR("scale_b", 1.7159);
    PD_TRY(st);
    s = pd_cvx_scale(c, x, sa, 0.0, &a);
    if (s == PD_OK) s = pd_cvx_unary(c, PD_OP_TANH, a, &b);
    if (s == PD_OK) s = pd_cvx_scale(c, b, sb, 0.0, &o);
  } else {
    return pd_cv_error(c, PD_ERR_UNIMPLEMENTED, "no composition for this activation");
  }
#undef ATTR
  pd_tensor_release(a);
  pd_tensor_release(b);
  pd_tensor_release(m);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- reshape */
/* reshape2 / reshape: the shape from the Shape tensor, the ShapeTensor list (one [1] int each)
 * or the shape attribute, in that order (Paddle's precedence) */
/* the shape values known while compiling (from the Shape input or the ShapeTensor list), each
 * PD_CV_UNKNOWN where it is known only at run time; the count, or -1 */
static int known_shape(pd_convert_ctx *c, int64_t *v) {
  if (pd_cv_in(c, "Shape", 0)) return pd_cv_known(c, "Shape", 0, v, PD_MAX_DIMS);
  int nl = pd_cv_in_count(c, "ShapeTensor");
  if (nl < 1 || nl > PD_MAX_DIMS) return -1;
  for (int k = 0; k < nl; k++) {
    int64_t one[PD_MAX_DIMS];
    v[k] = pd_cv_known(c, "ShapeTensor", k, one, PD_MAX_DIMS) == 1 ? one[0] : PD_CV_UNKNOWN;
  }
  return nl;
}

pd_status pd_cv_load_reshape(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_tensor *shape = pd_cv_in(c, "Shape", 0);
  pd_tensor *made = NULL;
  int64_t kv[PD_MAX_DIMS];
  int nk = (shape || pd_cv_in_count(c, "ShapeTensor") > 0) ? known_shape(c, kv) : -1;
  int all = nk > 0;
  for (int i = 0; i < nk; i++) all &= kv[i] != PD_CV_UNKNOWN;
  if (all) { /* every value known while compiling: a plain reshape */
    pd_tensor *o;
    PD_TRY(pd_cvx_reshape(c, x, kv, nk, &o));
    return pd_cv_bind(c, "Out", o);
  }
  if (!shape) {
    PD_TRY(pd_cvx_list(c, "ShapeTensor", &made));
    shape = made;
  }
  pd_tensor *o;
  pd_status s;
  if (shape) {
    /* the dims known while compiling: from known shape values (0 copies x's dim), else from
     * the shape attribute Paddle also writes */
    pd_status st = PD_OK;
    int64_t k;
    const int64_t *v = pd_cv_ints(c, "shape", &k, &st);
    PD_TRY(st);
    if (nk < 0 && k > 0 && k <= PD_MAX_DIMS) {
      nk = (int)k;
      for (int i = 0; i < nk; i++) kv[i] = v[i] < 0 ? PD_CV_UNKNOWN : v[i];
    }
    int64_t known[PD_MAX_DIMS];
    for (int i = 0; i < nk; i++)
      known[i] = kv[i] == PD_CV_UNKNOWN || kv[i] < 0 ? -1 : kv[i] == 0 ? (i < x->ndim ? x->shape[i] : -1) : kv[i];
    pd_reshape_dyn_args a = {x, shape, {known, nk < 0 ? 0 : nk}};
    s = pd_cv_run1(c, PD_OP_RESHAPE_DYN, &a, &o);
  } else {
    pd_status st = PD_OK;
    int64_t k;
    const int64_t *v = pd_cv_ints(c, "shape", &k, &st);
    PD_TRY(st);
    if (k < 0) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "has neither a Shape input nor a shape attribute");
    pd_reshape_args a = {x, {v, k}};
    s = pd_cv_run1(c, PD_OP_RESHAPE, &a, &o);
  }
  pd_tensor_release(made);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* shape: x's dims, also kept as values known while compiling */
pd_status pd_cv_load_shape(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "Input", &x));
  pd_shape_args a = {x};
  PD_TRY(pd_cv_run1(c, PD_OP_SHAPE, &a, &o));
  int64_t v[PD_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) v[d] = x->shape[d] < 0 ? PD_CV_UNKNOWN : x->shape[d];
  pd_cv_set_known(c, "Out", 0, v, x->ndim);
  return pd_cv_bind(c, "Out", o);
}
