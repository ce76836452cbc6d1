/* Shape/dtype rules for the movement ops (ops/manip.yaml), the index ops (ops/index.yaml) and
 * the sort ops (ops/sort.yaml). A result left with no dims follows the API level's rule
 * (pd_scalar_dims: [1] in Paddle 2.3, 0-D in Paddle 2.6). Data-dependent lengths are reported as -1 and fixed by the kernel. */
#include <stdlib.h>
#include "infer_meta_manip.h"

static pd_status bad(const char *op, const char *what) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, what);
}

static void fix_0d(pd_meta *m) { pd_scalar_meta(m); }

pd_status pd_reshape_shape(const char *op, const pd_tensor *x, pd_int_array shape, int *ndim,
                           int64_t *out) {
  if (shape.n > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected at most %d dims, received %lld",
                        op, PD_MAX_DIMS, (long long)shape.n);
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < (int)shape.n; i++) {
    int64_t v = shape.data[i];
    if (v == -1) {
      if (infer >= 0) return bad(op, "expected at most one -1 in shape, received two");
      infer = i;
      out[i] = -1;
      continue;
    }
    if (v == 0) {
      if (i >= x->ndim)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                            "[%s] shape[%d] is 0 (copy the input dim) but x has only %d dims",
                            op, i, x->ndim);
      v = x->shape[i];
    } else if (v < 0) {
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected shape entries >= -1, received %lld at %d", op,
                          (long long)v, i);
    }
    out[i] = v;
    known *= v;
  }
  /* a program's unknown dims (placeholder sizes): a -1 need not divide evenly (the result is
   * unknown anyway) and a fully given shape need not match the placeholder element count */
  int relaxed = pd_trace_placeholders_active();
  if (infer >= 0) {
    if (known == 0 || (x->numel % known != 0 && !relaxed)) {
      char b[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] cannot infer the -1 dim: x of shape %s has %lld elements", op,
                          pd_shape_str(x->ndim, x->shape, b, sizeof b), (long long)x->numel);
    }
    out[infer] = x->numel / known;
  } else if (known != x->numel && !relaxed) {
    char b[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected a shape with %lld elements (x has shape %s), received "
                        "%lld elements",
                        op, (long long)x->numel, pd_shape_str(x->ndim, x->shape, b, sizeof b),
                        (long long)known);
  }
  *ndim = (int)shape.n;
  pd_scalar_dims(ndim, out);
  return PD_OK;
}

pd_status pd_infer_reshape(const void *args, pd_meta_list *out) {
  const pd_reshape_args *a = (const pd_reshape_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  return pd_reshape_shape("reshape", a->x, a->shape, &m->ndim, m->shape);
}

pd_status pd_infer_transpose(const void *args, pd_meta_list *out) {
  const pd_transpose_args *a = (const pd_transpose_args *)args;
  int nd = a->x->ndim;
  if (a->perm.n != nd)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[transpose] expected perm to have %d entries (x.ndim), received %lld",
                        nd, (long long)a->perm.n);
  int seen[PD_MAX_DIMS] = {0};
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  m->ndim = nd;
  for (int i = 0; i < nd; i++) {
    int ax;
    PD_TRY(pd_norm_axis("transpose", a->perm.data[i], nd, &ax));
    if (seen[ax]) return bad("transpose", "expected perm to be a permutation, received a repeat");
    seen[ax] = 1;
    m->shape[i] = a->x->shape[ax];
  }
  return PD_OK;
}

