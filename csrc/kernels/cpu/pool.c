/* Pooling kernels (pool2d/pool3d max/avg incl. adaptive, global, ceil_mode, exclusive; pool2d_grad;
 * max_pool2d_with_index, whose int32 argmax is Paddle's mask and training's saved index (its
 * backward is a scatter); unpool and its adjoint pool_gather) for 1-3 spatial dims. Each (n, c)
 * plane runs on NCHW data (NHWC permuted in and out), planes in parallel. Mask indices are flat
 * spatial positions inside the input plane, as Paddle's. */
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "../../core/pd_alloc.h"
#include "conv_geom.h"
#include "layout_dnnl.h"

static int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* Window [lo, hi) of output o along dim i; *cnt gets the non-exclusive extent. */
static inline void win(const pd_pool_geom *g, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *ext) {
  if (g->adaptive) {
    *lo = o * g->in[i] / g->out[i];
    *hi = ((o + 1) * g->in[i] + g->out[i] - 1) / g->out[i];
    *ext = *hi - *lo;
    return;
  }
  int64_t s = o * g->s[i] - g->pl[i], e = s + g->k[i];
  if (e > g->in[i] + g->pr[i]) e = g->in[i] + g->pr[i];
  *ext = e - s;
  *lo = s < 0 ? 0 : s;
  *hi = e > g->in[i] ? g->in[i] : e;
}

/* Average over each whole plane into one output (global / adaptive-to-1 avg pooling). */
static int whole_plane_avg(const pd_pool_geom *g) {
  if (g->is_max) return 0;
  for (int i = 0; i < 3; i++) {
    int64_t lo, hi, ext;
    if (g->out[i] != 1) return 0;
    win(g, i, 0, &lo, &hi, &ext);
    if (lo != 0 || hi != g->in[i] || (!g->exclusive && !g->adaptive && ext != g->in[i])) return 0;
  }
  return 1;
}

/* NCHW view of an activation: *buf data, *own a buffer to free (NHWC). */
static pd_status nchw_in(pd_tensor *t, int nhwc, int64_t N, int64_t C, int64_t S, pd_tensor **c, void **buf,
                         void **own) {
  PD_TRY(pd_tensor_contiguous(t, c));
  *own = NULL;
  *buf = pd_tensor_data(*c);
  if (!nhwc) return PD_OK;
  size_t esz = pd_dtype_size(t->dtype);
  *own = pd_alloc((size_t)(N * C * S) * esz);
  if (!*own) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool] out of memory");
  pd_permute_nc((const char *)*buf, (char *)*own, N, S, C, esz);
  *buf = *own;
  return PD_OK;
}
static pd_status nchw_out(pd_tensor *out, int nhwc, void **buf) {
  if (!nhwc) {
    *buf = pd_tensor_data(out);
    return PD_OK;
  }
  *buf = pd_alloc((size_t)out->numel * pd_dtype_size(out->dtype));
  return *buf ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool] out of memory");
}
static void nchw_done(pd_tensor *out, int nhwc, int64_t N, int64_t C, int64_t S, void *buf) {
  if (!nhwc) return;
  pd_permute_nc((const char *)buf, (char *)pd_tensor_data(out), N, C, S, pd_dtype_size(out->dtype));
  pd_free(buf);
}

#define FOR_WIN(g, od, oh, ow, BODY)                                                               \
  for (int64_t od = 0; od < (g)->out[0]; od++)                                                     \
    for (int64_t oh = 0; oh < (g)->out[1]; oh++)                                                   \
      for (int64_t ow = 0; ow < (g)->out[2]; ow++) {                                               \
        int64_t d0, d1, h0, h1, w0, w1, ed, eh, ew;                                                \
        win(g, 0, od, &d0, &d1, &ed);                                                              \
        win(g, 1, oh, &h0, &h1, &eh);                                                              \
        win(g, 2, ow, &w0, &w1, &ew);                                                              \
        const int64_t oi = (od * (g)->out[1] + oh) * (g)->out[2] + ow;                             \
        BODY                                                                                       \
      }

