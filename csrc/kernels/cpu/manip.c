/* Movement kernels (ops/manip.yaml). reshape/transpose/squeeze/unsqueeze/flatten/slice/
 * strided_slice build views of the input (reshape and flatten copy when the input is not
 * contiguous); concat/stack/split/unbind/expand/flip copy through views with pd_tensor_copy_;
 * tile/roll use pd_gather_dims; where is an iterator loop. All byte-generic over dtypes. */
#include <stdlib.h>
#include "manip_util.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

/* ---------------- helpers ---------------- */
static inline void copy_elem(char *d, const char *s, size_t es) {
  switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, es);
  }
}

void pd_gather_dims(pd_tensor *out, const pd_tensor *x, int64_t *const *tables) {
  int nd = out->ndim;
  if (out->numel == 0) return;
  size_t es = pd_dtype_size(x->dtype);
  char *o = (char *)pd_tensor_data(out);
  const char *xb = (const char *)pd_tensor_data(x);
  int64_t idx[PD_MAX_DIMS] = {0};
  int64_t inner = nd ? out->shape[nd - 1] : 1;
  int64_t outer = out->numel / inner;
  int64_t xs_last = nd ? x->strides[nd - 1] * (int64_t)es : 0;
  const int64_t *tl = nd ? tables[nd - 1] : NULL;
  for (int64_t r = 0; r < outer; r++) {
    int64_t base = 0;
    for (int d = 0; d < nd - 1; d++) base += tables[d][idx[d]] * x->strides[d];
    const char *src = xb + base * (int64_t)es;
    if (!tl) {
      copy_elem(o, src, es);
      o += es;
    } else {
      for (int64_t i = 0; i < inner; i++, o += es) copy_elem(o, src + tl[i] * xs_last, es);
    }
    for (int d = nd - 2; d >= 0; d--) {
      if (++idx[d] < out->shape[d]) break;
      idx[d] = 0;
    }
  }
}

pd_status pd_index_i64(const char *op, pd_tensor *index, pd_tensor **out) {
  if (index->dtype != PD_INT32 && index->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected index to be int32 or int64, received %s", op,
                        pd_dtype_name(index->dtype));
  pd_tensor *c;
  PD_TRY(pd_tensor_cast(index, PD_INT64, &c));
  pd_status s = pd_tensor_contiguous(c, out);
  pd_tensor_release(c);
  return s;
}

pd_status pd_swap_view(pd_tensor *t, int a, int b, pd_tensor **out) {
  int64_t sh[PD_MAX_DIMS] = {0}, st[PD_MAX_DIMS] = {0};
  for (int i = 0; i < t->ndim; i++) {
    sh[i] = t->shape[i];
    st[i] = t->strides[i];
  }
  int64_t v = sh[a];
  sh[a] = sh[b];
  sh[b] = v;
  v = st[a];
  st[a] = st[b];
  st[b] = v;
  return pd_tensor_view(t, t->ndim, sh, st, t->offset, out);
}

/* A view of x with a contiguous layout of the given shape, copying x first if needed. */
static pd_status reshape_view(pd_tensor *x, int nd, const int64_t *shape, pd_tensor **out) {
  int64_t st[PD_MAX_DIMS];
  pd_contiguous_strides(nd, shape, st);
  if (pd_tensor_is_contiguous(x)) return pd_tensor_view(x, nd, shape, st, x->offset, out);
  pd_tensor *c;
  PD_TRY(pd_tensor_clone(x, &c));
  pd_status s = pd_tensor_view(c, nd, shape, st, c->offset, out);
  pd_tensor_release(c);
  return s;
}

/* Runs an op's own infer_meta to learn its output shape. */
static pd_status meta_of(pd_infer_fn f, const void *args, pd_meta *m) {
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  pd_status s = f(args, &ml);
  if (s == PD_OK) *m = ml.m[0];
  pd_meta_list_free(&ml);
  return s;
}

