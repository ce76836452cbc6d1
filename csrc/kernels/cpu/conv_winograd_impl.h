/* Internal to the Winograd convolution's two per-ISA files (conv_winograd.c: the transforms, the
 * GEMM and the job, with the predictor's entry; conv_winograd_train.c: the eager / training entry
 * and the filter gradient): the vector helpers, the microkernel's tile, the G matrices and the job.
 * Both files are compiled once per ISA level; the pd_wino_* functions reach the other file through
 * the dispatch table (tools/isa_build.py), i.e. the same level's copy. */
#ifndef PD_CONV_WINOGRAD_IMPL_H
#define PD_CONV_WINOGRAD_IMPL_H
#include <stdint.h>
#include "conv_geom.h"
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_alloc.h"
#include <oneapi/dnnl/dnnl.h>
#include "conv_dnnl.h"

typedef __m256 v8;
#define NPMAX 36 /* transform points: 16 (4x4) for F(2x2, 3x3), 36 (6x6) for F(4x4, 3x3) */

/* 8 channels of x starting at c0 (a multiple of 8) of image n at input position pos */
typedef struct {
  const float *base; /* channel c0, position 0 */
  int64_t ps;        /* position stride */
  int64_t ls;        /* lane (channel) stride: 1 blocked, HW plain */
} chan8;

static inline chan8 chan8_of(const float *x, int64_t C, int64_t HW, int64_t B, int64_t n, int64_t c0) {
  chan8 r;
  if (B) {
    r.base = x + n * C * HW + (c0 / B) * HW * B + c0 % B;
    r.ps = B;
    r.ls = 1;
  } else {
    r.base = x + (n * C + c0) * HW;
    r.ps = 1;
    r.ls = HW;
  }
  return r;
}

static inline v8 ld8(const chan8 *s, int64_t pos) {
  const float *p = s->base + pos * s->ps;
  if (s->ls == 1) return _mm256_loadu_ps(p);
  const int64_t l = s->ls;
  return _mm256_setr_ps(p[0], p[l], p[2 * l], p[3 * l], p[4 * l], p[5 * l], p[6 * l], p[7 * l]);
}

/* the microkernel's register tile: MR tiles (rows of V) x NR output channels (U's panel width) */
#if defined(__AVX512F__)
#define MR 12
#define NR 32
#else
#define MR 6
#define NR 16
#endif

/* M[mr x NR] = V rows (mr <= MR, stride ldv) x Up [K][NR] at one vector width (VT, intrinsics prefix
 * P, W lanes: NR = 2 W): 2 mr accumulators (24 zmm at the AVX-512 MR); one 64-byte line from pf + 16 k
 * prefetched per k (work_item passes a slice of the next panel of U, whose first pass would otherwise
 * wait on memory; into L1 measured 0.97-0.98 of the time per layer of into L2); mr a constant in each
 * caller (unrolled) */
#define DEF_MK_ROWS(VT, P, W)                                                                                 \
  static inline __attribute__((always_inline)) void mk_rows(const float *restrict V, int64_t ldv,            \
                                                            const float *restrict Up, int64_t K,             \
                                                            float *restrict M, int64_t ldm, const float *pf, \
                                                            const int mr) {                                  \
    VT c0[MR], c1[MR];                                                                                        \
    _Pragma("GCC unroll 12") for (int i = 0; i < mr; i++) c0[i] = c1[i] = P##_setzero_ps();                  \
    for (int64_t k = 0; k < K; k++) {                                                                         \
      _mm_prefetch((const char *)(pf + k * 16), _MM_HINT_T0);                                                 \
      const VT b0 = P##_load_ps(Up + k * 2 * W), b1 = P##_load_ps(Up + k * 2 * W + W);                        \
      _Pragma("GCC unroll 12") for (int i = 0; i < mr; i++) {                                                 \
        const VT a = P##_set1_ps(V[i * ldv + k]);                                                             \
        c0[i] = P##_fmadd_ps(a, b0, c0[i]);                                                                   \
        c1[i] = P##_fmadd_ps(a, b1, c1[i]);                                                                   \
      }                                                                                                       \
    }                                                                                                         \
    _Pragma("GCC unroll 12") for (int i = 0; i < mr; i++) {                                                   \
      P##_store_ps(M + i * ldm, c0[i]);                                                                       \
      P##_store_ps(M + i * ldm + W, c1[i]);                                                                   \
    }                                                                                                         \
  }


/* mk_tail: mr < MR rows of a tile block (no padded rows: 49 tiles cost 49 rows, 10 + 10 + 10 + 10 + 9,
 * not 60), each mr its unrolled mk_rows; after DEF_MK_ROWS (the width of the short blocks) */
#define MK_CASE(n)                         \
  case n:                                  \
    mk_rows(V, ldv, Up, K, M, ldm, pf, n); \
    break;
