/* Sorting kernels (ops/sort.yaml): argsort, topk, unique and unique_consecutive. One stable
 * merge sort over row indices with a per-dtype lexicographic comparator (NaN sorts last) backs
 * the first three; the sorted axis is moved last (argsort/topk) or first (unique,
 * unique_consecutive) into a contiguous copy. */
#include <math.h>
#include <stdlib.h>
#include "manip_util.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

/* compares rows a and b of n elements lexicographically: <0, 0, >0 */
typedef int (*row_cmp)(const char *a, const char *b, int64_t n);
#define DEF_CMP(SUF, T, CT)                                                   \
  static int cmp_##SUF(const char *a, const char *b, int64_t n) {             \
    for (int64_t i = 0; i < n; i++) {                                         \
      CT x = PD_LD_##SUF(a + i * (int64_t)sizeof(T));                         \
      CT y = PD_LD_##SUF(b + i * (int64_t)sizeof(T));                         \
      int xn = x != x, yn = y != y;                                           \
      if (xn || yn) {                                                         \
        if (xn != yn) return xn ? 1 : -1;                                     \
        continue;                                                             \
      }                                                                       \
      if (x < y) return -1;                                                   \
      if (x > y) return 1;                                                    \
    }                                                                         \
    return 0;                                                                 \
  }
PD_FOR_REAL(DEF_CMP)

