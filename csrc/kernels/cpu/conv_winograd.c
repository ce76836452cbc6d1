/* Winograd F(2x2, 3x3) and F(4x4, 3x3) for stride-1 3x3 float32 convolutions, in the predictor and in
 * eager / training conv2d (conv_winograd.h; docs/arch/inference.md "Winograd convolutions in the
 * predictor and in training"). oneDNN 3.2 has no Winograd convolution on x64 (its 3x3 kernels are
 * direct: 9 multiply-adds per output and input channel); F(2x2, 3x3) does 4, F(4x4, 3x3) 2.25.
 *   U = G g G^T ((r+2)^2 points per output/input channel pair: once per predictor in its weight
 *       cache; per call in eager mode)
 *   V = B^T d B (per r x r output tile and input channel, d the tile's input patch)
 *   M[p] = V[p] U[p] for each point p: a GEMM [tiles x C] x [C x O]
 *   y = A^T M A per tile and output channel, + bias, clamped (relu / relu6 / clip)
 * Work: the tiles of the whole batch in blocks of TB (a multiple of MR, the microkernel's rows),
 * times chunks of output channels when there are fewer blocks than twice the threads; each work item
 * transforms its tiles' inputs into a thread-local V (V and M tile-major: [tile][point][channels]) (with chunks: all the threads transform them
 * once, into a V the chunks share), multiplies (an MR x NR microkernel: AVX2 6x16,
 * AVX-512 12x32; U packed [p][O/NR][C][NR]) into M, and writes the outputs. One OpenMP region (the
 * project's pool); scratch from pd_alloc.
 * The eager / training entry (the data gradient as the same convolution of dy with the filter's
 * channels swapped and taps flipped, and the filter gradient) is conv_winograd_train.c; the two
 * files share conv_winograd_impl.h.
 * Vectors run across 8 channels, so the blocked layouts (nChw8c; NHWC) load and store whole
 * vectors; plain NCHW inputs gather (the predictor's first convolution after a plain op) or are
 * reordered to nChw8c first (eager). */
#include "conv_winograd.h"
#include "conv_winograd_impl.h"

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

/* U[p][ob][c][NR] (O padded to ONR with zeros) = G g G^T, NR output channels at a time (the lane
 * loops vectorise). tr = 0: g = w[o][c] of w [O, C, 3, 3]; tr = 1: the filter of the transposed
 * convolution (the data gradient): g = w[c][o] flipped in both axes, w [C, O, 3, 3]. */
void pd_wino_filter_transform(const float *w, int64_t O, int64_t C, int64_t ONR, int r, int tr, float *U) {
  const int64_t OB = ONR / NR;
  const int A = r + 2, np = A * A;
  const float(*G)[3] = r == 2 ? G2 : G4;
#pragma omp parallel for if (O * C > 4096) schedule(static)
  for (int64_t it = 0; it < OB * C; it++) {
    const int64_t ob = it / C, c = it % C;
    float g[9][NR], t[6][3][NR], u[36][NR];
    for (int l = 0; l < NR; l++) {
      const int64_t o = ob * NR + l;
      for (int k = 0; k < 9; k++)
        g[k][l] = o >= O ? 0.0f : tr ? w[(c * O + o) * 9 + 8 - k] : w[(o * C + c) * 9 + k];
    }
    for (int a = 0; a < A; a++) /* G g */
      for (int jj = 0; jj < 3; jj++)
        for (int l = 0; l < NR; l++) t[a][jj][l] = G[a][0] * g[jj][l] + G[a][1] * g[3 + jj][l] + G[a][2] * g[6 + jj][l];
    for (int a = 0; a < A; a++) /* (G g) G^T */
      for (int b = 0; b < A; b++)
        for (int l = 0; l < NR; l++) u[a * A + b][l] = t[a][0][l] * G[b][0] + t[a][1][l] * G[b][1] + t[a][2][l] * G[b][2];
    for (int p = 0; p < np; p++) memcpy(U + ((p * OB + ob) * C + c) * NR, u[p], sizeof(float) * NR);
  }
}

