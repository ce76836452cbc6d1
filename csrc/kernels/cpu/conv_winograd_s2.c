/* Stride-2 3x3 float32 convolutions in the predictor with fewer multiply-adds (issue 17;
 * docs/arch/inference.md "Stride-2 3x3 convolutions: polyphase Winograd"). A stride-2 3x3
 * convolution is the sum of four stride-1 convolutions on the input's phases
 * x_ab[i][j] = x[2i + a - pt][2j + b - pl] (a, b the parity of the tap): the taps {0, 2} x {0, 2} (a
 * 2x2 filter), {0, 2} x {1} (2x1), {1} x {0, 2} (1x2) and {1} x {1} (1x1). Per 4x4 output tile
 * (a 9x9 input patch):
 *   phase 00: F(4x4, 2x2), Y00 = A^T [(G g00 G^T) . (B^T d00 B)] A   25 points
 *   phase 01: F(4, 2) down the columns, Y01 = A^T [(G g01) . (B^T d01)]   5 x 4 points
 *   phase 10: F(4, 2) along the rows, Y10 = [(g10 G^T) . (d10 B)] A      4 x 5 points
 *   phase 11: direct, Y11 = g11 d11                                      16 points
 * 81 multiply-adds per 16 outputs and input channel (5.06 per output; the direct kernel 9). F(4, 2)
 * interpolates at 0, 1, -1, 2, inf with the input transform in integers (G carries the fractions):
 *   B^T = [2 -1 -2 1 0; 0 2 1 -1 0; 0 -2 3 -1 0; 0 -1 0 1 0; 0 2 -1 -2 1]
 *   G = [1/2 0; 1/2 1/2; 1/6 -1/6; 1/6 1/3; 0 1]
 *   A^T = [1 1 1 1 0; 0 1 -1 2 0; 0 1 1 4 0; 0 1 -1 8 1]
 * The transformed filter U has 36 points (25 + 5 + 5 + 1) per output / input channel pair, packed
 * [u][O/NR][C][NR] like conv_winograd.c's, cached in the running instruction's weight cache. The
 * GEMM points that share a U point (the 4 positions of a phase 01 / 10 point, the 16 of phase 11)
 * are one GEMM with 4 or 16 times the rows: V and M are point-major within a block of tiles,
 * [p][tile][C] with a phase's positions adjacent, so those rows are contiguous.
 * With 2x2 output tiles (a 5x5 input patch; PADDLE_C_WINOGRAD_S2_TILE=2, or the auto rule where the 4x4
 * tiles' U is large and they are few: s2_2_worth_it):
 *   phase 00: F(2x2, 2x2), 9 points; 01 / 10: F(2, 2) x direct, 3 x 2 points each; 11: direct, 4 points
 * 25 multiply-adds per 4 outputs and input channel (6.25 per output), U 16 points per (o, c) (9 + 3 + 3
 * + 1: 16/9 of the filter, 4.2 MB at 256 x 256 against the 4x4 tiles' 9.4). F(2, 2) interpolates at
 * 0, 1, inf, all in integers (U is exact sums of taps; errors below oneDNN's):
 *   B^T = [1 -1 0; 0 1 0; 0 -1 1]   G = [1 0; 1 1; 0 1]   A^T = [1 1 0; 0 1 1]
 * GEMM points: 00 (a, b) at a * 3 + b, 01 (a, j) at 9 + a * 2 + j, 10 (i, b) at 15 + b * 2 + i, 11
 * (i, j) at 21 + i * 2 + j; blocks of twice the 4x4 tiles' count (24, 48 above 128 channels).
 * Work items: blocks of tiles (12, 24 above 128 channels) x chunks of output channels (128, halved
 * while there are fewer than 4 items per thread; each item transforms its own inputs, loads and adds
 * next to its 81 x C x chunk multiply-adds per tile); per item: the input transform (the next tile's
 * patch prefetched), per U point the GEMM in row chunks whose V stays in L2 (the 12 x 32 microkernel
 * of conv_winograd_impl.h; 6 x 16 on AVX2), the output transform with bias and clamp into y. One
 * OpenMP region, dynamic schedule, scratch from pd_alloc. Both ISA levels: the transforms on VW = 16
 * channels (AVX-512) or 8 (AVX2, session 43) at a time; the AVX-512 rules below held on the AVX2
 * EPYC too (2 threads, per layer with its stem: 128 x 56 -> 28 b1 4x4 tiles 0.77 of oneDNN jit:avx2's
 * time, 256 x 28 -> 14 b1 2x2 tiles 0.89 (4x4 1.25); ResNet-50 in one predictor alternating with
 * PADDLE_C_WINOGRAD_S2=0: b1 0.982-0.986, b16 0.965). */