/* rows a and b of n elements equal element by element (NaN equals nothing) */
typedef int (*row_eq)(const char *a, const char *b, int64_t n);
#define DEF_EQ(SUF, T, CT)                                                    \
  static int eq_##SUF(const char *a, const char *b, int64_t n) {              \
    for (int64_t i = 0; i < n; i++)                                           \
      if (!(PD_LD_##SUF(a + i * (int64_t)sizeof(T)) == PD_LD_##SUF(b + i * (int64_t)sizeof(T)))) \
        return 0;                                                             \
    return 1;                                                                 \
  }
PD_FOR_REAL(DEF_EQ)

typedef struct {
  const char *base;
  size_t row_bytes;
  int64_t row_len;
  row_cmp cmp;
  int desc;
} sort_ctx;

static inline int less(const sort_ctx *c, int64_t i, int64_t j) {
  int r = c->cmp(c->base + (size_t)i * c->row_bytes, c->base + (size_t)j * c->row_bytes, c->row_len);
  return c->desc ? r > 0 : r < 0;
}

/* Stable bottom-up merge sort of idx[0..n) (tmp: n scratch). */
static void msort(int64_t *idx, int64_t *tmp, int64_t n, const sort_ctx *c) {
  /* insertion sort runs of 16, then merge */
  const int64_t R = 16;
  for (int64_t s = 0; s < n; s += R) {
    int64_t e = s + R < n ? s + R : n;
    for (int64_t i = s + 1; i < e; i++) {
      int64_t v = idx[i], j = i;
      while (j > s && less(c, v, idx[j - 1])) {
        idx[j] = idx[j - 1];
        j--;
      }
      idx[j] = v;
    }
  }
  int64_t *src = idx, *dst = tmp;
  for (int64_t w = R; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = less(c, src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int64_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != idx) memcpy(idx, src, sizeof(int64_t) * (size_t)n);
}

/* ---------------- argsort / topk ---------------- */
/* Sorts x along axis; writes the first k of each row into vals/inds (x's shape with k on the
 * axis). */
static pd_status sort_rows(const char *op, pd_tensor *x, int64_t axis, int desc, int64_t k,
                           pd_tensor *vals, pd_tensor *inds, row_cmp cmp) {
  int ax;
  PD_TRY(pd_norm_axis(op, axis, x->ndim, &ax));
  int last = x->ndim - 1;
  if (vals->numel == 0) return PD_OK;
  if (x->ndim == 0) { /* a 0-D input (k is 1): its value, index 0 */
    memcpy(pd_tensor_data(vals), pd_tensor_data(x), pd_dtype_size(x->dtype));
    *(int64_t *)pd_tensor_data(inds) = 0;
    return PD_OK;
  }
  pd_tensor *xv = NULL, *xc = NULL, *tv = NULL, *ti = NULL, *ov = NULL, *oi = NULL;
  int64_t *idx = NULL, *tmp = NULL;
  pd_status s = pd_swap_view(x, ax, last, &xv);
  if (s == PD_OK) s = pd_tensor_clone(xv, &xc);
  int64_t n = x->shape[ax], rows = n ? x->numel / n : 0;
  int64_t tsh[PD_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) tsh[d] = xc ? xc->shape[d] : 0;
  tsh[last] = k;
  if (s == PD_OK) s = pd_tensor_empty(x->dtype, x->ndim, tsh, &tv);
  if (s == PD_OK) s = pd_tensor_empty(PD_INT64, x->ndim, tsh, &ti);
  if (s == PD_OK) {
    idx = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
    tmp = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!idx || !tmp) s = oom();
  }
  if (s == PD_OK) {
    size_t es = pd_dtype_size(x->dtype);
    const char *xb = (const char *)pd_tensor_data(xc);
    char *vb = (char *)pd_tensor_data(tv);
    int64_t *ib = (int64_t *)pd_tensor_data(ti);
    sort_ctx c = {NULL, es, 1, cmp, desc};
    for (int64_t r = 0; r < rows; r++) {
      c.base = xb + (size_t)(r * n) * es;
      for (int64_t i = 0; i < n; i++) idx[i] = i;
      msort(idx, tmp, n, &c);
      for (int64_t i = 0; i < k; i++) {
        memcpy(vb + (size_t)(r * k + i) * es, c.base + (size_t)idx[i] * es, es);
        ib[r * k + i] = idx[i];
      }
    }
    s = pd_swap_view(vals, ax, last, &ov);
    if (s == PD_OK) s = pd_tensor_copy_(ov, tv);
    if (s == PD_OK) s = pd_swap_view(inds, ax, last, &oi);
    if (s == PD_OK) s = pd_tensor_copy_(oi, ti);
  }
  free(idx);
  free(tmp);
  pd_tensor_release(xv);
  pd_tensor_release(xc);
  pd_tensor_release(tv);
  pd_tensor_release(ti);
  pd_tensor_release(ov);
  pd_tensor_release(oi);
  return s;
}

/* ---------------- unique ---------------- */
static pd_status unique_impl(const void *args, pd_tensor **out, row_cmp cmp) {
  const pd_unique_args *a = (const pd_unique_args *)args;
  pd_tensor *x = a->x;
  pd_dtype it = a->dtype < 0 ? PD_INT64 : (pd_dtype)a->dtype;
  int ax = -1;
  if (a->axis.n == 1) PD_TRY(pd_norm_axis("unique", a->axis.data[0], x->ndim, &ax));
  pd_tensor *xv = NULL, *xc = NULL, *tu = NULL, *uv = NULL;
  int64_t *idx = NULL, *tmp = NULL, *inv = NULL, *first = NULL, *cnt = NULL;
  pd_status s;
  if (ax < 0) {
    int64_t m = x->numel;
    s = pd_tensor_empty(x->dtype, 1, &m, &xc);
    if (s == PD_OK && m > 0) {
      s = pd_tensor_view(xc, x->ndim, x->shape, NULL, 0, &xv);
      if (s == PD_OK) {
        pd_contiguous_strides(x->ndim, x->shape, xv->strides);
        s = pd_tensor_copy_(xv, x);
      }
    }
  } else {
    s = pd_swap_view(x, 0, ax, &xv);
    if (s == PD_OK) s = pd_tensor_clone(xv, &xc);
  }
  int64_t n = ax < 0 ? x->numel : x->shape[ax];
  int64_t rl = n ? (ax < 0 ? 1 : x->numel / n) : 1;
  size_t es = pd_dtype_size(x->dtype), rb = (size_t)rl * es;
  if (s == PD_OK) {
    size_t nb = sizeof(int64_t) * (size_t)(n + 1);
    idx = malloc(nb), tmp = malloc(nb), inv = malloc(nb), first = malloc(nb), cnt = malloc(nb);
    if (!idx || !tmp || !inv || !first || !cnt) s = oom();
  }
  int64_t u = 0;
  if (s == PD_OK) {
    const char *xb = (const char *)pd_tensor_data(xc);
    sort_ctx c = {xb, rb, rl, cmp, 0};
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    msort(idx, tmp, n, &c);
    for (int64_t i = 0; i < n; i++) {
      if (i == 0 || cmp(xb + (size_t)idx[i] * rb, xb + (size_t)idx[i - 1] * rb, rl) != 0) {
        first[u] = idx[i]; /* stable: the first in a run is the first occurrence */
        cnt[u++] = 0;
      }
      cnt[u - 1]++;
      inv[idx[i]] = u - 1;
    }
    /* values: rows first[0..u) */
    int64_t sh[PD_MAX_DIMS];
    int nd = ax < 0 ? 1 : x->ndim;
    if (ax < 0) sh[0] = u;
    else
      for (int d = 0; d < nd; d++) sh[d] = d == 0 ? u : xc->shape[d];
    s = pd_tensor_empty(x->dtype, nd, sh, &tu);
    if (s == PD_OK) {
      char *ub = (char *)pd_tensor_data(tu);
      for (int64_t i = 0; i < u; i++) memcpy(ub + (size_t)i * rb, xb + (size_t)first[i] * rb, rb);
    }
    if (s == PD_OK && ax < 0) {
      out[0] = tu;
      tu = NULL;
    } else if (s == PD_OK) {
      int64_t osh[PD_MAX_DIMS];
      for (int d = 0; d < x->ndim; d++) osh[d] = x->shape[d];
      osh[ax] = u;
      s = pd_tensor_empty(x->dtype, x->ndim, osh, &out[0]);
      if (s == PD_OK) s = pd_swap_view(out[0], 0, ax, &uv);
      if (s == PD_OK && u > 0) s = pd_tensor_copy_(uv, tu);
    }
  }
  int64_t lens[4] = {0, u, n, u};
  const int64_t *src[4] = {NULL, first, inv, cnt};
  for (int j = 1; j < 4 && s == PD_OK; j++) {
    if (!out[j]) s = pd_tensor_empty(it, 1, &lens[j], &out[j]);
    if (s != PD_OK) break;
    void *d = lens[j] ? pd_tensor_data(out[j]) : NULL;
    for (int64_t i = 0; i < lens[j]; i++) {
      if (it == PD_INT32) ((int32_t *)d)[i] = (int32_t)src[j][i];
      else ((int64_t *)d)[i] = src[j][i];
    }
  }
  free(idx);
  free(tmp);
  free(inv);
  free(first);
  free(cnt);
  pd_tensor_release(xv);
  pd_tensor_release(xc);
  pd_tensor_release(tu);
  pd_tensor_release(uv);
  return s;
}

/* ---------------- unique_consecutive ---------------- */
/* x (flattened when no axis) seen as n rows along the axis; a run starts where a row differs
 * from the previous one. out: the first row of every run; index: each row's run; counts. */
static pd_status unique_consecutive_impl(const void *args, pd_tensor **out, row_eq eq) {
  const pd_unique_consecutive_args *a = (const pd_unique_consecutive_args *)args;
  pd_tensor *x = a->x;
  pd_dtype it = a->dtype < 0 ? PD_INT64 : (pd_dtype)a->dtype;
  int ax = -1;
  if (a->axis.n == 1) PD_TRY(pd_norm_axis("unique_consecutive", a->axis.data[0], x->ndim, &ax));
  pd_tensor *xv = NULL, *xc = NULL, *ov = NULL, *tu = NULL;
  int64_t *start = NULL, *inv = NULL;
  pd_status s = ax < 0 ? pd_tensor_contiguous(x, &xc) : pd_swap_view(x, 0, ax, &xv);
  if (s == PD_OK && ax >= 0) s = pd_tensor_clone(xv, &xc);
  const int64_t n = ax < 0 ? x->numel : x->shape[ax];
  const int64_t rl = n ? x->numel / n : 1;
  const size_t rb = (size_t)rl * pd_dtype_size(x->dtype);
  if (s == PD_OK) {
    start = malloc(sizeof(int64_t) * (size_t)(n + 1));
    inv = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!start || !inv) s = oom();
  }
  int64_t u = 0;
  if (s == PD_OK) {
    const char *xb = (const char *)pd_tensor_data(xc);
    for (int64_t i = 0; i < n; i++) {
      if (i == 0 || !eq(xb + (size_t)i * rb, xb + (size_t)(i - 1) * rb, rl)) start[u++] = i;
      inv[i] = u - 1;
    }
    start[u] = n;
    /* the first rows of the runs, contiguous with the axis first, then into out[0] */
    int64_t sh[PD_MAX_DIMS];
    const int nd = ax < 0 ? 1 : x->ndim;
    for (int d = 0; d < nd; d++) sh[d] = ax < 0 ? u : (d == 0 ? u : xc->shape[d]);
    s = pd_tensor_empty(x->dtype, nd, sh, &tu);
    if (s == PD_OK) {
      char *ub = (char *)pd_tensor_data(tu);
      for (int64_t r = 0; r < u; r++) memcpy(ub + (size_t)r * rb, xb + (size_t)start[r] * rb, rb);
    }
    if (s == PD_OK && ax < 0) {
      out[0] = tu;
      tu = NULL;
    } else if (s == PD_OK) {
      for (int d = 0; d < x->ndim; d++) sh[d] = x->shape[d];
      sh[ax] = u;
      s = pd_tensor_empty(x->dtype, x->ndim, sh, &out[0]);
      if (s == PD_OK) s = pd_swap_view(out[0], 0, ax, &ov);
      if (s == PD_OK && u > 0) s = pd_tensor_copy_(ov, tu);
    }
  }
  int64_t lens[3] = {0, n, u};
  for (int j = 1; j < 3 && s == PD_OK; j++) {
    if (!out[j]) s = pd_tensor_empty(it, 1, &lens[j], &out[j]);
    if (s != PD_OK) break;
    void *d = lens[j] ? pd_tensor_data(out[j]) : NULL;
    for (int64_t i = 0; i < lens[j]; i++) {
      int64_t v = j == 1 ? inv[i] : start[i + 1] - start[i];
      if (it == PD_INT32) ((int32_t *)d)[i] = (int32_t)v;
      else ((int64_t *)d)[i] = v;
    }
  }
  free(start);
  free(inv);
  pd_tensor_release(xv);
  pd_tensor_release(xc);
  pd_tensor_release(ov);
  pd_tensor_release(tu);
  return s;
}

