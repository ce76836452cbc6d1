/* Index kernels (ops/index.yaml): gather/index_select through pd_gather_dims, gather_nd
 * (block copies), scatter and scatter_nd_add (row writes/adds; the add is per dtype),
 * masked_select and nonzero (outputs created here: their length depends on the data). Every
 * index is checked against its dim; negative indices count from the end. */
#include <stdlib.h>
#include <string.h>
#include "manip_util.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

/* Normalises idx[0..n) against a dim of size dim; IndexError on the first bad one. */
static pd_status check_indices_as(pd_status code, const char *op, int64_t *idx, int64_t n, int64_t dim,
                                  int axis) {
  for (int64_t i = 0; i < n; i++) {
    int64_t v = idx[i];
    if (v < -dim || v >= dim)
      return pd_set_error(code,
                          "[%s] index %lld is out of bounds for axis %d with size %lld", op,
                          (long long)v, axis, (long long)dim);
    if (v < 0) idx[i] = v + dim;
  }
  return PD_OK;
}

static pd_status check_indices(const char *op, int64_t *idx, int64_t n, int64_t dim, int axis) {
  return check_indices_as(PD_ERR_OUT_OF_RANGE, op, idx, n, dim, axis);
}

/* ---------------- gather / index_select ---------------- */
/* Paddle's classes: an axis out of range is OutOfRange for both; an index out of bounds is
 * OutOfRange for gather, InvalidArgument for index_select */
static pd_status take_impl(const char *op, pd_tensor *x, pd_tensor *index, int64_t axis,
                           pd_tensor *o) {
  int ax;
  PD_TRY(pd_norm_axis_as(PD_ERR_OUT_OF_RANGE, op, axis, x->ndim, &ax));
  pd_tensor *ix;
  PD_TRY(pd_index_i64(op, index, &ix));
  int64_t *iv = (int64_t *)pd_tensor_data(ix);
  pd_status s = check_indices_as(strcmp(op, "index_select") == 0 ? PD_ERR_INVALID_ARGUMENT : PD_ERR_OUT_OF_RANGE,
                                 op, iv, ix->numel, x->shape[ax], ax);
  int64_t *tab[PD_MAX_DIMS];
  int64_t *buf = NULL;
  if (s == PD_OK && o->numel > 0) {
    int64_t tot = 0;
    for (int d = 0; d < x->ndim; d++) tot += d == ax ? 0 : x->shape[d];
    buf = (int64_t *)malloc(sizeof(int64_t) * (size_t)(tot + 1));
    if (!buf) s = oom();
    int64_t *p = buf;
    for (int d = 0; s == PD_OK && d < x->ndim; d++) {
      if (d == ax) {
        tab[d] = iv;
        continue;
      }
      tab[d] = p;
      for (int64_t i = 0; i < x->shape[d]; i++) p[i] = i;
      p += x->shape[d];
    }
    if (s == PD_OK) pd_gather_dims(o, x, tab);
  }
  free(buf);
  pd_tensor_release(ix);
  return s;
}

static pd_status gather_impl(const void *args, pd_tensor **out, int n) {
  const pd_gather_args *a = (const pd_gather_args *)args;
  return take_impl("gather", a->x, a->index, a->axis, out[0]);
}
PD_STAMP_ALL(gather, gather_impl)

static pd_status index_select_impl(const void *args, pd_tensor **out, int n) {
  const pd_index_select_args *a = (const pd_index_select_args *)args;
  return take_impl("index_select", a->x, a->index, a->axis, out[0]);
}
PD_STAMP_ALL(index_select, index_select_impl)

/* Row offsets (in elements of a contiguous x) of each index tuple of an [..., k] index. */
static pd_status nd_offsets(const char *op, pd_tensor *x, pd_tensor *index, int64_t **offs,
                            int64_t *nrows, int64_t *inner) {
  pd_tensor *ix;
  PD_TRY(pd_index_i64(op, index, &ix));
  int64_t k = ix->shape[ix->ndim - 1];
  int64_t rows = 1;
  for (int i = 0; i < ix->ndim - 1; i++) rows *= ix->shape[i];
  int64_t st[PD_MAX_DIMS];
  pd_contiguous_strides(x->ndim, x->shape, st);
  *inner = 1;
  for (int i = (int)k; i < x->ndim; i++) *inner *= x->shape[i];
  int64_t *o = (int64_t *)malloc(sizeof(int64_t) * (size_t)(rows + 1));
  pd_status s = o ? PD_OK : oom();
  const int64_t *iv = (const int64_t *)pd_tensor_data(ix);
  for (int64_t r = 0; s == PD_OK && r < rows; r++) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; j++) {
      int64_t v = iv[r * k + j], dim = x->shape[j];
      if (v < -dim || v >= dim) {
        s = pd_set_error(PD_ERR_OUT_OF_RANGE,
                         "[%s] index %lld is out of bounds for axis %lld with size %lld", op,
                         (long long)v, (long long)j, (long long)dim);
        break;
      }
      off += (v < 0 ? v + dim : v) * st[j];
    }
    o[r] = off;
  }
  pd_tensor_release(ix);
  if (s != PD_OK) {
    free(o);
    return s;
  }
  *offs = o;
  *nrows = rows;
  return PD_OK;
}