#include "conv_winograd.h"
#include "conv_winograd_impl.h"

#if defined(__AVX512F__) || defined(__AVX2__)
#if defined(__AVX512F__)
DEF_MK_ROWS(__m512, _mm512, 16)
/* the transforms' vectors: VW channels */
#define VW 16
typedef __m512 vw;
#define VSET1 _mm512_set1_ps
#define VZERO _mm512_setzero_ps
#define VADD _mm512_add_ps
#define VSUB _mm512_sub_ps
#define VFMADD _mm512_fmadd_ps
#define VFMSUB _mm512_fmsub_ps
#define VFNMADD _mm512_fnmadd_ps
#define VLOAD _mm512_load_ps
#define VLOADU _mm512_loadu_ps
#define VSTORE _mm512_store_ps
#define VMIN _mm512_min_ps
#define VMAX _mm512_max_ps
/* VW channels at input position pos (ld16: blocks of 8 take two loads bstride apart) */
static inline vw ldw(const chan8 *s, int64_t pos, int64_t bstride) { return ld16(s, pos, bstride); }
/* y + bias clamped, stored at q in the blocked y (yB channels per block) */
static inline void stwy(float *q, vw y, vw bv, vw lo, vw hi, int64_t yB, int64_t OHW) { st16y(q, y, bv, lo, hi, yB, OHW); }
/* VW channels of a plain y, OHW apart */
static inline void stw_plain(float *q, vw v, int64_t OHW) {
  const __m512i sidx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                          _mm512_set1_epi32((int)OHW));
  _mm512_i32scatter_ps(q, sidx, v, 4);
}
#else
/* the AVX2 copy (session 43): the same transforms on 8 channels, the 6 x 16 microkernel */
DEF_MK_ROWS(v8, _mm256, 8)
#define VW 8
typedef __m256 vw;
#define VSET1 _mm256_set1_ps
#define VZERO _mm256_setzero_ps
#define VADD _mm256_add_ps
#define VSUB _mm256_sub_ps
#define VFMADD _mm256_fmadd_ps
#define VFMSUB _mm256_fmsub_ps
#define VFNMADD _mm256_fnmadd_ps
#define VLOAD _mm256_load_ps
#define VLOADU _mm256_loadu_ps
#define VSTORE _mm256_store_ps
#define VMIN _mm256_min_ps
#define VMAX _mm256_max_ps
static inline vw ldw(const chan8 *s, int64_t pos, int64_t bstride) {
  (void)bstride; /* 8 channels never straddle a block of 8 or 16k */
  return ld8(s, pos);
}
static inline void stwy(float *q, vw y, vw bv, vw lo, vw hi, int64_t yB, int64_t OHW) {
  (void)yB, (void)OHW;
  _mm256_storeu_ps(q, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(y, bv), lo), hi));
}
static inline void stw_plain(float *q, vw v, int64_t OHW) {
  float t[8];
  _mm256_storeu_ps(t, v);
  for (int l = 0; l < 8; l++) q[l * OHW] = t[l];
}
#endif

DEF_MK_TAIL

#define NU 36 /* U points: 25 (phase 00) + 5 (01) + 5 (10) + 1 (11) */
#define NPT 81 /* GEMM points: 25 + 20 + 20 + 16 */
#define LDPAD 16 /* floats after each row of V and M (no 4 KB row strides: L1 set conflicts) */

#define NU2 16 /* the 2x2 tiles' U points: 9 (phase 00) + 3 (01) + 3 (10) + 1 (11) */
#define NPT2 25 /* and GEMM points: 9 + 6 + 6 + 4 */

/* the first GEMM point and the positions (rows per tile) of U point u, 4x4 tiles (t2 = 0) or 2x2 */
static inline int u_p0(int t2, int u) {
  if (t2) return u < 9 ? u : u < 12 ? 9 + (u - 9) * 2 : u < 15 ? 15 + (u - 12) * 2 : 21;
  return u < 25 ? u : u < 30 ? 25 + (u - 25) * 4 : u < 35 ? 45 + (u - 30) * 4 : 65;
}
static inline int u_npos(int t2, int u) {
  if (t2) return u < 9 ? 1 : u < 15 ? 2 : 4;
  return u < 25 ? 1 : u < 35 ? 4 : 16;
}

/* F(4, 2)'s G (interpolation points 0, 1, -1, 2, inf; B^T scaled to integers) */
static const float GS2[5][2] = {{0.5f, 0}, {0.5f, 0.5f}, {1.0f / 6, -1.0f / 6}, {1.0f / 6, 1.0f / 3}, {0, 1}};

