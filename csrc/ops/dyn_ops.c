/* Ops whose attributes come from tensors when they run (ops/dyn.yaml): Paddle programs pass
 * sizes, starts, shapes and ranges as tensor inputs. Each op resolves its tensors into the args
 * of one of our ops (interp, slice, expand, arange, linspace): infer_meta does when the tensors
 * hold data (at run time) and otherwise reports unknown dims (while a program is compiled); the
 * kernel runs the resolved op and hands over its outputs. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "../core/pd_device.h"
#include "infer_meta_common.h"
#include "dyn_ops.h"

static pd_status bad(const char *op, const char *msg) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, msg);
}

static int has_data(const pd_tensor *t) { return t && t->storage; }

/* the values of a tensor holding at most cap numbers (any real dtype), row-major */
static pd_status values_of(const char *op, const pd_tensor *t, int64_t cap, double *dst, int64_t *n) {
  if (t->numel > cap) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected at most %lld values, "
                                          "received a tensor of %lld", op, (long long)cap, (long long)t->numel);
  if (pd_dtype_is_complex(t->dtype)) return pd_set_error(PD_ERR_TYPE, "[%s] expected a real tensor", op);
  int64_t idx[PD_MAX_DIMS] = {0};
  for (int64_t k = 0; k < t->numel; k++) {
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    unsigned char buf[16];
    const void *p;
    PD_TRY(pd_elem_host(t, off, buf, &p)); /* a GPU tensor's value is copied to the host */
    dst[k] = pd_dtype_is_float(t->dtype) ? pd_load_as_double(p, t->dtype) : (double)pd_load_as_int64(p, t->dtype);
    for (int d = t->ndim - 1; d >= 0; d--) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  *n = t->numel;
  return PD_OK;
}

pd_status pd_dyn_forward(int op, const void *args, pd_tensor **out, int n_out) {
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  PD_TRY(pd_op_exec(op, args, &o, &n));
  for (int i = 0; i < n; i++) {
    if (i < n_out) {
      pd_tensor_release(out[i]);
      out[i] = o[i];
    } else {
      pd_tensor_release(o[i]);
    }
  }
  if (o != buf) free(o);
  return PD_OK;
}

#define STAMP(OP, IMPL, SUF) \
  pd_status pd_kernel_##OP##_##SUF(const void *args, pd_tensor **out, int n_out) { return IMPL(args, out, n_out); }
#define STAMP_ALL(OP, IMPL)                                                                          \
  STAMP(OP, IMPL, bool) STAMP(OP, IMPL, u8) STAMP(OP, IMPL, i8) STAMP(OP, IMPL, i16) STAMP(OP, IMPL, i32) \
  STAMP(OP, IMPL, i64) STAMP(OP, IMPL, f16) STAMP(OP, IMPL, bf16) STAMP(OP, IMPL, f32) STAMP(OP, IMPL, f64) \
  STAMP(OP, IMPL, c64) STAMP(OP, IMPL, c128)

/* ---------------------------------------------------------------- interp_v2 */
/* Paddle's interpolate_v2 size rules: SizeTensor, else OutSize, else in * scale (Scale tensor,
 * else the scale attribute: 1 value for 1 spatial dim, else one per dim) truncated in float
 * arithmetic, else out_d/out_h/out_w. *known = 0 when a needed value is not available yet. */
typedef struct {
  int64_t out[3];
  double scale[3];
  int n_scale;
  char fmt[8];
} interp_res;

