/* Complex kernels of the eigen decompositions (ops/linalg.yaml eigh, eig): complex64/complex128
 * through OpenBLAS's Fortran LAPACK (cheev/zheev for Hermitian matrices, cgeev/zgeev for general
 * ones) on column-major copies, batched as the real kernels of linalg_decomp.c (linalg_batch.h).
 * eigh gives real eigenvalues (ascending) and unit eigenvectors; eig gives LAPACK's eigenvalue
 * order (as Paddle, which calls geev too) and unit right eigenvectors. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "linalg_batch.h"

#define LAPACK_CDECL(P, C, R)                                                                      \
  extern void P##heev_(const char *jz, const char *uplo, const int *n, C *a, const int *lda, R *w, \
                       C *work, const int *lwork, R *rwork, int *info, size_t l1, size_t l2);      \
  extern void P##geev_(const char *jl, const char *jr, const int *n, C *a, const int *lda, C *w,   \
                       C *vl, const int *ldvl, C *vr, const int *ldvr, C *work, const int *lwork,  \
                       R *rwork, int *info, size_t l1, size_t l2);
LAPACK_CDECL(c, pd_complex64, float)
LAPACK_CDECL(z, pd_complex128, double)


/* The per-thread workspaces of one batched decomposition: nt blocks of `per` complex and `rper`
 * real elements (csz/rsz bytes each). 0 when both were allocated. */
static int cws_alloc(void **ws, size_t csz, size_t per, void **rws, size_t rsz, size_t rper, int nt) {
  *ws = malloc(csz * per * (size_t)nt);
  *rws = malloc(rsz * rper * (size_t)nt);
  if (*ws && *rws) return 0;
  free(*ws);
  free(*rws);
  return -1;
}

/* frees the workspaces; the op's error when a batch element did not converge (bad >= 0) */
static pd_status cws_finish(void *ws, void *rws, int64_t bad, const char *op) {
  free(ws);
  free(rws);
  if (bad >= 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] did not converge (batch %lld)", op, (long long)bad);
  return PD_OK;
}