/* U[u][ob][c][NR] of w [O, C, 3, 3] (O padded to ONR with zeros), NR output channels at a time */
static void filter_transform_s2(const float *w, int64_t O, int64_t C, int64_t ONR, float *U) {
  const int64_t OB = ONR / NR;
#pragma omp parallel for if (O * C > 4096) schedule(static)
  for (int64_t it = 0; it < OB * C; it++) {
    const int64_t ob = it / C, c = it % C;
    float g[9][NR], u[NU][NR];
    for (int l = 0; l < NR; l++) {
      const int64_t o = ob * NR + l;
      for (int k = 0; k < 9; k++) g[k][l] = o >= O ? 0.0f : w[(o * C + c) * 9 + k];
    }
    for (int l = 0; l < NR; l++) {
      float t[5][2]; /* G g00: g00[k][m] = w[2k][2m] */
      for (int a = 0; a < 5; a++)
        for (int m = 0; m < 2; m++) t[a][m] = GS2[a][0] * g[2 * m][l] + GS2[a][1] * g[6 + 2 * m][l];
      for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++) u[a * 5 + b][l] = t[a][0] * GS2[b][0] + t[a][1] * GS2[b][1];
      for (int a = 0; a < 5; a++) {
        u[25 + a][l] = GS2[a][0] * g[1][l] + GS2[a][1] * g[7][l]; /* g01 = w[0][1], w[2][1] */
        u[30 + a][l] = GS2[a][0] * g[3][l] + GS2[a][1] * g[5][l]; /* g10 = w[1][0], w[1][2] */
      }
      u[35][l] = g[4][l];
    }
    for (int p = 0; p < NU; p++) memcpy(U + ((p * OB + ob) * C + c) * NR, u[p], sizeof(float) * NR);
  }
}

/* the 2x2 tiles' U: F(2, 2)'s G = [1 0; 1 1; 0 1] (no fractions: U is exact sums of taps) */
static void filter_transform_s2_2(const float *w, int64_t O, int64_t C, int64_t ONR, float *U) {
  const int64_t OB = ONR / NR;
#pragma omp parallel for if (O * C > 4096) schedule(static)
  for (int64_t it = 0; it < OB * C; it++) {
    const int64_t ob = it / C, c = it % C;
    float u[NU2][NR];
    for (int l = 0; l < NR; l++) {
      const int64_t o = ob * NR + l;
      float g[9];
      for (int k = 0; k < 9; k++) g[k] = o >= O ? 0.0f : w[(o * C + c) * 9 + k];
      /* G g G^T of g00 = [g0 g2; g6 g8]; G (g01 = g1, g7); (g10 = g3, g5) G^T; g11 = g4 */
      const float t[3][2] = {{g[0], g[2]}, {g[0] + g[6], g[2] + g[8]}, {g[6], g[8]}};
      for (int a = 0; a < 3; a++) {
        u[a * 3][l] = t[a][0], u[a * 3 + 1][l] = t[a][0] + t[a][1], u[a * 3 + 2][l] = t[a][1];
      }
      u[9][l] = g[1], u[10][l] = g[1] + g[7], u[11][l] = g[7];
      u[12][l] = g[3], u[13][l] = g[3] + g[5], u[14][l] = g[5];
      u[15][l] = g[4];
    }
    for (int p = 0; p < NU2; p++) memcpy(U + ((p * OB + ob) * C + c) * NR, u[p], sizeof(float) * NR);
  }
}

/* PADDLE_C_WINOGRAD_S2_TB / _OC / _RC / _PF: the tile block, the output channel chunk, the GEMM row chunk,
 * the input prefetch (0: off), for tuning and A/B runs; read per call */
static int64_t env_int(const char *name, int64_t dflt) {
  const char *e = getenv(name);
  return e && *e ? atoll(e) : dflt;
}

/* B^T d over 5 values spaced s apart (in place) */
static inline void bt5(vw *d, int s) {
  const vw d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s];
  const vw two = VSET1(2.0f), three = VSET1(3.0f);
  const vw e = VSUB(d3, d1);                                               /* d3 - d1 */
  d[0] = VFMADD(two, VSUB(d0, d2), e);                              /* 2d0 - d1 - 2d2 + d3 */
  d[s] = VSUB(VADD(d1, d2), e);                                     /* 2d1 + d2 - d3 */
  d[2 * s] = VFMSUB(three, d2, VFMADD(two, d1, d3));               /* -2d1 + 3d2 - d3 */
  d[3 * s] = e;                                                                       /* d3 - d1 */
  d[4 * s] = VFNMADD(two, e, VSUB(d4, d2));                         /* 2d1 - d2 - 2d3 + d4 */
}