static pd_status interp_resolve(const pd_interp_v2_args *a, interp_res *r, int *known) {
  const pd_tensor *x = a->x;
  int nd = x->ndim, ns = nd - 2;
  if (ns < 1 || ns > 3) return bad("interp_v2", "expected a 3-D to 5-D input");
  const char *lay = a->data_layout ? a->data_layout : "NCHW";
  int cl = strcmp(lay, "NCHW") != 0; /* Paddle's interpolate kernels: only NCHW is channel-first */
  static const char *const first[] = {"", "NCW", "NCHW", "NCDHW"}, *const last[] = {"", "NWC", "NHWC", "NDHWC"};
  strcpy(r->fmt, cl ? last[ns] : first[ns]);
  int64_t in[3];
  for (int i = 0; i < ns; i++) in[i] = x->shape[(cl ? 1 : 2) + i];
  const int64_t attr_out[3] = {a->out_d, a->out_h, a->out_w};
  for (int i = 0; i < ns; i++) r->out[i] = attr_out[3 - ns + i];
  *known = 1;
  r->n_scale = 0;
  double v[8];
  int64_t n;
  if (a->size_tensor.n > 0) {
    if (a->size_tensor.n != ns) return bad("interp_v2", "SizeTensor needs one tensor per spatial dim");
    for (int i = 0; i < ns; i++) {
      if (!has_data(a->size_tensor.data[i])) {
        *known = 0;
        continue;
      }
      PD_TRY(values_of("interp_v2", a->size_tensor.data[i], 1, v, &n));
      r->out[i] = (int64_t)v[0];
    }
    return PD_OK;
  }
  float sc[3] = {-1, -1, -1};
  int have_scale = 0;
  if (a->scale_tensor) {
    if (!has_data(a->scale_tensor)) {
      *known = 0;
    } else {
      PD_TRY(values_of("interp_v2", a->scale_tensor, 8, v, &n));
      if (n < 1) return bad("interp_v2", "the Scale tensor is empty");
      for (int i = 0; i < ns; i++) sc[i] = (float)(n > 1 ? v[i < n ? i : n - 1] : v[0]);
      have_scale = 1;
    }
  } else if (a->scale.n > (ns == 1 ? 0 : 1)) {
    if (a->scale.n < ns) return bad("interp_v2", "expected one scale per spatial dim");
    for (int i = 0; i < ns; i++) sc[i] = (float)a->scale.data[i];
    have_scale = 1;
  }
  if (have_scale) {
    for (int i = 0; i < ns; i++)
      if (!(sc[i] > 0)) return bad("interp_v2", "expected scales > 0");
    for (int i = 0; i < ns; i++) {
      r->scale[i] = sc[i];
      if (in[i] < 0) *known = 0;
      else r->out[i] = (int64_t)(int)((float)in[i] * sc[i]);
    }
    r->n_scale = ns;
  }
  if (a->out_size) {
    if (!has_data(a->out_size)) {
      *known = 0;
    } else {
      PD_TRY(values_of("interp_v2", a->out_size, 8, v, &n));
      if (n < ns) return bad("interp_v2", "OutSize needs one value per spatial dim");
      for (int i = 0; i < ns; i++) r->out[i] = (int64_t)v[i];
    }
  }
  return PD_OK;
}

static void interp_args(const pd_interp_v2_args *a, const interp_res *r, pd_interp_args *ia) {
  int ns = a->x->ndim - 2;
  ia->x = a->x;
  ia->out_size = (pd_int_array){r->out, ns};
  ia->scale = (pd_float_array){r->scale, r->n_scale};
  ia->mode = a->interp_method;
  ia->align_corners = a->align_corners;
  ia->align_mode = a->align_mode;
  ia->data_format = r->fmt;
}

pd_status pd_infer_interp_v2(const void *args, pd_meta_list *out) {
  const pd_interp_v2_args *a = (const pd_interp_v2_args *)args;
  interp_res r;
  int known;
  PD_TRY(interp_resolve(a, &r, &known));
  int ns = a->x->ndim - 2;
  for (int i = 0; i < ns; i++)
    if (r.out[i] <= 0) known = 0;
  for (int d = 0; d < a->x->ndim; d++)
    if (a->x->shape[d] < 0) known = 0;
  if (known) {
    pd_interp_args ia;
    interp_args(a, &r, &ia);
    return pd_op_defs[PD_OP_INTERP].infer_meta(&ia, out);
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  int cl = r.fmt[1] != 'C';
  pd_meta_like(m, a->x);
  for (int i = 0; i < ns; i++) m->shape[(cl ? 1 : 2) + i] = r.out[i] > 0 ? r.out[i] : -1;
  return PD_OK;
}

static pd_status interp_v2_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_interp_v2_args *a = (const pd_interp_v2_args *)args;
  interp_res r;
  int known;
  PD_TRY(interp_resolve(a, &r, &known));
  pd_interp_args ia;
  interp_args(a, &r, &ia);
  return pd_dyn_forward(PD_OP_INTERP, &ia, out, n_out);
}
STAMP(interp_v2, interp_v2_impl, f32)
STAMP(interp_v2, interp_v2_impl, f64)

/* ---------------------------------------------------------------- slice_dyn */
/* Paddle's slice: StartsTensor, else StartsTensorList (one [1] tensor per axis), else the
 * starts attribute (the same for ends); decrease_axis drops those (size 1) dims. */
