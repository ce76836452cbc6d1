/* Broadcasting strided iterator (see pd_iter.h). */
#include "pd_pool.h"
#include "pd_iter.h"
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

pd_status pd_iter_init(pd_iter *it, const char *op, int nops, pd_tensor **ops) {
  if (nops < 1 || nops > PD_ITER_MAX_OPS)
    return pd_set_error(PD_ERR_FATAL, "[%s] iterator over %d operands", op, nops);
  pd_tensor *out = ops[0];
  int nd = out->ndim;
  int64_t shape[PD_MAX_DIMS];
  int64_t st[PD_ITER_MAX_OPS][PD_MAX_DIMS];
  for (int d = 0; d < nd; d++) shape[d] = out->shape[d];
  for (int k = 0; k < nops; k++) {
    pd_tensor *t = ops[k];
    int64_t isz = (int64_t)pd_dtype_size(t->dtype);
    if (t->ndim > nd) goto bad;
    int off = nd - t->ndim;
    for (int d = 0; d < nd; d++) {
      if (d < off) {
        st[k][d] = 0;
        continue;
      }
      int64_t s = t->shape[d - off];
      if (s == shape[d]) st[k][d] = (s == 1) ? 0 : t->strides[d - off] * isz;
      else if (s == 1) st[k][d] = 0;
      else goto bad;
    }
    it->data[k] = t->storage ? (char *)pd_tensor_data(t) : NULL;
  }
  it->nops = nops;
  it->numel = pd_shape_numel(nd, shape);
  /* drop size-1 dims and coalesce */
  int m = 0;
  for (int d = 0; d < nd; d++) {
    if (shape[d] == 1) continue;
    if (m > 0) {
      int ok = 1;
      for (int k = 0; k < nops; k++)
        if (it->strides[k][m - 1] != st[k][d] * shape[d]) { ok = 0; break; }
      if (ok) {
        it->shape[m - 1] *= shape[d];
        for (int k = 0; k < nops; k++) it->strides[k][m - 1] = st[k][d];
        continue;
      }
    }
    it->shape[m] = shape[d];
    for (int k = 0; k < nops; k++) it->strides[k][m] = st[k][d];
    m++;
  }
  if (m == 0) {
    it->shape[0] = it->numel == 0 ? 0 : 1;
    for (int k = 0; k < nops; k++) it->strides[k][0] = 0;
    m = 1;
  }
  it->ndim = m;
  return PD_OK;
bad: {
  char a[128], b[128];
  int k;
  for (k = 1; k < nops; k++) {
    pd_tensor *t = ops[k];
    int off = nd - t->ndim, badk = t->ndim > nd;
    for (int d = 0; !badk && d < t->ndim; d++)
      if (t->shape[d] != shape[d + off] && t->shape[d] != 1) badk = 1;
    if (badk) break;
  }
  if (k >= nops) k = nops - 1;
  return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                      "[%s] the shape of an input %s cannot be broadcast to the output shape %s",
                      op, pd_shape_str(ops[k]->ndim, ops[k]->shape, a, sizeof a),
                      pd_shape_str(nd, shape, b, sizeof b));
}
}

void pd_iter_run_range(const pd_iter *it, int64_t begin, int64_t end, pd_loop_fn fn, void *ctx) {
  if (begin >= end) return;
  int nd = it->ndim, nops = it->nops;
  int64_t idx[PD_MAX_DIMS];
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; d--) {
    idx[d] = rem % it->shape[d];
    rem /= it->shape[d];
  }
  char *ptr[PD_ITER_MAX_OPS];
  int64_t inner_st[PD_ITER_MAX_OPS];
  for (int k = 0; k < nops; k++) {
    ptr[k] = it->data[k];
    for (int d = 0; d < nd; d++) ptr[k] += idx[d] * it->strides[k][d];
    inner_st[k] = it->strides[k][nd - 1];
  }
  int64_t pos = begin;
  int64_t inner = it->shape[nd - 1];
  while (pos < end) {
    int64_t n = inner - idx[nd - 1];
    if (n > end - pos) n = end - pos;
    fn(ptr, inner_st, n, ctx);
    pos += n;
    if (pos >= end) break;
    /* advance: we consumed to the end of the inner row */
    for (int k = 0; k < nops; k++) ptr[k] += (inner - idx[nd - 1]) * inner_st[k];
    idx[nd - 1] = 0;
    for (int k = 0; k < nops; k++) ptr[k] -= inner * inner_st[k];
    int d = nd - 2;
    for (; d >= 0; d--) {
      idx[d]++;
      for (int k = 0; k < nops; k++) ptr[k] += it->strides[k][d];
      if (idx[d] < it->shape[d]) break;
      for (int k = 0; k < nops; k++) ptr[k] -= it->shape[d] * it->strides[k][d];
      idx[d] = 0;
    }
  }
}

void pd_iter_run(const pd_iter *it, pd_loop_fn fn, void *ctx, int64_t grain) {
  int64_t n = it->numel;
  if (n == 0) return;
  if (grain <= 0) grain = PD_PARALLEL_GRAIN;
#ifdef _OPENMP
  int nt = omp_get_max_threads();
  if (nt > 1 && n >= 2 * grain && !omp_in_parallel()) {
    int64_t chunks = n / grain;
    if (chunks > nt) chunks = nt;
#pragma omp parallel num_threads((int)chunks)
    {
      int t = omp_get_thread_num(), T = omp_get_num_threads();
      int64_t b = n * t / T, e = n * (t + 1) / T;
      pd_iter_run_range(it, b, e, fn, ctx);
    }
    return;
  }
#endif
  pd_iter_run_range(it, 0, n, fn, ctx);
}

int pd_iter_is_contiguous(const pd_iter *it, const size_t *itemsizes) {
  if (it->ndim != 1) return 0;
  for (int k = 0; k < it->nops; k++)
    if (it->strides[k][0] != (int64_t)itemsizes[k]) return 0;
  return 1;
}

int pd_num_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void pd_set_num_threads(int n) {
  if (n > 0) pd_pool_set_threads(n);
}
