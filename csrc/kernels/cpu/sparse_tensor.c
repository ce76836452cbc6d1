/* Kernels of ops/sparse_tensor.yaml: paddle.sparse's COO/CSR tensors as index arrays plus dense
 * values (python/paddle/sparse/). Index ops: coalescing COO indices (sort by the linearised
 * index, duplicates merged: the map sends each input entry to its output position and the values
 * are summed by scatter_nd_add in Python, so their gradient is the dense one), CSR -> COO
 * indices, COO -> CSR row pointers. Value ops: CSR @ dense (SpMM, rows in parallel on the
 * project's OpenMP pool, 8-vector column tiles held in registers), its transpose (a counting-sort
 * transpose to CSC, then the same SpMM) and SDDMM (masked_matmul: one dot product per stored
 * entry). Every index is checked (ValueError naming the op) before it is used. */
#include <stdlib.h>
#include <string.h>
#include "manip_util.h"

#define SP_GRAIN 32768 /* multiply-adds below which a loop stays on one thread */

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

/* ---------------- checks ---------------- */
/* crows of one (M + 1) block: starts at 0, never decreases, ends at nnz. */
static pd_status check_crows(const char *op, const int64_t *rp, int64_t m, int64_t nnz,
                             int64_t batch) {
  if (rp[0] != 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected crows of batch %lld to start at 0, "
                        "received %lld", op, (long long)batch, (long long)rp[0]);
  for (int64_t i = 0; i < m; i++)
    if (rp[i + 1] < rp[i])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected non-decreasing crows, received "
                          "crows[%lld] = %lld < crows[%lld] = %lld", op, (long long)(i + 1),
                          (long long)rp[i + 1], (long long)i, (long long)rp[i]);
  if (rp[m] != nnz)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected the last crows entry of batch %lld "
                        "to equal its number of nonzeros %lld, received %lld", op, (long long)batch,
                        (long long)nnz, (long long)rp[m]);
  return PD_OK;
}

static pd_status check_cols(const char *op, const int64_t *ci, int64_t nnz, int64_t ncols) {
  int64_t bad = -1;
  for (int64_t p = 0; p < nnz; p++)
    if ((uint64_t)ci[p] >= (uint64_t)ncols) {
      bad = p;
      break;
    }
  if (bad >= 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected column indices in [0, %lld), "
                        "received %lld at position %lld", op, (long long)ncols, (long long)ci[bad],
                        (long long)bad);
  return PD_OK;
}

/* Contiguous int64 crows/cols of a 2-D CSR matrix with m rows and ncols columns, checked. */
static pd_status csr_parts(const char *op, pd_tensor *crows, pd_tensor *cols, int64_t ncols,
                           pd_tensor **rc, pd_tensor **cc) {
  *rc = *cc = NULL;
  pd_status s = pd_tensor_contiguous(crows, rc);
  if (s == PD_OK) s = pd_tensor_contiguous(cols, cc);
  if (s == PD_OK)
    s = check_crows(op, (const int64_t *)pd_tensor_data(*rc), crows->numel - 1, cols->numel, 0);
  if (s == PD_OK) s = check_cols(op, (const int64_t *)pd_tensor_data(*cc), cols->numel, ncols);
  if (s != PD_OK) {
    pd_tensor_release(*rc);
    pd_tensor_release(*cc);
    *rc = *cc = NULL;
  }
  return s;
}

/* ---------------- COO coalesce ---------------- */
typedef struct {
  int64_t key, pos;
} sp_key;