#if defined(__AVX512F__)
DEF_MK_ROWS(__m512, _mm512, 16)
static inline void mk(const float *restrict V, int64_t ldv, const float *restrict Up, int64_t K, float *restrict M,
                      int64_t ldm, const float *pf) {
  mk_rows(V, ldv, Up, K, M, ldm, pf, MR);
}
#else
/* M[6 x 16] = V rows (6, stride ldv) x Up [K][16]; M rows stride ldm */
static inline void mk(const float *restrict V, int64_t ldv, const float *restrict Up, int64_t K, float *restrict M,
                      int64_t ldm, const float *pf) {
  v8 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00,
     a40 = a00, a41 = a00, a50 = a00, a51 = a00;
  const float *v0 = V, *v1 = V + ldv, *v2 = V + 2 * ldv, *v3 = V + 3 * ldv, *v4 = V + 4 * ldv, *v5 = V + 5 * ldv;
  for (int64_t k = 0; k < K; k++) {
    _mm_prefetch((const char *)(pf + k * 16), _MM_HINT_T1);
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
DEF_MK_ROWS(v8, _mm256, 8) /* mr < 6: a tile block's short row blocks */
#endif

DEF_MK_TAIL

/* whether the environment variable name equals val, read once into *v (-1: not read yet) */
static int env_is(int *v, const char *name, const char *val) {
  if (*v < 0) {
    const char *e = getenv(name);
    *v = e && !strcmp(e, val);
  }
  return *v;
}

/* PADDLE_C_WINOGRAD_XFORM=old: the transforms as before the 2026-11-27 (wfuse) change (no input
 * prefetch, the 36-point output transform, tile blocks by the L2 share of one point's V only), for
 * A/B runs; read once */
static int xform_old_env(void) {
  static int v = -1;
  return env_is(&v, "PADDLE_C_WINOGRAD_XFORM", "old");
}

/* PADDLE_C_WINOGRAD_GEMM=old: as before the tail kernel and U prefetch (tile rows padded to MR, no
 * prefetch, the predictor's auto rule of eager mode, output channel chunks at one thread too), for
 * A/B runs; read once */
static int gemm_old_env(void) {
  static int v = -1;
  return env_is(&v, "PADDLE_C_WINOGRAD_GEMM", "old");
}


/* PADDLE_C_WINOGRAD_L2B=0: no L2-sized tile blocks at batch 1 with several threads (as before
 * 2026-11-27 session 36), for A/B runs; read once */
static int l2b_env(void) {
  static int v = -1;
  return !env_is(&v, "PADDLE_C_WINOGRAD_L2B", "0");
}

/* the tile and point strides of V (w = C) or M (w = the chunk width ow) of a block of TBp rows */
static inline int64_t lay_ts(const wjob *j, int64_t TBp, int64_t w) {
  (void)TBp;
  return j->lay ? (int64_t)(j->r + 2) * (j->r + 2) * w + j->lay_pad : w;
}
static inline int64_t lay_ps(const wjob *j, int64_t TBp, int64_t w) {
  return j->lay ? w : TBp * w;
}

/* ld8 with the signature of ld16 (the second block's stride, unused at 8 channels) */
static inline v8 ld8b(const chan8 *s, int64_t pos, int64_t bstride) {
  (void)bstride;
  return ld8(s, pos);
}

/* The input transform for one vector width (SUF: V the vector type, P the intrinsics' prefix, WD
 * lanes = channels per vector, LD the load): 1-D transforms B^T d over A values spaced s apart (in
 * place), and V[p][tl][C] for tiles t0 + tl, tl < tn (TBp rows per point), r a constant in each
 * caller (unrolled) */
#define DEF_INPUT_TRANSFORM(SUF, V, P, WD, LD)                                                                  \
  static inline void bt2##SUF(V *d, int s) {                                                                   \
    const V d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s];                                                \
    d[0] = P##_sub_ps(d0, d2);                                                                                 \
    d[s] = P##_add_ps(d1, d2);                                                                                 \
    d[2 * s] = P##_sub_ps(d2, d1);                                                                             \
    d[3 * s] = P##_sub_ps(d1, d3);                                                                             \
  }                                                                                                            \
  static inline void bt4##SUF(V *d, int s) {                                                                   \
    const V d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];                   \
    const V four = P##_set1_ps(4.0f), five = P##_set1_ps(5.0f), two = P##_set1_ps(2.0f);                       \
    const V a = P##_fnmadd_ps(four, d2, d4);           /* d4 - 4 d2 */                                         \
    const V b = P##_fnmadd_ps(four, d1, d3);           /* d3 - 4 d1 */                                         \
    const V c = P##_sub_ps(d4, d2);                    /* d4 - d2 */                                           \
    const V e = P##_mul_ps(two, P##_sub_ps(d3, d1));   /* 2 (d3 - d1) */                                       \
    d[0] = P##_add_ps(P##_fnmadd_ps(five, d2, P##_mul_ps(four, d0)), d4);                                      \
    d[s] = P##_add_ps(a, b);                                                                                   \
    d[2 * s] = P##_sub_ps(a, b);                                                                               \
    d[3 * s] = P##_add_ps(c, e);                                                                               \
    d[4 * s] = P##_sub_ps(c, e);                                                                               \
    d[5 * s] = P##_add_ps(P##_fnmadd_ps(five, d3, P##_mul_ps(four, d1)), d5);                                  \
  }                                                                                                            \
  static inline __attribute__((always_inline)) void input_transform_##SUF(const wjob *j, int64_t t0, int64_t tn, \
                                                                          int64_t TBp, float *Vt, const int r) { \
    const int64_t C = j->C, H = j->H, W = j->W, HW = H * W, per_img = j->TH * j->TW;                          \
    const int A = r + 2, np = A * A;                                                                           \
    const int64_t bstride = j->xB == 8 ? HW * 8 : 0; /* 16 lanes from nChw8c: the next block's 8 */            \
    const V z = P##_setzero_ps();                                                                              \
    const int pf = !xform_old_env();                                                                           \
    for (int64_t tl = 0; tl < tn; tl++) {                                                                      \
      const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;                 \
      const int64_t iy0 = ty * r - j->pt, ix0 = tx * r - j->pl;                                                \
      const int inside = iy0 >= 0 && ix0 >= 0 && iy0 + A <= H && ix0 + A <= W;                                 \
      for (int64_t c0 = 0; c0 < C; c0 += WD) {                                                                 \
        const chan8 s = chan8_of(j->x, C, HW, j->xB, n, c0);                                                   \
        if (pf && s.ls == 1) { /* the columns tile t + 2 adds to t + 1's (the next row of tiles: wasted) */  \
          for (int a = 0; a < A; a++) {                                                                        \
            const float *q = s.base + ((iy0 + a) * W + ix0 + 2 * r + 2) * s.ps;                                \
            for (int b = 0; b < r; b++) {                                                                      \
              _mm_prefetch((const char *)(q + b * s.ps), _MM_HINT_T0);                                         \
              if (bstride) _mm_prefetch((const char *)(q + b * s.ps + bstride), _MM_HINT_T0);                  \
            }                                                                                                  \
          }                                                                                                    \
        }                                                                                                      \
        V d[NPMAX]; /* d[a * A + b] */                                                                         \
        for (int a = 0; a < A; a++)                                                                            \
          for (int b = 0; b < A; b++) {                                                                        \
            const int64_t iy = iy0 + a, ix = ix0 + b;                                                          \
            d[a * A + b] = inside || (iy >= 0 && iy < H && ix >= 0 && ix < W) ? LD(&s, iy * W + ix, bstride) : z; \
          }                                                                                                    \
        if (r == 2) {                                                                                          \
          for (int b = 0; b < 4; b++) bt2##SUF(d + b, 4);     /* B^T d: along columns */                       \
          for (int a = 0; a < 4; a++) bt2##SUF(d + a * 4, 1); /* (B^T d) B: along rows */                      \
        } else {                                                                                               \
          for (int b = 0; b < 6; b++) bt4##SUF(d + b, 6);                                                      \
          for (int a = 0; a < 6; a++) bt4##SUF(d + a * 6, 1);                                                  \
        }                                                                                                      \
        float *vp = Vt + tl * lay_ts(j, TBp, C) + c0;                                                          \
        const int64_t ps = lay_ps(j, TBp, C); /* point stride */                                               \
        for (int p = 0; p < np; p++) P##_store_ps(vp + p * ps, d[p]);                                          \
      }                                                                                                        \
    }                                                                                                          \
  }
