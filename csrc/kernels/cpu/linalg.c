/* Dense linear algebra kernels (ops/linalg.yaml): inverse, determinant, slogdeterminant, solve,
 * cholesky and triangular_solve for float32/float64, batched over leading dims, through the
 * Fortran LAPACK routines in OpenBLAS (column-major: each matrix is copied into a column-major
 * work buffer; batches of small matrices split across threads, see linalg_batch.h). Singular or
 * invalid input is a ValueError naming the op. Also their infer_meta. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "linalg_batch.h"

/* Fortran LAPACK (hidden string lengths last, gfortran convention). */
extern void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void sgetrs_(const char *tr, const int *n, const int *nrhs, const float *a, const int *lda,
                    const int *ipiv, float *b, const int *ldb, int *info, size_t l1);
extern void dgetrs_(const char *tr, const int *n, const int *nrhs, const double *a, const int *lda,
                    const int *ipiv, double *b, const int *ldb, int *info, size_t l1);
extern void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t l1);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t l1);
extern void strtrs_(const char *uplo, const char *tr, const char *diag, const int *n, const int *nrhs,
                    const float *a, const int *lda, float *b, const int *ldb, int *info, size_t l1,
                    size_t l2, size_t l3);
extern void dtrtrs_(const char *uplo, const char *tr, const char *diag, const int *n, const int *nrhs,
                    const double *a, const int *lda, double *b, const int *ldb, int *info, size_t l1,
                    size_t l2, size_t l3);

/* ---------------------------------------------------------------- shapes */
static pd_status check_square(const char *op, const char *name, const pd_tensor *x) {
  char s[128];
  if (x->ndim < 2 || x->shape[x->ndim - 1] != x->shape[x->ndim - 2])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected %s to be a (batch of) square matrices [..., n, n], received %s",
                        op, name, pd_shape_str(x->ndim, x->shape, s, sizeof s));
  if (x->shape[x->ndim - 1] > 46340)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] matrix too large", op);
  return PD_OK;
}

static int64_t batch_count(const pd_tensor *t) {
  int64_t b = 1;
  for (int d = 0; d < t->ndim - 2; d++) b *= t->shape[d];
  return b;
}

/* element offset of matrix b of t (batch dims row-major) */
static int64_t batch_offset(const pd_tensor *t, int64_t b) {
  int64_t off = 0;
  for (int d = t->ndim - 3; d >= 0; d--) {
    off += (b % t->shape[d]) * t->strides[d];
    b /= t->shape[d];
  }
  return off;
}

pd_status pd_infer_inverse(const void *args, pd_meta_list *out) {
  const pd_inverse_args *a = (const pd_inverse_args *)args;
  PD_TRY(check_square("inverse", "x", a->x));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[inverse] out of memory");
  pd_meta_like(m, a->x);
  return PD_OK;
}

pd_status pd_infer_cholesky(const void *args, pd_meta_list *out) {
  const pd_cholesky_args *a = (const pd_cholesky_args *)args;
  PD_TRY(check_square("cholesky", "x", a->x));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[cholesky] out of memory");
  pd_meta_like(m, a->x);
  return PD_OK;
}

pd_status pd_infer_determinant(const void *args, pd_meta_list *out) {
  const pd_determinant_args *a = (const pd_determinant_args *)args;
  PD_TRY(check_square("determinant", "x", a->x));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[determinant] out of memory");
  pd_meta_set(m, a->x->dtype, a->x->ndim - 2, a->x->shape);
  pd_scalar_meta(m); /* one matrix: [1] or 0-D by the API level */
  return PD_OK;
}

pd_status pd_infer_slogdeterminant(const void *args, pd_meta_list *out) {
  const pd_slogdeterminant_args *a = (const pd_slogdeterminant_args *)args;
  PD_TRY(check_square("slogdeterminant", "x", a->x));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[slogdeterminant] out of memory");
  int64_t sh[PD_MAX_DIMS];
  sh[0] = 2;
  int nd = 1;
  if (a->x->ndim == 2 && pd_set_to_1d) sh[nd++] = 1; /* Paddle 2.3 [2, 1]; Paddle 2.6 [2] */
  for (int d = 0; d < a->x->ndim - 2; d++) sh[nd++] = a->x->shape[d];
  pd_meta_set(m, a->x->dtype, nd, sh);
  return PD_OK;
}