/* A^T m: 5 values spaced s apart -> 4 (into o, spaced os apart) */
static inline void at5(const vw *m, int s, vw *o, int os) {
  const vw a = VADD(m[s], m[2 * s]), b = VSUB(m[s], m[2 * s]);
  o[0] = VADD(VADD(m[0], a), m[3 * s]);
  o[os] = VFMADD(VSET1(2.0f), m[3 * s], b);
  o[2 * os] = VFMADD(VSET1(4.0f), m[3 * s], a);
  o[3 * os] = VADD(VFMADD(VSET1(8.0f), m[3 * s], b), m[4 * s]);
}

/* F(2, 2)'s B^T d over 3 values spaced s apart (in place): d0 - d1, d1, d2 - d1 */
static inline void bt3(vw *d, int s) {
  d[0] = VSUB(d[0], d[s]);
  d[2 * s] = VSUB(d[2 * s], d[s]);
}

typedef struct {
  const float *x, *U, *bias;
  float *y;
  int64_t N, C, O, ONR, H, W, OH, OW, pt, pl, xB, yB;
  int64_t TH, TW, T, nb, OC, noc; /* tiles per column / row / in all; blocks; output channel chunk, chunks */
  int64_t RC; /* GEMM rows per chunk (V's rows in L2) */
  int pf;     /* prefetch the next tile's input patch */
  int t2, nu, npt; /* 2x2 tiles (else 4x4); U points; GEMM points */
  float lo, hi;
} s2job;

/* block bi's tiles [t0, t0 + tn): near-equal blocks */
static inline void block_of(const s2job *j, int64_t bi, int64_t *t0, int64_t *tn) {
  *t0 = j->T * bi / j->nb;
  *tn = j->T * (bi + 1) / j->nb - *t0;
}

/* V's points of one tile's P x P patch d (16 channels, d[a * P + b]; d transformed in place), point
 * stride ps: P = 9 for the 4x4 tiles (B^T of 5 points, K = 5, 4 odd rows / columns, H = 4), 5 for the
 * 2x2 tiles (K = 3, H = 2); t2 a constant in each caller. Points: phase 00 (even rows and columns,
 * B^T d B, K x K) at a * K + b; phase 01 (even rows, odd columns, B^T down the columns) (a, j) at
 * K^2 + a * H + j; phase 10 (odd rows, even columns, B along the rows) (i, b) at K^2 + K H + b * H + i;
 * phase 11 (odd rows and columns as they are) (i, j) at K^2 + 2 K H + i * H + j */
static inline __attribute__((always_inline)) void vin(vw *d, float *vp, int64_t ps, const int t2) {
  const int P = t2 ? 5 : 9, K = t2 ? 3 : 5, H = t2 ? 2 : 4, o1 = K * K, o2 = o1 + K * H, o3 = o2 + K * H;
#define BT(x, s) (t2 ? bt3((x), (s)) : bt5((x), (s)))
  for (int b = 0; b < K; b++) BT(d + 2 * b, 2 * P);
  for (int a = 0; a < K; a++) {
    BT(d + 2 * P * a, 2);
    for (int b = 0; b < K; b++) VSTORE(vp + (a * K + b) * ps, d[2 * P * a + 2 * b]);
  }
  for (int jj = 0; jj < H; jj++) {
    BT(d + 2 * jj + 1, 2 * P);
    for (int a = 0; a < K; a++) VSTORE(vp + (o1 + a * H + jj) * ps, d[2 * P * a + 2 * jj + 1]);
  }
  for (int i = 0; i < H; i++) {
    BT(d + P * (2 * i + 1), 2);
    for (int b = 0; b < K; b++) VSTORE(vp + (o2 + b * H + i) * ps, d[P * (2 * i + 1) + 2 * b]);
  }
  for (int i = 0; i < H; i++)
    for (int jj = 0; jj < H; jj++) VSTORE(vp + (o3 + i * H + jj) * ps, d[P * (2 * i + 1) + 2 * jj + 1]);
#undef BT
}

/* V[p][tl][ldv] of tiles t0 + tl, tl < tn: per tile an np x np input patch (9 for 4x4 tiles, 5 for 2x2)
 * whose origin steps by 2 * ts; t2 a constant in each copy (input_transform_s2) */