DEF_INPUT_TRANSFORM(r, v8, _mm256, 8, ld8b)

/* F(2x2, 3x3) written out (the generic version's arrays measured 1.3x slower for it) */
/* V[p][tl][C] for tiles t0 + tl, tl < tn (TBp rows per point) */
static void input_transform2(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, float *V) {
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
      float *vp = V + tl * lay_ts(j, TBp, C) + c0;
      const int64_t ps = lay_ps(j, TBp, C); /* point stride */
      for (int a = 0; a < 4; a++) { /* (B^T d) B */
        _mm256_store_ps(vp + (a * 4 + 0) * ps, _mm256_sub_ps(t4[a][0], t4[a][2]));
        _mm256_store_ps(vp + (a * 4 + 1) * ps, _mm256_add_ps(t4[a][1], t4[a][2]));
        _mm256_store_ps(vp + (a * 4 + 2) * ps, _mm256_sub_ps(t4[a][2], t4[a][1]));
        _mm256_store_ps(vp + (a * 4 + 3) * ps, _mm256_sub_ps(t4[a][1], t4[a][3]));
      }
    }
  }
}

#if defined(__AVX512F__)
DEF_INPUT_TRANSFORM(w16, v16, _mm512, 16, ld16)
#endif

void pd_wino_input_transform(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, float *V) {
#if defined(__AVX512F__)
  /* blocks of 8 or 16k channels, or plain (the gather's int32 offsets: planes below 2^27) */
  if (j->C % 16 == 0 && (j->xB == 8 || (j->xB && j->xB % 16 == 0) || (!j->xB && j->H * j->W < (1 << 27)))) {
    if (j->r == 2) input_transform_w16(j, t0, tn, TBp, V, 2);
    else input_transform_w16(j, t0, tn, TBp, V, 4);
    return;
  }
#endif
  if (j->r == 2) input_transform2(j, t0, tn, TBp, V);
  else input_transform_r(j, t0, tn, TBp, V, 4);
}

/* 1-D output transforms A^T m: A values spaced s apart -> r values (into o, spaced os apart) */
static inline void at2(const v8 *m, int s, v8 *o, int os) {
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[s]), m[2 * s]);
  o[os] = _mm256_sub_ps(_mm256_sub_ps(m[s], m[2 * s]), m[3 * s]);
}
/* F(4x4, 3x3)'s A^T at one vector width (V, intrinsic prefix P): 6 values -> 4 */
#define DEF_AT4(NAME, V, P)                                                       \
  static inline void NAME(const V *m, int s, V *o, int os) {                      \
    const V a = P##_add_ps(m[s], m[2 * s]), b = P##_sub_ps(m[s], m[2 * s]);         \
    const V c = P##_add_ps(m[3 * s], m[4 * s]), d = P##_sub_ps(m[3 * s], m[4 * s]); \
    o[0] = P##_add_ps(P##_add_ps(m[0], a), c);                                    \
    o[os] = P##_fmadd_ps(P##_set1_ps(2.0f), d, b);                                \
    o[2 * os] = P##_fmadd_ps(P##_set1_ps(4.0f), c, a);                            \
    o[3 * os] = P##_add_ps(P##_fmadd_ps(P##_set1_ps(8.0f), d, b), m[5 * s]);      \
  }
DEF_AT4(at4, v8, _mm256)

/* zeros into the 8 padding lanes from channel oo (>= O) of y's last block over one r x r tile */
static void pad_tile(const wjob *j, int64_t n, int64_t oy, int64_t ox, int64_t oo, int r) {
  const int64_t OH = j->OH, OW = j->OW, OHW = OH * OW;
  float *base = j->y + n * j->OP * OHW + (oo / j->yB) * OHW * j->yB + oo % j->yB;
  for (int a = 0; a < r && oy + a < OH; a++)
    for (int b = 0; b < r && ox + b < OW; b++) _mm256_storeu_ps(base + ((oy + a) * OW + ox + b) * j->yB, _mm256_setzero_ps());
}

