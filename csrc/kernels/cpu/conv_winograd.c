/* Winograd F(2x2, 3x3) for the predictor's stride-1 3x3 convolutions (conv_winograd.h;
 * docs/architecture.md "Winograd convolutions in the predictor"). oneDNN 3.2 has no Winograd
 * convolution for AVX2 (its jit:avx2 / brgconv:avx2 kernels are direct), so on this level a 3x3
 * layer does 9 multiply-adds per output and input channel; F(2x2, 3x3) does 4.
 *   U = G g G^T (4x4 per output/input channel pair, once per predictor: the weight cache)
 *   V = B^T d B (4x4 per 2x2 output tile and input channel, d the tile's 4x4 input patch)
 *   M[p] = V[p] U[p] for each of the 16 points p: a GEMM [tiles x C] x [C x O]
 *   y = A^T M A (2x2 per tile and output channel) + bias, clamped (relu / relu6 / clip)
 * Work: the tiles of the whole batch in blocks of TB (a multiple of 6, the microkernel's rows),
 * times chunks of output channels when there are fewer blocks than threads; each work item
 * transforms its tiles' inputs into a thread-local V (16 x TB x C), multiplies (an AVX2 6x16
 * microkernel over the 16 points, U packed [p][O/16][C][16]) into M, and writes the outputs. One
 * OpenMP region (the project's pool); scratch from pd_alloc.
 * Vectors run across 8 channels, so the blocked layouts (nChw8c; NHWC) load and store whole
 * vectors; plain NCHW inputs gather (the predictor's first convolution after a plain op). */
#include "conv_winograd.h"
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_alloc.h"
#include "conv_dnnl.h"

typedef __m256 v8;
#define NP 16 /* transform points (4x4) */

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

static inline void st8(float *base, int64_t ps, int64_t ls, int64_t pos, v8 v) {
  float *p = base + pos * ps;
  if (ls == 1) {
    _mm256_storeu_ps(p, v);
    return;
  }
  float t[8];
  _mm256_storeu_ps(t, v);
  for (int i = 0; i < 8; i++) p[i * ls] = t[i];
}

/* U[p][ob][c][16] (O padded to O16 with zeros) from w [O, C, 3, 3] */
static void filter_transform(const float *w, int64_t O, int64_t C, int64_t O16, float *U) {
  const int64_t OB = O16 / 16;
#pragma omp parallel for if (O * C > 4096)
  for (int64_t o = 0; o < O16; o++) {
    const int64_t ob = o / 16, ol = o % 16;
    for (int64_t c = 0; c < C; c++) {
      float u[4][4];
      if (o < O) {
        const float *g = w + (o * C + c) * 9;
        float t[4][3]; /* G g: rows */
        for (int j = 0; j < 3; j++) {
          t[0][j] = g[j];
          t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
          t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
          t[3][j] = g[6 + j];
        }
        for (int i = 0; i < 4; i++) { /* (G g) G^T */
          u[i][0] = t[i][0];
          u[i][1] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
          u[i][2] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
          u[i][3] = t[i][2];
        }
      } else {
        memset(u, 0, sizeof u);
      }
      for (int p = 0; p < NP; p++) U[((p * OB + ob) * C + c) * 16 + ol] = u[p / 4][p % 4];
    }
  }
}

