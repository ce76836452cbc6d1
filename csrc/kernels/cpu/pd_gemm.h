/* Row-major float32/float64/complex GEMM, C = op(A) op(B), with the matmul kernel's backend
 * policy (oneDNN sgemm when M or K < 256, OpenBLAS otherwise; see docs/arch/core.md "Threads
 * and GEMM"), threaded over the OpenMP pool. Defined in matmul.c. M, N, K must be > 0. */
#ifndef PD_GEMM_H
#define PD_GEMM_H
#include <stdint.h>
#include "../../core/pd_dtype.h"

void pd_gemm(pd_dtype dt, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
             const void *B, int64_t ldb, void *C, int64_t ldc);
/* 1 when pd_gemm sends this float32 geometry to oneDNN, 0 when to OpenBLAS (the policy above, per
 * ISA copy: on AVX-512 without OpenBLAS AVX-512 kernels always oneDNN) */
int pd_gemm_f32_on_dnnl(int ta, int tb, int64_t M, int64_t N, int64_t K, int64_t ldb);

/* bfloat16 GEMM on the CPU's bf16 units (gemm_bf16.c: oneDNN's matmul primitive, cached by
 * geometry): for b < batch, C_b = op(A_b) op(B_b) with A_b = A + b * sa (elements; sa = 0: every
 * batch shares A), likewise B (sb) and C (sc); A and B bfloat16 (op: transposed when ta / tb, i.e.
 * stored column-major with leading dimension lda / ldb), C bfloat16, or float32 when c_f32; float32
 * accumulation. Called inside an OpenMP parallel region it runs on the calling thread. Returns 1
 * when done, 0 when not (no units, PADDLE_C_BF16_UNITS=0, oneDNN declined the geometry or out of
 * memory): the caller then computes another way. */
/* y[N] = x[K] @ W[K][N], float32, W row-major (ldw = N): a vector times a large matrix (an fc layer at
 * batch 1), bound by reading W once. The threads take contiguous ranges of W's rows (each one
 * sequential stream, where splitting the columns gives every thread K short strided runs), partial
 * sums in the caching allocator's scratch, added in the end. Returns 0 (declined: no memory for the
 * partial sums, or PADDLE_C_FC_GEMV=0, read per call), 1 when y holds the product. */
int pd_gemv_rows_f32(const float *x, const float *W, int64_t K, int64_t N, float *y);
int pd_gemm_bf16(int ta, int tb, int64_t batch, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
                 int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc, int64_t sc, int c_f32);
/* The same over two batch dims with explicit strides (elements): C[i, j] = A[i, j] B[i, j] for
 * i < batch[0], j < batch[1], where operand X's element (i, j, r, c) is at X + i xs[0] + j xs[1] +
 * r xs[2] + c xs[3] (a transpose is a stride swap); A / B batch strides 0: broadcast; C's give
 * where each product goes (0 for a batch dim of size 1). The attention core's per-head products
 * on [B, T, E] projections are one call each. A = NULL: only asks whether the geometry would run
 * (builds and caches the primitive). */
int pd_gemm_bf16_strided(const int64_t batch[2], int64_t M, int64_t N, int64_t K, const void *A, const int64_t as[4],
                         const void *B, const int64_t bs[4], void *C, const int64_t cs[4], int c_f32);
/* float32 C = op(A) op(B) through oneDNN's matmul primitive (the same cache as pd_gemm_bf16; brgemm
 * kernels) in place of its sgemm: 1 when done, 0 when oneDNN declined or out of memory. */
int pd_gemm_f32_prim(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                     int64_t ldb, float *C, int64_t ldc);
/* 1 when pd_gemm_bf16 runs on the units: pd_isa_bf16_units() (cpuid), oneDNN not capped below
 * avx512_core_bf16 (ONEDNN_MAX_CPU_ISA) and PADDLE_C_BF16_UNITS != 0 (read once) */
int pd_gemm_bf16_units(void);
/* switches the units path on (where the CPU has them) or off; returns the previous state (tests) */
int pd_gemm_bf16_set(int on);

#endif