typedef struct {
  int64_t starts[PD_MAX_DIMS], ends[PD_MAX_DIMS];
} slice_res;

static pd_status slice_side(const pd_tensor *t, pd_tensor_list lst, pd_int_array attr, int64_t na, int64_t *dst,
                            int *known) {
  double v[PD_MAX_DIMS];
  int64_t n;
  if (t) {
    if (!has_data(t)) {
      *known = 0;
      return PD_OK;
    }
    PD_TRY(values_of("slice", t, PD_MAX_DIMS, v, &n));
    if (n != na) return bad("slice", "the starts/ends tensor needs one value per axis");
    for (int64_t i = 0; i < na; i++) dst[i] = (int64_t)v[i];
    return PD_OK;
  }
  if (lst.n > 0) {
    if (lst.n != na) return bad("slice", "the starts/ends tensor list needs one tensor per axis");
    for (int64_t i = 0; i < na; i++) {
      if (!has_data(lst.data[i])) {
        *known = 0;
        continue;
      }
      PD_TRY(values_of("slice", lst.data[i], 1, v, &n));
      dst[i] = (int64_t)v[0];
    }
    return PD_OK;
  }
  if (attr.n != na) return bad("slice", "expected as many starts/ends as axes");
  for (int64_t i = 0; i < na; i++) dst[i] = attr.data[i];
  return PD_OK;
}

static pd_status slice_resolve(const pd_slice_dyn_args *a, slice_res *r, int *known) {
  if (a->axes.n > PD_MAX_DIMS) return bad("slice", "too many axes");
  *known = 1;
  PD_TRY(slice_side(a->starts_tensor, a->starts_list, a->starts, a->axes.n, r->starts, known));
  return slice_side(a->ends_tensor, a->ends_list, a->ends, a->axes.n, r->ends, known);
}

pd_status pd_infer_slice_dyn(const void *args, pd_meta_list *out) {
  const pd_slice_dyn_args *a = (const pd_slice_dyn_args *)args;
  slice_res r;
  int known;
  PD_TRY(slice_resolve(a, &r, &known));
  pd_meta m;
  m.dtype = a->x->dtype;
  m.ndim = a->x->ndim;
  if (known) {
    pd_slice_args sa = {a->x, a->axes, {r.starts, a->axes.n}, {r.ends, a->axes.n}};
    pd_meta_list ml;
    ml.n = 0;
    ml.m = ml.inline_m;
    PD_TRY(pd_op_defs[PD_OP_SLICE].infer_meta(&sa, &ml));
    m = ml.m[0];
    pd_meta_list_free(&ml);
  } else {
    for (int d = 0; d < m.ndim; d++) m.shape[d] = a->x->shape[d];
    for (int64_t i = 0; i < a->axes.n; i++) {
      int64_t ax = a->axes.data[i] < 0 ? a->axes.data[i] + m.ndim : a->axes.data[i];
      if (ax < 0 || ax >= m.ndim) return bad("slice", "axis out of range");
      m.shape[ax] = -1;
    }
  }
  int drop[PD_MAX_DIMS] = {0};
  for (int64_t i = 0; i < a->decrease_axis.n; i++) {
    int64_t ax = a->decrease_axis.data[i] < 0 ? a->decrease_axis.data[i] + m.ndim : a->decrease_axis.data[i];
    if (ax < 0 || ax >= m.ndim) return bad("slice", "decrease_axis out of range");
    drop[ax] = 1;
  }
  pd_meta *o = pd_meta_list_resize(out, 1);
  o->dtype = m.dtype;
  o->ndim = 0;
  for (int d = 0; d < m.ndim; d++)
    if (!drop[d]) o->shape[o->ndim++] = m.shape[d];
  pd_scalar_meta(o); /* no dims left: [1] or 0-D by the API level */
  return PD_OK;
}

static pd_status slice_dyn_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_slice_dyn_args *a = (const pd_slice_dyn_args *)args;
  slice_res r;
  int known;
  PD_TRY(slice_resolve(a, &r, &known));
  pd_slice_args sa = {a->x, a->axes, {r.starts, a->axes.n}, {r.ends, a->axes.n}};
  if (a->decrease_axis.n == 0) return pd_dyn_forward(PD_OP_SLICE, &sa, out, n_out);
  pd_tensor *s[1] = {NULL};
  PD_TRY(pd_dyn_forward(PD_OP_SLICE, &sa, s, 1));
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  pd_status st = pd_infer_slice_dyn(args, &ml);
  if (st == PD_OK) {
    pd_reshape_args ra = {s[0], {ml.m[0].shape, ml.m[0].ndim}};
    st = pd_dyn_forward(PD_OP_RESHAPE, &ra, out, n_out);
  }
  pd_meta_list_free(&ml);
  pd_tensor_release(s[0]);
  return st;
}
STAMP_ALL(slice_dyn, slice_dyn_impl)