/* y for tiles [t0, t0 + tn) and output channels [oc0, oc0 + ow) from M[p][t][ow] */
static inline __attribute__((always_inline)) void output_transform_r(const wjob *j, int64_t t0, int64_t tn,
                                                                     int64_t TBp, int64_t oc0, int64_t ow, const float *M,
                                                                     const int r) {
  const int64_t O = j->O, OH = j->OH, OW = j->OW, OHW = OH * OW, per_img = j->TH * j->TW;
  const int A = r + 2, np = A * A;
  const v8 lo = _mm256_set1_ps(j->lo), hi = _mm256_set1_ps(j->hi);
  const int64_t ps = lay_ps(j, TBp, ow), ts = lay_ts(j, TBp, ow);
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t oy = ty * r, ox = tx * r;
    for (int64_t o = 0; o < ow && oc0 + o < j->OP; o += 8) {
      const int64_t oo = oc0 + o;
      if (oo >= O) { /* a padded block's lanes past O */
        pad_tile(j, n, oy, ox, oo, r);
        continue;
      }
      const float *mp = M + tl * ts + o;
      v8 m[NPMAX], s[24], y[16]; /* s[a * A + b]: A^T m (r x A); y[a * r + b] */
      for (int p = 0; p < np; p++) m[p] = _mm256_load_ps(mp + p * ps);
      if (r == 2) {
        for (int b = 0; b < 4; b++) at2(m + b, 4, s + b, 4);
        for (int a = 0; a < 2; a++) at2(s + a * 4, 1, y + a * 2, 1);
      } else {
        for (int b = 0; b < 6; b++) at4(m + b, 6, s + b, 6);
        for (int a = 0; a < 4; a++) at4(s + a * 6, 1, y + a * 4, 1);
      }
      const v8 bv = j->bias ? _mm256_loadu_ps(j->bias + oo) : _mm256_setzero_ps();
      float *base;
      int64_t yps, yls;
      if (j->yB) {
        base = j->y + n * j->OP * OHW + (oo / j->yB) * OHW * j->yB + oo % j->yB;
        yps = j->yB;
        yls = 1;
      } else {
        base = j->y + (n * O + oo) * OHW;
        yps = 1;
        yls = OHW;
      }
      for (int a = 0; a < r && oy + a < OH; a++)
        for (int b = 0; b < r && ox + b < OW; b++) {
          v8 v = _mm256_add_ps(y[a * r + b], bv);
          v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
          st8(base, yps, yls, (oy + a) * OW + ox + b, v);
        }
    }
  }
}