/* solve-like: x [..., n, n], y [..., n, k] with the same batch dims. */
static pd_status infer_solve_like(const char *op, const pd_tensor *x, const pd_tensor *y, pd_meta_list *out) {
  char s1[128], s2[128];
  PD_TRY(pd_check_same_dtype(op, "x", x, "y", y));
  PD_TRY(check_square(op, "x", x));
  int ok = y->ndim == x->ndim && y->shape[y->ndim - 2] == x->shape[x->ndim - 1];
  for (int d = 0; ok && d < x->ndim - 2; d++) ok = x->shape[d] == y->shape[d];
  if (!ok)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected y of shape [..., n, k] matching x [..., n, n], received x: %s, y: %s",
                        op, pd_shape_str(x->ndim, x->shape, s1, sizeof s1),
                        pd_shape_str(y->ndim, y->shape, s2, sizeof s2));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
  pd_meta_like(m, y);
  return PD_OK;
}

pd_status pd_infer_solve(const void *args, pd_meta_list *out) {
  const pd_solve_args *a = (const pd_solve_args *)args;
  return infer_solve_like("solve", a->x, a->y, out);
}

pd_status pd_infer_triangular_solve(const void *args, pd_meta_list *out) {
  const pd_triangular_solve_args *a = (const pd_triangular_solve_args *)args;
  return infer_solve_like("triangular_solve", a->x, a->y, out);
}

/* ---------------------------------------------------------------- kernels */
/* Each kernel: one work buffer of `per` elements per thread, matrices split over nt threads
 * (linalg_batch.h); the failure with the smallest batch index is reported after the loop. */