static int sp_key_cmp(const void *a, const void *b) {
  const sp_key *x = (const sp_key *)a, *y = (const sp_key *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static pd_status coalesce_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "sparse_coo_coalesce_index";
  const pd_sparse_coo_coalesce_index_args *a = (const pd_sparse_coo_coalesce_index_args *)args;
  int64_t sd = a->indices->shape[0], n = a->indices->shape[1], lim = 1;
  const int64_t *shape = a->shape.data;
  for (int64_t d = 0; d < sd; d++) {
    if (shape[d] > 0 && lim > INT64_MAX / shape[d])
      return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the sparse dims of shape hold more than 2^63 "
                          "positions", op);
    lim *= shape[d];
  }
  pd_tensor *ic;
  PD_TRY(pd_tensor_contiguous(a->indices, &ic));
  const int64_t *ix = (const int64_t *)pd_tensor_data(ic);
  pd_status s = PD_OK;
  sp_key *ord = (sp_key *)malloc(sizeof(sp_key) * (size_t)(n > 0 ? n : 1));
  if (!ord) s = oom();
  for (int64_t d = 0; s == PD_OK && d < sd; d++)
    for (int64_t k = 0; k < n; k++)
      if ((uint64_t)ix[d * n + k] >= (uint64_t)shape[d]) {
        s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected indices of sparse dim %lld in "
                         "[0, %lld), received %lld at position %lld", op, (long long)d,
                         (long long)shape[d], (long long)ix[d * n + k], (long long)k);
        break;
      }
  int sorted = 1;
  int64_t u = 0;
  if (s == PD_OK) {
    for (int64_t k = 0; k < n; k++) {
      int64_t key = 0;
      for (int64_t d = 0; d < sd; d++) key = key * shape[d] + ix[d * n + k];
      ord[k] = (sp_key){key, k};
      if (k && ord[k - 1].key >= key) sorted = 0;
    }
    if (!sorted) qsort(ord, (size_t)n, sizeof(sp_key), sp_key_cmp);
    for (int64_t k = 0; k < n; k++) u += k == 0 || ord[k].key != ord[k - 1].key;
    int64_t os[2] = {sd, u};
    s = pd_tensor_empty(PD_INT64, 2, os, &out[0]);
  }
  if (s == PD_OK) {
    int64_t *oi = (int64_t *)pd_tensor_data(out[0]), *map = (int64_t *)pd_tensor_data(out[1]);
    int64_t g = -1;
    for (int64_t k = 0; k < n; k++) {
      if (k == 0 || ord[k].key != ord[k - 1].key) {
        g++;
        for (int64_t d = 0; d < sd; d++) oi[d * u + g] = ix[d * n + ord[k].pos];
      }
      map[ord[k].pos] = g;
    }
  }
  free(ord);
  pd_tensor_release(ic);
  return s;
}
PD_STAMP1(sparse_coo_coalesce_index, coalesce_kernel, i64)

/* ---------------- CSR <-> COO indices ---------------- */
static pd_status csr_to_coo_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "sparse_csr_to_coo_index";
  const pd_sparse_csr_to_coo_index_args *a = (const pd_sparse_csr_to_coo_index_args *)args;
  int nd = (int)a->shape.n;
  int64_t b = nd == 3 ? a->shape.data[0] : 1, m = a->shape.data[nd - 2], nc = a->shape.data[nd - 1];
  int64_t nnz = a->cols->numel;
  pd_tensor *rc, *cc = NULL;
  PD_TRY(pd_tensor_contiguous(a->crows, &rc));
  pd_status s = pd_tensor_contiguous(a->cols, &cc);
  const int64_t *rp = s == PD_OK ? (const int64_t *)pd_tensor_data(rc) : NULL;
  int64_t start = 0;
  for (int64_t bi = 0; s == PD_OK && bi < b; bi++) {
    const int64_t *r = rp + bi * (m + 1);
    if (r[m] < 0 || r[m] > nnz - start) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the crows of batch %lld count %lld nonzeros, "
                       "but only %lld cols are left", op, (long long)bi, (long long)r[m],
                       (long long)(nnz - start));
      break;
    }
    s = check_crows(op, r, m, r[m], bi);
    start += r[m];
  }
  if (s == PD_OK && start != nnz)
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the crows count %lld nonzeros, received %lld cols",
                     op, (long long)start, (long long)nnz);
  if (s == PD_OK) s = check_cols(op, (const int64_t *)pd_tensor_data(cc), nnz, nc);
  if (s == PD_OK) {
    int64_t *o = (int64_t *)pd_tensor_data(out[0]);
    const int64_t *ci = (const int64_t *)pd_tensor_data(cc);
    int64_t *orow = o + (int64_t)(nd - 2) * nnz, *ocol = orow + nnz, p0 = 0;
    for (int64_t bi = 0; bi < b; bi++) {
      const int64_t *r = rp + bi * (m + 1);
      for (int64_t i = 0; i < m; i++)
        for (int64_t p = r[i]; p < r[i + 1]; p++) {
          if (nd == 3) o[p0 + p] = bi;
          orow[p0 + p] = i;
          ocol[p0 + p] = ci[p0 + p];
        }
      p0 += r[m];
    }
  }
  pd_tensor_release(rc);
  pd_tensor_release(cc);
  return s;
}
PD_STAMP1(sparse_csr_to_coo_index, csr_to_coo_kernel, i64)