/* y for tiles [t0, t0 + tn) and output channels [oc0, oc0 + ow) from M[p][t][ow] */
static void output_transform2(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, int64_t oc0, int64_t ow,
                             const float *M) {
  const int64_t O = j->O, OH = j->OH, OW = j->OW, OHW = OH * OW, per_img = j->TH * j->TW;
  const v8 lo = _mm256_set1_ps(j->lo), hi = _mm256_set1_ps(j->hi);
  const int64_t ps = lay_ps(j, TBp, ow), ts = lay_ts(j, TBp, ow);
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t oy = ty * 2, ox = tx * 2;
    for (int64_t o = 0; o < ow && oc0 + o < j->OP; o += 8) {
      const int64_t oo = oc0 + o;
      if (oo >= O) { /* a padded block's lanes past O */
        pad_tile(j, n, oy, ox, oo, 2);
        continue;
      }
      const float *mp = M + tl * ts + o;
      v8 m[16];
      for (int p = 0; p < 16; p++) m[p] = _mm256_load_ps(mp + p * ps);
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
        base = j->y + n * j->OP * OHW + (oo / j->yB) * OHW * j->yB + oo % j->yB;
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

#if defined(__AVX512F__)
/* F(4x4, 3x3)'s output transform 16 output channels at a time (O a multiple of 16; y in blocks of
 * 8, or of 16k channels: nChw16c, or NHWC-mode layouts) */
DEF_AT4(at4w, v16, _mm512)

static void output_transform4_w16(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, int64_t oc0, int64_t ow,
                                  const float *M) {
  const int64_t O = j->O, OH = j->OH, OW = j->OW, OHW = OH * OW, per_img = j->TH * j->TW, yB = j->yB;
  const v16 lo = _mm512_set1_ps(j->lo), hi = _mm512_set1_ps(j->hi);
  const int64_t ps = lay_ps(j, TBp, ow), ts = lay_ts(j, TBp, ow);
  const int cols = !xform_old_env();
  for (int64_t tl = 0; tl < tn; tl++) {
    const int64_t t = t0 + tl, n = t / per_img, ty = (t % per_img) / j->TW, tx = t % j->TW;
    const int64_t oy = ty * 4, ox = tx * 4;
    for (int64_t o = 0; o < ow && oc0 + o < O; o += 16) {
      const int64_t oo = oc0 + o;
      const float *mp = M + tl * ts + o;
      const v16 bv = j->bias ? _mm512_loadu_ps(j->bias + oo) : _mm512_setzero_ps();
      /* yB 8: channels oo..oo+7 in block oo/8, oo+8.. in the next one (OHW * 8 further) */
      float *base = j->y + n * O * OHW + (oo / yB) * OHW * yB + oo % yB;
      if (cols) {
        /* columns first (A^T along a for each b: the same sums as below), each column's 6 points
         * loaded and transformed at once so the 36 points never sit in registers together */
        v16 sv[24];
#pragma GCC unroll 6
        for (int b = 0; b < 6; b++) {
          v16 mc[6];
#pragma GCC unroll 6
          for (int a = 0; a < 6; a++) mc[a] = _mm512_loadu_ps(mp + (a * 6 + b) * ps);
          at4w(mc, 1, sv + b, 6);
        }
        const int full = oy + 4 <= OH && ox + 4 <= OW;
#pragma GCC unroll 4
        for (int a = 0; a < 4; a++) {
          v16 y[4];
          at4w(sv + a * 6, 1, y, 1);
#pragma GCC unroll 4
          for (int b = 0; b < 4; b++) {
            if (!full && (oy + a >= OH || ox + b >= OW)) continue;
            st16y(base + ((oy + a) * OW + ox + b) * yB, y[b], bv, lo, hi, yB, OHW);
          }
        }
        continue;
      }
      v16 m[36], sv[24], y[16];
      for (int p = 0; p < 36; p++) m[p] = _mm512_loadu_ps(mp + p * ps);
      for (int b = 0; b < 6; b++) at4w(m + b, 6, sv + b, 6);
      for (int a = 0; a < 4; a++) at4w(sv + a * 6, 1, y + a * 4, 1);
      for (int a = 0; a < 4 && oy + a < OH; a++)
        for (int b = 0; b < 4 && ox + b < OW; b++)
          st16y(base + ((oy + a) * OW + ox + b) * yB, y[a * 4 + b], bv, lo, hi, yB, OHW);
    }
  }
}

/* PADDLE_C_WINOGRAD_OT8=1: the 8-lane output transform everywhere (for A/B runs; read once) */
static int ot8_env(void) {
  static int v = -1;
  return env_is(&v, "PADDLE_C_WINOGRAD_OT8", "1");
}
#endif

static void output_transform(const wjob *j, int64_t t0, int64_t tn, int64_t TBp, int64_t oc0, int64_t ow,
                             const float *M) {
#if defined(__AVX512F__)
  if (j->r == 4 && j->O % 16 == 0 && (j->yB == 8 || (j->yB && j->yB % 16 == 0)) && !ot8_env()) {
    output_transform4_w16(j, t0, tn, TBp, oc0, ow, M);
    return;
  }
#endif
  if (j->r == 2) output_transform2(j, t0, tn, TBp, oc0, ow, M);
  else output_transform_r(j, t0, tn, TBp, oc0, ow, M, 4);
}

/* one work item: tile block it / noc, output channel chunk it % noc; V holds the block's transformed
 * inputs already where vdone (the shared V of job_run), else the item transforms them into V */
static void work_item(const wjob *j, int64_t it, float *V, float *M, int vdone) {
  const int64_t bi = it / j->noc, oi = it % j->noc;
  const int64_t t0 = bi * j->TB, tn = t0 + j->TB <= j->T ? j->TB : j->T - t0;
  const int64_t TBp = (tn + MR - 1) / MR * MR;
  const int64_t oc0 = oi * j->OC, ow = oc0 + j->OC <= j->ONR ? j->OC : j->ONR - oc0;
  const int64_t C = j->C, OB = j->ONR / NR;
  const int np = (j->r + 2) * (j->r + 2);
  const int old = gemm_old_env();
  const int64_t rows = old ? TBp : tn; /* the GEMM's rows: the tiles, a short last row block */
  if (!vdone) pd_wino_input_transform(j, t0, tn, TBp, V);
  for (int p = 0; p < np && old; p++)
    if (TBp > tn) memset(V + (p * TBp + tn) * C, 0, sizeof(float) * (size_t)((TBp - tn) * C));
  for (int p = 0; p < np; p++) {
    const float *Vp = V + p * lay_ps(j, TBp, C);
    float *Mp = M + p * lay_ps(j, TBp, ow);
    const int64_t ldv = lay_ts(j, TBp, C), ldm = lay_ts(j, TBp, ow);
    for (int64_t o = 0; o < ow; o += NR) {
      const float *Up = j->U + ((p * OB + (oc0 + o) / NR) * C) * NR;
      /* the panel after this one: the first NR / 16 row blocks prefetch a slice of C lines of it
       * each; the last panel prefetches itself */
      const float *Un = o + NR < ow ? Up + C * NR : p + 1 < np ? j->U + (((p + 1) * OB + oc0 / NR) * C) * NR : Up;
      /* the rows in nrb blocks of near-equal height (16 tiles: 8 + 8, not 12 + 4) */
      const int64_t nrb = (rows + MR - 1) / MR, rb = rows / nrb, rx = rows % nrb;
      for (int64_t r = 0, ri = 0; r < rows; ri++) {
        const float *pf = !old && ri < NR / 16 ? Un + ri * C * 16 : Up;
        const int64_t mr = rb + (ri < rx);
        if (mr == MR) mk(Vp + r * ldv, ldv, Up, C, Mp + r * ldm + o, ldm, pf);
        else mk_tail(Vp + r * ldv, ldv, Up, C, Mp + r * ldm + o, ldm, pf, (int)mr);
        r += mr;
      }
    }
  }
  output_transform(j, t0, tn, TBp, oc0, ow, M);
}

/* Fills the job's blocking for N images C x H x W -> O x OH x OW with pads pt (top), pl (left), tile r */
void pd_wino_job_init(wjob *j, int64_t N, int64_t C, int64_t O, int64_t H, int64_t W, int64_t OH, int64_t OW,
                      int64_t pt, int64_t pl, int r) {
  j->N = N, j->C = C, j->O = O, j->OP = O, j->ONR = (O + NR - 1) / NR * NR, j->H = H, j->W = W, j->OH = OH, j->OW = OW;
  j->pt = pt, j->pl = pl, j->r = r;
  j->TH = (OH + r - 1) / r, j->TW = (OW + r - 1) / r, j->T = N * j->TH * j->TW;
  /* a block's V[p] (TB x C floats) stays in L2 while the NR-column panels of U[p] pass through */
  int64_t TB = 24576 / C;
  TB = TB < 2 * MR ? 2 * MR : TB > 240 ? 240 : TB;
  TB = TB / MR * MR;
  /* where U fits the L3 share (<= 3 MB: C x O up to 128 x 128 at F(4x4)) and the tiles fill more
   * than one such block: blocks whose whole V and M (all points) stay in L2 (~512 KB), so the
   * transforms meet them there, not in L3; U passes through L2 once per block instead. Batch 16,
   * one thread, per layer (with the input prefetch and column-wise output transform): 64x56
   * 7.5-8.0 -> 5.9-6.2 ms, 128x28 5.4-5.6 -> 4.8-5.0; batch 1 (one block either way) 64x56 0.32
   * -> 0.33 ms with it, so it keeps the single block; 256x14 (U 9.4 MB) level at 12-24 tiles,
   * 512x7 1.6x slower (docs/performance_log.md "Blocking, layout and transforms").
   * With several threads, where U itself fits a core's L2 (<= 640 KB: 64 x 64 at F(4x4)) and the
   * tiles give each thread a few blocks, the L2 blocks are taken at batch 1 too: one block of all
   * tiles shared by the threads (each reading the whole V, half of it written by the other core,
   * and its M through L3) was 2.1x slower per layer when the machine's L3 / memory is busy
   * (ResNet-50 b1 2 threads, 64x56: 0.52 -> 0.245 ms; level when it is quiet). */
  const int64_t np = (r + 2) * (r + 2), ONR = (O + NR - 1) / NR * NR;
  const int nth = omp_get_max_threads();
  const int l2u = nth > 1 && np * ONR * C * 4 <= (640 << 10) && j->T >= 4 * MR * nth && l2b_env();
  if (!xform_old_env() && np * ONR * C * 4 <= (3 << 20) && (j->T > TB || l2u)) {
    int64_t tb = (512 << 10) / (np * (C + ONR) * 4) / MR * MR;
    if (tb < MR) tb = MR;
    if (tb < TB) TB = tb;
  }
  if (TB > (j->T + MR - 1) / MR * MR) TB = (j->T + MR - 1) / MR * MR;
  /* few tiles (fewer blocks than twice the threads, at least two row blocks each) and U up to 5 MB:
   * one block of T / nth tiles per thread with all output channels (each thread transforms its own
   * tiles and reads all of U) instead of one block whose V all threads share, split into output
   * channel chunks. The machine's two vCPUs sit on one core complex or on two (a cache line between
   * them 42 or 185 ns one way, alternating for minutes): on two, each chunk read the half of V the
   * other core wrote through the far L3. ResNet-50 batch 1, two threads, two predictors alternated
   * in one process: its 128x28 layers (49 tiles, U 2.4 MB) 0.30 -> 0.22-0.27 ms per layer across
   * complexes, stage 2 alone 0.95, with its 256x14 ones at F(2x2) (49 tiles, U 4.2 MB) the whole
   * model 0.97-0.976; bit-equal to the shared block (same sums per tile). All of a 16.8 MB U read by
   * each thread (512x7) was 1.02 of the chunks: U's traffic decides there.
   * PADDLE_C_WINOGRAD_TSPLIT=0 (read per call): the chunks, as before 2026-11-27 session 37. */
  if (nth > 1 && !xform_old_env() && !gemm_old_env() && np * ONR * C * 4 <= (5 << 20) && (j->T + TB - 1) / TB < 2 * nth &&
      j->T >= 2 * MR * nth && !pd_wino_env_off("PADDLE_C_WINOGRAD_TSPLIT")) {
    TB = (j->T + nth - 1) / nth;
    j->TB = TB, j->lay = 1, j->lay_pad = 16, j->nb = (j->T + TB - 1) / TB, j->OC = ONR, j->noc = 1;
    return;
  }
  j->TB = TB;
  /* tile-major V and M: a tile's points 64 bytes apart from the next tile's (no 4 KB multiple: the
   * GEMM's 12 rows of 36 x 256 or 512 channels would share one L1 set) */
  j->lay = !xform_old_env() && !gemm_old_env();
  j->lay_pad = 16;
  j->nb = (j->T + TB - 1) / TB;
  /* fewer blocks than threads: split the output channels too (each chunk transforms its inputs; one
   * thread never splits: ResNet-50's batch-1 layers, one block each, transformed their inputs twice,
   * 0.89-0.9 of the time per layer without) */
  const int64_t OB = j->ONR / NR;
  int64_t noc = 1;
  if (j->nb < 2 * nth && (nth > 1 || gemm_old_env())) {
    noc = (2 * nth + j->nb - 1) / j->nb;
    if (noc > OB) noc = OB;
  }
  j->OC = (OB + noc - 1) / noc * NR;
  j->noc = (j->ONR + j->OC - 1) / j->OC;
}

/* runs the job (U, x, y, bias, bounds set): 1, or -1 with the error set. With output channel chunks
 * (noc > 1: fewer tile blocks than twice the threads) the inputs are transformed once, into one V
 * shared by the chunks (block bi at bi * np * TB * C, its own TBp rows per point), in slices of tiles
 * over the threads; then the chunks run their GEMMs and output transforms from it. */
int pd_wino_job_run(const wjob *j) {
  const int np = (j->r + 2) * (j->r + 2);
  const int64_t items = j->nb * j->noc;
  /* PADDLE_C_WINOGRAD_SHARED_V=0 (read per call): each chunk transforms its block's inputs, as before */
  const int shared = j->noc > 1 && !gemm_old_env() && !pd_wino_env_off("PADDLE_C_WINOGRAD_SHARED_V");
  const size_t vblk = (size_t)j->TB * (size_t)lay_ts(j, j->TB, j->C) * (j->lay ? 1 : (size_t)np); /* TB: a multiple of MR */
  const size_t vsz = sizeof(float) * vblk;
  const size_t msz = sizeof(float) * (size_t)j->TB * (size_t)lay_ts(j, j->TB, j->OC) * (j->lay ? 1 : (size_t)np);
  float *VS = shared ? (float *)pd_alloc(vsz * (size_t)j->nb) : NULL;
  if (shared && !VS) {
    pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d] out of memory for the Winograd convolution's buffers");
    return -1;
  }
  /* the shared transform's slices: each block's tiles in ns near-equal runs, nb * ns >= 2 threads */
  const int nth = omp_get_max_threads();
  const int64_t ns = shared ? (2 * nth + j->nb - 1) / j->nb : 1;
  int ok = 1;
  const int touch = shared && pd_conv_pretouch_on(vsz * (size_t)j->nb, 4);
#pragma omp parallel if (items > 1)
  {
    if (shared) {
#pragma omp for schedule(static)
      for (int64_t s = 0; s < j->nb * ns; s++) {
        const int64_t bi = s / ns, si = s % ns;
        const int64_t t0 = bi * j->TB, tn = t0 + j->TB <= j->T ? j->TB : j->T - t0;
        const int64_t TBp = (tn + MR - 1) / MR * MR;
        const int64_t a = tn * si / ns, b = tn * (si + 1) / ns;
        if (b > a) pd_wino_input_transform(j, t0 + a, b - a, TBp, VS + (size_t)bi * vblk + (size_t)(a * lay_ts(j, TBp, j->C)));
      }
      if (touch) pd_conv_pretouch(VS, vsz * (size_t)j->nb); /* every chunk reads all of its block's V */
    }
    float *V = shared ? NULL : (float *)pd_alloc(vsz), *M = (float *)pd_alloc(msz);
    if ((!shared && !V) || !M) {
#pragma omp atomic write
      ok = 0;
    }
#pragma omp for schedule(dynamic, 1)
    for (int64_t it = 0; it < items; it++) {
      if (!M) continue;
      if (shared) work_item(j, it, VS + (size_t)(it / j->noc) * vblk, M, 1);
      else if (V) work_item(j, it, V, M, 0);
    }
    pd_free(V);
    pd_free(M);
  }
  pd_free(VS);
  if (!ok) {
    pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv2d] out of memory for the Winograd convolution's buffers");
    return -1;
  }
  return 1;
}