/* ---------------- view ops ---------------- */
static pd_status reshape_impl(const void *args, pd_tensor **out, int n) {
  const pd_reshape_args *a = (const pd_reshape_args *)args;
  pd_meta m;
  PD_TRY(meta_of(pd_infer_reshape, args, &m));
  return reshape_view(a->x, m.ndim, m.shape, &out[0]);
}
PD_STAMP_ALL(reshape, reshape_impl)

static pd_status reshape_dyn_impl(const void *args, pd_tensor **out, int n) {
  const pd_reshape_dyn_args *a = (const pd_reshape_dyn_args *)args;
  pd_meta m;
  PD_TRY(meta_of(pd_infer_reshape_dyn, args, &m));
  return reshape_view(a->x, m.ndim, m.shape, &out[0]);
}
PD_STAMP_ALL(reshape_dyn, reshape_dyn_impl)

static pd_status flatten_impl(const void *args, pd_tensor **out, int n) {
  const pd_flatten_args *a = (const pd_flatten_args *)args;
  pd_meta m;
  PD_TRY(meta_of(pd_infer_flatten, args, &m));
  return reshape_view(a->x, m.ndim, m.shape, &out[0]);
}
PD_STAMP_ALL(flatten, flatten_impl)

static pd_status transpose_impl(const void *args, pd_tensor **out, int n) {
  const pd_transpose_args *a = (const pd_transpose_args *)args;
  pd_meta m;
  PD_TRY(meta_of(pd_infer_transpose, args, &m));
  int64_t st[PD_MAX_DIMS];
  for (int i = 0; i < m.ndim; i++) {
    int ax;
    PD_TRY(pd_norm_axis("transpose", a->perm.data[i], a->x->ndim, &ax));
    st[i] = a->x->strides[ax];
  }
  return pd_tensor_view(a->x, m.ndim, m.shape, st, a->x->offset, &out[0]);
}
PD_STAMP_ALL(transpose, transpose_impl)

static pd_status squeeze_impl(const void *args, pd_tensor **out, int n) {
  const pd_squeeze_args *a = (const pd_squeeze_args *)args;
  pd_tensor *x = a->x;
  int drop[PD_MAX_DIMS] = {0};
  for (int i = 0; i < x->ndim; i++) drop[i] = a->axis.n == 0 && x->shape[i] == 1;
  for (int64_t k = 0; k < a->axis.n; k++) {
    int ax;
    PD_TRY(pd_norm_axis("squeeze", a->axis.data[k], x->ndim, &ax));
    if (x->shape[ax] == 1) drop[ax] = 1;
  }
  int64_t sh[PD_MAX_DIMS] = {0}, st[PD_MAX_DIMS] = {0};
  int nd = 0;
  for (int i = 0; i < x->ndim; i++)
    if (!drop[i]) {
      sh[nd] = x->shape[i];
      st[nd++] = x->strides[i];
    }
  if (nd == 0) { /* no dims left: the API level's scalar rule ([1] or 0-D) */
    st[0] = 1;
    pd_scalar_dims(&nd, sh);
  }
  return pd_tensor_view(x, nd, sh, st, x->offset, &out[0]);
}
PD_STAMP_ALL(squeeze, squeeze_impl)

static pd_status unsqueeze_impl(const void *args, pd_tensor **out, int n) {
  const pd_unsqueeze_args *a = (const pd_unsqueeze_args *)args;
  pd_tensor *x = a->x;
  int64_t sh[PD_MAX_DIMS] = {0}, st[PD_MAX_DIMS] = {0};
  int cur = x->ndim;
  for (int i = 0; i < cur; i++) {
    sh[i] = x->shape[i];
    st[i] = x->strides[i];
  }
  for (int64_t k = 0; k < a->axis.n; k++) {
    int ax;
    PD_TRY(pd_norm_axis("unsqueeze", a->axis.data[k], cur + 1, &ax));
    for (int j = cur; j > ax; j--) {
      sh[j] = sh[j - 1];
      st[j] = st[j - 1];
    }
    sh[ax] = 1;
    st[ax] = ax + 1 <= cur ? st[ax + 1] * sh[ax + 1] : 1;
    cur++;
  }
  return pd_tensor_view(x, cur, sh, st, x->offset, &out[0]);
}
PD_STAMP_ALL(unsqueeze, unsqueeze_impl)

