/* Small-M GEMM against a pre-packed right operand, for the per-step products of the recurrences
 * (M = batch, the weights reused for every step): C[M, N] (+)= A[M, K] B[K, N] with B packed once
 * per call into panels of PD_RNN_NR columns (zero-padded). float32 runs 6x16 AVX2/FMA register
 * tiles (no per-call packing as in a general sgemm); float64 and builds without AVX2 run plain
 * loops. Single-threaded: each thread of a recurrence calls it for its own slice. */
#ifndef PD_RNN_GEMM_H
#define PD_RNN_GEMM_H
#include <stddef.h>
#include <stdint.h>

#define PD_RNN_NR 16

/* elements of a packed B with K rows and N columns */
static inline size_t pd_rnn_packed_len(int64_t K, int64_t N) {
  return (size_t)K * (size_t)((N + PD_RNN_NR - 1) / PD_RNN_NR * PD_RNN_NR);
}
/* P <- B where B[k][n] = W[k * sk + n * sn] */
void pd_rnn_pack_f32(const float *W, int64_t K, int64_t N, int64_t sk, int64_t sn, float *P);
void pd_rnn_pack_f64(const double *W, int64_t K, int64_t N, int64_t sk, int64_t sn, double *P);
/* C = A B (acc = 0) or C += A B (acc = 1); A row-major with leading dimension lda. */
void pd_rnn_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                     int64_t ldc, int acc);
void pd_rnn_gemm_f64(int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, const double *P, double *C,
                     int64_t ldc, int acc);

#endif