static pd_status gather_nd_impl(const void *args, pd_tensor **out, int n) {
  const pd_gather_nd_args *a = (const pd_gather_nd_args *)args;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  int64_t *offs = NULL, rows, inner;
  pd_status s = nd_offsets("gather_nd", xc, a->index, &offs, &rows, &inner);
  if (s == PD_OK && out[0]->numel > 0) {
    size_t es = pd_dtype_size(xc->dtype), blk = (size_t)inner * es;
    const char *xb = (const char *)pd_tensor_data(xc);
    char *o = (char *)pd_tensor_data(out[0]);
    for (int64_t r = 0; r < rows; r++) memcpy(o + (size_t)r * blk, xb + offs[r] * (int64_t)es, blk);
  }
  free(offs);
  pd_tensor_release(xc);
  return s;
}
PD_STAMP_ALL(gather_nd, gather_nd_impl)

/* ---------------- scatter ---------------- */
typedef void (*add_fn)(char *dst, const char *src, int64_t n);
#define DEF_ADD_ROWS(SUF, T, CT)                                               \
  static void add_rows_##SUF(char *dst, const char *src, int64_t n) {           \
    for (int64_t i = 0; i < n; i++) {                                           \
      CT v = PD_LD_##SUF(dst + i * (int64_t)sizeof(T)) + PD_LD_##SUF(src + i * (int64_t)sizeof(T)); \
      PD_ST_##SUF(dst + i * (int64_t)sizeof(T), v);                             \
    }                                                                           \
  }
PD_FOR_REAL(DEF_ADD_ROWS)
PD_FOR_COMPLEX(DEF_ADD_ROWS)

static pd_status scatter_impl(const void *args, pd_tensor **out, add_fn add) {
  const pd_scatter_args *a = (const pd_scatter_args *)args;
  pd_tensor *o = out[0];
  PD_TRY(pd_tensor_copy_(o, a->x));
  pd_tensor *ix, *uc = NULL;
  PD_TRY(pd_index_i64("scatter", a->index, &ix));
  int64_t *iv = (int64_t *)pd_tensor_data(ix);
  pd_status s = check_indices("scatter", iv, ix->numel, o->shape[0], 0);
  if (s == PD_OK) s = pd_tensor_contiguous(a->updates, &uc);
  if (s == PD_OK && o->numel > 0) {
    size_t es = pd_dtype_size(o->dtype);
    int64_t inner = o->numel / o->shape[0];
    size_t blk = (size_t)inner * es;
    char *ob = (char *)pd_tensor_data(o);
    const char *ub = (const char *)pd_tensor_data(uc);
    if (a->overwrite) {
      for (int64_t i = 0; i < ix->numel; i++) memcpy(ob + (size_t)iv[i] * blk, ub + (size_t)i * blk, blk);
    } else {
      for (int64_t i = 0; i < ix->numel; i++) memset(ob + (size_t)iv[i] * blk, 0, blk);
      for (int64_t i = 0; i < ix->numel; i++) add(ob + (size_t)iv[i] * blk, ub + (size_t)i * blk, inner);
    }
  }
  pd_tensor_release(uc);
  pd_tensor_release(ix);
  return s;
}

static pd_status scatter_nd_add_impl(const void *args, pd_tensor **out, add_fn add) {
  const pd_scatter_nd_add_args *a = (const pd_scatter_nd_add_args *)args;
  pd_tensor *o = out[0];
  PD_TRY(pd_tensor_copy_(o, a->x));
  int64_t *offs = NULL, rows, inner;
  PD_TRY(nd_offsets("scatter_nd_add", o, a->index, &offs, &rows, &inner));
  pd_tensor *uc = NULL;
  pd_status s = PD_OK;
  if (a->updates->numel != rows * inner) { /* a broadcastable updates (e.g. [1]) */
    int64_t sh[2] = {rows, inner};
    s = pd_tensor_empty(o->dtype, 2, sh, &uc);
    if (s == PD_OK) s = pd_tensor_copy_(uc, a->updates);
  } else {
    s = pd_tensor_contiguous(a->updates, &uc);
  }
  if (s == PD_OK && o->numel > 0) {
    size_t es = pd_dtype_size(o->dtype);
    char *ob = (char *)pd_tensor_data(o);
    const char *ub = (const char *)pd_tensor_data(uc);
    for (int64_t r = 0; r < rows; r++)
      add(ob + offs[r] * (int64_t)es, ub + (size_t)(r * inner) * es, inner);
  }
  pd_tensor_release(uc);
  free(offs);
  return s;
}