static pd_status slice_impl(const void *args, pd_tensor **out, int n) {
  const pd_slice_args *a = (const pd_slice_args *)args;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_slice_geometry("slice", a->x, a->axes, a->starts, a->ends, NULL, sh, st, &off));
  return pd_tensor_view(a->x, a->x->ndim, sh, st, off, &out[0]);
}
PD_STAMP_ALL(slice, slice_impl)

static pd_status strided_slice_impl(const void *args, pd_tensor **out, int n) {
  const pd_strided_slice_args *a = (const pd_strided_slice_args *)args;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_slice_geometry("strided_slice", a->x, a->axes, a->starts, a->ends, &a->strides, sh,
                           st, &off));
  return pd_tensor_view(a->x, a->x->ndim, sh, st, off, &out[0]);
}
PD_STAMP_ALL(strided_slice, strided_slice_impl)

/* ---------------- copies ---------------- */
/* Copies src into the block of dst starting at `start` along axis (same ndim). */
static pd_status copy_into_block(pd_tensor *dst, int axis, int64_t start, pd_tensor *src) {
  if (src->numel == 0) return PD_OK;
  pd_tensor *v;
  PD_TRY(pd_tensor_view(dst, dst->ndim, src->shape, dst->strides,
                        dst->offset + start * dst->strides[axis], &v));
  pd_status s = pd_tensor_copy_(v, src);
  pd_tensor_release(v);
  return s;
}

static pd_status concat_impl(const void *args, pd_tensor **out, int n) {
  const pd_concat_args *a = (const pd_concat_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("concat", a->axis, out[0]->ndim, &ax));
  int64_t pos = 0;
  for (int64_t i = 0; i < a->x.n; i++) {
    PD_TRY(copy_into_block(out[0], ax, pos, a->x.data[i]));
    pos += a->x.data[i]->shape[ax];
  }
  return PD_OK;
}
PD_STAMP_ALL(concat, concat_impl)

static pd_status stack_impl(const void *args, pd_tensor **out, int n) {
  const pd_stack_args *a = (const pd_stack_args *)args;
  pd_tensor *o = out[0];
  int ax;
  PD_TRY(pd_norm_axis("stack", a->axis, o->ndim, &ax));
  int64_t sh[PD_MAX_DIMS] = {0}, st[PD_MAX_DIMS] = {0};
  for (int d = 0, j = 0; d < o->ndim; d++)
    if (d != ax) {
      sh[j] = o->shape[d];
      st[j++] = o->strides[d];
    }
  if (o->numel == 0) return PD_OK;
  for (int64_t i = 0; i < a->x.n; i++) {
    pd_tensor *v;
    PD_TRY(pd_tensor_view(o, o->ndim - 1, sh, st, o->offset + i * o->strides[ax], &v));
    pd_status s = pd_tensor_copy_(v, a->x.data[i]);
    pd_tensor_release(v);
    PD_TRY(s);
  }
  return PD_OK;
}
PD_STAMP_ALL(stack, stack_impl)