/* acc[6 x 16] = V rows (6, stride ldv) x Up [K][16]; M rows stride ldm */
static inline void mk6x16(const float *restrict V, int64_t ldv, const float *restrict Up, int64_t K, float *restrict M,
                          int64_t ldm) {
  v8 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00,
     a40 = a00, a41 = a00, a50 = a00, a51 = a00;
  const float *v0 = V, *v1 = V + ldv, *v2 = V + 2 * ldv, *v3 = V + 3 * ldv, *v4 = V + 4 * ldv, *v5 = V + 5 * ldv;
  for (int64_t k = 0; k < K; k++) {
    const v8 b0 = _mm256_load_ps(Up + k * 16), b1 = _mm256_load_ps(Up + k * 16 + 8);
    v8 a;
    a = _mm256_broadcast_ss(v0 + k);
    a00 = _mm256_fmadd_ps(a, b0, a00);
    a01 = _mm256_fmadd_ps(a, b1, a01);
    a = _mm256_broadcast_ss(v1 + k);
    a10 = _mm256_fmadd_ps(a, b0, a10);
    a11 = _mm256_fmadd_ps(a, b1, a11);
    a = _mm256_broadcast_ss(v2 + k);
    a20 = _mm256_fmadd_ps(a, b0, a20);
    a21 = _mm256_fmadd_ps(a, b1, a21);
    a = _mm256_broadcast_ss(v3 + k);
    a30 = _mm256_fmadd_ps(a, b0, a30);
    a31 = _mm256_fmadd_ps(a, b1, a31);
    a = _mm256_broadcast_ss(v4 + k);
    a40 = _mm256_fmadd_ps(a, b0, a40);
    a41 = _mm256_fmadd_ps(a, b1, a41);
    a = _mm256_broadcast_ss(v5 + k);
    a50 = _mm256_fmadd_ps(a, b0, a50);
    a51 = _mm256_fmadd_ps(a, b1, a51);
  }
  _mm256_store_ps(M, a00), _mm256_store_ps(M + 8, a01);
  _mm256_store_ps(M + ldm, a10), _mm256_store_ps(M + ldm + 8, a11);
  _mm256_store_ps(M + 2 * ldm, a20), _mm256_store_ps(M + 2 * ldm + 8, a21);
  _mm256_store_ps(M + 3 * ldm, a30), _mm256_store_ps(M + 3 * ldm + 8, a31);
  _mm256_store_ps(M + 4 * ldm, a40), _mm256_store_ps(M + 4 * ldm + 8, a41);
  _mm256_store_ps(M + 5 * ldm, a50), _mm256_store_ps(M + 5 * ldm + 8, a51);
}

typedef struct {
  const float *x, *U, *bias;
  float *y;
  int64_t N, C, O, O16, H, W, OH, OW, pt, pl, xB, yB;
  int64_t TH, TW, T, TB, nb, noc, OC; /* tiles per column / row / in all, block, blocks, O chunks, chunk width */
  float lo, hi;
} wjob;

/* V[p][t][C] for tiles [t0, t0 + tn) (rows tn..TBp-1 zero) */
static void input_transform(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, float *V) {
  const int64_t C = j->C, H = j->H, W = j->W, HW = H * W, per_img = j->TH * j->TW;
  const v8 z = _mm256_setzero_ps();
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t iy0 = ty * 2 - j->pt, ix0 = tx * 2 - j->pl;
    const int inside = iy0 >= 0 && ix0 >= 0 && iy0 + 4 <= H && ix0 + 4 <= W;
    for (int64_t c0 = 0; c0 < C; c0 += 8) {
      const chan8 s = chan8_of(j->x, C, HW, j->xB, n, c0);
      v8 d[4][4];
      if (inside) {
        for (int a = 0; a < 4; a++)
          for (int b = 0; b < 4; b++) d[a][b] = ld8(&s, (iy0 + a) * W + ix0 + b);
      } else {
        for (int a = 0; a < 4; a++)
          for (int b = 0; b < 4; b++) {
            const int64_t iy = iy0 + a, ix = ix0 + b;
            d[a][b] = iy >= 0 && iy < H && ix >= 0 && ix < W ? ld8(&s, iy * W + ix) : z;
          }
      }
      v8 t4[4][4]; /* B^T d */
      for (int b = 0; b < 4; b++) {
        t4[0][b] = _mm256_sub_ps(d[0][b], d[2][b]);
        t4[1][b] = _mm256_add_ps(d[1][b], d[2][b]);
        t4[2][b] = _mm256_sub_ps(d[2][b], d[1][b]);
        t4[3][b] = _mm256_sub_ps(d[1][b], d[3][b]);
      }
      float *vp = V + tl * C + c0;
      const int64_t ps = TBp * C; /* point stride */
      for (int a = 0; a < 4; a++) { /* (B^T d) B */
        _mm256_store_ps(vp + (a * 4 + 0) * ps, _mm256_sub_ps(t4[a][0], t4[a][2]));
        _mm256_store_ps(vp + (a * 4 + 1) * ps, _mm256_add_ps(t4[a][1], t4[a][2]));
        _mm256_store_ps(vp + (a * 4 + 2) * ps, _mm256_sub_ps(t4[a][2], t4[a][1]));
        _mm256_store_ps(vp + (a * 4 + 3) * ps, _mm256_sub_ps(t4[a][1], t4[a][3]));
      }
    }
  }
  for (int p = 0; p < NP; p++)
    if (TBp > tn) memset(V + (p * TBp + tn) * C, 0, sizeof(float) * (size_t)((TBp - tn) * C));
}