static inline __attribute__((always_inline)) void input_transform_t(const s2job *j, int64_t t0, int64_t tn, float *V, const int t2) {
  const int64_t C = j->C, H = j->H, W = j->W, HW = H * W, per_img = j->TH * j->TW, ldv = C + LDPAD;
  const int64_t bstride = VW == 16 && j->xB == 8 ? HW * 8 : 0; /* 16 lanes from nChw8c: the next block's 8 */
  const int np = t2 ? 5 : 9, st = t2 ? 4 : 8;
  const vw z = VZERO();
  const int pf = j->pf;
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t iy0 = ty * st - j->pt, ix0 = tx * st - j->pl;
    const int inside = iy0 >= 0 && ix0 >= 0 && iy0 + np <= H && ix0 + np <= W;
    for (int64_t c0 = 0; c0 < C; c0 += VW) {
      const chan8 s = chan8_of(j->x, C, HW, j->xB, n, c0);
      if (tl + 1 < tn && s.ls == 1 && pf) { /* the next tile's patch at these channels, a tile ahead */
        const int64_t t1 = t + 1, n1 = t1 / per_img, y1 = (t1 % per_img) / j->TW * st - j->pt, x1 = t1 % j->TW * st - j->pl;
        const float *q = s.base + (n1 - n) * C * HW;
        for (int a = 0; a < np; a++)
          for (int b = 0; b < np; b++)
            if (y1 + a >= 0 && y1 + a < H && x1 + b >= 0 && x1 + b < W) {
              _mm_prefetch((const char *)(q + ((y1 + a) * W + x1 + b) * s.ps), _MM_HINT_T0);
              if (bstride) _mm_prefetch((const char *)(q + ((y1 + a) * W + x1 + b) * s.ps + bstride), _MM_HINT_T0);
            }
      }
      vw d[81]; /* the patch, d[a * np + b] */
      if (inside) {
        for (int a = 0; a < np; a++)
          for (int b = 0; b < np; b++) d[a * np + b] = ldw(&s, (iy0 + a) * W + ix0 + b, bstride);
      } else {
        for (int a = 0; a < np; a++)
          for (int b = 0; b < np; b++) {
            const int64_t iy = iy0 + a, ix = ix0 + b;
            d[a * np + b] = iy >= 0 && iy < H && ix >= 0 && ix < W ? ldw(&s, iy * W + ix, bstride) : z;
          }
      }
      vin(d, V + tl * ldv + c0, tn * ldv, t2);
    }
  }
}
static void input_transform_s2(const s2job *j, int64_t t0, int64_t tn, float *V) {
  if (j->t2) input_transform_t(j, t0, tn, V, 1);
  else input_transform_t(j, t0, tn, V, 0);
}

/* one 4x4 tile's y[a * 4 + b] from its M points mp[p * ps]: A^T (M00 A + M01) + M10 A + M11 */
static inline void yout4(const float *mp, int64_t ps, vw *y) {
  vw m[25], s[20];
  for (int p = 0; p < 25; p++) m[p] = VLOAD(mp + p * ps);
  for (int a = 0; a < 5; a++) {
    at5(m + a * 5, 1, s + a * 4, 1);
    for (int jj = 0; jj < 4; jj++) s[a * 4 + jj] = VADD(s[a * 4 + jj], VLOAD(mp + (25 + a * 4 + jj) * ps));
  }
  for (int jj = 0; jj < 4; jj++) at5(s + jj, 4, y + jj, 4);
  for (int i = 0; i < 4; i++) {
    vw r[5], q[4];
    for (int b = 0; b < 5; b++) r[b] = VLOAD(mp + (45 + b * 4 + i) * ps);
    at5(r, 1, q, 1);
    for (int jj = 0; jj < 4; jj++)
      y[i * 4 + jj] = VADD(VADD(y[i * 4 + jj], q[jj]), VLOAD(mp + (65 + i * 4 + jj) * ps));
  }
}

/* one 2x2 tile's y[a * 2 + b]: s = M00 A + M01 (3x2), y = A^T s + M10 A + M11, A^T = [1 1 0; 0 1 1] */
static inline void yout2(const float *mp, int64_t ps, vw *y) {
  vw m[NPT2], s[6];
  for (int p = 0; p < NPT2; p++) m[p] = VLOAD(mp + p * ps);
  for (int a = 0; a < 3; a++) {
    s[a * 2] = VADD(VADD(m[a * 3], m[a * 3 + 1]), m[9 + a * 2]);
    s[a * 2 + 1] = VADD(VADD(m[a * 3 + 1], m[a * 3 + 2]), m[9 + a * 2 + 1]);
  }
  for (int i = 0; i < 2; i++) {
    const vw r0 = VADD(m[15 + i], m[17 + i]), r1 = VADD(m[17 + i], m[19 + i]);
    for (int jj = 0; jj < 2; jj++)
      y[i * 2 + jj] = VADD(VADD(VADD(s[i * 2 + jj], s[(i + 1) * 2 + jj]), jj ? r1 : r0),
                                    m[21 + i * 2 + jj]);
  }
}