static pd_status split_impl(const void *args, pd_tensor **out, int n) {
  const pd_split_args *a = (const pd_split_args *)args;
  pd_tensor *x = a->x;
  int ax;
  PD_TRY(pd_norm_axis("split", a->axis, x->ndim, &ax));
  int64_t pos = 0;
  for (int i = 0; i < n; i++) {
    if (out[i]->numel > 0) {
      pd_tensor *v;
      PD_TRY(pd_tensor_view(x, x->ndim, out[i]->shape, x->strides,
                            x->offset + pos * x->strides[ax], &v));
      pd_status s = pd_tensor_copy_(out[i], v);
      pd_tensor_release(v);
      PD_TRY(s);
    }
    pos += out[i]->shape[ax];
  }
  return PD_OK;
}
PD_STAMP_ALL(split, split_impl)

static pd_status unbind_impl(const void *args, pd_tensor **out, int n) {
  const pd_unbind_args *a = (const pd_unbind_args *)args;
  pd_tensor *x = a->x;
  int ax;
  PD_TRY(pd_norm_axis("unbind", a->axis, x->ndim, &ax));
  int64_t sh[PD_MAX_DIMS] = {0}, st[PD_MAX_DIMS] = {0};
  int nd = 0;
  for (int d = 0; d < x->ndim; d++)
    if (d != ax) {
      sh[nd] = x->shape[d];
      st[nd++] = x->strides[d];
    }
  if (nd == 0) { /* no dims left: the API level's scalar rule ([1] or 0-D) */
    st[0] = 1;
    pd_scalar_dims(&nd, sh);
  }
  for (int i = 0; i < n; i++) {
    if (out[i]->numel == 0) continue;
    pd_tensor *v;
    PD_TRY(pd_tensor_view(x, nd, sh, st, x->offset + i * x->strides[ax], &v));
    pd_status s = pd_tensor_copy_(out[i], v);
    pd_tensor_release(v);
    PD_TRY(s);
  }
  return PD_OK;
}
PD_STAMP_ALL(unbind, unbind_impl)

static pd_status expand_impl(const void *args, pd_tensor **out, int n) {
  const pd_expand_args *a = (const pd_expand_args *)args;
  if (out[0]->numel == 0) return PD_OK;
  return pd_tensor_copy_(out[0], a->x);
}
PD_STAMP_ALL(expand, expand_impl)

static pd_status flip_impl(const void *args, pd_tensor **out, int n) {
  const pd_flip_args *a = (const pd_flip_args *)args;
  pd_tensor *x = a->x;
  int64_t st[PD_MAX_DIMS], off = x->offset;
  int done[PD_MAX_DIMS] = {0};
  for (int d = 0; d < x->ndim; d++) st[d] = x->strides[d];
  for (int64_t k = 0; k < a->axis.n; k++) {
    int ax;
    PD_TRY(pd_norm_axis("flip", a->axis.data[k], x->ndim, &ax));
    if (done[ax]) continue; /* flipping twice is Paddle's "once" */
    done[ax] = 1;
    if (x->shape[ax] > 0) off += (x->shape[ax] - 1) * st[ax];
    st[ax] = -st[ax];
  }
  if (x->numel == 0) return PD_OK;
  pd_tensor *v;
  PD_TRY(pd_tensor_view(x, x->ndim, x->shape, st, off, &v));
  pd_status s = pd_tensor_copy_(out[0], v);
  pd_tensor_release(v);
  return s;
}
PD_STAMP_ALL(flip, flip_impl)

/* Tables for pd_gather_dims, one malloc; fn fills table d. */
static int64_t **alloc_tables(int nd, const int64_t *shape) {
  int64_t tot = 0;
  for (int d = 0; d < nd; d++) tot += shape[d];
  int64_t **t = (int64_t **)malloc(sizeof(int64_t *) * PD_MAX_DIMS + sizeof(int64_t) * (size_t)(tot + 1));
  if (!t) return NULL;
  int64_t *p = (int64_t *)(t + PD_MAX_DIMS);
  for (int d = 0; d < nd; d++) {
    t[d] = p;
    for (int64_t i = 0; i < shape[d]; i++) p[i] = i;
    p += shape[d];
  }
  return t;
}

