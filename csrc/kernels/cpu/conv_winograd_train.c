/* Winograd convolutions in eager / training conv2d (conv_winograd.h pd_conv_winograd_eager;
 * docs/arch/inference.md "Winograd in eager / training conv2d and on AVX-512"): the forward and the
 * data gradient run conv_winograd.c's job (the data gradient as the stride-1 3x3 convolution of dy
 * with the filter's channels swapped and taps flipped); the filter gradient runs per point as
 * dU[p] = D[p]^T V[p] over the tiles (D = A dy A^T), then dw = G^T dU G. Compiled once per ISA
 * level (tools/buildcfg.py ISA_SOURCES). */
#include "conv_winograd.h"
#include "conv_winograd_impl.h"

/* x [N, C, HW] plain -> xb [N, C/8, HW, 8] */
static void to_blocked8(const float *x, float *xb, int64_t N, int64_t C, int64_t HW) {
  const int64_t CB = C / 8;
#pragma omp parallel for if (N * C * HW > 65536) schedule(static)
  for (int64_t nb = 0; nb < N * CB; nb++) {
    const float *s = x + nb * 8 * HW;
    float *d = xb + nb * 8 * HW;
    for (int64_t i = 0; i < HW; i++)
      for (int l = 0; l < 8; l++) d[i * 8 + l] = s[l * HW + i];
  }
}

/* the filter gradient's tile (0: oneDNN). AVX-512 EPYC, one thread, CPU time vs oneDNN's: F(4x4)
 * 0.84 / 0.68 / 0.82 at 64x56 / 128x28 / 256x14 batch 16 (3136 / 784 / 256 4x4 tiles: the GEMMs'
 * depth), 1.3 at 512x7 batch 16 (64 tiles) and 1.1-9 at batch 1 (the transformed gradient, 4x the
 * filter, and its transform back outweigh the GEMMs). Measured on the AVX-512 CPU only (the GEMMs
 * are oneDNN's on both levels). */
static int wgrad_worth_it(const pd_conv_geom *g) {
  if (g->C < 32 || g->O < 32) return 0;
  return g->N * ((g->out[0] + 3) / 4) * ((g->out[1] + 3) / 4) >= 256 ? 4 : 0;
}

/* PADDLE_C_WINOGRAD_WGRAD: the filter gradient's tile (0 off: oneDNN; 2, 4); unset: as
 * PADDLE_C_WINOGRAD (a forced tile forces it here too), auto: wgrad_worth_it */
static int wgrad_mode(void) {
  const char *e = getenv("PADDLE_C_WINOGRAD_WGRAD");
  if (!e || !*e || !strcmp(e, "auto")) return -1;
  return !strcmp(e, "0") ? 0 : !strcmp(e, "4") ? 4 : 2;
}

/* 1-D adjoints of the output transform (A e: r values e spaced s apart -> A values f spaced s apart) */
static inline void a2(const v8 *e, int s, v8 *f, int fs) {
  f[0] = e[0];
  f[fs] = _mm256_add_ps(e[0], e[s]);
  f[2 * fs] = _mm256_sub_ps(e[0], e[s]);
  f[3 * fs] = _mm256_sub_ps(_mm256_setzero_ps(), e[s]);
}
static inline void a4(const v8 *e, int s, v8 *f, int fs) {
  const v8 ev = _mm256_add_ps(e[0], e[2 * s]), od = _mm256_add_ps(e[s], e[3 * s]);
  const v8 ev4 = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), e[2 * s], e[0]);
  const v8 od8 = _mm256_fmadd_ps(_mm256_set1_ps(8.0f), e[3 * s], _mm256_add_ps(e[s], e[s]));
  f[0] = e[0];
  f[fs] = _mm256_add_ps(ev, od);
  f[2 * fs] = _mm256_sub_ps(ev, od);
  f[3 * fs] = _mm256_add_ps(ev4, od8);
  f[4 * fs] = _mm256_sub_ps(ev4, od8);
  f[5 * fs] = e[3 * s];
}

/* D[p][t - base][O] = A dy A^T for tiles t in [t0, t0 + tn) of dy (blocked nChw8c; zero beyond the
 * plane), T rows per point */