/* ---------------------------------------------------------------- expand_dyn */
pd_status pd_infer_expand_dyn(const void *args, pd_meta_list *out) {
  const pd_expand_dyn_args *a = (const pd_expand_dyn_args *)args;
  if (a->shape->ndim > 1 || (a->shape->numel >= 0 && a->shape->numel > PD_MAX_DIMS))
    return bad("expand", "expected a 1-D shape tensor of at most 9 entries");
  if (!has_data(a->shape)) {
    pd_meta *m = pd_meta_list_resize(out, 1);
    m->dtype = a->x->dtype;
    m->ndim = a->shape->numel < 0 ? (a->known.n ? (int)a->known.n : -1) : (int)a->shape->numel;
    /* the dims known while compiling (the loader's hint) */
    for (int d = 0; d < m->ndim; d++) m->shape[d] = a->known.n == m->ndim && a->known.data[d] >= 0 ? a->known.data[d] : -1;
    return PD_OK;
  }
  double v[PD_MAX_DIMS];
  int64_t n, sh[PD_MAX_DIMS];
  PD_TRY(values_of("expand", a->shape, PD_MAX_DIMS, v, &n));
  for (int64_t i = 0; i < n; i++) sh[i] = (int64_t)v[i];
  pd_expand_args ea = {a->x, {sh, n}};
  return pd_op_defs[PD_OP_EXPAND].infer_meta(&ea, out);
}

static pd_status expand_dyn_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_expand_dyn_args *a = (const pd_expand_dyn_args *)args;
  double v[PD_MAX_DIMS];
  int64_t n, sh[PD_MAX_DIMS];
  PD_TRY(values_of("expand", a->shape, PD_MAX_DIMS, v, &n));
  for (int64_t i = 0; i < n; i++) sh[i] = (int64_t)v[i];
  pd_expand_args ea = {a->x, {sh, n}};
  return pd_dyn_forward(PD_OP_EXPAND, &ea, out, n_out);
}
STAMP_ALL(expand_dyn, expand_dyn_impl)

/* ---------------------------------------------------------------- arange_tensor / linspace_tensor */
static pd_status scalar_of(const char *op, const pd_tensor *t, pd_scalar *s) {
  double v[1];
  int64_t n;
  if (t->numel != 1) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected one-element tensors", op);
  PD_TRY(values_of(op, t, 1, v, &n));
  *s = pd_dtype_is_float(t->dtype) ? pd_scalar_float(v[0]) : pd_scalar_int((int64_t)v[0]);
  return PD_OK;
}

static pd_status arange_resolve(const pd_arange_tensor_args *a, pd_arange_args *r) {
  PD_TRY(scalar_of("range", a->start, &r->start));
  PD_TRY(scalar_of("range", a->end, &r->end));
  PD_TRY(scalar_of("range", a->step, &r->step));
  r->dtype = (int)a->start->dtype;
  return PD_OK;
}

pd_status pd_infer_arange_tensor(const void *args, pd_meta_list *out) {
  const pd_arange_tensor_args *a = (const pd_arange_tensor_args *)args;
  if (has_data(a->start) && has_data(a->end) && has_data(a->step)) {
    pd_arange_args r;
    PD_TRY(arange_resolve(a, &r));
    return pd_op_defs[PD_OP_ARANGE].infer_meta(&r, out);
  }
  int64_t n = -1;
  pd_meta_set(pd_meta_list_resize(out, 1), a->start->dtype, 1, &n);
  return PD_OK;
}

static pd_status arange_tensor_impl(const void *args, pd_tensor **out, int n_out) {
  pd_arange_args r;
  PD_TRY(arange_resolve((const pd_arange_tensor_args *)args, &r));
  return pd_dyn_forward(PD_OP_ARANGE, &r, out, n_out);
}
STAMP(arange_tensor, arange_tensor_impl, i32)
STAMP(arange_tensor, arange_tensor_impl, i64)
STAMP(arange_tensor, arange_tensor_impl, f32)
STAMP(arange_tensor, arange_tensor_impl, f64)

