/* Packed small-M GEMM of the recurrence kernels (rnn_gemm.h). Measured on the target machine
 * (1 thread, M = 20): 20x512x256 (B transposed) 2.1 ms vs 2.8 ms in oneDNN's sgemm for 35 steps,
 * 20x128x1024 2.1 vs 2.55 ms (87 vs 66-72 GFLOP/s): a general sgemm repacks the weights on every
 * call, which a batch of 20 rows does not amortise. */
#include "rnn_gemm.h"
#include <string.h>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define RNN_AVX2 1
#endif

#define NR PD_RNN_NR

#define DEF_PACK(SUF, R)                                                                           \
  void pd_rnn_pack_##SUF(const R *W, int64_t K, int64_t N, int64_t sk, int64_t sn, R *P) {         \
    for (int64_t n0 = 0; n0 < N; n0 += NR) {                                                     \
      const int64_t nc = N - n0 < NR ? N - n0 : NR;                                              \
      R *pp = P + n0 * K;                                                                        \
      for (int64_t k = 0; k < K; k++) {                                                          \
        const R *w = W + k * sk + n0 * sn;                                                       \
        for (int64_t c = 0; c < nc; c++) pp[k * NR + c] = w[c * sn];                             \
        for (int64_t c = nc; c < NR; c++) pp[k * NR + c] = 0;                                    \
      }                                                                                          \
    }                                                                                            \
  }
DEF_PACK(f32, float)
DEF_PACK(f64, double)

/* Plain loops: float64, and float32 without AVX2/FMA. One panel, rows [0, M). */
#define DEF_PANEL(SUF, R)                                                                                     \
  static void panel_##SUF(int64_t M, int64_t nc, int64_t K, const R *A, int64_t lda, const R *pp, R *C,      \
                          int64_t ldc, int acc) {                                                             \
    for (int64_t i = 0; i < M; i++) {                                                                         \
      R t[NR] = {0};                                                                                          \
      for (int64_t k = 0; k < K; k++) {                                                                       \
        const R a = A[i * lda + k];                                                                           \
        for (int c = 0; c < NR; c++) t[c] += a * pp[k * NR + c];                                              \
      }                                                                                                       \
      for (int64_t c = 0; c < nc; c++) C[i * ldc + c] = acc ? C[i * ldc + c] + t[c] : t[c];                  \
    }                                                                                                         \
  }
DEF_PANEL(f64, double)
#ifndef RNN_AVX2
DEF_PANEL(f32, float)
#endif

void pd_rnn_gemm_f64(int64_t M, int64_t N, int64_t K, const double *A, int64_t lda, const double *P, double *C,
                     int64_t ldc, int acc) {
  for (int64_t n0 = 0; n0 < N; n0 += NR)
    panel_f64(M, N - n0 < NR ? N - n0 : NR, K, A, lda, P + n0 * K, C + n0, ldc, acc);
}

#if defined(__AVX512F__)
/* AVX-512 copy: two adjacent 16-column panels at once (the packing and the threads' slices are
 * the AVX2 copy's), rows in blocks of up to 12: 2 zmm accumulators per row (24 of 32 registers),
 * per k two panel loads and one broadcast per row feed 2*MR FMAs. The AVX2 kernel below on this
 * CPU ran 256-bit FMAs at about half the 512-bit peak (46% of an LSTM fwd+bwd step). */
#define ZFMA(n, r)                                                \
  if (mr_ > r) {                                                  \
    const __m512 a = _mm512_set1_ps(A[r * lda + k]);              \
    c##n##0 = _mm512_fmadd_ps(a, b0, c##n##0);                    \
    if (two) c##n##1 = _mm512_fmadd_ps(a, b1, c##n##1);           \
  }
