/* Row-sparse gradient kernels (Paddle's SelectedRows; ops/sparse.yaml and the sparse updates of
 * ops/optim.yaml): embedding's sparse backward (ids -> rows, dout -> values, padding rows
 * dropped), merging duplicate rows (sorted unique rows, each one's values summed in input order,
 * so results never depend on the thread count), adding rows into a dense tensor, sgd_sparse_
 * (p[r] -= lr v) and adam_sparse_ (Paddle's sparse Adam: lazy_mode moves the moments and the
 * parameter of the given rows only; otherwise every row, with a zero gradient where none was
 * given). float32/float64; OpenMP over rows when the work is large. */
#include <stdlib.h>
#include "manip_util.h"

#define SR_GRAIN 65536 /* elements below which a loop stays on one thread */

#define SQRT(x) _Generic((x), float: sqrtf, default: sqrt)(x)

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

/* Elements per row of a dense tensor (its dims after the first). */
static int64_t row_len(const pd_tensor *t) {
  int64_t l = 1;
  for (int d = 1; d < t->ndim; d++) l *= t->shape[d];
  return l;
}

static pd_status check_range(const char *op, const int64_t *r, int64_t n, int64_t height) {
  for (int64_t k = 0; k < n; k++)
    if (r[k] < 0 || r[k] >= height)
      return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] row %lld is out of range [0, %lld)", op,
                          (long long)r[k], (long long)height);
  return PD_OK;
}

static int strictly_increasing(const int64_t *r, int64_t n) {
  for (int64_t k = 1; k < n; k++)
    if (r[k - 1] >= r[k]) return 0;
  return 1;
}

/* ---------------- merging duplicate rows ---------------- */
typedef struct {
  int64_t row, idx;
} row_key;

static int row_key_cmp(const void *a, const void *b) {
  const row_key *x = (const row_key *)a, *y = (const row_key *)b;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

#define DEF_MERGE_SUM(SUF, T)                                                                   \
  static void merge_sum_##SUF(const T *v, int64_t L, const row_key *ord, const int64_t *gs,     \
                              int64_t u, T *out) {                                              \
    _Pragma("omp parallel for if (gs[u] * L >= SR_GRAIN) schedule(static)")                     \
    for (int64_t g = 0; g < u; g++) {                                                           \
      T *restrict dst = out + g * L;                                                            \
      memcpy(dst, v + ord[gs[g]].idx * L, sizeof(T) * (size_t)L);                               \
      for (int64_t k = gs[g] + 1; k < gs[g + 1]; k++) {                                         \
        const T *restrict src = v + ord[k].idx * L;                                             \
        for (int64_t j = 0; j < L; j++) dst[j] += src[j];                                       \
      }                                                                                         \
    }                                                                                           \
  }
DEF_MERGE_SUM(f32, float)
DEF_MERGE_SUM(f64, double)