static pd_status coo_to_csr_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "sparse_coo_to_csr_crows";
  const pd_sparse_coo_to_csr_crows_args *a = (const pd_sparse_coo_to_csr_crows_args *)args;
  int nd = (int)a->shape.n;
  int64_t b = nd == 3 ? a->shape.data[0] : 1, m = a->shape.data[nd - 2], nnz = a->indices->shape[1];
  pd_tensor *ic;
  PD_TRY(pd_tensor_contiguous(a->indices, &ic));
  const int64_t *ix = (const int64_t *)pd_tensor_data(ic);
  const int64_t *bat = nd == 3 ? ix : NULL, *row = ix + (int64_t)(nd - 2) * nnz;
  int64_t *rp = (int64_t *)pd_tensor_data(out[0]);
  memset(rp, 0, sizeof(int64_t) * (size_t)(b * (m + 1)));
  pd_status s = PD_OK;
  int64_t prev = -1;
  for (int64_t p = 0; p < nnz; p++) {
    int64_t bi = bat ? bat[p] : 0, r = row[p];
    if ((uint64_t)bi >= (uint64_t)b || (uint64_t)r >= (uint64_t)m) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected batch/row indices in [0, %lld) x "
                       "[0, %lld), received (%lld, %lld) at position %lld", op, (long long)b,
                       (long long)m, (long long)bi, (long long)r, (long long)p);
      break;
    }
    int64_t key = bi * m + r;
    if (key < prev) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected indices sorted by row (coalesce "
                       "first), position %lld is out of order", op, (long long)p);
      break;
    }
    prev = key;
    rp[bi * (m + 1) + r + 1]++;
  }
  for (int64_t bi = 0; s == PD_OK && bi < b; bi++)
    for (int64_t i = 0; i < m; i++) rp[bi * (m + 1) + i + 1] += rp[bi * (m + 1) + i];
  pd_tensor_release(ic);
  return s;
}
PD_STAMP1(sparse_coo_to_csr_crows, coo_to_csr_kernel, i64)

/* ---------------- SpMM: out[M, N] = S[M, K] @ y[K, N] ---------------- */
/* Generic vectors (32 bytes; gcc lowers them to whatever the target ISA has); aligned(sizeof T)
 * makes every load/store unaligned-safe. A tile is 8 vectors = 64 floats / 32 doubles, kept in
 * registers across a row's nonzeros. */
typedef float sp_v8f __attribute__((vector_size(32), aligned(4)));
typedef double sp_v4d __attribute__((vector_size(32), aligned(8)));
#define SP_PF 6 /* nonzeros ahead whose y row is prefetched */

#define DEF_SPMM(SUF, T, VT, W)                                                                   \
  static void spmm_row_##SUF(const int64_t *rp, const int64_t *ci, const T *v, const T *y,        \
                             int64_t i, int64_t M, int64_t N, T *restrict o) {                    \
    int64_t p0 = rp[i], p1 = rp[i + 1], j0 = 0, pend = rp[M];                                     \
    for (; j0 + 8 * W <= N; j0 += 8 * W) {                                                        \
      VT acc[8];                                                                                  \
      for (int t = 0; t < 8; t++) acc[t] = (VT){0};                                               \
      for (int64_t p = p0; p < p1; p++) {                                                         \
        if (p + SP_PF < pend) { /* past the row end too: rows are short */                        \
          const char *q = (const char *)(y + ci[p + SP_PF] * N + j0);                             \
          for (int t = 0; t < 8 * W * (int)sizeof(T); t += 64) __builtin_prefetch(q + t);         \
        }                                                                                         \
        const T a = v[p];                                                                         \
        const VT *yr = (const VT *)(y + ci[p] * N + j0);                                          \
        for (int t = 0; t < 8; t++) acc[t] += a * yr[t];                                          \
      }                                                                                           \
      for (int t = 0; t < 8; t++) *(VT *)(o + j0 + t * W) = acc[t];                               \
    }                                                                                             \
    if (j0 < N) {                                                                                 \
      int64_t nb = N - j0;                                                                        \
      T acc[8 * W];                                                                               \
      for (int64_t j = 0; j < nb; j++) acc[j] = 0;                                                \
      for (int64_t p = p0; p < p1; p++) {                                                         \
        const T a = v[p];                                                                         \
        const T *yr = y + ci[p] * N + j0;                                                         \
        for (int64_t j = 0; j < nb; j++) acc[j] += a * yr[j];                                     \
      }                                                                                           \
      for (int64_t j = 0; j < nb; j++) o[j0 + j] = acc[j];                                        \
    }                                                                                             \
  }                                                                                               \
  static void spmm_##SUF(const int64_t *rp, const int64_t *ci, const T *v, const T *y, int64_t M, \
                         int64_t N, T *out) {                                                     \
    int64_t work = rp[M] * N + M * N;                                                             \
    _Pragma("omp parallel for if (work >= SP_GRAIN) schedule(dynamic, 64)")                      \
    for (int64_t i = 0; i < M; i++) spmm_row_##SUF(rp, ci, v, y, i, M, N, out + i * N);              \
  }
