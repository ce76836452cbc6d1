/* Matrix decompositions (ops/linalg.yaml): qr, svd, eigh, eig and lu for float32/float64,
 * batched over leading dims, through OpenBLAS's Fortran LAPACK (geqrf/orgqr, gesvd, syev, geev,
 * getrf) on column-major copies (batches of small matrices split across threads, see
 * linalg_batch.h). Forward only: the ops are nondiff; paddle.linalg adds their gradients as
 * PyLayers (python/paddle/tensor/linalg_decomp.py). Also their infer_meta. */
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "linalg_batch.h"

#define LAPACK_DECL(P, T)                                                                          \
  extern void P##geqrf_(const int *m, const int *n, T *a, const int *lda, T *tau, T *work,         \
                        const int *lwork, int *info);                                              \
  extern void P##orgqr_(const int *m, const int *n, const int *k, T *a, const int *lda,            \
                        const T *tau, T *work, const int *lwork, int *info);                       \
  extern void P##gesvd_(const char *ju, const char *jv, const int *m, const int *n, T *a,          \
                        const int *lda, T *s, T *u, const int *ldu, T *vt, const int *ldvt,        \
                        T *work, const int *lwork, int *info, size_t l1, size_t l2);               \
  extern void P##syev_(const char *jz, const char *uplo, const int *n, T *a, const int *lda, T *w, \
                       T *work, const int *lwork, int *info, size_t l1, size_t l2);                \
  extern void P##geev_(const char *jl, const char *jr, const int *n, T *a, const int *lda, T *wr,  \
                       T *wi, T *vl, const int *ldvl, T *vr, const int *ldvr, T *work,             \
                       const int *lwork, int *info, size_t l1, size_t l2);                         \
  extern void P##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv, int *info);
LAPACK_DECL(s, float)
LAPACK_DECL(d, double)

static pd_status check_matrix(const char *op, const pd_tensor *x, int square) {
  char s[128];
  if (x->ndim < 2 || (square && x->shape[x->ndim - 1] != x->shape[x->ndim - 2]))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x to be a (batch of) %smatrices, received %s",
                        op, square ? "square " : "", pd_shape_str(x->ndim, x->shape, s, sizeof s));
  if ((x->shape[x->ndim - 1] > 46340 || x->shape[x->ndim - 2] > 46340) && !pd_trace_placeholders_active())
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] matrix too large", op);
  return PD_OK;
}


/* out meta: x's batch dims then d0 (, d1) */
static void set_bmeta(pd_meta *m, pd_dtype dt, const pd_tensor *x, int nd, int64_t d0, int64_t d1) {
  int64_t sh[PD_MAX_DIMS];
  int k = 0;
  for (int d = 0; d < x->ndim - 2; d++) sh[k++] = x->shape[d];
  sh[k++] = d0;
  if (nd == 2) sh[k++] = d1;
  pd_meta_set(m, dt, k, sh);
}

static pd_status want_mode(const char *op, const char *mode, int *complete) {
  if (strcmp(mode, "reduced") == 0 || strcmp(mode, "r") == 0) *complete = 0;
  else if (strcmp(mode, "complete") == 0) *complete = 1;
  else return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] mode must be 'reduced', 'complete' or 'r', received '%s'", op, mode);
  return PD_OK;
}

pd_status pd_infer_qr(const void *args, pd_meta_list *out) {
  const pd_qr_args *a = (const pd_qr_args *)args;
  int complete = 0;
  PD_TRY(check_matrix("qr", a->x, 0));
  PD_TRY(want_mode("qr", a->mode, &complete));
  const int64_t m = a->x->shape[a->x->ndim - 2], n = a->x->shape[a->x->ndim - 1], k = m < n ? m : n;
  pd_meta *o = pd_meta_list_resize(out, 2);
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[qr] out of memory");
  set_bmeta(&o[0], a->x->dtype, a->x, 2, m, complete ? m : k);
  set_bmeta(&o[1], a->x->dtype, a->x, 2, complete ? m : k, n);
  return PD_OK;
}