/* Sorted unique rows and their summed values (new contiguous tensors); rows are range-checked. */
static pd_status merge_rows(const char *op, pd_tensor *rows, pd_tensor *values, int64_t height,
                            pd_tensor **orows, pd_tensor **ovals) {
  pd_tensor *rc = NULL, *vc = NULL;
  row_key *ord = NULL;
  int64_t *gs = NULL;
  *orows = *ovals = NULL;
  pd_status s = pd_tensor_contiguous(rows, &rc);
  if (s == PD_OK) s = pd_tensor_contiguous(values, &vc);
  int64_t n = rows->numel, L = row_len(values), u = 0;
  const int64_t *r = s == PD_OK ? (const int64_t *)pd_tensor_data(rc) : NULL;
  if (s == PD_OK) s = check_range(op, r, n, height);
  if (s == PD_OK) {
    ord = (row_key *)malloc(sizeof(row_key) * (size_t)(n > 0 ? n : 1));
    gs = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!ord || !gs) s = oom();
  }
  if (s == PD_OK) {
    for (int64_t k = 0; k < n; k++) ord[k] = (row_key){r[k], k};
    if (!strictly_increasing(r, n)) qsort(ord, (size_t)n, sizeof(row_key), row_key_cmp);
    for (int64_t k = 0; k < n; k++)
      if (k == 0 || ord[k].row != ord[k - 1].row) gs[u++] = k;
    gs[u] = n;
    int64_t sh[PD_MAX_DIMS];
    memcpy(sh, values->shape, sizeof(int64_t) * (size_t)values->ndim);
    sh[0] = u;
    s = pd_tensor_empty(PD_INT64, 1, &u, orows);
    if (s == PD_OK) s = pd_tensor_empty(values->dtype, values->ndim, sh, ovals);
  }
  if (s == PD_OK) {
    int64_t *orw = (int64_t *)pd_tensor_data(*orows);
    for (int64_t g = 0; g < u; g++) orw[g] = ord[gs[g]].row;
    void *od = pd_tensor_data(*ovals);
    if (values->dtype == PD_FLOAT32)
      merge_sum_f32((const float *)pd_tensor_data(vc), L, ord, gs, u, (float *)od);
    else
      merge_sum_f64((const double *)pd_tensor_data(vc), L, ord, gs, u, (double *)od);
  }
  if (s != PD_OK) {
    pd_tensor_release(*orows);
    pd_tensor_release(*ovals);
    *orows = *ovals = NULL;
  }
  free(ord);
  free(gs);
  pd_tensor_release(rc);
  pd_tensor_release(vc);
  return s;
}

static pd_status merge_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_merge_selected_rows_args *a = (const pd_merge_selected_rows_args *)args;
  if (a->height < 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[merge_selected_rows] height must be >= 0, "
                        "received %lld", (long long)a->height);
  return merge_rows("merge_selected_rows", a->rows, a->values, a->height, &out[0], &out[1]);
}
PD_STAMP1(merge_selected_rows, merge_kernel, f32)
PD_STAMP1(merge_selected_rows, merge_kernel, f64)

/* ---------------- embedding's row-sparse backward ---------------- */
static pd_status emb_sparse_kernel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_embedding_sparse_grad_args *a = (const pd_embedding_sparse_grad_args *)args;
  int64_t height = a->weight->shape[0], dim = a->weight->shape[1];
  if (a->dout->numel != a->x->numel * dim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[embedding_sparse_grad] expected dout to hold %lld x %lld elements, "
                        "received %lld", (long long)a->x->numel, (long long)dim,
                        (long long)a->dout->numel);
  pd_tensor *ix, *g = NULL;
  PD_TRY(pd_index_i64("embedding_sparse_grad", a->x, &ix));
  const int64_t *iv = (const int64_t *)pd_tensor_data(ix);
  int64_t n = ix->numel, pad = a->padding_idx, cnt = 0;
  pd_status s = check_range("embedding_sparse_grad", iv, n, height);
  if (s == PD_OK) s = pd_tensor_contiguous(a->dout, &g);
  for (int64_t i = 0; s == PD_OK && i < n; i++) cnt += iv[i] != pad;
  int64_t vs[2] = {cnt, dim};
  if (s == PD_OK) s = pd_tensor_empty(PD_INT64, 1, &cnt, &out[0]);
  if (s == PD_OK) s = pd_tensor_empty(a->dout->dtype, 2, vs, &out[1]);
  if (s == PD_OK) {
    /* rows of padding_idx get no gradient (Paddle documents the padding row as never updated) */
    int64_t *rw = (int64_t *)pd_tensor_data(out[0]);
    size_t rb = pd_dtype_size(a->dout->dtype) * (size_t)dim;
    const char *src = (const char *)pd_tensor_data(g);
    char *dst = (char *)pd_tensor_data(out[1]);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
      if (iv[i] == pad) continue;
      rw[k] = iv[i];
      memcpy(dst + (size_t)k * rb, src + (size_t)i * rb, rb);
      k++;
    }
  }
  pd_tensor_release(g);
  pd_tensor_release(ix);
  return s;
}
PD_STAMP1(embedding_sparse_grad, emb_sparse_kernel, f32)
PD_STAMP1(embedding_sparse_grad, emb_sparse_kernel, f64)

