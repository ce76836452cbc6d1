/* Direct convolution on small planes (conv_pw_small.h), the predictor's 7x7 layers of ResNet-style
 * networks at batch 1: the 1x1 layers, and the stride-2 3x3 one (any kernel up to 7x7, zero padding
 * through a padded copy of x; the kernel rows walked in passes of up to 512 KB of a slab's weights,
 * partial sums kept in y between passes). Compiled once per ISA level (tools/buildcfg.py ISA_SOURCES):
 * the AVX-512 copy on 16-channel blocks, the AVX2 copy on 8-channel ones (oneDNN's blocks there).
 *
 * Why it pays: with 49 output positions each weight is used 49 times, so a 512x2048 layer (4 MB of
 * weights, read from memory once per inference) is bound by streaming the weights, not by the
 * FMAs. oneDNN's jit_1x1 computes at peak on hot weights but stalls on cold ones; this kernel
 * walks the filter once, in the order it is stored, and prefetches the next slab of output
 * channels while computing the current one. On the AVX2 EPYC (2 threads) oneDNN's jit_1x1:avx2 /
 * jit:avx2 ran ResNet-50's 7x7 layers at 91-134 GFLOP/s (of ~179); here 0.84-0.94 of their time.
 *
 * Layouts (B = 16 on AVX-512, 8 on AVX2): x [N][C/B][IH*IW][B], y [N][O/B][OH*OW][B], the packed
 * filter [O/(NB*B)][KH][KW][C][nb][B] (nb = NB output blocks per slab, fewer in the last), built once
 * per filter in the weight cache. Microkernel: nb output blocks x NQ output positions (AVX-512 4 x 7
 * = up to 28 zmm accumulators, AVX2 3 x 4 = 12 ymm); per input channel nb weight loads, NQ
 * broadcasts of x, nb * NQ FMAs; bias at the start, the residual (y's value), the clamp (relu /
 * clip) and the store at the end. Positions of one tile stay in one output row (stride 2 reads every
 * other input column). */
#include <stdlib.h>
#include <string.h>
#include "conv_pw_small.h"
#include "conv_dnnl.h"
#include "../../core/pd_alloc.h"

#if defined(PD_ISA_LEVEL_AVX512) || defined(PD_ISA_LEVEL_AVX2)
#include <immintrin.h>

#if defined(PD_ISA_LEVEL_AVX512)
/* 4 output blocks x 7 positions: 28 of the 32 zmm registers accumulate */
#define NB 4
#define NQ 7
#define BLK 16
typedef __m512 vf;
#define VLOAD _mm512_load_ps
#define VLOADU _mm512_loadu_ps
#define VSTOREU _mm512_storeu_ps
#define VSET1 _mm512_set1_ps
#define VZERO _mm512_setzero_ps
#define VFMA _mm512_fmadd_ps
#define VADD _mm512_add_ps
#define VMIN _mm512_min_ps
#define VMAX _mm512_max_ps
#else
/* 3 output blocks x 4 positions: 12 ymm accumulators, 3 weight vectors and the broadcast fill the 16;
 * a stride-2 layer's rows of 7 positions are tiles of 4 and 3 (9 accumulator chains: enough to keep
 * both FMA pipes busy through their 4-cycle latency) */
#define NB 3
#define NQ 4
#define BLK 8
typedef __m256 vf;
#define VLOAD _mm256_load_ps
#define VLOADU _mm256_loadu_ps
#define VSTOREU _mm256_storeu_ps
#define VSET1 _mm256_set1_ps
#define VZERO _mm256_setzero_ps
#define VFMA _mm256_fmadd_ps
#define VADD _mm256_add_ps
#define VMIN _mm256_min_ps
#define VMAX _mm256_max_ps
#endif

/* the most output positions (N * OH * OW) taken: 7x7 at batch 1..2 (ResNet-50's stage 4); at
 * 14x14 oneDNN's jit_1x1 is as fast or faster (weights reused 196 times are not bound by memory) */
#define PW_MAX_POSITIONS 128 /* AVX2: 14x14 0.94 / 1.03, 28x28 1.08 of oneDNN's time (session 43) */

