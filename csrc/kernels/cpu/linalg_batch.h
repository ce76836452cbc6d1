/* Batch splitting shared by the LAPACK kernels (linalg.c, linalg_decomp.c): a batch of small
 * matrices runs one matrix per OpenMP thread (each thread with its own work buffer) when there
 * are at least as many matrices as threads; otherwise matrices run one after another and
 * OpenBLAS threads inside each call. Inside our parallel region OpenBLAS (OpenMP build) sees
 * omp_in_parallel() and stays single-threaded, so the pool is never oversubscribed. */
#ifndef PD_LINALG_BATCH_H
#define PD_LINALG_BATCH_H
#include <stdint.h>
#include <stdlib.h>
#include "../../core/pd_status.h"
#include "../../core/pd_tensor.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* the number of matrices in a batch (the dims before the last two) */
static inline int64_t pd_linalg_nbatch(const pd_tensor *t) {
  int64_t b = 1;
  for (int d = 0; d < t->ndim - 2; d++) b *= t->shape[d];
  return b;
}

/* the element offset of matrix b of a (possibly strided) batch */
static inline int64_t pd_linalg_boff(const pd_tensor *t, int64_t b) {
  int64_t off = 0;
  for (int d = t->ndim - 3; d >= 0; d--) {
    off += (b % t->shape[d]) * t->strides[d];
    b /= t->shape[d];
  }
  return off;
}

/* matrices up to this size (max of rows, cols) count as small */
#define PD_LINALG_SMALL 128

/* the number of threads for nb matrices of m x n (1: run sequentially) */
static inline int pd_linalg_threads(int64_t nb, int64_t m, int64_t n) {
#ifdef _OPENMP
  if (omp_in_parallel() || m > PD_LINALG_SMALL || n > PD_LINALG_SMALL) return 1;
  int nt = omp_get_max_threads();
  return nt > 1 && nb >= nt ? nt : 1;
#else
  (void)nb, (void)m, (void)n;
  return 1;
#endif
}

/* Per-thread work buffers of a batched LAPACK kernel: ws_bytes of matrix workspace and npiv
 * pivots for each of nt threads (free() both); on failure neither is kept and the error is
 * "[op] out of memory". */
static inline pd_status pd_linalg_buffers(const char *op, size_t ws_bytes, size_t npiv, int nt, void **ws,
                                          int **pivs) {
  *ws = malloc(ws_bytes * (size_t)nt);
  *pivs = (int *)malloc(sizeof(int) * npiv * (size_t)nt);
  if (*ws && *pivs) return PD_OK;
  free(*ws);
  free(*pivs);
  *ws = NULL;
  *pivs = NULL;
  return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
}

/* this thread's index in the region (0 outside one) */
static inline int pd_linalg_tid(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* keeps the failure of the smallest batch index b (and its LAPACK info) over threads;
 * *bad < 0: none yet */
static inline void pd_linalg_fail(int64_t *bad, int *bad_info, int64_t b, int info) {
#ifdef _OPENMP
#pragma omp critical(pd_linalg_fail)
#endif
  {
    if (*bad < 0 || b < *bad) {
      *bad = b;
      *bad_info = info;
    }
  }
}

#endif