/* ---------------- x[rows[k]] += values[k] (in place) ---------------- */
#define DEF_ROWS_ADD(SUF, T)                                                                   \
  pd_status pd_kernel_selected_rows_add__##SUF(const void *args, pd_tensor **out, int n_out) { \
    (void)n_out;                                                                               \
    const pd_selected_rows_add__args *a = (const pd_selected_rows_add__args *)args;            \
    pd_tensor *rc, *vc = NULL;                                                                 \
    PD_TRY(pd_tensor_contiguous(a->rows, &rc));                                                \
    const int64_t *r = (const int64_t *)pd_tensor_data(rc);                                    \
    int64_t n = rc->numel, L = row_len(a->x);                                                  \
    pd_status s = check_range("selected_rows_add_", r, n, a->x->ndim ? a->x->shape[0] : 1);    \
    if (s == PD_OK) s = pd_tensor_contiguous(a->values, &vc);                                  \
    if (s == PD_OK) {                                                                          \
      T *xd = (T *)pd_tensor_data(a->x);                                                       \
      const T *vd = (const T *)pd_tensor_data(vc);                                             \
      /* threads own column blocks: duplicate rows add in input order, no races */            \
      int64_t nb = (L + 63) / 64;                                                              \
      _Pragma("omp parallel for if (n * L >= SR_GRAIN && nb > 1) schedule(static)")           \
      for (int64_t b = 0; b < nb; b++) {                                                       \
        int64_t j0 = b * 64, j1 = j0 + 64 < L ? j0 + 64 : L;                                   \
        for (int64_t k = 0; k < n; k++) {                                                      \
          T *restrict dst = xd + r[k] * L;                                                     \
          const T *restrict src = vd + k * L;                                                  \
          for (int64_t j = j0; j < j1; j++) dst[j] += src[j];                                  \
        }                                                                                      \
      }                                                                                        \
      out[0] = a->x;                                                                           \
    }                                                                                          \
    pd_tensor_release(vc);                                                                     \
    pd_tensor_release(rc);                                                                     \
    return s;                                                                                  \
  }
DEF_ROWS_ADD(f32, float)
DEF_ROWS_ADD(f64, double)

/* ---------------- sgd over rows: p[rows[k]] -= lr values[k] ---------------- */
#define DEF_SGD_SPARSE(SUF, T)                                                                 \
  pd_status pd_kernel_sgd_sparse__##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                               \
    const pd_sgd_sparse__args *a = (const pd_sgd_sparse__args *)args;                          \
    pd_tensor *rc, *vc = NULL;                                                                 \
    PD_TRY(pd_tensor_contiguous(a->rows, &rc));                                                \
    const int64_t *r = (const int64_t *)pd_tensor_data(rc);                                    \
    int64_t n = rc->numel, L = row_len(a->param);                                              \
    pd_status s = check_range("sgd_sparse_", r, n, a->param->shape[0]);                        \
    if (s == PD_OK) s = pd_tensor_contiguous(a->values, &vc);                                  \
    if (s == PD_OK) {                                                                          \
      T *pd = (T *)pd_tensor_data(a->param);                                                   \
      const T *vd = (const T *)pd_tensor_data(vc);                                             \
      const T LR = (T)a->lr;                                                                   \
      /* unique rows run in parallel; repeated rows add up one after another */               \
      int par = n * L >= SR_GRAIN && strictly_increasing(r, n);                               \
      _Pragma("omp parallel for if (par) schedule(static)")                                    \
      for (int64_t k = 0; k < n; k++) {                                                        \
        T *restrict p = pd + r[k] * L;                                                         \
        const T *restrict g = vd + k * L;                                                      \
        for (int64_t j = 0; j < L; j++) p[j] -= LR * g[j];                                     \
      }                                                                                        \
      out[0] = a->param;                                                                       \
    }                                                                                          \
    pd_tensor_release(vc);                                                                     \
    pd_tensor_release(rc);                                                                     \
    return s;                                                                                  \
  }