/* PADDLE_C_WINOGRAD: 0 off; 1 or 2: F(2x2, 3x3) for every eligible geometry; 4: F(4x4, 3x3) for every
 * eligible geometry; unset / auto: the measured choice (worth_it). Read per call (cheap next to a
 * convolution; tests switch it between predictors). */
int pd_wino_mode_env(void) {
  const char *e = getenv("PADDLE_C_WINOGRAD");
  if (!e || !*e || !strcmp(e, "auto")) return -1;
  if (!strcmp(e, "0")) return 0;
  return !strcmp(e, "4") ? 4 : 2;
}

/* the tile (2: F(2x2, 3x3), 4: F(4x4, 3x3)) where Winograd measured faster than oneDNN's direct
 * kernels, 0 elsewhere (docs/performance_log.md); the same rule for the predictor and eager /
 * training */
int pd_wino_worth_it(const pd_conv_geom *g, int infer) {
  /* the predictor (blocked in and out) from 24 output channels: ppocrv3_det's 96 -> 24 layers at
   * 80x80 batch 16 (on AVX-512 25% of oneDNN's lanes idle there, as in the padded panel here). AVX2
   * EPYC, the whole model with these layers on F(4x4) vs oneDNN's jit:avx2 (bench/ab_inference.py,
   * alternating runs in one predictor): batch 16 0.79, batch 1 0.82 (2 threads) / 0.78 (1 thread) */
  if (g->C < 32 || g->O < (infer ? 24 : 32)) return 0;
  const int64_t t4 = g->N * ((g->out[0] + 3) / 4) * ((g->out[1] + 3) / 4);
#if defined(__AVX512F__)
  /* AVX-512 EPYC (Zen 5), against oneDNN's avx512_core kernels, eager conv2d and its data gradient
   * (filter transformed per call), one thread, CPU time: F(4x4) 0.65 / 0.47 / 0.58 / 0.88 of
   * oneDNN's time at 64x56 / 128x28 / 256x14 / 512x7 batch 16, 0.5 / 0.65 at 64x56 / 128x28
   * batch 1 (196 / 49 tiles); with 16 4x4 tiles (256x14 batch 1) F(4x4) 1.3 but F(2x2) 0.85;
   * with 4 (512x7 batch 1) both lose (1.7 / 3.8: the transformed filter's traffic and 12-row
   * microkernel idle). Few channels were not measured here: oneDNN. */
  const int64_t t2 = g->N * ((g->out[0] + 1) / 2) * ((g->out[1] + 1) / 2);
  /* the predictor (U cached; the GEMM's short last row block and U prefetch), per layer, CPU time:
   * F(4x4) 0.55 / 0.64 of oneDNN at 256x14 / 128x14 batch 1 (16 tiles), F(2x2) 0.78 at 512x7
   * batch 1 (16 2x2 tiles; F(4x4) there 1.17: its 36-point U, 38 MB, streams from memory) */
  /* where F(4x4)'s U passes 5 MB and the tiles are few (< 48: U streams from memory, each of its
   * values used t4 times), F(2x2) (U 16/36 the size): ResNet-50's 256x14 layers at batch 1, U 9.4 ->
   * 4.2 MB per layer, 26 MB less per inference; level on one thread (1.00), with two the whole model
   * 0.987 (both across the two core complexes, above). PADDLE_C_WINOGRAD_F2BIG=0 (read per call):
   * F(4x4) there, as before session 37 */
  if (infer && !gemm_old_env() && t4 >= 16 && t4 < 48 && t2 >= 16 && 36 * g->C * g->O * 4 > (5 << 20) &&
      !pd_wino_env_off("PADDLE_C_WINOGRAD_F2BIG"))
    return 2;
  if (infer && !gemm_old_env()) return t4 >= 16 ? 4 : t2 >= 16 ? 2 : 0;
  if (t4 >= 48) return 4;
  return t2 >= 48 ? 2 : 0;
#else
  /* one thread, blocked in and out, per layer (CPU time, load 11-13): F(4x4, 3x3) 0.59-0.89 of
   * oneDNN's time from 16 channels at 80x80 to 512 at 7x7 batch 16, but 1.07-1.16 at 7x7 batch 1
   * (4 tiles: a third of the 6-row microkernel and of each tile idle); F(2x2, 3x3) 0.87-1.3 at this
   * load (0.55-0.85 at load 5-7: it moves more data per flop), so auto takes F(4x4) or oneDNN.
   * Few input channels do not pay: 24 <-> 24 at 80x80 1.11 (that load); 96 -> 24 read 0.93-1.02
   * there, but in one predictor alternating with oneDNN on an idle machine it is the gain above */
  if (t4 >= 12) return 4;
  /* the predictor's planes of 4-11 F(4x4) tiles but 16 and more F(2x2) ones (ResNet-50's 512 x 7x7
   * layers at batch 1: 4 F(4x4) tiles, 16 F(2x2)), where oneDNN's jit:avx2 ran 512 -> 512 3x3 at 95
   * GFLOP/s: F(2x2) there, the whole model in one predictor alternating per run (bench/ab_inference.py,
   * 2 threads, idle) 0.963 / 0.973 of the time (both CPUs in one core complex / in two).
   * PADDLE_C_WINOGRAD_F2SMALL=0 (read per call): oneDNN there, as before */
  const int64_t t2 = g->N * ((g->out[0] + 1) / 2) * ((g->out[1] + 1) / 2);
  if (infer && t2 >= 16 && !pd_wino_env_off("PADDLE_C_WINOGRAD_F2SMALL")) return 2;
  return 0;
#endif
}