static inline __attribute__((always_inline)) void dy_transform_r(const wjob *j, const float *dy, int64_t t0,
                                                                 int64_t tn, int64_t base, int64_t T, float *D,
                                                                 const int r) {
  const int64_t O = j->O, OH = j->OH, OW = j->OW, per_img = j->TH * j->TW;
  const int A = r + 2;
  const v8 z = _mm256_setzero_ps();
  for (int64_t t = t0; t < t0 + tn; t++) {
    const int64_t n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW, oy0 = ty * r, ox0 = tx * r;
    for (int64_t o0 = 0; o0 < O; o0 += 8) {
      const chan8 s = chan8_of(dy, O, OH * OW, 8, n, o0);
      v8 e[16], h[24], f[36]; /* e[a * r + b]; h = A e (A x r); f = h A^T */
      for (int a = 0; a < r; a++)
        for (int b = 0; b < r; b++)
          e[a * r + b] = oy0 + a < OH && ox0 + b < OW ? ld8(&s, (oy0 + a) * OW + ox0 + b) : z;
      for (int b = 0; b < r; b++) {
        if (r == 2) a2(e + b, r, h + b, r);
        else a4(e + b, r, h + b, r);
      }
      for (int a = 0; a < A; a++) {
        if (r == 2) a2(h + a * r, 1, f + a * A, 1);
        else a4(h + a * r, 1, f + a * A, 1);
      }
      for (int p = 0; p < A * A; p++) _mm256_store_ps(D + (p * T + t - base) * O + o0, f[p]);
    }
  }
}

/* dw [O, C, 3, 3] = G^T dU[o][c] G, dU [points][O][C] */
static void wgrad_out(const float *dU, int64_t O, int64_t C, int r, float *dw) {
  const int A = r + 2;
  const float(*G)[3] = r == 2 ? G2 : G4;
#pragma omp parallel for if (O * C > 4096) schedule(static)
  for (int64_t it = 0; it < O * ((C + 15) / 16); it++) {
    const int64_t o = it / ((C + 15) / 16), c0 = it % ((C + 15) / 16) * 16;
    const int nl = C - c0 < 16 ? (int)(C - c0) : 16;
    float u[36][16], t[3][6][16], v[9][16];
    for (int p = 0; p < A * A; p++) {
      memset(u[p], 0, sizeof u[p]);
      memcpy(u[p], dU + (p * O + o) * C + c0, sizeof(float) * (size_t)nl);
    }
    for (int i = 0; i < 3; i++) /* G^T u */
      for (int b = 0; b < A; b++)
        for (int l = 0; l < 16; l++) {
          float acc = 0;
          for (int a = 0; a < A; a++) acc += G[a][i] * u[a * A + b][l];
          t[i][b][l] = acc;
        }
    for (int i = 0; i < 3; i++) /* (G^T u) G */
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 16; l++) {
          float acc = 0;
          for (int b = 0; b < A; b++) acc += t[i][b][l] * G[b][k];
          v[i * 3 + k][l] = acc;
        }
    for (int l = 0; l < nl; l++)
      for (int k = 0; k < 9; k++) dw[(o * C + c0 + l) * 9 + k] = v[k][l];
  }
}

/* the filter gradient dw = sum over the batch of x (*) dy: dU[p] = D[p]^T V[p] (a GEMM over the tiles
 * per point, D = A dy A^T and V = B^T x B per tile), dw = G^T dU G */