DEF_SGD_SPARSE(f32, float)
DEF_SGD_SPARSE(f64, double)

/* ---------------- adam over rows ----------------
 * The dense adam_ formula (csrc/kernels/cpu/optim.c) row by row: m1 = b1 m1 + (1-b1) g;
 * m2 = b2 m2 + (1-b2) g^2; p -= lr sqrt(1-b2^t)/(1-b1^t) m1 / (sqrt(m2) + eps sqrt(1-b2^t)).
 * coeff > 0 (AdamW): every row decays first, p *= 1 - lr coeff (Paddle's sparse AdamW). With no
 * rows at all nothing else happens (the beta powers stay: Paddle returns early). */
typedef struct {
  double lrt, b1, b2, epst;
} adam_consts;

#define DEF_ADAM_SPARSE(SUF, T)                                                                \
  static void adam_row_##SUF(T *restrict p, T *restrict m1, T *restrict m2,                    \
                             const T *restrict g, int64_t L, const adam_consts *c) {            \
    const T LRT = (T)c->lrt, B1 = (T)c->b1, B2 = (T)c->b2, EPST = (T)c->epst;                   \
    const T OB1 = (T)1 - B1, OB2 = (T)1 - B2;                                                   \
    unsigned csr = pd_ftz_enter(); /* moments below FLT_MIN flush to 0 (optim.c) */             \
    if (g) {                                                                                    \
      for (int64_t j = 0; j < L; j++) {                                                         \
        T a = B1 * m1[j] + OB1 * g[j], b = B2 * m2[j] + OB2 * g[j] * g[j];                      \
        m1[j] = a;                                                                              \
        m2[j] = b;                                                                              \
        p[j] = p[j] - LRT * (a / (SQRT(b) + EPST));                                             \
      }                                                                                         \
    } else {                                                                                    \
      for (int64_t j = 0; j < L; j++) {                                                         \
        T a = B1 * m1[j], b = B2 * m2[j];                                                       \
        m1[j] = a;                                                                              \
        m2[j] = b;                                                                              \
        p[j] = p[j] - LRT * (a / (SQRT(b) + EPST));                                             \
      }                                                                                         \
    }                                                                                           \
    pd_ftz_leave(csr);                                                                          \
  }                                                                                             \
  static void adam_rows_##SUF(T *pd, T *m1, T *m2, const int64_t *r, const T *vd, int64_t n,    \
                              int64_t H, int64_t L, int lazy, const adam_consts *c) {           \
    if (lazy) {                                                                                 \
      _Pragma("omp parallel for if (n * L >= SR_GRAIN) schedule(static)")                       \
      for (int64_t k = 0; k < n; k++)                                                           \
        adam_row_##SUF(pd + r[k] * L, m1 + r[k] * L, m2 + r[k] * L, vd + k * L, L, c);          \
      return;                                                                                   \
    }                                                                                           \
    /* every row; rows are sorted, so each chunk walks its part of them in step */             \
    int64_t nch = H * L >= SR_GRAIN ? pd_num_threads() : 1;                                     \
    if (nch > H) nch = H;                                                                       \
    _Pragma("omp parallel for if (nch > 1) schedule(static)")                                   \
    for (int64_t ch = 0; ch < nch; ch++) {                                                      \
      int64_t rb = H * ch / nch, re = H * (ch + 1) / nch, lo = 0, hi = n;                       \
      while (lo < hi) {                                                                         \
        int64_t mid = lo + (hi - lo) / 2;                                                       \
        if (r[mid] < rb) lo = mid + 1;                                                          \
        else hi = mid;                                                                          \
      }                                                                                         \
      for (int64_t row = rb, k = lo; row < re; row++) {                                         \
        const T *g = NULL;                                                                      \
        if (k < n && r[k] == row) g = vd + (k++) * L;                                           \
        adam_row_##SUF(pd + row * L, m1 + row * L, m2 + row * L, g, L, c);                      \
      }                                                                                         \
    }                                                                                           \
  }                                                                                             \
  pd_status pd_kernel_adam_sparse__##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                                \
    const pd_adam_sparse__args *a = (const pd_adam_sparse__args *)args;                         \
    pd_tensor *rows = a->rows, *vals = a->values, *mr = NULL, *mv = NULL;                       \
    int64_t H = a->param->shape[0], L = row_len(a->param), n = rows->numel;                     \
    T *pd = (T *)pd_tensor_data(a->param);                                                      \
    pd_tensor *rc;                                                                              \
    PD_TRY(pd_tensor_contiguous(rows, &rc));                                                    \
    int sorted = strictly_increasing((const int64_t *)pd_tensor_data(rc), n);                   \
    pd_status s = check_range("adam_sparse_", (const int64_t *)pd_tensor_data(rc), n, H);       \
    pd_tensor_release(rc);                                                                      \
    if (s == PD_OK && sorted) {                                                                 \
      s = pd_tensor_contiguous(rows, &mr);                                                      \
      if (s == PD_OK) s = pd_tensor_contiguous(vals, &mv);                                      \
    } else if (s == PD_OK) {                                                                    \
      s = merge_rows("adam_sparse_", rows, vals, H, &mr, &mv); /* duplicates summed */          \
    }                                                                                           \
    if (s != PD_OK) {                                                                           \
      pd_tensor_release(mr);                                                                    \
      pd_tensor_release(mv);                                                                    \
      return s;                                                                                 \
    }                                                                                           \
    if (a->coeff != 0.0) {                                                                      \
      const T DEC = (T)(1 - a->lr * a->coeff);                                                  \
      int64_t tot = a->param->numel;                                                            \
      _Pragma("omp parallel for if (tot >= SR_GRAIN) schedule(static)")                         \
      for (int64_t i = 0; i < tot; i++) pd[i] = pd[i] * DEC;                                    \
    }                                                                                           \
    if (n > 0) {                                                                                \
      double b1p, b2p, im;                                                                      \
      pd_load_as_complex(pd_tensor_data(a->beta1_pow), a->beta1_pow->dtype, &b1p, &im);         \
      pd_load_as_complex(pd_tensor_data(a->beta2_pow), a->beta2_pow->dtype, &b2p, &im);         \
      adam_consts c = {a->lr * sqrt(1 - b2p) / (1 - b1p), a->beta1, a->beta2,                   \
                       a->epsilon * sqrt(1 - b2p)};                                             \
      adam_rows_##SUF(pd, (T *)pd_tensor_data(a->moment1), (T *)pd_tensor_data(a->moment2),     \
                      (const int64_t *)pd_tensor_data(mr), (const T *)pd_tensor_data(mv),       \
                      mr->numel, H, L, a->lazy_mode, &c);                                       \
      pd_store_from_double(pd_tensor_data(a->beta1_pow), a->beta1_pow->dtype, b1p * a->beta1);  \
      pd_store_from_double(pd_tensor_data(a->beta2_pow), a->beta2_pow->dtype, b2p * a->beta2);  \
    }                                                                                           \
    pd_tensor_release(mr);                                                                      \
    pd_tensor_release(mv);                                                                      \
    out[0] = a->param;                                                                          \
    return PD_OK;                                                                               \
  }
DEF_ADAM_SPARSE(f32, float)
DEF_ADAM_SPARSE(f64, double)
