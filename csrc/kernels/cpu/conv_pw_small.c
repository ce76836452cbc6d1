/* Direct 1x1 convolution on small planes (conv_pw_small.h), the predictor's 7x7 layers of
 * ResNet-style networks at batch 1. Compiled once per ISA level (tools/buildcfg.py ISA_SOURCES):
 * the AVX-512 copy computes, the AVX2 copy declines (oneDNN runs those).
 *
 * Why it pays: with 49 output positions each weight is used 49 times, so a 512x2048 layer (4 MB of
 * weights, read from memory once per inference) is bound by streaming the weights, not by the
 * FMAs. oneDNN's jit_1x1 computes at peak on hot weights but stalls on cold ones; this kernel
 * walks the filter once, in the order it is stored, and prefetches the next slab of output
 * channels while computing the current one.
 *
 * Layouts: x [N][C/16][IH*IW][16], y [N][O/16][OH*OW][16], the packed filter [O/64][C][nb][16]
 * (nb = 4 output blocks per slab, fewer in the last), built once per filter in the weight cache.
 * Microkernel: nb output blocks x 7 output positions = up to 28 zmm accumulators; per input
 * channel nb weight loads, 7 broadcasts of x, 28 FMAs; bias at the start, the residual (y's
 * value), the clamp (relu / clip) and the store at the end. Positions of one tile stay in one
 * output row (stride 2 reads every other input column). */
#include <stdlib.h>
#include <string.h>
#include "conv_pw_small.h"
#include "conv_dnnl.h"

#if defined(PD_ISA_LEVEL_AVX512)
#include <immintrin.h>

enum { NB = 4, NQ = 7, BLK = 16 };

/* the most output positions (N * OH * OW) taken: 7x7 at batch 1..2 (ResNet-50's stage 4); at
 * 14x14 oneDNN's jit_1x1 is as fast or faster (weights reused 196 times are not bound by memory) */
#define PW_MAX_POSITIONS 128

typedef struct {
  const float *x, *w, *bias;
  float *y;
  int64_t C, O, IH, IW, OH, OW, s;
  int sum;
  float lo, hi;
} pwjob;

/* nq positions (one output row, x positions S apart) x nb output blocks. pf: the next slab's
 * weights, pfl lines of 64 bytes prefetched per input-channel block from byte pfo + cb * pfl * 64 */
static inline __attribute__((always_inline)) void tile(const pwjob *j, const float *restrict x, const float *restrict w,
                                                       float *restrict y, const float *bias, int nq, int nb, const int S,
                                                       const char *pf, int64_t pfo, int64_t pfl, int64_t pfn) {
  __m512 acc[NB][NQ];
  for (int b = 0; b < NB; b++) {
    const __m512 v = b < nb && bias ? _mm512_loadu_ps(bias + b * BLK) : _mm512_setzero_ps();
    for (int q = 0; q < NQ; q++) acc[b][q] = v;
  }
  const int64_t CB = j->C / BLK, XP = j->IH * j->IW * BLK, ws = (int64_t)nb * BLK;
  for (int64_t cb = 0; cb < CB; cb++) {
    const float *xp = x + cb * XP;
    const float *wp = w + cb * BLK * ws;
    if (pf) {
      const int64_t o = pfo + cb * pfl * 64;
      for (int64_t l = 0; l < pfl && o + l * 64 < pfn; l++) _mm_prefetch(pf + o + l * 64, _MM_HINT_T0);
    }
    for (int k = 0; k < BLK; k++) {
      __m512 wv[NB];
      for (int b = 0; b < NB; b++)
        if (b < nb) wv[b] = _mm512_load_ps(wp + k * ws + b * BLK);
      for (int q = 0; q < NQ; q++)
        if (q < nq) {
          const __m512 xv = _mm512_set1_ps(xp[q * S * BLK + k]);
          for (int b = 0; b < NB; b++)
            if (b < nb) acc[b][q] = _mm512_fmadd_ps(wv[b], xv, acc[b][q]);
        }
    }
  }
  const __m512 lo = _mm512_set1_ps(j->lo), hi = _mm512_set1_ps(j->hi);
  const int64_t OP = j->OH * j->OW * BLK;
  for (int b = 0; b < NB; b++)
    if (b < nb)
      for (int q = 0; q < NQ; q++)
        if (q < nq) {
          float *yp = y + b * OP + q * BLK;
          __m512 v = acc[b][q];
          if (j->sum) v = _mm512_add_ps(v, _mm512_loadu_ps(yp));
          _mm512_storeu_ps(yp, _mm512_min_ps(_mm512_max_ps(v, lo), hi));
        }
}

/* the full tile (4 blocks x 7 positions) per stride, and the partial ones */
static void __attribute__((noinline)) tile_full1(const pwjob *j, const float *x, const float *w, float *y,
                                                 const float *bias, const char *pf, int64_t pfo, int64_t pfl, int64_t pfn) {
  tile(j, x, w, y, bias, NQ, NB, 1, pf, pfo, pfl, pfn);
}
static void __attribute__((noinline)) tile_full2(const pwjob *j, const float *x, const float *w, float *y,
                                                 const float *bias, const char *pf, int64_t pfo, int64_t pfl, int64_t pfn) {
  tile(j, x, w, y, bias, NQ, NB, 2, pf, pfo, pfl, pfn);
}
static void __attribute__((noinline)) tile_part(const pwjob *j, const float *x, const float *w, float *y,
                                                const float *bias, int nq, int nb, int S) {
#define TP(NBV)                                                                                       \
  case NBV:                                                                                           \
    if (S == 1) tile(j, x, w, y, bias, nq, NBV, 1, NULL, 0, 0, 0);                                    \
    else tile(j, x, w, y, bias, nq, NBV, 2, NULL, 0, 0, 0);                                           \
    break;
  switch (nb) { TP(1) TP(2) TP(3) TP(4) default: break; }
#undef TP
}