#define DEF_SCATTER(SUF, T, CT)                                                          \
  pd_status pd_kernel_scatter_##SUF(const void *args, pd_tensor **out, int n_out) {       \
    return scatter_impl(args, out, add_rows_##SUF);                                      \
  }                                                                                      \
  pd_status pd_kernel_scatter_nd_add_##SUF(const void *args, pd_tensor **out, int n_out) { \
    return scatter_nd_add_impl(args, out, add_rows_##SUF);                               \
  }
PD_FOR_REAL(DEF_SCATTER)
PD_FOR_COMPLEX(DEF_SCATTER)

/* ---------------- masked_select ---------------- */
static pd_status masked_select_impl(const void *args, pd_tensor **out, int n) {
  const pd_masked_select_args *a = (const pd_masked_select_args *)args;
  int nd;
  int64_t sh[PD_MAX_DIMS];
  PD_TRY(pd_broadcast_shapes("masked_select", a->x->ndim, a->x->shape, a->mask->ndim,
                             a->mask->shape, &nd, sh));
  pd_tensor *xb = NULL, *mb = NULL;
  pd_status s = pd_tensor_empty(a->x->dtype, nd, sh, &xb);
  if (s == PD_OK) s = pd_tensor_copy_(xb, a->x);
  if (s == PD_OK) s = pd_tensor_empty(PD_BOOL, nd, sh, &mb);
  if (s == PD_OK) s = pd_tensor_copy_(mb, a->mask);
  if (s == PD_OK) {
    const uint8_t *m = (const uint8_t *)pd_tensor_data(mb);
    int64_t cnt = 0;
    for (int64_t i = 0; i < mb->numel; i++) cnt += m[i] != 0;
    s = pd_tensor_empty(a->x->dtype, 1, &cnt, &out[0]);
    if (s == PD_OK && cnt > 0) {
      size_t es = pd_dtype_size(a->x->dtype);
      const char *src = (const char *)pd_tensor_data(xb);
      char *dst = (char *)pd_tensor_data(out[0]);
      for (int64_t i = 0; i < mb->numel; i++)
        if (m[i]) {
          memcpy(dst, src + (size_t)i * es, es);
          dst += es;
        }
    }
  }
  pd_tensor_release(xb);
  pd_tensor_release(mb);
  return s;
}
PD_STAMP_ALL(masked_select, masked_select_impl)

/* ---------------- nonzero ---------------- */
typedef int (*nz_fn)(const char *p);
#define DEF_NZ(SUF, T, CT) \
  static int nz_##SUF(const char *p) { return PD_LD_##SUF(p) != 0; }
PD_FOR_ALL(DEF_NZ)

static pd_status nonzero_impl(const void *args, pd_tensor **out, nz_fn nz) {
  const pd_nonzero_args *a = (const pd_nonzero_args *)args;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  size_t es = pd_dtype_size(xc->dtype);
  const char *p = (const char *)pd_tensor_data(xc);
  int64_t cnt = 0;
  for (int64_t i = 0; i < xc->numel; i++) cnt += nz(p + (size_t)i * es);
  int nd = xc->ndim;
  int64_t sh[2] = {cnt, nd};
  pd_status s = pd_tensor_empty(PD_INT64, 2, sh, &out[0]);
  if (s == PD_OK && cnt > 0) {
    int64_t *o = (int64_t *)pd_tensor_data(out[0]);
    int64_t idx[PD_MAX_DIMS] = {0};
    for (int64_t i = 0; i < xc->numel; i++) {
      if (nz(p + (size_t)i * es)) {
        for (int d = 0; d < nd; d++) *o++ = idx[d];
      }
      for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < xc->shape[d]) break;
        idx[d] = 0;
      }
    }
  }
  pd_tensor_release(xc);
  return s;
}
#define DEF_NONZERO(SUF, T, CT)                                                      \
  pd_status pd_kernel_nonzero_##SUF(const void *args, pd_tensor **out, int n_out) {   \
    return nonzero_impl(args, out, nz_##SUF);                                        \
  }
PD_FOR_ALL(DEF_NONZERO)