pd_status pd_infer_svd(const void *args, pd_meta_list *out) {
  const pd_svd_args *a = (const pd_svd_args *)args;
  PD_TRY(check_matrix("svd", a->x, 0));
  const int64_t m = a->x->shape[a->x->ndim - 2], n = a->x->shape[a->x->ndim - 1], k = m < n ? m : n;
  pd_meta *o = pd_meta_list_resize(out, 3);
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[svd] out of memory");
  set_bmeta(&o[0], a->x->dtype, a->x, 2, m, a->full_matrices ? m : k);
  set_bmeta(&o[1], a->x->dtype, a->x, 1, k, 0);
  set_bmeta(&o[2], a->x->dtype, a->x, 2, a->full_matrices ? n : k, n);
  return PD_OK;
}

pd_status pd_infer_eigh(const void *args, pd_meta_list *out) {
  const pd_eigh_args *a = (const pd_eigh_args *)args;
  PD_TRY(check_matrix("eigh", a->x, 1));
  if (strcmp(a->UPLO, "L") != 0 && strcmp(a->UPLO, "U") != 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[eigh] UPLO must be 'L' or 'U', received '%s'", a->UPLO);
  const int64_t n = a->x->shape[a->x->ndim - 1];
  pd_meta *o = pd_meta_list_resize(out, 2);
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[eigh] out of memory");
  /* complex Hermitian input: real eigenvalues, complex eigenvectors (linalg_complex.c) */
  const pd_dtype wt = a->x->dtype == PD_COMPLEX64 ? PD_FLOAT32 : a->x->dtype == PD_COMPLEX128 ? PD_FLOAT64 : a->x->dtype;
  set_bmeta(&o[0], wt, a->x, 1, n, 0);
  set_bmeta(&o[1], a->x->dtype, a->x, 2, n, n);
  return PD_OK;
}

pd_status pd_infer_eig(const void *args, pd_meta_list *out) {
  const pd_eig_args *a = (const pd_eig_args *)args;
  PD_TRY(check_matrix("eig", a->x, 1));
  const int64_t n = a->x->shape[a->x->ndim - 1];
  const pd_dtype ct = (a->x->dtype == PD_FLOAT32 || a->x->dtype == PD_COMPLEX64) ? PD_COMPLEX64 : PD_COMPLEX128;
  pd_meta *o = pd_meta_list_resize(out, 2);
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[eig] out of memory");
  set_bmeta(&o[0], ct, a->x, 1, n, 0);
  set_bmeta(&o[1], ct, a->x, 2, n, n);
  return PD_OK;
}

pd_status pd_infer_lu(const void *args, pd_meta_list *out) {
  const pd_lu_args *a = (const pd_lu_args *)args;
  PD_TRY(check_matrix("lu", a->x, 0));
  const int64_t m = a->x->shape[a->x->ndim - 2], n = a->x->shape[a->x->ndim - 1], k = m < n ? m : n;
  pd_meta *o = pd_meta_list_resize(out, 3);
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[lu] out of memory");
  pd_meta_like(&o[0], a->x);
  set_bmeta(&o[1], PD_INT32, a->x, 1, k, 0);
  int64_t sh[PD_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < a->x->ndim - 2; d++) sh[nd++] = a->x->shape[d];
  if (nd == 0) sh[nd++] = 1;
  pd_meta_set(&o[2], PD_INT32, nd, sh);
  return PD_OK;
}

/* Each kernel: one work area of `per` elements per thread (the LAPACK workspace size is queried
 * once), matrices split over nt threads (linalg_batch.h); the failure with the smallest batch
 * index is reported after the loop. */
#define PD_OMP_BATCH _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static)")
#define DEF_DECOMP(SUF, T, P)                                                                      \
  static void ld_##SUF(const pd_tensor *t, int64_t b, T *w) {                                      \
    const T *p = (const T *)pd_tensor_data(t) + pd_linalg_boff(t, b);                                        \
    const int64_t r = t->shape[t->ndim - 2], c = t->shape[t->ndim - 1];                            \
    const int64_t sr = t->strides[t->ndim - 2], sc = t->strides[t->ndim - 1];                      \
    for (int64_t j = 0; j < c; j++)                                                                \
      for (int64_t i = 0; i < r; i++) w[i + j * r] = p[i * sr + j * sc];                           \
  }                                                                                                \
  /* col-major w (leading dim ld) rows r, cols c -> row-major o; lower: zero below row j's diag */ \
  static void st_##SUF(const T *w, int64_t ld, int64_t r, int64_t c, T *o, int upper_only) {       \
    for (int64_t i = 0; i < r; i++)                                                                \
      for (int64_t j = 0; j < c; j++) o[i * c + j] = (upper_only && i > j) ? 0 : w[i + j * ld];    \
  }                                                                                                \
  static pd_status oom_##SUF(const char *op) {                                                     \
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);                      \
  }                                                                                                \
  pd_status pd_kernel_qr_##SUF(const void *args, pd_tensor **out, int n_out) {                     \
    (void)n_out;                                                                                   \
    const pd_qr_args *a = (const pd_qr_args *)args;                                                \
    const int m = (int)a->x->shape[a->x->ndim - 2], n = (int)a->x->shape[a->x->ndim - 1];          \
    const int k = m < n ? m : n, qc = (int)out[0]->shape[out[0]->ndim - 1];                        \
    const int rr = (int)out[1]->shape[out[1]->ndim - 2];                                           \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    if (nb == 0 || m == 0 || n == 0) return PD_OK;                                                 \
    const int wc = qc > n ? qc : n;                                                                \
    T q1, dummy = 0;                                                                               \
    int info = 0, lw = -1, lw2 = -1;                                                               \
    P##geqrf_(&m, &n, &dummy, &m, &dummy, &q1, &lw, &info);                                        \
    lw = (int)q1 + 1;                                                                              \
    P##orgqr_(&m, &qc, &k, &dummy, &m, &dummy, &q1, &lw2, &info);                                  \
    if ((int)q1 + 1 > lw) lw = (int)q1 + 1;                                                        \
    const int nt = pd_linalg_threads(nb, m, n);                                                    \
    const size_t per = (size_t)m * wc + (size_t)k + 1 + (size_t)lw;                                \
    T *ws = malloc(sizeof(T) * per * (size_t)nt);                                                  \
    if (!ws) return oom_##SUF("qr");                                                               \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      T *w = ws + per * (size_t)pd_linalg_tid(), *tau = w + (size_t)m * wc, *work = tau + k + 1;   \
      int inf = 0;                                                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##geqrf_(&m, &n, w, &m, tau, work, &lw, &inf);                                              \
      T *ro = (T *)pd_tensor_data(out[1]) + b * (int64_t)rr * n;                                   \
      memset(ro, 0, sizeof(T) * (size_t)rr * n);                                                   \
      st_##SUF(w, m, k, n, ro, 1);                                                                 \
      P##orgqr_(&m, &qc, &k, w, &m, tau, work, &lw, &inf);                                         \
      st_##SUF(w, m, m, qc, (T *)pd_tensor_data(out[0]) + b * (int64_t)m * qc, 0);                 \
    }                                                                                              \
    free(ws);                                                                                      \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_svd_##SUF(const void *args, pd_tensor **out, int n_out) {                    \
    (void)n_out;                                                                                   \
    const pd_svd_args *a = (const pd_svd_args *)args;                                              \
    const int m = (int)a->x->shape[a->x->ndim - 2], n = (int)a->x->shape[a->x->ndim - 1];          \
    const int k = m < n ? m : n, uc = a->full_matrices ? m : k, vr = a->full_matrices ? n : k;     \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    if (nb == 0 || m == 0 || n == 0) return PD_OK;                                                 \
    const char *job = a->full_matrices ? "A" : "S";                                                \
    T q1, dummy = 0;                                                                               \
    int info = 0, lw = -1;                                                                         \
    P##gesvd_(job, job, &m, &n, &dummy, &m, &dummy, &dummy, &m, &dummy, &vr, &q1, &lw, &info, 1, 1); \
    lw = (int)q1 + 1;                                                                              \
    const int nt = pd_linalg_threads(nb, m, n);                                                    \
    const size_t per = (size_t)m * n + (size_t)m * uc + (size_t)vr * n + k + (size_t)lw;           \
    T *ws = malloc(sizeof(T) * per * (size_t)nt);                                                  \
    if (!ws) return oom_##SUF("svd");                                                              \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      T *w = ws + per * (size_t)pd_linalg_tid();                                                   \
      T *u = w + (size_t)m * n, *vt = u + (size_t)m * uc, *s = vt + (size_t)vr * n, *work = s + k; \
      int inf = 0;                                                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##gesvd_(job, job, &m, &n, w, &m, s, u, &m, vt, &vr, work, &lw, &inf, 1, 1);                \
      if (inf != 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, inf);                                                   \
        continue;                                                                                  \
      }                                                                                            \
      st_##SUF(u, m, m, uc, (T *)pd_tensor_data(out[0]) + b * (int64_t)m * uc, 0);                 \
      memcpy((T *)pd_tensor_data(out[1]) + b * (int64_t)k, s, sizeof(T) * (size_t)k);              \
      st_##SUF(vt, vr, vr, n, (T *)pd_tensor_data(out[2]) + b * (int64_t)vr * n, 0);               \
    }                                                                                              \
    free(ws);                                                                                      \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[svd] the SVD did not converge (batch %lld)",  \
                          (long long)bad);                                                         \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_eigh_##SUF(const void *args, pd_tensor **out, int n_out) {                   \
    (void)n_out;                                                                                   \
    const pd_eigh_args *a = (const pd_eigh_args *)args;                                            \
    const int n = (int)a->x->shape[a->x->ndim - 1];                                                \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    if (nb == 0 || n == 0) return PD_OK;                                                           \
    T q1, dummy = 0;                                                                               \
    int info = 0, lw = -1;                                                                         \
    P##syev_("V", a->UPLO, &n, &dummy, &n, &dummy, &q1, &lw, &info, 1, 1);                         \
    lw = (int)q1 + 1;                                                                              \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n + (size_t)n + (size_t)lw;                                     \
    T *ws = malloc(sizeof(T) * per * (size_t)nt);                                                  \
    if (!ws) return oom_##SUF("eigh");                                                             \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      T *w = ws + per * (size_t)pd_linalg_tid(), *ev = w + (size_t)n * n, *work = ev + n;          \
      int inf = 0;                                                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##syev_("V", a->UPLO, &n, w, &n, ev, work, &lw, &inf, 1, 1);                                \
      if (inf != 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, inf);                                                   \
        continue;                                                                                  \
      }                                                                                            \
      memcpy((T *)pd_tensor_data(out[0]) + b * (int64_t)n, ev, sizeof(T) * (size_t)n);             \
      st_##SUF(w, n, n, n, (T *)pd_tensor_data(out[1]) + b * (int64_t)n * n, 0);                   \
    }                                                                                              \
    free(ws);                                                                                      \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[eigh] did not converge (batch %lld)",         \
                          (long long)bad);                                                         \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_eig_##SUF(const void *args, pd_tensor **out, int n_out) {                    \
    (void)n_out;                                                                                   \
    const pd_eig_args *a = (const pd_eig_args *)args;                                              \
    const int n = (int)a->x->shape[a->x->ndim - 1], one = 1;                                       \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    if (nb == 0 || n == 0) return PD_OK;                                                           \
    T q1, dummy = 0;                                                                               \
    int info = 0, lw = -1;                                                                         \
    P##geev_("N", "V", &n, &dummy, &n, &dummy, &dummy, &dummy, &one, &dummy, &n, &q1, &lw, &info, 1, 1); \
    lw = (int)q1 + 1;                                                                              \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n * 2 + (size_t)n * 2 + 1 + (size_t)lw;                         \
    T *ws = malloc(sizeof(T) * per * (size_t)nt);                                                  \
    if (!ws) return oom_##SUF("eig");                                                              \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      T *w = ws + per * (size_t)pd_linalg_tid(), *vr = w + (size_t)n * n, *wr = vr + (size_t)n * n; \
      T *wi = wr + n, *vl = wi + n, *work = vl + 1;                                                \
      int inf = 0;                                                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##geev_("N", "V", &n, w, &n, wr, wi, vl, &one, vr, &n, work, &lw, &inf, 1, 1);              \
      if (inf != 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, inf);                                                   \
        continue;                                                                                  \
      }                                                                                            \
      T *eo = (T *)pd_tensor_data(out[0]) + b * (int64_t)n * 2;                                    \
      T *vo = (T *)pd_tensor_data(out[1]) + b * (int64_t)n * n * 2;                                \
      for (int j = 0; j < n; j++) {                                                                \
        eo[2 * j] = wr[j];                                                                         \
        eo[2 * j + 1] = wi[j];                                                                     \
      }                                                                                            \
      for (int j = 0; j < n; j++) {                                                                \
        const int pair = wi[j] != 0 && j + 1 < n;                                                  \
        for (int i = 0; i < n; i++) {                                                              \
          T re = vr[i + (size_t)j * n], im = pair ? vr[i + (size_t)(j + 1) * n] : 0;               \
          vo[2 * ((size_t)i * n + j)] = re;                                                        \
          vo[2 * ((size_t)i * n + j) + 1] = im;                                                    \
          if (pair) {                                                                              \
            vo[2 * ((size_t)i * n + j + 1)] = re;                                                  \
            vo[2 * ((size_t)i * n + j + 1) + 1] = -im;                                             \
          }                                                                                        \
        }                                                                                          \
        if (pair) j++;                                                                             \
      }                                                                                            \
    }                                                                                              \
    free(ws);                                                                                      \
    if (bad >= 0)                                                                                  \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[eig] did not converge (batch %lld)",          \
                          (long long)bad);                                                         \
    return PD_OK;                                                                                  \
  }                                                                                                \
  pd_status pd_kernel_lu_##SUF(const void *args, pd_tensor **out, int n_out) {                     \
    (void)n_out;                                                                                   \
    const pd_lu_args *a = (const pd_lu_args *)args;                                                \
    const int m = (int)a->x->shape[a->x->ndim - 2], n = (int)a->x->shape[a->x->ndim - 1];          \
    const int k = m < n ? m : n;                                                                   \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    int32_t *infos = (int32_t *)pd_tensor_data(out[2]);                                            \
    if (nb == 0) return PD_OK;                                                                     \
    if (m == 0 || n == 0) {                                                                        \
      for (int64_t b = 0; b < nb; b++) infos[b] = 0;                                               \
      return PD_OK;                                                                                \
    }                                                                                              \
    const int nt = pd_linalg_threads(nb, m, n);                                                    \
    void *wsv;                                                                                     \
    int *pivs;                                                                                     \
    PD_TRY(pd_linalg_buffers("lu", sizeof(T) * (size_t)m * n, (size_t)k, nt, &wsv, &pivs));        \
    T *ws = (T *)wsv;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      const int tid = pd_linalg_tid();                                                             \
      T *w = ws + (size_t)m * n * tid;                                                             \
      int *piv = pivs + (size_t)k * tid, info = 0;                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##getrf_(&m, &n, w, &m, piv, &info);                                                        \
      st_##SUF(w, m, m, n, (T *)pd_tensor_data(out[0]) + b * (int64_t)m * n, 0);                   \
      int32_t *po = (int32_t *)pd_tensor_data(out[1]) + b * (int64_t)k;                            \
      for (int i = 0; i < k; i++) po[i] = piv[i];                                                  \
      infos[b] = info;                                                                             \
    }                                                                                              \
    free(ws);                                                                                      \
    free(pivs);                                                                                    \
    return PD_OK;                                                                                  \
  }

DEF_DECOMP(f32, float, s)
DEF_DECOMP(f64, double, d)