#define ZST(n, r)                                                                           \
  if (mr_ > r) {                                                                            \
    if (acc) {                                                                              \
      c##n##0 = _mm512_add_ps(c##n##0, _mm512_loadu_ps(C + r * ldc));                       \
      if (two) c##n##1 = _mm512_add_ps(c##n##1, _mm512_loadu_ps(C + r * ldc + NR));        \
    }                                                                                       \
    _mm512_storeu_ps(C + r * ldc, c##n##0);                                                 \
    if (two) _mm512_storeu_ps(C + r * ldc + NR, c##n##1);                                   \
  }
/* C[MR, 16 or 32] (+)= A[MR, K] [P0 | P1][K, 32]; P0 and P1 are two packed panels (K x 16 each). */
#define ZK(MR, TWO)                                                                                    \
  static void zk##MR##_##TWO(int64_t K, const float *A, int64_t lda, const float *P0, const float *P1, \
                             float *C, int64_t ldc, int acc) {                                         \
    const int mr_ = MR, two = TWO;                                                                     \
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,           \
           c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,     \
           c70 = c00, c71 = c00, c80 = c00, c81 = c00, c90 = c00, c91 = c00, ca0 = c00, ca1 = c00,     \
           cb0 = c00, cb1 = c00;                                                                       \
    for (int64_t k = 0; k < K; k++) {                                                                  \
      const __m512 b0 = _mm512_load_ps(P0 + k * NR);                                                   \
      const __m512 b1 = two ? _mm512_load_ps(P1 + k * NR) : b0;                                        \
      ZFMA(0, 0) ZFMA(1, 1) ZFMA(2, 2) ZFMA(3, 3) ZFMA(4, 4) ZFMA(5, 5) ZFMA(6, 6) ZFMA(7, 7)          \
      ZFMA(8, 8) ZFMA(9, 9) ZFMA(a, 10) ZFMA(b, 11)                                             \
    }                                                                                                  \
    ZST(0, 0) ZST(1, 1) ZST(2, 2) ZST(3, 3) ZST(4, 4) ZST(5, 5) ZST(6, 6) ZST(7, 7) ZST(8, 8)          \
    ZST(9, 9) ZST(a, 10) ZST(b, 11)                                                                    \
  }
#define ZK2(MR) ZK(MR, 0) ZK(MR, 1)
ZK2(1) ZK2(2) ZK2(3) ZK2(4) ZK2(5) ZK2(6) ZK2(7) ZK2(8) ZK2(9) ZK2(10) ZK2(11) ZK2(12)
typedef void (*zk_fn)(int64_t, const float *, int64_t, const float *, const float *, float *, int64_t, int);
static const zk_fn zks[2][13] = {
    {0, zk1_0, zk2_0, zk3_0, zk4_0, zk5_0, zk6_0, zk7_0, zk8_0, zk9_0, zk10_0, zk11_0, zk12_0},
    {0, zk1_1, zk2_1, zk3_1, zk4_1, zk5_1, zk6_1, zk7_1, zk8_1, zk9_1, zk10_1, zk11_1, zk12_1}};

/* the driver below: tiles of up to 12 rows x two panels */
#define RG_MR 12
#define RG_PANELS 2
#define RG_TILE(mr, two, A_, p0, p1, C_, ldc_, acc_) zks[two][mr](K, A_, lda, p0, p1, C_, ldc_, acc_)
#elif defined(RNN_AVX2)
/* C[MR, 16] (+)= A[MR, K] P[K, 16]: 2*MR accumulators in registers (named, so gcc keeps them
 * there; an array spilled them to the stack every iteration). */
#define RFMA(r)                                                    \
  if (mr_ > r) {                                                   \
    const __m256 a = _mm256_broadcast_ss(A + r * lda + k);         \
    c##r##0 = _mm256_fmadd_ps(a, b0, c##r##0);                     \
    c##r##1 = _mm256_fmadd_ps(a, b1, c##r##1);                     \
  }
#define RST(r)                                                             \
  if (mr_ > r) {                                                           \
    if (acc) {                                                             \
      c##r##0 = _mm256_add_ps(c##r##0, _mm256_loadu_ps(C + r * ldc));      \
      c##r##1 = _mm256_add_ps(c##r##1, _mm256_loadu_ps(C + r * ldc + 8));  \
    }                                                                      \
    _mm256_storeu_ps(C + r * ldc, c##r##0);                                \
    _mm256_storeu_ps(C + r * ldc + 8, c##r##1);                            \
  }
#define MK(MR)                                                                                          \
  static void mk##MR(int64_t K, const float *A, int64_t lda, const float *P, float *C, int64_t ldc,     \
                     int acc) {                                                                         \
    const int mr_ = MR;                                                                                 \
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, \
           c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;                                       \
    for (int64_t k = 0; k < K; k++) {                                                                   \
      const __m256 b0 = _mm256_load_ps(P + k * NR), b1 = _mm256_load_ps(P + k * NR + 8);                \
      RFMA(0) RFMA(1) RFMA(2) RFMA(3) RFMA(4) RFMA(5)                                                   \
    }                                                                                                   \
    RST(0) RST(1) RST(2) RST(3) RST(4) RST(5)                                                           \
  }
MK(1)
MK(2)
MK(3)
MK(4)
MK(5)
MK(6)
typedef void (*mk_fn)(int64_t, const float *, int64_t, const float *, float *, int64_t, int);
static const mk_fn mks[7] = {0, mk1, mk2, mk3, mk4, mk5, mk6};

/* the driver below: tiles of up to 6 rows x one panel */
#define RG_MR 6
#define RG_PANELS 1
#define RG_TILE(mr, two, A_, p0, p1, C_, ldc_, acc_) ((void)(two), (void)(p1), mks[mr](K, A_, lda, p0, C_, ldc_, acc_))
#endif

#ifdef RG_MR
/* C (+)= A P on the vector tiles: columns in tiles of RG_PANELS packed panels (the last one
 * possibly partial: through a full tile in scratch), rows in nb balanced blocks of at most RG_MR
 * (batch 20: 2 x 10 on AVX-512, 4 x 5 on AVX2) */
void pd_rnn_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                     int64_t ldc, int acc) {
  const int64_t W = RG_PANELS * NR, nb = (M + RG_MR - 1) / RG_MR;
  for (int64_t n0 = 0; n0 < N; n0 += W) {
    const int64_t nc = N - n0 < W ? N - n0 : W; /* columns of this tile */
    const int two = nc > NR;                     /* (always 0 with one panel per tile) */
    const float *p0 = P + n0 * K, *p1 = two ? P + (n0 + NR) * K : p0;
    int64_t r0 = 0;
    for (int64_t blk = 0; blk < nb; blk++) {
      const int64_t left = M - r0, mr = left / (nb - blk) + (left % (nb - blk) != 0);
      if (nc % NR == 0) {
        RG_TILE(mr, two, A + r0 * lda, p0, p1, C + r0 * ldc + n0, ldc, acc);
      } else { /* the last, partial panel: through a full tile */
        float t[RG_MR * RG_PANELS * NR];
        RG_TILE(mr, two, A + r0 * lda, p0, p1, t, W, 0);
        for (int64_t i = 0; i < mr; i++)
          for (int64_t c = 0; c < nc; c++) {
            float *d = C + (r0 + i) * ldc + n0 + c;
            *d = acc ? *d + t[i * W + c] : t[i * W + c];
          }
      }
      r0 += mr;
    }
  }
}
#else
void pd_rnn_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                     int64_t ldc, int acc) {
  for (int64_t n0 = 0; n0 < N; n0 += NR)
    panel_f32(M, N - n0 < NR ? N - n0 : NR, K, A, lda, P + n0 * K, C + n0, ldc, acc);
}
#endif