typedef struct {
  const float *x, *w, *bias;
  float *y;
  int64_t C, O, IH, IW, OH, OW, s, KH, KW; /* IH, IW: of x as read (the zero-padded copy where padded) */
  int sum;
  float lo, hi;
} pwjob;

/* one pass (kernel rows kh0 .. kh1 - 1, w at the pass's first weight) of nq positions (one output
 * row, x positions S apart) x nb output blocks. The first pass starts from the bias, a later one
 * from y's partial sums; y's value (residual or partial) is added where sum or not the first, the
 * clamp applied by the last. pf: the next pass's weights, pfl lines of 64 bytes prefetched per
 * input-channel block from byte pfo + i * pfl * 64 (i counts the (kh, kw, cb) steps) */
static inline __attribute__((always_inline)) void tile(const pwjob *j, const float *restrict x, const float *restrict w,
                                                       float *restrict y, const float *bias, int nq, int nb, const int S,
                                                       int kh0, int kh1, int first, int last, const char *pf,
                                                       int64_t pfo, int64_t pfl, int64_t pfn) {
  vf acc[NB][NQ];
  for (int b = 0; b < NB; b++) {
    const vf v = b < nb && bias && first ? VLOADU(bias + b * BLK) : VZERO();
    for (int q = 0; q < NQ; q++) acc[b][q] = v;
  }
  const int64_t CB = j->C / BLK, XP = j->IH * j->IW * BLK, ws = (int64_t)nb * BLK;
  int64_t i = 0;
  for (int kh = kh0; kh < kh1; kh++)
    for (int64_t kw = 0; kw < j->KW; kw++)
  for (int64_t cb = 0; cb < CB; cb++, i++) {
    const float *xp = x + cb * XP + (kh * j->IW + kw) * BLK;
    const float *wp = w + i * BLK * ws;
    if (pf) {
      const int64_t o = pfo + i * pfl * 64;
      for (int64_t l = 0; l < pfl && o + l * 64 < pfn; l++) _mm_prefetch(pf + o + l * 64, _MM_HINT_T0);
    }
    for (int k = 0; k < BLK; k++) {
      vf wv[NB];
      for (int b = 0; b < NB; b++)
        if (b < nb) wv[b] = VLOAD(wp + k * ws + b * BLK);
      for (int q = 0; q < NQ; q++)
        if (q < nq) {
          const vf xv = VSET1(xp[q * S * BLK + k]);
          for (int b = 0; b < NB; b++)
            if (b < nb) acc[b][q] = VFMA(wv[b], xv, acc[b][q]);
        }
    }
  }
  const vf lo = VSET1(j->lo), hi = VSET1(j->hi);
  const int64_t OP = j->OH * j->OW * BLK;
  for (int b = 0; b < NB; b++)
    if (b < nb)
      for (int q = 0; q < NQ; q++)
        if (q < nq) {
          float *yp = y + b * OP + q * BLK;
          vf v = acc[b][q];
          if (j->sum || !first) v = VADD(v, VLOADU(yp));
          VSTOREU(yp, last ? VMIN(VMAX(v, lo), hi) : v);
        }
}

/* the full tile (4 blocks x 7 positions) per stride, and the partial ones */
typedef struct {
  int kh0, kh1, first, last;
  const char *pf;
  int64_t pfl, pfn;
} pwpass;
static void __attribute__((noinline)) tile_full1(const pwjob *j, const float *x, const float *w, float *y,
                                                 const float *bias, const pwpass *p, int64_t pfo) {
  tile(j, x, w, y, bias, NQ, NB, 1, p->kh0, p->kh1, p->first, p->last, p->pf, pfo, p->pfl, p->pfn);
}
static void __attribute__((noinline)) tile_full2(const pwjob *j, const float *x, const float *w, float *y,
                                                 const float *bias, const pwpass *p, int64_t pfo) {
  tile(j, x, w, y, bias, NQ, NB, 2, p->kh0, p->kh1, p->first, p->last, p->pf, pfo, p->pfl, p->pfn);
}
#if NQ == 4
/* AVX2: a stride-2 layer's rows of 7 positions end in a tile of 3 (3 / 7 of its work): its own
 * copies, with the weights' prefetch as the full tiles' */