pd_status pd_infer_squeeze(const void *args, pd_meta_list *out) {
  const pd_squeeze_args *a = (const pd_squeeze_args *)args;
  int nd = a->x->ndim, drop[PD_MAX_DIMS] = {0};
  if (a->axis.n == 0) {
    for (int i = 0; i < nd; i++) drop[i] = a->x->shape[i] == 1;
  } else {
    for (int64_t i = 0; i < a->axis.n; i++) {
      int ax;
      PD_TRY(pd_norm_axis("squeeze", a->axis.data[i], nd, &ax));
      if (ax < nd && a->x->shape[ax] == 1) drop[ax] = 1; /* non-1 dims are kept, as Paddle */
    }
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  m->ndim = 0;
  for (int i = 0; i < nd; i++)
    if (!drop[i]) m->shape[m->ndim++] = a->x->shape[i];
  fix_0d(m);
  return PD_OK;
}

pd_status pd_infer_unsqueeze(const void *args, pd_meta_list *out) {
  const pd_unsqueeze_args *a = (const pd_unsqueeze_args *)args;
  int nd = a->x->ndim;
  if (nd + a->axis.n > PD_MAX_DIMS) return bad("unsqueeze", "result would exceed 9 dims");
  /* Paddle inserts one at a time, each axis relative to the growing shape */
  int64_t sh[PD_MAX_DIMS];
  int cur = nd;
  for (int i = 0; i < nd; i++) sh[i] = a->x->shape[i];
  for (int64_t k = 0; k < a->axis.n; k++) {
    int ax;
    PD_TRY(pd_norm_axis("unsqueeze", a->axis.data[k], cur + 1, &ax));
    for (int j = cur; j > ax; j--) sh[j] = sh[j - 1];
    sh[ax] = 1;
    cur++;
  }
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, cur, sh);
  return PD_OK;
}

pd_status pd_infer_flatten(const void *args, pd_meta_list *out) {
  const pd_flatten_args *a = (const pd_flatten_args *)args;
  int nd = a->x->ndim, s, e;
  PD_TRY(pd_norm_axis("flatten", a->start_axis, nd, &s));
  PD_TRY(pd_norm_axis("flatten", a->stop_axis, nd, &e));
  if (s > e) return bad("flatten", "expected start_axis <= stop_axis");
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  m->ndim = 0;
  for (int i = 0; i < s; i++) m->shape[m->ndim++] = a->x->shape[i];
  int64_t p = 1;
  for (int i = s; i <= e && i < nd; i++) p *= a->x->shape[i];
  m->shape[m->ndim++] = p;
  for (int i = e + 1; i < nd; i++) m->shape[m->ndim++] = a->x->shape[i];
  return PD_OK;
}

pd_status pd_slice_geometry(const char *op, const pd_tensor *x, pd_int_array axes,
                            pd_int_array starts, pd_int_array ends, const pd_int_array *steps,
                            int64_t *shape, int64_t *strides, int64_t *offset) {
  if (starts.n != axes.n || ends.n != axes.n || (steps && steps->n != axes.n))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected axes, starts, ends%s to have the same length, received "
                        "%lld, %lld, %lld",
                        op, steps ? ", strides" : "", (long long)axes.n, (long long)starts.n,
                        (long long)ends.n);
  int nd = x->ndim;
  int64_t off = x->offset;
  for (int i = 0; i < nd; i++) {
    shape[i] = x->shape[i];
    strides[i] = x->strides[i];
  }
  for (int64_t k = 0; k < axes.n; k++) {
    int ax;
    PD_TRY(pd_norm_axis(op, axes.data[k], nd, &ax));
    int64_t n = x->shape[ax], st = steps ? steps->data[k] : 1;
    if (st == 0) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] step must not be 0", op);
    int64_t b = starts.data[k], e = ends.data[k], len;
    if (b < 0) b += n;
    if (e < 0) e += n;
    if (st > 0) {
      b = b < 0 ? 0 : (b > n ? n : b);
      e = e < 0 ? 0 : (e > n ? n : e);
      len = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = b < -1 ? -1 : (b > n - 1 ? n - 1 : b);
      e = e < -1 ? -1 : (e > n - 1 ? n - 1 : e);
      len = b > e ? (b - e + (-st) - 1) / (-st) : 0;
    }
    shape[ax] = len;
    if (len > 0) off += b * x->strides[ax];
    strides[ax] = x->strides[ax] * st;
  }
  *offset = off;
  return PD_OK;
}