#define DEF_SORT_KERNELS(SUF, T, CT)                                                       \
  pd_status pd_kernel_argsort_##SUF(const void *args, pd_tensor **out, int n_out) {         \
    const pd_argsort_args *a = (const pd_argsort_args *)args;                              \
    int ax;                                                                                \
    PD_TRY(pd_norm_axis("argsort", a->axis, a->x->ndim, &ax));                             \
    return sort_rows("argsort", a->x, a->axis, a->descending, a->x->shape[ax], out[0],     \
                     out[1], cmp_##SUF);                                                   \
  }                                                                                        \
  pd_status pd_kernel_topk_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    const pd_topk_args *a = (const pd_topk_args *)args;                                    \
    return sort_rows("topk", a->x, a->axis, a->largest, a->k, out[0], out[1], cmp_##SUF);  \
  }                                                                                        \
  pd_status pd_kernel_unique_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    return unique_impl(args, out, cmp_##SUF);                                              \
  }                                                                                        \
  pd_status pd_kernel_unique_consecutive_##SUF(const void *args, pd_tensor **out, int n_out) { \
    (void)n_out;                                                                           \
    return unique_consecutive_impl(args, out, eq_##SUF);                                   \
  }
PD_FOR_REAL(DEF_SORT_KERNELS)