static void __attribute__((noinline)) tile_q3s1(const pwjob *j, const float *x, const float *w, float *y,
                                                const float *bias, const pwpass *p, int64_t pfo) {
  tile(j, x, w, y, bias, NQ - 1, NB, 1, p->kh0, p->kh1, p->first, p->last, p->pf, pfo, p->pfl, p->pfn);
}
static void __attribute__((noinline)) tile_q3s2(const pwjob *j, const float *x, const float *w, float *y,
                                                const float *bias, const pwpass *p, int64_t pfo) {
  tile(j, x, w, y, bias, NQ - 1, NB, 2, p->kh0, p->kh1, p->first, p->last, p->pf, pfo, p->pfl, p->pfn);
}
#endif
static void __attribute__((noinline)) tile_part(const pwjob *j, const float *x, const float *w, float *y,
                                                const float *bias, int nq, int nb, int S, const pwpass *p) {
#define TP(NBV)                                                                                       \
  case NBV:                                                                                           \
    if (S == 1) tile(j, x, w, y, bias, nq, NBV, 1, p->kh0, p->kh1, p->first, p->last, NULL, 0, 0, 0); \
    else tile(j, x, w, y, bias, nq, NBV, 2, p->kh0, p->kh1, p->first, p->last, NULL, 0, 0, 0);        \
    break;
  switch (nb) {
    TP(1) TP(2) TP(3)
#if NB >= 4
    TP(4)
#endif
    default: break;
  }
#undef TP
}

/* kernel rows per pass: a slab's weights of one pass up to 512 KB (L2), at least one row */
static int64_t pass_rows(const pwjob *j, int64_t nb) {
  const int64_t row = j->KW * j->C * nb * BLK * (int64_t)sizeof(float), r = (512 << 10) / row;
  return r < 1 ? 1 : r > j->KH ? j->KH : r;
}

/* slab gi (output blocks 4 gi .. 4 gi + nb - 1) over every sample and output position, in passes
 * over the kernel rows; each pass prefetches the next one's weights (the next slab's first pass
 * after the last) over its tiles */