/* y for tiles [t0, t0 + tn) and output channels [oc0, oc0 + ow) from M[p][tl][ldm] (t2 as above) */
static inline __attribute__((always_inline)) void output_transform_t(const s2job *j, int64_t t0, int64_t tn, int64_t oc0,
                                                                     int64_t ow, const float *M, const int t2) {
  const int64_t O = j->O, OH = j->OH, OW = j->OW, OHW = OH * OW, per_img = j->TH * j->TW, yB = j->yB;
  const vw lo = VSET1(j->lo), hi = VSET1(j->hi);
  const int64_t ldm = ow + LDPAD, ps = tn * ldm;
  const int ts = t2 ? 2 : 4;
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t oy = ty * ts, ox = tx * ts;
    for (int64_t o = 0; o < ow && oc0 + o < O; o += VW) {
      const int64_t oo = oc0 + o;
      vw y[16];
      if (t2) yout2(M + tl * ldm + o, ps, y);
      else yout4(M + tl * ldm + o, ps, y);
      const vw bv = j->bias ? VLOADU(j->bias + oo) : VZERO();
      for (int a = 0; a < ts && oy + a < OH; a++)
        for (int b = 0; b < ts && ox + b < OW; b++) {
          const int64_t pos = (oy + a) * OW + ox + b;
          if (yB) {
            stwy(j->y + n * O * OHW + (oo / yB) * OHW * yB + oo % yB + pos * yB, y[a * ts + b], bv, lo, hi, yB, OHW);
          } else {
            stw_plain(j->y + (n * O + oo) * OHW + pos, VMIN(VMAX(VADD(y[a * ts + b], bv), lo), hi), OHW);
          }
        }
    }
  }
}

static void output_transform_s2(const s2job *j, int64_t t0, int64_t tn, int64_t oc0, int64_t ow, const float *M) {
  if (j->t2) output_transform_t(j, t0, tn, oc0, ow, M, 1);
  else output_transform_t(j, t0, tn, oc0, ow, M, 0);
}

/* one work item: tile block it / noc, output channel chunk it % noc */
static void work_item(const s2job *j, int64_t it, float *V, float *M) {
  int64_t t0, tn;
  block_of(j, it / j->noc, &t0, &tn);
  const int64_t oc0 = (it % j->noc) * j->OC, ow = oc0 + j->OC <= j->ONR ? j->OC : j->ONR - oc0;
  const int64_t C = j->C, OB = j->ONR / NR, ldv = C + LDPAD, ldm = ow + LDPAD;
  input_transform_s2(j, t0, tn, V);
  /* rows in chunks of ~RC whose V stays in L2 while the panels of U pass (phase 11's 16 positions of
   * a large block would not) */
  const int64_t RC = j->RC;
  const int t2 = j->t2, nu = j->nu;
  for (int u = 0; u < nu; u++) {
    const int64_t rows = u_npos(t2, u) * tn, p0 = u_p0(t2, u), nch = (rows + RC - 1) / RC;
    for (int64_t ch = 0; ch < nch; ch++) {
      const int64_t r0 = rows * ch / nch, r1 = rows * (ch + 1) / nch, cr = r1 - r0;
      const float *Vp = V + (p0 * tn + r0) * ldv;
      float *Mp = M + (p0 * tn + r0) * ldm;
      /* the rows in nrb blocks of near-equal height (<= MR) */
      const int64_t nrb = (cr + MR - 1) / MR, rb = cr / nrb, rx = cr % nrb;
      for (int64_t o = 0; o < ow; o += NR) {
        const float *Up = j->U + ((u * OB + (oc0 + o) / NR) * C) * NR;
        /* the next panel (of this U point, or the next one's first): prefetched by the first row blocks */
        const float *Un = o + NR < ow ? Up + C * NR : u + 1 < nu ? j->U + (((u + 1) * OB + oc0 / NR) * C) * NR : Up;
        for (int64_t r = 0, ri = 0; r < cr; ri++) {
          const float *pf = ri < NR / 16 ? Un + ri * C * 16 : Up;
          const int64_t mr = rb + (ri < rx);
          if (mr == MR) mk_rows(Vp + r * ldv, ldv, Up, C, Mp + r * ldm + o, ldm, pf, MR);
          else mk_tail(Vp + r * ldv, ldv, Up, C, Mp + r * ldm + o, ldm, pf, (int)mr);
          r += mr;
        }
      }
    }
  }
  output_transform_s2(j, t0, tn, oc0, ow, M);
}