pd_status pd_infer_slice(const void *args, pd_meta_list *out) {
  const pd_slice_args *a = (const pd_slice_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  int64_t st[PD_MAX_DIMS], off;
  m->dtype = a->x->dtype;
  m->ndim = a->x->ndim;
  return pd_slice_geometry("slice", a->x, a->axes, a->starts, a->ends, NULL, m->shape, st, &off);
}

pd_status pd_infer_strided_slice(const void *args, pd_meta_list *out) {
  const pd_strided_slice_args *a = (const pd_strided_slice_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  int64_t st[PD_MAX_DIMS], off;
  m->dtype = a->x->dtype;
  m->ndim = a->x->ndim;
  return pd_slice_geometry("strided_slice", a->x, a->axes, a->starts, a->ends, &a->strides,
                           m->shape, st, &off);
}

static pd_status check_list(const char *op, pd_tensor_list l) {
  if (l.n < 1) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected a non-empty list", op);
  for (int64_t i = 1; i < l.n; i++)
    if (l.data[i]->dtype != l.data[0]->dtype)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected all inputs to have x[0]'s dtype %s, received x[%lld]: %s",
                          op, pd_dtype_name(l.data[0]->dtype), (long long)i,
                          pd_dtype_name(l.data[i]->dtype));
  return PD_OK;
}

pd_status pd_infer_concat(const void *args, pd_meta_list *out) {
  const pd_concat_args *a = (const pd_concat_args *)args;
  PD_TRY(check_list("concat", a->x));
  const pd_tensor *x0 = a->x.data[0];
  int ax;
  PD_TRY(pd_norm_axis("concat", a->axis, x0->ndim, &ax));
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_like(m, x0);
  m->shape[ax] = 0;
  for (int64_t i = 0; i < a->x.n; i++) {
    const pd_tensor *t = a->x.data[i];
    int ok = t->ndim == x0->ndim;
    for (int d = 0; ok && d < t->ndim; d++) ok = d == ax || t->shape[d] == x0->shape[d];
    if (!ok) {
      char b1[128], b2[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[concat] expected all inputs to match x[0]'s shape %s except on axis "
                          "%d, received x[%lld] of shape %s",
                          pd_shape_str(x0->ndim, x0->shape, b1, sizeof b1), ax, (long long)i,
                          pd_shape_str(t->ndim, t->shape, b2, sizeof b2));
    }
    m->shape[ax] += t->shape[ax];
  }
  return PD_OK;
}

pd_status pd_infer_stack(const void *args, pd_meta_list *out) {
  const pd_stack_args *a = (const pd_stack_args *)args;
  PD_TRY(check_list("stack", a->x));
  const pd_tensor *x0 = a->x.data[0];
  if (x0->ndim + 1 > PD_MAX_DIMS) return bad("stack", "result would exceed 9 dims");
  int ax;
  PD_TRY(pd_norm_axis("stack", a->axis, x0->ndim + 1, &ax));
  for (int64_t i = 1; i < a->x.n; i++) {
    const pd_tensor *t = a->x.data[i];
    int ok = t->ndim == x0->ndim;
    for (int d = 0; ok && d < t->ndim; d++) ok = t->shape[d] == x0->shape[d];
    if (!ok) {
      char b1[128], b2[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[stack] expected all inputs to have shape %s, received x[%lld] of "
                          "shape %s",
                          pd_shape_str(x0->ndim, x0->shape, b1, sizeof b1), (long long)i,
                          pd_shape_str(t->ndim, t->shape, b2, sizeof b2));
    }
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = x0->dtype;
  m->ndim = x0->ndim + 1;
  for (int d = 0, j = 0; d < m->ndim; d++) m->shape[d] = d == ax ? a->x.n : x0->shape[j++];
  return PD_OK;
}

pd_status pd_split_sizes(const pd_tensor *x, pd_int_array sections, int axis, int64_t *sizes) {
  int64_t n = x->shape[axis], sum = 0;
  int infer = -1;
  if (sections.n < 1) return bad("split", "expected at least one section");
  for (int64_t i = 0; i < sections.n; i++) {
    int64_t v = sections.data[i];
    if (v == -1) {
      if (infer >= 0) return bad("split", "expected at most one -1 in sections");
      infer = (int)i;
    } else if (v < 0) {
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[split] expected sections >= 0 (or one -1), received %lld",
                          (long long)v);
    } else {
      sum += v;
    }
    sizes[i] = v;
  }
  if (infer >= 0) {
    if (sum > n)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[split] sections sum to %lld, more than the axis size %lld",
                          (long long)sum, (long long)n);
    sizes[infer] = n - sum;
  } else if (sum != n) {
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[split] expected sections to sum to the axis size %lld, received %lld",
                        (long long)n, (long long)sum);
  }
  return PD_OK;
}

