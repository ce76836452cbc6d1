/* Custom converters of ops/compat.yaml for shape, movement, indexing and creation ops: Paddle's
 * tensor forms of attributes (StartsTensor, Shape, ShapeTensor(List), ValueTensor ...), legacy
 * op types (transpose, expand, flatten2, matmul, top_k, pad ...) and attributes with a different
 * structure than ours (decrease_axis, num, Reduce, typed assign_value lists, str_value). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat_util.h"
#include "pd_trace.h"

static pd_status unsupported(pd_convert_ctx *c, const char *slot) {
  return pd_cv_error(c, PD_ERR_UNIMPLEMENTED, "its tensor input %s (a value known only when the program "
                     "runs) is not supported by Paddle-C", slot);
}

static int has_in(pd_convert_ctx *c, const char *slot) { return pd_cv_in_count(c, slot) > 0; }

static pd_status ints_attr(pd_convert_ctx *c, const char *name, const int64_t **v, int64_t *n) {
  pd_status st = PD_OK;
  *v = pd_cv_ints(c, name, n, &st);
  if (*n < 0) *n = 0;
  return st;
}

/* the values known while compiling of a shape given as one tensor (slot) or a list of one-value
 * tensors (list slot): entries PD_CV_UNKNOWN where unknown; the count, or -1 */
static int known_list(pd_convert_ctx *c, const char *slot, const char *list, int64_t *v) {
  if (pd_cv_in(c, slot, 0)) return pd_cv_known(c, slot, 0, v, PD_MAX_DIMS);
  int nl = pd_cv_in_count(c, list);
  if (nl < 1 || nl > PD_MAX_DIMS) return -1;
  for (int k = 0; k < nl; k++) {
    int64_t one[PD_MAX_DIMS];
    v[k] = pd_cv_known(c, list, k, one, PD_MAX_DIMS) == 1 ? one[0] : PD_CV_UNKNOWN;
  }
  return nl;
}