static pd_status tile_impl(const void *args, pd_tensor **out, int n) {
  const pd_tile_args *a = (const pd_tile_args *)args;
  pd_tensor *o = out[0], *x = a->x;
  if (o->numel == 0) return PD_OK;
  int nd = o->ndim, lead = nd - x->ndim;
  int64_t sh[PD_MAX_DIMS] = {0}, st[PD_MAX_DIMS] = {0};
  for (int d = 0; d < nd; d++) {
    sh[d] = d < lead ? 1 : x->shape[d - lead];
    st[d] = d < lead ? 0 : x->strides[d - lead];
  }
  pd_tensor *xv;
  PD_TRY(pd_tensor_view(x, nd, sh, st, x->offset, &xv));
  int64_t **t = alloc_tables(nd, o->shape);
  if (!t) {
    pd_tensor_release(xv);
    return oom();
  }
  for (int d = 0; d < nd; d++)
    for (int64_t i = 0; i < o->shape[d]; i++) t[d][i] = i % sh[d];
  pd_gather_dims(o, xv, t);
  free(t);
  pd_tensor_release(xv);
  return PD_OK;
}
PD_STAMP_ALL(tile, tile_impl)

static pd_status roll_impl(const void *args, pd_tensor **out, int n) {
  const pd_roll_args *a = (const pd_roll_args *)args;
  pd_tensor *x = a->x, *o = out[0];
  if (o->numel == 0) return PD_OK;
  pd_tensor *xv = NULL, *ov = NULL;
  pd_status s = PD_OK;
  if (a->axis.n == 0) { /* roll the flattened tensor */
    int64_t m = x->numel;
    PD_TRY(reshape_view(x, 1, &m, &xv));
    s = pd_tensor_view(o, 1, &m, NULL, o->offset, &ov);
  } else {
    pd_tensor_retain(x);
    pd_tensor_retain(o);
    xv = x;
    ov = o;
  }
  int64_t **t = s == PD_OK ? alloc_tables(xv->ndim, xv->shape) : NULL;
  if (s == PD_OK && !t) s = oom();
  if (s == PD_OK) {
    int64_t shift[PD_MAX_DIMS] = {0};
    for (int64_t k = 0; k < (a->axis.n ? a->axis.n : 1) && s == PD_OK; k++) {
      int ax = 0;
      if (a->axis.n) s = pd_norm_axis("roll", a->axis.data[k], x->ndim, &ax);
      shift[ax] += a->shifts.data[k];
    }
    for (int d = 0; d < xv->ndim; d++) {
      int64_t len = xv->shape[d], sh = len ? shift[d] % len : 0;
      for (int64_t i = 0; i < len; i++) t[d][i] = ((i - sh) % len + len) % len;
    }
    if (s == PD_OK) pd_gather_dims(ov, xv, t);
  }
  free(t);
  pd_tensor_release(xv);
  pd_tensor_release(ov);
  return s;
}
PD_STAMP_ALL(roll, roll_impl)

/* ---------------- where ---------------- */
static void where_loop(char **d, const int64_t *st, int64_t n, void *ctx) {
  size_t es = *(const size_t *)ctx;
  char *o = d[0];
  const char *c = d[1], *x = d[2], *y = d[3];
  for (int64_t i = 0; i < n; i++, o += st[0], c += st[1], x += st[2], y += st[3])
    copy_elem(o, *c ? x : y, es);
}

static pd_status where_impl(const void *args, pd_tensor **out, int n) {
  const pd_where_args *a = (const pd_where_args *)args;
  if (out[0]->numel == 0) return PD_OK;
  size_t es = pd_dtype_size(out[0]->dtype);
  pd_iter it;
  pd_tensor *ops[4] = {out[0], a->condition, a->x, a->y};
  PD_TRY(pd_iter_init(&it, "where", 4, ops));
  pd_iter_run(&it, where_loop, &es, 0);
  return PD_OK;
}
PD_STAMP_ALL(where, where_impl)