static void slab(const pwjob *j, int64_t N, int64_t gi) {
  const int64_t OB = j->O / BLK, G = (OB + NB - 1) / NB, C = j->C, S = j->s, KK = j->KH * j->KW;
  const int nb = (int)(OB - gi * NB < NB ? OB - gi * NB : NB);
  const float *w = j->w + gi * KK * C * NB * BLK;
  const float *bias = j->bias ? j->bias + gi * NB * BLK : NULL;
  /* tiles per sample: a stride-1 1x1 layer runs the plane as one row */
  const int flat = S == 1 && KK == 1;
  const int64_t rows = flat ? 1 : j->OH, cols = flat ? j->OH * j->OW : j->OW;
  const int64_t T = N * rows * ((cols + NQ - 1) / NQ);
  const int64_t PK = pass_rows(j, nb), rowf = j->KW * C * nb * BLK; /* floats per kernel row */
  for (int64_t kh0 = 0; kh0 < j->KH; kh0 += PK) {
    const int64_t kh1 = kh0 + PK < j->KH ? kh0 + PK : j->KH;
    const float *wp = w + kh0 * rowf;
    pwpass ps = {(int)kh0, (int)kh1, kh0 == 0, kh1 == j->KH, NULL, 0, 0};
    if (kh1 < j->KH) {
      ps.pf = (const char *)(wp + (kh1 - kh0) * rowf);
      ps.pfn = ((kh1 + PK < j->KH ? kh1 + PK : j->KH) - kh1) * rowf * (int64_t)sizeof(float);
    } else if (gi + 1 < G) {
      const int64_t nbn = OB - (gi + 1) * NB < NB ? OB - (gi + 1) * NB : NB;
      ps.pf = (const char *)(w + KK * C * nb * BLK);
      ps.pfn = pass_rows(j, nbn) * j->KW * C * nbn * BLK * (int64_t)sizeof(float);
    }
    const int64_t NI = (kh1 - kh0) * j->KW * (C / BLK); /* (kh, kw, cb) steps of a tile */
    if (ps.pf) ps.pfl = (ps.pfn / 64 + T * NI - 1) / (T * NI);
    int64_t t = 0;
    for (int64_t n = 0; n < N; n++) {
      const float *xn = j->x + n * C * j->IH * j->IW;
      float *yn = j->y + (n * OB + gi * NB) * j->OH * j->OW * BLK;
      for (int64_t r = 0; r < rows; r++)
        for (int64_t c0 = 0; c0 < cols; c0 += NQ, t++) {
          const int nq = (int)(cols - c0 < NQ ? cols - c0 : NQ);
          const float *xt = xn + (r * S * j->IW + c0 * S) * BLK;
          float *yt = yn + (r * j->OW + c0) * BLK;
          if (nq == NQ && nb == NB && S == 1) tile_full1(j, xt, wp, yt, bias, &ps, t * NI * ps.pfl * 64);
          else if (nq == NQ && nb == NB) tile_full2(j, xt, wp, yt, bias, &ps, t * NI * ps.pfl * 64);
#if NQ == 4
          else if (nq == NQ - 1 && nb == NB && S == 1) tile_q3s1(j, xt, wp, yt, bias, &ps, t * NI * ps.pfl * 64);
          else if (nq == NQ - 1 && nb == NB) tile_q3s2(j, xt, wp, yt, bias, &ps, t * NI * ps.pfl * 64);
#endif
          else tile_part(j, xt, wp, yt, bias, nq, nb, (int)S, &ps);
        }
    }
  }
}

/* [O, C, KH, KW] -> [O/64][KH][KW][C][nb][16] */
static void pack(const float *w, int64_t O, int64_t C, int64_t KK, float *u) {
  const int64_t OB = O / BLK;
  for (int64_t o = 0; o < O; o++) {
    const int64_t gi = o / (NB * BLK), nb = OB - gi * NB < NB ? OB - gi * NB : NB, b = (o / BLK) % NB;
    float *d = u + gi * KK * C * NB * BLK + b * BLK + o % BLK;
    for (int64_t k = 0; k < KK; k++)
      for (int64_t c = 0; c < C; c++) d[(k * C + c) * nb * BLK] = w[(o * C + c) * KK + k];
  }
}

static int env_mode(const char *name) { /* unset: -1 */
  const char *e = getenv(name);
  return !e || !*e ? -1 : strcmp(e, "0") != 0;
}

/* x [N][C/16][IH][IW][16] -> xp [N][C/16][PH][PW][16] with zero borders (top pt, left pl); all of
 * it by the calling thread */
static void pad_copy(const float *x, float *xp, int64_t NCB, int64_t IH, int64_t IW, int64_t PH, int64_t PW,
                     int64_t pt, int64_t pl) {
  for (int64_t nc = 0; nc < NCB; nc++) {
    const float *s = x + nc * IH * IW * BLK;
    float *d = xp + nc * PH * PW * BLK;
    for (int64_t r = 0; r < PH; r++) {
      float *dr = d + r * PW * BLK;
      const int64_t sr = r - pt;
      if (sr < 0 || sr >= IH) {
        memset(dr, 0, sizeof(float) * (size_t)(PW * BLK));
        continue;
      }
      const int64_t c0 = pl, c1 = pl + IW < PW ? pl + IW : PW; /* the copied columns */
      memset(dr, 0, sizeof(float) * (size_t)(c0 * BLK));
      memcpy(dr + c0 * BLK, s + sr * IW * BLK, sizeof(float) * (size_t)((c1 - c0) * BLK));
      memset(dr + c1 * BLK, 0, sizeof(float) * (size_t)((PW - c1) * BLK));
    }
  }
}