/* y for tiles [t0, t0 + tn) and output channels [oc0, oc0 + ow) from M[p][t][ow] */
static void output_transform(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, int64_t oc0, int64_t ow,
                             const float *M) {
  const int64_t O = j->O, OH = j->OH, OW = j->OW, OHW = OH * OW, per_img = j->TH * j->TW;
  const v8 lo = _mm256_set1_ps(j->lo), hi = _mm256_set1_ps(j->hi);
  const int64_t ps = TBp * ow;
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t oy = ty * 2, ox = tx * 2;
    for (int64_t o = 0; o < ow && oc0 + o < O; o += 8) {
      const int64_t oo = oc0 + o;
      const float *mp = M + tl * ow + o;
      v8 m[16];
      for (int p = 0; p < NP; p++) m[p] = _mm256_load_ps(mp + p * ps);
      v8 s[2][4]; /* A^T m */
      for (int b = 0; b < 4; b++) {
        s[0][b] = _mm256_add_ps(_mm256_add_ps(m[b], m[4 + b]), m[8 + b]);
        s[1][b] = _mm256_sub_ps(_mm256_sub_ps(m[4 + b], m[8 + b]), m[12 + b]);
      }
      const v8 bv = j->bias ? _mm256_loadu_ps(j->bias + oo) : _mm256_setzero_ps();
      v8 r[2][2];
      for (int a = 0; a < 2; a++) {
        r[a][0] = _mm256_add_ps(_mm256_add_ps(s[a][0], s[a][1]), s[a][2]);
        r[a][1] = _mm256_sub_ps(_mm256_sub_ps(s[a][1], s[a][2]), s[a][3]);
      }
      float *base;
      int64_t yps, yls;
      if (j->yB) {
        base = j->y + n * O * OHW + (oo / j->yB) * OHW * j->yB + oo % j->yB;
        yps = j->yB;
        yls = 1;
      } else {
        base = j->y + (n * O + oo) * OHW;
        yps = 1;
        yls = OHW;
      }
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
          if (oy + a < OH && ox + b < OW) {
            v8 v = _mm256_add_ps(r[a][b], bv);
            v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
            st8(base, yps, yls, (oy + a) * OW + ox + b, v);
          }
    }
  }
}

static void work_item(const wjob *j, int64_t it, float *V, float *M) {
  const int64_t bi = it / j->noc, oi = it % j->noc;
  const int64_t t0 = bi * j->TB, tn = t0 + j->TB <= j->T ? j->TB : j->T - t0;
  const int64_t TBp = (tn + 5) / 6 * 6;
  const int64_t oc0 = oi * j->OC, ow = oc0 + j->OC <= j->O16 ? j->OC : j->O16 - oc0;
  const int64_t C = j->C, OB = j->O16 / 16;
  input_transform(j, t0, tn, TBp, V);
  for (int p = 0; p < NP; p++) {
    const float *Vp = V + p * TBp * C;
    float *Mp = M + p * TBp * ow;
    for (int64_t o = 0; o < ow; o += 16) {
      const float *Up = j->U + ((p * OB + (oc0 + o) / 16) * C) * 16;
      for (int64_t r = 0; r < TBp; r += 6) mk6x16(Vp + r * C, C, Up, C, Mp + r * ow + o, ow);
    }
  }
  output_transform(j, t0, tn, TBp, oc0, ow, M);
}