static int wgrad(const pd_conv_geom *g, const float *x, float *dw, const float *dy, int r) {
  wjob j;
  memset(&j, 0, sizeof j);
  pd_wino_job_init(&j, g->N, g->C, g->O, g->in[0], g->in[1], g->out[0], g->out[1], g->pl[0], g->pl[1], r);
  j.lay = 0; /* its GEMMs read V point-major */
  const int np = (r + 2) * (r + 2);
  const int64_t C = g->C, O = g->O, T = j.T, HW = g->in[0] * g->in[1], OHW = g->out[0] * g->out[1];
  float *xb = (float *)pd_alloc(sizeof(float) * (size_t)(g->N * C * HW));
  float *dyb = (float *)pd_alloc(sizeof(float) * (size_t)(g->N * O * OHW));
  /* the tiles in chunks of TC (V and D of a chunk ~4 MB, in L2 / L3 while its GEMMs run), the GEMMs
   * accumulating into dU */
  int64_t TC = (1 << 20) / (np * (C + O));
  TC = TC < 256 ? 256 : TC;
  if (TC > T) TC = T;
  float *V = (float *)pd_alloc(sizeof(float) * (size_t)(np * TC * C));
  float *D = (float *)pd_alloc(sizeof(float) * (size_t)(np * TC * O));
  float *dU = (float *)pd_alloc(sizeof(float) * (size_t)(np * O * C));
  int rc = xb && dyb && V && D && dU ? 1 : -1;
  if (rc > 0) {
    to_blocked8(x, xb, g->N, C, HW);
    to_blocked8(dy, dyb, g->N, O, OHW);
    j.x = xb, j.xB = 8;
    for (int64_t c0 = 0; c0 < T; c0 += TC) {
      const int64_t tc = T - c0 < TC ? T - c0 : TC, step = 8;
#pragma omp parallel for schedule(dynamic, 1) if (tc > step)
      for (int64_t t0 = 0; t0 < tc; t0 += step) {
        const int64_t tn = tc - t0 < step ? tc - t0 : step;
        pd_wino_input_transform(&j, c0 + t0, tn, tc, V + t0 * C);
        if (r == 2) dy_transform_r(&j, dyb, c0 + t0, tn, c0, tc, D, 2);
        else dy_transform_r(&j, dyb, c0 + t0, tn, c0, tc, D, 4);
      }
      /* oneDNN's sgemm: AVX-512 where the CPU has it (pd_gemm takes OpenBLAS's for M, K >= 256, whose
       * 0.3.21 runs its Haswell kernels on AVX-512 EPYCs) */
      for (int p = 0; p < np && rc > 0; p++)
        if (dnnl_sgemm('T', 'N', O, C, tc, 1.0f, D + p * tc * O, O, V + p * tc * C, C, c0 ? 1.0f : 0.0f,
                       dU + p * O * C, C) != dnnl_success)
          rc = -1;
    }
    if (rc > 0) wgrad_out(dU, O, C, r, dw);
  }
  if (rc < 0) pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d_grad_filter] the Winograd filter gradient failed (out of memory?)");
  pd_free(xb);
  pd_free(dyb);
  pd_free(V);
  pd_free(D);
  pd_free(dU);
  return rc;
}

int pd_conv_winograd_eager(const pd_conv_geom *g, int mode, float *x, float *w, float *y) {
  if (mode < 0 || mode > 2 || !pd_wino_eligible(g, 2)) return 0;
  int r = pd_wino_mode_env();
  if (mode == 2 && wgrad_mode() >= 0) r = wgrad_mode();
  else if (r < 0) r = mode == 2 ? wgrad_worth_it(g) : pd_wino_worth_it(g, 0); /* the data gradient mirrors the forward */
  if (!r) return 0;
  if (mode == 2) return wgrad(g, x, w, y, r);
  /* mode 1: dx = conv_transpose(dy, w) is the stride-1 3x3 convolution of dy with w's channels
   * swapped and taps flipped, pads 2 - p on each side (output = the forward's input plane) */
  const int tr = mode == 1;
  const int64_t C = tr ? g->O : g->C, O = tr ? g->C : g->O;
  const int64_t H = tr ? g->out[0] : g->in[0], W = tr ? g->out[1] : g->in[1];
  const int64_t OH = tr ? g->in[0] : g->out[0], OW = tr ? g->in[1] : g->out[1];
  const int64_t pt = tr ? 2 - g->pl[0] : g->pl[0], pl = tr ? 2 - g->pl[1] : g->pl[1];
  const float *src = tr ? y : x;
  float *dst = tr ? x : y;
  wjob j;
  memset(&j, 0, sizeof j);
  pd_wino_job_init(&j, g->N, C, O, H, W, OH, OW, pt, pl, r);
  const int np = (r + 2) * (r + 2);
  float *U = (float *)pd_alloc(sizeof(float) * (size_t)(np * j.ONR * C));
  float *xb = (float *)pd_alloc(sizeof(float) * (size_t)(g->N * C * H * W));
  int rc = -1;
  if (U && xb) {
    pd_wino_filter_transform(w, O, C, j.ONR, r, tr, U);
    to_blocked8(src, xb, g->N, C, H * W); /* the input transform loads 8 channels as one vector */
    j.x = xb, j.U = U, j.bias = NULL, j.y = dst, j.xB = 8, j.yB = 0, j.lo = -INFINITY, j.hi = INFINITY;
    rc = pd_wino_job_run(&j);
  } else {
    pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d] out of memory for the Winograd convolution's buffers");
  }
  pd_free(U);
  pd_free(xb);
  return rc;
}