int pd_conv_pw_small(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, int sum, float lo, float hi) {
  if (g->nsp != 2 || g->nhwc || g->G != 1 || g->d[0] != 1 || g->d[1] != 1) return 0;
  if (g->s[0] != g->s[1] || (g->s[0] != 1 && g->s[0] != 2)) return 0;
  if (xblk != BLK || yblk != BLK || g->C % BLK || g->O % BLK) return 0;
  if (g->N <= 0 || g->out[0] <= 0 || g->out[1] <= 0 || g->N * g->out[0] * g->out[1] > PW_MAX_POSITIONS) return 0;
  const int64_t KH = g->k[0], KW = g->k[1], S = g->s[0], pt = g->pl[0], pl = g->pl[1];
  const int one = KH == 1 && KW == 1;
  if (one && (pt || pl || g->pr[0] || g->pr[1])) return 0;
  if (one && S == 1 && (g->in[0] != g->out[0] || g->in[1] != g->out[1])) return 0;
  if (KH < 1 || KW < 1 || KH > 7 || KW > 7 || pt < 0 || pl < 0 || pt >= KH || pl >= KW) return 0;
  if (env_mode("PADDLE_C_CONV_PW_SMALL") == 0) return 0;
  if (!one) {
    /* larger kernels (PADDLE_C_CONV_SMALL_KXK: 0 never, 1 every eligible layer, unset the rule):
     * stride 2 (ResNet-50's 512 x 14 -> 7 layer at batch 1: faster than oneDNN's direct kernel at two
     * threads and than the polyphase Winograd at one); at stride 1 the Winograd layers stay faster
     * (docs/performance_log.md "1x1 convolutions on small planes") */
    const int m = env_mode("PADDLE_C_CONV_SMALL_KXK");
    if (m == 0 || (m < 0 && S != 2)) return 0;
  }
  const int64_t KK = KH * KW;
  int fresh = 0;
  float *u = pd_conv_wcache_aux(w, one ? 0x7031 : 0x7033, sizeof(float) * (size_t)(g->O * g->C * KK), &fresh);
  if (!u) return 0; /* no weight cache (eager) or no memory for it: oneDNN */
  if (fresh) pack(w, g->O, g->C, KK, u);
  /* the rows / columns read: the zero-padded copy where the kernel reaches past x */
  const int64_t PH = (g->out[0] - 1) * S + KH, PW = (g->out[1] - 1) * S + KW;
  const int padded = !one && (pt || pl || PH > g->in[0] + pt || PW > g->in[1] + pl);
  pwjob j = {x, u, bias, y, g->C, g->O, padded ? PH : g->in[0], padded ? PW : g->in[1], g->out[0],
             g->out[1], S, KH, KW, sum, lo, hi};
  const int64_t G = (g->O / BLK + NB - 1) / NB, N = g->N;
  const size_t xbytes = sizeof(float) * (size_t)(N * g->C * g->in[0] * g->in[1]);
  const size_t pbytes = sizeof(float) * (size_t)(N * g->C * PH * PW);
  const int touch = !padded && pd_conv_pretouch_on(xbytes, 2);
  int ok = 1;
#pragma omp parallel if (G > 1)
  {
    /* where padded, each thread its own zero-padded copy of x (every slab reads all of it: a copy
     * shared by the threads had half of it written by the other core, across core complexes a
     * remote read at every slab) */
    pwjob jt = j;
    float *xp = padded ? (float *)pd_alloc(pbytes) : NULL;
    if (padded && !xp) {
#pragma omp atomic write
      ok = 0;
    }
    if (xp) {
      pad_copy(x, xp, N * (g->C / BLK), g->in[0], g->in[1], PH, PW, pt, pl);
      jt.x = xp;
    }
    if (touch) pd_conv_pretouch(x, xbytes); /* each slab reads all of x in rows of 7 positions */
#pragma omp for schedule(static)
    for (int64_t gi = 0; gi < G; gi++)
      if (!padded || xp) slab(&jt, N, gi);
    pd_free(xp);
  }
  if (!ok) {
    pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d] out of memory for a padded copy of the input (%zu bytes)", pbytes);
    return -1;
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