DEF_SPMM(f32, float, sp_v8f, 8)
DEF_SPMM(f64, double, sp_v4d, 4)

static void spmm_any(pd_dtype dt, const int64_t *rp, const int64_t *ci, const void *v,
                     const void *y, int64_t M, int64_t N, void *out) {
  if (dt == PD_FLOAT32)
    spmm_f32(rp, ci, (const float *)v, (const float *)y, M, N, (float *)out);
  else
    spmm_f64(rp, ci, (const double *)v, (const double *)y, M, N, (double *)out);
}

static pd_status csr_mm_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sparse_csr_mm_args *a = (const pd_sparse_csr_mm_args *)args;
  pd_tensor *rc, *cc, *vc = NULL, *yc = NULL;
  PD_TRY(csr_parts("sparse_csr_mm", a->crows, a->cols, a->y->shape[0], &rc, &cc));
  pd_status s = pd_tensor_contiguous(a->values, &vc);
  if (s == PD_OK) s = pd_tensor_contiguous(a->y, &yc);
  if (s == PD_OK)
    spmm_any(a->values->dtype, (const int64_t *)pd_tensor_data(rc),
             (const int64_t *)pd_tensor_data(cc), pd_tensor_data(vc), pd_tensor_data(yc),
             a->crows->numel - 1, a->y->shape[1], pd_tensor_data(out[0]));
  pd_tensor_release(rc);
  pd_tensor_release(cc);
  pd_tensor_release(vc);
  pd_tensor_release(yc);
  return s;
}
PD_STAMP1(sparse_csr_mm, csr_mm_kernel, f32)
PD_STAMP1(sparse_csr_mm, csr_mm_kernel, f64)

/* out[K, N] = S^T @ g: transpose S (M x K, CSR) into CSC by counting sort (rows stay in order
 * inside each column), then the row-parallel SpMM over it. */
static pd_status csr_mm_t_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sparse_csr_mm_t_args *a = (const pd_sparse_csr_mm_t_args *)args;
  int64_t K = a->like->shape[0], M = a->crows->numel - 1, nnz = a->cols->numel;
  size_t es = pd_dtype_size(a->values->dtype);
  pd_tensor *rc, *cc, *vc = NULL, *gc = NULL;
  PD_TRY(csr_parts("sparse_csr_mm_t", a->crows, a->cols, K, &rc, &cc));
  pd_status s = pd_tensor_contiguous(a->values, &vc);
  if (s == PD_OK) s = pd_tensor_contiguous(a->g, &gc);
  int64_t *cp = NULL, *ri = NULL;
  char *tv = NULL;
  if (s == PD_OK) {
    cp = (int64_t *)calloc((size_t)K + 1, sizeof(int64_t));
    ri = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nnz > 0 ? nnz : 1));
    tv = (char *)malloc(es * (size_t)(nnz > 0 ? nnz : 1));
    if (!cp || !ri || !tv) s = oom();
  }
  if (s == PD_OK) {
    const int64_t *rp = (const int64_t *)pd_tensor_data(rc), *ci = (const int64_t *)pd_tensor_data(cc);
    const char *vv = (const char *)pd_tensor_data(vc);
    for (int64_t p = 0; p < nnz; p++) cp[ci[p] + 1]++;
    for (int64_t k = 0; k < K; k++) cp[k + 1] += cp[k];
    int64_t *fill = (int64_t *)malloc(sizeof(int64_t) * (size_t)(K > 0 ? K : 1));
    if (!fill) {
      s = oom();
    } else {
      memcpy(fill, cp, sizeof(int64_t) * (size_t)K);
      for (int64_t i = 0; i < M; i++)
        for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
          int64_t q = fill[ci[p]]++;
          ri[q] = i;
          memcpy(tv + (size_t)q * es, vv + (size_t)p * es, es);
        }
      free(fill);
      spmm_any(a->values->dtype, cp, ri, tv, pd_tensor_data(gc), K, a->g->shape[1],
               pd_tensor_data(out[0]));
    }
  }
  free(cp);
  free(ri);
  free(tv);
  pd_tensor_release(rc);
  pd_tensor_release(cc);
  pd_tensor_release(vc);
  pd_tensor_release(gc);
  return s;
}
PD_STAMP1(sparse_csr_mm_t, csr_mm_t_kernel, f32)
PD_STAMP1(sparse_csr_mm_t, csr_mm_t_kernel, f64)