static pd_status linspace_resolve(const pd_linspace_tensor_args *a, pd_linspace_args *r) {
  pd_scalar num = pd_scalar_int(0);
  PD_TRY(scalar_of("linspace", a->start, &r->start));
  PD_TRY(scalar_of("linspace", a->stop, &r->stop));
  PD_TRY(scalar_of("linspace", a->num, &num));
  r->num = num.i;
  r->dtype = a->dtype;
  return PD_OK;
}

pd_status pd_infer_linspace_tensor(const void *args, pd_meta_list *out) {
  const pd_linspace_tensor_args *a = (const pd_linspace_tensor_args *)args;
  if (has_data(a->start) && has_data(a->stop) && has_data(a->num)) {
    pd_linspace_args r;
    PD_TRY(linspace_resolve(a, &r));
    return pd_op_defs[PD_OP_LINSPACE].infer_meta(&r, out);
  }
  int64_t n = -1;
  pd_meta_set(pd_meta_list_resize(out, 1), a->dtype >= 0 ? (pd_dtype)a->dtype : PD_FLOAT32, 1, &n);
  return PD_OK;
}

static pd_status linspace_tensor_impl(const void *args, pd_tensor **out, int n_out) {
  pd_linspace_args r;
  PD_TRY(linspace_resolve((const pd_linspace_tensor_args *)args, &r));
  return pd_dyn_forward(PD_OP_LINSPACE, &r, out, n_out);
}
STAMP(linspace_tensor, linspace_tensor_impl, i32)
STAMP(linspace_tensor, linspace_tensor_impl, i64)
STAMP(linspace_tensor, linspace_tensor_impl, f32)
STAMP(linspace_tensor, linspace_tensor_impl, f64)

/* ---------------------------------------------------------------- attr_dyn */
/* Fills op's args struct (buf) from attr_dyn's arguments: tensors from x in order (NULL at the
 * absent positions), the attributes at slots from their one-element tensors (`stand` while a
 * program is built: *known = 0), the other attributes from attrs in order. */
static pd_status attr_dyn_fill(const pd_attr_dyn_args *a, int op, unsigned char *buf, int *known, double stand) {
  const pd_op_def *d = &pd_op_defs[op];
  memset(buf, 0, d->args_size);
  if (d->defaults) d->defaults(buf);
  int64_t ti = 0, fi = 0;
  *known = 1;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *ad = &d->args[i];
    char *p = (char *)buf + ad->offset;
    int64_t slot = -1;
    int absent = 0;
    for (int64_t j = 0; j < a->slots.n; j++)
      if (a->slots.data[j] == i) slot = j;
    for (int64_t j = 0; j < a->absent.n; j++)
      if (a->absent.data[j] == i) absent = 1;
    if (slot >= a->values.n)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] no tensor for the attribute %s", d->name, ad->name);
    if (ad->kind == PD_ARG_TENSOR || ad->kind == PD_ARG_TENSOR_OPT) {
      if (absent && ad->kind == PD_ARG_TENSOR_OPT) {
        *(pd_tensor **)p = NULL;
        continue;
      }
      if (absent || ti >= a->x.n)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %s is required", d->name, ad->name);
      *(pd_tensor **)p = a->x.data[ti++];
      continue;
    }
    if (ad->kind != PD_ARG_INT && ad->kind != PD_ARG_FLOAT && ad->kind != PD_ARG_BOOL && ad->kind != PD_ARG_DTYPE)
      return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] argument %s cannot be given to attr_dyn (int, float, bool "
                          "and dtype attributes only)", d->name, ad->name);
    double v = 0.0;
    int64_t iv = 0;
    if (slot >= 0) {
      const pd_tensor *t = a->values.data[slot];
      if (t->numel != 1 && (t->storage || t->numel >= 0))
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the tensor of %s must hold 1 element, received %lld",
                            d->name, ad->name, (long long)t->numel);
      if (!t->storage) {
        *known = 0;
        v = stand;
        iv = (int64_t)stand;
      } else {
        unsigned char eb[16];
        const void *ep;
        PD_TRY(pd_elem_host(t, t->offset, eb, &ep));
        if (pd_dtype_is_float(t->dtype)) {
          v = pd_load_as_double(ep, t->dtype);
          iv = (int64_t)v;
        } else {
          iv = pd_load_as_int64(ep, t->dtype);
          v = (double)iv;
        }
      }
    } else {
      if (fi >= a->attrs.n)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] no value for the attribute %s", d->name, ad->name);
      v = a->attrs.data[fi++];
      iv = (int64_t)v;
    }
    if (ad->kind == PD_ARG_INT) *(int64_t *)p = iv;
    else if (ad->kind == PD_ARG_FLOAT) *(double *)p = v;
    else *(int *)p = ad->kind == PD_ARG_BOOL ? iv != 0 : (int)iv;
  }
  if (ti != a->x.n || fi != a->attrs.n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attr_dyn received %lld tensors and %lld attributes, the op "
                        "takes %lld and %lld", d->name, (long long)a->x.n, (long long)a->attrs.n, (long long)ti,
                        (long long)fi);
  return PD_OK;
}