static int job_run(s2job *j) {
  const int nth = omp_get_max_threads();
  /* blocks of ~TB tiles; output channels in chunks of OC (a multiple of NR), smaller where the items
   * would not give each thread several */
  int64_t TB = env_int("PADDLE_C_WINOGRAD_S2_TB", (j->C <= 128 ? 12 : 24) * (j->t2 ? 2 : 1)), OC = env_int("PADDLE_C_WINOGRAD_S2_OC", 128);
  j->RC = env_int("PADDLE_C_WINOGRAD_S2_RC", (256 << 10) / (4 * (j->C + LDPAD)) / MR * MR);
  if (j->RC < MR) j->RC = MR;
  j->pf = env_int("PADDLE_C_WINOGRAD_S2_PF", 1) != 0;
  if (TB < 1) TB = 1;
  OC = OC < NR ? NR : OC / NR * NR;
  if (OC > j->ONR) OC = j->ONR;
  j->nb = (j->T + TB - 1) / TB;
  if (nth > 1 && j->T >= 2 * MR * nth && j->T < 2 * MR * nth * 2 && j->nu * j->ONR * j->C * 4 <= (5 << 20) &&
      !pd_wino_env_off("PADDLE_C_WINOGRAD_TSPLIT")) {
    /* as conv_winograd.c's per-thread tile halves */
    TB = (j->T + nth - 1) / nth, OC = j->ONR;
    j->nb = (j->T + TB - 1) / TB;
  } else
    while (nth > 1 && OC > 2 * NR && j->nb * ((j->ONR + OC - 1) / OC) < 4 * nth) OC = (OC / 2 + NR - 1) / NR * NR;
  j->OC = OC;
  j->noc = (j->ONR + OC - 1) / OC;
  const int64_t tbmax = (j->T + j->nb - 1) / j->nb;
  const size_t vsz = sizeof(float) * (size_t)(j->npt * tbmax * (j->C + LDPAD));
  const size_t msz = sizeof(float) * (size_t)(j->npt * tbmax * (OC + LDPAD));
  const int64_t items = j->nb * j->noc;
  int ok = 1;
#pragma omp parallel if (items > 1)
  {
    float *V = (float *)pd_alloc(vsz), *M = (float *)pd_alloc(msz);
    if (!V || !M) {
#pragma omp atomic write
      ok = 0;
    }
#pragma omp for schedule(dynamic, 1)
    for (int64_t it = 0; it < items; it++)
      if (V && M) work_item(j, it, V, M);
    pd_free(V);
    pd_free(M);
  }
  if (!ok) {
    pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d] out of memory for the stride-2 Winograd convolution's buffers");
    return -1;
  }
  return 1;
}

/* PADDLE_C_WINOGRAD_S2: 0 off, 1 every eligible layer, unset / auto the measured rule. Read per call. */
static int s2_mode_env(void) {
  const char *e = getenv("PADDLE_C_WINOGRAD_S2");
  if (!e || !*e || !strcmp(e, "auto")) return -1;
  return strcmp(e, "0") != 0;
}

/* where it measured faster than oneDNN's direct kernel (per layer in ResNet-50's predictor; numbers in
 * docs/performance_log.md): from 16 4x4 tiles where U fits the L3 share (<= 3 MB: C x O up to
 * 128 x 160; the 128 x 56 -> 28 layer, b1 49 tiles: 0.70 of oneDNN's time at one thread, 0.78 at two),
 * from 64 where it is larger: 256 x 28 -> 14 at b1 (16 tiles, U 9.4 MB) level at one thread, and in
 * batch 16's micro-batch chunks of 2 images (32 tiles) 0.97 at one thread but 1.10 at two (U streamed
 * per chunk); 512 x 14 -> 7 b1 (4 tiles) 1.3, b16 (64 tiles) 0.89 / 0.98. Below 64 tiles with a large U
 * the 2x2 tiles come first (s2_2_worth_it). */
static int s2_worth_it(const pd_conv_geom *g, int64_t T) {
  if (g->C < 32 || g->O < 32) return 0;
  return T >= (NU * g->C * g->O * 4 <= (3 << 20) ? 16 : 64);
}

/* PADDLE_C_WINOGRAD_S2_TILE: 2 or 4 forces that output tile on every eligible layer (unless
 * PADDLE_C_WINOGRAD_S2=0); unset: the auto rule. Read per call. */
static int s2_tile_env(void) {
  const char *e = getenv("PADDLE_C_WINOGRAD_S2_TILE");
  return e && !strcmp(e, "2") ? 2 : e && !strcmp(e, "4") ? 4 : 0;
}