#if MR > 6
#define MK_CASES_HI MK_CASE(6) MK_CASE(7) MK_CASE(8) MK_CASE(9) MK_CASE(10) MK_CASE(11)
#else
#define MK_CASES_HI
#endif
#define DEF_MK_TAIL                                                                                         \
  static void mk_tail(const float *restrict V, int64_t ldv, const float *restrict Up, int64_t K,           \
                      float *restrict M, int64_t ldm, const float *pf, int mr) {                            \
    switch (mr) {                                                                                           \
      MK_CASE(1) MK_CASE(2) MK_CASE(3) MK_CASE(4) MK_CASE(5) MK_CASES_HI default : break;                    \
    }                                                                                                       \
  }

#if defined(__AVX512F__)
typedef __m512 v16;
/* 16 channels c0..c0+15 (c0 a multiple of 16) at input position pos: one load (blocks of 16k), two
 * (blocks of 8: channel blocks c0/8 and c0/8 + 1), or a gather (plain) */
static inline v16 ld16(const chan8 *s, int64_t pos, int64_t bstride) {
  const float *p = s->base + pos * s->ps;
  if (s->ls == 1 && !bstride) return _mm512_loadu_ps(p);
  if (s->ls == 1)
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(p)), _mm256_loadu_ps(p + bstride), 1);
  const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                         _mm512_set1_epi32((int)s->ls));
  return _mm512_i32gather_ps(idx, p, 4);
}

/* y + bias clamped to [lo, hi] at q: 16 channels of a block of 16k, or two blocks of 8 (the second
 * OHW * 8 further) */
static inline void st16y(float *q, v16 y, v16 bv, v16 lo, v16 hi, int64_t yB, int64_t OHW) {
  const v16 v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(y, bv), lo), hi);
  if (yB == 8) {
    _mm256_storeu_ps(q, _mm512_castps512_ps256(v));
    _mm256_storeu_ps(q + OHW * 8, _mm512_extractf32x8_ps(v, 1));
  } else
    _mm512_storeu_ps(q, v);
}
#endif

/* G of F(r x r, 3x3): 4x3 for r = 2, 6x3 for r = 4 (interpolation points 0, 1, -1 [, 2, -2], inf) */
static const float G2[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
static const float G4[6][3] = {{0.25f, 0, 0},
                               {-1.0f / 6, -1.0f / 6, -1.0f / 6},
                               {-1.0f / 6, 1.0f / 6, -1.0f / 6},
                               {1.0f / 24, 1.0f / 12, 1.0f / 6},
                               {1.0f / 24, -1.0f / 12, 1.0f / 6},
                               {0, 0, 1}};

typedef struct {
  const float *x, *U, *bias;
  float *y;
  int64_t N, C, O, ONR, H, W, OH, OW, pt, pl, xB, yB; /* ONR: O padded to the panel width NR */
  int64_t OP; /* y's channels per image: O, or O padded to whole yB blocks (zero padding lanes) */
  int r; /* output tile r x r: 2 or 4 */
  int lay_pad; /* floats after each tile's points (tile-major) */
  int lay; /* V and M tile-major, [tile][point][C or ow], where 0: point-major [point][tile][..] */
  int64_t TH, TW, T, TB, nb, noc, OC; /* tiles per column / row / in all, block, blocks, O chunks, chunk width */
  float lo, hi;
} wjob;

/* U[p][ob][c][NR] = G g G^T of w [O, C, 3, 3] (tr = 1: the transposed convolution's filter, w [C, O, 3, 3]) */
void pd_wino_filter_transform(const float *w, int64_t O, int64_t C, int64_t ONR, int r, int tr, float *U);
/* V of tiles t0 .. t0 + tn - 1 (a block of TBp rows) */
void pd_wino_input_transform(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, float *V);
/* the blocking for N images C x H x W -> O x OH x OW, pads pt / pl, tile r */
void pd_wino_job_init(wjob *j, int64_t N, int64_t C, int64_t O, int64_t H, int64_t W, int64_t OH, int64_t OW,
                      int64_t pt, int64_t pl, int r);
/* runs the job: 1, or -1 with the error set */
int pd_wino_job_run(const wjob *j);
/* PADDLE_C_WINOGRAD: -1 auto, 0 off, 2 or 4 the tile */
int pd_wino_mode_env(void);
/* the measured tile for g (0: oneDNN is faster); infer: the predictor's rule */
int pd_wino_worth_it(const pd_conv_geom *g, int infer);
/* 2-D NCHW, one group, 3x3, stride 1, dilation 1, pads 0..pmax */
int pd_wino_eligible(const pd_conv_geom *g, int pmax);
/* whether the environment variable name is "0" (an A/B switch turned off), read per call so one
 * process can A/B two predictors or tests can switch it between runs */
static inline int pd_wino_env_off(const char *name) {
  const char *e = getenv(name);
  return e && !strcmp(e, "0");
}
#endif