/* ---------------------------------------------------------------- transpose, squeeze, unsqueeze, flatten */
pd_status pd_cv_load_transpose_v1(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  const int64_t *v;
  int64_t n;
  PD_TRY(ints_attr(c, "axis", &v, &n));
  pd_transpose_args a = {x, {v, n}};
  PD_TRY(pd_cv_run1(c, PD_OP_TRANSPOSE, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_load_squeeze(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  const int64_t *v;
  int64_t n;
  PD_TRY(ints_attr(c, "axes", &v, &n));
  pd_squeeze_args a = {x, {v, n}};
  PD_TRY(pd_cv_run1(c, PD_OP_SQUEEZE, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_load_unsqueeze(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  if (has_in(c, "AxesTensor")) return unsupported(c, "AxesTensor");
  if (has_in(c, "AxesTensorList")) return unsupported(c, "AxesTensorList");
  const int64_t *v;
  int64_t n;
  PD_TRY(ints_attr(c, "axes", &v, &n));
  pd_unsqueeze_args a = {x, {v, n}};
  PD_TRY(pd_cv_run1(c, PD_OP_UNSQUEEZE, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

/* flatten / flatten2: [prod(dims[:axis]), prod(dims[axis:])] */
pd_status pd_cv_load_flatten_v1(pd_convert_ctx *c) {
  pd_tensor *x, *o, *t;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  int64_t axis = pd_cv_int(c, "axis", 1, &st);
  PD_TRY(st);
  int nd = x->ndim;
  if (axis < 0 || axis > nd) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "axis %lld out of range", (long long)axis);
  if (axis == 0 || axis == nd) {
    pd_flatten_args f = {x, 0, -1};
    PD_TRY(pd_cv_run1(c, PD_OP_FLATTEN, &f, &t));
    int64_t ax = axis == 0 ? 0 : 1;
    pd_unsqueeze_args u = {t, {&ax, 1}};
    pd_status s = pd_cv_run1(c, PD_OP_UNSQUEEZE, &u, &o);
    pd_tensor_release(t);
    PD_TRY(s);
    return pd_cv_bind(c, "Out", o);
  }
  pd_flatten_args f1 = {x, 0, axis - 1};
  PD_TRY(pd_cv_run1(c, PD_OP_FLATTEN, &f1, &t));
  pd_flatten_args f2 = {t, 1, -1};
  pd_status s = pd_cv_run1(c, PD_OP_FLATTEN, &f2, &o);
  pd_tensor_release(t);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- concat, split, unstack */
pd_status pd_cv_load_concat(pd_convert_ctx *c) {
  if (has_in(c, "AxisTensor")) return unsupported(c, "AxisTensor");
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  PD_TRY(pd_cv_generic(c, def, our));
  /* 1-D int pieces whose values are known: so is the result */
  int64_t all[PD_MAX_DIMS], part[PD_MAX_DIMS];
  int n = 0, ni = pd_cv_in_count(c, "X");
  for (int k = 0; k < ni; k++) {
    int m = pd_cv_known(c, "X", k, part, PD_MAX_DIMS);
    if (m < 0 || n + m > PD_MAX_DIMS) return PD_OK;
    memcpy(all + n, part, sizeof(int64_t) * (size_t)m);
    n += m;
  }
  if (n > 0) pd_cv_set_known(c, "Out", 0, all, n);
  return PD_OK;
}

/* split: `num` equal parts (when the axis size is unknown: a reshape to [.., num, -1, ..] and
 * an unbind), else the sections (one -1 allowed) */
pd_status pd_cv_load_split(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "X", &x));
  if (has_in(c, "AxisTensor")) return unsupported(c, "AxisTensor");
  if (has_in(c, "SectionsTensorList")) return unsupported(c, "SectionsTensorList");
  pd_status st = PD_OK;
  int64_t num = pd_cv_int(c, "num", 0, &st), axis = pd_cv_int(c, "axis", 0, &st);
  PD_TRY(st);
  const int64_t *sec;
  int64_t ns;
  PD_TRY(ints_attr(c, "sections", &sec, &ns));
  if (axis < 0) axis += x->ndim;
  if (axis < 0 || axis >= x->ndim) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "axis out of range");
  pd_tensor *outs[64];
  int n = 0;
  if (num > 0 && x->shape[axis] < 0) {
    int64_t shp[PD_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < x->ndim; d++) {
      if (d == axis) {
        shp[k++] = num;
        shp[k++] = -1;
      } else {
        shp[k++] = 0;
      }
    }
    pd_tensor *r;
    PD_TRY(pd_cvx_reshape(c, x, shp, k, &r));
    pd_unbind_args u = {r, axis};
    pd_status s = pd_cv_run(c, PD_OP_UNBIND, &u, outs, 64, &n);
    pd_tensor_release(r);
    PD_TRY(s);
  } else {
    int64_t *v = NULL;
    if (num > 0) {
      if (x->shape[axis] % num)
        return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "axis size %lld is not divisible by num %lld",
                           (long long)x->shape[axis], (long long)num);
      v = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * (size_t)num);
      if (!v) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      for (int64_t i = 0; i < num; i++) v[i] = x->shape[axis] / num;
      sec = v;
      ns = num;
    }
    pd_split_args a = {x, {sec, ns}, axis};
    PD_TRY(pd_cv_run(c, PD_OP_SPLIT, &a, outs, 64, &n));
  }
  pd_status s = PD_OK;
  for (int k = 0; k < n; k++) {
    if (s == PD_OK) s = pd_cv_out(c, "Out", k, outs[k]);
    pd_tensor_release(outs[k]);
  }
  return s;
}

pd_status pd_cv_load_unstack(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  int64_t axis = pd_cv_int(c, "axis", 0, &st);
  PD_TRY(st);
  pd_tensor *outs[64];
  int n = 0;
  pd_unbind_args u = {x, axis};
  PD_TRY(pd_cv_run(c, PD_OP_UNBIND, &u, outs, 64, &n));
  pd_status s = PD_OK;
  for (int k = 0; k < n; k++) {
    if (s == PD_OK) s = pd_cv_out(c, "Y", k, outs[k]);
    pd_tensor_release(outs[k]);
  }
  return s;
}

/* ---------------------------------------------------------------- expand, tile */
/* expand_v2: the Shape tensor, else the expand_shapes_tensor list, else the shape attribute */
pd_status pd_cv_load_expand_v2(pd_convert_ctx *c) {
  pd_tensor *x, *o, *made = NULL;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_tensor *shape = pd_cv_in(c, "Shape", 0);
  if (!shape) {
    PD_TRY(pd_cvx_list(c, "expand_shapes_tensor", &made));
    shape = made;
  }
  pd_status s;
  if (shape) { /* the dims known while compiling: known values, -1 keeps x's dim */
    int64_t kv[PD_MAX_DIMS], known[PD_MAX_DIMS];
    int nk = known_list(c, "Shape", "expand_shapes_tensor", kv);
    /* the shape attribute beside the tensors: a value, -1 (x's dim) or -2 (from a tensor) */
    pd_status st = PD_OK;
    int64_t na;
    const int64_t *av = pd_cvx_ints(c, "shape", &na, &st);
    PD_TRY(st);
    if (av && na >= 1 && na <= PD_MAX_DIMS && (nk < 0 || nk == na)) {
      if (nk < 0)
        for (int i = 0; i < na; i++) kv[i] = PD_CV_UNKNOWN;
      nk = (int)na;
      for (int i = 0; i < nk; i++)
        if (kv[i] == PD_CV_UNKNOWN && av[i] >= -1) kv[i] = av[i];
    }
    for (int i = 0; i < nk; i++) {
      int xd = x->ndim - nk + i;
      known[i] = kv[i] == PD_CV_UNKNOWN ? -1 : kv[i] == -1 ? (xd >= 0 ? x->shape[xd] : -1) : kv[i];
    }
    pd_expand_dyn_args a = {x, shape, {known, nk < 0 ? 0 : nk}};
    s = pd_cv_run1(c, PD_OP_EXPAND_DYN, &a, &o);
  } else {
    const int64_t *v;
    int64_t n;
    PD_TRY(ints_attr(c, "shape", &v, &n));
    pd_expand_args a = {x, {v, n}};
    s = pd_cv_run1(c, PD_OP_EXPAND, &a, &o);
  }
  pd_tensor_release(made);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* expand_dyn -> expand_v2 with its Shape tensor: the known dims become the shape attribute, -2
 * (Paddle's mark of a dim given by a tensor) where unknown; without known dims no attribute */
pd_status pd_cv_save_expand_dyn(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                                 const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_expand_dyn_args *a = (const pd_expand_dyn_args *)args;
  if (a->known.n <= 0 || a->known.n > PD_MAX_DIMS) return pd_opdesc_remove_attr(op, "shape");
  int64_t v[PD_MAX_DIMS];
  for (int64_t i = 0; i < a->known.n; i++) v[i] = a->known.data[i] < 0 ? -2 : a->known.data[i];
  return pd_opdesc_set_attr_ints(op, "shape", PD_AT_INTS, a->known.n, v);
}

/* Paddle's old expand: expand_times repeats (our tile) */
pd_status pd_cv_load_expand_v1(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  if (has_in(c, "ExpandTimes")) return unsupported(c, "ExpandTimes");
  if (has_in(c, "expand_times_tensor")) return unsupported(c, "expand_times_tensor");
  const int64_t *v;
  int64_t n;
  PD_TRY(ints_attr(c, "expand_times", &v, &n));
  pd_tile_args a = {x, {v, n}};
  PD_TRY(pd_cv_run1(c, PD_OP_TILE, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_load_tile(pd_convert_ctx *c) {
  if (has_in(c, "RepeatTimes")) return unsupported(c, "RepeatTimes");
  if (has_in(c, "repeat_times_tensor")) return unsupported(c, "repeat_times_tensor");
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  return pd_cv_generic(c, def, our);
}

/* expand_as_v2: to Y's shape, or to target_shape without Y */
pd_status pd_cv_load_expand_as(pd_convert_ctx *c) {
  pd_tensor *x, *o, *y = pd_cv_in(c, "Y", 0);
  PD_TRY(pd_cv_need(c, "X", &x));
  if (y) {
    pd_expand_as_args a = {x, y};
    PD_TRY(pd_cv_run1(c, PD_OP_EXPAND_AS, &a, &o));
  } else {
    const int64_t *v;
    int64_t n;
    PD_TRY(ints_attr(c, "target_shape", &v, &n));
    pd_expand_args a = {x, {v, n}};
    PD_TRY(pd_cv_run1(c, PD_OP_EXPAND, &a, &o));
  }
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_save_expand_as(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                               const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_expand_as_args *a = (const pd_expand_as_args *)args;
  return pd_opdesc_set_attr_ints(op, "target_shape", PD_AT_INTS, a->y->ndim, a->y->shape);
}

/* ---------------------------------------------------------------- slice, strided_slice */
/* decrease_axis drops the sliced (size 1) dims */
static pd_status decrease(pd_convert_ctx *c, pd_tensor *t, pd_tensor **o) {
  const int64_t *dec;
  int64_t nd;
  PD_TRY(ints_attr(c, "decrease_axis", &dec, &nd));
  if (nd == 0) {
    *o = t;
    pd_tensor_retain(t);
    return PD_OK;
  }
  pd_squeeze_args a = {t, {dec, nd}};
  return pd_cv_run1(c, PD_OP_SQUEEZE, &a, o);
}

pd_status pd_cv_load_slice(pd_convert_ctx *c) {
  pd_tensor *x, *o, *t;
  PD_TRY(pd_cv_need(c, "Input", &x));
  const int64_t *axes, *starts, *ends, *dec;
  int64_t na, ns, ne, nd;
  PD_TRY(ints_attr(c, "axes", &axes, &na));
  PD_TRY(ints_attr(c, "starts", &starts, &ns));
  PD_TRY(ints_attr(c, "ends", &ends, &ne));
  int strided = strcmp(pd_cv_op(c)->type, "strided_slice") == 0;
  int tensors = has_in(c, "StartsTensor") || has_in(c, "EndsTensor") || has_in(c, "StartsTensorList") ||
                has_in(c, "EndsTensorList");
  if (strided) {
    if (tensors) return unsupported(c, "StartsTensor/EndsTensor");
    if (has_in(c, "StridesTensor") || has_in(c, "StridesTensorList")) return unsupported(c, "StridesTensor");
    const int64_t *strides;
    int64_t nst;
    PD_TRY(ints_attr(c, "strides", &strides, &nst));
    pd_strided_slice_args a = {x, {axes, na}, {starts, ns}, {ends, ne}, {strides, nst}};
    PD_TRY(pd_cv_run1(c, PD_OP_STRIDED_SLICE, &a, &t));
  } else if (tensors) {
    PD_TRY(ints_attr(c, "decrease_axis", &dec, &nd));
    int nsl = pd_cv_in_count(c, "StartsTensorList"), nel = pd_cv_in_count(c, "EndsTensorList");
    pd_tensor **sl = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(nsl + nel + 1));
    if (!sl) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    for (int k = 0; k < nsl; k++) sl[k] = pd_cv_in(c, "StartsTensorList", k);
    for (int k = 0; k < nel; k++) sl[nsl + k] = pd_cv_in(c, "EndsTensorList", k);
    pd_slice_dyn_args a = {x, {sl, nsl}, {sl + nsl, nel}, {axes, na}, {starts, ns}, {ends, ne}, {dec, nd},
                           pd_cv_in(c, "StartsTensor", 0), pd_cv_in(c, "EndsTensor", 0)};
    PD_TRY(pd_cv_run1(c, PD_OP_SLICE_DYN, &a, &o));
    return pd_cv_bind(c, "Out", o);
  } else {
    pd_slice_args a = {x, {axes, na}, {starts, ns}, {ends, ne}};
    PD_TRY(pd_cv_run1(c, PD_OP_SLICE, &a, &t));
    int64_t kv[PD_MAX_DIMS], out[PD_MAX_DIMS];
    int nk = pd_cv_known(c, "Input", 0, kv, PD_MAX_DIMS);
    if (nk > 0 && na == 1 && axes[0] == 0 && ns == 1 && ne == 1) { /* a slice of known values */
      int64_t b = starts[0] < 0 ? starts[0] + nk : starts[0], e = ends[0] < 0 ? ends[0] + nk : ends[0];
      b = b < 0 ? 0 : b > nk ? nk : b;
      e = e < 0 ? 0 : e > nk ? nk : e;
      int n = 0;
      for (int64_t i = b; i < e; i++) out[n++] = kv[i];
      if (n > 0) pd_cv_set_known(c, "Out", 0, out, n);
    }
  }
  pd_status s = decrease(c, t, &o);
  pd_tensor_release(t);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- indexing */
/* put_along_axis: Reduce assign / add / mul (multiply) */
pd_status pd_cv_load_put_along_axis(pd_convert_ctx *c) {
  pd_tensor *x, *idx, *val, *o;
  PD_TRY(pd_cv_need(c, "Input", &x));
  PD_TRY(pd_cv_need(c, "Index", &idx));
  PD_TRY(pd_cv_need(c, "Value", &val));
  pd_status st = PD_OK;
  int64_t axis = pd_cv_int(c, "Axis", 0, &st), self = pd_cv_int(c, "Include_self", 1, &st);
  const char *red = pd_cv_str(c, "Reduce", "assign", &st);
  PD_TRY(st);
  int op = strcmp(red, "assign") == 0 ? PD_OP_PUT_ALONG_AXIS
           : strcmp(red, "add") == 0 ? PD_OP_PUT_ALONG_AXIS_ADD
           : (strcmp(red, "mul") == 0 || strcmp(red, "multiply") == 0) ? PD_OP_PUT_ALONG_AXIS_MUL : -1;
  if (op < 0) return pd_cv_error(c, PD_ERR_UNIMPLEMENTED, "Reduce '%s' is not supported", red);
  if (!self && op != PD_OP_PUT_ALONG_AXIS) return pd_cv_error(c, PD_ERR_UNIMPLEMENTED, "Include_self false is not supported");
  pd_put_along_axis_args a = {x, idx, val, axis};
  PD_TRY(pd_cv_run1(c, op, &a, &o));
  return pd_cv_bind(c, "Result", o);
}

/* one_hot_v2: x[..., None] == arange(depth), in dtype (default float32) */
pd_status pd_cv_load_one_hot(pd_convert_ctx *c) {
  pd_tensor *x, *u, *r, *eq, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  if (has_in(c, "depth_tensor")) return unsupported(c, "depth_tensor");
  pd_status st = PD_OK;
  int64_t depth = pd_cv_int(c, "depth", -1, &st), vt = pd_cv_int(c, "dtype", PD_VT_FP32, &st);
  PD_TRY(st);
  if (depth < 1) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "expected depth >= 1, received %lld", (long long)depth);
  int64_t ax = -1;
  pd_unsqueeze_args ua = {x, {&ax, 1}};
  PD_TRY(pd_cv_run1(c, PD_OP_UNSQUEEZE, &ua, &u));
  pd_arange_args aa = {pd_scalar_int(0), pd_scalar_int(depth), pd_scalar_int(1), (int)x->dtype};
  pd_status s = pd_cv_run1(c, PD_OP_ARANGE, &aa, &r);
  if (s == PD_OK) {
    s = pd_cvx_binary(c, PD_OP_EQUAL, u, r, &eq);
    pd_tensor_release(r);
  }
  pd_tensor_release(u);
  PD_TRY(s);
  s = pd_cvx_cast(c, eq, pd_dtype_from_vt((int)vt), &o);
  pd_tensor_release(eq);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- creation */
/* the value of fill_constant-like ops: str_value when given (int64 keeps every digit), else value */
static pd_status fill_value(pd_convert_ctx *c, int dtype, pd_scalar *v) {
  pd_status st = PD_OK;
  const char *sv = pd_cv_str(c, "str_value", "", &st);
  double fv = pd_cv_float(c, "value", 0.0, &st);
  PD_TRY(st);
  int is_int = dtype >= 0 && !pd_dtype_is_float((pd_dtype)dtype) && !pd_dtype_is_complex((pd_dtype)dtype);
  if (sv && *sv) {
    char *end;
    if (is_int) {
      long long iv = strtoll(sv, &end, 10);
      if (*end == 0) {
        *v = pd_scalar_int(iv);
        return PD_OK;
      }
    }
    double d = strtod(sv, &end);
    if (strcmp(sv, "inf") == 0 || strcmp(sv, "-inf") == 0 || strcmp(sv, "nan") == 0 || end != sv) fv = d;
  }
  *v = is_int ? pd_scalar_int((int64_t)fv) : pd_scalar_float(fv);
  return PD_OK;
}

/* a 0-D tensor of v in dtype, expanded to the shape tensor (dynamic) or the shape (0-D: a shape
 * of no entries gives a 0-D result, as Paddle's fill_constant) */
static pd_status fill_to(pd_convert_ctx *c, pd_tensor *value, pd_scalar v, int dtype, pd_tensor *shape_t,
                         const int64_t *shape, int64_t n, const int64_t *known, int nk, pd_tensor **o) {
  pd_tensor *base = NULL;
  int64_t one = 1;
  if (value) {
    pd_tensor *r;
    PD_TRY(pd_cvx_reshape(c, value, &one, 0, &r));
    if ((int)r->dtype == dtype) {
      base = r;
    } else {
      pd_status s = pd_cvx_cast(c, r, dtype, &base);
      pd_tensor_release(r);
      PD_TRY(s);
    }
  } else if (!shape_t) {
    pd_full_args f = {{shape, n}, v, dtype};
    return pd_cv_run1(c, PD_OP_FULL, &f, o);
  } else {
    pd_full_args f = {{&one, 0}, v, dtype};
    PD_TRY(pd_cv_run1(c, PD_OP_FULL, &f, &base));
  }
  pd_status s;
  if (shape_t) {
    pd_expand_dyn_args e = {base, shape_t, {known, nk < 0 ? 0 : nk}};
    s = pd_cv_run1(c, PD_OP_EXPAND_DYN, &e, o);
  } else {
    pd_expand_args e = {base, {shape, n}};
    s = pd_cv_run1(c, PD_OP_EXPAND, &e, o);
  }
  pd_tensor_release(base);
  return s;
}

pd_status pd_cv_load_fill_constant(pd_convert_ctx *c) {
  pd_status st = PD_OK;
  int64_t vt = pd_cv_int(c, "dtype", PD_VT_FP32, &st);
  PD_TRY(st);
  int dtype = pd_dtype_from_vt((int)vt);
  if (dtype < 0) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "dtype %lld is not a data type code", (long long)vt);
  pd_scalar v;
  PD_TRY(fill_value(c, dtype, &v));
  const int64_t *shape;
  int64_t n;
  PD_TRY(ints_attr(c, "shape", &shape, &n));
  pd_tensor *shape_t = pd_cv_in(c, "ShapeTensor", 0), *made = NULL, *o;
  int64_t kv[PD_MAX_DIMS];
  int nk = known_list(c, "ShapeTensor", "ShapeTensorList", kv);
  for (int i = 0; i < nk; i++)
    if (kv[i] == PD_CV_UNKNOWN) kv[i] = -1;
  if (!shape_t) {
    PD_TRY(pd_cvx_list(c, "ShapeTensorList", &made));
    shape_t = made;
  }
  pd_status s = fill_to(c, pd_cv_in(c, "ValueTensor", 0), v, dtype, shape_t, shape, n, kv, nk, &o);
  pd_tensor_release(made);
  PD_TRY(s);
  int64_t cnt = 1;
  for (int64_t i = 0; i < n; i++) cnt *= shape[i];
  if (!shape_t && !has_in(c, "ValueTensor") && v.kind == PD_SCALAR_INT && n <= 1 && cnt == 1)
    pd_cv_set_known(c, "Out", 0, &v.i, 1);
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_save_fill_constant(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                                   const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_full_args *a = (const pd_full_args *)args;
  char buf[64];
  if (a->value.kind == PD_SCALAR_FLOAT) snprintf(buf, sizeof buf, "%.17g", a->value.f);
  else snprintf(buf, sizeof buf, "%lld", (long long)a->value.i);
  PD_TRY(pd_opdesc_set_attr_str(op, "str_value", buf));
  if (a->dtype < 0) PD_TRY(pd_opdesc_set_attr_int(op, "dtype", PD_AT_INT, PD_VT_FP32));
  return pd_opdesc_set_attr_int(op, "force_cpu", PD_AT_BOOLEAN, 0);
}

/* full_dyn: fill_constant with its shape in ShapeTensor (the shape attribute left empty) */
pd_status pd_cv_save_full_dyn(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                              const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_full_dyn_args *a = (const pd_full_dyn_args *)args;
  char buf[64];
  if (a->value.kind == PD_SCALAR_FLOAT) snprintf(buf, sizeof buf, "%.17g", a->value.f);
  else snprintf(buf, sizeof buf, "%lld", (long long)a->value.i);
  PD_TRY(pd_opdesc_set_attr_str(op, "str_value", buf));
  return pd_opdesc_set_attr_int(op, "force_cpu", PD_AT_BOOLEAN, 0);
}

/* fill_constant_batch_size_like: shape with shape[output_dim_idx] = Input.shape[input_dim_idx] */
pd_status pd_cv_load_fill_constant_bsl(pd_convert_ctx *c) {
  pd_tensor *in, *o;
  PD_TRY(pd_cv_need(c, "Input", &in));
  pd_status st = PD_OK;
  int64_t vt = pd_cv_int(c, "dtype", PD_VT_FP32, &st), idi = pd_cv_int(c, "input_dim_idx", 0, &st),
          odi = pd_cv_int(c, "output_dim_idx", 0, &st);
  PD_TRY(st);
  int dtype = pd_dtype_from_vt((int)vt);
  if (dtype < 0) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "dtype %lld is not a data type code", (long long)vt);
  pd_scalar v;
  PD_TRY(fill_value(c, dtype, &v));
  const int64_t *shp;
  int64_t n;
  PD_TRY(ints_attr(c, "shape", &shp, &n));
  if (n > PD_MAX_DIMS || odi < 0 || odi >= n || idi < 0 || idi >= in->ndim)
    return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "input_dim_idx / output_dim_idx out of range");
  int64_t shape[PD_MAX_DIMS];
  for (int64_t i = 0; i < n; i++) shape[i] = shp[i];
  if (in->shape[idi] >= 0) {
    shape[odi] = in->shape[idi];
    PD_TRY(fill_to(c, NULL, v, dtype, NULL, shape, n, NULL, 0, &o));
    return pd_cv_bind(c, "Out", o);
  }
  /* the batch size is known when the program runs: the shape as a tensor */
  pd_tensor *s_in, *dim, *parts[3], *shape_t;
  pd_shape_args sa = {in};
  PD_TRY(pd_cv_run1(c, PD_OP_SHAPE, &sa, &s_in));
  int64_t ax0 = 0, st0 = idi, en0 = idi + 1;
  pd_slice_args sl = {s_in, {&ax0, 1}, {&st0, 1}, {&en0, 1}};
  pd_status s = pd_cv_run1(c, PD_OP_SLICE, &sl, &dim);
  pd_tensor_release(s_in);
  PD_TRY(s);
  int np = 0;
  double vals[PD_MAX_DIMS];
  for (int part = 0; part < 2; part++) {
    int64_t lo = part == 0 ? 0 : odi + 1, hi = part == 0 ? odi : n;
    if (part == 1) parts[np++] = dim;
    if (hi <= lo) continue;
    for (int64_t i = lo; i < hi; i++) vals[i - lo] = (double)shape[i];
    int64_t len = hi - lo;
    pd_assign_value_args av = {{&len, 1}, PD_INT32, {vals, len}};
    s = pd_cv_run1(c, PD_OP_ASSIGN_VALUE, &av, &parts[np]);
    if (s != PD_OK) break;
    np++;
  }
  if (s == PD_OK) {
    pd_concat_args ca = {{parts, np}, 0};
    s = pd_cv_run1(c, PD_OP_CONCAT, &ca, &shape_t);
  }
  for (int i = 0; i < np; i++) pd_tensor_release(parts[i]);
  if (s != PD_OK && np == 0) pd_tensor_release(dim);
  PD_TRY(s);
  int64_t known[PD_MAX_DIMS];
  for (int64_t i = 0; i < n; i++) known[i] = i == odi ? -1 : shape[i];
  s = fill_to(c, NULL, v, dtype, shape_t, NULL, 0, known, (int)n, &o);
  pd_tensor_release(shape_t);
  PD_TRY(s);
  return pd_cv_bind(c, "Out", o);
}

/* assign_value: the values from the typed list Paddle keeps (fp32_values, int64_values ...) */
pd_status pd_cv_load_assign_value(pd_convert_ctx *c) {
  static const char *const lists[] = {"fp32_values", "fp64_values", "int32_values", "int64_values", "bool_values", "values"};
  pd_status st = PD_OK;
  int64_t vt = pd_cv_int(c, "dtype", PD_VT_FP32, &st);
  PD_TRY(st);
  int dtype = pd_dtype_from_vt((int)vt);
  if (dtype < 0) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "dtype %lld is not a data type code", (long long)vt);
  const int64_t *shape;
  int64_t n;
  PD_TRY(ints_attr(c, "shape", &shape, &n));
  const double *vals = NULL;
  int64_t nv = 0;
  for (int i = 0; i < 6 && nv <= 0; i++) {
    int64_t k;
    const double *v = pd_cv_floats(c, lists[i], &k, &st);
    PD_TRY(st);
    if (k > 0) {
      vals = v;
      nv = k;
    }
  }
  if (n == 0 && nv == 1 && pd_set_to_1d) { /* a 0-D constant: [1] at the Paddle 2.3 API level */
    static const int64_t one = 1;
    shape = &one;
    n = 1;
  }
  pd_tensor *o;
  pd_assign_value_args a = {{shape, n}, dtype, {vals, nv}};
  PD_TRY(pd_cv_run1(c, PD_OP_ASSIGN_VALUE, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_save_assign_value(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                                  const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_assign_value_args *a = (const pd_assign_value_args *)args;
  int64_t n = a->values.n;
  switch (a->dtype) {
    case PD_FLOAT64: return pd_opdesc_set_attr_floats(op, "fp64_values", PD_AT_FLOAT64S, n, a->values.data);
    case PD_FLOAT32: case PD_FLOAT16: case PD_BFLOAT16:
      return pd_opdesc_set_attr_floats(op, "fp32_values", PD_AT_FLOATS, n, a->values.data);
    default: break;
  }
  int64_t *iv = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!iv) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < n; i++) iv[i] = (int64_t)a->values.data[i];
  pd_status s;
  if (a->dtype == PD_INT64) s = pd_opdesc_set_attr_ints(op, "int64_values", PD_AT_LONGS, n, iv);
  else if (a->dtype == PD_BOOL) s = pd_opdesc_set_attr_ints(op, "bool_values", PD_AT_INTS, n, iv);
  else s = pd_opdesc_set_attr_ints(op, "int32_values", PD_AT_INTS, n, iv);
  free(iv);
  return s;
}

/* uniform_random / gaussian_random: gaussian_random's ShapeTensor is gaussian_dyn; the other
 * shape tensors are not supported */
pd_status pd_cv_load_random(pd_convert_ctx *c) {
  if (has_in(c, "ShapeTensor")) {
    int our;
    pd_cv_def(c, &our);
    if (our != PD_OP_GAUSSIAN && our != PD_OP_GAUSSIAN_DYN) return unsupported(c, "ShapeTensor");
    pd_status st = PD_OK;
    int64_t vt = pd_cv_int(c, "dtype", PD_VT_FP32, &st);
    pd_gaussian_dyn_args a = {pd_cv_in(c, "ShapeTensor", 0), pd_cv_float(c, "mean", 0.0, &st),
                              pd_cv_float(c, "std", 1.0, &st), pd_cv_int(c, "seed", 0, &st), pd_dtype_from_vt((int)vt)};
    PD_TRY(st);
    if (a.dtype < 0) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "dtype %lld is not a data type code", (long long)vt);
    pd_tensor *o;
    PD_TRY(pd_cv_run1(c, PD_OP_GAUSSIAN_DYN, &a, &o));
    return pd_cv_bind(c, "Out", o);
  }
  if (has_in(c, "ShapeTensorList")) return unsupported(c, "ShapeTensorList");
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  return pd_cv_generic(c, def, our);
}

/* ---------------------------------------------------------------- topk, mode */
/* top_k_v2 (k, axis, largest, sorted) and the old top_k (k over the last axis) */
pd_status pd_cv_load_topk(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "X", &x));
  if (has_in(c, "K")) return unsupported(c, "K");
  pd_status st = PD_OK;
  pd_topk_args a = {x, pd_cv_int(c, "k", 1, &st), pd_cv_int(c, "axis", -1, &st), (int)pd_cv_int(c, "largest", 1, &st),
                    (int)pd_cv_int(c, "sorted", 1, &st)};
  PD_TRY(st);
  pd_tensor *o[2];
  int n;
  PD_TRY(pd_cv_run(c, PD_OP_TOPK, &a, o, 2, &n));
  pd_status s = pd_cv_out(c, "Out", 0, o[0]);
  if (s == PD_OK && n > 1) s = pd_cv_out(c, "Indices", 0, o[1]);
  for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
  return s;
}

/* mode: keepdim keeps the reduced axis */
pd_status pd_cv_load_mode(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  int64_t axis = pd_cv_int(c, "axis", -1, &st), keep = pd_cv_int(c, "keepdim", 0, &st);
  PD_TRY(st);
  pd_mode_args a = {x, axis};
  pd_tensor *o[2];
  int n;
  PD_TRY(pd_cv_run(c, PD_OP_MODE, &a, o, 2, &n));
  static const char *const slots[] = {"Out", "Indices"};
  pd_status s = PD_OK;
  int64_t ax = axis < 0 ? axis + x->ndim : axis;
  for (int k = 0; k < n; k++) {
    pd_tensor *t = o[k];
    if (s == PD_OK && keep) {
      pd_unsqueeze_args u = {o[k], {&ax, 1}};
      s = pd_cv_run1(c, PD_OP_UNSQUEEZE, &u, &t);
      pd_tensor_release(o[k]);
      if (s != PD_OK) t = NULL;
    }
    if (s == PD_OK) s = pd_cv_out(c, slots[k], 0, t);
    pd_tensor_release(t);
  }
  return s;
}

/* ---------------------------------------------------------------- matmul (v1), bmm */
/* Paddle's matmul: transpose_X/Y, alpha; batch dims of equal count multiply pairwise and take
 * X's shape (Y's when X has none); 1-D operands as numpy */
pd_status pd_cv_load_matmul_v1(pd_convert_ctx *c) {
  pd_tensor *x, *y, *o, *yy = NULL;
  PD_TRY(pd_cv_need(c, "X", &x));
  PD_TRY(pd_cv_need(c, "Y", &y));
  pd_status st = PD_OK;
  int tx = (int)pd_cv_int(c, "transpose_X", 0, &st), ty = (int)pd_cv_int(c, "transpose_Y", 0, &st);
  double alpha = pd_cv_float(c, "alpha", 1.0, &st);
  int64_t heads = pd_cv_int(c, "head_number", 1, &st);
  PD_TRY(st);
  if (heads != 1) return pd_cv_error(c, PD_ERR_UNIMPLEMENTED, "head_number %lld is not supported", (long long)heads);
  /* batch dims with the same element count but another shape: y takes x's batch shape */
  if (x->ndim >= 3 && y->ndim >= 3 && (x->ndim != y->ndim || memcmp(x->shape, y->shape, sizeof(int64_t) * (size_t)(x->ndim - 2)))) {
    int64_t px = 1, py = 1, known = 1;
    for (int d = 0; d < x->ndim - 2; d++) px *= x->shape[d], known &= x->shape[d] >= 0;
    for (int d = 0; d < y->ndim - 2; d++) py *= y->shape[d], known &= y->shape[d] >= 0;
    if (known && px == py) {
      int64_t shp[PD_MAX_DIMS];
      int k = 0;
      for (int d = 0; d < x->ndim - 2; d++) shp[k++] = x->shape[d];
      shp[k++] = y->shape[y->ndim - 2];
      shp[k++] = y->shape[y->ndim - 1];
      PD_TRY(pd_cvx_reshape(c, y, shp, k, &yy));
    }
  }
  pd_matmul_args a = {x, yy ? yy : y, tx, ty};
  pd_status s = pd_cv_run1(c, PD_OP_MATMUL, &a, &o);
  pd_tensor_release(yy);
  PD_TRY(s);
  if ((float)alpha != 1.0f) {
    pd_tensor *t;
    s = pd_cvx_scale(c, o, alpha, 0.0, &t);
    pd_tensor_release(o);
    PD_TRY(s);
    o = t;
  }
  return pd_cv_bind(c, "Out", o);
}

/* ---------------------------------------------------------------- pad, pad3d */
/* Paddle's pad: constant, pairs for every dim; pad3d: a 5-D input, [left, right, top, bottom,
 * front, back] and a mode. Ours: pairs for every dim in dim order, any mode. */
pd_status pd_cv_load_pad(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  const int64_t *p;
  int64_t n;
  PD_TRY(ints_attr(c, "paddings", &p, &n));
  if (strcmp(pd_cv_op(c)->type, "pad") == 0) {
    double v = pd_cv_float(c, "pad_value", 0.0, &st);
    PD_TRY(st);
    pd_pad_args a = {x, {p, n}, "constant", v};
    PD_TRY(pd_cv_run1(c, PD_OP_PAD, &a, &o));
    return pd_cv_bind(c, "Out", o);
  }
  if (has_in(c, "Paddings")) return unsupported(c, "Paddings");
  double v = pd_cv_float(c, "value", 0.0, &st);
  const char *mode = pd_cv_str(c, "mode", "constant", &st), *fmt = pd_cv_str(c, "data_format", "NCDHW", &st);
  PD_TRY(st);
  if (x->ndim != 5 || n != 6) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "expected a 5-D input and 6 paddings");
  int64_t *q = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * 10);
  if (!q) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int first = strcmp(fmt, "NDHWC") != 0, d0 = first ? 2 : 1;
  for (int i = 0; i < 3; i++) { /* dim d0 + i is D, H, W: paddings pair 2 - i */
    q[2 * (d0 + i)] = p[2 * (2 - i)];
    q[2 * (d0 + i) + 1] = p[2 * (2 - i) + 1];
  }
  pd_pad_args a = {x, {q, 10}, mode, v};
  PD_TRY(pd_cv_run1(c, PD_OP_PAD, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

/* constant mode: Paddle's pad as is; other modes: pad3d, which takes a 5-D input padded on
 * D, H and W only */
pd_status pd_cv_save_pad(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                         const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_pad_args *a = (const pd_pad_args *)args;
  if (!a->mode || strcmp(a->mode, "constant") == 0) return PD_OK;
  int nd = a->x->ndim;
  const int64_t *p = a->paddings.data;
  int first = nd == 5 && a->paddings.n == 10 && !p[0] && !p[1] && !p[2] && !p[3];
  int last = nd == 5 && a->paddings.n == 10 && !p[0] && !p[1] && !p[8] && !p[9];
  if (!first && !last)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[pad] mode %s: Paddle's pad3d takes a 5-D input padded on D, H "
                        "and W only; this pad has no Paddle op", a->mode);
  int d0 = first ? 2 : 1;
  int64_t q[6];
  for (int i = 0; i < 3; i++) { /* dim d0 + i is D, H, W: pad3d's pair 2 - i */
    q[2 * (2 - i)] = p[2 * (d0 + i)];
    q[2 * (2 - i) + 1] = p[2 * (d0 + i) + 1];
  }
  PD_TRY(pd_opdesc_set_type(op, "pad3d"));
  PD_TRY(pd_opdesc_remove_attr(op, "pad_value"));
  PD_TRY(pd_opdesc_set_attr_ints(op, "paddings", PD_AT_INTS, 6, q));
  PD_TRY(pd_opdesc_set_attr_str(op, "mode", a->mode));
  PD_TRY(pd_opdesc_set_attr_float(op, "value", PD_AT_FLOAT, a->value));
  return pd_opdesc_set_attr_str(op, "data_format", first ? "NCDHW" : "NDHWC");
}

/* ---------------------------------------------------------------- linspace, no-form ops */
pd_status pd_cv_load_linspace(pd_convert_ctx *c) {
  const pd_compat_def *def = pd_compat_for_op(PD_OP_LINSPACE_TENSOR);
  return pd_cv_generic(c, def, PD_OP_LINSPACE_TENSOR);
}

/* our op has no Paddle form (NotImplementedError while recording) */
pd_status pd_cv_save_no_form(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                             const char *const *out_names) {
  (void)args;
  (void)in_names;
  (void)out_names;
  (void)op;
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] this form of the op has no Paddle operator to record",
                      pd_op_defs[our_op].name);
}

/* Paddle's SelectedRows ops */
pd_status pd_cv_load_selected_rows(pd_convert_ctx *c) {
  return pd_cv_error(c, PD_ERR_UNIMPLEMENTED, "SelectedRows variables are not supported by Paddle-C's executor");
}