#define DEF_POOL(SUF, T)                                                                            \
  /* mode 0: forward (int32 argmax, Paddle's mask, optional; -1: empty window); 1: dx from dout \
   * (max: at the argmax, avg: spread) */                                                          \
  static void pool_##SUF(const pd_pool_geom *g, int mode, const T *x, const T *dout, T *y,       \
                         int32_t *amax) {                                                          \
    const int64_t IS = prod3(g->in), OS = prod3(g->out), P = g->N * g->C;                         \
    if (whole_plane_avg(g)) {                                                                      \
      const T inv = IS > 0 ? (T)1 / (T)IS : (T)0;                                                  \
      _Pragma("omp parallel for if (P * IS > 32768)")                                             \
      for (int64_t p = 0; p < P; p++) {                                                            \
        if (mode == 0) {                                                                           \
          const T *restrict xp = x + p * IS;                                                       \
          T a[8] = {0}, r = 0;                                                                     \
          int64_t i = 0;                                                                           \
          for (; i + 8 <= IS; i += 8)                                                              \
            for (int j = 0; j < 8; j++) a[j] += xp[i + j];                                         \
          for (; i < IS; i++) r += xp[i];                                                          \
          for (int j = 0; j < 8; j++) r += a[j];                                                   \
          y[p] = r * inv;                                                                          \
        } else {                                                                                   \
          T *restrict yp = y + p * IS;                                                             \
          const T v = dout[p] * inv;                                                               \
          for (int64_t i = 0; i < IS; i++) yp[i] = v;                                              \
        }                                                                                          \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    _Pragma("omp parallel for if (P * IS > 32768)")                                               \
    for (int64_t p = 0; p < P; p++) {                                                              \
      const T *xp = x + p * IS;                                                                    \
      T *yp = mode == 0 ? y + p * OS : y + p * IS;                                                 \
      const T *dp = mode == 1 ? dout + p * OS : NULL;                                              \
      if (mode == 1) memset(yp, 0, (size_t)IS * sizeof(T));                                        \
      FOR_WIN(g, od, oh, ow, {                                                                     \
        if (g->is_max) {                                                                           \
          T best = 0;                                                                              \
          int64_t bi = -1;                                                                         \
          for (int64_t d = d0; d < d1; d++)                                                        \
            for (int64_t h = h0; h < h1; h++)                                                      \
              for (int64_t w = w0; w < w1; w++) {                                                  \
                int64_t ii = (d * g->in[1] + h) * g->in[2] + w;                                    \
                T v = xp[ii];                                                                      \
                if (bi < 0 || v > best || (v != v && best == best)) {                              \
                  best = v;                                                                        \
                  bi = ii;                                                                         \
                }                                                                                  \
              }                                                                                    \
          if (mode == 0) {                                                                         \
            yp[oi] = bi < 0 ? (T)0 : best;                                                         \
            if (amax) amax[p * OS + oi] = bi < 0 ? -1 : (int32_t)bi;                               \
          } else if (bi >= 0) {                                                                    \
            yp[bi] += dp[oi];                                                                      \
          }                                                                                        \
        } else {                                                                                   \
          int64_t cnt = (g->exclusive || g->adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew; \
          T inv = cnt > 0 ? (T)1 / (T)cnt : (T)0;                                                  \
          if (mode == 0) {                                                                         \
            T acc = 0;                                                                             \
            for (int64_t d = d0; d < d1; d++)                                                      \
              for (int64_t h = h0; h < h1; h++) {                                                  \
                const T *r = xp + (d * g->in[1] + h) * g->in[2];                                   \
                for (int64_t w = w0; w < w1; w++) acc += r[w];                                     \
              }                                                                                    \
            yp[oi] = acc * inv;                                                                    \
          } else {                                                                                 \
            T v = dp[oi] * inv;                                                                    \
            for (int64_t d = d0; d < d1; d++)                                                      \
              for (int64_t h = h0; h < h1; h++) {                                                  \
                T *r = yp + (d * g->in[1] + h) * g->in[2];                                         \
                for (int64_t w = w0; w < w1; w++) r[w] += v;                                       \
              }                                                                                    \
          }                                                                                        \
        }                                                                                          \
      })                                                                                           \
    }                                                                                              \
  }
DEF_POOL(f32, float)
DEF_POOL(f64, double)

#define DEF_SCAT(SUF, T, IT)                                                                        \
  /* scatter (unpool: y[idx] (+)= x; the max-pool backward from its argmax) or gather (y = x[idx])  \
   * per plane, planes in parallel on the OpenMP pool; IS: big plane size; int64 or int32 indices */ \
  static void scat_##SUF(int64_t P, int64_t SS, int64_t IS, const T *x, const IT *idx, T *y,      \
                         int gather, int acc) {                                                    \
    _Pragma("omp parallel for if (P * IS > 32768)")                                               \
    for (int64_t p = 0; p < P; p++) {                                                              \
      if (gather) {                                                                                \
        for (int64_t j = 0; j < SS; j++) {                                                         \
          int64_t i = idx[p * SS + j];                                                             \
          y[p * SS + j] = (i >= 0 && i < IS) ? x[p * IS + i] : (T)0;                               \
        }                                                                                          \
      } else {                                                                                     \
        memset(y + p * IS, 0, (size_t)IS * sizeof(T));                                             \
        for (int64_t j = 0; j < SS; j++) {                                                         \
          int64_t i = idx[p * SS + j];                                                             \
          if (i < 0 || i >= IS) continue;                                                          \
          if (acc) y[p * IS + i] += x[p * SS + j];                                                 \
          else y[p * IS + i] = x[p * SS + j];                                                      \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

/* bfloat16 (the max-pool backward under auto_cast): gather and plain scatter move the values; an
 * accumulating scatter sums each plane in a float32 row in the same order as scat_f32 and rounds
 * once, so dx equals the float32 path's rounded */
#define DEF_SCAT_BF16(SUF, IT)                                                                      \
  static void scat_##SUF(int64_t P, int64_t SS, int64_t IS, const uint16_t *x, const IT *idx, uint16_t *y, \
                         int gather, int acc) {                                                    \
    _Pragma("omp parallel if (P * IS > 32768)")                                                   \
    {                                                                                              \
      float *buf = acc && !gather ? (float *)malloc((size_t)(IS > 0 ? IS : 1) * sizeof(float)) : NULL; \
      _Pragma("omp for")                                                                           \
      for (int64_t p = 0; p < P; p++) {                                                            \
        uint16_t *yp = y + p * (gather ? SS : IS);                                                 \
        if (gather) {                                                                              \
          for (int64_t j = 0; j < SS; j++) {                                                       \
            int64_t i = idx[p * SS + j];                                                           \
            yp[j] = (i >= 0 && i < IS) ? x[p * IS + i] : 0;                                        \
          }                                                                                        \
        } else if (buf) {                                                                          \
          memset(buf, 0, (size_t)IS * sizeof(float));                                             \
          for (int64_t j = 0; j < SS; j++) {                                                       \
            int64_t i = idx[p * SS + j];                                                           \
            if (i >= 0 && i < IS) buf[i] += pd_bf16_bits_to_f32(x[p * SS + j]);                    \
          }                                                                                        \
          for (int64_t i = 0; i < IS; i++) yp[i] = pd_f32_to_bf16_bits(buf[i]);                   \
        } else {                                                                                   \
          memset(yp, 0, (size_t)IS * sizeof(uint16_t));                                           \
          for (int64_t j = 0; j < SS; j++) {                                                       \
            int64_t i = idx[p * SS + j];                                                           \
            if (i >= 0 && i < IS && !acc) yp[i] = x[p * SS + j];                                   \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      free(buf);                                                                                   \
    }                                                                                              \
  }
DEF_SCAT_BF16(bf16, int64_t)
DEF_SCAT_BF16(bf16_i32, int32_t)

DEF_SCAT(f32, float, int64_t)
DEF_SCAT(f64, double, int64_t)
DEF_SCAT(f32_i32, float, int32_t)
DEF_SCAT(f64_i32, double, int32_t)

/* The window bounds of a 2-D pooling (dims 0 and 1 are H and W), computed once per output column
 * and row instead of per output: [lo, hi) of output column o at t[2o], t[2o + 1] (o < OW), of
 * output row o at t[2 OW + 2o], t[2 OW + 2o + 1]. One table for the max forward (with or without
 * argmax) and the max backward. malloc'd (caller frees); NULL when out of memory. */
static int64_t *win_tables(const pd_pool_geom *g) {
  const int64_t OH = g->out[0], OW = g->out[1];
  int64_t *t = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * OW + 2 * OH + 1));
  if (!t) return NULL;
  int64_t ext;
  for (int64_t o = 0; o < OW; o++) win(g, 1, o, &t[2 * o], &t[2 * o + 1], &ext);
  for (int64_t o = 0; o < OH; o++) win(g, 0, o, &t[2 * OW + 2 * o], &t[2 * OW + 2 * o + 1], &ext);
  return t;
}

/* float32 2-D max pooling forward without a mask, separably: a row pass (the max over each
 * output column's window, vectorised across columns in the interior when the stride is 1) into a
 * [H, OW] buffer, then a column pass over the window's rows. Same result as the direct loop
 * (max is exact; a NaN in a window propagates; an empty window gives 0): a 13x13 window costs
 * 26 instead of 169 compares per output, and 2x2 windows lose the per-output index bookkeeping. */
static inline float maxnan_f(float m, float v) { return (v > m || v != v) ? v : m; }
static int max2d_fast_f32(const pd_pool_geom *g, const float *x, float *y) {
  /* 2-D: dims 0 and 1 are H and W, dim 2 is 1 */
  if (!g->is_max || g->adaptive || g->nsp != 2 || g->in[2] != 1 || g->out[2] != 1 || g->k[2] != 1) return 0;
  const int64_t H = g->in[0], W = g->in[1], OH = g->out[0], OW = g->out[1], P = g->N * g->C;
  const int64_t s = g->s[1], pl = g->pl[1], k = g->k[1];
  if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0) return 0;
  int64_t *wb = win_tables(g);
  if (!wb) return 0;
  const int64_t *hb = wb + 2 * OW;
  /* interior columns [ia, ib): the whole window inside the row */
  int64_t ia = OW, ib = OW;
  for (int64_t o = 0; o < OW; o++)
    if (o * s - pl >= 0 && o * s - pl + k <= W) {
      if (ia == OW) ia = o;
      ib = o + 1;
    }
  int ok = 1;
  _Pragma("omp parallel if (P * H * W > 32768)")
  {
    float *t = (float *)malloc(sizeof(float) * (size_t)(H * OW));
    if (!t) {
      _Pragma("omp atomic write")
      ok = 0;
    }
    _Pragma("omp for")
    for (int64_t p = 0; p < P; p++) {
      if (!t) continue;
      const float *xp = x + p * H * W;
      float *yp = y + p * OH * OW;
      for (int64_t h = 0; h < H; h++) {
        const float *restrict xr = xp + h * W;
        float *restrict tr = t + h * OW;
        for (int64_t o = 0; o < OW; o++) {
          if (o == ia && ib > ia) {
            const float *restrict xs = xr + ia * s - pl;
            if (s == 1) {
              for (int64_t q = 0; q < ib - ia; q++) tr[ia + q] = xs[q];
              for (int64_t kw = 1; kw < k; kw++)
                for (int64_t q = 0; q < ib - ia; q++) tr[ia + q] = maxnan_f(tr[ia + q], xs[q + kw]);
            } else { /* window offset outside: the column loop vectorises (strided loads) */
              for (int64_t q = 0; q < ib - ia; q++) tr[ia + q] = xs[q * s];
              for (int64_t kw = 1; kw < k; kw++)
                for (int64_t q = 0; q < ib - ia; q++) tr[ia + q] = maxnan_f(tr[ia + q], xs[q * s + kw]);
            }
            o = ib - 1;
            continue;
          }
          const int64_t lo = wb[2 * o], hi = wb[2 * o + 1];
          float m = lo < hi ? xr[lo] : 0.0f;
          for (int64_t w = lo + 1; w < hi; w++) m = maxnan_f(m, xr[w]);
          tr[o] = m;
        }
      }
      for (int64_t oh = 0; oh < OH; oh++) {
        const int64_t lo = hb[2 * oh], hi = hb[2 * oh + 1];
        float *restrict yr = yp + oh * OW;
        if (lo >= hi) {
          memset(yr, 0, sizeof(float) * (size_t)OW);
          continue;
        }
        memcpy(yr, t + lo * OW, sizeof(float) * (size_t)OW);
        for (int64_t h = lo + 1; h < hi; h++) {
          const float *restrict tr = t + h * OW;
          for (int64_t o = 0; o < OW; o++) yr[o] = maxnan_f(yr[o], tr[o]);
        }
      }
    }
    free(t);
  }
  free(wb);
  return ok;
}

/* float32 2-D max pooling gradient (no mask): per output, the argmax of its window (first in row
 * order; a NaN wins as in the direct loop) gets dout added, with the window bounds computed once
 * per row / column instead of per output. Same result as pool_f32's mode 1, bit for bit (same scan
 * and accumulation order per plane); ResNet-50's 3x3/2 pooling at b16: ~140 -> ~105 ms, 1 thread. */
static int max2d_bwd_f32(const pd_pool_geom *g, const float *x, const float *dout, float *y) {
  if (!g->is_max || g->nsp != 2 || g->in[2] != 1 || g->out[2] != 1 || g->k[2] != 1) return 0;
  const int64_t H = g->in[0], W = g->in[1], OH = g->out[0], OW = g->out[1], P = g->N * g->C;
  if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0) return 0;
  int64_t *wb = win_tables(g);
  if (!wb) return 0;
  const int64_t *hb = wb + 2 * OW;
  _Pragma("omp parallel for if (P * H * W > 32768)")
  for (int64_t p = 0; p < P; p++) {
    const float *xp = x + p * H * W, *dp = dout + p * OH * OW;
    float *yp = y + p * H * W;
    memset(yp, 0, sizeof(float) * (size_t)(H * W));
    for (int64_t oh = 0; oh < OH; oh++) {
      const int64_t h0 = hb[2 * oh], h1 = hb[2 * oh + 1];
      if (h0 >= h1) continue;
      for (int64_t ow = 0; ow < OW; ow++) {
        const int64_t w0 = wb[2 * ow], w1 = wb[2 * ow + 1];
        if (w0 >= w1) continue;
        int64_t bi = h0 * W + w0;
        float best = xp[bi];
        for (int64_t h = h0; h < h1; h++) {
          const float *xr = xp + h * W;
          for (int64_t w = (h == h0 ? w0 + 1 : w0); w < w1; w++) {
            const float v = xr[w];
            if (v > best || (v != v && best == best)) {
              best = v;
              bi = h * W + w;
            }
          }
        }
        yp[bi] += dp[oh * OW + ow];
      }
    }
  }
  free(wb);
  return 1;
}

/* 2-D max pooling forward that also records each window's argmax (int32, flat index in the
 * input plane, -1 for an empty window) for training, separably like max2d_fast_f32: a row pass
 * keeps each (row, output column) window's max and its column, a column pass picks the row. The
 * first maximum in row order wins (a NaN wins, the first NaN first): the window the generic loop
 * scans, the element pool2d_grad's backward picks and Paddle picks, so the backward is a scatter
 * (scat_*_i32) of dout to these indices with the same sums in the same order. */
/* the interior of a row pass with argmax: output columns ia + q (q < n) whose windows start at
 * xs[q * S] (absolute column c0 + q * S); taps outside, output columns inside (vectorises) */
#define ARGMAX_ROW(T, S)                                                                            \
  do {                                                                                             \
    for (int64_t q = 0; q < n; q++) {                                                              \
      vr[ia + q] = xs[q * (S)];                                                                    \
      cr[ia + q] = (int32_t)(c0 + q * (S));                                                        \
    }                                                                                              \
    for (int64_t kw = 1; kw < k; kw++)                                                             \
      for (int64_t q = 0; q < n; q++) {                                                            \
        const T v = xs[q * (S) + kw], m = vr[ia + q];                                              \
        const int up = (v > m) | ((v != v) & (m == m));                                            \
        vr[ia + q] = up ? v : m;                                                                   \
        cr[ia + q] = up ? (int32_t)(c0 + q * (S) + kw) : cr[ia + q];                               \
      }                                                                                            \
  } while (0)
#define DEF_ARGMAX2D(SUF, T)                                                                        \
  static int max2d_argmax_##SUF(const pd_pool_geom *g, const T *x, T *y, int32_t *am) {             \
    if (!g->is_max || g->adaptive || g->nsp != 2 || g->in[2] != 1 || g->out[2] != 1 || g->k[2] != 1) \
      return 0;                                                                                    \
    const int64_t H = g->in[0], W = g->in[1], OH = g->out[0], OW = g->out[1], P = g->N * g->C;     \
    if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0 || H * W > INT32_MAX) return 0;                     \
    int64_t *wb = win_tables(g);                                                                   \
    if (!wb) return 0;                                                                             \
    const int64_t *hb = wb + 2 * OW;                                                               \
    const int64_t s = g->s[1], pl = g->pl[1], k = g->k[1];                                         \
    int64_t ia = OW, ib = OW; /* interior output columns: the whole window inside the row */       \
    for (int64_t o = 0; o < OW; o++)                                                               \
      if (o * s - pl >= 0 && o * s - pl + k <= W) {                                                \
        if (ia == OW) ia = o;                                                                      \
        ib = o + 1;                                                                                \
      }                                                                                            \
    int ok = 1;                                                                                    \
    _Pragma("omp parallel if (P * H * W > 32768)")                                                 \
    {                                                                                              \
      T *tv = (T *)malloc(sizeof(T) * (size_t)(H * OW));                                           \
      int32_t *tc = (int32_t *)malloc(sizeof(int32_t) * (size_t)(H * OW));                         \
      if (!tv || !tc) {                                                                            \
        _Pragma("omp atomic write")                                                                \
        ok = 0;                                                                                    \
      }                                                                                            \
      _Pragma("omp for")                                                                           \
      for (int64_t p = 0; p < P; p++) {                                                            \
        if (!tv || !tc) continue;                                                                  \
        const T *xp = x + p * H * W;                                                               \
        T *yp = y + p * OH * OW;                                                                   \
        int32_t *ap = am + p * OH * OW;                                                            \
        for (int64_t h = 0; h < H; h++) { /* row pass: max and its column per output column */     \
          const T *restrict xr = xp + h * W;                                                       \
          T *restrict vr = tv + h * OW;                                                            \
          int32_t *restrict cr = tc + h * OW;                                                      \
          for (int64_t o = 0; o < OW; o++) {                                                       \
            if (o == ia && ib > ia) { /* interior: branch-free selects across output columns */    \
              const int64_t n = ib - ia, c0 = ia * s - pl;                                         \
              const T *restrict xs = xr + c0;                                                      \
              if (s == 2) /* a constant stride: gcc vectorises the strided loads */                 \
                ARGMAX_ROW(T, 2);                                                                  \
              else                                                                                 \
                ARGMAX_ROW(T, s);                                                                  \
              o = ib - 1;                                                                          \
              continue;                                                                            \
            }                                                                                      \
            const int64_t lo = wb[2 * o], hi = wb[2 * o + 1];                                      \
            if (lo >= hi) {                                                                        \
              vr[o] = 0;                                                                           \
              cr[o] = -1;                                                                          \
              continue;                                                                            \
            }                                                                                      \
            T m = xr[lo];                                                                          \
            int64_t c = lo;                                                                        \
            for (int64_t w = lo + 1; w < hi; w++) {                                                \
              const T v = xr[w];                                                                   \
              if (v > m || (v != v && m == m)) {                                                   \
                m = v;                                                                             \
                c = w;                                                                             \
              }                                                                                    \
            }                                                                                      \
            vr[o] = m;                                                                             \
            cr[o] = (int32_t)c;                                                                    \
          }                                                                                        \
        }                                                                                          \
        for (int64_t oh = 0; oh < OH; oh++) { /* column pass: the row, across output columns */    \
          const int64_t lo = hb[2 * oh], hi = hb[2 * oh + 1];                                      \
          T *restrict yr = yp + oh * OW;                                                           \
          int32_t *restrict ar = ap + oh * OW;                                                     \
          if (lo >= hi) {                                                                          \
            for (int64_t o = 0; o < OW; o++) {                                                     \
              yr[o] = 0;                                                                           \
              ar[o] = -1;                                                                          \
            }                                                                                      \
            continue;                                                                              \
          }                                                                                        \
          for (int64_t o = 0; o < OW; o++) {                                                       \
            const int32_t c = tc[lo * OW + o];                                                     \
            yr[o] = tv[lo * OW + o];                                                               \
            ar[o] = c < 0 ? -1 : (int32_t)(lo * W + c);                                            \
          }                                                                                        \
          for (int64_t h = lo + 1; h < hi; h++) { /* an empty row window stays 0 / -1 */           \
            const T *restrict vr = tv + h * OW;                                                    \
            const int32_t *restrict cr = tc + h * OW;                                              \
            const int32_t hw = (int32_t)(h * W);                                                   \
            for (int64_t o = 0; o < OW; o++) {                                                     \
              const T v = vr[o], m = yr[o];                                                        \
              const int up = (v > m) | ((v != v) & (m == m));                                      \
              yr[o] = up ? v : m;                                                                  \
              ar[o] = up ? hw + cr[o] : ar[o];                                                     \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      free(tv);                                                                                    \
      free(tc);                                                                                    \
    }                                                                                              \
    free(wb);                                                                                      \
    return ok;                                                                                     \
  }
DEF_ARGMAX2D(f32, float)
DEF_ARGMAX2D(f64, double)

static void pool_any(pd_dtype dt, const pd_pool_geom *g, int mode, const void *x, const void *d, void *y,
                     int32_t *amax) {
  if (dt == PD_FLOAT32) pool_f32(g, mode, (const float *)x, (const float *)d, (float *)y, amax);
  else pool_f64(g, mode, (const double *)x, (const double *)d, (double *)y, amax);
}

/* forward / with index / grad. mode 0: out (+ out[1] when with_mask: the int32 argmax, Paddle's
 * mask of max_pool2d_with_index, also training's saved index); mode 1: out = dx from dout */
static pd_status pool_exec(const pd_pool_geom *g, int mode, pd_tensor *x, pd_tensor *dout, pd_tensor **out,
                           int with_mask) {
  const int64_t IS = prod3(g->in), OS = prod3(g->out);
  const pd_dtype mdt = PD_INT32;
  const size_t msz = sizeof(int32_t);
  pd_tensor *xc = NULL, *dc = NULL, *mc = NULL;
  void *xb, *xo = NULL, *db = NULL, *dno = NULL, *yb = NULL;
  int32_t *ab = NULL;
  pd_status st;
  if (with_mask && IS > INT32_MAX) {
    st = pd_set_error(PD_ERR_UNIMPLEMENTED, "[max pooling] an input plane of %lld elements does not fit Paddle's "
                      "int32 mask", (long long)IS);
    goto done;
  }
  if ((st = nchw_in(x, g->nhwc, g->N, g->C, IS, &xc, &xb, &xo)) != PD_OK) goto done;
  if (mode == 1 && (st = nchw_in(dout, g->nhwc, g->N, g->C, OS, &dc, &db, &dno)) != PD_OK) goto done;
  if ((st = nchw_out(out[0], g->nhwc, &yb)) != PD_OK) goto done;
  if (with_mask) {
    if ((st = pd_tensor_empty(mdt, out[0]->ndim, out[0]->shape, &mc)) != PD_OK) goto done;
    ab = (int32_t *)pd_tensor_data(mc);
  }
  int done_fast = 0;
  if (mode == 0 && !with_mask && out[0]->dtype == PD_FLOAT32)
    done_fast = max2d_fast_f32(g, (const float *)xb, (float *)yb);
  else if (mode == 0 && with_mask)
    done_fast = out[0]->dtype == PD_FLOAT32 ? max2d_argmax_f32(g, (const float *)xb, (float *)yb, ab)
                                            : max2d_argmax_f64(g, (const double *)xb, (double *)yb, ab);
  else if (mode == 1 && out[0]->dtype == PD_FLOAT32 && getenv("PADDLE_C_POOL_BWD_GENERIC") == NULL)
    done_fast = max2d_bwd_f32(g, (const float *)xb, (const float *)db, (float *)yb);
  if (!done_fast) pool_any(out[0]->dtype, g, mode, xb, db, yb, ab);
  nchw_done(out[0], g->nhwc, g->N, g->C, mode == 0 ? OS : IS, yb);
  if (with_mask) {
    if (g->nhwc) {
      pd_tensor *m2;
      if ((st = pd_tensor_empty(mdt, out[0]->ndim, out[0]->shape, &m2)) != PD_OK) goto done;
      pd_permute_nc((const char *)pd_tensor_data(mc), (char *)pd_tensor_data(m2), g->N, g->C, OS, msz);
      pd_tensor_release(mc);
      mc = m2;
    }
    if (out[1]) {
      pd_tensor_copy_(out[1], mc);
    } else {
      out[1] = mc;
      mc = NULL;
    }
  }
done:
  if (xo) pd_free(xo);
  if (dno) pd_free(dno);
  if (xc) pd_tensor_release(xc);
  if (dc) pd_tensor_release(dc);
  if (mc) pd_tensor_release(mc);
  return st;
}

#define GEOM(a, op, g)                                                                              \
  PD_TRY(pd_pool_geom_make(op, (a)->x, (a)->kernel_size, (a)->strides, (a)->paddings, (a)->ceil_mode, \
                           (a)->exclusive, (a)->data_format, (a)->pooling_type, (a)->global_pooling, \
                           (a)->adaptive, (a)->padding_algorithm, g))

static pd_status k_pool(const void *args, pd_tensor **out) {
  const pd_pool2d_args *a = (const pd_pool2d_args *)args;
  pd_pool_geom g;
  GEOM(a, "pool2d", &g);
  if (a->x->layout) { /* a blocked activation of the inference executor (layout_dnnl.h) */
    int done;
    PD_TRY(pd_layout_pool2d(&g, a->x, out, &done));
    if (done) return PD_OK;
    pd_tensor *xp;
    PD_TRY(pd_layout_to_plain(a->x, &xp));
    pd_status st = pool_exec(&g, 0, xp, NULL, out, 0);
    pd_tensor_release(xp);
    return st;
  }
  return pool_exec(&g, 0, a->x, NULL, out, 0);
}
static pd_status k_pool_grad(const void *args, pd_tensor **out) {
  const pd_pool2d_grad_args *a = (const pd_pool2d_grad_args *)args;
  pd_pool_geom g;
  GEOM(a, "pool2d_grad", &g);
  return pool_exec(&g, 1, a->x, a->dout, out, 0);
}
static pd_status k_pool_index(const void *args, pd_tensor **out) {
  const pd_max_pool2d_with_index_args *a = (const pd_max_pool2d_with_index_args *)args;
  pd_pool_geom g;
  PD_TRY(pd_pool_geom_make("max_pool2d_with_index", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode,
                           1, a->data_format, "max", a->global_pooling, a->adaptive, a->padding_algorithm, &g));
  if (a->x->dtype != PD_BFLOAT16) return pool_exec(&g, 0, a->x, NULL, out, 1);
  /* bfloat16 (training under auto_cast): the float32 kernel on the widened x; the maxima are x's
   * values, so the output narrows back exactly and the argmax is the float32 one's */
  pd_tensor *xf = NULL, *of = NULL;
  pd_status st = pd_tensor_cast(a->x, PD_FLOAT32, &xf);
  if (st == PD_OK) st = pd_tensor_empty(PD_FLOAT32, out[0]->ndim, out[0]->shape, &of);
  if (st == PD_OK) {
    pd_tensor *o2[2] = {of, out[1]};
    if ((st = pool_exec(&g, 0, xf, NULL, o2, 1)) == PD_OK) {
      out[1] = o2[1];
      st = pd_tensor_copy_(out[0], of);
    }
  }
  if (xf) pd_tensor_release(xf);
  if (of) pd_tensor_release(of);
  return st;
}

/* unpool / pool_gather: planes of x (or indices) vs planes of the big tensor */
static pd_status scatter_exec(const char *op, pd_tensor *small, pd_tensor *idx, pd_tensor *big, const char *fmt,
                              int gather, int acc, pd_tensor *out) {
  int nhwc = fmt && (!strcmp(fmt, "NHWC") || !strcmp(fmt, "NLC") || !strcmp(fmt, "NDHWC"));
  const pd_tensor *ref = gather ? big : out;
  int64_t N = ref->shape[0], C = nhwc ? ref->shape[ref->ndim - 1] : ref->shape[1];
  const int64_t NC = N * C;
  int64_t IS = NC > 0 ? ref->numel / NC : 0, SS = NC > 0 ? idx->numel / NC : 0;
  pd_tensor *sc = NULL, *ic = NULL, *bc = NULL;
  void *sb = NULL, *so = NULL, *ib = NULL, *io = NULL, *bb = NULL, *bo = NULL, *yb = NULL;
  pd_status st;
  (void)op;
  if ((st = nchw_in(idx, nhwc, N, C, SS, &ic, &ib, &io)) != PD_OK) goto done;
  if (gather) {
    if ((st = nchw_in(big, nhwc, N, C, IS, &bc, &bb, &bo)) != PD_OK) goto done;
  } else {
    if ((st = nchw_in(small, nhwc, N, C, SS, &sc, &sb, &so)) != PD_OK) goto done;
  }
  if ((st = nchw_out(out, nhwc, &yb)) != PD_OK) goto done;
  const void *src = gather ? bb : sb;
  if (out->dtype == PD_BFLOAT16) {
    if (idx->dtype == PD_INT32)
      scat_bf16_i32(N * C, SS, IS, (const uint16_t *)src, (const int32_t *)ib, (uint16_t *)yb, gather, acc);
    else
      scat_bf16(N * C, SS, IS, (const uint16_t *)src, (const int64_t *)ib, (uint16_t *)yb, gather, acc);
  } else if (idx->dtype == PD_INT32) {
    if (out->dtype == PD_FLOAT32)
      scat_f32_i32(N * C, SS, IS, (const float *)src, (const int32_t *)ib, (float *)yb, gather, acc);
    else
      scat_f64_i32(N * C, SS, IS, (const double *)src, (const int32_t *)ib, (double *)yb, gather, acc);
  } else if (out->dtype == PD_FLOAT32) {
    scat_f32(N * C, SS, IS, (const float *)src, (const int64_t *)ib, (float *)yb, gather, acc);
  } else {
    scat_f64(N * C, SS, IS, (const double *)src, (const int64_t *)ib, (double *)yb, gather, acc);
  }
  nchw_done(out, nhwc, N, C, gather ? SS : IS, yb);
done:
  if (so) pd_free(so);
  if (io) pd_free(io);
  if (bo) pd_free(bo);
  if (sc) pd_tensor_release(sc);
  if (ic) pd_tensor_release(ic);
  if (bc) pd_tensor_release(bc);
  return st;
}
static pd_status k_unpool(const void *args, pd_tensor **out) {
  const pd_unpool_args *a = (const pd_unpool_args *)args;
  return scatter_exec("unpool", a->x, a->indices, NULL, a->data_format, 0, a->accumulate, out[0]);
}
static pd_status k_gather(const void *args, pd_tensor **out) {
  const pd_pool_gather_args *a = (const pd_pool_gather_args *)args;
  return scatter_exec("pool_gather", NULL, a->indices, a->x, a->data_format, 1, 0, out[0]);
}

#define DEF_ENTRY(SUF)                                                                              \
  pd_status pd_kernel_pool2d_##SUF(const void *args, pd_tensor **out, int n_out) {                 \
    (void)n_out;                                                                                   \
    return k_pool(args, out);                                                                      \
  }                                                                                                \
  pd_status pd_kernel_pool2d_grad_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                   \
    return k_pool_grad(args, out);                                                                 \
  }                                                                                                \
  DEF_INDEX_ENTRY(SUF)
/* the saved-argmax ops (float32, float64 and, for training under auto_cast, bfloat16) */
#define DEF_INDEX_ENTRY(SUF)                                                                        \
  pd_status pd_kernel_max_pool2d_with_index_##SUF(const void *args, pd_tensor **out, int n_out) {  \
    (void)n_out;                                                                                   \
    return k_pool_index(args, out);                                                                \
  }                                                                                                \
  pd_status pd_kernel_unpool_##SUF(const void *args, pd_tensor **out, int n_out) {                 \
    (void)n_out;                                                                                   \
    return k_unpool(args, out);                                                                    \
  }                                                                                                \
  pd_status pd_kernel_pool_gather_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                   \
    return k_gather(args, out);                                                                    \
  }
DEF_ENTRY(f32)
DEF_ENTRY(f64)
DEF_INDEX_ENTRY(bf16)