pd_status pd_infer_split(const void *args, pd_meta_list *out) {
  const pd_split_args *a = (const pd_split_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("split", a->axis, a->x->ndim, &ax));
  int64_t *sz = (int64_t *)malloc(sizeof(int64_t) * (size_t)(a->sections.n > 0 ? a->sections.n : 1));
  if (!sz) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_status s = pd_split_sizes(a->x, a->sections, ax, sz);
  if (s == PD_OK) {
    pd_meta *m = pd_meta_list_resize(out, (int)a->sections.n);
    if (!m) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    for (int64_t i = 0; s == PD_OK && i < a->sections.n; i++) {
      pd_meta_like(&m[i], a->x);
      m[i].shape[ax] = sz[i];
    }
  }
  free(sz);
  return s;
}

pd_status pd_infer_unbind(const void *args, pd_meta_list *out) {
  const pd_unbind_args *a = (const pd_unbind_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("unbind", a->axis, a->x->ndim, &ax));
  int n = (int)a->x->shape[ax];
  pd_meta *m = pd_meta_list_resize(out, n);
  if (!m && n > 0) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int i = 0; i < n; i++) {
    m[i].dtype = a->x->dtype;
    m[i].ndim = 0;
    for (int d = 0; d < a->x->ndim; d++)
      if (d != ax) m[i].shape[m[i].ndim++] = a->x->shape[d];
    fix_0d(&m[i]);
  }
  return PD_OK;
}

pd_status pd_infer_expand(const void *args, pd_meta_list *out) {
  const pd_expand_args *a = (const pd_expand_args *)args;
  int nd = (int)a->shape.n, xd = a->x->ndim;
  if (nd < xd || nd > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[expand] expected shape to have between %d (x.ndim) and %d entries, "
                        "received %d",
                        xd, PD_MAX_DIMS, nd);
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  m->ndim = nd;
  for (int i = 0; i < nd; i++) {
    int64_t v = a->shape.data[i];
    int j = i - (nd - xd);
    int64_t xs = j >= 0 ? a->x->shape[j] : 1;
    if (v == -1) {
      if (j < 0) return bad("expand", "-1 is only allowed for dims that x has");
      v = xs;
    }
    if (v < 0 || (xs != 1 && xs != v)) {
      char b[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[expand] cannot expand x of shape %s: shape[%d] is %lld", 
                          pd_shape_str(xd, a->x->shape, b, sizeof b), i, (long long)v);
    }
    m->shape[i] = v;
  }
  return PD_OK;
}