/* the geometry conv_winograd computes: 2-D NCHW, one group, 3x3, stride 1, dilation 1, pads 0..pmax */
int pd_wino_eligible(const pd_conv_geom *g, int pmax) {
  return g->nsp == 2 && !g->nhwc && g->G == 1 && g->k[0] == 3 && g->k[1] == 3 && g->s[0] == 1 && g->s[1] == 1 &&
         g->d[0] == 1 && g->d[1] == 1 && g->pl[0] <= pmax && g->pl[1] <= pmax && g->pr[0] <= pmax &&
         g->pr[1] <= pmax && g->C % 8 == 0 && g->O % 8 == 0 && g->N > 0 && g->out[0] > 0 && g->out[1] > 0 &&
         g->in[0] > 0 && g->in[1] > 0;
}

int pd_conv_winograd(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, float lo, float hi) {
  if (!pd_wino_eligible(g, 1) || xblk % 8 || yblk % 8) return 0;
  if (xblk && g->C % xblk) return 0; /* a padded y is fine: its padding lanes are written zero */
  int r = pd_wino_mode_env();
  if (r < 0) r = pd_wino_worth_it(g, 1);
  if (!r) return 0;
  wjob j;
  memset(&j, 0, sizeof j);
  pd_wino_job_init(&j, g->N, g->C, g->O, g->in[0], g->in[1], g->out[0], g->out[1], g->pl[0], g->pl[1], r);
  const int np = (r + 2) * (r + 2);
  const size_t usz = sizeof(float) * (size_t)(np * j.ONR * g->C);
  int fresh = 0;
  float *U = pd_conv_wcache_aux(w, r, usz, &fresh);
  if (!U) return 0; /* no weight cache (eager) or no memory for it: oneDNN */
  if (fresh) pd_wino_filter_transform(w, g->O, g->C, j.ONR, r, 0, U);
  j.x = x, j.U = U, j.bias = bias, j.y = y, j.xB = xblk, j.yB = yblk, j.lo = lo, j.hi = hi;
  j.OP = yblk ? (g->O + yblk - 1) / yblk * yblk : g->O;
  return pd_wino_job_run(&j);
}