static pd_status attr_dyn_op(const pd_attr_dyn_args *a, int *op) {
  *op = a->op ? pd_op_lookup(a->op) : -1;
  if (*op < 0) return pd_set_error(PD_ERR_NOT_FOUND, "[attr_dyn] unknown op %s", a->op ? a->op : "(null)");
  if (pd_op_defs[*op].args_size > PD_ATTR_DYN_ARGS_MAX)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[attr_dyn] op %s has too many arguments", a->op);
  return PD_OK;
}

pd_status pd_attr_dyn_target(const pd_attr_dyn_args *a, int *op, void *buf, int *known) {
  PD_TRY(attr_dyn_op(a, op));
  return attr_dyn_fill(a, *op, (unsigned char *)buf, known, 0.0);
}

int pd_attr_dyn_differentiable(const pd_attr_dyn_args *a) {
  int op = a->op ? pd_op_lookup(a->op) : -1;
  return op >= 0 && !(pd_op_defs[op].flags & PD_OP_NONDIFF);
}

/* While a program is built the values are unknown: the target's infer_meta runs with 0, 1 and
 * -1 standing for them; a dim all the values that infer agree on is known (cumsum's shape does
 * not depend on its axis), the others are -1; one value alone tells nothing (all dims -1). */
pd_status pd_infer_attr_dyn(const void *args, pd_meta_list *out) {
  const pd_attr_dyn_args *a = (const pd_attr_dyn_args *)args;
  int op, known;
  _Alignas(max_align_t) unsigned char buf[PD_ATTR_DYN_ARGS_MAX];
  PD_TRY(attr_dyn_op(a, &op));
  PD_TRY(attr_dyn_fill(a, op, buf, &known, 0.0));
  if (known) return pd_op_defs[op].infer_meta(buf, out);
  static const double stand[] = {0.0, 1.0, -1.0};
  int ok = 0;
  pd_status first = PD_OK;
  for (int c = 0; c < 3; c++) {
    pd_meta_list ml;
    ml.n = 0;
    ml.m = ml.inline_m;
    pd_status st = attr_dyn_fill(a, op, buf, &known, stand[c]);
    if (st == PD_OK) st = pd_op_defs[op].infer_meta(buf, ok ? &ml : out);
    if (st != PD_OK) {
      if (first == PD_OK) first = st;
      if (c < 2 || ok) pd_clear_error();
      pd_meta_list_free(&ml);
      continue;
    }
    if (ok++) {
      int same = ml.n == out->n;
      for (int i = 0; same && i < out->n; i++) same = ml.m[i].ndim == out->m[i].ndim && ml.m[i].dtype == out->m[i].dtype;
      for (int i = 0; i < out->n; i++)
        for (int j = 0; j < out->m[i].ndim; j++)
          if (!same || ml.m[i].shape[j] != out->m[i].shape[j]) out->m[i].shape[j] = -1;
    }
    pd_meta_list_free(&ml);
  }
  if (!ok) return first;
  if (ok == 1)
    for (int i = 0; i < out->n; i++)
      for (int j = 0; j < out->m[i].ndim; j++) out->m[i].shape[j] = -1;
  return PD_OK;
}

static pd_status attr_dyn_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_attr_dyn_args *a = (const pd_attr_dyn_args *)args;
  int op, known;
  _Alignas(max_align_t) unsigned char buf[PD_ATTR_DYN_ARGS_MAX];
  PD_TRY(pd_attr_dyn_target(a, &op, buf, &known));
  if (!known) return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] an attribute tensor holds no data", a->op);
  return pd_dyn_forward(op, buf, out, n_out);
}
STAMP_ALL(attr_dyn, attr_dyn_impl)