pd_status pd_infer_tile(const void *args, pd_meta_list *out) {
  const pd_tile_args *a = (const pd_tile_args *)args;
  int xd = a->x->ndim, rn = (int)a->repeat_times.n;
  if (rn > PD_MAX_DIMS) return bad("tile", "repeat_times has more than 9 entries");
  int nd = xd > rn ? xd : rn;
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  m->ndim = nd;
  for (int i = 0; i < nd; i++) {
    int xi = i - (nd - xd), ri = i - (nd - rn);
    int64_t r = ri >= 0 ? a->repeat_times.data[ri] : 1;
    if (r < 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[tile] expected repeat_times >= 0, received %lld", (long long)r);
    m->shape[i] = (xi >= 0 ? a->x->shape[xi] : 1) * r;
  }
  return PD_OK;
}

pd_status pd_infer_roll(const void *args, pd_meta_list *out) {
  const pd_roll_args *a = (const pd_roll_args *)args;
  if (a->axis.n == 0 ? a->shifts.n != 1 : a->shifts.n != a->axis.n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[roll] expected shifts to have %lld entries, received %lld",
                        (long long)(a->axis.n ? a->axis.n : 1), (long long)a->shifts.n);
  for (int64_t i = 0; i < a->axis.n; i++) {
    int ax;
    PD_TRY(pd_norm_axis("roll", a->axis.data[i], a->x->ndim, &ax));
  }
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_where(const void *args, pd_meta_list *out) {
  const pd_where_args *a = (const pd_where_args *)args;
  if (a->condition->dtype != PD_BOOL)
    return pd_set_error(PD_ERR_TYPE, "[where] expected condition to be bool, received %s",
                        pd_dtype_name(a->condition->dtype));
  PD_TRY(pd_check_same_dtype("where", "x", a->x, "y", a->y));
  pd_meta *m = pd_meta_list_resize(out, 1);
  int nd;
  int64_t sh[PD_MAX_DIMS];
  PD_TRY(pd_broadcast_shapes("where", a->x->ndim, a->x->shape, a->y->ndim, a->y->shape, &nd, sh));
  PD_TRY(pd_broadcast_shapes("where", nd, sh, a->condition->ndim, a->condition->shape, &m->ndim,
                             m->shape));
  m->dtype = a->x->dtype;
  return PD_OK;
}

/* ---- index ops ---- */
static pd_status check_index(const char *op, const pd_tensor *idx) {
  if (idx->dtype != PD_INT32 && idx->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected index to be int32 or int64, received %s", op,
                        pd_dtype_name(idx->dtype));
  return PD_OK;
}

/* gather / index_select: (Tensor x, Tensor index, int axis); index 1-D (or [N, 1]). An axis out
 * of range is OutOfRange (IndexError) for both, as in Paddle. */
static pd_status infer_take(const char *op, const pd_tensor *x, const pd_tensor *index, int64_t axis,
                            pd_meta_list *out) {
  PD_TRY(check_index(op, index));
  if (!(index->ndim == 1 || (index->ndim == 2 && index->shape[1] == 1))) {
    char b[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected a 1-D index, received shape %s", op,
                        pd_shape_str(index->ndim, index->shape, b, sizeof b));
  }
  int ax;
  PD_TRY(pd_norm_axis_as(PD_ERR_OUT_OF_RANGE, op, axis, x->ndim, &ax));
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_like(m, x);
  m->shape[ax] = index->shape[0];
  return PD_OK;
}

pd_status pd_infer_gather(const void *args, pd_meta_list *out) {
  const pd_gather_args *a = (const pd_gather_args *)args;
  return infer_take("gather", a->x, a->index, a->axis, out);
}

pd_status pd_infer_index_select(const void *args, pd_meta_list *out) {
  const pd_index_select_args *a = (const pd_index_select_args *)args;
  return infer_take("index_select", a->x, a->index, a->axis, out);
}

pd_status pd_infer_gather_nd(const void *args, pd_meta_list *out) {
  const pd_gather_nd_args *a = (const pd_gather_nd_args *)args;
  PD_TRY(check_index("gather_nd", a->index));
  const pd_tensor *x = a->x, *ix = a->index;
  int64_t k = ix->shape[ix->ndim - 1];
  if (k > x->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[gather_nd] index.shape[-1] (%lld) must be <= x.ndim (%d)",
                        (long long)k, x->ndim);
  int nd = ix->ndim - 1 + x->ndim - (int)k;
  if (nd > PD_MAX_DIMS) return bad("gather_nd", "result would exceed 9 dims");
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = x->dtype;
  m->ndim = 0;
  for (int i = 0; i < ix->ndim - 1; i++) m->shape[m->ndim++] = ix->shape[i];
  for (int i = (int)k; i < x->ndim; i++) m->shape[m->ndim++] = x->shape[i];
  fix_0d(m);
  return PD_OK;
}

pd_status pd_infer_scatter(const void *args, pd_meta_list *out) {
  const pd_scatter_args *a = (const pd_scatter_args *)args;
  PD_TRY(check_index("scatter", a->index));
  PD_TRY(pd_check_same_dtype("scatter", "x", a->x, "updates", a->updates));
  const pd_tensor *x = a->x, *u = a->updates, *ix = a->index;
  if (!(ix->ndim == 1 || (ix->ndim == 2 && ix->shape[1] == 1)))
    return bad("scatter", "expected a 1-D index");
  int ok = u->ndim == x->ndim && u->shape[0] == ix->shape[0];
  for (int d = 1; ok && d < x->ndim; d++) ok = u->shape[d] == x->shape[d];
  if (!ok) {
    char b1[128], b2[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[scatter] expected updates of shape [%lld, x.shape[1:]] (x: %s), "
                        "received %s",
                        (long long)ix->shape[0], pd_shape_str(x->ndim, x->shape, b1, sizeof b1),
                        pd_shape_str(u->ndim, u->shape, b2, sizeof b2));
  }
  pd_meta_like(pd_meta_list_resize(out, 1), x);
  return PD_OK;
}

pd_status pd_infer_scatter_nd_add(const void *args, pd_meta_list *out) {
  const pd_scatter_nd_add_args *a = (const pd_scatter_nd_add_args *)args;
  PD_TRY(check_index("scatter_nd_add", a->index));
  PD_TRY(pd_check_same_dtype("scatter_nd_add", "x", a->x, "updates", a->updates));
  const pd_tensor *x = a->x, *u = a->updates, *ix = a->index;
  int64_t k = ix->shape[ix->ndim - 1];
  int ok = k <= x->ndim && u->ndim == ix->ndim - 1 + x->ndim - (int)k;
  for (int i = 0; ok && i < ix->ndim - 1; i++) ok = u->shape[i] == ix->shape[i];
  for (int i = (int)k; ok && i < x->ndim; i++) ok = u->shape[ix->ndim - 1 + i - k] == x->shape[i];
  if (!ok) {
    if (u->ndim == 1 && u->shape[0] == 1 && ix->ndim == 1 && k == x->ndim) ok = 1;
  }
  if (!ok) {
    char b1[128], b2[128], b3[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[scatter_nd_add] expected updates of shape index.shape[:-1] + "
                        "x.shape[index.shape[-1]:] (x: %s, index: %s), received %s",
                        pd_shape_str(x->ndim, x->shape, b1, sizeof b1),
                        pd_shape_str(ix->ndim, ix->shape, b2, sizeof b2),
                        pd_shape_str(u->ndim, u->shape, b3, sizeof b3));
  }
  pd_meta_like(pd_meta_list_resize(out, 1), x);
  return PD_OK;
}

pd_status pd_infer_masked_select(const void *args, pd_meta_list *out) {
  const pd_masked_select_args *a = (const pd_masked_select_args *)args;
  if (a->mask->dtype != PD_BOOL)
    return pd_set_error(PD_ERR_TYPE, "[masked_select] expected mask to be bool, received %s",
                        pd_dtype_name(a->mask->dtype));
  int nd;
  int64_t sh[PD_MAX_DIMS];
  PD_TRY(pd_broadcast_shapes("masked_select", a->x->ndim, a->x->shape, a->mask->ndim,
                             a->mask->shape, &nd, sh));
  int64_t n = -1;
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, 1, &n);
  return PD_OK;
}

pd_status pd_infer_nonzero(const void *args, pd_meta_list *out) {
  const pd_nonzero_args *a = (const pd_nonzero_args *)args;
  int64_t sh[2] = {-1, a->x->ndim};
  pd_meta_set(pd_meta_list_resize(out, 1), PD_INT64, 2, sh);
  return PD_OK;
}

/* ---- sort ops ---- */
pd_status pd_infer_argsort(const void *args, pd_meta_list *out) {
  const pd_argsort_args *a = (const pd_argsort_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("argsort", a->axis, a->x->ndim, &ax));
  pd_meta *m = pd_meta_list_resize(out, 2);
  pd_meta_like(&m[0], a->x);
  pd_meta_like(&m[1], a->x);
  m[1].dtype = PD_INT64;
  return PD_OK;
}

pd_status pd_infer_topk(const void *args, pd_meta_list *out) {
  const pd_topk_args *a = (const pd_topk_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("topk", a->axis, a->x->ndim, &ax));
  int64_t n = a->x->ndim ? a->x->shape[ax] : 1;
  if (a->k < 1 || a->k > n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[topk] expected k in [1, %lld] (the axis size), received %lld",
                        (long long)n, (long long)a->k);
  pd_meta *m = pd_meta_list_resize(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].shape[ax] = a->k;
  m[1] = m[0];
  m[1].dtype = PD_INT64;
  return PD_OK;
}

pd_status pd_infer_unique(const void *args, pd_meta_list *out) {
  const pd_unique_args *a = (const pd_unique_args *)args;
  int it = a->dtype < 0 ? PD_INT64 : a->dtype;
  if (it != PD_INT32 && it != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[unique] expected dtype int32 or int64, received %s",
                        pd_dtype_name((pd_dtype)it));
  if (a->axis.n > 1) return bad("unique", "expected at most one axis");
  pd_meta *m = pd_meta_list_resize(out, 4);
  int64_t u = -1;
  if (a->axis.n == 1) {
    int ax;
    PD_TRY(pd_norm_axis("unique", a->axis.data[0], a->x->ndim, &ax));
    pd_meta_like(&m[0], a->x);
    m[0].shape[ax] = -1;
    int64_t n = a->x->shape[ax];
    pd_meta_set(&m[2], (pd_dtype)it, 1, &n);
  } else {
    pd_meta_set(&m[0], a->x->dtype, 1, &u);
    int64_t n = a->x->numel;
    pd_meta_set(&m[2], (pd_dtype)it, 1, &n);
  }
  pd_meta_set(&m[1], (pd_dtype)it, 1, &u);
  pd_meta_set(&m[3], (pd_dtype)it, 1, &u);
  return PD_OK;
}

pd_status pd_infer_unique_consecutive(const void *args, pd_meta_list *out) {
  const pd_unique_consecutive_args *a = (const pd_unique_consecutive_args *)args;
  int it = a->dtype < 0 ? PD_INT64 : a->dtype;
  if (it != PD_INT32 && it != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[unique_consecutive] expected dtype int32 or int64, received %s",
                        pd_dtype_name((pd_dtype)it));
  if (a->axis.n > 1) return bad("unique_consecutive", "expected at most one axis");
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[unique_consecutive] out of memory");
  int64_t u = -1, n = a->x->numel;
  if (a->axis.n == 1) {
    int ax;
    PD_TRY(pd_norm_axis("unique_consecutive", a->axis.data[0], a->x->ndim, &ax));
    pd_meta_like(&m[0], a->x);
    m[0].shape[ax] = -1;
    n = a->x->shape[ax];
  } else {
    pd_meta_set(&m[0], a->x->dtype, 1, &u);
  }
  pd_meta_set(&m[1], (pd_dtype)it, 1, &n);
  pd_meta_set(&m[2], (pd_dtype)it, 1, &u);
  return PD_OK;
}