/* the auto rule's 2x2 tiles (T4, T2: the 4x4 and 2x2 tile counts): where the 4x4 tiles' U passes 3 MB
 * at fewer than 64 of them, from 16 2x2 tiles; at several threads only where the 2x2 tiles' U is at
 * most 5 MB (larger, it streams: level with oneDNN). Per layer in ResNet-50's predictor (us, median
 * of 60 runs; oneDNN / 4x4 / 2x2), 1 thread: 256 x 28 -> 14 b1 (16 / 49 tiles) 1020 / 940-980 / 775;
 * in batch 16's chunks of 2 images (32 / 98 tiles, 8 chunks summed) 17000-17400 / 15600-16300 /
 * 12700-13400; 512 x 14 -> 7 b1 (4 / 16 tiles) 1100-1150 / 1470-1580 / 980-1000, at 16 images (64 /
 * 256 tiles) 15800-16100 / 13300-14200 / 15600 (4x4); 128 x 56 -> 28 b1 (49 / 196 tiles) 1075 / 730-750
 * / 770 (4x4). 2 threads: 256 b1 580-605 / 700 / 420-435, b16 chunks 8400 / - / 7250-7800; 512 b1
 * 670-700 / 1060-1270 / 685-705 (oneDNN), b16 7900 / 7450 / 8200 (4x4); 128 b1 620-645 / 490-545 /
 * 475-480 (4x4: within 5%, and 4 % ahead at one thread).
 * PADDLE_C_WINOGRAD_S2_AUTO2=0 (read per call): the 4x4 rule alone. */
static int s2_2_worth_it(const pd_conv_geom *g, int64_t T4, int64_t T2) {
  if (g->C < 32 || g->O < 32 || pd_wino_env_off("PADDLE_C_WINOGRAD_S2_AUTO2")) return 0;
  return NU * g->C * g->O * 4 > (3 << 20) && T4 < 64 && T2 >= 16 &&
         (omp_get_max_threads() == 1 || NU2 * g->C * g->O * 4 <= (5 << 20));
}
#endif

int pd_conv_winograd_s2(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                        int yblk, float lo, float hi) {
#if defined(__AVX512F__) || defined(__AVX2__)
  if (!(g->nsp == 2 && !g->nhwc && g->G == 1 && g->k[0] == 3 && g->k[1] == 3 && g->s[0] == 2 && g->s[1] == 2 &&
        g->d[0] == 1 && g->d[1] == 1 && g->pl[0] <= 1 && g->pl[1] <= 1 && g->pr[0] <= 1 && g->pr[1] <= 1 &&
        g->C % VW == 0 && g->O % VW == 0 && g->N > 0 && g->out[0] > 0 && g->out[1] > 0 && g->in[0] > 0 &&
        g->in[1] > 0))
    return 0;
  /* x, y: plain (x gathered: int32 offsets), blocks of 8, or of 16k channels filling whole blocks */
  if (xblk && (xblk % 8 || (xblk != 8 && xblk % 16) || g->C % xblk)) return 0;
  if (yblk && (yblk % 8 || (yblk != 8 && yblk % 16) || g->O % yblk)) return 0;
  if ((!xblk && g->in[0] * g->in[1] * VW >= ((int64_t)1 << 31)) || (!yblk && g->out[0] * g->out[1] * VW >= ((int64_t)1 << 31)))
    return 0;
  const int mode = s2_mode_env(), tenv = s2_tile_env();
  if (mode == 0) return 0;
  s2job j;
  memset(&j, 0, sizeof j);
  j.N = g->N, j.C = g->C, j.O = g->O, j.ONR = (g->O + NR - 1) / NR * NR, j.H = g->in[0], j.W = g->in[1];
  j.OH = g->out[0], j.OW = g->out[1], j.pt = g->pl[0], j.pl = g->pl[1];
  const int64_t T4 = j.N * ((j.OH + 3) / 4) * ((j.OW + 3) / 4), T2 = j.N * ((j.OH + 1) / 2) * ((j.OW + 1) / 2);
  if (tenv) j.t2 = tenv == 2;
  else if (mode < 0 && s2_2_worth_it(g, T4, T2)) j.t2 = 1;
  else if (mode < 0 && !s2_worth_it(g, T4)) return 0;
  const int ts = j.t2 ? 2 : 4;
  j.nu = j.t2 ? NU2 : NU, j.npt = j.t2 ? NPT2 : NPT;
  j.TH = (j.OH + ts - 1) / ts, j.TW = (j.OW + ts - 1) / ts, j.T = j.t2 ? T2 : T4;
  const size_t usz = sizeof(float) * (size_t)(j.nu * j.ONR * g->C);
  int fresh = 0;
  /* keys 102 / 103: not a stride-1 tile (2, 4) */
  float *U = pd_conv_wcache_aux(w, j.t2 ? 103 : 102, usz, &fresh);
  if (!U) return 0; /* no weight cache (eager) or no memory for it: oneDNN */
  if (fresh) (j.t2 ? filter_transform_s2_2 : filter_transform_s2)(w, g->O, g->C, j.ONR, U);
  j.x = x, j.U = U, j.bias = bias, j.y = y, j.xB = xblk, j.yB = yblk, j.lo = lo, j.hi = hi;
  return job_run(&j);
#else
  (void)g, (void)x, (void)xblk, (void)w, (void)bias, (void)y, (void)yblk, (void)lo, (void)hi;
  return 0;
#endif
}