#define PD_OMP_BATCH _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static)")
#define DEF_CDECOMP(SUF, C, R, P)                                                                  \
  static void ld_##SUF(const pd_tensor *t, int64_t b, C *w) {                                      \
    const C *p = (const C *)pd_tensor_data(t) + pd_linalg_boff(t, b);                                        \
    const int64_t n = t->shape[t->ndim - 1];                                                       \
    const int64_t sr = t->strides[t->ndim - 2], sc = t->strides[t->ndim - 1];                      \
    for (int64_t j = 0; j < n; j++)                                                                \
      for (int64_t i = 0; i < n; i++) w[i + j * n] = p[i * sr + j * sc];                           \
  }                                                                                                \
  static void st_##SUF(const C *w, int64_t n, C *o) {                                              \
    for (int64_t i = 0; i < n; i++)                                                                \
      for (int64_t j = 0; j < n; j++) o[i * n + j] = w[i + j * n];                                 \
  }                                                                                                \
  pd_status pd_kernel_eigh_##SUF(const void *args, pd_tensor **out, int n_out) {                   \
    (void)n_out;                                                                                   \
    const pd_eigh_args *a = (const pd_eigh_args *)args;                                            \
    const int n = (int)a->x->shape[a->x->ndim - 1];                                                \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    if (nb == 0 || n == 0) return PD_OK;                                                           \
    C q1, dummy = 0;                                                                               \
    R rdummy = 0;                                                                                  \
    int info = 0, lw = -1;                                                                         \
    P##heev_("V", a->UPLO, &n, &dummy, &n, &rdummy, &q1, &lw, &rdummy, &info, 1, 1);               \
    lw = (int)creal(q1) + 1;                                                                       \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n + (size_t)lw;                                                 \
    const size_t rper = (size_t)n + (size_t)(3 * n);                                               \
    void *wsv, *rwsv;                                                                              \
    if (cws_alloc(&wsv, sizeof(C), per, &rwsv, sizeof(R), rper, nt))                               \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[eigh] out of memory");                      \
    C *ws = wsv;                                                                                   \
    R *rws = rwsv;                                                                                 \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      const int tid = pd_linalg_tid();                                                             \
      C *w = ws + per * (size_t)tid, *work = w + (size_t)n * n;                                    \
      R *ev = rws + rper * (size_t)tid, *rwork = ev + n;                                           \
      int inf = 0;                                                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##heev_("V", a->UPLO, &n, w, &n, ev, work, &lw, rwork, &inf, 1, 1);                         \
      if (inf != 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, inf);                                                   \
        continue;                                                                                  \
      }                                                                                            \
      memcpy((R *)pd_tensor_data(out[0]) + b * (int64_t)n, ev, sizeof(R) * (size_t)n);             \
      st_##SUF(w, n, (C *)pd_tensor_data(out[1]) + b * (int64_t)n * n);                            \
    }                                                                                              \
    return cws_finish(ws, rws, bad, "eigh");                                                      \
  }                                                                                                \
  pd_status pd_kernel_eig_##SUF(const void *args, pd_tensor **out, int n_out) {                    \
    (void)n_out;                                                                                   \
    const pd_eig_args *a = (const pd_eig_args *)args;                                              \
    const int n = (int)a->x->shape[a->x->ndim - 1], one = 1;                                       \
    const int64_t nb = pd_linalg_nbatch(a->x);                                                               \
    if (nb == 0 || n == 0) return PD_OK;                                                           \
    C q1, dummy = 0;                                                                               \
    R rdummy = 0;                                                                                  \
    int info = 0, lw = -1;                                                                         \
    P##geev_("N", "V", &n, &dummy, &n, &dummy, &dummy, &one, &dummy, &n, &q1, &lw, &rdummy, &info, \
             1, 1);                                                                                \
    lw = (int)creal(q1) + 1;                                                                       \
    const int nt = pd_linalg_threads(nb, n, n);                                                    \
    const size_t per = (size_t)n * n * 2 + (size_t)n + 1 + (size_t)lw;                             \
    const size_t rper = (size_t)(2 * n);                                                           \
    void *wsv, *rwsv;                                                                              \
    if (cws_alloc(&wsv, sizeof(C), per, &rwsv, sizeof(R), rper, nt))                               \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[eig] out of memory");                      \
    C *ws = wsv;                                                                                   \
    R *rws = rwsv;                                                                                 \
    int64_t bad = -1;                                                                              \
    int bad_info = 0;                                                                              \
    PD_OMP_BATCH                                                                                   \
    for (int64_t b = 0; b < nb; b++) {                                                             \
      const int tid = pd_linalg_tid();                                                             \
      C *w = ws + per * (size_t)tid, *vr = w + (size_t)n * n, *ev = vr + (size_t)n * n;            \
      C *vl = ev + n, *work = vl + 1;                                                              \
      R *rwork = rws + rper * (size_t)tid;                                                         \
      int inf = 0;                                                                                 \
      ld_##SUF(a->x, b, w);                                                                        \
      P##geev_("N", "V", &n, w, &n, ev, vl, &one, vr, &n, work, &lw, rwork, &inf, 1, 1);           \
      if (inf != 0) {                                                                              \
        pd_linalg_fail(&bad, &bad_info, b, inf);                                                   \
        continue;                                                                                  \
      }                                                                                            \
      memcpy((C *)pd_tensor_data(out[0]) + b * (int64_t)n, ev, sizeof(C) * (size_t)n);             \
      st_##SUF(vr, n, (C *)pd_tensor_data(out[1]) + b * (int64_t)n * n);                           \
    }                                                                                              \
    return cws_finish(ws, rws, bad, "eig");                                                      \
  }

DEF_CDECOMP(c64, pd_complex64, float, c)
DEF_CDECOMP(c128, pd_complex128, double, z)