/* PADDLE_C_WINOGRAD: 0 off, 1 every eligible geometry, unset/auto: where measured faster */
static int mode_env(void) {
  const char *e = getenv("PADDLE_C_WINOGRAD");
  if (!e || !*e || !strcmp(e, "auto")) return 2;
  return strcmp(e, "0") != 0;
}

/* where F(2x2, 3x3) measured faster than oneDNN's direct kernels on this AVX2 EPYC (docs) */
static int worth_it(const pd_conv_geom *g) {
#if defined(__AVX512F__)
  (void)g;
  return 0; /* oneDNN's AVX-512 kernels: not measured against */
#else
  /* one thread, blocked in and out, per layer (CPU time): 0.55-0.85 of oneDNN's time from 16 channels
   * at 80x80 to 512 at 7x7 (16 channels at 80x80, batch 16: 0.97) */
  return g->C >= 16 && g->O >= 16 && g->out[0] * g->out[1] >= 16;
#endif
}

int pd_conv_winograd(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, float lo, float hi) {
  if (g->nsp != 2 || g->nhwc || g->G != 1 || g->k[0] != 3 || g->k[1] != 3 || g->s[0] != 1 || g->s[1] != 1 ||
      g->d[0] != 1 || g->d[1] != 1 || g->pl[0] > 1 || g->pl[1] > 1 || g->pr[0] > 1 || g->pr[1] > 1 || g->C % 8 ||
      g->O % 8 || xblk % 8 || yblk % 8 || g->N <= 0 || g->out[0] <= 0 || g->out[1] <= 0)
    return 0;
  if ((xblk && g->C % xblk) || (yblk && g->O % yblk)) return 0;
  const int mode = mode_env();
  if (!mode || (mode == 2 && !worth_it(g))) return 0;
  const int64_t O = g->O, C = g->C, O16 = (O + 15) / 16 * 16;
  const size_t usz = sizeof(float) * (size_t)(NP * O16 * C);
  int fresh = 0;
  float *U = pd_conv_wcache_aux(w, 0x3e3 /* F(2,3) */, usz, &fresh);
  if (!U) return 0; /* no weight cache (eager) or no memory for it: oneDNN */
  if (fresh) filter_transform(w, O, C, O16, U);

  wjob j;
  memset(&j, 0, sizeof j);
  j.x = x, j.U = U, j.bias = bias, j.y = y;
  j.N = g->N, j.C = C, j.O = O, j.O16 = O16, j.H = g->in[0], j.W = g->in[1], j.OH = g->out[0], j.OW = g->out[1];
  j.pt = g->pl[0], j.pl = g->pl[1], j.xB = xblk, j.yB = yblk, j.lo = lo, j.hi = hi;
  j.TH = (j.OH + 1) / 2, j.TW = (j.OW + 1) / 2, j.T = j.N * j.TH * j.TW;
  /* a block's V[p] (TB x C floats) stays in L2 while the 16-column panels of U[p] pass through */
  int64_t TB = 24576 / C;
  TB = TB < 12 ? 12 : TB > 240 ? 240 : TB;
  TB = TB / 6 * 6;
  if (TB > (j.T + 5) / 6 * 6) TB = (j.T + 5) / 6 * 6;
  j.TB = TB;
  j.nb = (j.T + TB - 1) / TB;
  const int nth = omp_get_max_threads();
  /* fewer blocks than threads: split the output channels too (each chunk transforms its inputs) */
  int64_t noc = 1;
  if (j.nb < 2 * nth) {
    noc = (2 * nth + j.nb - 1) / j.nb;
    if (noc > O16 / 16) noc = O16 / 16;
  }
  j.OC = (O16 / 16 + noc - 1) / noc * 16;
  j.noc = (O16 + j.OC - 1) / j.OC;
  const int64_t items = j.nb * j.noc;
  const size_t vsz = sizeof(float) * (size_t)(NP * TB * C), msz = sizeof(float) * (size_t)(NP * TB * j.OC);
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
      if (V && M) work_item(&j, it, V, M);
    pd_free(V);
    pd_free(M);
  }
  if (!ok) {
    pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d] out of memory for the Winograd convolution's buffers");
    return -1;
  }
  return 1;
}