/* ---------------- SDDMM: out[p] = x[row(p), :] . yt[cols[p], :] ---------------- */
#define DEF_SDDMM(SUF, T, VT, W)                                                                  \
  static T dot_##SUF(const T *a, const T *b, int64_t K) {                                         \
    VT s0 = {0}, s1 = {0};                                                                        \
    int64_t k = 0;                                                                                \
    for (; k + 2 * W <= K; k += 2 * W) {                                                          \
      s0 += *(const VT *)(a + k) * *(const VT *)(b + k);                                          \
      s1 += *(const VT *)(a + k + W) * *(const VT *)(b + k + W);                                  \
    }                                                                                             \
    s0 += s1;                                                                                     \
    T r = 0;                                                                                      \
    for (int t = 0; t < W; t++) r += s0[t];                                                       \
    for (; k < K; k++) r += a[k] * b[k];                                                          \
    return r;                                                                                     \
  }                                                                                               \
  static void sddmm_##SUF(const int64_t *rp, const int64_t *ci, const T *x, const T *yt,          \
                          int64_t M, int64_t K, T *out) {                                         \
    int64_t work = rp[M] * K;                                                                     \
    _Pragma("omp parallel for if (work >= SP_GRAIN) schedule(dynamic, 64)")                      \
    for (int64_t i = 0; i < M; i++)                                                               \
      for (int64_t p = rp[i]; p < rp[i + 1]; p++) {                                               \
        if (p + SP_PF < rp[M]) {                                                                  \
          const char *q = (const char *)(yt + ci[p + SP_PF] * K);                                 \
          for (int64_t t = 0; t < K * (int64_t)sizeof(T) && t < 512; t += 64) __builtin_prefetch(q + t); \
        }                                                                                         \
        out[p] = dot_##SUF(x + i * K, yt + ci[p] * K, K);                                         \
      }                                                                                           \
  }
DEF_SDDMM(f32, float, sp_v8f, 8)
DEF_SDDMM(f64, double, sp_v4d, 4)

static pd_status sddmm_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sparse_sddmm_args *a = (const pd_sparse_sddmm_args *)args;
  pd_tensor *rc, *cc, *xc = NULL, *yc = NULL;
  PD_TRY(csr_parts("sparse_sddmm", a->crows, a->cols, a->yt->shape[0], &rc, &cc));
  pd_status s = pd_tensor_contiguous(a->x, &xc);
  if (s == PD_OK) s = pd_tensor_contiguous(a->yt, &yc);
  if (s == PD_OK) {
    const int64_t *rp = (const int64_t *)pd_tensor_data(rc), *ci = (const int64_t *)pd_tensor_data(cc);
    int64_t M = a->crows->numel - 1, K = a->x->shape[1];
    if (a->x->dtype == PD_FLOAT32)
      sddmm_f32(rp, ci, (const float *)pd_tensor_data(xc), (const float *)pd_tensor_data(yc), M, K,
                (float *)pd_tensor_data(out[0]));
    else
      sddmm_f64(rp, ci, (const double *)pd_tensor_data(xc), (const double *)pd_tensor_data(yc), M,
                K, (double *)pd_tensor_data(out[0]));
  }
  pd_tensor_release(rc);
  pd_tensor_release(cc);
  pd_tensor_release(xc);
  pd_tensor_release(yc);
  return s;
}
PD_STAMP1(sparse_sddmm, sddmm_kernel, f32)
PD_STAMP1(sparse_sddmm, sddmm_kernel, f64)