#define PD_OMP_BATCH _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static)")
#define DEF_LINALG(SUF, T, P)                                                                      \
  /* matrix b of t (r x c) into col-major w (ld r) */                                              \
  static void load_##SUF(const pd_tensor *t, int64_t b, T *w) {                                    \
    const T *p = (const T *)pd_tensor_data(t) + batch_offset(t, b);                                \
    const int64_t r = t->shape[t->ndim - 2], c = t->shape[t->ndim - 1];                            \
    const int64_t sr = t->strides[t->ndim - 2], sc = t->strides[t->ndim - 1];                      \
    for (int64_t j = 0; j < c; j++)                                                                \
      for (int64_t i = 0; i < r; i++) w[i + j * r] = p[i * sr + j * sc];                           \
  }                                                                                                \
  /* col-major w (r x c) into contiguous row-major o */                                            \
  static void store_##SUF(const T *w, int64_t r, int64_t c, T *o) {                                \
    for (int64_t i = 0; i < r; i++)                                                                \
      for (int64_t j = 0; j < c; j++) o[i * c + j] = w[i + j * r];                                 \
  }                                                                                                \
  pd_status pd_kernel_inverse_##SUF(const void *args, pd_tensor **out, int n_out) {                \
    (void)n_out;                                                                                   \
    const pd_inverse_args *a = (const pd_inverse_args *)args;                                      \
    const int n = (int)a->x->shape[a->x->ndim - 1];                                                \
    const int64_t nb = batch_count(a->x);                                                          \
    if (n == 0 || nb == 0) return PD_OK;                                                           \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n * 2;                                                          \
    void *wsv;                                                                                     \
    int *pivs;                                                                                     \
    PD_TRY(pd_linalg_buffers("inverse", sizeof(T) * per, (size_t)n, nt, &wsv, &pivs));             \
    T *ws = (T *)wsv;                                                                              \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      const int tid = pd_linalg_tid();                                                             \
      T *w = ws + per * (size_t)tid, *e = w + (size_t)n * n;                                       \
      int *piv = pivs + (size_t)n * tid, info = 0;                                                 \
      load_##SUF(a->x, b, w);                                                                      \
      P##getrf_(&n, &n, w, &n, piv, &info);                                                        \
      if (info > 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, info);                                                  \
        continue;                                                                                  \
      }                                                                                            \
      memset(e, 0, sizeof(T) * (size_t)n * n);                                                     \
      for (int i = 0; i < n; i++) e[i + (size_t)i * n] = 1;                                        \
      P##getrs_("N", &n, &n, w, &n, piv, e, &n, &info, 1);                                         \
      store_##SUF(e, n, n, (T *)pd_tensor_data(out[0]) + b * n * n);                               \
    }                                                                                              \
    free(ws);                                                                                      \
    free(pivs);                                                                                    \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[inverse] the matrix (batch %lld) is singular", \
                          (long long)bad);                                                         \
    return PD_OK;                                                                                  \
  }                                                                                                \
  /* sign and log|det| of each matrix of x */                                                      \
  static pd_status slogdet_##SUF(const char *op, const pd_tensor *x, T *sgn, T *lad) {             \
    const int n = (int)x->shape[x->ndim - 1];                                                      \
    const int64_t nb = batch_count(x);                                                             \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n + 1;                                                          \
    void *wsv;                                                                                     \
    int *pivs;                                                                                     \
    PD_TRY(pd_linalg_buffers(op, sizeof(T) * per, (size_t)n + 1, nt, &wsv, &pivs));                \
    T *ws = (T *)wsv;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      const int tid = pd_linalg_tid();                                                             \
      T *w = ws + per * (size_t)tid;                                                               \
      int *piv = pivs + ((size_t)n + 1) * tid, info = 0;                                           \
      T sg = 1, l = 0;                                                                             \
      if (n > 0) {                                                                                 \
        load_##SUF(x, b, w);                                                                       \
        P##getrf_(&n, &n, w, &n, piv, &info);                                                      \
        for (int i = 0; i < n; i++) {                                                              \
          T d = w[i + (size_t)i * n];                                                              \
          if (piv[i] != i + 1) sg = -sg;                                                           \
          if (d < 0) sg = -sg;                                                                     \
          l += (T)log(fabs((double)d));                                                            \
        }                                                                                          \
        if (info > 0) {                                                                            \
          sg = 0;                                                                                  \
          l = (T)-INFINITY;                                                                        \
        }                                                                                          \
      }                                                                                            \
      sgn[b] = sg;                                                                                 \
      lad[b] = l;                                                                                  \
    }                                                                                              \
    free(ws);                                                                                      \
    free(pivs);                                                                                    \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_determinant_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                   \
    const pd_determinant_args *a = (const pd_determinant_args *)args;                              \
    const int64_t nb = batch_count(a->x);                                                          \
    T *tmp = malloc(sizeof(T) * (size_t)(nb + 1));                                                 \
    if (!tmp) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[determinant] out of memory");      \
    T *o = (T *)pd_tensor_data(out[0]);                                                            \
    pd_status s = slogdet_##SUF("determinant", a->x, o, tmp);                                      \
    for (int64_t b = 0; s == PD_OK && b < nb; b++) o[b] = o[b] * (T)exp((double)tmp[b]);           \
    free(tmp);                                                                                     \
    return s;                                                                                      \
  }                                                                                                \
  pd_status pd_kernel_slogdeterminant_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                   \
    const pd_slogdeterminant_args *a = (const pd_slogdeterminant_args *)args;                      \
    const int64_t nb = batch_count(a->x);                                                          \
    T *o = (T *)pd_tensor_data(out[0]);                                                            \
    return slogdet_##SUF("slogdeterminant", a->x, o, o + nb);                                      \
  }                                                                                                \
  pd_status pd_kernel_solve_##SUF(const void *args, pd_tensor **out, int n_out) {                  \
    (void)n_out;                                                                                   \
    const pd_solve_args *a = (const pd_solve_args *)args;                                          \
    const int n = (int)a->x->shape[a->x->ndim - 1], k = (int)a->y->shape[a->y->ndim - 1];          \
    const int64_t nb = batch_count(a->x);                                                          \
    if (n == 0 || k == 0 || nb == 0) return PD_OK;                                                 \
    const int nt = pd_linalg_threads(nb, n, n > k ? n : k);                                        \
    const size_t per = (size_t)n * n + (size_t)n * k;                                              \
    void *wsv;                                                                                     \
    int *pivs;                                                                                     \
    PD_TRY(pd_linalg_buffers("solve", sizeof(T) * per, (size_t)n, nt, &wsv, &pivs));               \
    T *ws = (T *)wsv;                                                                              \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      const int tid = pd_linalg_tid();                                                             \
      T *w = ws + per * (size_t)tid, *r = w + (size_t)n * n;                                       \
      int *piv = pivs + (size_t)n * tid, info = 0;                                                 \
      load_##SUF(a->x, b, w);                                                                      \
      P##getrf_(&n, &n, w, &n, piv, &info);                                                        \
      if (info > 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, info);                                                  \
        continue;                                                                                  \
      }                                                                                            \
      load_##SUF(a->y, b, r);                                                                      \
      P##getrs_("N", &n, &k, w, &n, piv, r, &n, &info, 1);                                         \
      store_##SUF(r, n, k, (T *)pd_tensor_data(out[0]) + b * (int64_t)n * k);                      \
    }                                                                                              \
    free(ws);                                                                                      \
    free(pivs);                                                                                    \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[solve] the matrix x (batch %lld) is singular", \
                          (long long)bad);                                                         \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_cholesky_##SUF(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                                   \
    const pd_cholesky_args *a = (const pd_cholesky_args *)args;                                    \
    const int n = (int)a->x->shape[a->x->ndim - 1];                                                \
    const int64_t nb = batch_count(a->x);                                                          \
    if (n == 0 || nb == 0) return PD_OK;                                                           \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n;                                                              \
    T *ws = malloc(sizeof(T) * per * (size_t)nt);                                                  \
    if (!ws) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[cholesky] out of memory");           \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      T *w = ws + per * (size_t)pd_linalg_tid();                                                   \
      int info = 0;                                                                                \
      load_##SUF(a->x, b, w);                                                                      \
      P##potrf_(a->upper ? "U" : "L", &n, w, &n, &info, 1);                                        \
      if (info > 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, info);                                                  \
        continue;                                                                                  \
      }                                                                                            \
      for (int j = 0; j < n; j++)                                                                  \
        for (int i = 0; i < n; i++)                                                                \
          if (a->upper ? i > j : i < j) w[i + (size_t)j * n] = 0;                                  \
      store_##SUF(w, n, n, (T *)pd_tensor_data(out[0]) + b * (int64_t)n * n);                      \
    }                                                                                              \
    free(ws);                                                                                      \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,                                                 \
                          "[cholesky] the matrix (batch %lld) is not positive definite (minor %d)", \
                          (long long)bad, bad_info);                                               \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_triangular_solve_##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                                   \
    const pd_triangular_solve_args *a = (const pd_triangular_solve_args *)args;                    \
    const int n = (int)a->x->shape[a->x->ndim - 1], k = (int)a->y->shape[a->y->ndim - 1];          \
    const int64_t nb = batch_count(a->x);                                                          \
    if (n == 0 || k == 0 || nb == 0) return PD_OK;                                                 \
    const int nt = pd_linalg_threads(nb, n, n > k ? n : k);                                        \
    const size_t per = (size_t)n * n + (size_t)n * k;                                              \
    T *ws = malloc(sizeof(T) * per * (size_t)nt);                                                  \
    if (!ws) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[triangular_solve] out of memory");   \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      T *w = ws + per * (size_t)pd_linalg_tid(), *r = w + (size_t)n * n;                           \
      int info = 0;                                                                                \
      load_##SUF(a->x, b, w);                                                                      \
      load_##SUF(a->y, b, r);                                                                      \
      P##trtrs_(a->upper ? "U" : "L", a->transpose ? "T" : "N", a->unitriangular ? "U" : "N", &n,  \
                &k, w, &n, r, &n, &info, 1, 1, 1);                                                 \
      if (info > 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, info);                                                  \
        continue;                                                                                  \
      }                                                                                            \
      store_##SUF(r, n, k, (T *)pd_tensor_data(out[0]) + b * (int64_t)n * k);                     \
    }                                                                                              \
    free(ws);                                                                                      \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,                                                 \
                          "[triangular_solve] the matrix x (batch %lld) is singular", (long long)bad); \
    return PD_OK;                                                                                  \
  }

DEF_LINALG(f32, float, s)
DEF_LINALG(f64, double, d)
