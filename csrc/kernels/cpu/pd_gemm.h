/* Row-major float32/float64/complex GEMM, C = op(A) op(B), with the matmul kernel's backend
 * policy (oneDNN sgemm when M or K < 256, OpenBLAS otherwise; see docs/architecture.md "Threads
 * and GEMM"), threaded over the OpenMP pool. Defined in matmul.c. M, N, K must be > 0. */
#ifndef PD_GEMM_H
#define PD_GEMM_H
#include <stdint.h>
#include "../../core/pd_dtype.h"

void pd_gemm(pd_dtype dt, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
             const void *B, int64_t ldb, void *C, int64_t ldc);

#endif