/* slab gi (output blocks 4 gi .. 4 gi + nb - 1) over every sample and output position, the next
 * slab's weights prefetched over its tiles (the whole slab within the first 16 * nb_next tiles) */
static void slab(const pwjob *j, int64_t N, int64_t gi) {
  const int64_t OB = j->O / BLK, G = (OB + NB - 1) / NB, C = j->C, S = j->s;
  const int nb = (int)(OB - gi * NB < NB ? OB - gi * NB : NB);
  const float *w = j->w + gi * C * NB * BLK;
  const float *bias = j->bias ? j->bias + gi * NB * BLK : NULL;
  /* tiles per sample: stride 1 runs the plane as one row */
  const int64_t rows = S == 1 ? 1 : j->OH, cols = S == 1 ? j->OH * j->OW : j->OW;
  const int64_t T = N * rows * ((cols + NQ - 1) / NQ);
  const char *pf = NULL;
  int64_t pfn = 0, pfl = 0;
  if (gi + 1 < G) {
    const int64_t nbn = OB - (gi + 1) * NB < NB ? OB - (gi + 1) * NB : NB;
    pf = (const char *)(w + C * nb * BLK);
    pfn = C * nbn * BLK * (int64_t)sizeof(float);
    pfl = (16 * nbn + T - 1) / T;
  }
  int64_t t = 0;
  for (int64_t n = 0; n < N; n++) {
    const float *xn = j->x + n * C * j->IH * j->IW;
    float *yn = j->y + (n * OB + gi * NB) * j->OH * j->OW * BLK;
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c0 = 0; c0 < cols; c0 += NQ, t++) {
        const int nq = (int)(cols - c0 < NQ ? cols - c0 : NQ);
        const float *xt = xn + (r * S * j->IW + c0 * S) * BLK;
        float *yt = yn + (r * j->OW + c0) * BLK;
        if (nq == NQ && nb == NB && S == 1) tile_full1(j, xt, w, yt, bias, pf, t * (C / BLK) * pfl * 64, pfl, pfn);
        else if (nq == NQ && nb == NB) tile_full2(j, xt, w, yt, bias, pf, t * (C / BLK) * pfl * 64, pfl, pfn);
        else tile_part(j, xt, w, yt, bias, nq, nb, (int)S);
      }
  }
}

/* [O, C] -> [O/64][C][nb][16] */
static void pack(const float *w, int64_t O, int64_t C, float *u) {
  const int64_t OB = O / BLK;
  for (int64_t o = 0; o < O; o++) {
    const int64_t gi = o / (NB * BLK), nb = OB - gi * NB < NB ? OB - gi * NB : NB, b = (o / BLK) % NB;
    float *d = u + gi * C * NB * BLK + b * BLK + o % BLK;
    for (int64_t c = 0; c < C; c++) d[c * nb * BLK] = w[o * C + c];
  }
}

static int enabled(void) {
  const char *e = getenv("PADDLE_C_CONV_PW_SMALL");
  return !e || strcmp(e, "0") != 0;
}

int pd_conv_pw_small(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, int sum, float lo, float hi) {
  if (g->nsp != 2 || g->nhwc || g->G != 1 || g->k[0] != 1 || g->k[1] != 1 || g->d[0] != 1 || g->d[1] != 1) return 0;
  if (g->s[0] != g->s[1] || (g->s[0] != 1 && g->s[0] != 2)) return 0;
  if (g->pl[0] || g->pl[1] || g->pr[0] || g->pr[1] || xblk != BLK || yblk != BLK || g->C % BLK || g->O % BLK) return 0;
  if (g->N <= 0 || g->out[0] <= 0 || g->out[1] <= 0 || g->N * g->out[0] * g->out[1] > PW_MAX_POSITIONS) return 0;
  if (g->s[0] == 1 && (g->in[0] != g->out[0] || g->in[1] != g->out[1])) return 0;
  if (!enabled()) return 0;
  int fresh = 0;
  float *u = pd_conv_wcache_aux(w, 0x7031, sizeof(float) * (size_t)(g->O * g->C), &fresh);
  if (!u) return 0; /* no weight cache (eager) or no memory for it: oneDNN */
  if (fresh) pack(w, g->O, g->C, u);
  pwjob j = {x, u, bias, y, g->C, g->O, g->in[0], g->in[1], g->out[0], g->out[1], g->s[0], sum, lo, hi};
  const int64_t G = (g->O / BLK + NB - 1) / NB, N = g->N;
  const size_t xbytes = sizeof(float) * (size_t)(N * g->C * g->in[0] * g->in[1]);
  const int touch = pd_conv_pretouch_on(xbytes, 2);
#pragma omp parallel if (G > 1)
  {
    if (touch) pd_conv_pretouch(x, xbytes); /* each slab reads all of x in rows of 7 positions */
#pragma omp for schedule(static)
    for (int64_t gi = 0; gi < G; gi++) slab(&j, N, gi);
  }
  return 1;
}
#else
int pd_conv_pw_small(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, int sum, float lo, float hi) {
  (void)g, (void)x, (void)xblk, (void)w, (void)bias, (void)y, (void)yblk, (void)sum, (void)lo, (void)hi;
  return 0;
}
#endif
